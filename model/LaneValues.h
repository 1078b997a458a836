#pragma once

#include <cstdint>
#include <span>

namespace stepscope {

// Read access to one time field (start, duration) of a lane's events however it is stored: a
// profile's compact column (StartColumn, DurationColumn) or an analysis' own int64 column (the run
// diff's step lanes), so that one window search and one folding serve both.
template <class Stored> class LaneValues {
public:
    LaneValues(const Stored& column)
        : column_(&column) {}
    LaneValues(std::span<const int64_t> wide)
        : wide_(wide.data()) {}
    int64_t operator[](uint32_t e) const { return column_ ? (*column_)[e] : wide_[e]; }

private:
    const Stored* column_ = nullptr;
    const int64_t* wide_ = nullptr;
};

} // namespace stepscope
