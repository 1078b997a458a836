#pragma once

#include <cstdint>

#include "model/Column.h"
#include "model/LaneValues.h"
#include "model/SideTable.h"

namespace stepscope {

// Event durations in picoseconds, 4 bytes an event. Nearly every event is shorter than 2^32 ps
// (4.29 ms): kernels, copies, host ops. The few that are not (steps, long host calls) hold kLong
// in the narrow column and their duration in a side table, so the column costs half of an int64
// one and reading it stays one load and a well-predicted branch.
class DurationColumn {
public:
    static constexpr uint32_t kLong = 0xFFFFFFFFu;

    int64_t operator[](uint32_t e) const {
        const uint32_t d = narrow_[e];
        return d != kLong ? int64_t(d) : *long_.find(e);
    }
    size_t size() const { return narrow_.size(); }

    size_t memoryBytes() const {
        return narrow_.capacity() * sizeof(uint32_t) + long_.memoryBytes();
    }
    // The structural fact readers rely on: exactly the kLong rows have a long duration, given
    // the number of kLong rows, counted with markedRows (the cache counts them frame by frame as
    // it reads the column).
    bool consistent(size_t markedLong) const {
        return marksMatch(narrow_, kLong, long_, markedLong);
    }
    size_t markedRows(size_t begin, size_t end) const {
        return countMarked(narrow_, begin, end, kLong);
    }

private:
    friend class ProfileBuilder; // narrows the builder's durations
    friend class ProfileCache;   // writes and reads every column
    Column<uint32_t> narrow_;
    SideTable<int64_t> long_;
};

using Durations = LaneValues<DurationColumn>;

} // namespace stepscope
