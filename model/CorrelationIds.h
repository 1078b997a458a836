#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "model/SideTable.h"

namespace stepscope {

// The correlation id of each event that has one (a launch and the device work it started). The
// ids of TensorFlow, JAX and PyTorch traces fit 32 bits, so each is stored in 4 bytes; a high
// half (Stepscope's own captures qualify CUPTI's ids by process: pid << 32 | id) is kept as runs
// over the entries, since one process's events are contiguous. A table of 32-bit ids has no run.
class CorrelationIds {
public:
    void append(uint32_t event, uint64_t id) {
        const uint32_t high = uint32_t(id >> 32);
        if (high != (highValue_.empty() ? 0u : highValue_.back())) {
            highFirst_.push_back(uint32_t(low_.size()));
            highValue_.push_back(high);
        }
        low_.append(event, uint32_t(id));
    }
    // Appends every entry of `other`, whose events must all follow this table's.
    void append(const CorrelationIds& other) {
        other.forEachIn(0, other.size(), [this](uint32_t e, uint64_t id) { append(e, id); });
    }
    // Calls fn(event, id) for entries [from, to), in event order.
    template <class F> void forEachIn(size_t from, size_t to, F&& fn) const {
        size_t run = size_t(std::upper_bound(highFirst_.begin(), highFirst_.end(), uint32_t(from)) -
                            highFirst_.begin());
        uint64_t high = run == 0 ? 0 : uint64_t(highValue_[run - 1]) << 32;
        size_t i = from;
        low_.forEachIn(from, to, [&](uint32_t e, uint32_t low) {
            for (; run < highFirst_.size() && highFirst_[run] == i; ++run)
                high = uint64_t(highValue_[run]) << 32;
            fn(e, high | low);
            ++i;
        });
    }
    void reserve(size_t n) { low_.reserve(n); }

    std::optional<uint64_t> find(uint32_t event) const {
        const uint32_t* low = low_.find(event);
        if (!low) return std::nullopt;
        return compose(size_t(low - low_.values().data()), *low);
    }
    size_t size() const { return low_.size(); }
    bool empty() const { return low_.empty(); }
    uint32_t eventAt(size_t i) const { return low_.eventAt(i); }
    uint64_t valueAt(size_t i) const { return compose(i, low_.valueAt(i)); }
    size_t lowerBound(uint32_t event) const { return low_.lowerBound(event); }

    void shrink() {
        low_.shrink();
        highFirst_.shrink_to_fit();
        highValue_.shrink_to_fit();
    }
    size_t memoryBytes() const {
        return low_.memoryBytes() + (highFirst_.capacity() + highValue_.capacity()) * 4;
    }
    bool consistent(size_t events) const {
        if (!low_.consistent(events) || highFirst_.size() != highValue_.size()) return false;
        for (size_t k = 0; k < highFirst_.size(); ++k)
            if (highFirst_[k] >= low_.size() || (k > 0 && highFirst_[k] <= highFirst_[k - 1]))
                return false;
        return true;
    }

    // find() along a walk over events, at SideCursor's cost.
    class Cursor {
    public:
        explicit Cursor(const CorrelationIds& ids)
            : ids_(ids)
            , low_(ids.low_) {}
        std::optional<uint64_t> at(uint32_t event) {
            const uint32_t* low = low_.at(event);
            if (!low) return std::nullopt;
            return ids_.compose(size_t(low - ids_.low_.values().data()), *low);
        }

    private:
        const CorrelationIds& ids_;
        SideCursor<uint32_t> low_;
    };

private:
    friend class ProfileCache; // writes and reads every column
    uint64_t compose(size_t entry, uint32_t low) const {
        if (highFirst_.empty() || entry < highFirst_.front()) return low;
        const auto it = std::upper_bound(highFirst_.begin(), highFirst_.end(), uint32_t(entry));
        return uint64_t(highValue_[size_t(it - highFirst_.begin()) - 1]) << 32 | low;
    }
    SideTable<uint32_t> low_;         // low 32 bits of each id
    std::vector<uint32_t> highFirst_; // entry where a run of one high half begins
    std::vector<uint32_t> highValue_; // that high half
};

} // namespace stepscope
