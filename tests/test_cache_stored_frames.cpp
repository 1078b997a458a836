// The profile cache's stored frames (format 7): the frames of large columns that zstd does not at
// least halve are kept as they are, each after the zeros that put it on a 64 KiB boundary of the
// file, and reading maps the file's pages into the columns instead of copying them. On a profile
// large enough for columns of their own mapping (2 MiB and up): which frames are stored, by the
// rule worked out here with zstd itself; the file's pages are what the columns show (the entry is
// mapped while the profile lives, not after); the profile reads equal to the source, also after
// the entry is removed from the cache while it is open, and reading leaves the file as it was.
// Damage only a stored frame can have is refused: a zero before it changed, a byte of it changed, a
// size that is not its rows' size, a storage code the format does not define, a frame that does not
// start on a 64 KiB boundary of its column or end on one or at the column's end (its mapped pages
// would cover another frame's rows), an empty one. Stored frames in columns that have no mapping of
// their own are copied, and read equal.
#include <QtTest>

#include <QTemporaryDir>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>

#include <zstd.h>

#include "model/ProfileCache.h"
#include "model/ProfileLoader.h"
#include "tests/fixtures/CacheEntryFile.h"
#include "tests/fixtures/CacheFolder.h"
#include "tests/fixtures/CompareProfiles.h"
#include "tests/fixtures/SettledSyntheticHost.h"

using namespace stepscope;
using namespace stepscope::testing;

namespace {

// Enough events for the columns of 4 bytes an event to take two frames of 4 MiB (the second one
// partial) and a mapping of their own (2 MiB and up).
constexpr uint64_t kEvents = 1200000;
constexpr uint64_t kOwnMappingBytes = uint64_t(2) << 20;
constexpr size_t kFrameBytes = size_t(4) << 20;

// The columns that are plain vectors, whatever their size: no mapping of their own, so never
// stored (CacheEntryFile.h names the directory's columns; a member added to Profile fails a
// static_assert in ProfileCache.cpp until the cache, and then this list, is revisited): the
// structure, the string pool, the
// tracks, the metadata, the stat keys and stats, the depth offsets and track starts, the kernel
// details and every side table's run starts (blockBegin_).
constexpr size_t kPlainColumns[] = {0,  1,  2,  3,  4,  5,  6,  10, 14, 19,
                                    20, 21, 22, 26, 31, 33, 35, 38, 41, 44};

// The lines of /proc/self/maps that map `path` (the kernel shows it resolved: no symbolic links).
size_t mappingsOf(const std::string& path) {
    std::ifstream maps("/proc/self/maps");
    size_t n = 0;
    for (std::string line; std::getline(maps, line);)
        if (line.size() >= path.size() &&
            line.compare(line.size() - path.size(), path.size(), path) == 0)
            ++n;
    return n;
}

// The zstd frame the cache would write for `bytes` (level -5, no content checksum).
size_t compressedSize(const uint8_t* bytes, size_t size) {
    std::vector<uint8_t> frame(ZSTD_compressBound(size));
    const std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, -5);
    const size_t n = ZSTD_compress2(cctx.get(), frame.data(), frame.size(), bytes, size);
    return ZSTD_isError(n) ? SIZE_MAX : n;
}

} // namespace

class TestCacheStoredFrames : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        root_ = dir_.path().toStdString();
        QCOMPARE(writeSettledSyntheticHost(root_, kEvents, hosts_, 1), std::string());
        source_ = loadHosts(hosts_);
        QVERIFY2(source_.ok(), source_.error.c_str());
    }

    // Which frames are stored: a frame of a column of 2 MiB or more that is not a plain vector
    // is stored exactly where zstd at level -5 leaves it above half its size (the start offsets
    // and narrow durations, which do not compress, and not the events' metadata indices, which
    // do); other columns are always compressed. Each stored frame follows zeros up to a 64 KiB
    // boundary of the file.
    void largeIncompressibleFramesAreStored() {
        const ProfileCache cache(root_ + "/c-which", "test");
        const CacheKey key = cache.keyOf(hosts_);
        QCOMPARE(cache.store(key, *source_.profile), std::string());
        const std::vector<uint8_t> file = readBytes(cache.entryPath(key));
        CacheEntry entry;
        parseEntry(file, entry); // checks the zeros and the 64 KiB boundaries
        if (QTest::currentTestFailed()) return;
        QCOMPARE(entry.columns.size(), kColumnCount);
        size_t stored = 0;
        for (size_t c = 0; c < entry.columns.size(); ++c) {
            const EntryColumn& col = entry.columns[c];
            for (size_t i = 0; i < col.frames.size(); ++i) {
                const bool isStored = col.storage[i] == kStoredFrame;
                QVERIFY(col.storage[i] == kZstdFrame || isStored);
                const std::string where =
                    "column " + std::to_string(c) + " frame " + std::to_string(i);
                const bool plain = std::find(std::begin(kPlainColumns), std::end(kPlainColumns),
                                             c) != std::end(kPlainColumns);
                if (plain || col.bytes < kOwnMappingBytes) {
                    QVERIFY2(!isStored, where.c_str());
                    continue;
                }
                if (!isStored) {
                    QVERIFY2(col.frames[i].size() <= col.rawBytes[i] / 2, where.c_str());
                    continue;
                }
                ++stored;
                QCOMPARE(col.frames[i].size(), size_t(col.rawBytes[i]));
                QVERIFY2(compressedSize(col.frames[i].data(), col.frames[i].size()) >
                             col.rawBytes[i] / 2,
                         where.c_str());
            }
        }
        for (size_t c : {kStartOffsetColumn, kNarrowDurationColumn}) {
            const EntryColumn& col = entry.columns[c];
            QCOMPARE(col.bytes, uint64_t(4 * source_.profile->eventCount()));
            QCOMPARE(col.frames.size(), size_t(2));
            QVERIFY(std::all_of(col.storage.begin(), col.storage.end(),
                                [](uint32_t s) { return s == kStoredFrame; }));
        }
        QVERIFY(entry.columns[kMetaColumn].bytes >= kOwnMappingBytes);
        QCOMPARE(entry.columns[kMetaColumn].storage.front(), kZstdFrame);
        QVERIFY(stored >= 4);
    }

    // The stored frames are mapped from the entry while the profile lives (and no longer once it
    // is gone); the profile equals the source, also once the entry is removed; the file keeps
    // its bytes.
    void storedFramesAreMappedIntoTheColumns() {
        const ProfileCache cache(root_ + "/c-map", "test");
        const CacheKey key = cache.keyOf(hosts_);
        QCOMPARE(cache.store(key, *source_.profile), std::string());
        const std::string path = std::filesystem::canonical(cache.entryPath(key)).string();
        const std::vector<uint8_t> before = readBytes(path);
        {
            std::unique_ptr<Profile> read = cache.load(key);
            QVERIFY(read);
            // The whole file was mapped while it was read, and unmapped after: what remains
            // are the columns' mappings.
            QVERIFY(mappingsOf(path) >= 1);
            compareProfiles(*source_.profile, *read);
            if (QTest::currentTestFailed()) return;
            QCOMPARE(cache.clear(), std::string());
            QVERIFY(!std::filesystem::exists(path));
            compareProfiles(*source_.profile, *read);
            if (QTest::currentTestFailed()) return;
        }
        QCOMPARE(mappingsOf(path), size_t(0));
        QCOMPARE(mappingsOf(path + " (deleted)"), size_t(0));

        // Written again, the same bytes; read and closed, still the same bytes.
        QCOMPARE(cache.store(key, *source_.profile), std::string());
        QCOMPARE(readBytes(path), before);
        {
            const std::unique_ptr<Profile> read = cache.load(key);
            QVERIFY(read);
            QVERIFY(mappingsOf(path) >= 1);
        }
        QCOMPARE(mappingsOf(path), size_t(0));
        QCOMPARE(readBytes(path), before);
    }

    // What only a stored frame can get wrong is refused with a log line: a zero before it
    // changed, a byte of it changed, a size other than its rows', a storage code the format does
    // not define. The entry as parsed and put together again reads equal to the source.
    void damagedStoredFramesAreRefused() {
        LogLines log;
        const ProfileCache cache(root_ + "/c-damage", "test", ProfileCache::kDefaultCapBytes,
                                 log.sink());
        const CacheKey key = cache.keyOf(hosts_);
        QCOMPARE(cache.store(key, *source_.profile), std::string());
        const std::string path = cache.entryPath(key);
        const std::vector<uint8_t> good = readBytes(path);
        CacheEntry entry;
        parseEntry(good, entry);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(assembleEntry(entry), good); // the fixture writes what the cache writes

        // The first stored frame that zeros precede: its column, and where it starts in the file.
        size_t column = 0, frame = 0, at = 0;
        for (size_t c = 0; c < entry.columns.size() && at == 0; ++c)
            for (size_t i = 0; i < entry.columns[c].frames.size() && at == 0; ++i)
                if (entry.columns[c].storage[i] == kStoredFrame && entry.columns[c].zeros[i] > 0) {
                    column = c;
                    frame = i;
                    at = entry.columns[c].offsets[i];
                }
        QVERIFY(at > 0);
        QCOMPARE(at % kStoredAlignment, uint64_t(0));
        QCOMPARE(good[at - 1], uint8_t(0));
        const EntryColumn& stored = entry.columns[column];
        const auto refused = [&](const std::vector<uint8_t>& bytes, const std::string& why) {
            writeBytes(path, bytes);
            const size_t lines = log.lines.size();
            QVERIFY2(!cache.load(key), why.c_str());
            QCOMPARE(log.lines.size(), lines + 1);
            QVERIFY2(log.last().find(why) != std::string::npos, log.last().c_str());
        };
        const std::string frameOf = "a frame of column " + std::to_string(column);
        for (size_t zero : {size_t(1), size_t(stored.zeros[frame])}) {
            std::vector<uint8_t> bad = good;
            bad[at - zero] = 1;
            refused(bad, frameOf + " follows bytes that are not zeros");
        }
        for (size_t offset : {size_t(0), size_t(stored.rawBytes[frame] - 1)}) {
            std::vector<uint8_t> bad = good;
            bad[at + offset] ^= 0x10;
            refused(bad, frameOf + " does not match its checksum");
        }
        CacheEntry shorter = entry;
        shorter.columns[column].frames[frame].pop_back();
        refused(assembleEntry(shorter), "column " + std::to_string(column) + " is malformed");
        CacheEntry unknown = entry;
        unknown.columns[column].storage[frame] = 2;
        refused(assembleEntry(unknown), "column " + std::to_string(column) + " is malformed");

        // Frames of 4 MiB less 4 bytes, the first one stored: its last page would hold rows of
        // the next frame. The same frames with the second one stored: it ends the column but
        // starts off a boundary. Then an empty stored frame at the column's start.
        const std::vector<uint8_t> rows = columnBytes(stored);
        QCOMPARE(rows.size(), size_t(stored.bytes));
        QVERIFY(rows.size() > kFrameBytes);
        CacheEntry uneven = entry;
        EntryColumn& cut = uneven.columns[column];
        setColumnBytes(cut, rows.data(), rows.size(), kFrameBytes - 4);
        cut.frames[0].assign(rows.begin(), rows.begin() + long(kFrameBytes - 4));
        cut.storage[0] = kStoredFrame;
        refused(assembleEntry(uneven), "column " + std::to_string(column) + " is malformed");
        CacheEntry offBoundary = entry;
        EntryColumn& late = offBoundary.columns[column];
        setColumnBytes(late, rows.data(), rows.size(), kFrameBytes - 4);
        QCOMPARE(late.frames.size(), size_t(2));
        late.frames[1].assign(rows.begin() + long(kFrameBytes - 4), rows.end());
        late.storage[1] = kStoredFrame;
        refused(assembleEntry(offBoundary), "column " + std::to_string(column) + " is malformed");
        CacheEntry empty = entry;
        EntryColumn& first = empty.columns[column];
        first.rawBytes.insert(first.rawBytes.begin(), 0);
        first.storage.insert(first.storage.begin(), kStoredFrame);
        first.frames.insert(first.frames.begin(), std::vector<uint8_t>());
        refused(assembleEntry(empty), "column " + std::to_string(column) + " is malformed");

        // Stored frames in a plain vector (the stat keys) and in a column too small for a mapping
        // of its own (the kernels' event numbers) are copied: read equal to the source.
        CacheEntry copied = entry;
        for (size_t c : {kStatKeysColumn, kKernelLowColumn}) {
            EntryColumn& col = copied.columns[c];
            QVERIFY(col.bytes > 0 && col.bytes < kOwnMappingBytes);
            const std::vector<uint8_t> bytes = columnBytes(col);
            QCOMPARE(bytes.size(), size_t(col.bytes));
            col.rawBytes = {uint32_t(bytes.size())};
            col.storage = {kStoredFrame};
            col.frames = {bytes};
        }
        writeBytes(path, assembleEntry(copied));
        {
            const std::unique_ptr<Profile> read = cache.load(key);
            QVERIFY(read);
            compareProfiles(*source_.profile, *read);
            if (QTest::currentTestFailed()) return;
        }

        writeBytes(path, assembleEntry(entry));
        const std::unique_ptr<Profile> read = cache.load(key);
        QVERIFY(read);
        compareProfiles(*source_.profile, *read);
    }

private:
    QTemporaryDir dir_;
    std::string root_;
    std::vector<HostFile> hosts_;
    LoadResult source_;
};

QTEST_GUILESS_MAIN(TestCacheStoredFrames)
#include "test_cache_stored_frames.moc"
