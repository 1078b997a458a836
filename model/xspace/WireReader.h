#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace stepscope {

static_assert(std::endian::native == std::endian::little, "varint() reads little-endian words");

// A bounds-checked reader of the protobuf wire format over one byte range of a buffer (a file, or
// a message within one). Every read checks its bounds; a varint is read a word at a time where the
// buffer holds 8 bytes from it, even past the range, and its length then checked against the range.
// The first failure writes what went wrong and where (the offset from the buffer's start) into the
// error string shared by all readers of one decode, and every later read of this reader fails too,
// so callers check once per message. Readers are cheap to create: one per message.
class WireReader {
public:
    enum WireType : uint32_t {
        Varint = 0,
        Fixed64 = 1,
        Len = 2,
        StartGroup = 3,
        EndGroup = 4,
        Fixed32 = 5
    };

    // Offsets in errors count from the buffer's start.
    WireReader(const uint8_t* begin, const uint8_t* end, std::span<const uint8_t> buffer,
               std::string* error)
        : p_(begin)
        , end_(end)
        , file_(buffer.data())
        , fileEnd_(buffer.data() + buffer.size())
        , error_(error) {}

    bool failed() const { return failed_; }
    size_t offset() const { return static_cast<size_t>(p_ - file_); }

    // Reads a field tag; returns false at the end of the range or on error.
    bool next(uint32_t& field, uint32_t& wireType) {
        if (p_ >= end_) return false;
        uint64_t tag;
        if (!varint(tag, "field tag")) return false;
        field = static_cast<uint32_t>(tag >> 3);
        wireType = static_cast<uint32_t>(tag & 7);
        if (field == 0) return fail("field number 0 (not a protobuf message)", nullptr);
        return true;
    }

    [[gnu::always_inline]] bool varint(uint64_t& out, const char* what) {
        return varintAt(p_, end_, fileEnd_, out) || varintSlow(out, what);
    }

    // The quick reading of a varint at p, which must end before `end`: one byte, or, where the
    // buffer (ending at bufferEnd) holds 8 bytes from p, up to 8 bytes read at once. Most longer
    // varints here are times in ps and ids, of 2-7 bytes: one load finds the last byte (the first
    // with its high bit clear) and the 7-bit groups are packed together with no branch on the
    // length. Returns false, with p and out untouched, for anything else, left to the byte-by-byte
    // reading: a varint of several bytes within 8 of the buffer's end, one of 9 or more bytes, or
    // one running past `end`. Always inlined: GCC otherwise keeps it out of line in the event
    // loop once XSpaceImporter.cpp grows past its inlining budget (docs/load-speed.md).
    [[gnu::always_inline]] static bool varintAt(const uint8_t*& p, const uint8_t* end,
                                                const uint8_t* bufferEnd, uint64_t& out) {
        if (p < end && *p < 0x80) {
            out = *p++;
            return true;
        }
        if (bufferEnd - p < 8) return false;
        uint64_t word;
        std::memcpy(&word, p, 8);
        const uint64_t stops = ~word & 0x8080808080808080u;
        const ptrdiff_t length = std::countr_zero(stops) / 8 + 1; // 9 where there is no stop
        if (length > end - p || length > 8) return false;
        uint64_t v = word & (stops ^ (stops - 1)) & 0x7F7F7F7F7F7F7F7Fu;
        v = ((v & 0x7F007F007F007F00u) >> 1) | (v & 0x007F007F007F007Fu);
        v = ((v & 0x3FFF00003FFF0000u) >> 2) | (v & 0x00003FFF00003FFFu);
        v = ((v & 0x0FFFFFFF00000000u) >> 4) | (v & 0x000000000FFFFFFFu);
        p += length;
        out = v;
        return true;
    }

    bool fixed64(uint64_t& out, const char* what) {
        if (end_ - p_ < 8) return fail("truncated fixed64 in ", what);
        std::memcpy(&out, p_, 8);
        p_ += 8;
        return true;
    }

    // A length-delimited field: returns its byte range. (Always inlined, as varintAt.)
    [[gnu::always_inline]] bool bytes(const uint8_t*& begin, const uint8_t*& stop,
                                      const char* what) {
        uint64_t len;
        if (!varint(len, what)) return false;
        if (len > static_cast<uint64_t>(end_ - p_)) return lengthPastEnd(len, what);
        begin = p_;
        p_ += len;
        stop = p_;
        return true;
    }
    [[gnu::always_inline]] bool string(std::string_view& out, const char* what) {
        const uint8_t *b = nullptr, *e = nullptr;
        if (!bytes(b, e, what)) return false;
        out = std::string_view(reinterpret_cast<const char*>(b), size_t(e - b));
        return true;
    }

    // Checks that a field has the wire type its schema gives it.
    bool expect(uint32_t wireType, uint32_t wanted, const char* what) {
        return wireType == wanted || wrongType(wireType, wanted, what);
    }

    bool skip(uint32_t wireType, const char* what);

    // Records a failure: `message` then `what` (if any), prefixed with the byte offset.
    bool fail(const char* message, const char* what);

private:
    bool varintSlow(uint64_t& out, const char* what);
    bool lengthPastEnd(uint64_t len, const char* what);
    bool wrongType(uint32_t wireType, uint32_t wanted, const char* what);

    const uint8_t* p_;
    const uint8_t* end_;
    const uint8_t* file_;
    const uint8_t* fileEnd_;
    std::string* error_;
    bool failed_ = false;
};

} // namespace stepscope
