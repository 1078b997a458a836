#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/LogDir.h"
#include "model/Profile.h"
#include "model/ProfileLoader.h"
#include "model/Progress.h"

namespace stepscope {

// What a cache entry stands for: the host files it was loaded from (host name, path, size,
// modification time of each), the program that loaded them and the cache format version.
// Taken before the sources are read, so a file that changes during the load leaves an entry
// that the next open finds stale.
struct CacheKey {
    std::string text;   // one line per host plus the program line; compared whole on reading
    std::string idText; // the part that names the entry: host names and paths only
    std::string error;  // set when a source file could not be examined; the key is then unusable
    // A source modified less than kSettleSeconds before the key was taken: it may still be
    // changing, and a rewrite within the file system's timestamp granularity could keep its size
    // and time, so such a load is not cached (as git treats "racily clean" files). Empty if none.
    std::string unsettled;
    bool ok() const { return error.empty() && !text.empty(); }
};

// A folder of columnar snapshots of loaded profiles, so that reopening a large profile costs
// little more than reading its columns back.
//
// One file per set of host files (named by a hash of their paths): a 48-byte header (magic,
// format version, section sizes, a checksum of header, key and directory), the key text, the
// column directory, then every column of the Profile (events, stats, strings, side tables,
// flows, ...) split into frames of 4 MiB, each an independent zstd frame or, for the Columns of
// 2 MiB and up that zstd does not halve, the bytes as they are on a 64 KiB boundary of the file,
// which reading maps into the column (copy on write) instead of copying; the directory keeps each
// frame's XXH64. Reading validates all of it and the profile's internal consistency; a file that
// is truncated, corrupt, of another format version or for sources that changed since is ignored
// with a log line, and the next store() replaces it. Frames are compressed and decompressed on
// every core. The folder is kept under a size cap by removing the least recently used entries.
//
// The folder is a parameter (the app passes QStandardPaths' cache location). Thread-safe: the
// methods keep no state besides the constructor's arguments.
class ProfileCache {
public:
    // `problem` is true for entries that were ignored or could not be written, false for
    // entries written or evicted.
    using Log = std::function<void(bool problem, const std::string& line)>;
    // 2: KernelDetails::hasSharedMemory; Kineto kernels carry op_input_types and, without launch
    // geometry, an empty kernel_details (entries of version 1 lack both). 3: durations in 4
    // bytes with the long ones aside, step ids by runs, the flows' target order as indices, side
    // tables' events in 2 bytes per entry. 4: a correlation table's high halves as runs over its
    // entries, from entry 0. 5: starts in 4 bytes, by blocks of 128 rows (StartColumn). 6: each
    // frame checked by an XXH64 of its compressed bytes in the directory, not by zstd's checksum.
    // 7: frames of the large columns that zstd does not halve are stored as they are, page
    // aligned, and mapped into the columns when read; each frame says how it is kept. 8: event
    // stat lists name their shape, a sequence of keys and types kept once (StatList.h).
    static constexpr uint32_t kFormatVersion = 8;
    static constexpr int kSettleSeconds = 2;
    static constexpr uint64_t kDefaultCapBytes = uint64_t(4) << 30; // 4 GiB
    static constexpr const char* kSuffix = ".stc";

    // `programVersion` goes into every key, so another build's entries are not used. `log`
    // receives one line per ignored, written or evicted entry (default: nothing).
    ProfileCache(std::string folder, std::string programVersion,
                 uint64_t capBytes = kDefaultCapBytes, Log log = {});

    const std::string& folder() const { return folder_; }

    // The key of these host files as they are now on disk.
    CacheKey keyOf(const std::vector<HostFile>& hosts) const;
    // The entry file that holds (or would hold) a key.
    std::string entryPath(const CacheKey& key) const;

    // The cached profile for `key`, or null when there is none or it cannot be used (logged,
    // except for a plain miss). Cancelling through `progress` returns null.
    std::unique_ptr<Profile> load(const CacheKey& key, const Progress* progress = nullptr) const;
    // Writes the entry for `key` (atomically: a reader sees the old file or the new one), then
    // removes the least recently used entries while the folder is above the cap. Returns why
    // nothing was written (also logged), empty on success. A key with unsettled sources is not
    // written.
    std::string store(const CacheKey& key, const Profile& profile) const;

    struct Info {
        size_t entries = 0;
        uint64_t bytes = 0;
    };
    Info info() const;
    // Removes every entry (and any temporary file an interrupted store left). Returns an error
    // message, empty on success; a missing folder is already clear.
    std::string clear() const;

private:
    void log(bool problem, const std::string& line) const {
        if (log_) log_(problem, line);
    }
    std::string write(const CacheKey& key, const Profile& profile) const;
    void evict(const std::string& keep) const;
    template <class P, class F> static void forEachColumn(P& profile, F&& f);
    // What reading the frames found in the columns that are checked row by row, counted frame
    // by frame while each frame's rows were still in the processor's cache (load()).
    struct ScannedRows {
        size_t longDurations = 0, longStarts = 0; // rows marked long in either narrow column
        size_t firstBadEvent = SIZE_MAX;          // metadata index or stat list offset out of range
        bool flowsInRange = true;                 // every flow's launch and target is an event
        bool flowsByLaunch = true;                // the flows run by launch
    };
    // Empty if the profile is consistent, else the first failure; empty too, and early, once
    // `progress` is cancelled.
    static std::string checkProfile(const Profile& p, const ScannedRows& scanned,
                                    const Progress* progress);

    std::string folder_;
    std::string programVersion_;
    uint64_t capBytes_;
    Log log_;
};

// Loads host files through a cache: the cached profile when a valid entry exists, otherwise
// loadHosts(). `fromCache` tells which. A null cache loads the sources. The caller stores a
// freshly loaded profile with cache->store(key, profile) when it suits it (the app does it in
// the background after the first paint).
struct CachedLoad {
    LoadResult result;
    CacheKey key;
    bool fromCache = false;
};
CachedLoad loadHostsCached(const std::vector<HostFile>& hosts, const ProfileCache* cache,
                           const Progress* progress = nullptr);

} // namespace stepscope
