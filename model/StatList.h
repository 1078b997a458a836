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

// Writes v as a varint at p (at most 10 bytes); returns the end.
inline uint8_t* putVarint(uint8_t* p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = uint8_t(v) | 0x80;
        v >>= 7;
    }
    *p++ = uint8_t(v);
    return p;
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

} // namespace statcodec

// The stats of one event, decoded on iteration. Use as a range:
//   for (const StatValue& s : profile.eventStats(e)) ...
class StatList {
public:
    struct End {};
    class Iterator {
    public:
        Iterator(const uint8_t* p, const StringId* keys)
            : p_(p)
            , keys_(keys) {
            read();
        }
        const StatValue& operator*() const { return current_; }
        const StatValue* operator->() const { return &current_; }
        Iterator& operator++() {
            p_ = next_;
            read();
            return *this;
        }
        bool operator==(End) const { return *p_ == 0; }
        bool operator!=(End) const { return *p_ != 0; }

    private:
        void read() {
            if (*p_ == 0) return;
            const uint8_t* p = p_;
            uint32_t keyIndex;
            StatType type;
            uint64_t raw;
            statcodec::readEntry(p, keyIndex, type, raw);
            current_.key = keys_[keyIndex];
            current_.type = type;
            current_.raw = raw;
            next_ = p;
        }
        const uint8_t* p_;
        const uint8_t* next_ = nullptr;
        const StringId* keys_;
        StatValue current_;
    };

    StatList(const uint8_t* data, const StringId* keys)
        : data_(data)
        , keys_(keys) {}
    Iterator begin() const { return Iterator(data_, keys_); }
    End end() const { return {}; }
    bool empty() const { return *data_ == 0; }
    size_t size() const {
        size_t n = 0;
        for (auto it = begin(); it != end(); ++it) ++n;
        return n;
    }

private:
    const uint8_t* data_;
    const StringId* keys_;
};

} // namespace stepscope
