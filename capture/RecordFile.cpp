#include "capture/RecordFile.h"

#include <zstd.h>

#include <cerrno>
#include <concepts>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <type_traits>
#include <unistd.h>

#include "capture/RecordLimits.h"

namespace stepscope::capture {

namespace {

// The kind byte of each record is its index in the Record variant, plus one (0 is never used).
template <class R> constexpr uint8_t kindOf() {
    return uint8_t(Record(R{}).index() + 1);
}

class Encoder {
public:
    explicit Encoder(std::vector<uint8_t>& out)
        : out_(out) {}
    template <class T> void operator()(const T& v) {
        if constexpr (std::is_same_v<T, std::string>) {
            (*this)(uint32_t(v.size()));
            out_.insert(out_.end(), v.begin(), v.end());
        } else if constexpr (std::is_array_v<T>) {
            for (const auto& x : v) (*this)(x);
        } else if constexpr (std::is_enum_v<T>) {
            (*this)(std::underlying_type_t<T>(v));
        } else if constexpr (std::is_same_v<T, bool>) {
            (*this)(uint8_t(v ? 1 : 0));
        } else {
            static_assert(std::is_integral_v<T>);
            uint8_t bytes[sizeof(T)];
            for (size_t i = 0; i < sizeof(T); ++i) bytes[i] = uint8_t(uint64_t(v) >> (8 * i));
            out_.insert(out_.end(), bytes, bytes + sizeof(T));
        }
    }

private:
    std::vector<uint8_t>& out_;
};

class Decoder {
public:
    Decoder(const uint8_t* p, size_t n)
        : p_(p)
        , end_(p + n) {}
    bool ok() const { return ok_; }
    bool atEnd() const { return p_ == end_; }
    template <class T> void operator()(T& v) {
        if constexpr (std::is_same_v<T, std::string>) {
            uint32_t n = 0;
            (*this)(n);
            if (!ok_ || size_t(end_ - p_) < n) {
                ok_ = false;
                return;
            }
            v.assign(reinterpret_cast<const char*>(p_), n);
            p_ += n;
        } else if constexpr (std::is_array_v<T>) {
            for (auto& x : v) (*this)(x);
        } else if constexpr (std::is_enum_v<T>) {
            std::underlying_type_t<T> raw{};
            (*this)(raw);
            v = T(raw);
        } else if constexpr (std::is_same_v<T, bool>) {
            uint8_t raw = 0;
            (*this)(raw);
            v = raw != 0;
        } else {
            static_assert(std::is_integral_v<T>);
            if (size_t(end_ - p_) < sizeof(T)) {
                ok_ = false;
                return;
            }
            uint64_t x = 0;
            for (size_t i = 0; i < sizeof(T); ++i) x |= uint64_t(p_[i]) << (8 * i);
            v = T(x);
            p_ += sizeof(T);
        }
    }

private:
    const uint8_t* p_;
    const uint8_t* end_;
    bool ok_ = true;
};

// The fields of each record, in file order; one list serves the encoder and the decoder.
template <class A, class R>
requires std::same_as<std::remove_const_t<R>, ProcessRecord>
void fields(A& a, R& r) {
    a(r.pid), a(r.hostname), a(r.command), a(r.wallStartNs), a(r.cuptiStartNs);
}
template <class A, class R>
requires std::same_as<std::remove_const_t<R>, ThreadRecord>
void fields(A& a, R& r) {
    a(r.tid), a(r.name);
}
template <class A, class R>
requires std::same_as<std::remove_const_t<R>, DeviceRecord>
void fields(A& a, R& r) {
    a(r.id), a(r.name), a(r.smCount), a(r.clockRateKHz), a(r.memoryBytes),
        a(r.memoryBandwidthBytesPerSecond), a(r.computeCapabilityMajor),
        a(r.computeCapabilityMinor);
}
template <class A, class R>
requires std::same_as<std::remove_const_t<R>, KernelRecord>
void fields(A& a, R& r) {
    a(r.startNs), a(r.endNs), a(r.deviceId), a(r.contextId), a(r.streamId), a(r.correlationId),
        a(r.grid), a(r.block), a(r.registersPerThread), a(r.staticSharedBytes),
        a(r.dynamicSharedBytes), a(r.graphId), a(r.graphNodeId), a(r.name);
}
template <class A, class R>
requires std::same_as<std::remove_const_t<R>, MemcpyRecord>
void fields(A& a, R& r) {
    a(r.startNs), a(r.endNs), a(r.deviceId), a(r.contextId), a(r.streamId), a(r.correlationId),
        a(r.bytes), a(r.kind), a(r.srcKind), a(r.dstKind), a(r.dstDeviceId), a(r.graphId);
}
template <class A, class R>
requires std::same_as<std::remove_const_t<R>, MemsetRecord>
void fields(A& a, R& r) {
    a(r.startNs), a(r.endNs), a(r.deviceId), a(r.contextId), a(r.streamId), a(r.correlationId),
        a(r.bytes), a(r.value);
}
template <class A, class R>
requires std::same_as<std::remove_const_t<R>, ApiRecord>
void fields(A& a, R& r) {
    a(r.startNs), a(r.endNs), a(r.tid), a(r.correlationId), a(r.domain), a(r.callbackId), a(r.name);
}
template <class A, class R>
requires std::same_as<std::remove_const_t<R>, NvtxRangeRecord>
void fields(A& a, R& r) {
    a(r.startNs), a(r.endNs), a(r.tid), a(r.name);
}
template <class A, class R>
requires std::same_as<std::remove_const_t<R>, MemoryRecord>
void fields(A& a, R& r) {
    a(r.timestampNs), a(r.deviceId), a(r.streamId), a(r.correlationId), a(r.address), a(r.bytes),
        a(r.allocation);
}
template <class A, class R>
requires std::same_as<std::remove_const_t<R>, OverheadRecord>
void fields(A& a, R& r) {
    a(r.startNs), a(r.endNs), a(r.kind);
}
template <class A, class R>
requires std::same_as<std::remove_const_t<R>, DroppedRecord>
void fields(A& a, R& r) {
    a(r.contextId), a(r.count);
}

// Decodes one record of kind `kind` from its payload; false when the payload does not fit.
bool decodeRecord(uint8_t kind, const uint8_t* p, size_t n, Record& out) {
    if (kind == 0 || kind > std::variant_size_v<Record>) return false;
    bool ok = false;
    // Build the alternative with index kind - 1 and decode into it.
    [&]<size_t... I>(std::index_sequence<I...>) {
        ((kind == I + 1 ? (void)[&] {
            std::variant_alternative_t<I, Record> r;
            Decoder d(p, n);
            fields(d, r);
            ok = d.ok() && d.atEnd();
            if (ok) out = std::move(r);
        }()
                        : void()),
         ...);
    }
    (std::make_index_sequence<std::variant_size_v<Record>>());
    return ok;
}

bool writeAll(int fd, const uint8_t* p, size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= size_t(w);
    }
    return true;
}

// Names a left-out record in `out.rejected`, or counts it in the line after the named ones.
void reject(RecordFileContents& out, std::string why) {
    ++out.rejectedCount;
    if (out.rejectedCount <= kRejectedRecordsNamed) {
        out.rejected.push_back(std::move(why));
        return;
    }
    const uint64_t more = out.rejectedCount - kRejectedRecordsNamed;
    out.rejected.resize(kRejectedRecordsNamed + 1);
    out.rejected.back() = "and " + std::to_string(more) + " more record" + (more > 1 ? "s" : "");
}

} // namespace

void encodeRecord(const Record& record, std::vector<uint8_t>& out) {
    std::visit(
        [&out](const auto& r) {
            using R = std::decay_t<decltype(r)>;
            out.push_back(kindOf<R>());
            const size_t lengthAt = out.size();
            out.resize(out.size() + 4);
            Encoder e(out);
            fields(e, r);
            const uint32_t length = uint32_t(out.size() - lengthAt - 4);
            for (int i = 0; i < 4; ++i) out[lengthAt + size_t(i)] = uint8_t(length >> (8 * i));
        },
        record);
}

RecordFileWriter::RecordFileWriter(const std::string& path, int compressionLevel) {
    cctx_ = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, compressionLevel);
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) {
        error_ = "cannot create " + path + " (" + std::strerror(errno) + ")";
        return;
    }
    if (!writeAll(fd_, reinterpret_cast<const uint8_t*>(kRecordFileMagic), sizeof kRecordFileMagic))
        error_ = "cannot write " + path + " (" + std::strerror(errno) + ")";
}

RecordFileWriter::~RecordFileWriter() {
    flush();
    if (fd_ >= 0) ::close(fd_);
    ZSTD_freeCCtx(cctx_);
}

void RecordFileWriter::abandon() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

void RecordFileWriter::add(const Record& record) {
    encodeRecord(record, pending_);
}

bool RecordFileWriter::flush() {
    if (pending_.empty()) return ok();
    if (!ok()) {
        pending_.clear();
        return false;
    }
    compressed_.resize(ZSTD_compressBound(pending_.size()));
    const size_t n = ZSTD_compress2(cctx_, compressed_.data(), compressed_.size(), pending_.data(),
                                    pending_.size());
    pending_.clear();
    if (ZSTD_isError(n)) {
        error_ = std::string("zstd: ") + ZSTD_getErrorName(n);
        return false;
    }
    if (!writeAll(fd_, compressed_.data(), n)) {
        error_ = std::string("write failed (") + std::strerror(errno) + ")";
        return false;
    }
    ++frames_;
    return true;
}

size_t readRecordFrames(const uint8_t* data, size_t size, uint64_t offset,
                        RecordFileContents& out) {
    size_t at = 0;
    std::vector<uint8_t> frame;
    while (at < size) {
        const size_t compressedSize = ZSTD_findFrameCompressedSize(data + at, size - at);
        const unsigned long long contentSize = ZSTD_getFrameContentSize(data + at, size - at);
        // The header's content size is not covered by the checksum: a damaged one could ask for
        // gigabytes. A zstd block yields at most 128 KiB (ZSTD_BLOCKSIZE_MAX) and takes at least
        // 3 bytes (its header), so no real frame holds more than that per 3 compressed bytes.
        const unsigned long long bound =
            ZSTD_isError(compressedSize)
                ? 0
                : (unsigned long long)(compressedSize / 3 + 1) * ZSTD_BLOCKSIZE_MAX;
        if (ZSTD_isError(compressedSize) || contentSize == ZSTD_CONTENTSIZE_ERROR ||
            contentSize == ZSTD_CONTENTSIZE_UNKNOWN || contentSize > (1ull << 31) ||
            contentSize > bound) {
            out.problem = "frame " + std::to_string(out.frames + 1) + " at byte " +
                          std::to_string(offset + at) + " is truncated or corrupt";
            break;
        }
        frame.resize(size_t(contentSize));
        const size_t got = ZSTD_decompress(frame.data(), frame.size(), data + at, compressedSize);
        if (ZSTD_isError(got) || got != frame.size()) {
            out.problem = "frame " + std::to_string(out.frames + 1) + " at byte " +
                          std::to_string(offset + at) + " does not decompress";
            break;
        }
        // Parse the frame's records; a frame is kept whole or not at all.
        std::vector<Record> records;
        size_t p = 0;
        bool good = true;
        while (p < frame.size()) {
            if (frame.size() - p < 5) {
                good = false;
                break;
            }
            const uint8_t kind = frame[p];
            uint32_t length = 0;
            for (int i = 0; i < 4; ++i) length |= uint32_t(frame[p + 1 + size_t(i)]) << (8 * i);
            p += 5;
            Record r;
            if (frame.size() - p < length || !decodeRecord(kind, frame.data() + p, length, r)) {
                good = false;
                break;
            }
            records.push_back(std::move(r));
            p += length;
        }
        if (!good) {
            out.problem = "frame " + std::to_string(out.frames + 1) + " at byte " +
                          std::to_string(offset + at) + " holds a malformed record";
            break;
        }
        for (size_t i = 0; i < records.size(); ++i) {
            std::string why = recordOutOfRange(records[i]);
            const bool process = std::holds_alternative<ProcessRecord>(records[i]);
            if (why.empty() && process && out.processRecords > 0)
                why = "a second process record (a record file holds one process)";
            if (why.empty()) {
                out.processRecords += process;
                out.records.push_back(std::move(records[i]));
                continue;
            }
            reject(out, "frame " + std::to_string(out.frames + 1) + " at byte " +
                            std::to_string(offset + at) + ", record " + std::to_string(i + 1) +
                            " (" + recordKindName(records[i]) + "): " + why);
        }
        ++out.frames;
        at += compressedSize;
    }
    return at;
}

RecordFileContents readRecordBytes(const uint8_t* data, size_t size, const std::string& name) {
    RecordFileContents out;
    if (size < sizeof kRecordFileMagic ||
        std::memcmp(data, kRecordFileMagic, sizeof kRecordFileMagic) != 0) {
        out.error = name + " is not a Stepscope CUPTI record file" +
                    (size < sizeof kRecordFileMagic ? " (shorter than its 8-byte header)" : "");
        return out;
    }
    constexpr size_t kMagic = sizeof kRecordFileMagic;
    out.bytesIgnored = size - kMagic - readRecordFrames(data + kMagic, size - kMagic, kMagic, out);
    return out;
}

RecordFileContents readRecordFile(const std::string& path) {
    // Read after the profiled process ended; the file no longer changes.
    RecordFileContents out;
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file) {
        out.error = "cannot open " + path + " (" + std::strerror(errno) + ")";
        return out;
    }
    try {
        std::vector<uint8_t> bytes;
        std::vector<uint8_t> chunk(1 << 20);
        bool readError = false;
        for (;;) {
            const size_t n = std::fread(chunk.data(), 1, chunk.size(), file);
            bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + ptrdiff_t(n));
            if (n < chunk.size()) {
                readError = std::ferror(file) != 0;
                break;
            }
        }
        std::fclose(file);
        file = nullptr;
        if (readError) {
            out.error = "cannot read " + path;
            return out;
        }
        return readRecordBytes(bytes.data(), bytes.size(), path);
    } catch (const std::bad_alloc&) {
        if (file) std::fclose(file);
        out = RecordFileContents();
        out.error = "out of memory while reading " + path;
        return out;
    }
}

} // namespace stepscope::capture
