#pragma once

#include <cstdint>
#include <vector>

#include "model/ProfileBuilder.h"

namespace stepscope::kineto {

class HostSliceTracker;

// PyTorch's [memory] instants, made into the allocator events the memory profile reads once
// their ops are known.
class MemoryTracker {
public:
    struct Record {
        uint32_t thread = 0; // the host thread's index
        int64_t start = 0;
        int64_t deviceType = 0, deviceId = -1;
        int64_t bytes = 0;
        uint64_t addr = 0;
        int64_t totalAllocated = 0, totalReserved = 0;
        bool hasAddr = false, hasTotalAllocated = false, hasTotalReserved = false;
        uint32_t order = 0;
        StringId op = 0; // the cpu_op it happened in
    };
    // Returns the record's index (for setOp).
    size_t add(Record r) {
        r.order = uint32_t(records_.size());
        records_.push_back(r);
        return records_.size() - 1;
    }
    size_t size() const { return records_.size(); }
    void setOp(size_t index, StringId op) { records_[index].op = op; }
    // Adds the events, on the tracks of their threads; `tfOpKey` names their ops.
    void finish(ProfileBuilder& b, const HostSliceTracker& hosts, uint32_t tfOpKey);

private:
    Column<Record> records_;
};

} // namespace stepscope::kineto
