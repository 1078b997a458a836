// Cache entries crafted column by column (tests/fixtures/CacheEntryFile.h): the file as written
// (frames in order, each under the XXH64 the directory gives), and entries whose frames and
// header are sound but whose columns contradict each other, refused by the structural check with
// its reason; the checks done frame by frame as the entry is read; stat lists that do not parse,
// read up to their first bad entry.
#include <QtTest>

#include <QTemporaryDir>

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>

#include <zstd.h>

#include "model/Hash64.h"
#include "model/ProfileBuilder.h"
#include "model/ProfileCache.h"
#include "model/ProfileLoader.h"
#include "tests/fixtures/CacheEntryFile.h"
#include "tests/fixtures/CacheFolder.h"
#include "tests/fixtures/CompareProfiles.h"
#include "tests/fixtures/SettledSyntheticHost.h"

using namespace stepscope;
using namespace stepscope::testing;

namespace {

// What zstd keeps as a frame's content checksum of `size` bytes: the low 32 bits of their XXH64,
// the last 4 bytes (little-endian) of a frame written with the checksum flag on.
uint32_t zstdChecksumOf(const uint8_t* bytes, size_t size) {
    std::vector<uint8_t> frame(ZSTD_compressBound(size));
    const std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
    const size_t n = ZSTD_compress2(cctx.get(), frame.data(), frame.size(), bytes, size);
    if (ZSTD_isError(n) || n < 4) return 0;
    uint32_t sum = 0;
    for (int i = 0; i < 4; ++i) sum |= uint32_t(frame[n - 4 + size_t(i)]) << (8 * i);
    return sum;
}

// A profile loaded from host files and stored in a cache that logs to `log`, its entry's file
// and that file taken apart (by store()).
struct StoredEntry {
    LogLines log;
    ProfileCache cache;
    CacheKey key;
    LoadResult source;
    std::vector<uint8_t> file;
    CacheEntry entry;
    StoredEntry(const std::string& folder, const std::vector<HostFile>& hosts)
        : cache(folder, "test", ProfileCache::kDefaultCapBytes, log.sink())
        , key(cache.keyOf(hosts))
        , source(loadHosts(hosts)) {}
    void store() {
        QVERIFY2(source.ok(), source.error.c_str());
        QCOMPARE(cache.store(key, *source.profile), std::string());
        file = readBytes(cache.entryPath(key));
        parseEntry(file, entry);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(entry.columns.size(), kColumnCount);
    }
};

// Writes `entry` as the cache's file for `key` and loads it: refused, with one log line that
// gives `why` as the reason.
void expectRefused(const ProfileCache& cache, const CacheKey& key, LogLines& log,
                   const CacheEntry& entry, const std::string& why) {
    const std::string path = cache.entryPath(key);
    writeBytes(path, assembleEntry(entry));
    const size_t before = log.lines.size();
    QVERIFY2(!cache.load(key), ("read although " + why).c_str());
    QCOMPARE(log.lines.size(), before + 1);
    QVERIFY(log.lines.back().first);
    const std::string want = "cache: ignoring " + path + ": inconsistent: " + why;
    QVERIFY2(log.last() == want, ("logged '" + log.last() + "', expected '" + want + "'").c_str());
}

// Writes `entry` as the cache's file for `key` and loads it: read, and equal to `source`.
void expectRead(const ProfileCache& cache, const CacheKey& key, const CacheEntry& entry,
                const Profile& source) {
    writeBytes(cache.entryPath(key), assembleEntry(entry));
    const std::unique_ptr<Profile> read = cache.load(key);
    QVERIFY(read);
    compareProfiles(source, *read);
}

} // namespace

class TestCacheEntries : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        root_ = dir_.path().toStdString();
        QCOMPARE(writeSettledSyntheticHost(root_, 30000, hosts_, 2), std::string());
    }

    // The frames' checksum is XXH64: the published values of "", "a" and "abc", and zstd's own
    // (32-bit) checksum of every length from 0 to 300 bytes and of 1 MiB, which takes each of the
    // function's paths (32-byte stripes, 8- and 4-byte words, single bytes), at every alignment.
    void frameChecksumIsXxh64() {
        QCOMPARE(xxh64(nullptr, 0), uint64_t(0xEF46DB3751D8E999ull));
        const auto text = [](const char* t) {
            return xxh64(reinterpret_cast<const uint8_t*>(t), std::strlen(t));
        };
        QCOMPARE(text("a"), uint64_t(0xD24EC4F1A98C6E5Bull));
        QCOMPARE(text("abc"), uint64_t(0x44BC2CF5AD770999ull));
        std::vector<uint8_t> bytes((size_t(1) << 20) + 8);
        uint64_t state = 0x9E3779B97F4A7C15ull;
        for (uint8_t& b : bytes) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            b = uint8_t(state >> 56);
        }
        for (size_t size = 0; size <= 300; ++size) {
            const uint8_t* p = bytes.data() + size % 8;
            QVERIFY2(uint32_t(xxh64(p, size)) == zstdChecksumOf(p, size),
                     qPrintable(QString("%1 bytes").arg(size)));
        }
        QCOMPARE(uint32_t(xxh64(bytes.data(), size_t(1) << 20)),
                 zstdChecksumOf(bytes.data(), size_t(1) << 20));
    }

    // Entries whose frames and header checksum are sound but whose columns contradict each other
    // are refused by the cache's structural check, with its reason in the log line: an event's
    // metadata index or stat list offset out of range ("event N"), a flow's launch or target past
    // the events ("flows"), a flow order index past the flows ("flow order"), a kernel's index past
    // its details ("kernel details"); with two problems, the one the check reports first (events
    // before flows). Each edited column rewritten unchanged, a metadata index at the largest valid
    // value, and the entry as written are read.
    void inconsistentColumnsAreRefused() {
        StoredEntry stored(root_ + "/c-inconsistent", hosts_);
        stored.store();
        if (QTest::currentTestFailed()) return;
        LogLines& log = stored.log;
        const ProfileCache& cache = stored.cache;
        const CacheKey& key = stored.key;
        const Profile& p = *stored.source.profile;
        const CacheEntry& entry = stored.entry;

        // The index list above still matches forEachColumn: the edited columns have the element
        // size, length and values of the profile's.
        const size_t n = p.eventCount();
        const size_t flows = p.flows().size();
        const size_t kernels = p.kernels().size();
        QVERIFY(n > 1000 && flows > 0 && kernels > 0 && !p.kernelDetailsTable().empty());
        for (size_t c : {kMetaColumn, kStatBeginColumn, kKernelValuesColumn, kFlowsByTargetColumn})
            QCOMPARE(entry.columns[c].elementSize, uint32_t(sizeof(uint32_t)));
        QCOMPARE(entry.columns[kFlowsColumn].elementSize, uint32_t(2 * sizeof(uint32_t)));
        QCOMPARE(entry.columns[kStatBlobColumn].elementSize, uint32_t(1));
        QCOMPARE(entry.columns[kMetaColumn].bytes, uint64_t(4 * n));
        QCOMPARE(entry.columns[kStatBeginColumn].bytes, uint64_t(4 * n));
        QCOMPARE(entry.columns[kKernelValuesColumn].bytes, uint64_t(4 * kernels));
        QCOMPARE(entry.columns[kFlowsColumn].bytes, uint64_t(8 * flows));
        QCOMPARE(entry.columns[kFlowsByTargetColumn].bytes, uint64_t(4 * flows));
        const std::vector<uint32_t> meta = columnValues<uint32_t>(entry.columns[kMetaColumn]);
        QVERIFY(std::equal(meta.begin(), meta.end(), p.metadataColumn().begin(),
                           p.metadataColumn().end()));
        const std::vector<uint32_t> kernelValues =
            columnValues<uint32_t>(entry.columns[kKernelValuesColumn]);
        QVERIFY(std::equal(kernelValues.begin(), kernelValues.end(), p.kernels().values().begin(),
                           p.kernels().values().end()));
        const std::vector<Flow> flowValues = columnValues<Flow>(entry.columns[kFlowsColumn]);
        QVERIFY(std::equal(flowValues.begin(), flowValues.end(), p.flows().begin(), p.flows().end(),
                           [](const Flow& a, const Flow& b) {
                               return a.launch == b.launch && a.target == b.target;
                           }));
        const uint32_t metadataCount = uint32_t(p.metadata().size());
        const uint32_t statBlobBytes = uint32_t(entry.columns[kStatBlobColumn].bytes);

        // Rewritten unchanged (one frame per column): read, equal to the source.
        for (size_t c :
             {kMetaColumn, kStatBeginColumn, kKernelValuesColumn, kFlowsByTargetColumn}) {
            expectRead(cache, key, edited<uint32_t>(entry, c, [](std::vector<uint32_t>&) {}), p);
            if (QTest::currentTestFailed()) return;
        }
        expectRead(cache, key, edited<Flow>(entry, kFlowsColumn, [](std::vector<Flow>&) {}), p);
        if (QTest::currentTestFailed()) return;

        // A duration marked long that the table of long durations does not hold.
        QCOMPARE(entry.columns[kNarrowDurationColumn].bytes, uint64_t(4 * n));
        expectRefused(cache, key, log,
                      edited<uint32_t>(entry, kNarrowDurationColumn,
                                       [](std::vector<uint32_t>& v) {
                                           auto firstShort =
                                               std::find_if(v.begin(), v.end(), [](uint32_t d) {
                                                   return d != DurationColumn::kLong;
                                               });
                                           if (firstShort != v.end())
                                               *firstShort = DurationColumn::kLong;
                                       }),
                      "long durations");
        if (QTest::currentTestFailed()) return;

        // A start marked long that the table of long starts does not hold, and a block whose
        // unit is none of 1, 1000 and 1000000 ps.
        // A block record is 16 bytes (an int64 base, an int64 unit), one per 128 events; the
        // marker of a long start is 0xFFFFFFFF.
        QCOMPARE(entry.columns[kStartOffsetColumn].bytes, uint64_t(4 * n));
        QCOMPARE(entry.columns[kStartBlockColumn].elementSize, uint32_t(16));
        QCOMPARE(entry.columns[kStartBlockColumn].bytes, uint64_t(16 * ((n + 127) / 128)));
        expectRefused(
            cache, key, log,
            edited<uint32_t>(entry, kStartOffsetColumn,
                             [](std::vector<uint32_t>& v) { v[v.size() / 2] = 0xFFFFFFFFu; }),
            "start blocks");
        if (QTest::currentTestFailed()) return;
        expectRefused(cache, key, log,
                      edited<StartColumn::Block>(
                          entry, kStartBlockColumn,
                          [](std::vector<StartColumn::Block>& v) { v.back().unit = 7; }),
                      "start blocks");
        if (QTest::currentTestFailed()) return;

        // A flow whose launch differs from the first's, and a place in the target order where
        // the target changes (the profile has both: checked).
        size_t firstOtherLaunch = 1;
        while (firstOtherLaunch < flows &&
               p.flows()[firstOtherLaunch].launch == p.flows()[0].launch)
            ++firstOtherLaunch;
        const std::vector<uint32_t> byTarget =
            columnValues<uint32_t>(entry.columns[kFlowsByTargetColumn]);
        size_t targetStep = 0;
        while (targetStep + 1 < flows &&
               p.flows()[byTarget[targetStep]].target == p.flows()[byTarget[targetStep + 1]].target)
            ++targetStep;
        QVERIFY(firstOtherLaunch < flows && targetStep + 1 < flows && kernels > 1);
        QCOMPARE(entry.columns[kKernelLowColumn].elementSize, uint32_t(sizeof(uint16_t)));
        QCOMPARE(entry.columns[kKernelLowColumn].bytes, uint64_t(2 * kernels));

        // The synthetic profile's stat lists have several shapes, each of one tag or more; the
        // middle tag of the shape table is edited.
        const uint32_t keys = uint32_t(entry.columns[kStatKeysColumn].bytes / sizeof(StringId));
        const std::vector<uint32_t> shapeBegin =
            columnValues<uint32_t>(entry.columns[kShapeBeginColumn]);
        QVERIFY(shapeBegin.size() > 4 && shapeBegin[2] < shapeBegin[3]);
        const auto editedTag = [&entry](auto edit) {
            return edited<uint32_t>(entry, kShapeTagsColumn,
                                    [&edit](std::vector<uint32_t>& v) { edit(v[v.size() / 2]); });
        };

        const size_t e = n / 2 + 1;
        const auto badMeta = [e, metadataCount](std::vector<uint32_t>& v) { v[e] = metadataCount; };
        const struct {
            CacheEntry entry;
            std::string why;
        } cases[] = {
            {edited<uint32_t>(entry, kMetaColumn, badMeta), "event " + std::to_string(e)},
            {edited<uint32_t>(
                 entry, kMetaColumn,
                 [n, metadataCount](std::vector<uint32_t>& v) { v[n - 1] = metadataCount; }),
             "event " + std::to_string(n - 1)},
            {edited<uint32_t>(entry, kStatBeginColumn,
                              [statBlobBytes](std::vector<uint32_t>& v) { v[7] = statBlobBytes; }),
             "event 7"},
            {edited<Flow>(entry, kFlowsColumn,
                          [n](std::vector<Flow>& v) { v.back().target = uint32_t(n); }),
             "flows"},
            {edited<Flow>(entry, kFlowsColumn,
                          [n](std::vector<Flow>& v) { v.front().launch = uint32_t(n); }),
             "flows"},
            {edited<uint32_t>(entry, kFlowsByTargetColumn,
                              [flows](std::vector<uint32_t>& v) { v[0] = uint32_t(flows); }),
             "flow order"},
            {edited<uint32_t>(entry, kKernelValuesColumn,
                              [&p](std::vector<uint32_t>& v) {
                                  v[v.size() / 2] = uint32_t(p.kernelDetailsTable().size());
                              }),
             "kernel details"},
            // Two kernels' events swapped: the table is no longer in event order.
            {edited<uint16_t>(entry, kKernelLowColumn,
                              [](std::vector<uint16_t>& v) { std::swap(v[0], v[1]); }),
             "side table of kernels"},
            // Two flows of different launches swapped: no longer in launch order.
            {edited<Flow>(entry, kFlowsColumn,
                          [firstOtherLaunch](std::vector<Flow>& v) {
                              std::swap(v[0], v[firstOtherLaunch]);
                          }),
             "flow order"},
            // A flow listed twice in the target order (and another not at all).
            {edited<uint32_t>(entry, kFlowsByTargetColumn,
                              [](std::vector<uint32_t>& v) { v[1] = v[0]; }),
             "flow order"},
            // Two neighbours of different targets swapped in the target order.
            {edited<uint32_t>(entry, kFlowsByTargetColumn,
                              [targetStep](std::vector<uint32_t>& v) {
                                  std::swap(v[targetStep], v[targetStep + 1]);
                              }),
             "flow order"},
            {edited<Flow>(edited<uint32_t>(entry, kMetaColumn, badMeta), kFlowsColumn,
                          [n](std::vector<Flow>& v) { v.back().target = uint32_t(n); }),
             "event " + std::to_string(e)},
            // The stat bytes must begin with the empty list that events without stats share.
            {edited<uint8_t>(entry, kStatBlobColumn, [](std::vector<uint8_t>& v) { v[0] = 1; }),
             "stat lists"},
            // A shape's tag naming a key past the key table, key 0, or type 6 or 7 (no StatType);
            // shape 0 with a tag; shapes that go back; a last shape that ends short of the tags.
            {editedTag([keys](uint32_t& t) { t = keys << 3 | (t & 7); }), "stat list shapes"},
            {editedTag([](uint32_t& t) { t &= 7; }), "stat list shapes"},
            {editedTag([](uint32_t& t) { t = (t & ~7u) | 6; }), "stat list shapes"},
            {editedTag([](uint32_t& t) { t |= 7; }), "stat list shapes"},
            {edited<uint32_t>(entry, kShapeBeginColumn, [](std::vector<uint32_t>& v) { v[1] = 1; }),
             "stat list shapes"},
            {edited<uint32_t>(entry, kShapeBeginColumn,
                              [](std::vector<uint32_t>& v) { std::swap(v[2], v[3]); }),
             "stat list shapes"},
            {edited<uint32_t>(entry, kShapeBeginColumn,
                              [](std::vector<uint32_t>& v) { v.back() -= 1; }),
             "stat list shapes"},
        };
        for (const auto& c : cases) {
            expectRefused(cache, key, log, c.entry, c.why);
            if (QTest::currentTestFailed()) return;
        }

        // The largest valid metadata index is read as it was written.
        writeBytes(cache.entryPath(key),
                   assembleEntry(edited<uint32_t>(entry, kMetaColumn,
                                                  [e, metadataCount](std::vector<uint32_t>& v) {
                                                      v[e] = metadataCount - 1;
                                                  })));
        const std::unique_ptr<Profile> last = cache.load(key);
        QVERIFY(last);
        QCOMPARE(last->metadataOf(EventIndex(e)), metadataCount - 1);

        writeBytes(cache.entryPath(key), stored.file);
        const std::unique_ptr<Profile> read = cache.load(key);
        QVERIFY(read);
        compareProfiles(p, *read);
    }

    // The columns checked row by row (narrow durations and starts, events' metadata and stat
    // offsets, flows) are checked frame by frame as the entry is read. Here they are cut into
    // small frames (the cache writes 4 MiB ones): unchanged, they are read (also with an empty
    // frame at the end of the flows); a flow order broken
    // exactly at a frame's edge, which neither frame shows alone, is refused; of a bad metadata
    // index in a late frame and a bad stat offset in an early one, the earlier event is named;
    // a duration marked long in the last frame is counted; a frame that cuts a row is refused.
    void rowChecksSpanFrames() {
        StoredEntry s(root_ + "/c-frames", hosts_);
        s.store();
        if (QTest::currentTestFailed()) return;
        const Profile& p = *s.source.profile;
        const CacheEntry& entry = s.entry;
        const size_t n = p.eventCount(), flows = p.flows().size();
        constexpr size_t kFrame = 4096; // bytes: 1024 events, 512 flows
        QVERIFY(n > 4 * 1024 && flows > 3 * 512);

        const auto same = [](auto&) {};
        CacheEntry small = entry;
        for (size_t c : {kNarrowDurationColumn, kStartOffsetColumn, kMetaColumn, kStatBeginColumn})
            small = edited<uint32_t>(small, c, same, kFrame);
        small = edited<Flow>(small, kFlowsColumn, same, kFrame);
        QVERIFY(small.columns[kMetaColumn].frames.size() > 4);
        expectRead(s.cache, s.key, small, p);
        if (QTest::currentTestFailed()) return;
        // An empty frame after the last flow (the writer makes none; a file may): read as well.
        CacheEntry trailing = small;
        EntryColumn& flowColumn = trailing.columns[kFlowsColumn];
        EntryColumn empty;
        setColumnBytes(empty, nullptr, 0);
        flowColumn.rawBytes.push_back(0);
        flowColumn.storage.push_back(kZstdFrame);
        flowColumn.frames.push_back(empty.frames.front());
        expectRead(s.cache, s.key, trailing, p);
        if (QTest::currentTestFailed()) return;

        // Flows `edge - 1` and `edge` have different launches; frames of `edge` flows put a frame
        // edge between them. Swapped, each frame is still in launch order; the target order
        // list is swapped to match, so that only the launch order across the edge is broken.
        size_t edge = 2;
        while (edge < flows && p.flows()[edge].launch == p.flows()[edge - 1].launch) ++edge;
        QVERIFY(edge < flows);
        const auto swapFlows = [edge](std::vector<Flow>& v) { std::swap(v[edge - 1], v[edge]); };
        const auto swapListed = [edge](std::vector<uint32_t>& v) {
            for (uint32_t& f : v)
                f = f == edge ? uint32_t(edge - 1) : f == edge - 1 ? uint32_t(edge) : f;
        };
        expectRefused(s.cache, s.key, s.log,
                      edited<Flow>(edited<uint32_t>(entry, kFlowsByTargetColumn, swapListed),
                                   kFlowsColumn, swapFlows, edge * sizeof(Flow)),
                      "flow order");
        if (QTest::currentTestFailed()) return;

        const uint32_t metadataCount = uint32_t(p.metadata().size());
        const uint32_t statBlobBytes = uint32_t(entry.columns[kStatBlobColumn].bytes);
        const size_t early = 5, late = n - 2;
        const auto metaBadAt = [metadataCount](size_t e) {
            return [e, metadataCount](std::vector<uint32_t>& v) { v[e] = metadataCount; };
        };
        const auto statBadAt = [statBlobBytes](size_t e) {
            return [e, statBlobBytes](std::vector<uint32_t>& v) { v[e] = statBlobBytes; };
        };
        for (const auto& [metaAt, statAt] : {std::pair{late, early}, std::pair{early, late}}) {
            expectRefused(
                s.cache, s.key, s.log,
                edited<uint32_t>(edited<uint32_t>(small, kMetaColumn, metaBadAt(metaAt), kFrame),
                                 kStatBeginColumn, statBadAt(statAt), kFrame),
                "event " + std::to_string(early));
            if (QTest::currentTestFailed()) return;
        }
        expectRefused(s.cache, s.key, s.log,
                      edited<uint32_t>(small, kMetaColumn, metaBadAt(late), kFrame),
                      "event " + std::to_string(late));
        if (QTest::currentTestFailed()) return;
        expectRefused(s.cache, s.key, s.log,
                      edited<uint32_t>(
                          small, kNarrowDurationColumn,
                          [](std::vector<uint32_t>& v) {
                              auto lastShort = std::find_if(v.rbegin(), v.rend(), [](uint32_t d) {
                                  return d != DurationColumn::kLong;
                              });
                              *lastShort = DurationColumn::kLong;
                          },
                          kFrame),
                      "long durations");
        if (QTest::currentTestFailed()) return;

        // Frames of 6 bytes split the 4-byte metadata indices.
        writeBytes(s.cache.entryPath(s.key),
                   assembleEntry(edited<uint32_t>(entry, kMetaColumn, same, 6)));
        const size_t before = s.log.lines.size();
        QVERIFY(!s.cache.load(s.key));
        QCOMPARE(s.log.lines.size(), before + 1);
        const std::string want = "cache: ignoring " + s.cache.entryPath(s.key) +
                                 ": corrupt: a frame of column " + std::to_string(kMetaColumn) +
                                 " does not hold whole rows";
        QVERIFY2(s.log.last() == want, ("logged '" + s.log.last() + "'").c_str());
    }

    // Stat lists are written as StatList.h describes, here worked out by hand: each list its
    // shape's number and then its values, shapes numbered in the order first seen, the empty list
    // at byte 0 for the event without stats. Read back from the entry, they are the stats added.
    void statListsAreWrittenByShape() {
        ProfileBuilder b;
        const uint32_t plane = b.addPlane(b.addHost("h", "h.xplane.pb"), 1, "/host:CPU");
        const uint32_t track = b.addTrack(plane, 1, "thread");
        const uint32_t meta = b.addMetadata(plane, 1, "op", {});
        const uint32_t a = b.statKey(b.intern("a")), k = b.statKey(b.intern("b"));
        QCOMPARE(a, uint32_t(1));
        QCOMPARE(k, uint32_t(2));
        const StringId x = b.intern("x");
        QVERIFY(x < 0x80);
        const double half = 1.5;
        b.addEvent(track, 0, 5, meta);
        b.addEventStat(a, StatType::Int64, uint64_t(int64_t(-2)));
        b.addEventStat(k, StatType::Str, x);
        b.addEvent(track, 10, 5, meta);
        b.addEvent(track, 20, 5, meta);
        b.addEventStat(a, StatType::Int64, 300);
        b.addEventStat(k, StatType::Str, x);
        b.addEvent(track, 30, 5, meta);
        b.addEventStat(k, StatType::Str, x);
        b.addEventStat(a, StatType::Double, std::bit_cast<uint64_t>(half));
        const std::unique_ptr<Profile> built = b.finish();
        QVERIFY(built);

        LogLines log;
        ProfileCache cache(root_ + "/c-shapes", "test", ProfileCache::kDefaultCapBytes, log.sink());
        const CacheKey key = cache.keyOf(hosts_);
        QCOMPARE(cache.store(key, *built), std::string());
        CacheEntry entry;
        parseEntry(readBytes(cache.entryPath(key)), entry);
        if (QTest::currentTestFailed()) return;
        // zigzag(-2) = 3; zigzag(300) = 600 = 0x258, as a varint 0xD8 0x04; 1.5 is 0x3FF8 << 48.
        const uint8_t x8 = uint8_t(x);
        const std::vector<uint8_t> blob{0,  1, 3, x8, 1, 0xD8, 0x04, x8,   2,
                                        x8, 0, 0, 0,  0, 0,    0,    0xF8, 0x3F};
        QCOMPARE(columnValues<uint8_t>(entry.columns[kStatBlobColumn]), blob);
        QCOMPARE(columnValues<uint32_t>(entry.columns[kStatBeginColumn]),
                 (std::vector<uint32_t>{1, 0, 4, 8}));
        QCOMPARE(columnValues<uint32_t>(entry.columns[kShapeBeginColumn]),
                 (std::vector<uint32_t>{0, 0, 2, 4}));
        // Tags: key << 3 | type, with Int64 0, Double 2, Str 3.
        QCOMPARE(columnValues<uint32_t>(entry.columns[kShapeTagsColumn]),
                 (std::vector<uint32_t>{8, 19, 19, 10}));

        const std::unique_ptr<Profile> read = cache.load(key);
        QVERIFY(read);
        compareProfiles(*built, *read);
        std::vector<StatValue> last;
        for (const StatValue& v : read->eventStats(3)) last.push_back(v);
        QCOMPARE(last.size(), size_t(2));
        QCOMPARE(read->str(last[0].key), std::string_view("b"));
        QCOMPARE(last[0].asString(), x);
        QCOMPARE(read->str(last[1].key), std::string_view("a"));
        QCOMPARE(last[1].asDouble(), 1.5);
        QVERIFY(read->eventStats(1).empty());
        QCOMPARE(read->findStat(2, "a")->asInt(), int64_t(300));
    }

    // Event 7's stat list replaced by one written here by hand, placed after the others, of a
    // shape added here to the end of the shape table. The cache does not parse every list when it
    // opens an entry; the lists are read within bounds instead (StatList.h): a list whose shape is
    // not in the table reads as empty, one that names a string the pool does not have or runs off
    // the end of the bytes reads as its values before the first malformed one, and the entry still
    // opens. Well-formed lists, up to the last key and string, are read as written.
    void malformedStatListsReadUpToTheirFirstBadValue() {
        StoredEntry stored(root_ + "/c-statlists", hosts_);
        stored.store();
        if (QTest::currentTestFailed()) return;
        const CacheEntry& entry = stored.entry;
        const std::vector<uint32_t> keyNames =
            columnValues<uint32_t>(entry.columns[kStatKeysColumn]);
        const uint32_t keys = uint32_t(keyNames.size());
        const uint32_t strings = uint32_t(stored.source.profile->strings().size());
        QVERIFY(keys > 2 && strings > 2);
        QCOMPARE(entry.columns[kStatKeysColumn].elementSize, uint32_t(sizeof(StringId)));
        const uint64_t blobBytes = entry.columns[kStatBlobColumn].bytes;
        const std::vector<uint32_t> shapeBegin =
            columnValues<uint32_t>(entry.columns[kShapeBeginColumn]);
        const uint32_t shapes = uint32_t(shapeBegin.size() - 1);

        // The shapes added, numbered from `shapes` on; a tag is keyIndex << 3 | type.
        const auto tag = [](uint32_t key, StatType type) { return key << 3 | uint32_t(type); };
        const std::vector<std::vector<uint32_t>> added = {
            {tag(1, StatType::Str)},
            {tag(2, StatType::Ref)},
            {tag(1, StatType::Double)},
            {tag(1, StatType::Uint64)},
            {tag(1, StatType::Int64), tag(keys - 1, StatType::Int64)},
            {tag(1, StatType::Int64), tag(1, StatType::Str)},
            {tag(keys - 1, StatType::Int64), tag(1, StatType::Str)},
        };
        const auto varint = [](uint64_t v) {
            std::vector<uint8_t> out;
            for (; v >= 0x80; v >>= 7) out.push_back(uint8_t(v) | 0x80);
            out.push_back(uint8_t(v));
            return out;
        };
        const auto list = [&](std::initializer_list<std::vector<uint8_t>> parts) {
            std::vector<uint8_t> out;
            for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
            return out;
        };
        const auto withList = [&](const std::vector<uint8_t>& bytes) {
            CacheEntry out = edited<uint8_t>(entry, kStatBlobColumn, [&](std::vector<uint8_t>& v) {
                v.insert(v.end(), bytes.begin(), bytes.end());
            });
            out = edited<uint32_t>(out, kStatBeginColumn,
                                   [&](std::vector<uint32_t>& v) { v[7] = uint32_t(blobBytes); });
            out = edited<uint32_t>(out, kShapeTagsColumn, [&](std::vector<uint32_t>& v) {
                for (const auto& shape : added) v.insert(v.end(), shape.begin(), shape.end());
            });
            return edited<uint32_t>(out, kShapeBeginColumn, [&](std::vector<uint32_t>& v) {
                for (const auto& shape : added) v.push_back(v.back() + uint32_t(shape.size()));
            });
        };
        const auto statsOf7 = [&](const std::vector<uint8_t>& bytes) {
            writeBytes(stored.cache.entryPath(stored.key), assembleEntry(withList(bytes)));
            std::vector<StatValue> stats;
            const std::unique_ptr<Profile> read = stored.cache.load(stored.key);
            if (!read) return std::optional<std::vector<StatValue>>();
            for (const StatValue& v : read->eventStats(7)) stats.push_back(v);
            // The events around it read as they were stored.
            for (EventIndex e : {EventIndex(6), EventIndex(8)}) {
                compareEventStats(*stored.source.profile, *read, e);
                if (QTest::currentTestFailed()) return std::optional<std::vector<StatValue>>();
            }
            return std::optional<std::vector<StatValue>>(std::move(stats));
        };
        const auto shape = [&](uint32_t k) { return varint(shapes + k); };
        struct Case {
            std::vector<uint8_t> bytes;
            size_t entriesRead;
            int64_t firstValue = 0; // of the one entry read: key 1, an Int64
            bool cutByTheEnd = false;
        };
        const Case cases[] = {
            {varint(shapes + added.size()), 0},                         // a shape past the table
            {varint(uint64_t(1) << 40), 0},                             // and far past it
            {list({std::vector<uint8_t>(10, 0x80), {1}}), 0},           // a shape of 11 bytes
            {list({shape(0), varint(strings)}), 0},                     // a string the pool lacks
            {list({shape(1), varint(uint64_t(1) << 40)}), 0},           // and far past it
            {list({shape(2), {0, 0, 0}}), 0, 0, true},                  // 8 bytes wanted, 3 left
            {list({shape(3), std::vector<uint8_t>(10, 0x80), {1}}), 0}, // a value of 11 bytes
            {list({shape(4), {0x80, 0x80, 0}}), 1, 0, true},            // no second value
            {list({shape(5), {2}, varint(strings)}), 1, 1},             // the second one
        };
        // Each list at the very end of the stat bytes and, but for the two cut by the end,
        // followed by 32 zero bytes. (A varint with fewer than 10 bytes ahead is read checking
        // every byte against the end, one with more checking only its length.)
        for (const Case& c : cases)
            for (size_t padding : {size_t(0), size_t(32)}) {
                if (padding && c.cutByTheEnd) continue;
                std::vector<uint8_t> bytes = c.bytes;
                bytes.resize(bytes.size() + padding, 0);
                const auto stats = statsOf7(bytes);
                QVERIFY(stats);
                QCOMPARE(stats->size(), c.entriesRead);
                if (c.entriesRead == 1) {
                    QCOMPARE((*stats)[0].key, keyNames[1]);
                    QVERIFY((*stats)[0].type == StatType::Int64);
                    QCOMPARE((*stats)[0].asInt(), c.firstValue);
                }
            }

        // The last key and the last string: read back as written (zigzag 3 is -2).
        const auto stats = statsOf7(list({shape(6), {3}, varint(strings - 1)}));
        QVERIFY(stats);
        QCOMPARE(stats->size(), size_t(2));
        QCOMPARE((*stats)[0].key, keyNames[keys - 1]);
        QCOMPARE((*stats)[0].asInt(), int64_t(-2));
        QCOMPARE((*stats)[1].key, keyNames[1]);
        QVERIFY((*stats)[1].type == StatType::Str);
        QCOMPARE((*stats)[1].asString(), StringId(strings - 1));
    }

    // The per-event check runs in slices of 2^21 events. On a profile of more than 2^21 events a
    // bad metadata index in the second slice is found, at its first event and at the profile's
    // last; of two bad events in different slices the lower is reported, also when the higher is
    // the first event its slice reads and the lower the last of its own.
    void inconsistentEventPastFirstSliceIsRefused() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string root = dir.path().toStdString();
        QElapsedTimer timer;
        timer.start();
        std::vector<HostFile> hosts;
        QCOMPARE(testing::writeSettledSyntheticHost(root, 2200000, hosts), std::string());
        const double generated = double(timer.restart()) / 1e3;
        StoredEntry stored(root + "/cache", hosts);
        const double loaded = double(timer.restart()) / 1e3;
        stored.store();
        if (QTest::currentTestFailed()) return;
        qInfo("%zu events: generated in %.2f s, loaded in %.2f s, stored and taken apart in %.2f s",
              stored.source.profile->eventCount(), generated, loaded,
              double(timer.elapsed()) / 1e3);
        LogLines& log = stored.log;
        const ProfileCache& cache = stored.cache;
        const CacheKey& key = stored.key;
        const Profile& p = *stored.source.profile;
        const CacheEntry& entry = stored.entry;

        constexpr size_t kSlice = size_t(1) << 21; // 2097152
        const size_t n = p.eventCount();
        QVERIFY(n > kSlice + 1);
        QCOMPARE(entry.columns[kMetaColumn].elementSize, uint32_t(sizeof(uint32_t)));
        QCOMPARE(entry.columns[kMetaColumn].bytes, uint64_t(4 * n));
        QVERIFY(entry.columns[kMetaColumn].frames.size() > 1); // rewritten as one frame below
        const uint32_t bad = uint32_t(p.metadata().size());
        const auto badAt = [&entry, bad](std::vector<size_t> events) {
            return edited<uint32_t>(entry, kMetaColumn, [&events, bad](std::vector<uint32_t>& v) {
                for (size_t e : events) v[e] = bad;
            });
        };
        expectRefused(cache, key, log, badAt({kSlice}), "event 2097152");
        expectRefused(cache, key, log, badAt({n - 1}), "event " + std::to_string(n - 1));
        expectRefused(cache, key, log, badAt({kSlice - 1, kSlice}), "event 2097151");
        expectRefused(cache, key, log, badAt({n - 1, 5}), "event 5");
        // Unchanged values in one frame: read.
        writeBytes(cache.entryPath(key), assembleEntry(badAt({})));
        QVERIFY(cache.load(key));
    }

    void writtenEntryIsContiguousAndComplete() {
        const ProfileCache cache(root_ + "/c-layout", "test");
        const CacheKey key = cache.keyOf(hosts_);
        QCOMPARE(cache.store(key, *loadHosts(hosts_).profile), std::string());
        const std::vector<uint8_t> b = readBytes(cache.entryPath(key));
        QVERIFY(b.size() > 48);
        const auto u32 = [&b](size_t at) { return fieldAt<uint32_t>(b, at); };
        const auto u64 = [&b](size_t at) { return fieldAt<uint64_t>(b, at); };
        QCOMPARE(std::string(b.begin(), b.begin() + 8), std::string("STEPSCCH"));
        const uint64_t keyBytes = u64(16), dirBytes = u64(24), dataBytes = u64(32);
        QCOMPARE(uint64_t(b.size()), 48 + keyBytes + dirBytes + dataBytes);
        QCOMPARE(std::string(b.begin() + 48, b.begin() + 48 + long(keyBytes)), key.text);
        size_t at = 48 + keyBytes;
        const size_t dirEnd = at + dirBytes;
        const uint32_t columns = u32(at);
        at += 4;
        size_t data = dirEnd, frames = 0;
        std::vector<uint8_t> raw;
        for (uint32_t c = 0; c < columns; ++c) {
            const uint64_t columnBytes = u64(at);
            const uint32_t count = u32(at + 12);
            at += 16;
            uint64_t sum = 0;
            for (uint32_t i = 0; i < count; ++i, ++frames) {
                const uint32_t rawBytes = u32(at), packed = u32(at + 4);
                // No column of this profile reaches the 2 MiB of a stored frame's (those are in
                // test_cache_stored_frames): every frame is a zstd frame.
                QCOMPARE(u32(at + 8), kZstdFrame);
                const uint64_t checksum = u64(at + 12);
                at += 20;
                QVERIFY(data + packed <= b.size());
                QCOMPARE(uint32_t(checksum), zstdChecksumOf(b.data() + data, packed));
                QCOMPARE(ZSTD_getFrameContentSize(b.data() + data, packed),
                         (unsigned long long)rawBytes);
                raw.resize(rawBytes);
                const size_t n = ZSTD_decompress(raw.data(), raw.size(), b.data() + data, packed);
                QVERIFY2(!ZSTD_isError(n), ZSTD_getErrorName(n));
                QCOMPARE(n, size_t(rawBytes));
                data += packed;
                sum += rawBytes;
            }
            QCOMPARE(sum, columnBytes);
        }
        QCOMPARE(at, dirEnd);
        QCOMPARE(data, b.size());
        QVERIFY(frames > 4); // more than one write window on 2 cores
    }

private:
    QTemporaryDir dir_;
    std::string root_;
    std::vector<HostFile> hosts_;
};

QTEST_GUILESS_MAIN(TestCacheEntries)
#include "test_cache_entries.moc"
