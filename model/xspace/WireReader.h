#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace stepscope {

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

    bool varint(uint64_t& out, const char* what) {
        if (p_ < end_ && *p_ < 0x80) {
            out = *p_++;
            return true;
        }
        return varintSlow(out, what);
    }

    bool fixed64(uint64_t& out, const char* what) {
        if (end_ - p_ < 8) return fail("truncated fixed64 in ", what);
        std::memcpy(&out, p_, 8);
        p_ += 8;
        return true;
    }

    // A length-delimited field: returns its byte range.
    bool bytes(const uint8_t*& begin, const uint8_t*& stop, const char* what) {
        uint64_t len;
        if (!varint(len, what)) return false;
        if (len > static_cast<uint64_t>(end_ - p_)) return lengthPastEnd(len, what);
        begin = p_;
        p_ += len;
        stop = p_;
        return true;
    }
    bool string(std::string_view& out, const char* what) {
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
