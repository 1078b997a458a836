#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/Column.h"

namespace stepscope {

template <class T> class SideCursor;

// A sparse typed column: values for the events that have them (a correlation id, a kernel, a
// framework op), in ascending event order. An entry's event is stored in 2 bytes: its low 16
// bits, with the entries of each run of 65,536 events found through one offset per run, so a
// table costs 2 bytes an entry beside its value instead of 4. Lookup is a binary search within
// the event's run; iteration visits events in order.
template <class T> class SideTable {
public:
    void append(uint32_t event, const T& value) {
        if ((event >> kBlockBits) >= blockBegin_.size()) [[unlikely]]
            openRuns(event >> kBlockBits);
        low_.push_back(uint16_t(event));
        values_.push_back(value);
    }
    void reserve(size_t n) {
        low_.reserve(n);
        values_.reserve(n);
    }
    // Appends every entry of `other`, whose events must all follow this table's: its entries are
    // copied as they are, and its runs past this table's last start where its own do.
    void append(const SideTable& other) {
        if (other.empty()) return;
        const uint32_t base = uint32_t(low_.size());
        for (size_t b = blockBegin_.size(); b < other.blockBegin_.size(); ++b)
            blockBegin_.push_back(base + other.blockBegin_[b]);
        low_.insert(low_.end(), other.low_.begin(), other.low_.end());
        values_.insert(values_.end(), other.values_.begin(), other.values_.end());
    }
    const T* find(uint32_t event) const {
        const size_t block = event >> kBlockBits;
        if (block >= blockBegin_.size()) return nullptr;
        const auto begin = low_.begin() + blockBegin_[block];
        const auto end = low_.begin() + blockEnd(block);
        const auto it = std::lower_bound(begin, end, uint16_t(event));
        if (it == end || *it != uint16_t(event)) return nullptr;
        return &values_[size_t(it - low_.begin())];
    }
    // Index of the first entry whose event is at or after `event` (size() if none).
    size_t lowerBound(uint32_t event) const {
        const size_t block = event >> kBlockBits;
        if (block >= blockBegin_.size()) return size();
        const auto begin = low_.begin() + blockBegin_[block];
        return size_t(std::lower_bound(begin, low_.begin() + blockEnd(block), uint16_t(event)) -
                      low_.begin());
    }
    size_t size() const { return low_.size(); }
    bool empty() const { return low_.empty(); }
    // Event of entry i: its run is found by a binary search over the runs (a few hundred in a
    // profile of ten million events).
    uint32_t eventAt(size_t i) const { return uint32_t(blockOf(i) << kBlockBits) | low_[i]; }
    const T& valueAt(size_t i) const { return values_[i]; }
    const Column<T>& values() const { return values_; }
    // Calls fn(event, value) for entries [from, to), in event order.
    template <class F> void forEachIn(size_t from, size_t to, F&& fn) const {
        if (from >= to) return;
        size_t b = blockOf(from);
        for (size_t i = from; i < to; ++i) {
            while (i >= blockEnd(b)) ++b;
            fn(uint32_t(b << kBlockBits) | low_[i], values_[i]);
        }
    }
    template <class F> void forEach(F&& fn) const { forEachIn(0, size(), fn); }
    void shrink() {
        low_.shrink_to_fit();
        blockBegin_.shrink_to_fit();
        values_.shrink_to_fit();
    }
    size_t memoryBytes() const {
        return low_.capacity() * sizeof(uint16_t) + blockBegin_.capacity() * sizeof(uint32_t) +
               values_.capacity() * sizeof(T);
    }
    // The structural facts lookups rely on, for a profile of `events` events: entries in
    // ascending event order, every event below `events`, one value per entry.
    bool consistent(size_t events) const {
        if (values_.size() != low_.size()) return false;
        if (blockBegin_.empty()) return low_.empty();
        if (blockBegin_.front() != 0 || (blockBegin_.size() - 1) << kBlockBits >= events ||
            blockBegin_.back() > low_.size() ||
            !std::is_sorted(blockBegin_.begin(), blockBegin_.end()))
            return false;
        for (size_t b = 0; b < blockBegin_.size(); ++b) {
            for (size_t i = size_t(blockBegin_[b]) + 1; i < blockEnd(b); ++i)
                if (low_[i] <= low_[i - 1]) return false;
        }
        const size_t last = blockBegin_.size() - 1;
        return blockEnd(last) == blockBegin_[last] ||
               ((last << kBlockBits) | low_[blockEnd(last) - 1]) < events;
    }

private:
    friend class ProfileCache; // writes and reads every column
    friend class SideCursor<T>;
    static constexpr unsigned kBlockBits = 16;
    // Opens runs up to `block`, empty ones included (out of line: once per 2^16 events at most).
    [[gnu::noinline]] void openRuns(size_t block) {
        while (blockBegin_.size() <= block) blockBegin_.push_back(uint32_t(low_.size()));
    }
    // The run that holds entry i.
    size_t blockOf(size_t i) const {
        return size_t(std::upper_bound(blockBegin_.begin(), blockBegin_.end(), uint32_t(i)) -
                      blockBegin_.begin()) -
               1;
    }
    size_t blockEnd(size_t block) const {
        return block + 1 < blockBegin_.size() ? blockBegin_[block + 1] : low_.size();
    }
    Column<uint16_t> low_;             // low 16 bits of each entry's event
    std::vector<uint32_t> blockBegin_; // first entry of each run of 2^16 events
    Column<T> values_;
};

// Walks a side table alongside a walk over events: each at(e) costs amortised O(1) as long as
// the events asked for never decrease and stay within a run of 2^16 events; the first call, a step
// back or a move to another run searches.
template <class T> class SideCursor {
public:
    explicit SideCursor(const SideTable<T>& table)
        : t_(table) {}
    const T* at(uint32_t event) {
        const size_t n = t_.size();
        if (event < last_ || last_ == kNone || (event >> SideTable<T>::kBlockBits) > block_) {
            i_ = t_.lowerBound(event);
            block_ = event >> SideTable<T>::kBlockBits;
            settle();
        }
        last_ = event;
        while (i_ < n && current() < event) {
            ++i_;
            settle();
        }
        return i_ < n && current() == event ? &t_.values_[i_] : nullptr;
    }

private:
    uint32_t current() const { return uint32_t(block_ << SideTable<T>::kBlockBits) | t_.low_[i_]; }
    // Moves block_ to the run that holds entry i_ (past runs without entries).
    void settle() {
        while (i_ < t_.size() && i_ >= t_.blockEnd(block_)) ++block_;
    }
    const SideTable<T>& t_;
    static constexpr uint32_t kNone = UINT32_MAX;
    size_t i_ = 0, block_ = 0;
    uint32_t last_ = kNone; // the event asked for last
};

// How many of rows [begin, end) of `narrow` hold `marker`. In runs of 64, which compilers
// vectorise at -O2: this reads every row of a column as the cache reopens it.
inline size_t countMarked(const Column<uint32_t>& narrow, size_t begin, size_t end,
                          uint32_t marker) {
    size_t marked = 0, i = begin;
    for (; i + 64 <= end; i += 64) {
        uint32_t run = 0;
        for (size_t k = 0; k < 64; ++k) run += narrow[i + k] == marker;
        marked += run;
    }
    for (; i < end; ++i) marked += narrow[i] == marker;
    return marked;
}

// The structural fact a narrow column with a side table relies on (StartColumn, DurationColumn):
// the table is consistent and holds an entry for exactly the rows of `narrow` that hold `marker`,
// given how many rows hold it (`marked`, counted with countMarked, as a whole or in parts).
template <class T>
bool marksMatch(const Column<uint32_t>& narrow, uint32_t marker, const SideTable<T>& table,
                size_t marked) {
    if (!table.consistent(narrow.size()) || marked != table.size()) return false;
    bool ok = true;
    table.forEach([&](uint32_t e, const T&) { ok = ok && narrow[e] == marker; });
    return ok;
}

} // namespace stepscope
