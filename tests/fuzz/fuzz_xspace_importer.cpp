// libFuzzer target for the XSpace importer: any bytes must give either a profile that satisfies
// the model's invariants or an error message, never a crash. Built with clang and
// -DSTEPSCOPE_FUZZ=ON (the code it calls is instrumented too); `bash .ci/fuzz [SECONDS]` builds,
// seeds and runs it.
#include <cstdint>
#include <cstdlib>

#include "model/ProfileLoader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace stepscope;
    const LoadResult r = loadXSpaceBytes(std::span(data, size), "fuzz");
    if (!r.ok()) {
        if (r.error.empty()) std::abort();
        return 0;
    }
    const Profile& p = *r.profile;
    for (size_t t = 0; t < p.tracks().size(); ++t)
        for (uint32_t d = 0; d < p.tracks()[t].depthCount; ++d) {
            const EventRange er = p.eventsAt(uint32_t(t), d);
            for (EventIndex e = er.begin; e < er.end; ++e) {
                if (p.end(e) < p.start(e) || p.start(e) < 0 || p.end(e) > p.durationPs())
                    std::abort();
                if (e > er.begin && p.start(e) < p.end(e - 1)) std::abort();
                for (const StatValue& s : p.eventStats(e)) (void)s.format(p.strings());
                (void)p.name(e);
            }
        }
    for (const Flow& f : p.flows())
        if (f.launch >= p.eventCount() || f.target >= p.eventCount()) std::abort();
    return 0;
}
