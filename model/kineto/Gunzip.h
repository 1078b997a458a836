#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/Progress.h"

namespace stepscope {

inline bool isGzip(std::span<const uint8_t> bytes) {
    return bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

// Decompresses a whole gzip file (one or more members, as `gzip -c a b > c` writes) with zlib
// into `out`: the data is out[0, size), followed by `padding` zero bytes (simdjson reads up to 64
// bytes past the end). Returns an empty string on success, otherwise what went wrong and at which
// compressed byte offset ("the gzip stream ends early at byte 1234 of 24808 ...").
//
// zlib, not libdeflate: libdeflate decompresses only into a buffer of known size and needs the
// whole input and output at once, and Debian ships its headers in a package this project's build
// machine does not have; zlib streams, so the output grows as it goes and a truncated file is
// reported at the byte where it ends. See README ("Kineto import") for the measured speed.
std::string gunzip(std::span<const uint8_t> in, std::vector<uint8_t>& out, size_t& size,
                   size_t padding, const Progress* progress = nullptr);

} // namespace stepscope
