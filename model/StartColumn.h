#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/Column.h"
#include "model/LaneValues.h"
#include "model/SideTable.h"

namespace stepscope {

// Event starts in picoseconds, about 4 bytes an event instead of 8. Rows are kept in blocks of
// 2^kBlockBits: each block holds its earliest start (the base) and a unit, each row its distance
// from the base in that unit as a uint32. The unit is the largest of 1 µs, 1 ns and 1 ps in which
// every start of the block lies a whole number of units from the base: XSpace and Kineto times are
// whole nanoseconds nearly always (a block may then span 4.29 s), some Kineto traces whole
// microseconds (71.6 minutes). A row farther from its base than 2^32 - 2 units holds kLong and its
// start in a side table, as DurationColumn does for long durations, so reading a start stays three
// loads (offset, base, unit), a multiply and a well-predicted branch.
class StartColumn {
public:
    static constexpr unsigned kBlockBits = 7;
    static constexpr size_t kBlockRows = size_t(1) << kBlockBits;
    static constexpr uint32_t kLong = 0xFFFFFFFFu;
    struct Block {
        int64_t base = 0;
        int64_t unit = 1; // 1, 1000 or 1000000 ps
    };

    int64_t operator[](uint32_t e) const {
        const uint32_t d = offset_[e];
        const Block& b = blocks_[e >> kBlockBits];
        // Unsigned arithmetic: a damaged cache file may hold any base, and must not overflow.
        return d != kLong ? int64_t(uint64_t(b.base) + uint64_t(d) * uint64_t(b.unit))
                          : *long_.find(e);
    }
    size_t size() const { return offset_.size(); }
    // Rows whose start is kept in the side table.
    size_t longCount() const { return long_.size(); }

    // Sizes the column for n rows, their blocks unwritten.
    void resize(size_t n) {
        offset_.resize(n);
        blocks_.resize((n + kBlockRows - 1) / kBlockRows);
    }
    // Writes the block that begins at row `first` (a multiple of kBlockRows) from its starts, in
    // row order; the rows that do not fit go to `longRows` as (row, start), in row order. Blocks
    // may be written in any order and from several threads; the long rows are added with
    // addLongRows, in row order, once all are written.
    void writeBlock(uint32_t first, const int64_t* starts, size_t count,
                    std::vector<std::pair<uint32_t, int64_t>>& longRows) {
        int64_t base = starts[0];
        for (size_t i = 1; i < count; ++i) base = std::min(base, starts[i]);
        bool micro = true, nano = true;
        for (size_t i = 0; i < count; ++i) {
            const uint64_t d = uint64_t(starts[i]) - uint64_t(base);
            micro &= d % 1000000 == 0;
            nano &= d % 1000 == 0;
        }
        // The unit as a constant in each loop: a division by a constant is a multiply.
        const auto write = [&](auto unit) {
            blocks_[first >> kBlockBits] = {base, int64_t(unit())};
            uint32_t* out = offset_.data() + first;
            for (size_t i = 0; i < count; ++i) {
                const uint64_t d = (uint64_t(starts[i]) - uint64_t(base)) / unit;
                if (d < kLong) {
                    out[i] = uint32_t(d);
                } else {
                    out[i] = kLong;
                    longRows.emplace_back(first + uint32_t(i), starts[i]);
                }
            }
        };
        if (micro)
            write(std::integral_constant<uint64_t, 1000000>());
        else if (nano)
            write(std::integral_constant<uint64_t, 1000>());
        else
            write(std::integral_constant<uint64_t, 1>());
    }
    void addLongRows(const std::vector<std::pair<uint32_t, int64_t>>& rows) {
        for (const auto& [e, s] : rows) long_.append(e, s);
    }
    void shrink() { long_.shrink(); }

    size_t memoryBytes() const {
        return offset_.capacity() * sizeof(uint32_t) + blocks_.capacity() * sizeof(Block) +
               long_.memoryBytes();
    }
    // The structural facts readers rely on: one block per kBlockRows rows, each with a unit of 1,
    // 1000 or 1000000 ps, and exactly the kLong rows have a long start. The second form takes the
    // number of kLong rows, counted with markedRows (as DurationColumn's).
    bool consistent() const { return consistent(markedRows(0, size())); }
    bool consistent(size_t markedLong) const {
        if (blocks_.size() != (offset_.size() + kBlockRows - 1) / kBlockRows) return false;
        for (const Block& b : blocks_)
            if (b.unit != 1 && b.unit != 1000 && b.unit != 1000000) return false;
        return marksMatch(offset_, kLong, long_, markedLong);
    }
    size_t markedRows(size_t begin, size_t end) const {
        return countMarked(offset_, begin, end, kLong);
    }

private:
    friend class ProfileCache; // writes and reads every column
    Column<uint32_t> offset_;
    Column<Block> blocks_;
    SideTable<int64_t> long_;
};

using Starts = LaneValues<StartColumn>;

// Binary searches over rows [begin, end) whose starts are sorted (one lane): the first row that
// starts at or after t (std::lower_bound), or after t (std::upper_bound); `end` if there is none.
inline uint32_t firstStartingAt(Starts starts, uint32_t begin, uint32_t end, int64_t t) {
    while (begin < end) {
        const uint32_t mid = begin + (end - begin) / 2;
        if (starts[mid] < t)
            begin = mid + 1;
        else
            end = mid;
    }
    return begin;
}
inline uint32_t firstStartingAfter(Starts starts, uint32_t begin, uint32_t end, int64_t t) {
    while (begin < end) {
        const uint32_t mid = begin + (end - begin) / 2;
        if (starts[mid] <= t)
            begin = mid + 1;
        else
            end = mid;
    }
    return begin;
}

} // namespace stepscope
