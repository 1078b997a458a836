#include "model/kineto/Gunzip.h"

#include <algorithm>
#include <climits>

#include <zlib.h>

namespace stepscope {

namespace {

// The ISIZE trailer of the last member: the uncompressed size modulo 2^32, a good first guess.
size_t sizeHint(std::span<const uint8_t> in) {
    if (in.size() < 18) return in.size() * 4;
    const uint8_t* t = in.data() + in.size() - 4;
    const size_t isize = size_t(t[0]) | size_t(t[1]) << 8 | size_t(t[2]) << 16 | size_t(t[3]) << 24;
    // A trailer that is not one (truncated or corrupt file) or a size past 4 GiB: fall back to
    // a ratio. A corrupt trailer may claim up to 4 GiB, so the hint is capped at a ratio JSON
    // rarely exceeds; the buffer grows past it when the data really is larger.
    const size_t cap = in.size() * 64 + (size_t(1) << 20);
    return isize >= in.size() / 2 ? std::min(isize, cap) : in.size() * 4;
}

} // namespace

std::string gunzip(std::span<const uint8_t> in, std::vector<uint8_t>& out, size_t& size,
                   size_t padding, const Progress* progress) {
    out.clear();
    size = 0;
    z_stream z{};
    // 16 + MAX_WBITS: gzip wrapper only.
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return "cannot start zlib";
    out.resize(sizeHint(in) + padding);
    size_t produced = 0;
    size_t consumed = 0;
    std::string error;
    uint32_t rounds = 0;
    for (;;) {
        if (out.size() - produced < padding + 65536) out.resize(out.size() * 2 + 65536);
        z.next_in = const_cast<Bytef*>(in.data() + consumed);
        z.avail_in = uInt(std::min<size_t>(in.size() - consumed, UINT_MAX));
        z.next_out = out.data() + produced;
        z.avail_out = uInt(std::min<size_t>(out.size() - padding - produced, UINT_MAX));
        const uInt inBefore = z.avail_in, outBefore = z.avail_out;
        const int rc = inflate(&z, Z_NO_FLUSH);
        consumed += inBefore - z.avail_in;
        produced += outBefore - z.avail_out;
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
        if (rc == Z_BUF_ERROR && consumed == in.size()) {
            error = "the gzip stream ends early at byte " + std::to_string(in.size()) +
                    " (the file is truncated; " + std::to_string(produced) +
                    " bytes were decompressed before the end)";
            break;
        }
        if (consumed == in.size() && z.avail_out != 0 && rc == Z_OK) {
            error = "the gzip stream ends early at byte " + std::to_string(in.size()) +
                    " (the file is truncated; " + std::to_string(produced) +
                    " bytes were decompressed before the end)";
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
