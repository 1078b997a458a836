#pragma once

#include <cstdint>
#include <optional>

#include "model/RunColumn.h"
#include "model/SideTable.h"

namespace stepscope {

// The correlation id of each event that has one (a launch and the device work it started). The
// ids of TensorFlow, JAX and PyTorch traces fit 32 bits, so each is stored in 4 bytes; the high
// halves (Stepscope's own captures qualify CUPTI's ids by process: pid << 32 | id) are kept as
// runs over the entries, since one process's events are contiguous: one run of 0 for a table of
// 32-bit ids.
class CorrelationIds {
public:
    void append(uint32_t event, uint64_t id) {
        high_.append(uint32_t(low_.size()), uint32_t(id >> 32));
        low_.append(event, uint32_t(id));
    }
    // Appends every entry of `other`, whose events must all follow this table's.
    void append(const CorrelationIds& other) {
        high_.append(other.high_, uint32_t(low_.size()));
        low_.append(other.low_);
    }
    // Calls fn(event, id) for entries [from, to), in event order.
    template <class F> void forEachIn(size_t from, size_t to, F&& fn) const {
        typename RunColumn<uint32_t>::Cursor high(high_);
        uint32_t i = uint32_t(from);
        low_.forEachIn(
            from, to, [&](uint32_t e, uint32_t low) { fn(e, uint64_t(high.at(i++)) << 32 | low); });
    }
    void reserve(size_t n) { low_.reserve(n); }

    std::optional<uint64_t> find(uint32_t event) const {
        const uint32_t* low = low_.find(event);
        if (!low) return std::nullopt;
        return uint64_t(high_.at(uint32_t(low - low_.values().data()))) << 32 | *low;
    }
    size_t size() const { return low_.size(); }
    bool empty() const { return low_.empty(); }
    uint32_t eventAt(size_t i) const { return low_.eventAt(i); }
    uint64_t valueAt(size_t i) const {
        return uint64_t(high_.at(uint32_t(i))) << 32 | low_.valueAt(i);
    }
    size_t lowerBound(uint32_t event) const { return low_.lowerBound(event); }

    void shrink() {
        low_.shrink();
        high_.shrink();
    }
    size_t memoryBytes() const { return low_.memoryBytes() + high_.memoryBytes(); }
    bool consistent(size_t events) const {
        return low_.consistent(events) && high_.consistent(low_.size());
    }

    // find() along a walk over events, at SideCursor's cost.
    class Cursor {
    public:
        explicit Cursor(const CorrelationIds& ids)
            : ids_(ids)
            , low_(ids.low_)
            , high_(ids.high_) {}
        std::optional<uint64_t> at(uint32_t event) {
            const uint32_t* low = low_.at(event);
            if (!low) return std::nullopt;
            return uint64_t(high_.at(uint32_t(low - ids_.low_.values().data()))) << 32 | *low;
        }

    private:
        const CorrelationIds& ids_;
        SideCursor<uint32_t> low_;
        RunColumn<uint32_t>::Cursor high_;
    };

private:
    friend class ProfileCache; // writes and reads every column
    SideTable<uint32_t> low_;  // low 32 bits of each id
    RunColumn<uint32_t> high_; // high 32 bits, by entry
};

} // namespace stepscope
