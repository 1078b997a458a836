#pragma once

#include <algorithm>
#include <cstdint>

#include "model/Column.h"

namespace stepscope {

// A column whose values come in long runs, stored one entry per run. An event's step (group) id
// is the same along a track until the next step begins, so tens of millions of events hold a few
// thousand runs; the high halves of correlation ids change once per process. Runs cover every
// row: the first starts at row 0.
template <class T> class RunColumn {
public:
    // Value of row e (e < the row count): a binary search over the runs.
    T at(uint32_t e) const {
        const auto it = std::upper_bound(first_.begin(), first_.end(), e);
        return value_[size_t(it - first_.begin()) - 1];
    }
    // Starts a run of `value` at row `first` (after every run so far); a value equal to the last
    // run's continues it.
    void append(uint32_t first, T value) {
        if (!value_.empty() && value_.back() == value) return;
        first_.push_back(first);
        value_.push_back(value);
    }
    // Appends the runs of `other`, whose rows all follow this column's, its row r becoming
    // row `offset` + r here.
    void append(const RunColumn& other, uint32_t offset = 0) {
        for (size_t i = 0; i < other.first_.size(); ++i)
            append(offset + other.first_[i], other.value_[i]);
    }
    size_t runCount() const { return first_.size(); }
    void shrink() {
        first_.shrink_to_fit();
        value_.shrink_to_fit();
    }
    size_t memoryBytes() const {
        return first_.capacity() * sizeof(uint32_t) + value_.capacity() * sizeof(T);
    }
    // The structural facts at() relies on, for a column of `rows` rows.
    bool consistent(size_t rows) const {
        if (first_.size() != value_.size() || (rows == 0) != first_.empty()) return false;
        if (rows == 0) return true;
        if (first_.front() != 0) return false;
        for (size_t i = 1; i < first_.size(); ++i)
            if (first_[i] <= first_[i - 1] || first_[i] >= rows) return false;
        return true;
    }

    // Reads values along a walk over rows: O(1) while the walk stays in one run, a binary search
    // when it leaves it.
    class Cursor {
    public:
        explicit Cursor(const RunColumn& column)
            : c_(column) {}
        T at(uint32_t e) {
            if (e < begin_ || e >= end_) {
                const auto it = std::upper_bound(c_.first_.begin(), c_.first_.end(), e);
                i_ = size_t(it - c_.first_.begin()) - 1;
                begin_ = c_.first_[i_];
                end_ = it == c_.first_.end() ? UINT32_MAX : *it;
            }
            return c_.value_[i_];
        }

    private:
        const RunColumn& c_;
        size_t i_ = 0;
        uint32_t begin_ = 1, end_ = 0; // the current run [begin_, end_); none at first
    };

private:
    friend class ProfileCache; // writes and reads every column
    Column<uint32_t> first_;
    Column<T> value_;
};

} // namespace stepscope
