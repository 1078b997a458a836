#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace stepscope {

// A sparse typed column: values for the few events that have them, keyed by event index in
// ascending order. Lookup is a binary search; iteration visits events in order.
template <class T> class SideTable {
public:
    void append(uint32_t event, const T& value) {
        events_.push_back(event);
        values_.push_back(value);
    }
    void reserve(size_t n) {
        events_.reserve(n);
        values_.reserve(n);
    }
    // Appends every entry of `other`, whose events must all follow this table's.
    void append(const SideTable& other) {
        events_.insert(events_.end(), other.events_.begin(), other.events_.end());
        values_.insert(values_.end(), other.values_.begin(), other.values_.end());
    }
    const T* find(uint32_t event) const {
        const auto it = std::lower_bound(events_.begin(), events_.end(), event);
        if (it == events_.end() || *it != event) return nullptr;
        return &values_[it - events_.begin()];
    }
    size_t size() const { return events_.size(); }
    bool empty() const { return events_.empty(); }
    uint32_t eventAt(size_t i) const { return events_[i]; }
    const T& valueAt(size_t i) const { return values_[i]; }
    const std::vector<uint32_t>& events() const { return events_; }
    const std::vector<T>& values() const { return values_; }
    void shrink() {
        events_.shrink_to_fit();
        values_.shrink_to_fit();
    }
    size_t memoryBytes() const {
        return events_.capacity() * sizeof(uint32_t) + values_.capacity() * sizeof(T);
    }

private:
    friend class ProfileCache; // writes and reads every column
    std::vector<uint32_t> events_;
    std::vector<T> values_;
};

// Walks a side table alongside an ascending walk over events: each at(e) costs amortised O(1)
// as long as the events asked for never decrease.
template <class T> class SideCursor {
public:
    explicit SideCursor(const SideTable<T>& table)
        : table_(table) {}
    const T* at(uint32_t event) {
        const auto& events = table_.events();
        while (i_ < events.size() && events[i_] < event) ++i_;
        return i_ < events.size() && events[i_] == event ? &table_.valueAt(i_) : nullptr;
    }

private:
    const SideTable<T>& table_;
    size_t i_ = 0;
};

} // namespace stepscope
