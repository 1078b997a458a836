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
    nextNonFusion_.assign(instructions_.size() + 1, kNone);
    for (size_t i = instructions_.size(); i-- > 0;)
        nextNonFusion_[i] = isFusion_[i] ? nextNonFusion_[i + 1] : uint32_t(i);
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

uint32_t CommandBufferSchedule::startCursor(std::span<const std::string_view> names) const {
    size_t anchor = 0;
    uint32_t at = kNone;
    for (; anchor < names.size(); ++anchor)
        if (!isMemsetName(names[anchor]) && (at = named(names[anchor], 0)) != kNone) break;
    if (at == kNone) return 0;
    // Move back over the events before the anchor, as align() will take them forward.
    for (size_t j = anchor; j-- > 0;) {
        const std::string_view n = names[j];
        if (isMemsetName(n)) continue;
        if (isFusionKernel(n)) {
            if (at == 0 || !reusable(n, at - 1)) return 0;
            --at;
            continue;
        }
        uint32_t k = at;
        while (k > 0 && isFusion_[k - 1]) --k;
        if (k == 0) return 0;
        at = k - 1;
    }
    return at;
}

std::vector<int32_t> CommandBufferSchedule::align(std::span<const std::string_view> names) const {
    std::vector<int32_t> out(names.size(), -1);
    const uint32_t n = uint32_t(instructions_.size());
    uint32_t cursor = startCursor(names);
    std::vector<size_t> memsets; // waiting for the event after them
    for (size_t i = 0; i < names.size(); ++i) {
        const std::string_view name = names[i];
        if (isMemsetName(name)) {
            memsets.push_back(i);
            continue;
        }
        uint32_t at = named(name, cursor);
        const bool library = at == kNone && !isFusionKernel(name);
        if (at == kNone && !library && reusable(name, cursor)) at = cursor;
        if (library && cursor < n) at = nextNonFusion_[cursor];
        if (at != kNone) {
            out[i] = int32_t(at);
            cursor = at + 1;
            if (library)
                for (size_t m : memsets) out[m] = int32_t(at);
        }
        memsets.clear();
    }
    return out;
}

} // namespace stepscope
