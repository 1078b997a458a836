#pragma once

#include <algorithm>
#include <cstdint>

#include "model/Column.h"
#include "model/StatList.h"

namespace stepscope::statcodec {

// Writes entry lists (StatList.h: an importer's own lists, before their shape is known) at the
// end of a byte column through a cursor. While it writes, the column is
// kept sized to its capacity (uninitialised, see Column) and grown by doubling when an entry
// might not fit; its destructor cuts the column to what was written. An entry then costs one
// compare besides its encoding, not two resizes of the vector.
class Writer {
public:
    explicit Writer(Column<uint8_t>& out)
        : out_(out)
        , at_(out.size()) {
        out_.resize(std::max(out_.capacity(), at_ + kMaxEntryBytes));
    }
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;
    ~Writer() { out_.resize(at_); }
    size_t size() const { return at_; }
    // Drops what was written after `at` (a size() seen before).
    void cut(size_t at) { at_ = at; }
    void entry(uint32_t keyIndex, StatType type, uint64_t raw) {
        room(kMaxEntryBytes);
        at_ = size_t(putEntry(out_.data() + at_, keyIndex, type, raw) - out_.data());
    }
    void end() {
        room(1);
        out_[at_++] = 0;
    }

private:
    void room(size_t n) {
        if (out_.size() - at_ < n) [[unlikely]]
            out_.resize(std::max(out_.size() * 2, at_ + n));
    }
    Column<uint8_t>& out_;
    size_t at_;
};

} // namespace stepscope::statcodec
