// The compact event columns: side tables whose events are stored in 2 bytes (runs of 2^16
// events), starts and durations in 4 bytes with the long ones aside, step ids stored by runs; each
// read back as written, across run boundaries, and through the cache.
#include <QtTest>

#include <QTemporaryDir>

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "model/HugePages.h"
#include "model/ProfileBuilder.h"
#include "model/ProfileCache.h"
#include "model/ProfileLoader.h"
#include "model/StatShapes.h"
#include "tests/fixtures/CompareProfiles.h"
#include "tests/fixtures/SettledSyntheticHost.h"

using namespace stepscope;

namespace {
// Events on both sides of run boundaries (65535 | 65536), empty runs (131072..196607 and
// 262144..393215), and the last event of a profile of 400,001 events.
const std::vector<uint32_t> kEvents = {0, 5, 65535, 65536, 65537, 200000, 200001, 400000};
constexpr size_t kProfileEvents = 400001;

// A builder with one host plane, one event name and one thread, its time base at 0.
struct OneThread {
    ProfileBuilder builder;
    uint32_t track = 0, metadata = 0;
    OneThread() {
        const uint32_t host = builder.addHost("h", "");
        const uint32_t plane = builder.addPlane(host, 0, "/host:CPU");
        metadata = builder.addMetadata(plane, 1, "op", "");
        track = builder.addTrack(plane, 1, "thread");
        builder.setTimeBase(0);
    }
};

// `p`, stored in a cache in `folder` under the key of `hosts` and read back, equals itself.
void expectCacheRoundTrip(const Profile& p, const std::vector<HostFile>& hosts,
                          const std::string& folder) {
    const ProfileCache cache(folder, "test");
    const CacheKey key = cache.keyOf(hosts);
    QVERIFY(key.ok());
    QCOMPARE(cache.store(key, p), std::string());
    const std::unique_ptr<Profile> cached = cache.load(key);
    QVERIFY(cached);
    compareProfiles(p, *cached);
    QCOMPARE(cached->startColumn().longCount(), p.startColumn().longCount());
}

// The VmFlags line of the mapping in /proc/self/smaps that holds `address` (empty if none).
std::string vmFlagsAt(const void* address) {
    std::ifstream smaps("/proc/self/smaps");
    const auto at = reinterpret_cast<uintptr_t>(address);
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        unsigned long long begin = 0, end = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx ", &begin, &end) == 2)
            inside = at >= begin && at < end; // a mapping's first line
        else if (inside && line.starts_with("VmFlags:"))
            return line;
    }
    return {};
}

SideTable<int64_t> sample() {
    SideTable<int64_t> t;
    for (uint32_t e : kEvents) t.append(e, int64_t(e) * 10 + 1);
    return t;
}
} // namespace

class TestEventColumns : public QObject {
    Q_OBJECT
private slots:
    void sideTableFindsWhatWasAppended() {
        const SideTable<int64_t> t = sample();
        QCOMPARE(t.size(), kEvents.size());
        for (size_t i = 0; i < kEvents.size(); ++i) {
            QCOMPARE(t.eventAt(i), kEvents[i]);
            QCOMPARE(t.valueAt(i), int64_t(kEvents[i]) * 10 + 1);
            const int64_t* v = t.find(kEvents[i]);
            QVERIFY(v);
            QCOMPARE(*v, int64_t(kEvents[i]) * 10 + 1);
            QCOMPARE(t.lowerBound(kEvents[i]), i);
        }
        // Absent: within a run, an empty run, past the last run, and the same low 16 bits as a
        // present event in another run (5 + 65536, 65535 + 65536 * 2).
        for (uint32_t e :
             {1u, 65534u, 65541u, 131071u, 131072u, 150000u, 196607u, 199999u, 400001u, 9000000u})
            QVERIFY2(!t.find(e), std::to_string(e).c_str());
        QCOMPARE(t.lowerBound(6), size_t(2));
        QCOMPARE(t.lowerBound(131072), size_t(5)); // the empty run leads to 200000
        QCOMPARE(t.lowerBound(400001), t.size());
        QCOMPARE(t.lowerBound(9000000), t.size());
        std::vector<uint32_t> seen;
        t.forEach([&](uint32_t e, int64_t v) {
            QCOMPARE(v, int64_t(e) * 10 + 1);
            seen.push_back(e);
        });
        QCOMPARE(seen, kEvents);
        QVERIFY(t.consistent(kProfileEvents));
        QVERIFY(!t.consistent(kProfileEvents - 1)); // 400000 would be past the last event
        QVERIFY(SideTable<int64_t>().consistent(0));
    }

    // Split at every entry (in a run both parts share, as 65536 | 65537, and across empty runs),
    // appended back together: the same table as one appended entry by entry.
    void sideTableAppendsAnother() {
        for (size_t split = 0; split <= kEvents.size(); ++split) {
            SideTable<int64_t> a, b;
            for (size_t i = 0; i < kEvents.size(); ++i)
                (i < split ? a : b).append(kEvents[i], int64_t(kEvents[i]) * 10 + 1);
            a.append(b);
            const std::string at = "split " + std::to_string(split);
            QVERIFY2(a.consistent(kProfileEvents), at.c_str());
            QCOMPARE(a.size(), kEvents.size());
            for (size_t i = 0; i < kEvents.size(); ++i) {
                QCOMPARE(a.eventAt(i), kEvents[i]);
                QCOMPARE(a.lowerBound(kEvents[i]), i);
                QVERIFY2(a.find(kEvents[i]) && *a.find(kEvents[i]) == int64_t(kEvents[i]) * 10 + 1,
                         at.c_str());
            }
            for (uint32_t e : {1u, 65538u, 131072u, 199999u, 400001u}) QVERIFY(!a.find(e));
            QCOMPARE(a.lowerBound(131072), size_t(5));
        }
    }

    void sideCursorWalksForwardAndBack() {
        const SideTable<int64_t> t = sample();
        SideCursor<int64_t> c(t);
        std::vector<uint32_t> hits;
        for (uint32_t e = 0; e < kProfileEvents + 10; ++e)
            if (const int64_t* v = c.at(e)) {
                QCOMPARE(*v, int64_t(e) * 10 + 1);
                hits.push_back(e);
            }
        QCOMPARE(hits, kEvents);
        // Back, then forward in jumps that skip runs.
        QVERIFY(c.at(65536) && *c.at(65536) == 655361);
        QVERIFY(!c.at(65538));
        QVERIFY(c.at(400000));
        QVERIFY(c.at(5) && *c.at(5) == 51);
        QVERIFY(!c.at(131077));
        QVERIFY(c.at(200001));
        SideTable<int64_t> empty;
        SideCursor<int64_t> none(empty);
        QVERIFY(!none.at(0));
        QVERIFY(!none.at(70000));
    }

    // Ids of two processes (pid << 32 | id) after plain 32-bit ones, and back to 32-bit ones.
    void correlationIdsKeepHighHalves() {
        const uint64_t pidA = uint64_t(487) << 32, pidB = uint64_t(500) << 32;
        const std::vector<std::pair<uint32_t, uint64_t>> entries = {{3, 7},
                                                                    {9, 0xFFFFFFFF},
                                                                    {70000, pidA | 11},
                                                                    {70001, pidA | 12},
                                                                    {140000, pidB | 11},
                                                                    {140002, pidB},
                                                                    {200000, 42},
                                                                    {300000, pidA | 1}};
        CorrelationIds ids, first, second, third, fourth;
        for (const auto& [e, id] : entries) {
            ids.append(e, id);
            (e < 100000 ? first : second).append(e, id);
            (e < 70001 ? third : fourth).append(e, id); // splits pidA's run and the 2^16 run
        }
        first.append(second);
        third.append(fourth);
        for (const CorrelationIds* t : {&ids, &first, &third}) {
            QCOMPARE(t->size(), entries.size());
            QVERIFY(t->consistent(300001));
            for (size_t i = 0; i < entries.size(); ++i) {
                QCOMPARE(t->eventAt(i), entries[i].first);
                QCOMPARE(t->valueAt(i), entries[i].second);
                QCOMPARE(t->find(entries[i].first), std::optional<uint64_t>(entries[i].second));
            }
            QVERIFY(!t->find(4) && !t->find(140001) && !t->find(300001));
            std::vector<std::pair<uint32_t, uint64_t>> walked;
            t->forEachIn(2, 7, [&](uint32_t e, uint64_t id) { walked.emplace_back(e, id); });
            QCOMPARE(walked, std::vector(entries.begin() + 2, entries.begin() + 7));
            CorrelationIds::Cursor c(*t);
            QCOMPARE(c.at(70001), std::optional<uint64_t>(pidA | 12));
            QCOMPARE(c.at(140002), std::optional<uint64_t>(pidB));
            QCOMPARE(c.at(9), std::optional<uint64_t>(0xFFFFFFFF));
            QCOMPARE(c.at(200000), std::optional<uint64_t>(42));
            QVERIFY(!c.at(250000));
        }
    }

    void runColumnKeepsRuns() {
        RunColumn<int32_t> r;
        // Runs: [0,3) -1, [3,10) 7, [10,12) 8, [12,...) -1; an equal value continues a run.
        r.append(0, -1);
        r.append(3, 7);
        r.append(5, 7);
        r.append(10, 8);
        r.append(12, -1);
        QCOMPARE(r.runCount(), size_t(4));
        const int32_t expected[] = {-1, -1, -1, 7, 7, 7, 7, 7, 7, 7, 8, 8, -1, -1};
        for (uint32_t e = 0; e < 14; ++e) QCOMPARE(r.at(e), expected[e]);
        RunColumn<int32_t>::Cursor c(r);
        for (uint32_t e : {0u, 1u, 4u, 9u, 10u, 13u, 2u, 11u, 3u}) QCOMPARE(c.at(e), expected[e]);
        QVERIFY(r.consistent(14));
        QVERIFY(!r.consistent(12)); // a run starts at 12, past a profile of 12 events
        QVERIFY(RunColumn<int32_t>().consistent(0));
        QVERIFY(!RunColumn<int32_t>().consistent(1));
    }

    // Durations either side of 2^32 ps, as the profile reads them back and as the cache stores
    // them.
    void longDurationsReadBack() {
        const int64_t durations[] = {0, 1, 4294967294, 4294967295, 4294967296, 10000000000000};
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t plane = b.addPlane(host, 0, "/host:CPU");
        const uint32_t m = b.addMetadata(plane, 1, "op", "");
        b.setTimeBase(0);
        for (size_t i = 0; i < std::size(durations); ++i) {
            const uint32_t t = b.addTrack(plane, int64_t(i), "thread " + std::to_string(i));
            b.addEvent(t, 1000, durations[i], m);
        }
        auto p = b.finish();
        QVERIFY(p);
        for (size_t i = 0; i < std::size(durations); ++i) {
            const EventIndex e = p->tracks()[i].firstEvent;
            QCOMPARE(p->duration(e), durations[i]);
            QCOMPARE(p->start(e), 0); // the profile starts at its first event
            QCOMPARE(p->end(e), durations[i]);
        }
        QCOMPARE(p->durationPs(), 10000000000000);
    }

    // Events added out of time order take the builder's reordering path: each keeps its own
    // duration, long or not.
    void longDurationsFollowTheirEvents() {
        const int64_t big = int64_t(1) << 40;
        OneThread one;
        ProfileBuilder& b = one.builder;
        const uint32_t t = one.track, m = one.metadata;
        b.addEvent(t, big, 5, m);                       // third
        b.addEvent(t, 0, int64_t(1) << 33, m);          // first
        b.addEvent(t, int64_t(1) << 34, 4294967295, m); // second, exactly the marker
        b.addEvent(t, big + 100, 4294967296 + 3, m);    // fourth
        auto p = b.finish();
        QVERIFY(p);
        const EventRange r = p->eventsAt(0, 0);
        QCOMPARE(r.size(), 4u);
        const int64_t starts[] = {0, int64_t(1) << 34, big, big + 100};
        const int64_t durations[] = {int64_t(1) << 33, 4294967295, 5, 4294967296 + 3};
        for (uint32_t i = 0; i < 4; ++i) {
            QCOMPARE(p->start(r.begin + i), starts[i]);
            QCOMPARE(p->duration(r.begin + i), durations[i]);
        }
    }

    // Starts read back as written, block by block. Block 0 (rows 0-127) lies in whole
    // nanoseconds from its base, 5000 ps: it counts in nanoseconds, so its last row, 3 s later,
    // fits. Block 1 (rows 128-255) holds one start 1 ps off its base: it counts in picoseconds,
    // so of its rows 5 ms later (2^32 ps is 4.29 ms) the two are long. Block 2 (rows 256-260, a
    // short last block) spans 5 s in nanoseconds, past 2^32 ns: its last row is long.
    void startColumnReadsBackEveryStart() {
        std::vector<int64_t> starts(261);
        for (size_t i = 0; i < 128; ++i) starts[i] = 5000 + int64_t(i) * 1000;
        starts[127] = 5000 + 3000000000000;
        starts[5] = 5000; // the base, twice
        for (size_t i = 128; i < 256; ++i) starts[i] = 7000000 + int64_t(i) * 1000;
        starts[130] = 7000000 + 1;
        starts[131] = 7000000; // the base: rows may come in any order
        starts[200] = 7000000 + 5000000000;
        starts[255] = 7000000 + 5000000001;
        const int64_t second = 1000000000000;
        const int64_t lastBlock[] = {9 * second, 9 * second + 2000, 12 * second, 9 * second + 1000,
                                     14 * second};
        std::copy(std::begin(lastBlock), std::end(lastBlock), starts.begin() + 256);

        StartColumn c;
        c.resize(starts.size());
        std::vector<std::pair<uint32_t, int64_t>> longRows[3];
        // Blocks written out of order, as the builder's threads may.
        for (uint32_t k : {2u, 0u, 1u}) {
            const size_t first = size_t(k) * StartColumn::kBlockRows;
            c.writeBlock(uint32_t(first), starts.data() + first,
                         std::min(StartColumn::kBlockRows, starts.size() - first), longRows[k]);
        }
        QVERIFY(longRows[0].empty());
        QCOMPARE(longRows[1].size(), size_t(2));
        QCOMPARE(longRows[1][0], std::make_pair(200u, starts[200]));
        QCOMPARE(longRows[1][1], std::make_pair(255u, starts[255]));
        QCOMPARE(longRows[2].size(), size_t(1));
        QCOMPARE(longRows[2][0], std::make_pair(260u, 14 * second));
        for (const auto& rows : longRows) c.addLongRows(rows);
        QCOMPARE(c.size(), starts.size());
        QCOMPARE(c.longCount(), size_t(3));
        QVERIFY(c.consistent());
        for (uint32_t e = 0; e < starts.size(); ++e) QCOMPARE(c[e], starts[e]);
    }

    // The marker's edge in each unit: offsets of 2^32 - 2 units are stored, 2^32 - 1 (the
    // marker's own value) and 2^32 go to the side table. Each block's other offsets fix its unit:
    // 1 ps (4294967294 ps is not whole nanoseconds), 1 ns, 1 µs.
    void startOffsetsAtTheMarker() {
        for (const int64_t unit : {int64_t(1), int64_t(1000), int64_t(1000000)}) {
            const int64_t base = 7 * unit;
            const int64_t starts[] = {base, base + 4294967294 * unit, base + 4294967295 * unit,
                                      base + 4294967296 * unit, base + unit};
            StartColumn c;
            c.resize(std::size(starts));
            std::vector<std::pair<uint32_t, int64_t>> longRows;
            c.writeBlock(0, starts, std::size(starts), longRows);
            QCOMPARE(longRows.size(), size_t(2));
            QCOMPARE(longRows[0], std::make_pair(2u, starts[2]));
            QCOMPARE(longRows[1], std::make_pair(3u, starts[3]));
            c.addLongRows(longRows);
            QVERIFY(c.consistent());
            for (uint32_t e = 0; e < std::size(starts); ++e) QCOMPARE(c[e], starts[e]);
        }
    }

    // Starts 5 ms apart, each a few picoseconds off: every block counts in picoseconds and all
    // but its earliest row are long, in each of the builder's blocks of 2^18 rows (three and a
    // part) and each side-table run of 2^16. Added in time order, and last first (so the builder
    // reorders them). Read back as added, and through the cache.
    void longStartsAcrossBuilderBlocks() {
        constexpr uint32_t kCount = 3 * (1u << 18) + 1000;
        const auto startOf = [](uint32_t i) { return int64_t(i) * 5000000000 + i % 7; };
        std::unique_ptr<Profile> last;
        for (const bool reversed : {false, true}) {
            OneThread one;
            for (uint32_t k = 0; k < kCount; ++k) {
                const uint32_t i = reversed ? kCount - 1 - k : k;
                one.builder.addEvent(one.track, startOf(i), 1000, one.metadata);
            }
            std::unique_ptr<Profile> p = one.builder.finish();
            QVERIFY(p);
            QCOMPARE(p->eventCount(), size_t(kCount));
            for (uint32_t i = 0; i < kCount; ++i) QCOMPARE(p->start(i), startOf(i));
            QCOMPARE(p->startColumn().longCount(), kCount - (kCount + 127) / 128);
            last = std::move(p);
        }
        // Through the cache (the last profile built, reordered), keyed by a settled stand-in file.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string root = dir.path().toStdString();
        const std::vector<HostFile> hosts{{"h", root + "/h.xplane.pb"}};
        QVERIFY(QFile(QString::fromStdString(hosts[0].path)).open(QIODevice::WriteOnly));
        std::filesystem::last_write_time( // written an hour ago
            hosts[0].path, std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
        expectCacheRoundTrip(*last, hosts, root + "/cache");
    }

    // The binary searches over one sorted lane, on a stored column and on a plain one alike:
    // starts 10, 20, 20, 20, 30 in rows 3-7 of a column whose other rows do not belong to it.
    void startSearchesFindTheirRows() {
        const std::vector<int64_t> wide = {99, 0, 99, 10, 20, 20, 20, 30, 0};
        StartColumn stored;
        stored.resize(wide.size());
        std::vector<std::pair<uint32_t, int64_t>> longRows;
        stored.writeBlock(0, wide.data(), wide.size(), longRows);
        QVERIFY(longRows.empty());
        for (const Starts starts : {Starts(stored), Starts(std::span<const int64_t>(wide))}) {
            QCOMPARE(firstStartingAt(starts, 3, 8, 5), 3u);
            QCOMPARE(firstStartingAt(starts, 3, 8, 10), 3u);
            QCOMPARE(firstStartingAt(starts, 3, 8, 20), 4u);
            QCOMPARE(firstStartingAt(starts, 3, 8, 21), 7u);
            QCOMPARE(firstStartingAt(starts, 3, 8, 31), 8u);
            QCOMPARE(firstStartingAfter(starts, 3, 8, 5), 3u);
            QCOMPARE(firstStartingAfter(starts, 3, 8, 10), 4u);
            QCOMPARE(firstStartingAfter(starts, 3, 8, 20), 7u);
            QCOMPARE(firstStartingAfter(starts, 3, 8, 30), 8u);
            QCOMPARE(firstStartingAt(starts, 4, 4, 0), 4u); // an empty lane
        }
    }

    // The bounded varint readers that stat lists are read with: every length from 1 to 10 bytes
    // read back, and each cut one byte short refused; 11 bytes, and 10 whose last byte holds bits
    // past the 64th, refused.
    void statVarintsReadWithinBounds() {
        const uint64_t values[] = {0,
                                   1,
                                   127,
                                   128,
                                   16383,
                                   16384,
                                   uint64_t(1) << 21,
                                   (uint64_t(1) << 35) - 1,
                                   uint64_t(1) << 35,
                                   uint64_t(1) << 42,
                                   uint64_t(1) << 49,
                                   uint64_t(1) << 56,
                                   uint64_t(1) << 63,
                                   UINT64_MAX};
        const size_t lengths[] = {1, 1, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10};
        for (size_t i = 0; i < std::size(values); ++i) {
            uint8_t bytes[10];
            const uint8_t* end = statcodec::putVarint(bytes, values[i]);
            QCOMPARE(size_t(end - bytes), lengths[i]);
            const uint8_t* p = bytes;
            uint64_t v = 0;
            QVERIFY(statcodec::getVarintWithin(p, end, v));
            QCOMPARE(v, values[i]);
            QCOMPARE(p, end);
            p = bytes;
            QVERIFY(!statcodec::getVarintWithin(p, end - 1, v));
            // The unbounded-end reader of entries with 20 bytes ahead reads the same.
            p = bytes;
            v = 0;
            QVERIFY(statcodec::getVarint10(p, v));
            QCOMPARE(v, values[i]);
            QCOMPARE(p, end);
        }
        const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
        const uint8_t* p = eleven;
        uint64_t v = 0;
        QVERIFY(!statcodec::getVarintWithin(p, eleven + sizeof eleven, v));
        // Ten bytes whose last holds more than the 64th bit.
        const uint8_t wide[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02};
        p = wide;
        QVERIFY(!statcodec::getVarintWithin(p, wide + sizeof wide, v));
        p = eleven;
        QVERIFY(!statcodec::getVarint10(p, v));
        p = wide;
        QVERIFY(!statcodec::getVarint10(p, v));
    }

    // A stat list read within its bounds (StatList) reads as empty when its shape is not in the
    // table, and stops at its first malformed value, whether the value lies far from the end of
    // the stat bytes or ends them. A varint with 10 bytes or more ahead is read checking only its
    // length; one within the last 9 bytes, every byte against the end (the cuts and the longest
    // list below).
    void statListsStopAtTheirFirstMalformedValue() {
        const StringId keys[] = {0, 100, 101, 102}; // key indices 1-3 are valid
        const size_t strings = 50;
        const auto tag = [](uint32_t key, StatType type) { return key << 3 | uint32_t(type); };
        // Shape 1 is the good list's: key 1 an Int64, key 3 a Str; shapes 2-4 add a value of key
        // 2, a Ref, a Uint64 and a Double; shape 5 is key 1 alone.
        std::vector<uint32_t> tags, begin{0, 0};
        const auto addShape = [&](std::initializer_list<uint32_t> t) {
            tags.insert(tags.end(), t);
            begin.push_back(uint32_t(tags.size()));
        };
        const uint32_t int64 = tag(1, StatType::Int64), str = tag(3, StatType::Str);
        addShape({int64, str});
        for (StatType third : {StatType::Ref, StatType::Uint64, StatType::Double})
            addShape({int64, str, tag(2, third)});
        addShape({int64});
        const size_t shapes = begin.size() - 1;
        QCOMPARE(shapes, size_t(6));
        const auto listOf = [&](const std::vector<uint8_t>& bytes) {
            return StatList(
                bytes.data(),
                {bytes.data() + bytes.size(), strings, begin.data(), shapes, tags.data()}, keys);
        };
        const auto readAll = [&](const std::vector<uint8_t>& bytes) {
            std::vector<StatValue> read;
            for (const StatValue& v : listOf(bytes)) read.push_back(v);
            return read;
        };
        // Shape 1's list as written (zigzag 3 is -2), and the same shape's first two values.
        const std::vector<uint8_t> goodList{1, 3, 49};
        {
            const std::vector<StatValue> read = readAll(goodList);
            QCOMPARE(read.size(), size_t(2));
        }
        struct Case {
            std::vector<uint8_t> list;
            const char* what;
        };
        const Case cases[] = {
            {{2, 3, 49, 50}, "a string past the pool"},
            {{3, 3, 49, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1},
             "an 11-byte value"},
            {{3, 3, 49, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02},
             "a value past 64 bits"},
        };
        for (const Case& c : cases)
            for (bool nearEnd : {false, true}) {
                std::vector<uint8_t> bytes = c.list;
                if (!nearEnd) bytes.resize(bytes.size() + 64, 0);
                const std::vector<StatValue> read = readAll(bytes);
                QVERIFY2(read.size() == 2, c.what);
                QCOMPARE(read[0].key, StringId(100));
                QCOMPARE(read[0].asInt(), int64_t(-2));
                QCOMPARE(read[1].key, StringId(102));
                QCOMPARE(read[1].asString(), StringId(49));
            }
        // Shapes the table does not have: 6, far past it, and a shape of 11 bytes.
        for (const std::vector<uint8_t>& bad :
             {std::vector<uint8_t>{6, 3, 49}, std::vector<uint8_t>{0x80, 0x80, 0x80, 0x80, 0x80, 1},
              std::vector<uint8_t>{0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0}})
            for (bool nearEnd : {false, true}) {
                std::vector<uint8_t> bytes = bad;
                if (!nearEnd) bytes.resize(bytes.size() + 64, 0);
                QVERIFY(listOf(bytes).empty());
            }
        // Values cut by the end of the bytes (each vector holds exactly its bytes, so a read past
        // the end is one past the allocation): a Double, a value whose continuation byte is the
        // last byte, and a value missing.
        const std::vector<uint8_t> cuts[] = {{4, 3, 49, 0, 0, 0}, {3, 3, 49, 0x80}, {2, 3, 49}};
        for (const std::vector<uint8_t>& cut : cuts) QCOMPARE(listOf(cut).size(), size_t(2));
        // The longest list a reader takes of shape 5 (its shape in 10 bytes, and a 10-byte value,
        // 2^62 zigzag-encoded) ending k bytes from its start: read where it fits (k >= 20, the
        // rest zeros), refused where it does not, on either side of the check that decides
        // whether every byte of the value is compared with the end.
        const uint8_t longest[] = {0x85, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
                                   0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
        for (size_t k = 1; k <= 25; ++k) {
            std::vector<uint8_t> bytes(longest, longest + std::min(k, sizeof longest));
            bytes.resize(k, 0);
            const std::vector<StatValue> read = readAll(bytes);
            QCOMPARE(read.size(), size_t(k >= sizeof longest ? 1 : 0));
            if (!read.empty()) {
                QCOMPARE(read[0].key, StringId(100));
                QCOMPARE(read[0].asInt(), int64_t(1) << 62);
            }
        }
    }

    // Stat list shapes are numbered in the order first seen, 0 being the empty one: a list of the
    // same tags in the same order has the same number, found again after others (by the table,
    // not only the shape last seen), and the same tags in another order, or one tag more, another.
    void statShapesAreInterned() {
        StatShapes shapes;
        const std::vector<uint32_t> a{9, 17}, b{17, 9}, c{9, 17, 25}, d{9};
        QCOMPARE(shapes.intern({}), uint32_t(0));
        QCOMPARE(shapes.intern(a), uint32_t(1));
        QCOMPARE(shapes.intern(a), uint32_t(1));
        QCOMPARE(shapes.intern(b), uint32_t(2));
        QCOMPARE(shapes.intern(c), uint32_t(3));
        QCOMPARE(shapes.intern(d), uint32_t(4));
        for (int round = 0; round < 2; ++round) {
            QCOMPARE(shapes.intern(c), uint32_t(3));
            QCOMPARE(shapes.intern(a), uint32_t(1));
            QCOMPARE(shapes.intern(d), uint32_t(4));
            QCOMPARE(shapes.intern(b), uint32_t(2));
        }
        // Enough shapes that many share a slot of the recent ones.
        for (uint32_t i = 0; i < 1000; ++i) QCOMPARE(shapes.intern({{i, i + 1}}), 5 + i);
        for (uint32_t i = 0; i < 1000; ++i) QCOMPARE(shapes.intern({{i, i + 1}}), 5 + i);
        QCOMPARE(shapes.size(), size_t(1005));
        std::vector<uint32_t> begin, tags;
        shapes.release(begin, tags);
        QCOMPARE(begin.size(), size_t(1006));
        QCOMPARE(begin[0], uint32_t(0));
        QCOMPARE(begin[1], uint32_t(0));
        QCOMPARE(std::vector<uint32_t>(tags.begin() + begin[3], tags.begin() + begin[4]), c);
        QCOMPARE(begin.back(), uint32_t(tags.size()));
        QCOMPARE(tags.size(), size_t(2 + 2 + 3 + 1 + 2000));
    }

    void sideTableAppendedOutOfOrderIsInconsistent() {
        SideTable<int64_t> t;
        t.append(70000, 1);
        t.append(5, 2); // lands in the run of 70000, after it
        QVERIFY(!t.consistent(100000));
    }

    // A column of 2 MiB or more is a mapping of its own that starts on a huge page boundary and
    // carries this process's page size advice before anything touches it (docs/load-speed.md,
    // "Huge pages for large columns" and its twelfth part); a smaller one comes from the heap.
    // Growing, shrinking and freeing either way round must free each block as it was allocated:
    // the sanitizer build fails on a heap free of a mapping, and unmapping heap memory breaks the
    // heap.
    void largeColumnsCarryThePageSizeAdvice() {
        constexpr size_t k2MiB = 2 * 1024 * 1024; // the threshold and the alignment, typed out
        Column<uint32_t> large;
        large.resize(k2MiB / 4);
        QCOMPARE(reinterpret_cast<uintptr_t>(large.data()) % k2MiB, uintptr_t(0));
        // The advice shows among the mapping's flags, "hg" for huge pages and "nh" for none,
        // where the kernel takes it (a probe of its own: refused without transparent huge pages)
        // and lists the flags (sandboxed kernels may not).
        const size_t probeBytes = 2 * k2MiB;
        void* probe =
            ::mmap(nullptr, probeBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        QVERIFY(probe != MAP_FAILED);
        const bool advisable = ::madvise(probe, probeBytes, MADV_HUGEPAGE) == 0;
        const bool listed = vmFlagsAt(probe).find(" hg") != std::string::npos;
        ::munmap(probe, probeBytes);
        const std::string flags = vmFlagsAt(large.data());
        if (advisable && listed) {
            const bool huge = hugePageChoice().use;
            QCOMPARE(flags.find(" hg") != std::string::npos, huge);
            QCOMPARE(flags.find(" nh") != std::string::npos, !huge);
        } else {
            qInfo("not checked: this kernel %s",
                  advisable ? "does not list mapping flags" : "has no transparent huge pages");
        }
        large[0] = 1;
        large.back() = 2;
        Column<uint32_t> small(1000);
        for (uint32_t i = 0; i < 1000; ++i) small[i] = i;
        // Across the threshold, both ways.
        for (uint32_t i = 0; i < k2MiB / 4; ++i) small.push_back(i);
        QCOMPARE(reinterpret_cast<uintptr_t>(small.data()) % k2MiB, uintptr_t(0));
        QCOMPARE(small[999], 999u);
        small.resize(10);
        small.shrink_to_fit();
        QCOMPARE(small[9], 9u);
        large.resize(1);
        large.shrink_to_fit();
        QCOMPARE(large[0], 1u);
    }

    // The kernel's page_reporting_order, as its parameter file reads: 0 to 10 once a driver
    // reports free pages, -1 before (11 in older kernels); anything else is not a reading.
    void pageReportingIsReadFromItsOrder() {
        for (const char* active : {"9\n", "9", "0\n", "10\n"})
            QVERIFY2(pageReportingActive(active), active);
        for (const char* inactive :
             {"-1\n", "11\n", "4294967295\n", "", "\n", "9x\n", " 9\n", "99999999999\n"})
            QVERIFY2(!pageReportingActive(inactive), inactive);
    }

    // releaseHugePages gives back only the whole 2 MiB pages inside the range: of a 4 MiB column
    // released for its first 3 MiB, the first 2 MiB read as zeros again and the rest is as
    // written.
    void releaseGivesBackOnlyWholeHugePages() {
        constexpr size_t k2MiB = 2 * 1024 * 1024, k3MiB = 3 * 1024 * 1024;
        Column<uint8_t> bytes(2 * k2MiB);
        std::fill(bytes.begin(), bytes.end(), uint8_t(0xA5));
        releaseHugePages(bytes.data(), k3MiB);
        QCOMPARE(std::count(bytes.begin(), bytes.begin() + k2MiB, uint8_t(0)),
                 std::ptrdiff_t(k2MiB));
        QCOMPARE(std::count(bytes.begin() + k2MiB, bytes.end(), uint8_t(0xA5)),
                 std::ptrdiff_t(k2MiB));
        // Nothing whole inside: nothing given back.
        releaseHugePages(bytes.data() + k2MiB + 1, k2MiB - 1);
        QCOMPARE(bytes.back(), uint8_t(0xA5));
    }

    // A synthetic profile of more than two runs of 2^16 events, with steps longer than 2^32 ps,
    // stored and read back: every column equal to the source.
    void cacheRoundTripAcrossRuns() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string root = dir.path().toStdString();
        std::vector<HostFile> hosts;
        QCOMPARE(testing::writeSettledSyntheticHost(root, 150000, hosts), std::string());
        const LoadResult source = loadHosts(hosts);
        QVERIFY2(source.ok(), source.error.c_str());
        const Profile& p = *source.profile;
        QVERIFY(p.eventCount() > 2 * 65536);
        QVERIFY(p.correlationIds().size() > 0 && p.frameworkOps().size() > 0);
        bool someLong = false;
        for (EventIndex e = 0; e < p.eventCount(); ++e)
            someLong |= p.duration(e) >= (int64_t(1) << 32);
        QVERIFY(someLong);
        QVERIFY(p.groupIds().runCount() < p.eventCount() / 100);

        expectCacheRoundTrip(p, hosts, root + "/cache");
    }
};

QTEST_GUILESS_MAIN(TestEventColumns)
#include "test_event_columns.moc"
