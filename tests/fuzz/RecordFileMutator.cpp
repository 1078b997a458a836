// libFuzzer's custom mutator for fuzz_record_file: a record file is an 8-byte magic and zstd
// frames with content checksums, so a mutated byte almost always lands in a frame that no longer
// decompresses, and the fuzzer never gets past the reader's first check. This mutator takes the
// frames apart, mutates what they hold (the records: kind, length, payload), and compresses each
// frame again with its checksum. One mutation in sixteen is libFuzzer's own on the raw bytes, so
// the frame layer (truncation, damage, foreign headers) is fuzzed too.
//
// Mutations of the records: libFuzzer's on one payload or on a whole frame's content (lengths go
// stale), a field overwritten with a value at a limit (0, 1, INT64_MAX, 2^63, UINT64_MAX, 2^62, a
// neighbour of another record's value), a record duplicated, moved to another frame, removed,
// swapped with another, or given another kind, and a frame split in two.
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "capture/CuptiRecords.h"
#include "capture/RecordFile.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t maxSize);

namespace {

using Bytes = std::vector<uint8_t>;

struct Frame {
    std::vector<Bytes> records; // each: kind, 4-byte length, payload (as the file has them)
    Bytes opaque;               // a frame content that is not a record list, mutated as bytes
};

// Cuts a frame's content into records; false when its lengths do not add up.
bool splitRecords(const Bytes& content, std::vector<Bytes>& out) {
    size_t p = 0;
    while (p < content.size()) {
        if (content.size() - p < 5) return false;
        uint32_t length = 0;
        for (int i = 0; i < 4; ++i) length |= uint32_t(content[p + 1 + size_t(i)]) << (8 * i);
        if (content.size() - p - 5 < length) return false;
        out.emplace_back(content.begin() + ptrdiff_t(p),
                         content.begin() + ptrdiff_t(p + 5 + length));
        p += 5 + length;
    }
    return true;
}

void setLength(Bytes& record) {
    const uint32_t length = uint32_t(record.size() - 5);
    for (int i = 0; i < 4; ++i) record[1 + size_t(i)] = uint8_t(length >> (8 * i));
}

// The file's frames, decompressed; `tail` keeps what follows the last frame that decompresses.
bool parse(const uint8_t* data, size_t size, std::vector<Frame>& frames, Bytes& tail) {
    constexpr size_t kMagic = sizeof stepscope::capture::kRecordFileMagic;
    if (size < kMagic || std::memcmp(data, stepscope::capture::kRecordFileMagic, kMagic) != 0)
        return false;
    size_t at = kMagic;
    while (at < size) {
        const size_t compressed = ZSTD_findFrameCompressedSize(data + at, size - at);
        const unsigned long long content = ZSTD_getFrameContentSize(data + at, size - at);
        if (ZSTD_isError(compressed) || content > (1u << 24)) break;
        Bytes plain(static_cast<size_t>(content));
        if (ZSTD_decompress(plain.data(), plain.size(), data + at, compressed) != plain.size())
            break;
        Frame f;
        if (!splitRecords(plain, f.records)) {
            f.records.clear();
            f.opaque = std::move(plain);
        }
        frames.push_back(std::move(f));
        at += compressed;
    }
    tail.assign(data + at, data + size);
    return !frames.empty();
}

Bytes serialize(const std::vector<Frame>& frames, const Bytes& tail) {
    Bytes out(std::begin(stepscope::capture::kRecordFileMagic),
              std::end(stepscope::capture::kRecordFileMagic));
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    for (const Frame& f : frames) {
        Bytes content = f.opaque;
        for (const Bytes& r : f.records) content.insert(content.end(), r.begin(), r.end());
        Bytes compressed(ZSTD_compressBound(content.size()));
        const size_t n = ZSTD_compress2(cctx, compressed.data(), compressed.size(), content.data(),
                                        content.size());
        if (ZSTD_isError(n)) continue;
        out.insert(out.end(), compressed.begin(), compressed.begin() + ptrdiff_t(n));
    }
    ZSTD_freeCCtx(cctx);
    out.insert(out.end(), tail.begin(), tail.end());
    return out;
}

// libFuzzer's mutation of `bytes` in place, allowed to grow it by up to `grow` bytes.
void mutateBytes(Bytes& bytes, size_t grow) {
    if (bytes.empty()) bytes.push_back(0);
    const size_t size = bytes.size();
    bytes.resize(size + grow);
    bytes.resize(LLVMFuzzerMutate(bytes.data(), size, bytes.size()));
}

// Writes `width` bytes of `value` (little-endian) at `at`.
void put(Bytes& record, size_t at, uint64_t value, size_t width) {
    for (size_t i = 0; i < width && at + i < record.size(); ++i)
        record[at + i] = uint8_t(value >> (8 * i));
}

uint64_t get(const Bytes& record, size_t at, size_t width) {
    uint64_t v = 0;
    for (size_t i = 0; i < width && at + i < record.size(); ++i)
        v |= uint64_t(record[at + i]) << (8 * i);
    return v;
}

void mutateRecords(std::vector<Frame>& frames, std::mt19937_64& rng) {
    const auto pick = [&rng](size_t n) { return size_t(rng() % n); };
    Frame& frame = frames[pick(frames.size())];
    std::vector<Bytes>& records = frame.records;
    if (records.empty()) {
        mutateBytes(frame.opaque, 64);
        return;
    }
    Bytes& record = records[pick(records.size())];
    switch (pick(9)) {
    case 0:
    case 1: { // libFuzzer on one payload
        Bytes payload(record.begin() + 5, record.end());
        mutateBytes(payload, 32);
        record.resize(5);
        record.insert(record.end(), payload.begin(), payload.end());
        setLength(record);
        break;
    }
    case 2:
    case 3: { // a field at a limit, or near another record's field (times meet, sizes add up)
        if (record.size() <= 5) break;
        static constexpr uint64_t kLimits[] = {0,
                                               1,
                                               uint64_t(INT64_MAX),
                                               uint64_t(INT64_MAX) + 1,
                                               UINT64_MAX,
                                               uint64_t(1) << 62,
                                               uint64_t(INT64_MAX) / 1000,
                                               uint64_t(INT64_MIN) + 5};
        const size_t width = rng() % 2 ? 8 : 4;
        const size_t at = 5 + pick(record.size() - 5);
        uint64_t value = kLimits[pick(std::size(kLimits))];
        if (rng() % 2) {
            const Bytes& other = records[pick(records.size())];
            if (other.size() > 5)
                value = get(other, 5 + pick(other.size() - 5), width) + (rng() % 2001) - 1000;
        }
        put(record, at, value, width);
        break;
    }
    case 4: { // duplicate, into any frame
        Frame& to = frames[pick(frames.size())];
        to.records.insert(to.records.begin() + ptrdiff_t(pick(to.records.size() + 1)), record);
        break;
    }
    case 5: { // move to another frame, or remove
        const Bytes moved = record;
        records.erase(records.begin() + (&record - records.data()));
        if (rng() % 2) {
            Frame& to = frames[pick(frames.size())];
            to.records.insert(to.records.begin() + ptrdiff_t(pick(to.records.size() + 1)), moved);
        }
        break;
    }
    case 6: // swap
        std::swap(record, records[pick(records.size())]);
        break;
    case 7: // another kind (one past the last included)
        record[0] = uint8_t(1 + pick(std::variant_size_v<stepscope::capture::Record> + 1));
        break;
    case 8: { // split the frame in two
        const size_t at = pick(records.size() + 1);
        Frame second;
        second.records.assign(records.begin() + ptrdiff_t(at), records.end());
        records.resize(at);
        frames.insert(frames.begin() + (&frame - frames.data()) + 1, std::move(second));
        break;
    }
    }
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize,
                                          unsigned int seed) {
    std::mt19937_64 rng(seed);
    std::vector<Frame> frames;
    Bytes tail;
    if (rng() % 16 != 0 && parse(data, size, frames, tail)) {
        if (rng() % 8 == 0) {
            // libFuzzer on one frame's whole content, as bytes: lengths and kinds go stale.
            Frame& f = frames[rng() % frames.size()];
            for (const Bytes& r : f.records) f.opaque.insert(f.opaque.end(), r.begin(), r.end());
            f.records.clear();
            mutateBytes(f.opaque, 64);
        } else {
            mutateRecords(frames, rng);
        }
        const Bytes out = serialize(frames, tail);
        if (out.size() <= maxSize) {
            std::memcpy(data, out.data(), out.size());
            return out.size();
        }
    }
    return LLVMFuzzerMutate(data, size, maxSize);
}
