#include "model/Hash64.h"

#include <bit>
#include <cstring>

namespace stepscope {

namespace {

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ull;

uint64_t rotateLeft(uint64_t x, int bits) {
    return (x << bits) | (x >> (64 - bits));
}
// Little-endian loads, whatever the host's byte order.
uint64_t load64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
    return v;
}
uint32_t load32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof v);
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
    return v;
}
uint64_t round(uint64_t lane, uint64_t input) {
    return rotateLeft(lane + input * kPrime2, 31) * kPrime1;
}
uint64_t mergeLane(uint64_t h, uint64_t lane) {
    return (h ^ round(0, lane)) * kPrime1 + kPrime4;
}

} // namespace

uint64_t xxh64(const uint8_t* p, size_t size, uint64_t seed) {
    const uint8_t* const end = p + size;
    uint64_t h;
    if (size >= 32) {
        // Four independent lanes over 32-byte stripes.
        uint64_t a = seed + kPrime1 + kPrime2, b = seed + kPrime2, c = seed, d = seed - kPrime1;
        for (const uint8_t* last = end - 32; p <= last; p += 32) {
            a = round(a, load64(p));
            b = round(b, load64(p + 8));
            c = round(c, load64(p + 16));
            d = round(d, load64(p + 24));
        }
        h = rotateLeft(a, 1) + rotateLeft(b, 7) + rotateLeft(c, 12) + rotateLeft(d, 18);
        h = mergeLane(mergeLane(mergeLane(mergeLane(h, a), b), c), d);
    } else {
        h = seed + kPrime5;
    }
    h += uint64_t(size);
    for (; end - p >= 8; p += 8) h = rotateLeft(h ^ round(0, load64(p)), 27) * kPrime1 + kPrime4;
    if (end - p >= 4) {
        h = rotateLeft(h ^ (uint64_t(load32(p)) * kPrime1), 23) * kPrime2 + kPrime3;
        p += 4;
    }
    for (; p < end; ++p) h = rotateLeft(h ^ (*p * kPrime5), 11) * kPrime1;
    h ^= h >> 33;
    h *= kPrime2;
    h ^= h >> 29;
    h *= kPrime3;
    h ^= h >> 32;
    return h;
}

} // namespace stepscope
