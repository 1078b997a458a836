// The run diff's step lanes (model/analysis/StepLanes.h): which GPU stream events of a step are
// drawn, on which row, named by which op, at which times from the step start; one op index per op
// across both runs.
#include <QtTest>

#include "model/ProfileLoader.h"
#include "model/analysis/StepAnalysis.h"
#include "model/analysis/StepLanes.h"
#include "tests/fixtures/DiffFixtures.h"
#include "tests/fixtures/FixtureXSpace.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {

constexpr int64_t us = 1000000;
using S = FixtureStat;

std::vector<int64_t> micros(std::initializer_list<int64_t> values) {
    std::vector<int64_t> out;
    for (int64_t v : values) out.push_back(v * us);
    return out;
}

// Baseline, GPU:0 (all lines at 1000 ns, so profile times are the offsets: the first event starts
// at 0), times in µs:
//   stream 7: gemm [0, 15) MatMul; gemm [20, 30) MatMul; relu_kernel [30, 35) Relu;
//             gemm [95, 120) MatMul; relu_kernel [110, 115) Relu.
//   stream 8: gemm [200, 210) MatMul.
//   stream 9: copy_kernel [40, 50), no op stat.
FixtureSpace baseline() {
    FixtureSpace space;
    FixturePlane& gpu = space.addPlane(1, "/device:GPU:0");
    const auto matmul = [] { return std::vector{S::str("tf_op", "model/dense/MatMul:MatMul")}; };
    const auto relu = [] { return std::vector{S::str("tf_op", "model/relu:Relu")}; };
    FixtureLine& s7 = gpu.addLine(7, "Stream #7(Compute)", 1000);
    s7.add("gemm", 0, 15 * us, matmul());
    s7.add("gemm", 20 * us, 10 * us, matmul());
    s7.add("relu_kernel", 30 * us, 5 * us, relu());
    s7.add("gemm", 95 * us, 25 * us, matmul());
    s7.add("relu_kernel", 110 * us, 5 * us, relu());
    gpu.addLine(8, "Stream #8(Compute)", 1000).add("gemm", 200 * us, 10 * us, matmul());
    gpu.addLine(9, "Stream #9(Compute)", 1000).add("copy_kernel", 40 * us, 10 * us);
    return space;
}

// Candidate, GPU:0, stream 7: annotation [0, 60) with no op stat, holding relu_kernel [1, 3)
// Relu and gemm [3, 40) MatMul one level down.
FixtureSpace candidate() {
    FixtureSpace space;
    FixturePlane& gpu = space.addPlane(1, "/device:GPU:0");
    FixtureLine& s7 = gpu.addLine(7, "Stream #7(Compute)", 1000);
    s7.add("annotation", 0, 60 * us);
    s7.add("relu_kernel", 1 * us, 2 * us, {S::str("tf_op", "model/relu:Relu")});
    s7.add("gemm", 3 * us, 37 * us, {S::str("tf_op", "model/dense/MatMul:MatMul")});
    return space;
}

// Compares a row with its expected name and columns (times in µs).
void checkRow(const StepLane::Row& row, const std::string& name,
              std::initializer_list<int64_t> beginUs, std::initializer_list<int64_t> durationUs,
              const std::vector<uint32_t>& ops, const std::vector<uint32_t>& kernels) {
    QCOMPARE(row.name, name);
    QCOMPARE(row.beginPs, micros(beginUs));
    QCOMPARE(row.durationPs, micros(durationUs));
    QCOMPARE(row.op, ops);
    QCOMPARE(row.kernel, kernels);
}

StepRecord step(int64_t number, int64_t beginPs, int64_t durationPs) {
    StepRecord s;
    s.number = number;
    s.beginPs = beginPs;
    s.durationPs = durationPs;
    return s;
}

} // namespace

class TestStepLanes : public QObject {
    Q_OBJECT

private slots:
    // Baseline step 3 is [10, 110) µs, candidate step 4 is [0, 50) µs.
    //   Baseline, stream 7: the gemm from 0 starts before the step and the relu at 110 at its
    //   end: left out. The gemm from 95 starts inside and is drawn whole (85 to 110 from the
    //   step start). Stream 8 runs nothing in the step: no row. Stream 9's copy has no op: its
    //   own name is its op (OpCatalog::unclaimedOp).
    //   Candidate: the annotation is level 1 of stream 7, the kernels it holds level 2.
    //   Ops are numbered in the order met, baseline first: MatMul 0, Relu 1, copy_kernel 2,
    //   annotation 3; kernel names likewise.
    void collectsTheEventsThatStartInTheStep() {
        const std::vector<uint8_t> bb = baseline().encode(), cb = candidate().encode();
        const LoadResult b = loadXSpaceBytes(bb, "b"), c = loadXSpaceBytes(cb, "c");
        QVERIFY2(b.ok() && c.ok(), b.error.c_str());
        const StepLanes lanes = collectStepLanes(*b.profile, step(3, 10 * us, 100 * us), *c.profile,
                                                 step(4, 0, 50 * us));
        QCOMPARE(lanes.ops, (std::vector<std::string>{"model/dense/MatMul", "model/relu",
                                                      "copy_kernel", "annotation"}));
        QCOMPARE(lanes.kernels,
                 (std::vector<std::string>{"gemm", "relu_kernel", "copy_kernel", "annotation"}));

        QCOMPARE(lanes.base.title, std::string("Baseline step 3"));
        QCOMPARE(lanes.base.durationPs, 100 * us);
        QCOMPARE(lanes.base.rows.size(), size_t(2));
        checkRow(lanes.base.rows[0], "GPU:0 stream 7", {10, 20, 85}, {10, 5, 25}, {0, 1, 0},
                 {0, 1, 0});
        checkRow(lanes.base.rows[1], "GPU:0 stream 9", {30}, {10}, {2}, {2});
        if (QTest::currentTestFailed()) return;

        QCOMPARE(lanes.candidate.title, std::string("Candidate step 4"));
        QCOMPARE(lanes.candidate.durationPs, 50 * us);
        QCOMPARE(lanes.candidate.rows.size(), size_t(2));
        checkRow(lanes.candidate.rows[0], "GPU:0 stream 7", {0}, {60}, {3}, {3});
        checkRow(lanes.candidate.rows[1], "GPU:0 stream 7 · level 2", {1, 3}, {2, 37}, {1, 0},
                 {1, 0});
    }

    // Step 0 of KernelSlower (tests/fixtures/DiffFixtures.h): baseline gemm 505 µs (500 + J[0])
    // from 10 µs, relu 100 µs after it; candidate gemm 605 µs, then relu. The steps end 10 µs
    // after the relu. One stream row each, one op index per op in both.
    void pairsTheDiffFixturesStep() {
        const auto [base, cand] = diffFixture(DiffScenario::KernelSlower);
        const std::vector<uint8_t> bb = base.encode(), cb = cand.encode();
        const LoadResult b = loadXSpaceBytes(bb, "b"), c = loadXSpaceBytes(cb, "c");
        QVERIFY(b.ok() && c.ok());
        const StepAnalysis bs = analyzeSteps(*b.profile), cs = analyzeSteps(*c.profile);
        const StepLanes lanes = collectStepLanes(*b.profile, bs.steps[0], *c.profile, cs.steps[0]);
        QCOMPARE(lanes.base.title, std::string("Baseline step 0"));
        QCOMPARE(lanes.base.durationPs, 625 * us);
        QCOMPARE(lanes.candidate.durationPs, 725 * us);
        QCOMPARE(lanes.base.rows.size(), size_t(1));
        QCOMPARE(lanes.base.rows[0].name, std::string("GPU:0 stream 7"));
        QCOMPARE(lanes.base.rows[0].beginPs, micros({10, 515}));
        QCOMPARE(lanes.base.rows[0].durationPs, micros({505, 100}));
        QCOMPARE(lanes.candidate.rows[0].beginPs, micros({10, 615}));
        QCOMPARE(lanes.candidate.rows[0].durationPs, micros({605, 100}));
        QCOMPARE(lanes.base.rows[0].op, lanes.candidate.rows[0].op);
        QCOMPARE(lanes.ops[lanes.base.rows[0].op[0]], std::string("model/dense/MatMul"));
        QCOMPARE(lanes.ops[lanes.base.rows[0].op[1]], std::string("model/relu"));
    }
};

QTEST_GUILESS_MAIN(TestStepLanes)
#include "test_step_lanes.moc"
