// Search over event names, the selection aggregate and the details of one event.
#include <QTest>

#include "model/ProfileBuilder.h"
#include "views/trace/EventDetails.h"
#include "views/trace/EventSearch.h"
#include "views/trace/SelectionAggregate.h"

using namespace stepscope;

namespace {

struct Fixture {
    std::unique_ptr<Profile> profile;
    uint32_t stream = 0, thread = 0;
};

// Two planes that both define "MatMul" (two metadata entries, one name), nested events on a
// stream, a launch on the host joined to its kernel by correlation id.
Fixture makeFixture() {
    ProfileBuilder b;
    Fixture f;
    const uint32_t host = b.addHost("h", "");
    const uint32_t cpu = b.addPlane(host, 1, "/host:CPU");
    const uint32_t gpu = b.addPlane(host, 2, "/device:GPU:0");
    f.thread = b.addTrack(cpu, 7, "tf_worker");
    f.stream = b.addTrack(gpu, 134, "Stream #134(Compute)");
    const uint32_t mmGpu = b.addMetadata(gpu, 1, "MatMul", "");
    const uint32_t mmCpu = b.addMetadata(cpu, 1, "MatMul", "");
    const uint32_t gemm = b.addMetadata(gpu, 2, "volta_sgemm_128x64_nn", "");
    const uint32_t relu = b.addMetadata(gpu, 3, "Relu", "");
    const uint32_t launch = b.addMetadata(cpu, 4, "cudaLaunchKernel", "");
    b.addMetadataStat(gemm, StatValue{b.intern("kernel_details"), StatType::Str,
                                      b.intern("regs:32 static_shared:0 dynamic_shared:4096 "
                                               "grid:80,2,1 block:128,1,1 occ_pct:50")});
    auto corr = [&](uint64_t id) {
        b.addEventStat(StatValue{b.intern("correlation_id"), StatType::Uint64, id});
    };
    // Stream: MatMul [0, 1000 ns) containing gemm [100, 400) and Relu [500, 700); then MatMul
    // [2000, 2500) ns and gemm [3000, 3100) ns.
    b.addEvent(f.stream, 0, 1000000, mmGpu);
    b.addEvent(f.stream, 100000, 300000, gemm);
    corr(77);
    b.addEventStat(StatValue{b.intern("tf_op"), StatType::Ref, b.intern("dense/MatMul")});
    b.addEvent(f.stream, 500000, 200000, relu);
    b.addEvent(f.stream, 2000000, 500000, mmGpu);
    b.addEvent(f.stream, 3000000, 100000, gemm);
    // Host: MatMul at 1500 ns, launch at 50 ns with correlation 77.
    b.addEvent(f.thread, 1500000, 100000, mmCpu);
    b.addEvent(f.thread, 50000, 20000, launch);
    corr(77);
    f.profile = b.finish();
    return f;
}

std::vector<int64_t> startsOf(const Profile& p, const std::vector<EventIndex>& hits) {
    std::vector<int64_t> out;
    for (EventIndex e : hits) out.push_back(p.start(e));
    return out;
}

} // namespace

class TestTraceSearch : public QObject {
    Q_OBJECT
private slots:
    void substringIsCaseInsensitiveAndInTimeOrder() {
        Fixture f = makeFixture();
        const EventSearchResult r = searchEvents(*f.profile, {"matmul", false});
        QVERIFY(r.error.empty());
        QCOMPARE(r.matchingNames, size_t(2)); // one per plane
        QCOMPARE(startsOf(*f.profile, r.hits), (std::vector<int64_t>{0, 1500000, 2000000}));
        const EventSearchResult g = searchEvents(*f.profile, {"SGEMM", false});
        QCOMPARE(startsOf(*f.profile, g.hits), (std::vector<int64_t>{100000, 3000000}));
        QCOMPARE(searchEvents(*f.profile, {"conv", false}).hits.size(), size_t(0));
        QCOMPARE(searchEvents(*f.profile, {"", false}).hits.size(), size_t(0));
    }

    void regexMatchesAnywhereInTheName() {
        Fixture f = makeFixture();
        EventSearchResult r = searchEvents(*f.profile, {"^(relu|cuda.*)$", true});
        QCOMPARE(startsOf(*f.profile, r.hits), (std::vector<int64_t>{50000, 500000}));
        r = searchEvents(*f.profile, {"sgemm_\\d+x\\d+", true});
        QCOMPARE(r.hits.size(), size_t(2));
        r = searchEvents(*f.profile, {"(unclosed", true});
        QVERIFY(!r.error.empty());
        QVERIFY(r.hits.empty());
    }

    void cancelledSearchReturnsNothing() {
        Fixture f = makeFixture();
        Progress progress;
        progress.cancel();
        const EventSearchResult r = searchEvents(*f.profile, {"a", false}, &progress);
        QVERIFY(r.cancelled);
        QVERIFY(r.hits.empty());
    }

    // Before: std::regex matched by recursion, so (a|b)* over a multi-kilobyte kernel name
    // overflowed the worker's stack, and a pattern slow on every name could not be cancelled.
    void pathologicalRegexNeitherCrashesNorBlocksCancel() {
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t gpu = b.addPlane(host, 1, "/device:GPU:0");
        const uint32_t stream = b.addTrack(gpu, 7, "Stream #7");
        const std::string longName = "void k<" + std::string(200000, 'a') + ">(int)";
        b.addEvent(stream, 0, 10, b.addMetadata(gpu, 1, longName, ""));
        for (int i = 0; i < 2000; ++i)
            b.addEvent(stream, 100 + i, 1,
                       b.addMetadata(gpu, 2 + i, std::string(60, 'a') + std::to_string(i), ""));
        auto p = b.finish();
        const EventSearchResult deep = searchEvents(*p, {"k<(a|b)*>", true});
        QVERIFY(deep.error.empty());
        QCOMPARE(deep.hits.size(), size_t(1));
        QCOMPARE(deep.unsearchedNames, size_t(0));
        // Exponential backtracking stops at the match limit and is counted, not hidden.
        ProfileBuilder small;
        const uint32_t h2 = small.addHost("h", "");
        const uint32_t g2 = small.addPlane(h2, 1, "/device:GPU:0");
        const uint32_t s2 = small.addTrack(g2, 7, "Stream #7");
        small.addEvent(s2, 0, 1, small.addMetadata(g2, 1, std::string(40, 'a') + "1", ""));
        small.addEvent(s2, 5, 1, small.addMetadata(g2, 2, "volta_sgemm", ""));
        auto p2 = small.finish();
        const EventSearchResult runaway = searchEvents(*p2, {"^(a|a)*\\d{6}|sgemm", true});
        QVERIFY(runaway.error.empty());
        QCOMPARE(runaway.hits.size(), size_t(1)); // the other name is still searched
        QCOMPARE(runaway.unsearchedNames, size_t(1));
        // Exponential backtracking on every name: cancelling mid-way still returns.
        Progress progress([&](std::string_view stage, double fraction) {
            if (stage == "Matching names" && fraction > 0) progress.cancel();
        });
        const EventSearchResult slow = searchEvents(*p, {"^(a+)+b$", true}, &progress);
        QVERIFY(slow.cancelled);
        QVERIFY(slow.hits.empty());
    }

    void aggregateGroupsByTrackAndName() {
        Fixture f = makeFixture();
        const Profile& p = *f.profile;
        // Stream lanes 0 and 1 plus the host thread, over [0, 2200 ns).
        std::vector<Lane> lanes = {{f.stream, 0}, {f.stream, 1}, {f.thread, 0}};
        const Table t = aggregateSelection(p, lanes, {0, 2200000});
        QCOMPARE(countSelection(p, lanes, {0, 2200000}), uint64_t(6));
        QCOMPARE(t.rowCount(), size_t(5));
        QCOMPARE(t.columnIndex("Side"), 0);
        QCOMPARE(t.columnIndex("Track"), 1);
        QCOMPARE(t.columnIndex("Name"), 2);
        QCOMPARE(t.columnIndex("Total (µs)"), 4);
        QCOMPARE(t.columnIndex("Share of range (%)"), 6);
        auto row = [&](size_t r) {
            return QStringList{QString::fromStdString(t.text(r, 0)),
                               QString::fromStdString(t.text(r, 1)),
                               QString::fromStdString(t.text(r, 2))};
        };
        // The stream first (the lanes' order), by total: MatMul [0,1000) + [2000,2500) = 1.5 µs,
        // 1000 + 200 ns of it inside; gemm [100,400); Relu [500,700). The second gemm starts at
        // 3000 ns: outside.
        const QString stream = "/device:GPU:0 · Stream #134 (Compute)";
        QCOMPARE(row(0), (QStringList{"Device", stream, "MatMul"}));
        QCOMPARE(t.number(0, 3), 2.0);
        QCOMPARE(t.number(0, 4), 1.5);
        QCOMPARE(t.number(0, 5), 0.75);
        QVERIFY(qFuzzyCompare(t.number(0, 6), 100.0 * 1200 / 2200));
        QCOMPARE(row(1), (QStringList{"Device", stream, "volta_sgemm_128x64_nn"}));
        QCOMPARE(t.number(1, 3), 1.0);
        QVERIFY(qFuzzyCompare(t.number(1, 6), 100.0 * 300 / 2200));
        QCOMPARE(row(2), (QStringList{"Device", stream, "Relu"}));
        // Then the host thread: MatMul [1500,1600), the launch [50,70).
        QCOMPARE(row(3), (QStringList{"Host", "/host:CPU · tf_worker", "MatMul"}));
        QCOMPARE(t.number(3, 4), 0.1);
        QVERIFY(qFuzzyCompare(t.number(3, 6), 100.0 * 100 / 2200));
        QCOMPARE(row(4), (QStringList{"Host", "/host:CPU · tf_worker", "cudaLaunchKernel"}));
        QCOMPARE(t.number(4, 4), 0.02);
    }

    void aggregateShareNeverPassesTheRange() {
        // "step" [0, 1000 ns) with a nested "step" [100, 900) and one [950, 1200) that overlaps
        // its end (stacked deeper): over [0, 1000), "step" runs the whole range, 100%, not
        // (1000 + 800 + 50) / 1000 = 185%.
        ProfileBuilder b;
        const uint32_t cpu = b.addPlane(b.addHost("h", ""), 1, "/host:CPU");
        const uint32_t thread = b.addTrack(cpu, 1, "main");
        const uint32_t step = b.addMetadata(cpu, 1, "step", "");
        b.setTimeBase(0);
        b.addEvent(thread, 0, 1000000, step);
        b.addEvent(thread, 100000, 800000, step);
        b.addEvent(thread, 950000, 250000, step);
        auto p = b.finish();
        std::vector<Lane> lanes;
        for (uint32_t d = 0; d < p->tracks()[thread].depthCount; ++d) lanes.push_back({thread, d});
        const Table t = aggregateSelection(*p, lanes, {0, 1000000});
        QCOMPARE(t.rowCount(), size_t(1));
        QCOMPARE(t.number(0, 3), 3.0);
        QCOMPARE(t.number(0, 4), 2.05); // whole durations: 1 + 0.8 + 0.25 µs
        QCOMPARE(t.number(0, 6), 100.0);
        // Over [900, 1100): [900, 1000) and [950, 1100) cover 200 ns of 200.
        QCOMPARE(aggregateSelection(*p, lanes, {900000, 1100000}).number(0, 6), 100.0);
        // Over [0, 2000): 1200 ns of 2000.
        QCOMPARE(aggregateSelection(*p, lanes, {0, 2000000}).number(0, 6), 60.0);
    }

    void detailsOfAKernel() {
        Fixture f = makeFixture();
        const Profile& p = *f.profile;
        const EventIndex gemm = p.eventsInWindow(f.stream, 1, 100000, 100001).begin;
        QCOMPARE(p.name(gemm), std::string_view("volta_sgemm_128x64_nn"));
        const EventDetails d = describeEvent(p, gemm, "Stream #134 (Compute)");
        auto field = [&](const std::string& label) {
            for (const DetailField& x : d.fields)
                if (x.label == label) return x.value;
            return std::string("<missing>");
        };
        QCOMPARE(field("Track"), std::string("/device:GPU:0 › Stream #134 (Compute)"));
        QCOMPARE(field("Start"), std::string("100.000 ns from profile start"));
        QCOMPARE(field("Duration"), std::string("300.000 ns"));
        QCOMPARE(field("Self time"), std::string("300.000 ns"));
        QCOMPARE(field("Correlation id"), std::string("77"));
        QCOMPARE(field("Framework op"), std::string("dense/MatMul"));
        QCOMPARE(field("Grid"), std::string("80 × 2 × 1"));
        QCOMPARE(field("Block"), std::string("128 × 1 × 1 (128 threads)"));
        QCOMPARE(field("Registers per thread"), std::string("32"));
        QCOMPARE(field("Shared memory"), std::string("4.00 KiB (4096 B)"));
        QCOMPARE(field("Theoretical occupancy"), std::string("50%"));
        // Every stat, the ref value resolved to its text, metadata stats after the event's.
        QCOMPARE(d.stats.size(), size_t(3));
        QCOMPARE(d.stats[1].label, std::string("tf_op"));
        QCOMPARE(d.stats[1].value, std::string("dense/MatMul"));
        QCOMPARE(d.stats[2].label, std::string("kernel_details"));
        // The launch on the host, found through the correlation id.
        QCOMPARE(d.launches.size(), size_t(1));
        QCOMPARE(p.name(d.launches[0]), std::string_view("cudaLaunchKernel"));
        const EventDetails l = describeEvent(p, d.launches[0], "tf_worker");
        QCOMPARE(l.targets, std::vector<EventIndex>{gemm});
        // Duration comes first, then the start, to the precision the event needs.
        QCOMPARE(d.fields[0].label, std::string("Duration"));
        QCOMPARE(d.fields[1].label, std::string("Start"));
    }

    void hostLaunchDetailsAreNotTakenAsFacts() {
        // TF 2.4's launch events carry kernel_details from uninitialised memory; the kernel
        // they launched records the real ones.
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t cpu = b.addPlane(host, 1, "/host:CPU");
        const uint32_t gpu = b.addPlane(host, 2, "/device:GPU:0");
        const uint32_t thread = b.addTrack(cpu, 7, "tf_worker");
        const uint32_t stream = b.addTrack(gpu, 7, "Stream #7(Compute)");
        const uint32_t launch = b.addMetadata(cpu, 1, "cudaLaunchKernel", "");
        const uint32_t kernel = b.addMetadata(gpu, 2, "gemm", "");
        auto details = [&](const char* text) {
            b.addEventStat(StatValue{b.intern("kernel_details"), StatType::Str, b.intern(text)});
        };
        auto corr = [&](uint64_t id) {
            b.addEventStat(StatValue{b.intern("correlation_id"), StatType::Uint64, id});
        };
        b.setTimeBase(0);
        b.addEvent(thread, 0, 5000, launch);
        details("regs:687194767361 shm:4294967297 grid:576,139757090178736,1 block:128,1,1");
        corr(1);
        b.addEvent(stream, 10000, 50000, kernel);
        details("regs:96 shm:0 grid:576,1,1 block:128,1,1");
        corr(1);
        b.addEvent(thread, 100000, 5000, launch); // launched nothing that was recorded
        details("regs:687194767361 shm:4294967297 grid:576,139757090178736,1 block:128,1,1");
        auto p = b.finish();
        const EventIndex first = p->tracks()[thread].firstEvent;
        auto field = [](const EventDetails& d, const std::string& label) {
            for (const DetailField& x : d.fields)
                if (x.label == label) return x.value;
            return std::string("<missing>");
        };
        const EventDetails withKernel = describeEvent(*p, first, "tf_worker");
        QVERIFY(field(withKernel, "Launch details").starts_with("as the kernel it launched"));
        QCOMPARE(field(withKernel, "Registers per thread"), std::string("96"));
        QCOMPARE(field(withKernel, "Grid"), std::string("576 × 1 × 1"));
        const EventDetails alone = describeEvent(*p, first + 1, "tf_worker");
        QVERIFY(field(alone, "Launch details").starts_with("not shown"));
        QCOMPARE(field(alone, "Registers per thread"), std::string("<missing>"));
        QCOMPARE(field(alone, "Grid"), std::string("<missing>"));
        // The raw stat is still listed, marked.
        bool marked = false;
        for (const DetailField& x : alone.stats)
            marked |= x.label == "kernel_details" && x.value.find("not facts") != std::string::npos;
        QVERIFY(marked);
    }

    void selfTimeSubtractsChildren() {
        Fixture f = makeFixture();
        const Profile& p = *f.profile;
        const EventIndex mm = p.eventsInWindow(f.stream, 0, 0, 1).begin;
        QCOMPARE(p.duration(mm), int64_t(1000000));
        QCOMPARE(selfTime(p, mm), int64_t(1000000 - 300000 - 200000));
        const EventIndex mm2 = p.eventsInWindow(f.stream, 0, 2000000, 2000001).begin;
        QCOMPARE(selfTime(p, mm2), int64_t(500000));
    }

    void selfTimeCountsOnlyThePartOfADeeperEventInside() {
        // Outer [0, 1000 ns) holds Inner [100, 300) and is overlapped by Late [800, 1500), which
        // starts inside Outer and ends after it: the model puts Late one level deeper, but only
        // its [800, 1000) lies inside Outer.
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t gpu = b.addPlane(host, 2, "/device:GPU:0");
        const uint32_t stream = b.addTrack(gpu, 7, "Stream #7(Compute)");
        b.addEvent(stream, 0, 1000000, b.addMetadata(gpu, 1, "Outer", ""));
        b.addEvent(stream, 100000, 200000, b.addMetadata(gpu, 2, "Inner", ""));
        b.addEvent(stream, 800000, 700000, b.addMetadata(gpu, 3, "Late", ""));
        const auto p = b.finish();
        const EventIndex outer = p->eventsByName("Outer").front();
        const EventIndex late = p->eventsByName("Late").front();
        QCOMPARE(p->depthOf(outer), 0u);
        QCOMPARE(p->depthOf(late), 1u);
        QCOMPARE(selfTime(*p, outer), int64_t(1000000 - 200000 - 200000));
        QCOMPARE(selfTime(*p, late), int64_t(700000));
        QCOMPARE(selfTime(*p, p->eventsByName("Inner").front()), int64_t(200000));
    }
};

QTEST_GUILESS_MAIN(TestTraceSearch)
#include "test_trace_search.moc"
