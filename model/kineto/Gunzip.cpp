#include "model/kineto/Gunzip.h"

#include <algorithm>
#include <climits>

#include <zlib.h>

namespace stepscope {

namespace {

// Deflate cannot expand data by more than 1032:1 (RFC 1951: a 258-byte match costs at least
// 2 bits), so a gzip member of n bytes decompresses to at most 1032 n bytes.
constexpr size_t kMaxDeflateRatio = 1032;

// The first output allocation. The ISIZE trailer of the last member (the uncompressed size
// modulo 2^32) is a good guess for a whole file, but in a truncated file those 4 bytes are
// compressed data, i.e. any number up to 4 GiB. So it is used only when deflate could have
// produced it, and never beyond 64 times the input + 1 MiB (the real Kineto traces here
// compress 13:1 to 30:1); past that the buffer grows geometrically as data really comes out.
// The bytes are not zero-filled, so an allocation larger than the output costs address space,
// not memory.
size_t firstAllocation(std::span<const uint8_t> in, size_t limit) {
    const size_t cap = std::min(limit, in.size() * 64 + (size_t(1) << 20));
    if (in.size() < 18) return std::min(cap, in.size() * 4 + 4096);
    const uint8_t* t = in.data() + in.size() - 4;
    const size_t isize = size_t(t[0]) | size_t(t[1]) << 8 | size_t(t[2]) << 16 | size_t(t[3]) << 24;
    const bool plausible = isize >= in.size() / 2 && isize / kMaxDeflateRatio <= in.size();
    return std::min(cap, plausible ? isize : in.size() * 4);
}

std::string endsEarly(size_t at, size_t produced) {
    return "the gzip stream ends early at byte " + std::to_string(at) +
           " (the file is truncated; " + std::to_string(produced) +
           " bytes were decompressed before the end)";
}

} // namespace

std::string gunzip(std::span<const uint8_t> in, GunzipBuffer& out, size_t& size, size_t padding,
                   const Progress* progress, size_t limit) {
    out.clear();
    size = 0;
    z_stream z{};
    // 16 + MAX_WBITS: gzip wrapper only.
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return "cannot start zlib";
    // One byte past the limit is decompressed, so that going past it can be seen.
    const size_t maxOut = std::min(limit, SIZE_MAX / 4) + 1;
    out.resize(std::min(firstAllocation(in, limit), maxOut) + padding);
    size_t produced = 0;
    size_t consumed = 0;
    std::string error;
    uint32_t rounds = 0;
    for (;;) {
        if (out.size() - padding - produced < 65536 && out.size() < maxOut + padding) {
            // Grow by half (reserve first: resize alone would double the capacity).
            const size_t grown =
                std::min(std::max(out.size() + out.size() / 2, produced + padding + 65536),
                         maxOut + padding);
            out.reserve(grown);
            out.resize(grown);
        }
        z.next_in = const_cast<Bytef*>(in.data() + consumed);
        z.avail_in = uInt(std::min<size_t>(in.size() - consumed, UINT_MAX));
        z.next_out = out.data() + produced;
        z.avail_out = uInt(std::min<size_t>(out.size() - padding - produced, UINT_MAX));
        const uInt inBefore = z.avail_in, outBefore = z.avail_out;
        const int rc = inflate(&z, Z_NO_FLUSH);
        consumed += inBefore - z.avail_in;
        produced += outBefore - z.avail_out;
        if (produced > limit) {
            error = "the decompressed trace is larger than " + std::to_string(limit) +
                    " bytes, more than this reader can hold";
            break;
        }
        if (rc == Z_STREAM_END) {
            // Another member may follow (concatenated gzip files); trailing zeros are padding.
            const bool more =
                in.size() - consumed >= 2 && in[consumed] == 0x1f && in[consumed + 1] == 0x8b;
            if (!more) break;
            inflateReset(&z);
            continue;
        }
        if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
            error = "the gzip data is corrupt at byte " + std::to_string(consumed) + " of " +
                    std::to_string(in.size()) + (z.msg ? std::string(" (") + z.msg + ")" : "");
            break;
        }
        if (rc == Z_MEM_ERROR) {
            error = "out of memory while decompressing";
            break;
        }
        if ((rc == Z_BUF_ERROR || (rc == Z_OK && z.avail_out != 0)) && consumed == in.size()) {
            error = endsEarly(in.size(), produced);
            break;
        }
        if (progress && (++rounds & 15) == 0) {
            if (progress->cancelled()) {
                error = "cancelled";
                break;
            }
            progress->report("Decompressing", double(consumed) / double(in.size()));
        }
    }
    inflateEnd(&z);
    if (!error.empty()) {
        out.clear();
        out.shrink_to_fit();
        return error;
    }
    out.resize(produced + padding);
    std::fill(out.begin() + ptrdiff_t(produced), out.end(), 0);
    size = produced;
    return {};
}

} // namespace stepscope
