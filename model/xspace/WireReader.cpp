#include "model/xspace/WireReader.h"

namespace stepscope {

// Byte by byte, what varintAt declines: varints of several bytes within 8 bytes of the buffer's
// end, of 9 or 10 bytes, and those that run past the range or past 10 bytes, which fail here.
bool WireReader::varintSlow(uint64_t& out, const char* what) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (p_ >= end_) return fail("truncated varint in ", what);
        const uint8_t b = *p_++;
        v |= uint64_t(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            out = v;
            return true;
        }
    }
    return fail("malformed varint (over 10 bytes) in ", what);
}

bool WireReader::skip(uint32_t wireType, const char* what) {
    switch (wireType) {
    case Varint: {
        uint64_t v;
        return varint(v, what);
    }
    case Fixed64:
        if (end_ - p_ < 8) return fail("truncated fixed64 in ", what);
        p_ += 8;
        return true;
    case Len: {
        const uint8_t *b = nullptr, *e = nullptr;
        return bytes(b, e, what);
    }
    case Fixed32:
        if (end_ - p_ < 4) return fail("truncated fixed32 in ", what);
        p_ += 4;
        return true;
    default:
        return fail(("unsupported wire type " + std::to_string(wireType) + " in ").c_str(), what);
    }
}

bool WireReader::lengthPastEnd(uint64_t len, const char* what) {
    return fail(
        ("length " + std::to_string(len) + " of ").c_str(),
        (std::string(what) + " runs past the end of its message (truncated or corrupt)").c_str());
}

bool WireReader::wrongType(uint32_t wireType, uint32_t wanted, const char* what) {
    return fail(what, (" has wire type " + std::to_string(wireType) + ", expected " +
                       std::to_string(wanted))
                          .c_str());
}

bool WireReader::fail(const char* message, const char* what) {
    if (!failed_ && error_ && error_->empty())
        *error_ = "at byte " + std::to_string(offset()) + ": " + message + (what ? what : "");
    failed_ = true;
    p_ = end_;
    return false;
}

} // namespace stepscope
