#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "model/Progress.h"

namespace stepscope {

// Bytes that resize() leaves uninitialised: the decompressed output is written over them, so
// zero-filling a buffer of hundreds of MB first would only cost time.
template <class T> struct UninitialisedAllocator : std::allocator<T> {
    template <class U> struct rebind { using other = UninitialisedAllocator<U>; };
    UninitialisedAllocator() = default;
    template <class U> UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
    template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
    template <class U, class... Args> void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
using GunzipBuffer = std::vector<uint8_t, UninitialisedAllocator<uint8_t>>;

inline bool isGzip(std::span<const uint8_t> bytes) {
    return bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

// Decompresses a whole gzip file (one or more members, as `gzip -c a b > c` writes) with zlib
// into `out`: the data is out[0, size), followed by `padding` zero bytes (simdjson reads up to 64
// bytes past the end). Returns an empty string on success, otherwise what went wrong and at which
// compressed byte offset ("the gzip stream ends early at byte 1234 of 24808 ..."), or that the
// output would pass `limit` bytes (a gzip bomb, or more than the JSON parser can hold).
// Memory stays proportional to what really comes out: the gzip size trailer is only a hint,
// bounded by deflate's maximum ratio and 64 times the input (a truncated file has compressed
// data where the trailer should be), and the buffer grows by half as output arrives.
//
// zlib, not libdeflate: libdeflate decompresses only into a buffer of known size and needs the
// whole input and output at once, and Debian ships its headers in a package this project's build
// machine does not have; zlib streams, so the output grows as it goes and a truncated file is
// reported at the byte where it ends. See README ("Kineto import") for the measured speed.
std::string gunzip(std::span<const uint8_t> in, GunzipBuffer& out, size_t& size, size_t padding,
                   const Progress* progress = nullptr, size_t limit = SIZE_MAX);

} // namespace stepscope
