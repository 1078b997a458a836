// TF op stats: op name parsing, self time through nesting, idle, per-side percentages, the device
// side from stream events (never the derived lines), JAX op naming, and facts on the real
// TensorFlow BERT profile.
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <map>

#include "model/ProfileBuilder.h"
#include "model/ProfileLoader.h"
#include "model/analysis/OpName.h"
#include "model/analysis/TfOpStats.h"

using namespace stepscope;

namespace {
constexpr int64_t us = 1000000; // picoseconds per microsecond

const std::string kBert =
    std::string(STEPSCOPE_REALDATA) +
    "/tf-gpu-bert/plugins/profile/2020_12_03_bert/34.83.195.179_6003.xplane.pb";

StatValue strStat(ProfileBuilder& b, const char* key, const char* value) {
    return {b.intern(key), StatType::Str, b.intern(value)};
}

struct Row {
    std::string side, type, op;
    int64_t occurrences;
    double total, avg, self, avgSelf, pct, cumPct;
};

std::vector<Row> rowsOf(const Table& t) {
    std::vector<Row> rows;
    for (size_t r = 0; r < t.rowCount(); ++r)
        rows.push_back({t.text(r, 0), t.text(r, 1), t.text(r, 2), int64_t(t.number(r, 3)),
                        t.number(r, 4), t.number(r, 5), t.number(r, 6), t.number(r, 7),
                        t.number(r, 8), t.number(r, 9)});
    return rows;
}

// One host thread: MatMul [0,10) containing a non-op event [1,6) that contains Relu [2,5), and
// AddV2 [7,9); a second MatMul [20,30) with no children; runtime events that are not ops.
std::unique_ptr<Profile> hostFixture() {
    ProfileBuilder b;
    b.setTimeBase(0);
    const uint32_t h = b.addHost("h", "");
    const uint32_t cpu = b.addPlane(h, 1, "/host:CPU");
    const uint32_t thread = b.addTrack(cpu, 11, "tf_Compute/11");
    const uint32_t matmul = b.addMetadata(cpu, 1, "model/dense/MatMul:MatMul", "");
    const uint32_t exec = b.addMetadata(cpu, 2, "ExecutorState::Process", "");
    const uint32_t relu = b.addMetadata(cpu, 3, "model/relu:Relu", "");
    const uint32_t add = b.addMetadata(cpu, 4, "model/add:AddV2", "");
    const uint32_t alloc = b.addMetadata(cpu, 5, "MemoryAllocation", "");
    b.addEvent(thread, 0, 10 * us, matmul);
    b.addEvent(thread, 1 * us, 5 * us, exec);
    b.addEvent(thread, 2 * us, 3 * us, relu);
    b.addEvent(thread, 7 * us, 2 * us, add);
    b.addEvent(thread, 8 * us, 0, alloc);
    b.addEventStat(strStat(b, "tf_op", "model/add:AddV2")); // a runtime event naming its op
    b.addEvent(thread, 20 * us, 10 * us, matmul);
    return b.finish();
}

// A GPU with two streams and a derived "TensorFlow Ops" line that repeats the stream work.
std::unique_ptr<Profile> deviceFixture() {
    ProfileBuilder b;
    b.setTimeBase(0);
    const uint32_t h = b.addHost("h", "");
    const uint32_t gpu = b.addPlane(h, 2, "/device:GPU:0");
    const uint32_t s7 = b.addTrack(gpu, 7, "Stream #7(Compute)");
    const uint32_t s8 = b.addTrack(gpu, 8, "Stream #8(Compute,MemcpyH2D)");
    const uint32_t ops = b.addTrack(gpu, -559038734, "TensorFlow Ops");
    const uint32_t conv = b.addMetadata(gpu, 1, "volta_scudnn_128x64_relu", "");
    const uint32_t gemm = b.addMetadata(gpu, 2, "volta_h884gemm_64x64", "");
    const uint32_t copy = b.addMetadata(gpu, 3, "MemcpyH2D", "");
    const uint32_t other = b.addMetadata(gpu, 4, "unattributed_kernel", "");
    const uint32_t convOp = b.addMetadata(gpu, 5, "model/conv/Conv2D:Conv2D", "");
    b.addEvent(s7, 0, 4 * us, conv);
    b.addEventStat(strStat(b, "tf_op", "model/conv/Conv2D:Conv2D"));
    b.addEvent(s7, 5 * us, 1 * us, conv);
    b.addEventStat(strStat(b, "tf_op", "model/conv/Conv2D:Conv2D"));
    b.addEvent(s7, 8 * us, 1 * us, copy);
    b.addEventStat(strStat(b, "level 0", "MakeTensorFromProto"));
    b.addEvent(s7, 10 * us, 2 * us, other);
    b.addEvent(s8, 2 * us, 5 * us, gemm);
    b.addEventStat(strStat(b, "tf_op", "model/dense/MatMul:MatMul"));
    b.addEvent(ops, 0, 6 * us, convOp);
    b.addEventStat(strStat(b, "tf_op", "model/conv/Conv2D:Conv2D"));
    return b.finish();
}
} // namespace

class TestOpStats : public QObject {
    Q_OBJECT
private slots:
    void splitsOpNames() {
        auto check = [](std::string_view full, std::string_view name, std::string_view type) {
            const OpNameParts p = splitOpName(full);
            QCOMPARE(QString::fromUtf8(p.name.data(), int(p.name.size())),
                     QString::fromUtf8(name.data(), int(name.size())));
            QCOMPARE(QString::fromUtf8(p.type.data(), int(p.type.size())),
                     QString::fromUtf8(type.data(), int(type.size())));
        };
        check("replica_4/bert/layer_5/dropout/random_uniform/RandomUniform:RandomUniform",
              "replica_4/bert/layer_5/dropout/random_uniform/RandomUniform", "RandomUniform");
        check("_send_cond_16/pivot_t/_236_0:_Send", "_send_cond_16/pivot_t/_236_0", "_Send");
        check("MakeTensorFromProto", "MakeTensorFromProto", "MakeTensorFromProto");
        check("jit(loss_fn)/jvp()/convert_element_type", "jit(loss_fn)/jvp()/convert_element_type",
              "convert_element_type");
        check("fusion.3", "fusion.3", "fusion");
        check("custom-call.1", "custom-call.1", "custom-call");
        check("Iterator::Prefetch::Map", "Iterator::Prefetch::Map", "Dataset");
        check("XlaModule:", "XlaModule", "");
    }

    void recognizesHostOps() {
        QVERIFY(isHostOpName("model/dense/MatMul:MatMul"));
        QVERIFY(isHostOpName("Identity_2:Identity"));
        QVERIFY(isHostOpName("_send_cond_16/pivot_t/_236_0:_Send"));
        QVERIFY(isHostOpName("Iterator::Prefetch"));
        QVERIFY(isHostOpName("jit_step:xla_computation"));
        QVERIFY(!isHostOpName("ExecutorState::Process"));
        QVERIFY(!isHostOpName("MemoryAllocation"));
        QVERIFY(!isHostOpName("cudaLaunchKernel"));
        QVERIFY(!isHostOpName("MemcpyH2D"));
        QVERIFY(!isHostOpName("$util.py:296 wrapper"));
        QVERIFY(!isHostOpName("void Eigen::internal::EigenMetaKernel<float>(int)"));
        QVERIFY(!isHostOpName("XlaModule:"));
    }

    void hostSelfTimeAndIdle() {
        auto p = hostFixture();
        QVERIFY(p);
        const TfOpStats s = computeTfOpStats(*p);
        QVERIFY(s.hasHost);
        QVERIFY(!s.hasDevice);
        QCOMPARE(s.hostIdlePs, 10 * us); // span [0,30) minus ops [0,10) and [20,30)

        const std::vector<Row> rows = rowsOf(tfOpStatsTable(s, false));
        QCOMPARE(rows.size(), size_t(3));
        // MatMul: 20 µs total; self (10 - 3 - 2) + 10 = 15 µs: the non-op event between MatMul
        // and Relu does not hide Relu from its op parent.
        QCOMPARE(rows[0].side, std::string("Host"));
        QCOMPARE(rows[0].type, std::string("MatMul"));
        QCOMPARE(rows[0].op, std::string("model/dense/MatMul"));
        QCOMPARE(rows[0].occurrences, int64_t(2));
        QCOMPARE(rows[0].total, 20.0);
        QCOMPARE(rows[0].avg, 10.0);
        QCOMPARE(rows[0].self, 15.0);
        QCOMPARE(rows[0].avgSelf, 7.5);
        QCOMPARE(rows[0].pct, 75.0);
        QCOMPARE(rows[0].cumPct, 75.0);
        QCOMPARE(rows[1].type, std::string("Relu"));
        QCOMPARE(rows[1].self, 3.0);
        QCOMPARE(rows[1].pct, 15.0);
        QCOMPARE(rows[1].cumPct, 90.0);
        QCOMPARE(rows[2].type, std::string("AddV2"));
        QCOMPARE(rows[2].occurrences, int64_t(1)); // the MemoryAllocation with tf_op is no op
        QCOMPARE(rows[2].self, 2.0);
        QCOMPARE(rows[2].pct, 10.0);
        QCOMPARE(rows[2].cumPct, 100.0);
    }

    void idleRowWhenIncluded() {
        auto p = hostFixture();
        const TfOpStats s = computeTfOpStats(*p);
        const std::vector<Row> rows = rowsOf(tfOpStatsTable(s, true));
        QCOMPARE(rows.size(), size_t(4));
        // Self times 15, 10 (idle), 3, 2 of 30 µs.
        QCOMPARE(rows[0].type, std::string("MatMul"));
        QCOMPARE(rows[0].pct, 50.0);
        QCOMPARE(rows[1].type, std::string("IDLE"));
        QCOMPARE(rows[1].op, std::string("IDLE"));
        QCOMPARE(rows[1].occurrences, int64_t(0));
        QCOMPARE(rows[1].total, 10.0);
        QCOMPARE(rows[1].self, 10.0);
        QVERIFY(std::isnan(rows[1].avg));
        QVERIFY(std::isnan(rows[1].avgSelf));
        QCOMPARE(rows[1].cumPct, 100.0 * 25 / 30);
        QCOMPARE(rows[2].pct, 10.0);
        QCOMPARE(rows[3].cumPct, 100.0);

        const PieData byType = tfOpStatsPie(s, OpSide::Host, OpGrouping::ByType, true);
        QCOMPARE(byType.size(), size_t(4));
        QCOMPARE(byType[0].label, std::string("MatMul"));
        QCOMPARE(byType[0].value, 15.0);
        QCOMPARE(byType[1].label, std::string("IDLE"));
        QCOMPARE(byType[1].value, 10.0);
        QVERIFY(tfOpStatsPie(s, OpSide::Device, OpGrouping::ByOp, true).empty());
    }

    void deviceFromStreamsOnly() {
        auto p = deviceFixture();
        QVERIFY(p);
        const TfOpStats s = computeTfOpStats(*p);
        QVERIFY(s.hasDevice);
        QVERIFY(!s.hasHost);
        // Span [0,12) on the streams; stream events cover [0,7), [8,9) and [10,12): the kernel no
        // op claims is busy time, not idle, so idle is the gaps [7,8) and [9,10).
        QCOMPARE(s.deviceIdlePs, 2 * us);
        const std::vector<Row> rows = rowsOf(tfOpStatsTable(s, false));
        QCOMPARE(rows.size(), size_t(3));
        QCOMPARE(rows[0].side, std::string("Device"));
        QCOMPARE(rows[0].op, std::string("model/conv/Conv2D")); // 5 µs, tie broken by name
        QCOMPARE(rows[0].occurrences, int64_t(2)); // not 3: the derived line is skipped
        QCOMPARE(rows[0].total, 5.0);
        QCOMPARE(rows[0].self, 5.0);
        QCOMPARE(rows[0].avg, 2.5);
        QCOMPARE(rows[1].op, std::string("model/dense/MatMul"));
        QCOMPARE(rows[1].total, 5.0);
        QCOMPARE(rows[2].type, std::string("MakeTensorFromProto"));
        QCOMPARE(rows[2].total, 1.0);
        QCOMPARE(rows[0].pct, 100.0 * 5 / 11);
        QCOMPARE(rows[2].cumPct, 100.0);
        const std::vector<Row> withIdle = rowsOf(tfOpStatsTable(s, true));
        QCOMPARE(withIdle.size(), size_t(4));
        QCOMPARE(withIdle[3].type, std::string("MakeTensorFromProto"));
        QCOMPARE(withIdle[2].type, std::string("IDLE"));
        QCOMPARE(withIdle[2].self, 2.0);
        QCOMPARE(withIdle[0].pct, 100.0 * 5 / 13);
    }

    void jaxOpsNamedByNameStatThenHloOp() {
        ProfileBuilder b;
        b.setTimeBase(0);
        const uint32_t h = b.addHost("h", "");
        const uint32_t gpu = b.addPlane(h, 2, "/device:GPU:0");
        const uint32_t s = b.addTrack(gpu, 16, "Stream #16(Kernel)");
        const uint32_t k = b.addMetadata(gpu, 1, "gemm_fusion_dot.kd", "");
        b.addEvent(s, 0, 2 * us, k);
        b.addEventStat(strStat(b, "tf_op", "XlaModule:"));
        b.addEventStat(strStat(b, "name", "jit(loss_fn)/jvp()/dot_general"));
        b.addEventStat(strStat(b, "hlo_op", "gemm_fusion_dot.3"));
        b.addEvent(s, 3 * us, 1 * us, k);
        b.addEventStat(strStat(b, "tf_op", "XlaModule:"));
        b.addEventStat(strStat(b, "hlo_op", "copy.2"));
        b.addEvent(s, 5 * us, 1 * us, k);
        b.addEventStat(strStat(b, "tf_op", "XlaModule:"));
        auto p = b.finish();
        const std::vector<Row> rows = rowsOf(tfOpStatsTable(computeTfOpStats(*p), false));
        QCOMPARE(rows.size(), size_t(3));
        QCOMPARE(rows[0].op, std::string("jit(loss_fn)/jvp()/dot_general"));
        QCOMPARE(rows[0].type, std::string("dot_general"));
        QCOMPARE(rows[0].total, 2.0);
        // Sorted by self time, then total, then name: both 1 µs, "XlaModule" < "copy.2".
        QCOMPARE(rows[1].op, std::string("XlaModule"));
        QCOMPARE(rows[1].type, std::string("XlaModule"));
        QCOMPARE(rows[2].op, std::string("copy.2"));
        QCOMPARE(rows[2].type, std::string("copy"));
    }

    void emptyProfile() {
        ProfileBuilder b;
        auto p = b.finish();
        const TfOpStats s = computeTfOpStats(*p);
        QVERIFY(!hasTfOpStats(*p));
        QCOMPARE(tfOpStatsTable(s, true).rowCount(), size_t(0));
        QCOMPARE(tfOpStatsTable(s, true).columnCount(), size_t(10));
    }

    void cancelledGivesNothing() {
        auto p = hostFixture();
        Progress progress;
        progress.cancel();
        QVERIFY(computeTfOpStats(*p, &progress).rows.empty());
    }

    void bertFacts() {
        if (!std::filesystem::exists(kBert))
            QSKIP("../shared/realdata not found; real-profile op stats skipped");
        const LoadResult r = loadPath(kBert);
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        QVERIFY(hasTfOpStats(p));
        const TfOpStats s = computeTfOpStats(p);
        QVERIFY(s.hasHost && s.hasDevice);
        const Table t = tfOpStatsTable(s, false);
        std::map<std::string, int64_t> hostTypeCount, deviceTypeCount;
        double lastCum[2] = {0, 0};
        for (const Row& row : rowsOf(t)) {
            (row.side == "Host" ? hostTypeCount : deviceTypeCount)[row.type] += row.occurrences;
            lastCum[row.side == "Host"] = row.cumPct;
            QVERIFY(row.self <= row.total + 1e-9);
        }
        QCOMPARE(lastCum[0], 100.0);
        QCOMPARE(lastCum[1], 100.0);
        // Device: the H2D copies attributed through the bare `level 0` ref (88 + 69 + 19 on GPUs
        // 6, 4 and 1), and the dropout RandomUniform kernels: 97 on each of GPUs 4 and 6.
        QCOMPARE(deviceTypeCount["MakeTensorFromProto"], int64_t(176));
        QCOMPARE(deviceTypeCount["RandomUniform"], int64_t(194));
        QCOMPARE(deviceTypeCount["Cast"], int64_t(784));
        // Host: the multi-device iterator ops, and no runtime events.
        QCOMPARE(hostTypeCount["MultiDeviceIteratorGetNextFromShard"], int64_t(4));
        QCOMPARE(hostTypeCount["MemoryAllocation"], int64_t(0));
        QCOMPARE(hostTypeCount["MemcpyH2D"], int64_t(0));
        QVERIFY(hostTypeCount["_Send"] > 0);

        // Device total time equals the stream events that carry a framework op.
        int64_t attributedPs = 0;
        for (size_t i = 0; i < p.frameworkOps().size(); ++i) {
            const EventIndex e = p.frameworkOps().eventAt(i);
            const Track& track = p.tracks()[p.trackOf(e)];
            if (p.planes()[track.plane].kind == PlaneKind::Gpu && !isDerived(track.kind))
                attributedPs += p.duration(e);
        }
        int64_t deviceTotalPs = 0;
        for (const TfOpStatsRow& row : s.rows)
            if (row.side == OpSide::Device) deviceTotalPs += row.totalPs;
        QCOMPARE(deviceTotalPs, attributedPs);
    }
};

QTEST_GUILESS_MAIN(TestOpStats)
#include "test_op_stats.moc"
