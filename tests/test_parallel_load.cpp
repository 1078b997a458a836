// Parallel XSpace load: a profile decoded on several threads is the same, column for column and
// table for table, as one decoded on one thread (synthetic profiles large enough that lines are
// cut into several chunks, and the real profiles), and bad input still gives the first error in
// file order whatever the thread count.
#include <QtTest>

#include <QTemporaryDir>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "model/Csv.h"
#include "model/LogDir.h"
#include "model/ParallelFor.h"
#include "model/ProfileCache.h"
#include "model/ProfileLoader.h"
#include "model/analysis/KernelStats.h"
#include "model/analysis/MemoryProfile.h"
#include "model/analysis/Overview.h"
#include "model/analysis/TfOpStats.h"
#include "model/synthetic/SyntheticProfile.h"

using namespace stepscope;

namespace {

const std::string kRealData = STEPSCOPE_REALDATA;

std::string csvOf(const Table& t) {
    std::ostringstream out;
    writeCsv(t, out);
    return out.str();
}

// Everything a profile holds, as text: structure, every event with its depth and decoded stats,
// hot stat columns, flows, and the tables of the tools that read them.
std::string dump(const Profile& p) {
    std::ostringstream o;
    o << "start " << p.startNs() << " duration " << p.durationPs() << " strings "
      << p.strings().size() << "\n";
    for (size_t s = 0; s < p.strings().size(); ++s)
        o << "s" << s << "=" << p.str(StringId(s)) << "\n";
    for (const Host& h : p.hosts()) {
        o << "host " << h.name << "\n";
        for (const std::string& w : h.warnings) o << "  warning " << w << "\n";
    }
    for (const Plane& pl : p.planes())
        o << "plane " << pl.xplaneId << " " << p.str(pl.name) << " tracks " << pl.firstTrack << "+"
          << pl.trackCount << " stats " << pl.statBegin << "-" << pl.statEnd << "\n";
    for (size_t m = 0; m < p.metadata().size(); ++m) {
        const EventMetadata& md = p.metadata()[m];
        o << "meta " << m << " " << md.xId << " " << p.str(md.name) << " plane " << md.plane;
        for (const StatValue& s : p.metadataStats(uint32_t(m)))
            o << " " << p.str(s.key) << ":" << int(s.type) << ":" << s.raw;
        o << "\n";
    }
    for (size_t t = 0; t < p.tracks().size(); ++t) {
        const Track& tr = p.tracks()[t];
        o << "track " << t << " " << tr.lineId << " " << p.str(tr.name) << " events "
          << tr.firstEvent << "+" << tr.eventCount << " depths " << tr.depthCount << "\n";
        for (EventIndex e = tr.firstEvent; e < tr.firstEvent + tr.eventCount; ++e) {
            o << e << " d" << p.depthOf(e) << " " << p.start(e) << "+" << p.duration(e) << " "
              << p.metadataOf(e) << " g" << p.groupId(e);
            for (const StatValue& s : p.eventStats(e))
                o << " " << p.str(s.key) << ":" << int(s.type) << ":" << s.raw;
            o << "\n";
        }
    }
    o << "correlation " << p.correlationIds().size() << " kernels " << p.kernels().size()
      << " memcpys " << p.memcpys().size() << " memory " << p.memoryEvents().size() << " ops "
      << p.frameworkOps().size() << " hlo " << p.hloOps().size() << "\n";
    for (size_t i = 0; i < p.kernels().size(); ++i)
        o << "k " << p.kernels().eventAt(i) << " " << p.kernels().valueAt(i) << "\n";
    for (const Flow& f : p.flows()) o << "flow " << f.launch << " " << f.target << "\n";
    o << csvOf(computeKernelStats(p).table);
    o << csvOf(tfOpStatsTable(computeTfOpStats(p), true));
    o << csvOf(overviewStepTable(computeOverview(p)));
    for (const MemorySeries& m : computeMemoryProfile(p).series) o << csvOf(m.breakdown);
    return o.str();
}

// The profile as the cache stores it, every column byte for byte: the stat bytes and offsets and
// the shape table too, whose numbering the decoded stats of dump() do not show.
std::string storedBytes(const Profile& p, const std::vector<HostFile>& hosts) {
    QTemporaryDir dir;
    ProfileCache cache(dir.path().toStdString(), "test", ProfileCache::kDefaultCapBytes, {});
    const CacheKey key = cache.keyOf(hosts);
    const std::string problem = cache.store(key, p);
    if (!problem.empty()) return "not stored: " + problem;
    std::ifstream in(cache.entryPath(key), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void compareThreadCounts(const std::vector<HostFile>& hosts) {
    const LoadResult one = loadHosts(hosts, nullptr, 1);
    QVERIFY2(one.ok(), one.error.c_str());
    const std::string expected = dump(*one.profile);
    const std::string expectedBytes = storedBytes(*one.profile, hosts);
    QVERIFY2(!expectedBytes.starts_with("not stored"), expectedBytes.c_str());
    for (unsigned threads : {2u, 3u, 8u}) {
        const LoadResult many = loadHosts(hosts, nullptr, threads);
        QVERIFY2(many.ok(), many.error.c_str());
        QCOMPARE(many.profile->eventCount(), one.profile->eventCount());
        const std::string got = dump(*many.profile);
        QVERIFY2(got == expected, ("differs with " + std::to_string(threads) + " threads").c_str());
        QVERIFY2(storedBytes(*many.profile, hosts) == expectedBytes,
                 ("stored differently with " + std::to_string(threads) + " threads").c_str());
    }
}

} // namespace

class TestParallelLoad : public QObject {
    Q_OBJECT
private slots:
    void parallelForRunsEveryItemOnce() {
        std::vector<std::atomic<int>> hits(1000);
        parallelFor(hits.size(), 4, [&](size_t i) { ++hits[i]; });
        for (const auto& h : hits) QCOMPARE(h.load(), 1);
        QVERIFY(availableCores() >= 1);
    }

    void parallelForRethrowsOnTheCaller() {
        bool caught = false;
        try {
            parallelFor(100, 4, [](size_t i) {
                if (i == 37) throw std::runtime_error("item 37");
            });
        } catch (const std::runtime_error& e) {
            caught = std::string(e.what()) == "item 37";
        }
        QVERIFY(caught);
    }

    // Every item runs once, on a worker numbered below parallelWorkers(), and no worker runs two
    // items at once (each marks its number busy while it sleeps on an item): what lets a worker
    // keep buffers of its own.
    void parallelForWorkersNamesTheWorker() {
        QCOMPARE(parallelWorkers(3, 4), size_t(3));
        QCOMPARE(parallelWorkers(100, 4), size_t(4));
        QCOMPARE(parallelWorkers(100, 0), std::min<size_t>(100, availableCores()));
        std::vector<std::atomic<int>> hits(200), busy(4);
        std::atomic<bool> overlapped{false}, outOfRange{false};
        parallelForWorkers(hits.size(), 4, [&](size_t i, size_t worker) {
            if (worker >= busy.size()) {
                outOfRange = true;
                return;
            }
            if (busy[worker]++ != 0) overlapped = true;
            std::this_thread::sleep_for(std::chrono::microseconds(50));
            ++hits[i];
            --busy[worker];
        });
        QVERIFY(!outOfRange);
        QVERIFY(!overlapped);
        for (const auto& h : hits) QCOMPARE(h.load(), 1);
        std::vector<size_t> workerOf;
        parallelForWorkers(5, 1, [&](size_t, size_t worker) { workerOf.push_back(worker); });
        QCOMPARE(workerOf, std::vector<size_t>(5, 0));
    }

    // Sorted input, a few ascending runs (merged run by run), runs around the limit on merging
    // and many runs (sorted outright), on 1-4 threads: always std::sort's order.
    void parallelSortIsStdSortOnAnyInput() {
        uint64_t seed = 12345;
        auto random = [&seed] {
            return (seed = seed * 6364136223846793005u + 1442695040888963407u) >> 33;
        };
        // `count` ascending runs; each starts below where the one before it began, so no two
        // runs join up.
        auto runs = [&](size_t n, size_t count) {
            std::vector<std::pair<uint64_t, uint32_t>> v;
            for (size_t r = 0; r < count; ++r) {
                uint64_t key = count - r;
                for (size_t i = 0; i < n / count; ++i) {
                    v.push_back({key, uint32_t(v.size())});
                    key += random() % 3; // ties within and across runs
                }
            }
            return v;
        };
        std::vector<std::vector<std::pair<uint64_t, uint32_t>>> inputs{{},
                                                                       {{1, 0}},
                                                                       {{2, 0}, {1, 1}},
                                                                       runs(200000, 1),
                                                                       runs(200000, 5),
                                                                       runs(200000, 255),
                                                                       runs(200000, 256),
                                                                       runs(200000, 257),
                                                                       runs(200000, 200000)};
        std::vector<std::pair<uint64_t, uint32_t>> reversed = runs(200000, 1);
        std::reverse(reversed.begin(), reversed.end());
        inputs.push_back(reversed);
        for (const auto& input : inputs) {
            auto expected = input;
            std::sort(expected.begin(), expected.end());
            for (unsigned threads : {1u, 2u, 4u}) {
                auto sorted = input;
                parallelSort(sorted.begin(), sorted.end(), threads, std::less<>());
                QVERIFY2(
                    sorted == expected,
                    qPrintable(QString("%1 items on %2 threads").arg(input.size()).arg(threads)));
            }
        }
    }

    // 300K events on 2 GPUs: the large lines (launch threads, compute streams, op lines) hold
    // over 32768 events each, so they are decoded in several chunks.
    void syntheticIsTheSameOnAnyThreadCount() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        SyntheticOptions o;
        o.events = 300000;
        QCOMPARE(writeSyntheticLogDir(o, 2, dir.path().toStdString(), "run"), std::string());
        const Discovery d = discoverProfiles(dir.path().toStdString());
        QVERIFY(d.ok());
        QCOMPARE(d.runs.front().hosts.size(), size_t(2));
        size_t largest = 0;
        const LoadResult r = loadHosts(d.runs.front().hosts, nullptr, 1);
        QVERIFY(r.ok());
        for (const Track& t : r.profile->tracks())
            largest = std::max<size_t>(largest, t.eventCount);
        QVERIFY(largest > 2 * 32768);
        // Files written just now are not cached (they may still be changing): settle them.
        for (const HostFile& h : d.runs.front().hosts)
            std::filesystem::last_write_time(h.path, std::filesystem::file_time_type::clock::now() -
                                                         std::chrono::hours(1));
        compareThreadCounts(d.runs.front().hosts);
    }

    void realProfilesAreTheSameOnAnyThreadCount() {
        const std::vector<std::string> files = {
            "/tf-gpu-bert/plugins/profile/2020_12_03_bert/34.83.195.179_6003.xplane.pb",
            "/jax-rocm/jax08_gemm.tw003.xplane.pb",
            "/jax-rocm/te_fused_attn.934987a2fc2f.xplane.pb",
        };
        if (!std::filesystem::exists(kRealData)) QSKIP("../shared/realdata is absent");
        for (const std::string& f : files) compareThreadCounts({{"host", kRealData + f}});
        // Both BERT hosts side by side.
        const Discovery d = discoverProfiles(kRealData + "/tf-gpu-bert");
        QVERIFY(d.ok());
        compareThreadCounts(d.runs.front().hosts);
    }

    // A file cut short anywhere gives the same message on one thread and on many.
    void truncatedFilesFailTheSameOnAnyThreadCount() {
        SyntheticOptions o;
        o.events = 120000;
        const std::vector<uint8_t> bytes = generateSyntheticXSpace(o, "host");
        for (size_t cut : {bytes.size() / 7, bytes.size() / 3, bytes.size() / 2,
                           bytes.size() - 1000, bytes.size() - 1}) {
            const std::span<const uint8_t> part(bytes.data(), cut);
            const LoadResult one = loadXSpaceBytes(part, "host", nullptr, 1);
            const LoadResult many = loadXSpaceBytes(part, "host", nullptr, 4);
            QVERIFY(!one.ok());
            QVERIFY(!many.ok());
            QVERIFY(!one.error.empty());
            QCOMPARE(many.error, one.error);
        }
    }

    // Damage inside one event of a late line is found there, and named by its offset, whatever
    // the thread count.
    void corruptEventFailsTheSameOnAnyThreadCount() {
        SyntheticOptions o;
        o.events = 120000;
        std::vector<uint8_t> bytes = generateSyntheticXSpace(o, "host");
        for (size_t at : {bytes.size() / 5, bytes.size() / 2, bytes.size() * 4 / 5}) {
            std::vector<uint8_t> bad = bytes;
            for (size_t i = at; i < at + 16; ++i) bad[i] = 0xFF;
            const LoadResult one = loadXSpaceBytes(bad, "host", nullptr, 1);
            const LoadResult many = loadXSpaceBytes(bad, "host", nullptr, 4);
            QCOMPARE(many.ok(), one.ok());
            QCOMPARE(many.error, one.error);
            if (!one.ok()) QVERIFY(one.error.find("at byte") != std::string::npos);
        }
    }

    void cancelStopsAParallelLoad() {
        SyntheticOptions o;
        o.events = 200000;
        const std::vector<uint8_t> bytes = generateSyntheticXSpace(o, "host");
        // Cancelled once a chunk is decoded, with others under way (not at the stage's start).
        Progress progress([&](std::string_view stage, double fraction) {
            if (stage == "Reading events" && fraction > 0) progress.cancel();
        });
        const LoadResult r = loadXSpaceBytes(bytes, "host", &progress, 4);
        QVERIFY(!r.ok());
        QVERIFY(r.cancelled);
    }
};

QTEST_GUILESS_MAIN(TestParallelLoad)
#include "test_parallel_load.moc"
