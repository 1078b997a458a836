#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace stepscope {

// A bounds-checked reader of the protobuf wire format over one byte range. Every read checks its
// bounds; on the first failure the reader records what went wrong and where (absolute file
// offset), and all later reads fail too, so callers can check once per message.
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

    WireReader(const uint8_t* begin, const uint8_t* end, const uint8_t* fileStart)
        : p_(begin)
        , end_(end)
        , file_(fileStart) {}

    bool atEnd() const { return p_ >= end_ || failed_; }
    bool failed() const { return failed_; }
    size_t offset() const { return static_cast<size_t>(p_ - file_); }
    const uint8_t* position() const { return p_; }
    const std::string& error() const { return error_; }

    // Reads a field tag; returns false at the end of the range or on error.
    bool next(uint32_t& field, uint32_t& wireType) {
        if (p_ >= end_ || failed_) return false;
        uint64_t tag;
        if (!varint(tag, "field tag")) return false;
        field = static_cast<uint32_t>(tag >> 3);
        wireType = static_cast<uint32_t>(tag & 7);
        if (field == 0) return fail("field number 0 (not a protobuf message)");
        return true;
    }

    bool varint(uint64_t& out, const char* what) {
        if (p_ < end_ && *p_ < 0x80) {
            out = *p_++;
            return true;
        }
        uint64_t v = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (p_ >= end_) return fail(std::string("truncated varint in ") + what);
            const uint8_t b = *p_++;
            v |= uint64_t(b & 0x7F) << shift;
            if (!(b & 0x80)) {
                out = v;
                return true;
            }
        }
        return fail(std::string("malformed varint (over 10 bytes) in ") + what);
    }

    bool fixed64(uint64_t& out, const char* what) {
        if (end_ - p_ < 8) return fail(std::string("truncated fixed64 in ") + what);
        std::memcpy(&out, p_, 8);
        p_ += 8;
        return true;
    }

    // A length-delimited field: returns its byte range.
    bool bytes(const uint8_t*& begin, const uint8_t*& stop, const char* what) {
        uint64_t len;
        if (!varint(len, what)) return false;
        if (len > static_cast<uint64_t>(end_ - p_))
            return fail(std::string("length ") + std::to_string(len) + " of " + what +
                        " runs past the end of its message (truncated or corrupt file)");
        begin = p_;
        p_ += len;
        stop = p_;
        return true;
    }
    bool string(std::string_view& out, const char* what) {
        const uint8_t *b, *e;
        if (!bytes(b, e, what)) return false;
        out = std::string_view(reinterpret_cast<const char*>(b), size_t(e - b));
        return true;
    }

    // Reads a field of the expected wire type, failing with a clear message on a mismatch.
    bool expect(uint32_t wireType, uint32_t wanted, const char* what) {
        if (wireType == wanted) return true;
        return fail(std::string(what) + " has wire type " + std::to_string(wireType) +
                    ", expected " + std::to_string(wanted));
    }

    bool skip(uint32_t wireType, const char* what) {
        switch (wireType) {
        case Varint: {
            uint64_t v;
            return varint(v, what);
        }
        case Fixed64:
            if (end_ - p_ < 8) return fail(std::string("truncated fixed64 in ") + what);
            p_ += 8;
            return true;
        case Len: {
            const uint8_t *b, *e;
            return bytes(b, e, what);
        }
        case Fixed32:
            if (end_ - p_ < 4) return fail(std::string("truncated fixed32 in ") + what);
            p_ += 4;
            return true;
        default:
            return fail(std::string("unsupported wire type ") + std::to_string(wireType) + " in " +
                        what);
        }
    }

    bool fail(std::string message) {
        if (!failed_) {
            failed_ = true;
            error_ = "at byte " + std::to_string(offset()) + ": " + std::move(message);
        }
        p_ = end_;
        return false;
    }

private:
    const uint8_t* p_;
    const uint8_t* end_;
    const uint8_t* file_;
    bool failed_ = false;
    std::string error_;
};

} // namespace stepscope
