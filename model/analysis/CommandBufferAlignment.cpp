#include "model/analysis/CommandBufferAlignment.h"

#include <algorithm>

namespace stepscope {

bool emitsDeviceWork(const HloInstruction& instruction) {
    const std::string_view op = instruction.opcode;
    if (op == "parameter" || op == "constant" || op == "get-tuple-element" || op == "tuple" ||
        op == "bitcast" || op == "after-all" || op == "add-dependency" || op == "opt-barrier" ||
        op == "domain" || op == "async-update")
        return false;
    return !op.ends_with("-done");
}

std::string kernelNameOf(std::string_view instructionName) {
    std::string out(instructionName);
    for (char& c : out)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '$'))
            c = '_';
    if (out.empty()) return "__unnamed";
    if (out[0] >= '0' && out[0] <= '9') out.insert(out.begin(), '_');
    if (out == "_" || out == "$") out += '_';
    return out;
}

std::string fusedSignature(const HloModule& module, const HloInstruction& fusion) {
    std::vector<std::string> parts;
    for (int64_t id : fusion.calledComputationIds)
        if (const HloComputation* c = module.computation(id))
            for (const HloInstruction& h : c->instructions) {
                std::string part = h.opcode;
                part += ' ';
                part += elementTypeName(h.shape.elementType);
                for (int64_t d : h.shape.dimensions) part += ',' + std::to_string(d);
                parts.push_back(std::move(part));
            }
    std::sort(parts.begin(), parts.end());
    std::string out;
    for (const std::string& part : parts) (out += part) += ';';
    return out;
}

bool isMemsetName(std::string_view eventName) {
    return eventName.starts_with("Memset");
}

CommandBufferSchedule::CommandBufferSchedule(const HloModule& module, const HloSequence& sequence)
    : computationId_(sequence.computationId) {
    for (int64_t id : sequence.instructionIds) {
        const HloInstruction* h = module.instruction(id);
        if (!h || !emitsDeviceWork(*h)) continue;
        positions_[kernelNameOf(h->name)].push_back(uint32_t(instructions_.size()));
        instructions_.push_back(h);
        isFusion_.push_back(h->opcode == "fusion");
        signatures_.push_back(isFusion_.back() ? fusedSignature(module, *h) : std::string());
    }
    for (const HloComputation& c : module.computations)
        for (const HloInstruction& h : c.instructions)
            if (h.opcode == "fusion") {
                const auto [it, inserted] = fusionKernels_.try_emplace(kernelNameOf(h.name));
                if (inserted) it->second = fusedSignature(module, h);
            }
}

// Whether a reused kernel of that name can be the fusion at `position` (rule 3).
bool CommandBufferSchedule::reusable(std::string_view kernel, uint32_t position) const {
    if (position >= instructions_.size() || !isFusion_[position]) return false;
    const auto it = fusionKernels_.find(kernel);
    return it != fusionKernels_.end() && it->second == signatures_[position];
}

// The first position at or after `from` whose instruction's kernel is named `kernel`, or kNone.
uint32_t CommandBufferSchedule::named(std::string_view kernel, uint32_t from) const {
    const auto it = positions_.find(kernel);
    if (it == positions_.end()) return kNone;
    const auto p = std::lower_bound(it->second.begin(), it->second.end(), from);
    return p == it->second.end() ? kNone : *p;
}

// Kernels a library launches after a call's main kernel, which belong to that call: cuBLAS's
// split-K reduction (splitKreduce_kernel, reduce_1Block_kernel) and cuDNN's helper kernels
// around its fused attention (cudnn::fusion::...).
bool isFollowerKernel(std::string_view name) {
    return name.find("splitKreduce") != std::string_view::npos ||
           name.find("reduce_1Block") != std::string_view::npos ||
           name.find("cudnn::fusion::") != std::string_view::npos;
}

std::vector<int32_t> CommandBufferSchedule::align(std::span<const std::string_view> names) const {
    std::vector<int32_t> out(names.size(), -1);
    const uint32_t n = uint32_t(instructions_.size());
    // Pass 1: the kernels XLA named after fusions anchor the launch in the schedule, in order.
    struct Anchor {
        size_t event;
        uint32_t position;
    };
    std::vector<Anchor> anchors;
    for (size_t i = 0; i < names.size(); ++i) {
        if (isMemsetName(names[i])) continue;
        const uint32_t from = anchors.empty() ? 0 : anchors.back().position + 1;
        uint32_t at = named(names[i], from);
        if (at == kNone && isFusionKernel(names[i]) && !anchors.empty()) {
            // A reused kernel: the next fusion, if it is alike.
            uint32_t next = from;
            while (next < n && !isFusion_[next]) ++next;
            if (reusable(names[i], next)) at = next;
        }
        if (at == kNone) continue;
        anchors.push_back({i, at});
        out[i] = int32_t(at);
    }
    // Reused kernels before the first anchor: the fusions before it, going back, if alike.
    if (!anchors.empty()) {
        std::vector<Anchor> before;
        uint32_t pos = anchors.front().position;
        for (size_t i = anchors.front().event; i-- > 0;) {
            if (!isFusionKernel(names[i])) continue;
            uint32_t prev = pos;
            while (prev > 0 && !isFusion_[prev - 1]) --prev;
            if (prev == 0 || !reusable(names[i], prev - 1)) break;
            pos = prev - 1;
            before.push_back({i, pos});
            out[i] = int32_t(pos);
        }
        anchors.insert(anchors.begin(), before.rbegin(), before.rend());
    }
    // Pass 2: the library kernels between two anchors take the non-fusion instructions between
    // them in order, each main kernel the next call, with the kernels that follow it and the
    // memsets before it; main kernels beyond the calls there stay unattributed.
    auto library = [&](size_t i) {
        // A kernel named after a fusion that anchored nowhere is no library kernel.
        return out[i] < 0 && !isMemsetName(names[i]) && !isFusionKernel(names[i]);
    };
    // `lastCalls`: the launch began in this run of calls, so its kernels are the last ones'.
    auto assign = [&](size_t eventBegin, size_t eventEnd, uint32_t posBegin, uint32_t posEnd,
                      bool lastCalls) {
        std::vector<uint32_t> calls;
        for (uint32_t p = posBegin; p < posEnd && p < n; ++p)
            if (!isFusion_[p]) calls.push_back(p);
        size_t mains = 0;
        if (lastCalls) {
            size_t count = 0;
            for (size_t i = eventBegin; i < eventEnd; ++i)
                count += library(i) && !isFollowerKernel(names[i]);
            if (count < calls.size()) calls.erase(calls.begin(), calls.end() - long(count));
        }
        int32_t call = -1; // of the current main kernel
        std::vector<size_t> memsets;
        for (size_t i = eventBegin; i < eventEnd; ++i) {
            if (out[i] < 0 && isMemsetName(names[i])) {
                memsets.push_back(i);
                continue;
            }
            if (!library(i)) {
                memsets.clear(); // memsets before a fusion kernel are no call's
                continue;
            }
            if (!isFollowerKernel(names[i]) || call < 0)
                call = mains < calls.size() ? int32_t(calls[mains]) : -1, ++mains;
            out[i] = call;
            for (size_t m : memsets) out[m] = call;
            memsets.clear();
        }
    };
    if (anchors.empty()) {
        assign(0, names.size(), 0, n, false);
        return out;
    }
    // Before the first anchor: the non-fusions just before it; after the last: those just after.
    uint32_t lead = anchors.front().position;
    while (lead > 0 && !isFusion_[lead - 1]) --lead;
    assign(0, anchors.front().event, lead, anchors.front().position, true);
    for (size_t a = 0; a + 1 < anchors.size(); ++a)
        assign(anchors[a].event + 1, anchors[a + 1].event, anchors[a].position + 1,
               anchors[a + 1].position, false);
    uint32_t tail = anchors.back().position + 1;
    while (tail < n && !isFusion_[tail]) ++tail;
    assign(anchors.back().event + 1, names.size(), anchors.back().position + 1, tail, false);
    return out;
}

} // namespace stepscope
