#pragma once

#include <cstdint>
#include <vector>

#include "model/Column.h"
#include "model/StringPool.h"

namespace stepscope::kineto {

class MemoryTracker;
class StepTracker;

// A cpu_op on a host thread.
struct OpSpan {
    int64_t start, end;
    StringId name;
    int32_t externalId;  // 0: none (or beyond int32: Kineto counts them from 1)
    StringId inputTypes; // its "Input type" list as written (0: none)
};

// A time on a host thread whose enclosing op is wanted: a launch (by its correlation id) or a
// [memory] event (by its index in the memory records).
struct Launch {
    int64_t start;
    uint64_t correlation;
    bool memory = false;
    bool runtime = false;    // a runtime event (the PyTorch plugin's launches, for the steps)
    int32_t externalId = 0;  // 0: none (or beyond int32)
    uint32_t durationNs = 0; // of a runtime event, capped at ~4.3 s
    bool graph = false;      // a CUDA/HIP graph launch: its kernels are not its op's own work
};

// The op a launch (by correlation id) happened in: its name, and its "Input type" unless the
// launch replays a graph.
struct LaunchOp {
    uint64_t correlation;
    StringId op;
    StringId inputTypes;
};

// The launch-to-op join: which cpu_op each launch and [memory] event happened in, so that device
// work gets the tf_op (and input types) of the op that launched it. Host threads are numbered
// as the HostSliceTracker numbers them.
class LaunchOpJoin {
public:
    void addThread(uint32_t plane) { threads_.push_back({plane, {}, {}}); }
    void addOp(uint32_t thread, const OpSpan& op) { threads_[thread].ops.push_back(op); }
    void addLaunch(uint32_t thread, const Launch& l) { threads_[thread].launches.push_back(l); }

    // Joins every launch to its op (the rule: LaunchOpJoin.cpp); the ops of [memory] events go
    // to `memory`, and runtime launches to `steps` where it has steps. Frees the ops and
    // launches.
    void join(StepTracker& steps, MemoryTracker& memory);
    // The op of the launch with this correlation id (after join), or null.
    const LaunchOp* opOfLaunch(uint64_t correlation) const;
    // Frees the join's result.
    void clear() { Column<LaunchOp>().swap(launchOps_); }

private:
    struct Thread {
        uint32_t plane;
        Column<OpSpan> ops;
        Column<Launch> launches;
    };
    void setOp(const Launch& l, size_t slot, const OpSpan* op, MemoryTracker& memory);

    std::vector<Thread> threads_;
    // The op of each launch, by correlation once join is done; the first found for a
    // correlation is kept.
    Column<LaunchOp> launchOps_;
    mutable size_t launchHint_ = 0; // where opOfLaunch found the last one
};

} // namespace stepscope::kineto
