#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "model/Column.h"
#include "model/StatValue.h"

namespace stepscope {

// Event stats are the largest part of a profile (real TF host planes carry about six per event),
// so each event's stats are stored as one compact list in a shared byte column:
//   entry  = varint(keyIndex << 3 | type), value
//   value  = Int64: zigzag varint; Uint64: varint; Double: 8 bytes little-endian;
//            Str, Bytes, Ref: varint StringId
//   list   = entry* 0
// keyIndex (>= 1) indexes the profile's stat key table, whose entries are the interned stat
// names, so no entry tag is ever 0 and 0 ends the list. Typical entries take 2-4 bytes instead of
// the 13 of a fixed-width row. Every event without stats shares one terminator byte.
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

// Writes one entry at p (at most kMaxEntryBytes); returns the end.
constexpr size_t kMaxEntryBytes = 20;
inline uint8_t* putEntry(uint8_t* p, uint32_t keyIndex, StatType type, uint64_t raw) {
    p = putVarint(p, (uint64_t(keyIndex) << 3) | uint64_t(type));
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

// The entry is written in place, in room made for the longest one and then given back: a Column
// grows without zero-filling (and geometrically), so this costs no copy through a local buffer
// and no range insert.
inline void append(Column<uint8_t>& out, uint32_t keyIndex, StatType type, uint64_t raw) {
    const size_t at = out.size();
    out.resize(at + kMaxEntryBytes);
    out.resize(size_t(putEntry(out.data() + at, keyIndex, type, raw) - out.data()));
}

// A stat to encode: what append() takes, for appending several at once.
struct Entry {
    uint64_t raw;
    uint32_t keyIndex;
    StatType type;
};

inline void appendAll(Column<uint8_t>& out, const Entry* entries, size_t n) {
    uint8_t buffer[16 * kMaxEntryBytes];
    uint8_t* p = buffer;
    for (size_t i = 0; i < n; ++i) {
        if (p > buffer + sizeof buffer - kMaxEntryBytes) {
            out.insert(out.end(), buffer, p);
            p = buffer;
        }
        p = putEntry(p, entries[i].keyIndex, entries[i].type, entries[i].raw);
    }
    out.insert(out.end(), buffer, p);
}

// Reads one entry at p (which must not be at the list's terminating 0) and advances p past it.
// For lists this process wrote: the builders re-reading what they encoded.
inline void readEntry(const uint8_t*& p, uint32_t& keyIndex, StatType& type, uint64_t& raw) {
    const uint64_t tag = getVarint(p);
    keyIndex = uint32_t(tag >> 3);
    type = StatType(tag & 7);
    switch (type) {
    case StatType::Int64: {
        const uint64_t z = getVarint(p);
        raw = (z >> 1) ^ (~(z & 1) + 1);
        break;
    }
    case StatType::Double:
        std::memcpy(&raw, p, 8);
        p += 8;
        break;
    default:
        raw = getVarint(p);
    }
}

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

// The bounds a list read from a loaded profile is held to: its bytes end at `end`, key indices
// are in [1, keys), text values are string ids below `strings`.
struct ListBounds {
    const uint8_t* end;
    size_t keys;
    size_t strings;
};

// Whether a tag and the value it announces name a key in [1, keys), a StatType and, for text, a
// string below `strings`. The value of a Double is not looked at.
inline bool entryWithin(uint64_t tag, uint64_t value, const ListBounds& bounds) {
    const uint64_t key = tag >> 3;
    const unsigned type = unsigned(tag & 7);
    if (key == 0 || key >= bounds.keys) return false;
    // Str, Bytes and Ref follow the numeric types; 6 and 7 are no type.
    return type < unsigned(StatType::Str) ||
           (type <= unsigned(StatType::Ref) && value < bounds.strings);
}

// An entry read within bounds: `next` is where the next one begins, nullptr where there was none
// to read (the list's end, or a malformed entry).
struct EntryRead {
    const uint8_t* next = nullptr;
    Entry entry;
};

// Finishes an entry whose tag and value (v, or raw for a Double) were read and that ends at `next`:
// checks them against `bounds` (entryWithin).
[[gnu::always_inline]] inline EntryRead takeEntry(const uint8_t* next, uint64_t tag, uint64_t v,
                                                  uint64_t raw, const ListBounds& bounds) {
    if (!entryWithin(tag, v, bounds)) return {};
    const StatType type = StatType(tag & 7);
    if (type == StatType::Int64)
        raw = (v >> 1) ^ (~(v & 1) + 1);
    else if (type != StatType::Double)
        raw = v;
    return {next, {raw, uint32_t(tag >> 3), type}};
}

// The most bytes readEntryWithin reads without checking each against the end: a tag and a value of
// 10 bytes each (any varint, as written or not), more than putEntry ever writes.
constexpr size_t kLongestReadEntryBytes = 10 + 10;

// readEntryWithin for an entry that starts less than kLongestReadEntryBytes before bounds.end. (Out
// of line and by value, so that the common path keeps its pointer in a register.)
[[gnu::noinline]] inline EntryRead readEntryNearEnd(const uint8_t* p, const ListBounds& bounds) {
    uint64_t tag, v = 0, raw = 0;
    if (p >= bounds.end || *p == 0 || !getVarintWithin(p, bounds.end, tag)) return {};
    if ((tag & 7) == uint64_t(StatType::Double)) {
        if (bounds.end - p < 8) return {};
        std::memcpy(&raw, p, 8);
        p += 8;
    } else if (!getVarintWithin(p, bounds.end, v)) {
        return {};
    }
    return takeEntry(p, tag, v, raw, bounds);
}

// Reads the entry at p, as readEntry does, if it is one this program could have written within
// `bounds`: a tag and a value that end before bounds.end and fit 64 bits, and entryWithin.
[[gnu::always_inline]] inline EntryRead readEntryWithin(const uint8_t* p,
                                                        const ListBounds& bounds) {
    if (size_t(bounds.end - p) < kLongestReadEntryBytes) [[unlikely]]
        return readEntryNearEnd(p, bounds);
    // Every byte this reads lies before bounds.end: only the varints' lengths need checking.
    uint64_t tag, v = 0, raw = 0;
    if (*p == 0 || !getVarint10(p, tag)) return {};
    if ((tag & 7) == uint64_t(StatType::Double)) {
        std::memcpy(&raw, p, 8);
        p += 8;
    } else if (!getVarint10(p, v)) {
        return {};
    }
    return takeEntry(p, tag, v, raw, bounds);
}

} // namespace statcodec

// The stats of one event, decoded on iteration. Use as a range:
//   for (const StatValue& s : profile.eventStats(e)) ...
// Every entry is read within the profile's bounds (readEntryWithin), so a list that came from
// outside (a cache file that passed its checksums yet is malformed) can never make a reader index
// past the key table, the string pool or the stat bytes: such a list reads as its entries up to
// the first malformed one. This replaces parsing every list when a cache entry is opened
// (docs/cache.md; its cost and this one's: docs/load-speed.md).
class StatList {
public:
    struct End {};
    class Iterator {
    public:
        // Everything on the way to readEntryWithin is always inlined: GCC otherwise keeps the
        // constructor and operator++ out of line in the loops that look for one stat, which made
        // the overview 5-12% slower (docs/load-speed.md).
        [[gnu::always_inline]] Iterator(const uint8_t* p, const statcodec::ListBounds& bounds,
                                        const StringId* keys)
            : p_(p)
            , bounds_(bounds)
            , keys_(keys) {
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
            const statcodec::EntryRead r = statcodec::readEntryWithin(p_, bounds_);
            p_ = r.next; // nullptr at the end, or at the first malformed entry
            if (!p_) return;
            current_.key = keys_[r.entry.keyIndex];
            current_.type = r.entry.type;
            current_.raw = r.entry.raw;
        }
        const uint8_t* p_;
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
