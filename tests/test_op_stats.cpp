// TF op stats: op name parsing, self time through nesting (and not through partial overlaps),
// idle, per-side percentages, the device side from the device op lines (never the derived
// lines), TPU op lines, unclaimed device work, XProf's own unit tests restated as fixtures, JAX
// op naming, and facts on the real profiles counted by an independent protobuf reader.
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <map>

#include "model/ProfileBuilder.h"
#include "model/ProfileLoader.h"
#include "model/analysis/OpName.h"
#include "model/analysis/TfOpStats.h"
#include "tests/fixtures/ProtoXSpace.h"

using namespace stepscope;

namespace {
constexpr int64_t us = 1000000;              // picoseconds per microsecond
constexpr int64_t ns = 1000;                 // picoseconds per nanosecond
constexpr int64_t kTfOpsLineId = -559038734; // 0xdeadbeef + 3: XProf's derived "TensorFlow Ops"

const std::string kRealData = STEPSCOPE_REALDATA;
const std::string kBert =
    kRealData + "/tf-gpu-bert/plugins/profile/2020_12_03_bert/34.83.195.179_6003.xplane.pb";

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

const Row* findRow(const std::vector<Row>& rows, const std::string& side, const std::string& op) {
    for (const Row& r : rows)
        if (r.side == side && r.op == op) return &r;
    return nullptr;
}

// A minimal builder: one host, planes and lines added by name, events by metadata name.
struct Fixture {
    ProfileBuilder b;
    uint32_t host;
    std::map<std::pair<uint32_t, std::string>, uint32_t> meta;
    Fixture() {
        b.setTimeBase(0);
        host = b.addHost("h", "");
    }
    uint32_t plane(const char* name) { return b.addPlane(host, int64_t(meta.size()), name); }
    void event(uint32_t plane, uint32_t track, const std::string& name, int64_t start,
               int64_t dur) {
        auto [it, inserted] = meta.try_emplace({plane, name}, 0);
        if (inserted) it->second = b.addMetadata(plane, int64_t(meta.size()), name, "");
        b.addEvent(track, start, dur, it->second);
    }
    void stat(const char* key, const char* value) { b.addEventStat(strStat(b, key, value)); }
};

// One host thread: MatMul [0,10) containing a non-op event [1,6) that contains Relu [2,5), and
// AddV2 [7,9); a second MatMul [20,30) with no children; runtime events that are not ops.
std::unique_ptr<Profile> hostFixture() {
    Fixture f;
    const uint32_t cpu = f.plane("/host:CPU");
    const uint32_t thread = f.b.addTrack(cpu, 11, "tf_Compute/11");
    f.event(cpu, thread, "model/dense/MatMul:MatMul", 0, 10 * us);
    f.event(cpu, thread, "ExecutorState::Process", 1 * us, 5 * us);
    f.event(cpu, thread, "model/relu:Relu", 2 * us, 3 * us);
    f.event(cpu, thread, "model/add:AddV2", 7 * us, 2 * us);
    f.event(cpu, thread, "MemoryAllocation", 8 * us, 0);
    f.stat("allocator_name", "GPU_0_bfc");
    f.stat("tf_op", "model/add:AddV2"); // an allocator event naming its op: no op
    f.event(cpu, thread, "cudaLaunchKernel", 8 * us, 1 * us);
    f.stat("tf_op", "model/add:AddV2"); // a launch naming its op: no op
    f.b.addEventStat({f.b.intern("correlation_id"), StatType::Uint64, 42});
    f.event(cpu, thread, "model/dense/MatMul:MatMul", 20 * us, 10 * us);
    return f.b.finish();
}

// A GPU with two streams and a derived "TensorFlow Ops" line that repeats the stream work.
std::unique_ptr<Profile> deviceFixture() {
    Fixture f;
    const uint32_t gpu = f.plane("/device:GPU:0");
    const uint32_t s7 = f.b.addTrack(gpu, 7, "Stream #7(Compute)");
    const uint32_t s8 = f.b.addTrack(gpu, 8, "Stream #8(Compute,MemcpyH2D)");
    const uint32_t ops = f.b.addTrack(gpu, kTfOpsLineId, "TensorFlow Ops");
    const char* details = "regs:32 static_shared:0 dynamic_shared:0 grid:1,1,1 block:128,1,1";
    f.event(gpu, s7, "volta_scudnn_128x64_relu", 0, 4 * us);
    f.stat("tf_op", "model/conv/Conv2D:Conv2D");
    f.stat("kernel_details", details);
    f.event(gpu, s7, "volta_scudnn_128x64_relu", 5 * us, 1 * us);
    f.stat("tf_op", "model/conv/Conv2D:Conv2D");
    f.stat("kernel_details", details);
    f.event(gpu, s7, "MemcpyH2D", 8 * us, 1 * us);
    f.stat("level 0", "MakeTensorFromProto");
    f.event(gpu, s7, "unattributed_kernel", 10 * us, 2 * us);
    f.event(gpu, s8, "volta_h884gemm_64x64", 2 * us, 5 * us);
    f.stat("tf_op", "model/dense/MatMul:MatMul");
    f.stat("kernel_details", details);
    f.event(gpu, ops, "model/conv/Conv2D:Conv2D", 0, 6 * us);
    f.stat("tf_op", "model/conv/Conv2D:Conv2D");
    return f.b.finish();
}
} // namespace

class TestOpStats : public QObject {
    Q_OBJECT
private slots:
    // Expected values restate XProf's ParseTfOpFullname (xla/tsl/profiler/utils/tf_op_utils.cc).
    void parsesOpNamesAsXProf() {
        auto check = [](std::string_view full, OpCategory category, std::string_view name,
                        std::string_view type) {
            const ParsedOp p = parseTfOpFullname(full);
            QVERIFY2(p.category == category, full.data());
            QCOMPARE(QString::fromUtf8(p.name.data(), int(p.name.size())),
                     QString::fromUtf8(name.data(), int(name.size())));
            QCOMPARE(QString::fromUtf8(p.type.data(), int(p.type.size())),
                     QString::fromUtf8(type.data(), int(type.size())));
        };
        using C = OpCategory;
        check("replica_4/bert/layer_5/dropout/random_uniform/RandomUniform:RandomUniform",
              C::TensorFlow, "replica_4/bert/layer_5/dropout/random_uniform/RandomUniform",
              "RandomUniform");
        check("a>b-c.d/e:Foo_2", C::TensorFlow, "a>b-c.d/e", "Foo_2");
        // XProf's op-name pattern starts with [A-Za-z0-9.]: TF's internal _Send nodes are no ops.
        check("_send_cond_16/pivot_t/_236_0:_Send", C::Unknown,
              "_send_cond_16/pivot_t/_236_0:_Send", "");
        check("MakeTensorFromProto", C::Unknown, "MakeTensorFromProto", "");
        check("MemcpyHToD", C::MemcpyHToD, "MemcpyHToD", "MemcpyHToD");
        check("memcpydtoh_2", C::MemcpyDToH, "memcpydtoh_2", "MemcpyDToH");
        check("Iterator::Prefetch::Map", C::TfData, "Iterator::Prefetch::Map", "Dataset");
        // Split at the FIRST ':'.
        check("ExecutorState::Process", C::Unknown, "ExecutorState::Process", "");
        check("XlaModule:", C::TensorFlow, "XlaModule", "XlaModule");
        check("model/layer/MatMul_1:", C::TensorFlow, "model/layer/MatMul_1", "MatMul");
        check("jit_step:xla_computation", C::Jax, "jit_step", "xla_computation");
        check("model/dense_3:", C::Jax, "model/dense_3", "dense");
        check("x/y:transpose[permutation=(0, 3, 1, 2)]", C::Jax, "x/y", "transpose");
        check("$util.py:296 wrapper", C::Unknown, "$util.py:296 wrapper", "");

        QVERIFY(isHostOpName("model/dense/MatMul:MatMul"));
        QVERIFY(isHostOpName("Iterator::Prefetch"));
        QVERIFY(!isHostOpName("MemoryAllocation"));
        QVERIFY(!isHostOpName("cudaLaunchKernel"));
        QVERIFY(!isHostOpName("MemcpyH2D"));
        QVERIFY(!isHostOpName("void Eigen::internal::EigenMetaKernel<float>(int)"));

        // hlo_op nests with "::"; the innermost instruction counts (was named "while.1:").
        QCOMPARE(hloOpName("while.1::fusion.3"), std::string_view("fusion.3"));
        QCOMPARE(hloOpName("a::b::c.2"), std::string_view("c.2"));
        QCOMPARE(hloOpName("fusion.3"), std::string_view("fusion.3"));
    }

    void hostSelfTimeAndIdle() {
        auto p = hostFixture();
        QVERIFY(p);
        const TfOpStats s = computeTfOpStats(*p);
        QVERIFY(s.hasHost);
        QVERIFY(!s.hasDevice);
        QCOMPARE(s.hostIdlePs, 10 * us); // span [0,30) minus op self time 20

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
        // Neither the allocation nor the launch that carry its tf_op is an occurrence.
        QCOMPARE(rows[2].occurrences, int64_t(1));
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

    // The "by op" pie folds all but the top ops by type. Ten device ops (self time in µs):
    //   a/MatMul 40, d/Cast 30, b/MatMul 10, c/MatMul 8, e/Cast 6, g/Relu 5, f/Cast 4,
    //   h/AddV2 3, i/Mul 2, j/Sub 1 (109 in all), device idle 20, and a host op of 50.
    // Top 2 ops: a/MatMul 40, d/Cast 30. The rest by type: MatMul {b, c} 18, Cast {e, f} 10,
    // Relu {g} 5, AddV2 {h} 3, Mul {i} 2, Sub {j} 1.
    void byOpPieFoldsTheRestByType() {
        TfOpStats s;
        auto add = [&](OpSide side, const char* name, const char* type, int64_t selfUs) {
            s.rows.push_back(
                {side, uint32_t(s.ops.size()), 1, selfUs * us, selfUs * us, 0, 0, kNoIndex});
            s.ops.push_back({name, type});
        };
        add(OpSide::Device, "c/MatMul", "MatMul", 8); // rows in no particular order
        add(OpSide::Device, "a/MatMul", "MatMul", 40);
        add(OpSide::Device, "e/Cast", "Cast", 6);
        add(OpSide::Device, "b/MatMul", "MatMul", 10);
        add(OpSide::Device, "d/Cast", "Cast", 30);
        add(OpSide::Host, "x/Cast", "Cast", 50);
        add(OpSide::Device, "g/Relu", "Relu", 5);
        add(OpSide::Device, "f/Cast", "Cast", 4);
        add(OpSide::Device, "h/AddV2", "AddV2", 3);
        add(OpSide::Device, "i/Mul", "Mul", 2);
        add(OpSide::Device, "j/Sub", "Sub", 1);
        s.deviceIdlePs = 20 * us;
        struct Expected {
            std::string label, legend;
            double value;
            size_t items;
        };
        auto check = [](const PieData& got, const std::vector<Expected>& want) {
            QCOMPARE(got.size(), want.size());
            for (size_t i = 0; i < want.size(); ++i) {
                QCOMPARE(got[i].label, want[i].label);
                QCOMPARE(got[i].legend, want[i].legend);
                QCOMPARE(got[i].value, want[i].value);
                QCOMPARE(got[i].items, want[i].items);
            }
        };
        // Two types shown: Relu, AddV2, Mul and Sub (4 ops, 11 µs) are the last slice.
        check(tfOpStatsTopOpsPie(s, OpSide::Device, true, 2, 2),
              {{"a/MatMul", "", 40, 1},
               {"d/Cast", "", 30, 1},
               {"IDLE", "", 20, 0},
               {"MatMul (2 more ops of this type)", "MatMul (2 more ops)", 18, 2},
               {"Other (4 ops of 4 types)", "", 11, 4},
               {"Cast (2 more ops of this type)", "Cast (2 more ops)", 10, 2}});
        // Three types shown, without idle: Relu's fold is its one op, g/Relu; the rest 6 µs.
        check(tfOpStatsTopOpsPie(s, OpSide::Device, false, 2, 3),
              {{"a/MatMul", "", 40, 1},
               {"d/Cast", "", 30, 1},
               {"MatMul (2 more ops of this type)", "MatMul (2 more ops)", 18, 2},
               {"Cast (2 more ops of this type)", "Cast (2 more ops)", 10, 2},
               {"Other (3 ops of 3 types)", "", 6, 3},
               {"g/Relu", "", 5, 1}});
        // Five types shown: the last one left is Sub's single op, shown as itself.
        check(tfOpStatsTopOpsPie(s, OpSide::Device, false, 2, 5),
              {{"a/MatMul", "", 40, 1},
               {"d/Cast", "", 30, 1},
               {"MatMul (2 more ops of this type)", "MatMul (2 more ops)", 18, 2},
               {"Cast (2 more ops of this type)", "Cast (2 more ops)", 10, 2},
               {"g/Relu", "", 5, 1},
               {"h/AddV2", "", 3, 1},
               {"i/Mul", "", 2, 1},
               {"j/Sub", "", 1, 1}});
        // Enough op slices for all: nothing folded.
        QCOMPARE(tfOpStatsTopOpsPie(s, OpSide::Device, false, 10, 1).size(), size_t(10));
        // The host side has its own op only; no device op leaks in.
        check(tfOpStatsTopOpsPie(s, OpSide::Host, true, 2, 2), {{"x/Cast", "", 50, 1}});
        QVERIFY(tfOpStatsTopOpsPie(TfOpStats(), OpSide::Device, true).empty());
    }

    // Before: an op that only partly overlapped the op above it (the builder stacks it one lane
    // deeper) lost the overlap from the upper op's self time, as if it were nested.
    void partialOverlapIsNoChild() {
        Fixture f;
        const uint32_t cpu = f.plane("/host:CPU");
        const uint32_t thread = f.b.addTrack(cpu, 1, "t");
        f.event(cpu, thread, "a:MatMul", 0, 10 * us);
        f.event(cpu, thread, "b:Relu", 8 * us, 7 * us);  // [8,15): overlaps a, not inside it
        f.event(cpu, thread, "c:AddV2", 9 * us, 1 * us); // [9,10): inside both a and b
        const uint32_t gpu = f.plane("/device:GPU:0");
        const uint32_t stream = f.b.addTrack(gpu, 7, "Stream #7(Compute)");
        f.event(gpu, stream, "k1", 0, 10 * us);
        f.stat("tf_op", "x:Conv2D");
        f.event(gpu, stream, "k2", 10 * us - 3 * ns, 5 * us); // overlaps k1 by 3 ns
        f.stat("tf_op", "y:Relu");
        auto p = f.b.finish();
        const std::vector<Row> rows = rowsOf(tfOpStatsTable(computeTfOpStats(*p), false));
        // c lies inside b (the op it was stacked under) and inside a: its nearest containing
        // op is b. a keeps all of its 10 µs.
        QCOMPARE(findRow(rows, "Host", "a")->self, 10.0);
        QCOMPARE(findRow(rows, "Host", "b")->self, 6.0);
        QCOMPARE(findRow(rows, "Host", "c")->self, 1.0);
        QCOMPARE(findRow(rows, "Device", "x")->self, 10.0);
        QCOMPARE(findRow(rows, "Device", "y")->self, 5.0);
    }

    void deviceFromOpLinesOnly() {
        auto p = deviceFixture();
        QVERIFY(p);
        const TfOpStats s = computeTfOpStats(*p);
        QVERIFY(s.hasDevice);
        QVERIFY(!s.hasHost);
        // Span [0,12) of the streams; every stream event is in a row (4+1+1+2+5 = 13 µs of op
        // time), more than the span because the streams overlap: XProf's idle is then 0.
        QCOMPARE(s.deviceIdlePs, int64_t(0));
        const std::vector<Row> rows = rowsOf(tfOpStatsTable(s, false));
        QCOMPARE(rows.size(), size_t(4));
        QCOMPARE(rows[0].side, std::string("Device"));
        QCOMPARE(rows[0].op, std::string("model/conv/Conv2D")); // 5 µs, tie broken by name
        QCOMPARE(rows[0].occurrences, int64_t(2)); // not 3: the derived line is skipped
        QCOMPARE(rows[0].total, 5.0);
        QCOMPARE(rows[0].self, 5.0);
        QCOMPARE(rows[0].avg, 2.5);
        QCOMPARE(rows[1].op, std::string("model/dense/MatMul"));
        QCOMPARE(rows[1].total, 5.0);
        // The kernel no op claims is a row of its own, named by the kernel.
        QCOMPARE(rows[2].op, std::string("unattributed_kernel"));
        QCOMPARE(rows[2].type, std::string("Unknown"));
        QCOMPARE(rows[2].total, 2.0);
        // A bare `level 0` name parses to no op type.
        QCOMPARE(rows[3].op, std::string("MakeTensorFromProto"));
        QCOMPARE(rows[3].type, std::string("Unknown"));
        QCOMPARE(rows[3].total, 1.0);
        QCOMPARE(rows[0].pct, 100.0 * 5 / 13);
        QCOMPARE(rows[3].cumPct, 100.0);
        // The op that ran a Tensor Core kernel: TensorCore utilization 100%; the copy: none.
        const Table t = tfOpStatsTable(s, false);
        const int tc = t.columnIndex("TensorCore utilization (%)");
        QVERIFY(tc >= 0);
        QCOMPARE(t.number(0, size_t(tc)), 0.0);       // scudnn kernels: no Tensor Core
        QCOMPARE(t.number(1, size_t(tc)), 100.0);     // h884 GEMM: Tensor Cores
        QVERIFY(std::isnan(t.number(3, size_t(tc)))); // the copy ran no kernel
    }

    // Before: kernels no op claimed vanished, so device rows plus IDLE fell short of the span.
    void everyDeviceEventLandsInOneRow() {
        Fixture f;
        const uint32_t gpu = f.plane("/device:GPU:0");
        const uint32_t stream = f.b.addTrack(gpu, 16, "Stream #16(Kernel)");
        f.event(gpu, stream, "gemm", 0, 4 * us);
        f.stat("tf_op", "m/dense/MatMul:MatMul");
        f.event(gpu, stream, "__amd_rocclr_copyBuffer.kd", 5 * us, 2 * us);
        f.event(gpu, stream, "__amd_rocclr_copyBuffer.kd", 9 * us, 1 * us);
        auto p = f.b.finish();
        const TfOpStats s = computeTfOpStats(*p);
        const std::vector<Row> rows = rowsOf(tfOpStatsTable(s, true));
        const Row* copy = findRow(rows, "Device", "__amd_rocclr_copyBuffer.kd");
        QVERIFY(copy);
        QCOMPARE(copy->occurrences, int64_t(2));
        QCOMPARE(copy->total, 3.0);
        double sum = 0;
        for (const Row& r : rows) sum += r.total;
        QCOMPARE(sum, 10.0); // the span [0,10): 4 + 3 + IDLE 3
        QCOMPARE(findRow(rows, "Device", "IDLE")->total, 3.0);
    }

    // XProf counts a device op's occurrences as its calls: the largest count among its kernels.
    void occurrencesAreCallsNotKernels() {
        Fixture f;
        const uint32_t gpu = f.plane("/device:GPU:0");
        const uint32_t stream = f.b.addTrack(gpu, 7, "Stream #7(Compute)");
        int64_t t = 0;
        for (int call = 0; call < 2; ++call)
            for (const char* k : {"gemm_part1", "gemm_part2"}) {
                f.event(gpu, stream, k, t, 1 * us);
                f.stat("tf_op", "m/dense/MatMul:MatMul");
                t += 2 * us;
            }
        auto p = f.b.finish();
        const std::vector<Row> rows = rowsOf(tfOpStatsTable(computeTfOpStats(*p), false));
        QCOMPARE(rows.size(), size_t(1));
        QCOMPARE(rows[0].occurrences, int64_t(2)); // was 4
        QCOMPARE(rows[0].total, 4.0);
        QCOMPARE(rows[0].avg, 2.0);
    }

    // Before: a TPU profile showed only the "Async XLA Ops" copy-done ops, with totals of tens
    // of seconds, and nothing of its "XLA Ops" line, which is where XProf reads TPU ops.
    void tpuOpsFromTheXlaOpsLine() {
        Fixture f;
        const uint32_t tpu = f.plane("/device:TPU:0");
        // As a JAX profile from a TPU v6e: the runtime writes these lines under ordinary ids.
        const uint32_t modules = f.b.addTrack(tpu, 1, "XLA Modules");
        const uint32_t ops = f.b.addTrack(tpu, 2, "XLA Ops");
        const uint32_t async = f.b.addTrack(tpu, 3, "Async XLA Ops");
        const uint32_t traceMe = f.b.addTrack(tpu, 4, "XLA TraceMe");
        const uint32_t steps = f.b.addTrack(tpu, 5, "Steps");
        f.event(tpu, modules, "jit_train_step(1)", 0, 20 * us);
        f.event(tpu, ops, "fusion.1", 1 * us, 8 * us); // [1,9)
        f.stat("tf_op", "model/dense/MatMul:MatMul");
        f.event(tpu, ops, "convolution.2", 2 * us, 4 * us); // [2,6), inside fusion.1
        f.stat("tf_op", "model/conv/Conv2D:Conv2D");
        f.event(tpu, ops, "copy.3", 12 * us, 2 * us);   // no framework op
        f.event(tpu, ops, "fusion.1", 15 * us, 3 * us); // [15,18)
        f.stat("tf_op", "model/dense/MatMul:MatMul");
        f.event(tpu, async, "copy-done", 0, 30'000'000 * us);
        f.event(tpu, traceMe, "ThunkExecute", 0, 19 * us);
        f.event(tpu, steps, "0", 0, 20 * us);
        auto p = f.b.finish();
        const TfOpStats s = computeTfOpStats(*p);
        QVERIFY(s.hasDevice);
        QVERIFY(!s.hasGpu);
        const std::vector<Row> rows = rowsOf(tfOpStatsTable(s, false));
        QCOMPARE(rows.size(), size_t(3));
        // MatMul: 8 + 3 = 11 µs total; self (8 - 4) + 3 = 7 µs; two calls of fusion.1.
        QCOMPARE(rows[0].op, std::string("model/dense/MatMul"));
        QCOMPARE(rows[0].total, 11.0);
        QCOMPARE(rows[0].self, 7.0);
        QCOMPARE(rows[0].occurrences, int64_t(2));
        QCOMPARE(rows[1].op, std::string("model/conv/Conv2D"));
        QCOMPARE(rows[1].self, 4.0);
        QCOMPARE(rows[2].op, std::string("copy.3"));
        QCOMPARE(rows[2].type, std::string("Unknown"));
        QVERIFY(!findRow(rows, "Device", "copy-done"));
        // Idle spans the op lines and the Steps line, [0,20), less 13 µs of op self time.
        QCOMPARE(s.deviceIdlePs, 7 * us);
        QVERIFY(hasTfOpStats(*p));
        // TPU op lines are the device's work: a launch on the host joins them, and the trace
        // viewer's "Fit GPUs" frames them; the async line is not.
        QVERIFY(p->tracks()[ops].deviceOps);
        QVERIFY(!p->tracks()[async].deviceOps);
        QVERIFY(!p->tracks()[modules].deviceOps);
    }

    // Lines are derived by XProf's reserved ids (0xdeadbeef .. +289 as a 32-bit int), not names.
    void derivedLinesByReservedIds() {
        QVERIFY(isDerivedLineId(-559038737));           // 0xdeadbeef, "Steps"
        QVERIFY(isDerivedLineId(int64_t(0xdeadbeefu))); // the same id written unsigned
        QVERIFY(isDerivedLineId(-559038737 + 289));     // last host XLA region line
        QVERIFY(!isDerivedLineId(-559038737 + 290));
        QVERIFY(!isDerivedLineId(-559038738));
        QVERIFY(!isDerivedLineId(2));
        Fixture f;
        const uint32_t gpu = f.plane("/device:GPU:0");
        const uint32_t named = f.b.addTrack(gpu, 9, "TensorFlow Ops"); // not a reserved id
        const uint32_t derived = f.b.addTrack(gpu, kTfOpsLineId, "TensorFlow Ops");
        f.event(gpu, named, "k", 0, 1 * us);
        f.event(gpu, derived, "k", 0, 1 * us);
        auto p = f.b.finish();
        QVERIFY(!p->tracks()[named].derived);
        QVERIFY(p->tracks()[named].deviceOps);
        QVERIFY(p->tracks()[derived].derived);
        QVERIFY(!p->tracks()[derived].deviceOps);
    }

    // XProf's xplane_to_op_metrics_db_test.cc, HostOpMetricsDb: TfOp1 [100,108) µs on thread 1;
    // TfOp1 [100,108) and TfOp2 [110,120) on thread 2. Idle: 0 + (20 - 18) = 2 µs.
    void xprofHostOpMetricsDb() {
        Fixture f;
        const uint32_t cpu = f.plane("/host:CPU");
        const uint32_t t1 = f.b.addTrack(cpu, 10, "thread1");
        const uint32_t t2 = f.b.addTrack(cpu, 20, "thread2");
        f.event(cpu, t1, "TfOp1:TfOp1", 100000 * ns, 8000 * ns);
        f.event(cpu, t2, "TfOp1:TfOp1", 100000 * ns, 8000 * ns);
        f.event(cpu, t2, "TfOp2:TfOp2", 110000 * ns, 10000 * ns);
        auto p = f.b.finish();
        const TfOpStats s = computeTfOpStats(*p);
        QCOMPARE(s.hostIdlePs, 2000 * ns);
        const std::vector<Row> rows = rowsOf(tfOpStatsTable(s, false));
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(rows[0].op, std::string("TfOp1"));
        QCOMPARE(rows[0].type, std::string("TfOp1"));
        QCOMPARE(rows[0].occurrences, int64_t(2));
        QCOMPARE(rows[0].total, 16.0);
        QCOMPARE(rows[1].op, std::string("TfOp2"));
        QCOMPARE(rows[1].occurrences, int64_t(1));
        QCOMPARE(rows[1].total, 10.0);
    }

    // XProf's op_stats_to_tf_stats_test.cc, GpuTfStats: TfOp1 runs kernel1 and kernel2 on two
    // streams, TfOp2 kernel3, Conv2D kernel4 (Tensor Core) and kernel5 with newline-separated
    // kernel_details. Also DeviceOpMetricsDb of xplane_to_op_metrics_db_test.cc (the first five
    // events): op time 46 µs > span 30 µs, so idle is 0.
    void xprofGpuTfStats() {
        Fixture f;
        const uint32_t gpu = f.plane("/device:GPU:0");
        const uint32_t s1 = f.b.addTrack(gpu, 10, "Stream #10");
        const uint32_t s2 = f.b.addTrack(gpu, 20, "Stream #20");
        const char* details = "regs:32\nstatic_shared:0\ndynamic_shared:16384\ngrid:2,1,1\n"
                              "block:32,1,1\nocc_pct:100";
        auto kernel = [&](uint32_t line, const char* name, const char* op, int64_t startNs,
                          bool withDetails) {
            f.event(gpu, line, name, startNs * ns, (startNs == 100000 ? 8000 : 10000) * ns);
            f.stat("tf_op", op);
            if (withDetails) f.stat("kernel_details", details);
        };
        kernel(s1, "kernel1", "TfOp1:TfOp1", 100000, false);
        kernel(s1, "kernel2", "TfOp1:TfOp1", 110000, false);
        kernel(s2, "kernel1", "TfOp1:TfOp1", 100000, false);
        kernel(s2, "kernel2", "TfOp1:TfOp1", 110000, false);
        kernel(s2, "kernel3", "TfOp2:TfOp2", 120000, false);
        auto first = f.b.finish();
        QCOMPARE(computeTfOpStats(*first).deviceIdlePs, int64_t(0));

        Fixture g;
        const uint32_t gpu2 = g.plane("/device:GPU:0");
        const uint32_t a = g.b.addTrack(gpu2, 10, "Stream #10");
        const uint32_t b = g.b.addTrack(gpu2, 20, "Stream #20");
        auto kernel2 = [&](uint32_t line, const char* name, const char* op, int64_t startNs,
                           bool withDetails) {
            g.event(gpu2, line, name, startNs * ns, (startNs == 100000 ? 8000 : 10000) * ns);
            g.stat("tf_op", op);
            if (withDetails) g.stat("kernel_details", details);
        };
        kernel2(a, "kernel1", "TfOp1:TfOp1", 100000, false);
        kernel2(a, "kernel2", "TfOp1:TfOp1", 110000, false);
        kernel2(b, "kernel1", "TfOp1:TfOp1", 100000, false);
        kernel2(b, "kernel2", "TfOp1:TfOp1", 110000, false);
        kernel2(b, "kernel3", "TfOp2:TfOp2", 120000, false);
        kernel2(b, "volta_fp16_s884gemm", "Conv2D:Conv2D", 130000, true);
        kernel2(b, "kernel5", "Conv2D:Conv2D", 150000, true);
        auto p = g.b.finish();
        const TfOpStats s = computeTfOpStats(*p);
        const Table t = tfOpStatsTable(s, true);
        const std::vector<Row> rows = rowsOf(t);
        QCOMPARE(rows.size(), size_t(4)); // TfOp1, Conv2D, TfOp2, IDLE
        QCOMPARE(rows[0].op, std::string("TfOp1"));
        QCOMPARE(rows[0].type, std::string("TfOp1"));
        QCOMPARE(rows[0].occurrences, int64_t(2));
        QCOMPARE(rows[0].self, 8.0 * 2 + 10.0 * 2);
        QCOMPARE(rows[1].op, std::string("Conv2D"));
        QCOMPARE(rows[1].occurrences, int64_t(1));
        QCOMPARE(rows[1].self, 20.0);
        // Half of Conv2D's kernel time is in the Tensor Core kernel.
        QCOMPARE(t.number(1, size_t(t.columnIndex("TensorCore utilization (%)"))), 50.0);
        QCOMPARE(rows[2].op, std::string("TfOp2"));
        QCOMPARE(rows[2].occurrences, int64_t(1));
        QCOMPARE(rows[2].self, 10.0);
    }

    // XProf's HostXPlaneWithXlaOps: XLA CPU ops are host ops named by their tf_op stat.
    void xprofHostXlaOps() {
        Fixture f;
        const uint32_t cpu = f.plane("/host:CPU");
        const uint32_t line = f.b.addTrack(cpu, 10, "t");
        f.event(cpu, line, "xla_op", 100000 * ns, 8000 * ns);
        f.stat("tf_op", "tf_op");
        f.event(cpu, line, "xla_op2", 110000 * ns, 10000 * ns);
        f.stat("tf_op", "tf_op2");
        auto p = f.b.finish();
        QVERIFY(hasTfOpStats(*p));
        const TfOpStats s = computeTfOpStats(*p);
        QCOMPARE(s.hostIdlePs, 2000 * ns);
        const std::vector<Row> rows = rowsOf(tfOpStatsTable(s, false));
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(rows[0].op, std::string("tf_op2"));
        QCOMPARE(rows[0].total, 10.0);
        QCOMPARE(rows[1].op, std::string("tf_op"));
        QCOMPARE(rows[1].total, 8.0);
        QCOMPARE(rows[1].type, std::string("Unknown"));
    }

    // XProf's HostXPlaneWithInputPipelineTracemeOps: stages named by the event, typed by their
    // category. XProf keeps a row per stage id; Stepscope one per (name, category).
    void xprofInputPipelineStages() {
        Fixture f;
        const uint32_t cpu = f.plane("/host:CPU");
        const uint32_t line = f.b.addTrack(cpu, 10, "t");
        const std::tuple<const char*, int64_t, int64_t, int64_t> stages[] = {
            {"ShuffleMapDataset", 100, 10, 1},
            {"MapMapDataset", 100, 8, 2},
            {"ShuffleMapDataset", 120, 10, 3},
            {"MapMapDataset", 120, 8, 4},
        };
        for (auto [name, startUs, durUs, id] : stages) {
            f.event(cpu, line, name, startUs * us, durUs * us);
            f.b.addEventStat(
                {f.b.intern("input_pipeline_stage_id"), StatType::Int64, uint64_t(id)});
            f.stat("input_pipeline_stage_category", "preprocessing");
        }
        auto p = f.b.finish();
        const TfOpStats s = computeTfOpStats(*p);
        QCOMPARE(s.hostIdlePs, 10 * us); // span 30 µs, self 2 + 8 + 2 + 8
        const std::vector<Row> rows = rowsOf(tfOpStatsTable(s, false));
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(rows[0].op, std::string("MapMapDataset"));
        QCOMPARE(rows[0].type, std::string("preprocessing"));
        QCOMPARE(rows[0].occurrences, int64_t(2));
        QCOMPARE(rows[0].self, 16.0);
        QCOMPARE(rows[1].op, std::string("ShuffleMapDataset"));
        QCOMPARE(rows[1].total, 20.0);
        QCOMPARE(rows[1].self, 4.0);
    }

    void jaxOpsNamedByNameStatThenHloOp() {
        Fixture f;
        const uint32_t gpu = f.plane("/device:GPU:0");
        const uint32_t s = f.b.addTrack(gpu, 16, "Stream #16(Kernel)");
        f.event(gpu, s, "gemm_fusion_dot.kd", 0, 2 * us);
        f.stat("tf_op", "XlaModule:");
        f.stat("name", "jit(loss_fn)/jvp()/dot_general");
        f.stat("hlo_op", "gemm_fusion_dot.3");
        f.event(gpu, s, "gemm_fusion_dot.kd", 3 * us, 1 * us);
        f.stat("tf_op", "XlaModule:");
        f.stat("hlo_op", "while.1::copy.2");
        f.event(gpu, s, "gemm_fusion_dot.kd", 5 * us, 1 * us);
        f.stat("tf_op", "XlaModule:");
        auto p = f.b.finish();
        const std::vector<Row> rows = rowsOf(tfOpStatsTable(computeTfOpStats(*p), false));
        QCOMPARE(rows.size(), size_t(3));
        QCOMPARE(rows[0].op, std::string("jit(loss_fn)/jvp()/dot_general"));
        QCOMPARE(rows[0].type, std::string("dot_general"));
        QCOMPARE(rows[0].total, 2.0);
        // Sorted by self time, then total, then name: both 1 µs, "XlaModule" < "copy.2".
        QCOMPARE(rows[1].op, std::string("XlaModule"));
        QCOMPARE(rows[1].type, std::string("XlaModule"));
        QCOMPARE(rows[2].op, std::string("copy.2")); // the innermost of while.1::copy.2
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

    // Every device row of the real profiles, checked against an independent count with
    // protobuf's classes: per op (the framework op's name before its first ':', the bare name
    // where there is no ':', the kernel's own name where there is no framework op), the summed
    // duration and the largest count among its kernels.
    void realProfilesDeviceRowsMatchAnIndependentCount() {
        const std::string files[] = {kBert, kRealData + "/jax-rocm/jax08_gemm.tw003.xplane.pb"};
        for (const std::string& path : files) {
            if (!std::filesystem::exists(path)) QSKIP("../shared/realdata not found");
            struct Expected {
                int64_t totalPs = 0;
                std::map<std::string, int64_t> perKernel;
            };
            std::map<std::string, Expected> expected;
            int64_t allPs = 0;
            auto innermost = [](const std::string& h) {
                const size_t sep = h.rfind("::");
                return sep == std::string::npos ? h : h.substr(sep + 2);
            };
            for (const fixtures::ProtoEvent& e : fixtures::readProtoEvents(path)) {
                const auto id = int32_t(uint32_t(uint64_t(e.lineId)));
                const bool derived = id >= int32_t(0xdeadbeefu) && id <= int32_t(0xdeadbeefu) + 289;
                if (!e.plane.starts_with("/device:GPU:") || derived) continue;
                std::string op;
                const auto tfOp = e.text.find("tf_op");
                const auto level0 = e.text.find("level 0");
                const auto hlo = e.text.find("hlo_op");
                // An empty framework op is none (XProf: IsTfOp() is !tf_op_fullname.empty()).
                const std::string* fw =
                    tfOp != e.text.end() && !tfOp->second.empty()       ? &tfOp->second
                    : level0 != e.text.end() && !level0->second.empty() ? &level0->second
                                                                        : nullptr;
                if (fw && *fw != "XlaModule:")
                    op = fw->substr(0, fw->find(':'));
                else if (fw || hlo != e.text.end())
                    op = e.text.count("name")  ? e.text.at("name")
                         : hlo != e.text.end() ? innermost(hlo->second)
                                               : "XlaModule";
                else
                    op = e.name; // no op claims it: a row of its own
                expected[op].totalPs += e.durationPs;
                ++expected[op].perKernel[e.name];
                allPs += e.durationPs;
            }
            const LoadResult r = loadPath(path);
            QVERIFY2(r.ok(), r.error.c_str());
            const TfOpStats s = computeTfOpStats(*r.profile);
            int64_t devicePs = 0, deviceRows = 0;
            for (const TfOpStatsRow& row : s.rows) {
                if (row.side != OpSide::Device) continue;
                ++deviceRows;
                devicePs += row.totalPs;
                const std::string& name = s.ops[row.op].name;
                QVERIFY2(expected.count(name), (path + ": " + name).c_str());
                const Expected& x = expected.at(name);
                QVERIFY2(row.totalPs == x.totalPs, name.c_str());
                int64_t calls = 0;
                for (const auto& [kernel, n] : x.perKernel) calls = std::max(calls, n);
                QVERIFY2(int64_t(row.occurrences) == calls, name.c_str());
            }
            QCOMPARE(deviceRows, int64_t(expected.size()));
            QCOMPARE(devicePs, allPs); // every device event's time is in exactly one row
        }
    }

    // On BERT the device "by op" pie, checked against the device ops of an independent
    // protobuf count (op: the framework op, tf_op or 'level 0', before ':', type: after it; a
    // kernel without one is its own op of type Unknown; GPU ops have no
    // children, so self time is total time): its first op slices are the top ops, its type folds
    // hold the remaining ops of their type, and all slices together hold every op and all time.
    void bertByOpPieAgainstAnIndependentCount() {
        if (!std::filesystem::exists(kBert)) QSKIP("../shared/realdata not found");
        std::map<std::string, std::pair<std::string, int64_t>> ops; // op -> (type, time)
        int64_t allPs = 0;
        for (const fixtures::ProtoEvent& e : fixtures::readProtoEvents(kBert)) {
            const auto id = int32_t(uint32_t(uint64_t(e.lineId)));
            const bool derived = id >= int32_t(0xdeadbeefu) && id <= int32_t(0xdeadbeefu) + 289;
            if (!e.plane.starts_with("/device:GPU:") || derived) continue;
            const auto tfOp = e.text.find("tf_op");
            const auto level0 = e.text.find("level 0"); // TF 2.4's spelling
            const std::string fw = tfOp != e.text.end() && !tfOp->second.empty() ? tfOp->second
                                   : level0 != e.text.end()                      ? level0->second
                                                                                 : std::string();
            const size_t colon = fw.find(':');
            auto& op = fw.empty() ? ops[e.name] : ops[fw.substr(0, colon)];
            op.first = fw.empty() ? "Unknown" : fw.substr(colon + 1);
            op.second += e.durationPs;
            allPs += e.durationPs;
        }
        QVERIFY(ops.size() > 1000);
        std::vector<std::pair<int64_t, std::string>> byTime; // (-time, op): largest first
        for (const auto& [name, op] : ops) byTime.push_back({-op.second, name});
        std::sort(byTime.begin(), byTime.end());
        std::map<std::string, size_t> restOfType;
        for (size_t i = 4; i < byTime.size(); ++i) ++restOfType[ops.at(byTime[i].second).first];

        const LoadResult r = loadPath(kBert);
        QVERIFY2(r.ok(), r.error.c_str());
        const PieData pie =
            tfOpStatsTopOpsPie(computeTfOpStats(*r.profile), OpSide::Device, false, 4, 3);
        size_t items = 0, opSlices = 0;
        double value = 0;
        for (const PieSlice& slice : pie) {
            items += slice.items;
            value += slice.value;
            if (slice.items == 1 && ops.count(slice.label)) {
                QVERIFY2(opSlices < 4, slice.label.c_str());
                QCOMPARE(slice.label, byTime[opSlices].second);
                QCOMPARE(slice.value, double(-byTime[opSlices].first) / 1e6);
                ++opSlices;
            }
            const size_t paren = slice.label.find(" (");
            if (slice.items > 1 && !slice.label.starts_with("Other")) {
                const std::string type = slice.label.substr(0, paren);
                QVERIFY2(restOfType.count(type), type.c_str());
                QCOMPARE(slice.items, restOfType.at(type));
            }
        }
        QCOMPARE(opSlices, size_t(4));
        QCOMPARE(items, ops.size());
        QVERIFY(std::abs(value - double(allPs) / 1e6) < 1e-6 * value);
        // What a top-7 pie folded into one 96% slice is now spread over types: no slice holds
        // half the time.
        for (const PieSlice& slice : pie) QVERIFY2(slice.value < value / 2, slice.label.c_str());
    }

    void bertHostFacts() {
        if (!std::filesystem::exists(kBert))
            QSKIP("../shared/realdata not found; real-profile op stats skipped");
        // Independently: host events whose own name ends in ":MultiDeviceIteratorGetNextFromShard".
        int64_t iteratorShards = 0;
        for (const fixtures::ProtoEvent& e : fixtures::readProtoEvents(kBert))
            if (e.plane == "/host:CPU" && e.name.ends_with(":MultiDeviceIteratorGetNextFromShard"))
                ++iteratorShards;
        QCOMPARE(iteratorShards, int64_t(4));

        const LoadResult r = loadPath(kBert);
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        QVERIFY(hasTfOpStats(p));
        const TfOpStats s = computeTfOpStats(p);
        QVERIFY(s.hasHost && s.hasDevice && s.hasGpu);
        const Table t = tfOpStatsTable(s, false);
        std::map<std::string, int64_t> hostTypeCount;
        double lastCum[2] = {0, 0};
        for (const Row& row : rowsOf(t)) {
            if (row.side == "Host") hostTypeCount[row.type] += row.occurrences;
            lastCum[row.side == "Host"] = row.cumPct;
            QVERIFY(row.self <= row.total + 1e-9);
        }
        QCOMPARE(lastCum[0], 100.0);
        QCOMPARE(lastCum[1], 100.0);
        QCOMPARE(hostTypeCount["MultiDeviceIteratorGetNextFromShard"], iteratorShards);
        // Allocator events carry tf_op stats here; they are not ops.
        QCOMPARE(hostTypeCount.count("MemoryAllocation"), size_t(0));
        QCOMPARE(hostTypeCount.count("MemcpyH2D"), size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestOpStats)
#include "test_op_stats.moc"
