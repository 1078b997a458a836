#include "model/kineto/FlowTracker.h"

#include <algorithm>

#include "model/kineto/HostSliceTracker.h"

namespace stepscope::kineto {

void FlowTracker::add(char phase, std::string_view id, bool local, std::string_view bindPoint,
                      std::string_view cat, std::string_view name, int64_t pid, int64_t tid,
                      int64_t ps) {
    std::string key;
    key.reserve(id.size() + cat.size() + name.size() + 24);
    key.append(id).push_back('\0');
    if (local) key.append(std::to_string(pid));
    key.push_back('\0');
    key.append(cat).push_back('\0');
    key.append(name);
    const auto it = ids_.try_emplace(std::move(key), ids_.size()).first;
    const auto flowPhase = phase == 's'   ? ProfileBuilder::FlowPhase::Begin
                           : phase == 't' ? ProfileBuilder::FlowPhase::Step
                                          : ProfileBuilder::FlowPhase::End;
    records_.push_back({it->second, ps, pid, tid, flowPhase, phase != 'f' || bindPoint == "e"});
}

// Perfetto reads a trace in time order; points at one time keep the file's order.
void FlowTracker::bind(ProfileBuilder& b, const HostSliceTracker& hosts, int64_t deltaPs) {
    std::stable_sort(records_.begin(), records_.end(),
                     [](const Record& x, const Record& y) { return x.ps < y.ps; });
    for (const Record& f : records_) {
        const std::optional<uint32_t> track = hosts.trackOf(f.pid, f.tid);
        if (!track) continue;
        int64_t ps;
        if (__builtin_add_overflow(f.ps, deltaPs, &ps)) continue;
        b.addFlowPoint(f.flow, *track, ps, f.phase, f.enclosing);
    }
    std::vector<Record>().swap(records_);
}

} // namespace stepscope::kineto
