#include "model/ProfileCache.h"

#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <thread>
#include <type_traits>

#include "model/Hash64.h"
#include "model/MappedFile.h"
#include "model/ParallelFor.h"

namespace stepscope {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'S', 'T', 'E', 'P', 'S', 'C', 'C', 'H'};
constexpr size_t kHeaderBytes = 48;
constexpr size_t kChunkBytes = size_t(4) << 20; // raw bytes per zstd frame
constexpr int kLevel = -5; // a fast level: decompression, not size, decides the reopen time
// A frame of a column that is read into a mapping of its own (takesOwnMapping) is stored as it is,
// not compressed, unless zstd at least halves it; such a frame starts at a multiple of this many
// bytes of the file (the largest page size of x86-64 and arm64 kernels), after zero bytes, so
// that its pages can be mapped into the column instead of decompressed there.
constexpr uint64_t kStoredAlignment = uint64_t(64) << 10;
// Frames compressed at once per core while writing: bounds the compressed bytes held in memory
// to about kWriteWindowPerCore * cores * kChunkBytes.
constexpr unsigned kWriteWindowPerCore = 2;

// FNV-1a over small texts (key, header, directory); each frame of column data is checked by the
// XXH64 of the bytes kept (compressed or not), in the directory (Hash64.h).
uint64_t fnv(const uint8_t* p, size_t n, uint64_t h = 1469598103934665603ull) {
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

void putU32(std::vector<uint8_t>& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
void putU64(std::vector<uint8_t>& out, uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
void putText(std::vector<uint8_t>& out, const std::string& s) {
    putU32(out, uint32_t(s.size()));
    out.insert(out.end(), s.begin(), s.end());
}

// Reads little-endian fields from a byte range; any read past the end sets `bad` and yields 0.
struct Reader {
    const uint8_t* p;
    const uint8_t* end;
    bool bad = false;
    uint64_t take(int bytes) {
        if (size_t(end - p) < size_t(bytes)) {
            bad = true;
            p = end;
            return 0;
        }
        uint64_t v = 0;
        for (int i = 0; i < bytes; ++i) v |= uint64_t(p[i]) << (8 * i);
        p += bytes;
        return v;
    }
    uint32_t u32() { return uint32_t(take(4)); }
    uint64_t u64() { return take(8); }
    std::string text() {
        const uint32_t n = u32();
        if (size_t(end - p) < n) {
            bad = true;
            p = end;
            return {};
        }
        std::string s(reinterpret_cast<const char*>(p), n);
        p += n;
        return s;
    }
};

// Sizes a column for `n` elements. A Column is left unwritten (the frames decompress into it
// next), so its pages are first touched by the decompression, in the page size advisePageSize
// chose where it is large: its allocator advised them; a large plain vector (the string pool's,
// the stats') is advised here.
template <class V> void sizeColumn(V& v, size_t n) {
    using T = typename V::value_type;
    v.clear();
    v.shrink_to_fit();
    v.reserve(n);
    if (n * sizeof(T) >= kHugePageAdviceBytes) advisePageSize(v.data(), n * sizeof(T));
    v.resize(n);
}

// One column as written: its bytes and element size, and whether it is read into a mapping of
// its own (its frames may be stored as they are).
struct ColumnOut {
    const uint8_t* data;
    size_t bytes;
    uint32_t elementSize;
    bool ownMapping;
};

// How a frame is kept in the data section (the directory says, per frame).
enum class Storage : uint32_t {
    Zstd = 0,   // a zstd frame
    Stored = 1, // the column's bytes as they are, at a multiple of kStoredAlignment of the file
};

// The zero bytes a frame stored as it is follows, at `fileOffset` of the file.
uint64_t paddingBefore(uint64_t fileOffset) {
    return (kStoredAlignment - fileOffset % kStoredAlignment) % kStoredAlignment;
}

constexpr size_t kNoRow = SIZE_MAX;

// What one frame's rows showed the checks that read a whole column (ProfileCache::ScannedRows).
struct FrameFacts {
    size_t marked = 0;              // rows marked long
    size_t firstBad = kNoRow;       // first row out of range
    size_t firstUnordered = kNoRow; // first row out of order with the row before it, in the frame
};

// One column as read: where its bytes go once sized, and, for the columns checked row by row,
// the check of a frame's rows [begin, end), run as soon as the frame is decompressed.
struct ColumnIn {
    const void* member = nullptr; // the Profile member it fills
    uint64_t bytes = 0;
    uint32_t elementSize = 0;
    uint32_t firstChunk = 0, chunkCount = 0;
    // Sizes the destination, returns its data and whether that starts a mapping of its own
    // (takesOwnMapping).
    std::function<uint8_t*(size_t elements, bool& ownMapping)> size;
    uint8_t* data = nullptr;
    bool ownMapping = false;
    std::function<FrameFacts(size_t begin, size_t end)> scan;
};

// The first of rows [begin, end) of `v` whose value is `limit` or more, or kNoRow. Runs of 64 rows
// are tested whole first (vectorised at -O2: the comparison is kept in 32 bits), then searched.
size_t firstAtLeast(const uint32_t* v, size_t begin, size_t end, uint64_t limit) {
    if (limit > UINT32_MAX) return kNoRow;
    const uint32_t least = uint32_t(limit);
    for (size_t i = begin; i < end; i += 64) {
        const size_t runEnd = std::min(end, i + 64);
        if (runEnd - i == 64) {
            uint32_t over = 0;
            for (size_t k = 0; k < 64; ++k) over |= v[i + k] >= least ? 1u : 0u;
            if (over == 0) continue;
        }
        for (size_t k = i; k < runEnd; ++k)
            if (v[k] >= least) return k;
    }
    return kNoRow;
}

struct Chunk {
    uint32_t column = 0;
    uint64_t rawOffset = 0; // within the column
    uint32_t rawBytes = 0;
    uint64_t dataOffset = 0;      // within the data section
    uint32_t compressedBytes = 0; // as kept: rawBytes where stored as it is
    Storage storage = Storage::Zstd;
    uint32_t padding = 0;  // zero bytes before it (a frame stored as it is)
    uint64_t checksum = 0; // XXH64 of the bytes kept
};

// The parts of a Profile that are not plain columns (they hold std::strings): hosts, planes and
// the time base, written field by field.
std::vector<uint8_t> encodeStructure(const std::vector<Host>& hosts,
                                     const std::vector<Plane>& planes, int64_t startNs,
                                     int64_t durationPs) {
    static_assert(sizeof(Host) == 136 && sizeof(Plane) == 112 && sizeof(DeviceInfo) == 72,
                  "Host or Plane changed: write and read their new fields here");
    std::vector<uint8_t> out;
    putU64(out, uint64_t(startNs));
    putU64(out, uint64_t(durationPs));
    putU32(out, uint32_t(hosts.size()));
    const auto putList = [&out](const std::vector<std::string>& list) {
        putU32(out, uint32_t(list.size()));
        for (const std::string& s : list) putText(out, s);
    };
    for (const Host& h : hosts) {
        putText(out, h.name);
        putText(out, h.sourcePath);
        putList(h.errors);
        putList(h.warnings);
        putList(h.hostnames);
    }
    putU32(out, uint32_t(planes.size()));
    for (const Plane& p : planes) {
        putU64(out, uint64_t(p.xplaneId));
        putU32(out, p.name);
        putU32(out, uint32_t(p.kind));
        putU32(out, uint32_t(p.deviceOrdinal));
        putU32(out, p.host);
        putU32(out, p.firstTrack);
        putU32(out, p.trackCount);
        putU32(out, p.statBegin);
        putU32(out, p.statEnd);
        putText(out, p.device.vendor);
        putU32(out, uint32_t(p.device.computeCapMajor));
        putU32(out, uint32_t(p.device.computeCapMinor));
        putU64(out, uint64_t(p.device.coreCount));
        putU64(out, uint64_t(p.device.clockRateKHz));
        putU64(out, p.device.memoryBytes);
        putU64(out, p.device.bandwidthBps);
    }
    return out;
}

bool decodeStructure(const std::vector<uint8_t>& bytes, std::vector<Host>& hosts,
                     std::vector<Plane>& planes, int64_t& startNs, int64_t& durationPs) {
    Reader r{bytes.data(), bytes.data() + bytes.size()};
    startNs = int64_t(r.u64());
    durationPs = int64_t(r.u64());
    const uint32_t hostCount = r.u32();
    const auto getList = [&r](std::vector<std::string>& list) {
        const uint32_t n = r.u32();
        for (uint32_t i = 0; i < n && !r.bad; ++i) list.push_back(r.text());
    };
    for (uint32_t i = 0; i < hostCount && !r.bad; ++i) {
        Host h;
        h.name = r.text();
        h.sourcePath = r.text();
        getList(h.errors);
        getList(h.warnings);
        getList(h.hostnames);
        hosts.push_back(std::move(h));
    }
    const uint32_t planeCount = r.u32();
    for (uint32_t i = 0; i < planeCount && !r.bad; ++i) {
        Plane p;
        p.xplaneId = int64_t(r.u64());
        p.name = r.u32();
        const uint32_t kind = r.u32();
        if (kind > uint32_t(PlaneKind::Other)) return false;
        p.kind = PlaneKind(kind);
        p.deviceOrdinal = int(r.u32());
        p.host = r.u32();
        p.firstTrack = r.u32();
        p.trackCount = r.u32();
        p.statBegin = r.u32();
        p.statEnd = r.u32();
        p.device.vendor = r.text();
        p.device.computeCapMajor = int(r.u32());
        p.device.computeCapMinor = int(r.u32());
        p.device.coreCount = int64_t(r.u64());
        p.device.clockRateKHz = int64_t(r.u64());
        p.device.memoryBytes = r.u64();
        p.device.bandwidthBps = r.u64();
        planes.push_back(std::move(p));
    }
    return !r.bad && r.p == r.end;
}

bool allZero(const uint8_t* p, size_t n) {
    return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}

// Puts a frame stored as it is (`frame`, inside `file`'s mapping) at `to`. Where `to` lies in a
// mapping of the column's own, both on page boundaries, the file's pages are mapped there
// (private: a write copies the page): nothing is copied or zeroed, and the page cache's pages are
// shared. The directory's check made the frame end on a page boundary or at the column's end, so
// its last page holds no other frame's rows. Otherwise, or if that mapping fails, the bytes are
// copied. Cache files are never rewritten in place (they are replaced by a rename), so the pages
// keep their bytes while the profile lives, even after the entry is evicted.
void placeStoredFrame(const MappedFile& file, const uint8_t* frame, uint8_t* to, size_t bytes,
                      bool ownMapping) {
    static const auto page = uintptr_t(::sysconf(_SC_PAGESIZE));
    const uint64_t at = uint64_t(frame - file.bytes().data());
    const size_t length = (bytes + page - 1) / page * page;
    // Pages larger than kStoredAlignment could reach past the frame's end: those copy.
    if (ownMapping && file.descriptor() >= 0 && page <= kStoredAlignment &&
        reinterpret_cast<uintptr_t>(to) % page == 0 && at % page == 0) {
        if (::mmap(to, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, file.descriptor(),
                   off_t(at)) != MAP_FAILED)
            return;
        // The range may have been unmapped by the failed call: fresh memory goes back first.
        if (::mmap(to, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                   0) == MAP_FAILED)
            throw std::bad_alloc();
    }
    std::memcpy(to, frame, bytes);
}

std::string hex(uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

// The first line where two keys differ, for the log.
std::string firstDifference(const std::string& want, const std::string& have) {
    size_t a = 0, b = 0;
    while (a < want.size() || b < have.size()) {
        const size_t ae = std::min(want.find('\n', a), want.size());
        const size_t be = std::min(have.find('\n', b), have.size());
        const std::string wl = want.substr(a, ae - a), hl = have.substr(b, be - b);
        if (wl != hl) return "now '" + wl + "', cached '" + hl + "'";
        a = ae + 1;
        b = be + 1;
    }
    return "keys differ";
}

} // namespace

// Every stored part of a Profile, in file order. A new member of Profile, StringPool or
// SideTable must be added here (the size checks below fail until it is) and kFormatVersion
// raised.
template <class P, class F> void ProfileCache::forEachColumn(P& p, F&& f) {
    static_assert(sizeof(Profile) == 1240, "Profile changed: add its new members to the cache");
    static_assert(sizeof(DurationColumn) == 96 && sizeof(StartColumn) == 120 &&
                      sizeof(RunColumn<int32_t>) == 48 && sizeof(CorrelationIds) == 120,
                  "a column changed: update the cache");
    static_assert(sizeof(StringPool) == 96, "StringPool changed: add its new members to the cache");
    static_assert(sizeof(SideTable<uint64_t>) == 72, "SideTable changed: update the cache");
    f(p.strings_.bytes_);
    f(p.strings_.offsets_);
    f(p.strings_.slots_);
    f(p.strings_.hashes_);
    f(p.tracks_);
    f(p.metadata_);
    f(p.start_.offset_);
    f(p.start_.blocks_);
    f(p.start_.long_.low_);
    f(p.start_.long_.blockBegin_);
    f(p.start_.long_.values_);
    f(p.duration_.narrow_);
    f(p.duration_.long_.low_);
    f(p.duration_.long_.blockBegin_);
    f(p.duration_.long_.values_);
    f(p.meta_);
    f(p.statBegin_);
    f(p.statBlob_);
    f(p.statKeys_);
    f(p.stats_);
    f(p.depthOffsets_);
    f(p.trackStarts_);
    f(p.groupIds_.first_);
    f(p.groupIds_.value_);
    f(p.correlation_.low_.low_);
    f(p.correlation_.low_.blockBegin_);
    f(p.correlation_.low_.values_);
    f(p.correlation_.high_.first_);
    f(p.correlation_.high_.value_);
    f(p.kernels_.low_);
    f(p.kernels_.blockBegin_);
    f(p.kernels_.values_);
    f(p.kernelDetails_);
    f(p.memcpys_.low_);
    f(p.memcpys_.blockBegin_);
    f(p.memcpys_.values_);
    f(p.memory_.low_);
    f(p.memory_.blockBegin_);
    f(p.memory_.values_);
    f(p.tfOps_.low_);
    f(p.tfOps_.blockBegin_);
    f(p.tfOps_.values_);
    f(p.hloOps_.low_);
    f(p.hloOps_.blockBegin_);
    f(p.hloOps_.values_);
    f(p.flows_);
    f(p.flowsByTarget_);
    f(p.shapeBegin_);
    f(p.shapeTags_);
}

ProfileCache::ProfileCache(std::string folder, std::string programVersion, uint64_t capBytes,
                           Log log)
    : folder_(std::move(folder))
    , programVersion_(std::move(programVersion))
    , capBytes_(capBytes)
    , log_(std::move(log)) {}

CacheKey ProfileCache::keyOf(const std::vector<HostFile>& hosts) const {
    CacheKey key;
    const auto now = fs::file_time_type::clock::now();
    const std::string program =
        "stepscope cache " + std::to_string(kFormatVersion) + " program " + programVersion_ + "\n";
    key.text = program; // another program's entry is stale: the same file, replaced
    for (const HostFile& h : hosts) {
        std::error_code ec;
        const fs::path path = fs::absolute(h.path, ec);
        const uintmax_t size = ec ? 0 : fs::file_size(path, ec);
        const auto mtime = ec ? fs::file_time_type{} : fs::last_write_time(path, ec);
        if (ec) {
            key.error = "cannot examine " + h.path + ": " + ec.message();
            return key;
        }
        if (mtime > now - std::chrono::seconds(kSettleSeconds) && key.unsettled.empty())
            key.unsettled = h.path + " was modified less than " + std::to_string(kSettleSeconds) +
                            " s before it was opened (it may still be changing)";
        const long long ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(mtime.time_since_epoch()).count();
        const std::string line = "host " + h.host + " path " + path.string();
        key.idText += line + "\n";
        // The path as given too: the profile keeps it (Host::sourcePath), so another spelling of
        // the same file is another profile, stale here.
        key.text += line + " given " + h.path + " size " + std::to_string(size) + " mtime_ns " +
                    std::to_string(ns) + "\n";
    }
    return key;
}

std::string ProfileCache::entryPath(const CacheKey& key) const {
    const auto* p = reinterpret_cast<const uint8_t*>(key.idText.data());
    return (fs::path(folder_) / (hex(fnv(p, key.idText.size())) + kSuffix)).string();
}

std::string ProfileCache::store(const CacheKey& key, const Profile& profile) const {
    std::string error = write(key, profile);
    // Unsettled sources are expected (a profile opened right after it was written): no problem.
    if (!error.empty()) log(key.unsettled.empty(), "cache: not written: " + error);
    return error;
}

std::string ProfileCache::write(const CacheKey& key, const Profile& profile) const {
    if (!key.ok()) return key.error.empty() ? "no cache key" : key.error;
    if (!key.unsettled.empty()) return key.unsettled;
    const auto started = std::chrono::steady_clock::now();

    const std::vector<uint8_t> structure =
        encodeStructure(profile.hosts_, profile.planes_, profile.startNs_, profile.durationPs_);
    std::vector<ColumnOut> columns;
    const auto add = [&columns](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        using T = typename V::value_type;
        static_assert(std::is_trivially_copyable_v<T>);
        const size_t bytes = v.size() * sizeof(T);
        // A column is read back sized to its rows, so it takes a mapping of its own then if a
        // vector of its type that size does.
        columns.push_back({reinterpret_cast<const uint8_t*>(v.data()), bytes, uint32_t(sizeof(T)),
                           takesOwnMapping<V>(bytes)});
    };
    add(structure);
    forEachColumn(profile, add);

    std::vector<Chunk> chunks;
    std::vector<uint32_t> firstChunk;
    for (uint32_t c = 0; c < columns.size(); ++c) {
        firstChunk.push_back(uint32_t(chunks.size()));
        for (size_t off = 0; off < columns[c].bytes; off += kChunkBytes)
            chunks.push_back({c, off, uint32_t(std::min(kChunkBytes, columns[c].bytes - off))});
    }
    firstChunk.push_back(uint32_t(chunks.size()));

    // The directory's size is known before compression (16 bytes a column, 20 a frame), so the file
    // is written in one pass: room for header, key and directory, then the frames in order as
    // each window of them is compressed on every core; header and directory go into the room at
    // the end. Only one window of compressed frames is held at a time (not the whole entry).
    const size_t directoryBytes = 4 + 16 * columns.size() + 20 * chunks.size();
    const uint64_t prefixBytes = kHeaderBytes + key.text.size() + directoryBytes;
    if (prefixBytes > capBytes_)
        return "the cache entry would take more than the cache's cap of " +
               std::to_string(capBytes_) + " bytes";

    std::error_code ec;
    fs::create_directories(folder_, ec);
    if (ec) return "cannot create the cache folder " + folder_ + ": " + ec.message();
    const std::string path = entryPath(key);
    static std::atomic<uint64_t> counter{0};
    const std::string temp =
        path + ".tmp" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    std::FILE* f = std::fopen(temp.c_str(), "wb");
    if (!f) return "cannot write " + temp + ": " + std::strerror(errno);
    const auto fail = [&](const std::string& why) {
        std::fclose(f);
        fs::remove(temp, ec);
        return why;
    };
    if (std::fseek(f, long(prefixBytes), SEEK_SET) != 0)
        return fail("cannot write " + temp + ": " + std::strerror(errno));

    const unsigned threads = availableCores();
    const size_t window = size_t(kWriteWindowPerCore) * threads;
    std::vector<std::vector<uint8_t>> frames(std::min(window, chunks.size()));
    std::vector<std::string> errors(frames.size());
    std::vector<uint32_t> frameBytes(chunks.size());
    uint64_t dataBytes = 0;
    for (size_t first = 0; first < chunks.size(); first += window) {
        const size_t count = std::min(window, chunks.size() - first);
        try {
            parallelFor(count, threads, [&](size_t k) {
                const std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> context(ZSTD_createCCtx(),
                                                                                 ZSTD_freeCCtx);
                ZSTD_CCtx* cctx = context.get();
                if (!cctx) throw std::bad_alloc();
                // No content checksum in the frame: the directory keeps one of the compressed
                // bytes, half as many to hash when the entry is read.
                ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, kLevel);
                Chunk& ch = chunks[first + k];
                std::vector<uint8_t>& out = frames[k];
                out.resize(ZSTD_compressBound(ch.rawBytes));
                const uint8_t* raw = columns[ch.column].data + ch.rawOffset;
                const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), raw, ch.rawBytes);
                if (ZSTD_isError(n)) {
                    errors[k] = ZSTD_getErrorName(n);
                } else if (columns[ch.column].ownMapping && n > ch.rawBytes / 2) {
                    out.clear();
                    ch.storage = Storage::Stored;
                    ch.checksum = xxh64(raw, ch.rawBytes);
                } else {
                    out.resize(n);
                    ch.checksum = xxh64(out.data(), n);
                }
            });
        } catch (const std::bad_alloc&) {
            return fail("not enough memory to compress the cache");
        } catch (const std::exception& e) {
            return fail(std::string("cannot compress the cache: ") + e.what());
        }
        for (size_t k = 0; k < count; ++k) {
            if (!errors[k].empty()) return fail("cannot compress the cache: " + errors[k]);
            const Chunk& ch = chunks[first + k];
            const bool stored = ch.storage == Storage::Stored;
            const uint8_t* bytes =
                stored ? columns[ch.column].data + ch.rawOffset : frames[k].data();
            const size_t size = stored ? ch.rawBytes : frames[k].size();
            const std::vector<uint8_t> zeros(stored ? paddingBefore(prefixBytes + dataBytes) : 0);
            frameBytes[first + k] = uint32_t(size);
            dataBytes += zeros.size() + size;
            if (prefixBytes + dataBytes > capBytes_)
                return fail("the cache entry would take more than the cache's cap of " +
                            std::to_string(capBytes_) + " bytes");
            if (std::fwrite(zeros.data(), 1, zeros.size(), f) != zeros.size() ||
                std::fwrite(bytes, 1, size, f) != size)
                return fail("cannot write " + temp + ": " + std::strerror(errno));
        }
    }

    std::vector<uint8_t> directory;
    putU32(directory, uint32_t(columns.size()));
    for (uint32_t c = 0; c < columns.size(); ++c) {
        putU64(directory, columns[c].bytes);
        putU32(directory, columns[c].elementSize);
        putU32(directory, firstChunk[c + 1] - firstChunk[c]);
        for (uint32_t i = firstChunk[c]; i < firstChunk[c + 1]; ++i) {
            putU32(directory, chunks[i].rawBytes);
            putU32(directory, frameBytes[i]);
            putU32(directory, uint32_t(chunks[i].storage));
            putU64(directory, chunks[i].checksum);
        }
    }

    std::vector<uint8_t> header(kMagic, kMagic + sizeof kMagic);
    putU32(header, kFormatVersion);
    putU32(header, 0);
    putU64(header, key.text.size());
    putU64(header, directory.size());
    putU64(header, dataBytes);
    uint64_t sum = fnv(header.data(), header.size());
    sum = fnv(reinterpret_cast<const uint8_t*>(key.text.data()), key.text.size(), sum);
    sum = fnv(directory.data(), directory.size(), sum);
    putU64(header, sum);
    const uint64_t total = prefixBytes + dataBytes;

    bool ok = std::fseek(f, 0, SEEK_SET) == 0 &&
              std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
              std::fwrite(key.text.data(), 1, key.text.size(), f) == key.text.size() &&
              std::fwrite(directory.data(), 1, directory.size(), f) == directory.size();
    const int writeErrno = errno;
    ok = (std::fclose(f) == 0) && ok;
    if (!ok) {
        fs::remove(temp, ec);
        return "cannot write " + temp + ": " + std::strerror(writeErrno);
    }
    fs::rename(temp, path, ec);
    if (ec) {
        fs::remove(temp, ec);
        return "cannot replace " + path + ": " + ec.message();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    log(false, "cache: wrote " + path + " (" + std::to_string(profile.eventCount()) + " events, " +
                   std::to_string(total) + " bytes, " + std::to_string(seconds) + " s)");
    evict(path);
    return {};
}

std::unique_ptr<Profile> ProfileCache::load(const CacheKey& key, const Progress* progress) const {
    if (!key.ok()) return nullptr;
    const std::string path = entryPath(key);
    std::error_code ec;
    if (!fs::exists(path, ec)) return nullptr; // a plain miss
    const auto ignore = [&](const std::string& why) -> std::unique_ptr<Profile> {
        log(true, "cache: ignoring " + path + ": " + why);
        return nullptr;
    };

    MappedFile file(path);
    if (!file.error().empty()) return ignore(file.error());
    const std::span<const uint8_t> bytes = file.bytes();
    if (bytes.size() < kHeaderBytes)
        return ignore("truncated: " + std::to_string(bytes.size()) + " bytes, shorter than the " +
                      std::to_string(kHeaderBytes) + "-byte header");
    if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        return ignore("not a Stepscope cache file (wrong magic)");
    Reader h{bytes.data() + sizeof kMagic, bytes.data() + kHeaderBytes};
    const uint32_t version = h.u32();
    if (version != kFormatVersion)
        return ignore("written in cache format version " + std::to_string(version) +
                      ", this program reads version " + std::to_string(kFormatVersion));
    h.u32();
    const uint64_t keyBytes = h.u64(), directoryBytes = h.u64(), dataBytes = h.u64();
    const uint64_t checksum = h.u64();
    const uint64_t rest = bytes.size() - kHeaderBytes;
    if (keyBytes > rest || directoryBytes > rest - keyBytes ||
        dataBytes != rest - keyBytes - directoryBytes)
        return ignore("truncated or padded: the header announces " +
                      std::to_string(kHeaderBytes + keyBytes + directoryBytes + dataBytes) +
                      " bytes, the file has " + std::to_string(bytes.size()));
    const uint8_t* keyAt = bytes.data() + kHeaderBytes;
    const uint8_t* dirAt = keyAt + keyBytes;
    const uint8_t* dataAt = dirAt + directoryBytes;
    uint64_t sum = fnv(bytes.data(), kHeaderBytes - 8);
    sum = fnv(keyAt, keyBytes, sum);
    sum = fnv(dirAt, directoryBytes, sum);
    if (sum != checksum) return ignore("corrupt: the header checksum does not match");
    const std::string storedKey(reinterpret_cast<const char*>(keyAt), keyBytes);
    if (storedKey != key.text)
        return ignore("stale: the sources changed since it was written (" +
                      firstDifference(key.text, storedKey) + ")");

    auto profile = std::make_unique<Profile>();
    std::vector<uint8_t> structure;
    std::vector<ColumnIn> columns;
    const auto want = [&columns](auto& v) {
        using V = std::decay_t<decltype(v)>;
        using T = typename V::value_type;
        ColumnIn c;
        c.member = &v;
        c.elementSize = sizeof(T);
        c.size = [&v](size_t n, bool& ownMapping) {
            sizeColumn(v, n);
            // Sized from empty, the vector's capacity is its size: all of its mapping is rows.
            ownMapping = v.capacity() == n && takesOwnMapping<V>(n * sizeof(T));
            return reinterpret_cast<uint8_t*>(v.data());
        };
        columns.push_back(std::move(c));
    };
    want(structure);
    forEachColumn(*profile, want);

    Reader d{dirAt, dataAt};
    if (d.u32() != columns.size()) return ignore("corrupt: wrong number of columns");
    std::vector<Chunk> chunks;
    uint64_t dataOffset = 0;
    for (uint32_t c = 0; c < columns.size(); ++c) {
        ColumnIn& col = columns[c];
        col.bytes = d.u64();
        const uint32_t elementSize = d.u32();
        col.chunkCount = d.u32();
        col.firstChunk = uint32_t(chunks.size());
        if (d.bad || elementSize != col.elementSize || col.bytes % elementSize != 0 ||
            col.chunkCount > directoryBytes)
            return ignore("corrupt: column " + std::to_string(c) + " is malformed");
        uint64_t raw = 0;
        // Every frame kept in a known way. A stored one is as long as its part of the column,
        // not empty, and starts on a boundary of kStoredAlignment in the column too, and ends on
        // one or at the column's end: the pages mapped for it then hold no other frame's rows.
        bool kept = true;
        for (uint32_t i = 0; i < col.chunkCount && !d.bad; ++i) {
            Chunk ch;
            ch.column = c;
            ch.rawOffset = raw;
            ch.rawBytes = d.u32();
            ch.compressedBytes = d.u32();
            const uint32_t storage = d.u32();
            ch.checksum = d.u64();
            ch.storage = Storage(storage);
            if (ch.storage == Storage::Stored) {
                kept = kept && ch.compressedBytes == ch.rawBytes && ch.rawBytes > 0 &&
                       raw % kStoredAlignment == 0 &&
                       (ch.rawBytes % kStoredAlignment == 0 || raw + ch.rawBytes == col.bytes);
                ch.padding = uint32_t(paddingBefore(uint64_t(dataAt - bytes.data()) + dataOffset));
                dataOffset += ch.padding;
            } else {
                kept = kept && ch.storage == Storage::Zstd;
            }
            ch.dataOffset = dataOffset;
            raw += ch.rawBytes;
            dataOffset += ch.compressedBytes;
            chunks.push_back(ch);
        }
        if (!kept) return ignore("corrupt: column " + std::to_string(c) + " is malformed");
        if (d.bad || raw != col.bytes || dataOffset > dataBytes)
            return ignore("corrupt: column " + std::to_string(c) + "'s frames do not add up");
    }
    if (d.p != d.end || dataOffset != dataBytes)
        return ignore("corrupt: the directory does not match the data");

    // The columns checked row by row are checked frame by frame as they are decompressed, while
    // their rows are in cache; their frames must hold whole rows. Limits come from the directory
    // (the columns are sized from it).
    Profile& p = *profile;
    const auto column = [&columns](const void* member) -> ColumnIn& {
        return *std::find_if(columns.begin(), columns.end(),
                             [member](const ColumnIn& c) { return c.member == member; });
    };
    const uint64_t events = column(&p.meta_).bytes / sizeof(uint32_t);
    const uint64_t metadataCount = column(&p.metadata_).bytes / sizeof(EventMetadata);
    const uint64_t statBytes = column(&p.statBlob_).bytes;
    column(&p.duration_.narrow_).scan = [&p](size_t b, size_t e) {
        return FrameFacts{p.duration_.markedRows(b, e)};
    };
    column(&p.start_.offset_).scan = [&p](size_t b, size_t e) {
        return FrameFacts{p.start_.markedRows(b, e)};
    };
    column(&p.meta_).scan = [&p, metadataCount](size_t b, size_t e) {
        return FrameFacts{0, firstAtLeast(p.meta_.data(), b, e, metadataCount)};
    };
    column(&p.statBegin_).scan = [&p, statBytes](size_t b, size_t e) {
        return FrameFacts{0, firstAtLeast(p.statBegin_.data(), b, e, statBytes)};
    };
    column(&p.flows_).scan = [&p, events](size_t b, size_t e) {
        FrameFacts f;
        for (size_t i = b; i < e; ++i) {
            const Flow& flow = p.flows_[i];
            if (f.firstBad == kNoRow && (flow.launch >= events || flow.target >= events))
                f.firstBad = i;
            if (f.firstUnordered == kNoRow && i > b && flowByLaunch(flow, p.flows_[i - 1]))
                f.firstUnordered = i;
        }
        return f;
    };
    for (uint32_t c = 0; c < columns.size(); ++c) {
        const ColumnIn& col = columns[c];
        if (!col.scan) continue;
        for (uint32_t i = col.firstChunk; i < col.firstChunk + col.chunkCount; ++i)
            if (chunks[i].rawOffset % col.elementSize != 0 ||
                chunks[i].rawBytes % col.elementSize != 0)
                return ignore("corrupt: a frame of column " + std::to_string(c) +
                              " does not hold whole rows");
    }

    // Size every column (in parallel: first touch of the memory is a large part of the time),
    // then decompress every frame straight into its column.
    std::vector<size_t> order(columns.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&columns](size_t a, size_t b) { return columns[a].bytes > columns[b].bytes; });
    std::vector<std::string> errors(chunks.size());
    std::vector<FrameFacts> facts(chunks.size());
    std::atomic<size_t> done{0};
    try {
        parallelFor(order.size(), 0, [&](size_t i) {
            ColumnIn& col = columns[order[i]];
            col.data = col.size(col.bytes / col.elementSize, col.ownMapping);
        });
        const std::thread::id caller = std::this_thread::get_id();
        parallelFor(chunks.size(), 0, [&](size_t i) {
            if (progress && progress->cancelled()) return;
            // One context per thread, not per frame (creating one allocates and first touches its
            // window); parallelFor's workers end with the load, the caller's thread keeps its own.
            thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> context(nullptr,
                                                                                    ZSTD_freeDCtx);
            if (!context) context.reset(ZSTD_createDCtx());
            ZSTD_DCtx* dctx = context.get();
            if (!dctx) throw std::bad_alloc();
            const Chunk& ch = chunks[i];
            const uint8_t* frame = dataAt + ch.dataOffset;
            const auto refuse = [&](const std::string& why) {
                errors[i] = "corrupt: a frame of column " + std::to_string(ch.column) + why;
            };
            if (ch.padding && !allZero(frame - ch.padding, ch.padding)) {
                refuse(" follows bytes that are not zeros");
            } else if (xxh64(frame, ch.compressedBytes) != ch.checksum) {
                refuse(" does not match its checksum");
            } else if (ch.storage == Storage::Stored) {
                const ColumnIn& col = columns[ch.column];
                placeStoredFrame(file, frame, col.data + ch.rawOffset, ch.rawBytes, col.ownMapping);
                if (col.scan)
                    facts[i] = col.scan(ch.rawOffset / col.elementSize,
                                        (ch.rawOffset + ch.rawBytes) / col.elementSize);
            } else {
                const size_t n = ZSTD_decompressDCtx(dctx, columns[ch.column].data + ch.rawOffset,
                                                     ch.rawBytes, frame, ch.compressedBytes);
                if (ZSTD_isError(n))
                    refuse(std::string(" does not decompress (") + ZSTD_getErrorName(n) + ")");
                else if (n != ch.rawBytes)
                    refuse(" holds the wrong number of bytes");
                else if (const ColumnIn& col = columns[ch.column]; col.scan)
                    facts[i] = col.scan(ch.rawOffset / col.elementSize,
                                        (ch.rawOffset + ch.rawBytes) / col.elementSize);
            }
            const size_t finished = ++done;
            if (progress && std::this_thread::get_id() == caller)
                progress->report("Reading the cache", double(finished) / double(chunks.size()));
        });
    } catch (const std::bad_alloc&) {
        return ignore("not enough memory to read it");
    } catch (const std::exception& e) {
        return ignore(std::string("cannot read it: ") + e.what());
    }
    if (progress && progress->cancelled()) return nullptr;
    for (const std::string& e : errors)
        if (!e.empty()) return ignore(e);
    if (file.shrunk()) return ignore("truncated: the file shrank while it was read");

    if (!decodeStructure(structure, profile->hosts_, profile->planes_, profile->startNs_,
                         profile->durationPs_))
        return ignore("corrupt: the host and plane list is malformed");
    // The frames' findings, column by column; the flows' order is checked across the frames'
    // edges here.
    ScannedRows scanned;
    for (size_t i = 0; i < chunks.size(); ++i) {
        const void* member = columns[chunks[i].column].member;
        const FrameFacts& f = facts[i];
        if (member == &p.duration_.narrow_) scanned.longDurations += f.marked;
        if (member == &p.start_.offset_) scanned.longStarts += f.marked;
        if (member == &p.meta_ || member == &p.statBegin_)
            scanned.firstBadEvent = std::min(scanned.firstBadEvent, f.firstBad);
        if (member == &p.flows_) {
            const size_t first = chunks[i].rawOffset / sizeof(Flow);
            scanned.flowsInRange = scanned.flowsInRange && f.firstBad == kNoRow;
            // An empty frame may sit at the column's end (first == size): no row to compare.
            scanned.flowsByLaunch = scanned.flowsByLaunch && f.firstUnordered == kNoRow &&
                                    (first == 0 || first >= p.flows_.size() ||
                                     !flowByLaunch(p.flows_[first], p.flows_[first - 1]));
        }
    }
    std::string why;
    try {
        why = checkProfile(*profile, scanned, progress);
    } catch (const std::exception& e) { // bad_alloc, from a check's worker
        return ignore(std::string("cannot check it: ") + e.what());
    }
    if (progress && progress->cancelled()) return nullptr;
    if (!why.empty()) return ignore("inconsistent: " + why);
    // Recently used entries are the last to be evicted.
    fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
    return profile;
}

void ProfileCache::evict(const std::string& keep) const {
    struct Entry {
        fs::path path;
        uintmax_t bytes;
        fs::file_time_type used;
    };
    std::vector<Entry> entries;
    uint64_t total = 0;
    std::error_code ec;
    for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path& path = it->path();
        if (path.extension() != kSuffix || !it->is_regular_file(ec)) continue;
        const uintmax_t bytes = it->file_size(ec);
        const auto used = it->last_write_time(ec);
        if (ec) continue;
        entries.push_back({path, bytes, used});
        total += bytes;
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.used < b.used; });
    for (const Entry& e : entries) {
        if (total <= capBytes_) break;
        if (e.path == keep) continue;
        if (fs::remove(e.path, ec)) {
            total -= e.bytes;
            log(false, "cache: evicted " + e.path.string() + " (" + std::to_string(e.bytes) +
                           " bytes; the cache is capped at " + std::to_string(capBytes_) + ")");
        }
    }
}

ProfileCache::Info ProfileCache::info() const {
    Info info;
    std::error_code ec;
    for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().extension() != kSuffix || !it->is_regular_file(ec)) continue;
        ++info.entries;
        info.bytes += it->file_size(ec);
    }
    return info;
}

std::string ProfileCache::clear() const {
    std::error_code ec;
    if (!fs::exists(folder_, ec)) return {};
    std::vector<fs::path> doomed;
    for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.ends_with(kSuffix) ||
            name.find(std::string(kSuffix) + ".tmp") != std::string::npos)
            doomed.push_back(it->path());
    }
    if (ec) return "cannot list the cache folder " + folder_ + ": " + ec.message();
    for (const fs::path& path : doomed) {
        fs::remove(path, ec);
        if (ec) return "cannot remove " + path.string() + ": " + ec.message();
    }
    return {};
}

CachedLoad loadHostsCached(const std::vector<HostFile>& hosts, const ProfileCache* cache,
                           const Progress* progress) {
    CachedLoad out;
    if (cache) {
        out.key = cache->keyOf(hosts);
        if (std::unique_ptr<Profile> p = cache->load(out.key, progress)) {
            out.result.profile = std::move(p);
            out.fromCache = true;
            return out;
        }
        if (progress && progress->cancelled()) {
            out.result.cancelled = true;
            out.result.error = "loading was cancelled";
            return out;
        }
    }
    out.result = loadHosts(hosts, progress);
    return out;
}

} // namespace stepscope
