// tf.data bottleneck analysis on a generated host with two input pipelines
// (tests/fixtures/TfDataFixtures.h; every expected value worked out by hand in the comments),
// XProf's own worked example (xprof/convert/xplane_to_tf_data_stats_test.cc, HostInputPipeline:
// its expected numbers), the advice table, and profiles without tf.data.
#include <QtTest>
#include <filesystem>
#include <set>

#include "model/ProfileLoader.h"
#include "model/analysis/TfDataBottleneck.h"
#include "tests/fixtures/ProtoXSpace.h"
#include "tests/fixtures/TfDataFixtures.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {
constexpr int64_t us = 1000000;
const std::string kRealData = STEPSCOPE_REALDATA;

std::shared_ptr<const Profile> load(const FixtureSpace& space) {
    const std::vector<uint8_t> bytes = space.encode();
    LoadResult r = loadXSpaceBytes(bytes, "data-host");
    if (!r.ok()) qFatal("fixture does not load: %s", r.error.c_str());
    return r.profile;
}

const TfDataIteratorStat& stat(const TfDataExecution& ex, int64_t id) {
    for (const TfDataIteratorStat& s : ex.iterators)
        if (s.id == id) return s;
    qFatal("no iterator %lld", static_cast<long long>(id));
}
} // namespace

class TestTfDataBottleneck : public QObject {
    Q_OBJECT

private slots:
    void pipelines() {
        const auto p = load(tfDataFixture());
        QVERIFY(hasTfDataEvents(*p));
        const TfDataAnalysis a = computeTfDataBottleneck(*p);
        QCOMPARE(a.hosts.size(), size_t(1));
        QCOMPARE(a.hosts[0].iterators.size(), size_t(5)); // ids 1, 2, 3, 4, 20
        const TfDataIterator* map = a.hosts[0].find(3);
        QVERIFY(map);
        QCOMPARE(map->name, std::string("Map"));
        QCOMPARE(map->longName, std::string("Iterator::Prefetch::Batch::Map"));
        QCOMPARE(map->parentId, int64_t(2));
        QVERIFY(!map->async);
        QVERIFY(a.hosts[0].find(1)->async); // Prefetch

        // Host:0 = Prefetch (first execution at 0), Host:1 = Generator (at 2000).
        QCOMPARE(a.pipelines.size(), size_t(2));
        const TfDataPipeline& pre = a.pipelines[0];
        QCOMPARE(pre.name, std::string("Host:0"));
        QCOMPARE(pre.rootId, int64_t(1));
        QCOMPARE(pre.executions.size(), size_t(2));
        // Latencies 300 and 20 µs: mean 160, min 20, max 300, one slow call (> 50 µs).
        QCOMPARE(pre.executions[0].latencyPs, 300 * us);
        QCOMPARE(pre.executions[1].latencyPs, 20 * us);
        QCOMPARE(pre.meanLatencyPs, 160 * us);
        QCOMPARE(pre.minLatencyPs, 20 * us);
        QCOMPARE(pre.maxLatencyPs, 300 * us);
        QCOMPARE(pre.slowCalls, int64_t(1));

        // Slowest execution [0,300): the consumed element 10 links Batch [0,280) (overlap 280):
        // Prefetch self 300-280 = 20. Batch self 280 - 100 - 140 = 40. Map: 2 calls, 240 long,
        // self (100-80) + (140-30) = 130. TFRecord: 2 calls, 110 long, self 110. All blocking;
        // the bottleneck is Map (130).
        const TfDataExecution& slow = pre.executions[0];
        QCOMPARE(slow.iterators.size(), size_t(4));
        const int64_t want[4][4] = {// id, duration, self, calls
                                    {1, 300, 20, 1},
                                    {2, 280, 40, 1},
                                    {3, 240, 130, 2},
                                    {4, 110, 110, 2}};
        for (const auto& w : want) {
            const TfDataIteratorStat& s = stat(slow, w[0]);
            QCOMPARE(s.durationPs, w[1] * us);
            QCOMPARE(s.selfPs, w[2] * us);
            QCOMPARE(s.calls, w[3]);
            QVERIFY(s.blocking);
        }
        QCOMPARE(stat(slow, 3).startPs, 10 * us);
        QCOMPARE(slow.bottleneckId, int64_t(3));
        QCOMPARE(slow.bottleneckSelfPs, 130 * us);

        // Fast execution [1000,1020): element 11 was produced at [500,600), before it was asked
        // for, so Batch and below are off the critical path; Prefetch (self 20) is the bottleneck.
        const TfDataExecution& fast = pre.executions[1];
        QVERIFY(stat(fast, 1).blocking);
        QVERIFY(!stat(fast, 2).blocking);
        QVERIFY(!stat(fast, 3).blocking);
        QVERIFY(!stat(fast, 4).blocking);
        QCOMPARE(stat(fast, 1).selfPs, 20 * us);
        QCOMPARE(stat(fast, 2).selfPs, 20 * us); // 100 - Map's 80
        QCOMPARE(stat(fast, 3).selfPs, 60 * us); // 80 - TFRecord's 20
        QCOMPARE(fast.bottleneckId, int64_t(1));

        // Generator: one execution of 30 µs, its own bottleneck.
        const TfDataPipeline& gen = a.pipelines[1];
        QCOMPARE(gen.name, std::string("Host:1"));
        QCOMPARE(gen.maxLatencyPs, 30 * us);
        QCOMPARE(gen.slowCalls, int64_t(0));
        QCOMPARE(gen.executions[0].bottleneckId, int64_t(20));

        // Bottleneck analysis: slowest pipeline first.
        QCOMPARE(a.analysis.size(), size_t(2));
        QCOMPARE(a.analysis[0].pipeline, size_t(0));
        QCOMPARE(a.analysis[0].iteratorName, std::string("Map"));
        QCOMPARE(a.analysis[0].iteratorSelfPs, 130 * us);
        QCOMPARE(a.analysis[0].kind, TfDataBottleneckKind::SlowTransformationWithParallelVersion);
        QCOMPARE(a.analysis[1].iteratorName, std::string("Generator"));
        QCOMPARE(a.analysis[1].kind, TfDataBottleneckKind::SlowSource);
        QVERIFY(a.inputBound);

        const Table t = tfDataPipelineTable(a);
        QCOMPARE(t.rowCount(), size_t(2));
        QCOMPARE(t.exactText(0, t.columnIndex("Mean latency (µs)")), std::string("160"));
        QCOMPARE(t.text(0, t.columnIndex("Bottleneck long name")),
                 std::string("Iterator::Prefetch::Batch::Map"));
        const Table ex = tfDataExecutionTable(a, pre, slow);
        QCOMPARE(ex.rowCount(), size_t(4));
        QCOMPARE(ex.text(2, ex.columnIndex("Parent")), std::string("Batch"));
        QCOMPARE(ex.number(2, ex.columnIndex("Bottleneck")), 1.0);
        QCOMPARE(ex.number(1, ex.columnIndex("Bottleneck")), 0.0);
        const std::string json = tfDataBottleneckJson(a);
        QVERIFY(json.find("\"input_bound\":true") != std::string::npos);
        QVERIFY(json.find("\"iterator_long_name\":\"Iterator::Prefetch::Batch::Map\"") !=
                std::string::npos);
    }

    // XProf's HostInputPipeline test: Prefetch over Range, two elements, one produced while the
    // consumer waited and one before. Its expected values: mean 60 µs, min 20, max 100, one slow
    // call; the slowest execution's bottleneck Range with 80 µs; Prefetch self 20.
    void xprofExample() {
        using S = FixtureStat;
        FixtureSpace space;
        FixturePlane& host = space.addPlane(0, "/host:CPU");
        FixtureLine consumer{0, "consumer", 0, {}, 0, 0, {}};
        FixtureLine producer{1, "producer", 0, {}, 0, 0, {}};
        consumer.add("Iterator::Prefetch", 0, 100 * us, {S::int64("id", 123)});
        consumer.add("PrefetchConsume", 80 * us, 20 * us, {S::int64("element_id", 100)});
        consumer.add("Iterator::Prefetch", 200 * us, 20 * us, {S::int64("id", 123)});
        consumer.add("PrefetchConsume", 210 * us, 10 * us, {S::int64("element_id", 200)});
        producer.add("PrefetchProduce", 0, 80 * us, {S::int64("element_id", 100)});
        producer.add("Iterator::Prefetch::Range", 0, 80 * us,
                     {S::int64("id", 456), S::int64("parent_id", 123)});
        producer.add("PrefetchProduce", 100 * us, 80 * us, {S::int64("element_id", 200)});
        producer.add("Iterator::Prefetch::Range", 100 * us, 80 * us,
                     {S::int64("id", 456), S::int64("parent_id", 123)});
        host.lines = {consumer, producer};
        const TfDataAnalysis a = computeTfDataBottleneck(*load(space));
        QCOMPARE(a.pipelines.size(), size_t(1));
        const TfDataPipeline& p = a.pipelines[0];
        QCOMPARE(p.meanLatencyPs, int64_t(60000000));
        QCOMPARE(p.minLatencyPs, int64_t(20000000));
        QCOMPARE(p.maxLatencyPs, int64_t(100000000));
        QCOMPARE(p.slowCalls, int64_t(1));
        QCOMPARE(p.executions[0].bottleneckId, int64_t(456));
        QCOMPARE(p.executions[0].bottleneckSelfPs, int64_t(80000000));
        QCOMPARE(stat(p.executions[0], 123).selfPs, int64_t(20000000));
        QCOMPARE(a.analysis[0].iteratorName, std::string("Range"));
        QCOMPARE(a.analysis[0].kind, TfDataBottleneckKind::Other);
        QVERIFY(a.inputBound);
    }

    void noTfData() {
        FixtureSpace space;
        space.addPlane(0, "/host:CPU").addLine(1, "python3", 1000).add("train", 0, 1000000);
        const auto p = load(space);
        QVERIFY(!hasTfDataEvents(*p));
        const TfDataAnalysis a = computeTfDataBottleneck(*p);
        QVERIFY(a.pipelines.empty());
        QVERIFY(!a.inputBound);
        QVERIFY(a.summary.starts_with("No tf.data activity"));
        QCOMPARE(tfDataPipelineTable(a).rowCount(), size_t(0));
    }

    void adviceKinds() {
        QCOMPARE(tfDataBottleneckKind("TFRecord"), TfDataBottleneckKind::SlowSource);
        QCOMPARE(tfDataBottleneckKind("DataService"), TfDataBottleneckKind::SlowDataService);
        QCOMPARE(tfDataBottleneckKind("Courier"), TfDataBottleneckKind::SlowRemoteSource);
        QCOMPARE(tfDataBottleneckKind("Batch"),
                 TfDataBottleneckKind::SlowTransformationWithoutParallelVersion);
        QCOMPARE(tfDataBottleneckKind("ParallelMap"), TfDataBottleneckKind::Other);
        QVERIFY(tfDataAdvice(TfDataBottleneckKind::SlowTransformationWithParallelVersion)
                    .find("num_parallel_calls") != std::string::npos);
    }

    // The real TF 2.x profile: its input pipelines are the root iterators ("Iterator::X" with a
    // an `id` stat, XProf's kStepId) on host planes, counted with protobuf's classes.
    void realProfile() {
        const std::string path = kRealData + "/tf-gpu-bert/plugins/profile/2020_12_03_bert/"
                                             "34.83.195.179_6003.xplane.pb";
        if (!std::filesystem::exists(path)) QSKIP("../shared/realdata is absent");
        std::set<int64_t> roots;
        int64_t longestRoot = 0;
        size_t iteratorEvents = 0;
        for (const ProtoEvent& e : readProtoEvents(path)) {
            if (e.plane.rfind("/host:", 0) != 0 || e.name.rfind("Iterator::", 0) != 0) continue;
            ++iteratorEvents;
            if (e.ints.count("id") && e.name.find("::", 10) == std::string::npos) {
                roots.insert(e.ints.at("id"));
                longestRoot = std::max(longestRoot, e.durationPs);
            }
        }
        LoadResult r = loadPath(path);
        QVERIFY(r.ok());
        QCOMPARE(hasTfDataEvents(*r.profile), iteratorEvents > 0);
        const TfDataAnalysis a = computeTfDataBottleneck(*r.profile);
        QCOMPARE(a.pipelines.size(), roots.size());
        if (!roots.empty())
            QCOMPARE(a.pipelines[a.analysis.front().pipeline].maxLatencyPs, longestRoot);
        qInfo("real profile: %zu iterator events, %zu pipelines", iteratorEvents, roots.size());
    }
};

QTEST_GUILESS_MAIN(TestTfDataBottleneck)
#include "test_tf_data_bottleneck.moc"
