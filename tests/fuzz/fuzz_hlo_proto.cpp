// libFuzzer target for the HLO proto decoder and the rules that walk what it returns: any bytes
// must give either a module or an error message, never a crash, and a module must survive every
// lookup, the precision rules, the cost model (FLOPs and bytes of every instruction, as the
// roofline asks) and a command buffer alignment against each of its schedules (cyclic called
// computations, dangling ids, duplicate names and made-up shapes included). `bash .ci/fuzz`
// builds it and seeds it with the HLO protos of the real profiles (the `Hlo Proto` stats).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "model/analysis/CommandBufferAlignment.h"
#include "model/analysis/HloCostModel.h"
#include "model/analysis/HloPrecision.h"
#include "model/xspace/HloProto.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace stepscope;
    std::string error;
    const std::optional<HloModule> m = decodeHloProto(std::span(data, size), error);
    if (!m) {
        if (error.empty()) std::abort();
        return 0;
    }
    std::vector<std::string> kernels{"Memset 0", "nvjet_fuzz"};
    HloCostModel costs(*m);
    for (const HloComputation& c : m->computations)
        for (const HloInstruction& h : c.instructions) {
            if (!m->instruction(h.id) || !m->instructionNamed(h.name)) std::abort();
            if (m->computationOf(h) != &c) std::abort();
            (void)instructionPrecision(*m, h);
            (void)isMatrixInstruction(*m, h);
            const OpCost cost = costs.cost(h);
            if ((cost.flops && *cost.flops < 0) || cost.transcendentals < 0 ||
                (cost.bytes && *cost.bytes < 0))
                std::abort();
            kernels.push_back(kernelNameOf(h.name));
            kernels.push_back("Memset 0");
        }
    const std::vector<std::string_view> names(kernels.begin(), kernels.end());
    for (const HloSequence& s : m->schedule) {
        const CommandBufferSchedule schedule(*m, s);
        for (int32_t at : schedule.align(names))
            if (at >= int32_t(schedule.size())) std::abort();
    }
    return 0;
}
