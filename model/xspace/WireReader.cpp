#include "model/xspace/WireReader.h"

#include <algorithm>
#include <bit>

namespace stepscope {

static_assert(std::endian::native == std::endian::little, "varintSlow() reads little-endian words");

bool WireReader::varintSlow(uint64_t& out, const char* what) {
    // Most varints of more than one byte here are times in ps and ids, of 2-7 bytes. Where the
    // buffer holds 8 bytes from here, one load finds the last byte (the first with its high bit
    // clear) and the 7-bit groups are packed together with no branch on the length; a varint that
    // runs past the range is left to the loop below, which reports it.
    if (fileEnd_ - p_ >= 8) {
        uint64_t word;
        std::memcpy(&word, p_, 8);
        const uint64_t stops = ~word & 0x8080808080808080u;
        const ptrdiff_t length = std::countr_zero(stops) / 8 + 1; // 9 where there is no stop
        if (length <= std::min<ptrdiff_t>(8, end_ - p_)) {
            uint64_t v = word & (stops ^ (stops - 1)) & 0x7F7F7F7F7F7F7F7Fu;
            v = ((v & 0x7F007F007F007F00u) >> 1) | (v & 0x007F007F007F007Fu);
            v = ((v & 0x3FFF00003FFF0000u) >> 2) | (v & 0x00003FFF00003FFFu);
            v = ((v & 0x0FFFFFFF00000000u) >> 4) | (v & 0x000000000FFFFFFFu);
            p_ += length;
            out = v;
            return true;
        }
    }
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
