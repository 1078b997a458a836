#include "model/kineto/LaunchOpJoin.h"

#include <algorithm>
#include <utility>

#include "model/kineto/MemoryTracker.h"
#include "model/kineto/StepTracker.h"
#include "model/pytorch/ExternalIdJoin.h"

namespace stepscope::kineto {

// The framework op of the device work a launch (an event with a correlation id) caused: the
// cpu_op that carries the launch's "External id" and encloses it (the rule the PyTorch tab's
// TorchTrace shares: model/pytorch/ExternalIdJoin.h), or, for a launch without one (or whose id
// no op carries), the innermost cpu_op open on the launching thread when the launch began. Ids
// are looked up within one process. Where several ops of a process qualify, an op open on the
// launching thread wins, otherwise the first of the process (threads in order of first appearance,
// each thread's ops from the earliest start). Runtime launches are kept, compactly, for the device
// steps (StepTracker::extend).
void LaunchOpJoin::join(StepTracker& steps, MemoryTracker& memory) {
    // Launches that no op open on their thread holds by External id: looked up over the ops of
    // their process once every thread is done (rare in most traces, so the index of ops by id is
    // made only when one is needed).
    struct ById {
        uint32_t plane;
        Launch launch;
        const OpSpan* innermost; // the fallback: the innermost op open on its thread (or none)
        size_t slot; // its entry in launchOps_ (a launch) or the memory records ([memory] event)
    };
    std::vector<ById> byId;
    // Ops by start, an enclosing op before the ops it holds.
    auto opOrder = [](const OpSpan& a, const OpSpan& b) {
        return a.start != b.start ? a.start < b.start : a.end > b.end;
    };
    // Room for every launch's op, and every runtime launch for the steps, at once: no copies
    // of half-grown vectors at the import's peak.
    size_t launches = 0, runtimeLaunches = 0;
    for (const Thread& t : threads_)
        for (const Launch& l : t.launches) {
            launches += !l.memory;
            runtimeLaunches += l.runtime && !l.memory;
        }
    launchOps_.reserve(launches);
    if (!steps.empty()) steps.reserveLaunches(runtimeLaunches);
    for (Thread& t : threads_) {
        if (t.launches.empty()) continue;
        if (!steps.empty())
            for (const Launch& l : t.launches)
                if (l.runtime && !l.memory)
                    steps.addLaunch(l.start, l.start + int64_t(l.durationNs) * 1000, l.correlation);
        // The launch's op, or where it is looked up by id: its slot holds no op until then.
        auto found = [&](const Launch& l, const OpSpan* op, const OpSpan* innermost) {
            const bool later = !op && l.externalId != 0;
            if (!op && !later && !innermost) return;
            size_t slot = l.correlation; // a [memory] event's index in the memory records
            if (!l.memory) {
                slot = launchOps_.size();
                launchOps_.push_back({l.correlation, 0, 0});
            }
            if (later)
                byId.push_back({t.plane, l, innermost, slot});
            else
                setOp(l, slot, op ? op : innermost, memory);
        };
        if (t.ops.empty()) {
            // Only ops of other threads can hold these launches: by External id.
            for (const Launch& l : t.launches)
                if (!l.memory && l.externalId != 0) found(l, nullptr, nullptr);
            Column<Launch>().swap(t.launches);
            continue;
        }
        std::sort(t.launches.begin(), t.launches.end(),
                  [](const Launch& a, const Launch& b) { return a.start < b.start; });
        std::sort(t.ops.begin(), t.ops.end(), opOrder);
        std::vector<const OpSpan*> stack;
        size_t next = 0;
        for (const Launch& l : t.launches) {
            while (next < t.ops.size() && t.ops[next].start <= l.start) {
                while (!stack.empty() && stack.back()->end <= t.ops[next].start) stack.pop_back();
                stack.push_back(&t.ops[next]);
                ++next;
            }
            while (!stack.empty() && stack.back()->end <= l.start) stack.pop_back();
            // An op that overlaps without nesting may sit on top; look down for the ones that
            // hold the launch.
            const OpSpan* innermost = nullptr;
            const OpSpan* holder = nullptr;
            for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
                if ((*it)->start > l.start || (*it)->end <= l.start) continue;
                if (!innermost) innermost = *it;
                if (l.externalId == 0) break;
                if ((*it)->externalId == l.externalId) {
                    holder = *it;
                    break;
                }
            }
            found(l, holder, innermost);
        }
        Column<Launch>().swap(t.launches);
    }
    if (!byId.empty()) {
        // plane << 32 | External id of the ops wanted, and those ops: threads in order, each
        // thread's from the earliest start.
        auto keyOf = [](uint32_t plane, int32_t id) {
            return uint64_t(plane) << 32 | uint32_t(id);
        };
        std::vector<uint64_t> wanted;
        for (const ById& b : byId) wanted.push_back(keyOf(b.plane, b.launch.externalId));
        std::sort(wanted.begin(), wanted.end());
        wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
        std::vector<IdSpan> ops;
        std::vector<const OpSpan*> opOf;
        for (Thread& t : threads_) {
            // Threads without launches still hold their ops in the order read. Threads with
            // launches are sorted already and must not be sorted again: byId holds pointers into
            // their ops.
            if (!std::is_sorted(t.ops.begin(), t.ops.end(), opOrder))
                std::sort(t.ops.begin(), t.ops.end(), opOrder);
            for (const OpSpan& o : t.ops)
                if (o.externalId > 0 && std::binary_search(wanted.begin(), wanted.end(),
                                                           keyOf(t.plane, o.externalId))) {
                    ops.push_back({keyOf(t.plane, o.externalId), o.start, o.end});
                    opOf.push_back(&o);
                }
        }
        std::vector<IdSpan> launches;
        launches.reserve(byId.size());
        for (const ById& b : byId)
            launches.push_back({keyOf(b.plane, b.launch.externalId), b.launch.start,
                                b.launch.start + int64_t(b.launch.durationNs) * 1000});
        // The first op of the launch's process with its External id that encloses it, or the
        // innermost op open on its thread.
        const std::vector<uint32_t> joined = joinByExternalId(ops, launches);
        for (size_t i = 0; i < byId.size(); ++i)
            setOp(byId[i].launch, byId[i].slot,
                  joined[i] != kNoJoinedOp ? opOf[joined[i]] : byId[i].innermost, memory);
    }
    std::vector<Thread>().swap(threads_);
    // Launches whose op none is are dropped; the first found for a correlation id is kept.
    launchOps_.erase(std::remove_if(launchOps_.begin(), launchOps_.end(),
                                    [](const LaunchOp& l) { return l.op == 0; }),
                     launchOps_.end());
    std::stable_sort(
        launchOps_.begin(), launchOps_.end(),
        [](const LaunchOp& a, const LaunchOp& b) { return a.correlation < b.correlation; });
    launchOps_.erase(std::unique(launchOps_.begin(), launchOps_.end(),
                                 [](const LaunchOp& a, const LaunchOp& b) {
                                     return a.correlation == b.correlation;
                                 }),
                     launchOps_.end());
}

// Device work comes mostly in the order of its correlation ids: the search starts where the last
// one ended.
const LaunchOp* LaunchOpJoin::opOfLaunch(uint64_t correlation) const {
    const size_t n = launchOps_.size();
    for (size_t i = launchHint_; i < n && i < launchHint_ + 2; ++i)
        if (launchOps_[i].correlation == correlation) return &launchOps_[launchHint_ = i];
    const auto it =
        std::lower_bound(launchOps_.begin(), launchOps_.end(), correlation,
                         [](const LaunchOp& a, uint64_t c) { return a.correlation < c; });
    if (it == launchOps_.end() || it->correlation != correlation) return nullptr;
    launchHint_ = size_t(it - launchOps_.begin());
    return &*it;
}

// Records the op a launch or [memory] event happened in (none: nothing to record).
void LaunchOpJoin::setOp(const Launch& l, size_t slot, const OpSpan* op, MemoryTracker& memory) {
    if (l.memory) {
        memory.setOp(slot, op ? op->name : 0);
        return;
    }
    launchOps_[slot].op = op ? op->name : 0;
    launchOps_[slot].inputTypes = op && !l.graph ? op->inputTypes : 0;
}

} // namespace stepscope::kineto
