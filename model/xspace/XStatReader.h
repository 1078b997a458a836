#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "model/StatValue.h"
#include "model/xspace/WireReader.h"

// XStat { metadata_id = 1; oneof value { double = 2; uint64 = 3; int64 = 4; str = 5;
// bytes = 6; ref_value = 7 } }. A ref_value names an XStatMetadata whose name is the string.

namespace stepscope {

// One XStat as read from the wire, before its key is resolved.
struct RawStat {
    int64_t metadataId = 0;
    StatType type = StatType::Int64;
    uint64_t raw = 0;
};

// The stat as protobuf writes it, and as nearly every stat of a profile is: metadata_id, then one
// value, each once, every tag one byte. Stats are most of an XSpace's fields (eight an event in
// the synthetic profiles), so they are read here with no WireReader and no loop over fields; a
// varint longer than it need be is read too, as long as varintAt reads it. Returns false, with
// `out` untouched and nothing given to textId, where the bytes are anything else: fields in
// another order, repeated or unknown, a value that does not end the stat, or a varint that
// varintAt leaves to the byte-by-byte reading (of 9 or more bytes, or of several bytes within 8
// of the buffer's end).
template <class TextId>
bool readPlainStat(const uint8_t* p, const uint8_t* end, const uint8_t* bufferEnd, RawStat& out,
                   TextId&& textId) {
    constexpr uint8_t kMetadataId = 1 << 3 | WireReader::Varint,
                      kDouble = 2 << 3 | WireReader::Fixed64, kUint64 = 3 << 3 | WireReader::Varint,
                      kInt64 = 4 << 3 | WireReader::Varint, kStr = 5 << 3 | WireReader::Len,
                      kBytes = 6 << 3 | WireReader::Len, kRef = 7 << 3 | WireReader::Varint;
    uint64_t id, v;
    if (p == end || *p++ != kMetadataId || !WireReader::varintAt(p, end, bufferEnd, id) || p == end)
        return false;
    const uint8_t tag = *p++;
    switch (tag) {
    case kDouble:
        if (end - p != 8) return false;
        std::memcpy(&v, p, 8);
        out = {int64_t(id), StatType::Double, v};
        return true;
    case kUint64:
    case kInt64:
    case kRef:
        if (!WireReader::varintAt(p, end, bufferEnd, v) || p != end) return false;
        out = {int64_t(id),
               tag == kUint64  ? StatType::Uint64
               : tag == kInt64 ? StatType::Int64
                               : StatType::Ref,
               v};
        return true;
    case kStr:
    case kBytes:
        if (!WireReader::varintAt(p, end, bufferEnd, v) || v != uint64_t(end - p)) return false;
        out = {int64_t(id), tag == kStr ? StatType::Str : StatType::Bytes,
               uint64_t(textId(std::string_view(reinterpret_cast<const char*>(p), size_t(v))))};
        return true;
    default:
        return false;
    }
}

// The one decoder of event, metadata and plane stats, of any field order and with every check: each
// Str or Bytes value, as it is read, becomes the number `textId` gives it. [begin, end) is the
// stat's bytes within `file`; a failure is written to `error`, with its offset in `file`.
template <class TextId>
bool readStat(const uint8_t* begin, const uint8_t* end, std::span<const uint8_t> file,
              std::string* error, RawStat& out, TextId&& textId) {
    if (readPlainStat(begin, end, file.data() + file.size(), out, textId)) return true;
    WireReader r(begin, end, file, error);
    uint32_t field, wt;
    while (r.next(field, wt)) {
        uint64_t v = 0;
        std::string_view text;
        switch (field) {
        case 1:
            if (!r.expect(wt, WireReader::Varint, "XStat.metadata_id") ||
                !r.varint(v, "XStat.metadata_id"))
                return false;
            out.metadataId = int64_t(v);
            break;
        case 2:
            if (!r.expect(wt, WireReader::Fixed64, "XStat.double_value") ||
                !r.fixed64(v, "XStat.double_value"))
                return false;
            out.type = StatType::Double;
            out.raw = v;
            break;
        case 3:
        case 4:
        case 7:
            if (!r.expect(wt, WireReader::Varint, "XStat value") || !r.varint(v, "XStat value"))
                return false;
            out.type = field == 3 ? StatType::Uint64 : field == 4 ? StatType::Int64 : StatType::Ref;
            out.raw = v;
            break;
        case 5:
        case 6:
            if (!r.expect(wt, WireReader::Len, "XStat string value") ||
                !r.string(text, "XStat string value"))
                return false;
            out.type = field == 5 ? StatType::Str : StatType::Bytes;
            out.raw = textId(text);
            break;
        default:
            if (!r.skip(wt, "XStat")) return false;
        }
    }
    return !r.failed();
}

} // namespace stepscope
