#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "model/Column.h"
#include "model/StatValue.h"

namespace stepscope {

// Event stats are the largest part of a profile (real TF host planes carry about six per event),
// so each event's stats are stored as one compact list in a shared byte column. Events of one kind
// carry the same stats in the same order (a memory allocation its 14 allocator fields, a launch
// its correlation and step ids), so a list names that sequence of keys and types, its shape, once:
//   list   = varint(shape) value*
//   value  = Int64: zigzag varint; Uint64: varint; Double: 8 bytes little-endian;
//            Str, Bytes, Ref: varint StringId
// Shape s is the tags [shapeBegin[s], shapeBegin[s + 1]) of the profile's shape table, each tag
// keyIndex << 3 | type, in the order the values follow; keyIndex (>= 1) indexes the profile's stat
// key table, whose entries are the interned stat names. Shape 0 has no tags: every event without
// stats shares the one byte 0 at the start of the column. A memory allocation's list takes its 14
// values and one byte, where a tag before each value took 14 bytes more (docs/load-speed.md).
namespace statcodec {

// Writes v as a varint at p (at most 10 bytes; protobuf's encoding); returns the end.
inline uint8_t* putVarint(uint8_t* p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = uint8_t(v) | 0x80;
        v >>= 7;
    }
    *p++ = uint8_t(v);
    return p;
}

// The bytes putVarint() writes for v.
inline size_t varintSize(uint64_t v) {
    return (size_t(std::bit_width(v | 1)) + 6) / 7;
}

// Reads a varint that this program wrote (trusted, always well formed).
inline uint64_t getVarint(const uint8_t*& p) {
    uint64_t v = *p & 0x7F;
    if (!(*p++ & 0x80)) return v;
    for (int shift = 7;; shift += 7) {
        const uint8_t b = *p++;
        v |= uint64_t(b & 0x7F) << shift;
        if (!(b & 0x80)) return v;
    }
}

// A value as a list holds it (at most kMaxValueBytes); returns the end.
constexpr size_t kMaxValueBytes = 10;
inline uint8_t* putValue(uint8_t* p, StatType type, uint64_t raw) {
    switch (type) {
    case StatType::Int64: {
        const int64_t s = int64_t(raw);
        return putVarint(p, (uint64_t(s) << 1) ^ uint64_t(s >> 63));
    }
    case StatType::Double:
        std::memcpy(p, &raw, 8);
        return p + 8;
    default:
        return putVarint(p, raw);
    }
}

// Reads a value that this program wrote (trusted) and advances p past it.
inline uint64_t readValue(const uint8_t*& p, StatType type) {
    uint64_t raw;
    switch (type) {
    case StatType::Int64: {
        const uint64_t z = getVarint(p);
        return (z >> 1) ^ (~(z & 1) + 1);
    }
    case StatType::Double:
        std::memcpy(&raw, p, 8);
        p += 8;
        return raw;
    default:
        return getVarint(p);
    }
}

// A tag of the shape table: the key's index and the value's type.
inline uint32_t tagOf(uint32_t keyIndex, StatType type) {
    return (keyIndex << 3) | uint32_t(type);
}
inline uint32_t keyOfTag(uint32_t tag) {
    return tag >> 3;
}
inline StatType typeOfTag(uint32_t tag) {
    return StatType(tag & 7);
}

// A stat to encode: its key's index, its type and its 8 bytes.
struct Entry {
    uint64_t raw;
    uint32_t keyIndex;
    StatType type;
};

// An importer's own stat lists, written before their shape is known (XSpace chunks, Kineto
// streams), are entries, each its tag as a varint then its value; an XSpace chunk ends each list
// with a 0, a Kineto stream keeps a count:
//   list = (varint(tag) value)* 0
// Writes one entry at p (at most kMaxEntryBytes); returns the end.
constexpr size_t kMaxEntryBytes = 5 + kMaxValueBytes;
inline uint8_t* putEntry(uint8_t* p, uint32_t keyIndex, StatType type, uint64_t raw) {
    return putValue(putVarint(p, tagOf(keyIndex, type)), type, raw);
}

// Reads one entry at p (which must not be at the list's terminating 0) and advances p past it.
inline void readEntry(const uint8_t*& p, uint32_t& keyIndex, StatType& type, uint64_t& raw) {
    const uint32_t tag = uint32_t(getVarint(p));
    keyIndex = keyOfTag(tag);
    type = typeOfTag(tag);
    raw = readValue(p, type);
}

// Reads a varint that must end before `end` and fit 64 bits; false if it does not.
inline bool getVarintWithin(const uint8_t*& p, const uint8_t* end, uint64_t& v) {
    if (p < end && *p < 0x80) [[likely]] { // most shapes and values are one byte
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

// Reads a varint of at most 10 bytes that fits 64 bits, where 10 bytes can be read; false if it
// does not end within them or holds bits past the 64th.
inline bool getVarint10(const uint8_t*& p, uint64_t& v) {
    uint64_t r = *p & 0x7F;
    if (!(*p++ & 0x80)) {
        v = r;
        return true;
    }
    for (unsigned shift = 7;; shift += 7) {
        const uint8_t b = *p++;
        r |= uint64_t(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            v = r;
            return shift < 63 || b <= 1; // the 10th byte holds only the 64th bit
        }
        if (shift == 63) return false;
    }
}

// The bounds a list read from a loaded profile is held to: its bytes end at `end`, its shape is
// one of `shapes` in the shape table, its text values are string ids below `strings`. The shape
// table's tags were checked when the profile was made or opened (valid types, key indices within
// the key table).
struct ListBounds {
    const uint8_t* end;
    size_t strings;
    const uint32_t* shapeBegin; // shapes + 1 offsets into tags
    size_t shapes;
    const uint32_t* tags;
};

// Reads a value of `type` at p, as readValue does, if it is one this program could have written
// within `bounds`: a varint that ends before bounds.end and fits 64 bits (8 bytes for a Double),
// and for text a string id below bounds.strings. Returns where the next value begins, or nullptr.
[[gnu::always_inline]] inline const uint8_t*
readValueWithin(const uint8_t* p, StatType type, const ListBounds& bounds, uint64_t& raw) {
    if (type == StatType::Double) {
        if (bounds.end - p < 8) return nullptr;
        std::memcpy(&raw, p, 8);
        return p + 8;
    }
    uint64_t v;
    // Every byte getVarint10 reads lies before bounds.end: only the varint's length needs checking.
    if (size_t(bounds.end - p) >= kMaxValueBytes) [[likely]] {
        if (!getVarint10(p, v)) return nullptr;
    } else if (!getVarintWithin(p, bounds.end, v)) {
        return nullptr;
    }
    if (type == StatType::Int64) {
        raw = (v >> 1) ^ (~(v & 1) + 1);
    } else {
        if (type != StatType::Uint64 && v >= bounds.strings) return nullptr;
        raw = v;
    }
    return p;
}

} // namespace statcodec

// The stats of one event, decoded on iteration. Use as a range:
//   for (const StatValue& s : profile.eventStats(e)) ...
// Every value is read within the profile's bounds (readValueWithin), so a list that came from
// outside (a cache file that passed its checksums yet is malformed) can never make a reader index
// past the shape table, the key table, the string pool or the stat bytes: such a list reads as its
// values up to the first malformed one, and a list whose shape is not in the table reads as empty.
// This replaces parsing every list when a cache entry is opened (docs/cache.md; its cost and this
// one's: docs/load-speed.md).
class StatList {
public:
    struct End {};
    class Iterator {
    public:
        // Everything on the way to readValueWithin is always inlined: GCC otherwise keeps the
        // constructor and operator++ out of line in the loops that look for one stat, which made
        // the overview 5-12% slower (docs/load-speed.md).
        [[gnu::always_inline]] Iterator(const uint8_t* p, const statcodec::ListBounds& bounds,
                                        const StringId* keys)
            : bounds_(bounds)
            , keys_(keys) {
            uint64_t shape;
            const bool known = p < bounds.end && *p < 0x80 // most shapes are one byte
                                   ? (shape = *p++, true)
                                   : statcodec::getVarintWithin(p, bounds.end, shape);
            if (known && shape < bounds.shapes) {
                p_ = p;
                tag_ = bounds.tags + bounds.shapeBegin[shape];
                tagEnd_ = bounds.tags + bounds.shapeBegin[shape + 1];
            }
            read();
        }
        const StatValue& operator*() const { return current_; }
        const StatValue* operator->() const { return &current_; }
        [[gnu::always_inline]] Iterator& operator++() {
            read();
            return *this;
        }
        bool operator==(End) const { return p_ == nullptr; }
        bool operator!=(End) const { return p_ != nullptr; }

    private:
        [[gnu::always_inline]] void read() {
            if (tag_ == tagEnd_) {
                p_ = nullptr;
                return;
            }
            const uint32_t tag = *tag_++;
            const StatType type = statcodec::typeOfTag(tag);
            uint64_t raw;
            p_ = statcodec::readValueWithin(p_, type, bounds_, raw); // nullptr where malformed
            if (!p_) return;
            current_.key = keys_[statcodec::keyOfTag(tag)];
            current_.type = type;
            current_.raw = raw;
        }
        const uint8_t* p_ = nullptr;
        const uint32_t* tag_ = nullptr;
        const uint32_t* tagEnd_ = nullptr;
        statcodec::ListBounds bounds_;
        const StringId* keys_;
        StatValue current_;
    };

    StatList(const uint8_t* data, const statcodec::ListBounds& bounds, const StringId* keys)
        : data_(data)
        , bounds_(bounds)
        , keys_(keys) {}
    [[gnu::always_inline]] Iterator begin() const { return Iterator(data_, bounds_, keys_); }
    End end() const { return {}; }
    bool empty() const { return begin() == End{}; }
    size_t size() const {
        size_t n = 0;
        for (auto it = begin(); it != end(); ++it) ++n;
        return n;
    }

private:
    const uint8_t* data_;
    statcodec::ListBounds bounds_;
    const StringId* keys_;
};

} // namespace stepscope
