#pragma once

#include <cstddef>
#include <cstdint>

#include "model/StatValue.h"

namespace stepscope::statcodec {

// Checks of stat lists (the format: StatList.h) that come from outside this process.

// Reads a varint that must end before `end` and fit 64 bits; false if it does not.
inline bool getVarintWithin(const uint8_t*& p, const uint8_t* end, uint64_t& v) {
    if (p < end && *p < 0x80) [[likely]] { // most tags and values are one byte
        v = *p++;
        return true;
    }
    v = 0;
    for (unsigned shift = 0; shift < 64 && p < end; shift += 7) {
        const uint8_t b = *p++;
        if (shift == 63 && b > 1) return false; // bits past the 64th
        v |= uint64_t(b & 0x7F) << shift;
        if (!(b & 0x80)) return true;
    }
    return false;
}

// Whether the list at p is one this program could have written, read without passing `end`:
// key indices in [1, keys), types that are StatTypes, text values that are string ids below
// `strings`, and the terminating 0 before `end`. For data from outside (a cache file), so that
// readEntry and the readers of the values it gives stay within their tables.
inline bool validList(const uint8_t* p, const uint8_t* end, size_t keys, size_t strings) {
    while (p < end) {
        if (*p == 0) return true;
        uint64_t tag, value;
        if (!getVarintWithin(p, end, tag)) return false;
        const uint64_t key = tag >> 3;
        const StatType type = StatType(tag & 7);
        if (key == 0 || key >= keys || uint8_t(type) > uint8_t(StatType::Ref)) return false;
        if (type == StatType::Double) {
            if (end - p < 8) return false;
            p += 8;
        } else if (!getVarintWithin(p, end, value)) {
            return false;
        } else if ((type == StatType::Str || type == StatType::Bytes || type == StatType::Ref) &&
                   value >= strings) {
            return false;
        }
    }
    return false;
}

} // namespace stepscope::statcodec
