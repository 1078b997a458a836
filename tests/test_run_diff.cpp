// Run diff: the rank test and its interval on samples worked out by hand, step pairing, and the
// fixture pairs of tests/fixtures/DiffFixtures.h (every expected value is worked out in the
// comment above it from the fixture's µs); the two ranks of a real Kineto job checked against an
// independent count (gzip + QJsonDocument, not Stepscope's importer).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>
#include <random>

#include "model/ProfileLoader.h"
#include "model/analysis/RunDiff.h"
#include "model/analysis/RunDiffFindings.h"
#include "model/analysis/RunDiffTable.h"
#include "model/analysis/ShiftTest.h"
#include "tests/fixtures/DiffFixtures.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {

std::shared_ptr<const Profile> load(const FixtureSpace& space) {
    const std::vector<uint8_t> bytes = space.encode();
    LoadResult r = loadXSpaceBytes(bytes, "diff-host");
    if (!r.ok()) qFatal("fixture does not load: %s", r.error.c_str());
    return r.profile;
}

RunDiff diffOf(DiffScenario s, RunDiffOptions options = {}) {
    const auto [base, candidate] = diffFixture(s);
    return diffRuns(*load(base), *load(candidate), options);
}

const DiffRow* row(const std::vector<DiffRow>& rows, const std::string& name) {
    for (const DiffRow& r : rows)
        if (r.name == name) return &r;
    return nullptr;
}

constexpr const char* kGemm = "volta_sgemm_128x64_nn";

} // namespace

class TestRunDiff : public QObject {
    Q_OBJECT

private slots:
    // The exact null of U for m = n = 3 and 4: C(6,3) = 20 and C(8,4) = 70 equally likely
    // orderings; U = 0 in exactly one, U <= 1 in two, U <= 2 in four (U=2: two orderings).
    void exactNull() {
        const RankSumNull n3(3, 3);
        QCOMPARE(n3.cdf(-1), 0.0);
        QVERIFY(std::fabs(n3.cdf(0) - 1.0 / 20) < 1e-15);
        QVERIFY(std::fabs(n3.cdf(1) - 2.0 / 20) < 1e-15);
        QVERIFY(std::fabs(n3.cdf(2) - 4.0 / 20) < 1e-15);
        QCOMPARE(n3.cdf(9), 1.0);
        const RankSumNull n4(4, 4);
        QVERIFY(std::fabs(n4.cdf(0) - 1.0 / 70) < 1e-15);
        QVERIFY(std::fabs(n4.cdf(2) - 4.0 / 70) < 1e-15);
        // Published two-sided 5% critical value for m = n = 8 (Mann-Whitney tables): U <= 13.
        const RankSumNull n8(8, 8);
        QVERIFY(n8.cdf(13) <= 0.025);
        QVERIFY(n8.cdf(14) > 0.025);
        QVERIFY(std::fabs(n8.cdf(0) - 1.0 / 12870) < 1e-18);
    }

    // {1,2,3,4} vs {5,6,7,8}: U = 16 (every candidate larger), exact two-sided p = 2/70.
    // Differences y - x: 1 once, 2 twice, 3 three, 4 four, 5 three, 6 twice, 7 once; HL = 4.
    // 95%: P(U<=0) = 1/70 <= 0.025 < P(U<=1) = 2/70, so k = 1: [D(1), D(16)] = [1, 7].
    // 90%: P(U<=1) = 2/70 <= 0.05 < P(U<=2) = 4/70, so k = 2: [D(2), D(15)] = [2, 6].
    void exactTestAndInterval() {
        const RankSumNull null(4, 4);
        const ShiftTest t = shiftTest({1, 2, 3, 4}, {5, 6, 7, 8}, 0.95, &null);
        QVERIFY(t.exact);
        QCOMPARE(t.u, 16.0);
        QVERIFY(std::fabs(t.pValue - 2.0 / 70) < 1e-15);
        QCOMPARE(t.shift, 4.0);
        QVERIFY(t.interval.has_value());
        QCOMPARE(t.interval->first, 1.0);
        QCOMPARE(t.interval->second, 7.0);
        const ShiftTest t90 = shiftTest({1, 2, 3, 4}, {5, 6, 7, 8}, 0.90, &null);
        QCOMPARE(t90.interval->first, 2.0);
        QCOMPARE(t90.interval->second, 6.0);
        // 3 vs 3: the smallest two-sided p is 2/20 = 0.1, so no 95% interval exists.
        const RankSumNull n3(3, 3);
        const ShiftTest small = shiftTest({1, 2, 3}, {4, 5, 6}, 0.95, &n3);
        QVERIFY(std::fabs(small.pValue - 0.1) < 1e-15);
        QVERIFY(!small.interval);
        QCOMPARE(small.shift, 3.0);
    }

    // Ties: 8 x 500 vs 8 x 600. U = 64; tie groups of 8 and 8: sum t^3 - t = 1008; N = 16;
    // var = 64/12 * (17 - 1008/240) = 5.3333 * 12.8 = 68.2667; z = (64 - 32 - 0.5) / sqrt(var)
    // = 31.5 / 8.26237 = 3.81247; p = erfc(z / sqrt 2). All 64 differences are 100.
    void normalApproximationWithTies() {
        const std::vector<double> base(8, 500.0), candidate(8, 600.0);
        const RankSumNull null(8, 8);
        const ShiftTest t = shiftTest(base, candidate, 0.95, &null);
        QVERIFY(!t.exact);
        QCOMPARE(t.u, 64.0);
        const double z = 31.5 / std::sqrt(64.0 / 12.0 * 12.8);
        QVERIFY(std::fabs(z - 3.81247) < 1e-5);
        QVERIFY(std::fabs(t.pValue - std::erfc(z / std::sqrt(2.0))) < 1e-12);
        QCOMPARE(t.shift, 100.0);
        QCOMPARE(t.interval->first, 100.0);
        QCOMPARE(t.interval->second, 100.0);
        // All sixteen values equal: no shift, an interval of exactly 0.
        const ShiftTest same = shiftTest(base, base, 0.95, &null);
        QCOMPARE(same.pValue, 1.0);
        QCOMPARE(same.shift, 0.0);
        QCOMPARE(same.interval->first, 0.0);
        QCOMPARE(same.interval->second, 0.0);
    }

    // Candidate adds dropout_kernel (50 µs, op model/dropout/Mul) in each of 5 steps: an added
    // op and kernel, 5 events, 250 µs; MatMul and Relu identical (unchanged, within noise).
    // Step time 620 -> 670 µs in every step: ties only, HL shift 50, interval [50, 50].
    void opAdded() {
        const RunDiff d = diffOf(DiffScenario::OpAdded);
        QCOMPARE(d.pairing.pairs.size(), size_t(5));
        const DiffRow* mul = row(d.ops, "model/dropout/Mul");
        QVERIFY(mul);
        QCOMPARE(mul->type, std::string("Mul"));
        QCOMPARE(mul->diffClass, DiffClass::Added);
        QCOMPARE(mul->base.count, uint64_t(0));
        QCOMPARE(mul->candidate.count, uint64_t(5));
        QCOMPARE(mul->candidate.totalPs, int64_t(250) * 1000000);
        QCOMPARE(d.ops.front().name, std::string("model/dropout/Mul")); // largest |delta|
        const DiffRow* matmul = row(d.ops, "model/dense/MatMul");
        QCOMPARE(matmul->diffClass, DiffClass::Unchanged);
        QCOMPARE(matmul->evidence, DiffEvidence::NotSignificant);
        QCOMPARE(matmul->base.totalPs, int64_t(2500) * 1000000);
        QCOMPARE(matmul->candidate.totalPs, int64_t(2500) * 1000000);
        const DiffRow* k = row(d.kernels, "dropout_kernel");
        QCOMPARE(k->diffClass, DiffClass::Added);
        QCOMPARE(k->type, std::string("grid:8,2,1 block:256,1,1 regs:32 shm:4096"));
        QCOMPARE(d.categories.front().name, std::string("Step time"));
        const DiffRow& step = d.categories.front();
        QCOMPARE(step.base.totalPs, int64_t(5 * 620) * 1000000);
        QCOMPARE(step.candidate.totalPs, int64_t(5 * 670) * 1000000);
        QCOMPARE(step.test.shift, 50.0);
        QCOMPARE(step.diffClass, DiffClass::Slower);
        QCOMPARE(step.evidence, DiffEvidence::Significant);
        // 50 / 620 = 8.0645%
        QVERIFY(std::fabs(step.relativeShiftPercent - 5000.0 / 620) < 1e-9);
        // 50 / 620 = 8.06%; the interval [50, 50] likewise; every pair 670 > 620.
        const std::vector<std::string> summary = runDiffSummary(d);
        QCOMPARE(summary.size(), size_t(3));
        QCOMPARE(summary[0], std::string("Step time 8.1% slower than the baseline in every step "
                                         "(+50 µs per step; 95% interval +8.1% to +8.1%)."));
        QCOMPARE(summary[1], std::string("Op model/dropout/Mul added (50 µs per step)."));
        QCOMPARE(summary[2], std::string("Kernel dropout_kernel added (50 µs per step)."));
    }

    void opRemoved() {
        const RunDiff d = diffOf(DiffScenario::OpRemoved);
        const DiffRow* mul = row(d.ops, "model/dropout/Mul");
        QCOMPARE(mul->diffClass, DiffClass::Removed);
        QCOMPARE(mul->base.count, uint64_t(5));
        QCOMPARE(mul->candidate.count, uint64_t(0));
        QCOMPARE(d.categories.front().diffClass, DiffClass::Faster);
        const Table t = runDiffTable(d, DiffBy::Op);
        const int cls = t.columnIndex("Class");
        const int ratio = t.columnIndex("Ratio");
        QCOMPARE(t.text(0, size_t(cls)), std::string("removed"));
        QCOMPARE(t.exactText(0, size_t(ratio)), std::string("0"));
    }

    // gemm 500 + J vs 600 + J, J = {5,-5,15,-15,25,-25,35,-35}: every candidate value (>= 565)
    // exceeds every baseline value (<= 535), U = 64, no ties: exact p = 2 / C(16,8) = 2/12870.
    // Differences 100 + (J[b] - J[a]); J's pairwise differences are symmetric, so HL = 100.
    // Interval: k = 14 (critical U 13). J sorted is -35, -25, ..., 35 in steps of 10, so
    // J[b] - J[a] = 10 d with 8 - |d| pairs for each d: d = -7, -6, -5, -4 give 1 + 2 + 3 + 4 = 10
    // values, d = -3 the 11th to 15th: D(14) = 100 - 30 = 70 and, by symmetry, D(51) = 130.
    // Totals 4000 / 4800 µs: ratio 1.2; relative shift 100 / 500 = 20%.
    void kernelSlowerEveryStep() {
        const RunDiff d = diffOf(DiffScenario::KernelSlower);
        QCOMPARE(d.pairing.pairs.size(), size_t(8));
        const DiffRow* k = row(d.kernels, kGemm);
        QVERIFY(k);
        QCOMPARE(k->base.totalPs, int64_t(4000) * 1000000);
        QCOMPARE(k->candidate.totalPs, int64_t(4800) * 1000000);
        QVERIFY(k->test.exact);
        QCOMPARE(k->test.u, 64.0);
        QVERIFY(std::fabs(k->test.pValue - 2.0 / 12870) < 1e-15);
        QCOMPARE(k->test.shift, 100.0);
        QCOMPARE(k->test.interval->first, 70.0);
        QCOMPARE(k->test.interval->second, 130.0);
        QCOMPARE(k->diffClass, DiffClass::Slower);
        QCOMPARE(k->evidence, DiffEvidence::Significant);
        QCOMPARE(k->relativeShiftPercent, 20.0);
        const DiffRow* relu = row(d.kernels, "elementwise_relu_kernel");
        QCOMPARE(relu->diffClass, DiffClass::Unchanged);
        const Table t = runDiffTable(d, DiffBy::Kernel);
        QCOMPARE(t.text(0, 0), std::string(kGemm));
        QCOMPARE(t.exactText(0, size_t(t.columnIndex("Ratio"))), std::string("1.2"));
        QCOMPARE(t.exactText(0, size_t(t.columnIndex("Shift low (µs)"))), std::string("70"));
        QCOMPARE(t.exactText(0, size_t(t.columnIndex("Change (%)"))), std::string("20"));
    }

    // gemm 500 + J vs 500 + J', J' = {0,10,-10,20,-20,30,-30,0} (up to 7% either way): J sorted
    // is -35, -25, ..., 35; for the candidate values -30, -20, -10, 0, 0, 10, 20, 30 the baseline
    // values below them number 1, 2, 3, 4, 4, 5, 6, 7: U = 32 = mn/2, p = 1 (the candidate's two
    // zeros tie, so the normal approximation, z = 0). Both samples are symmetric about 500, so
    // HL = 0. Unchanged, within noise, with an interval around 0; steps stay paired unshifted.
    void jitterIsNoChange() {
        const RunDiff d = diffOf(DiffScenario::Jitter);
        QCOMPARE(d.pairing.shift, 0);
        QCOMPARE(d.pairing.pairs.size(), size_t(8));
        const DiffRow* k = row(d.kernels, kGemm);
        QCOMPARE(k->base.totalPs, int64_t(4000) * 1000000);
        QCOMPARE(k->candidate.totalPs, int64_t(4000) * 1000000);
        QCOMPARE(k->test.u, 32.0);
        QCOMPARE(k->test.pValue, 1.0);
        QCOMPARE(k->test.shift, 0.0);
        QVERIFY(k->test.interval->first < 0 && k->test.interval->second > 0);
        QCOMPARE(k->diffClass, DiffClass::Unchanged);
        QCOMPARE(k->evidence, DiffEvidence::NotSignificant);
        for (const DiffRow& r : d.ops) QCOMPARE(r.diffClass, DiffClass::Unchanged);
        for (const DiffRow& r : d.categories) QCOMPARE(r.diffClass, DiffClass::Unchanged);
        QVERIFY(runDiffSummary(d).empty());
    }

    // Candidate step 0 is a warm-up (gemm 1500). Auto: by order, distances per pair of the
    // breakdown: unshifted, pair (0,0) differs by 1000 µs of compute and 1000 µs of step time
    // and the rest by 0; shifted by one every pair matches: the candidate's first step is left
    // out, 5 pairs (i, i+1). By number, 0..4 pair with 0..4 and the warm-up shows as slower.
    void extraStepAtStart() {
        const RunDiff d = diffOf(DiffScenario::ExtraStep);
        QCOMPARE(d.pairing.shift, 1);
        QCOMPARE(d.pairing.pairs.size(), size_t(5));
        QCOMPARE(d.pairing.pairs.front(), (std::pair<size_t, size_t>(0, 1)));
        QVERIFY2(d.pairing.explanation.find("the candidate's first step left out") !=
                     std::string::npos,
                 d.pairing.explanation.c_str());
        for (const DiffRow& r : d.ops) QCOMPARE(r.diffClass, DiffClass::Unchanged);
        QCOMPARE(row(d.ops, "model/dense/MatMul")->candidate.totalPs, int64_t(2500) * 1000000);

        RunDiffOptions byNumber;
        byNumber.alignment = StepAlignment::ByNumber;
        const RunDiff n = diffOf(DiffScenario::ExtraStep, byNumber);
        QCOMPARE(n.pairing.pairs.front(), (std::pair<size_t, size_t>(0, 0)));
        // MatMul: 2500 vs 1500 + 4 x 500 = 3500 µs.
        QCOMPARE(row(n.ops, "model/dense/MatMul")->candidate.totalPs, int64_t(3500) * 1000000);

        // --steps 1:3 keeps baseline steps 1, 2, 3.
        RunDiffOptions range;
        range.firstStep = 1;
        range.lastStep = 3;
        const RunDiff r = diffOf(DiffScenario::ExtraStep, range);
        QCOMPARE(r.pairing.pairs.size(), size_t(3));
        QCOMPARE(r.pairing.pairs.front(), (std::pair<size_t, size_t>(1, 2)));
    }

    // One step each: no noise estimate; 520 vs 500 is +4% of the total, above the 1% floor, but
    // nothing tells it from noise: inconclusive, never "slower", and counted (not named as a
    // change) in the summary. relu 100 vs 100: unchanged.
    void oneStepEach() {
        const RunDiff d = diffOf(DiffScenario::OneStep);
        const DiffRow* k = row(d.kernels, kGemm);
        QCOMPARE(k->evidence, DiffEvidence::NoNoiseEstimate);
        QCOMPARE(k->diffClass, DiffClass::Inconclusive);
        QCOMPARE(k->relativeShiftPercent, 4.0);
        QCOMPARE(row(d.kernels, "elementwise_relu_kernel")->diffClass, DiffClass::Unchanged);
        // Step time 10 + 520 + 100 + 10 = 640 vs 620: +3.23%; MatMul 520 vs 500: +4%.
        const std::vector<std::string> summary = runDiffSummary(d);
        QCOMPARE(summary.size(), size_t(2));
        QCOMPARE(summary[0], std::string("Step time +3.2% against the baseline, but with one step "
                                         "each no noise estimate is possible."));
        // Every table's moves are counted: the op, the gemm kernel and the device compute (32-bit)
        // category (600 -> 620 µs); of the equal moves of 20 µs the op is named.
        QCOMPARE(summary[1], std::string("3 rows moved by 1% or more (1 op, 1 kernel, 1 category), "
                                         "but with one step each no noise estimate is possible "
                                         "(largest: op model/dense/MatMul, +4.0%)."));
        const Table t = runDiffTable(d, DiffBy::Kernel);
        QVERIFY(t.isMissing(0, size_t(t.columnIndex("p-value"))));
        QCOMPARE(t.text(0, size_t(t.columnIndex("Evidence"))), std::string("one step each"));
    }

    // MatMul moves from volta_sgemm (no Tensor Cores, 32-bit) to volta_h884gemm_fp16 (Tensor
    // Cores, 16-bit by its name), 500 -> 300 µs per step. MatMul's Tensor Core share: 0% -> 100%;
    // 16-bit share of device compute: baseline 0 of 600 µs = 0%, candidate 300 of 400 µs = 75%.
    // MatMul faster by 200 µs per step (-40%); the sgemm row removed, the h884 row added.
    void tensorCoreAndPrecisionCallouts() {
        const RunDiff d = diffOf(DiffScenario::TensorCores);
        QCOMPARE(d.callouts.size(), size_t(2));
        QCOMPARE(d.callouts[0].id, std::string("diff_precision"));
        QCOMPARE(d.callouts[0].points, 75.0);
        QCOMPARE(d.callouts[0].text,
                 std::string("16-bit precision rose: device compute in 16-bit went from 0.0% to "
                             "75.0% of device compute time."));
        QCOMPARE(d.callouts[1].id, std::string("diff_tensor_core"));
        QCOMPARE(d.callouts[1].points, 100.0);
        QCOMPARE(d.callouts[1].text,
                 std::string("Tensor Core use rose: model/dense/MatMul ran 0.0% of its kernel "
                             "time on Tensor Cores in the baseline, 100.0% in the candidate."));
        const DiffRow* matmul = row(d.ops, "model/dense/MatMul");
        QCOMPARE(matmul->baseTensorCorePercent, 0.0);
        QCOMPARE(matmul->candidateTensorCorePercent, 100.0);
        QCOMPARE(matmul->diffClass, DiffClass::Faster);
        QCOMPARE(matmul->relativeShiftPercent, -40.0);
        QCOMPARE(row(d.kernels, kGemm)->diffClass, DiffClass::Removed);
        const DiffRow* h884 = row(d.kernels, "volta_h884gemm_fp16_128x128_nn");
        QCOMPARE(h884->diffClass, DiffClass::Added);
        QVERIFY(h884->usesTensorCore);
        QVERIFY(!row(d.kernels, kGemm)->usesTensorCore);
        const std::vector<Recommendation> findings = runDiffFindings(d);
        QCOMPARE(findings.back().text, d.callouts[1].text);
        QCOMPARE(findings.back().id, std::string("diff_tensor_core"));
        QCOMPARE(findings.back().level, Level::Info); // use rose
        // The same pair the other way round: use dropped, a moderate finding.
        const auto [base, candidate] = diffFixture(DiffScenario::TensorCores);
        const RunDiff back = diffRuns(*load(candidate), *load(base), {});
        const std::vector<Recommendation> dropped = runDiffFindings(back);
        QCOMPARE(dropped.back().text,
                 std::string("Tensor Core use dropped: model/dense/MatMul ran 100.0% of its "
                             "kernel time on Tensor Cores in the baseline, 0.0% in the "
                             "candidate."));
        QCOMPARE(dropped.back().level, Level::Moderate);
        QCOMPARE(dropped.back().value, -100.0);
    }

    // The overview's findings for KernelSlower. Step time 10 + (500 + J) + 100 + 10 = 620 + J vs
    // 720 + J: the per-step differences are gemm's, HL 100, interval [70, 130]
    // (kernelSlowerEveryStep), of the mean 620: 16.13%, 11.29% .. 20.97%. MatMul and the gemm
    // kernel: 100 of 500 = 20%, 70 / 500 = 14%, 130 / 500 = 26%. Every pair moved up (600 + J[i]
    // > 500 + J[i]). relu unchanged: no line.
    void findingsForTheOverview() {
        const std::vector<Recommendation> f = runDiffFindings(diffOf(DiffScenario::KernelSlower));
        QCOMPARE(f.size(), size_t(3));
        QCOMPARE(f[0].id, std::string("diff_step_time"));
        QCOMPARE(f[0].level, Level::High);
        QCOMPARE(f[0].tool, ToolId::RunDiff);
        QVERIFY(std::fabs(f[0].value - 10000.0 / 620) < 1e-9);
        QCOMPARE(f[0].text, std::string("Step time 16.1% slower than the baseline in every step "
                                        "(+100 µs per step; 95% interval +11.3% to +21.0%)."));
        QCOMPARE(f[1].id, std::string("diff_op_slower"));
        QCOMPARE(f[1].level, Level::Moderate);
        QCOMPARE(f[1].value, 20.0);
        QCOMPARE(f[1].text,
                 std::string("Op model/dense/MatMul 20.0% slower than the baseline in every step "
                             "(+100 µs per step; 95% interval +14.0% to +26.0%)."));
        QCOMPARE(f[2].id, std::string("diff_kernel_slower"));
        QCOMPARE(f[2].text,
                 std::string("Kernel volta_sgemm_128x64_nn 20.0% slower than the baseline in "
                             "every step (+100 µs per step; 95% interval +14.0% to +26.0%)."));
        // Pure jitter: nothing to say.
        QVERIFY(runDiffFindings(diffOf(DiffScenario::Jitter)).empty());
    }

    // Not every step moved: one row built by hand, baseline 1..8 µs, candidate 9..15 µs and then
    // 0.5 µs in the last pair (paired differences 8 seven times, -7.5 once: 7 of 8 steps slower).
    // U = 7 x 8 = 56, no ties: exact p = 2 P(U <= 8) < 0.05. The 64 differences: 8 negative
    // (0.5 - x), and y - x = d for d = 1..14, d times for d <= 7 and 15 - d times above: up to
    // d = 7 28 of them, d = 8 seven more (35), d = 9 six (41), d = 10 five (46).
    // HL: the 32nd and 33rd differences = the 24th and 25th positive = 7. Interval k = 14 (the
    // critical U of 8 x 8 is 13): D(14) = 6th positive = 3, D(51) = 43rd positive = 10. Baseline
    // mean 4.5 µs: 155.6%, 66.7% .. 222.2%.
    void findingsSayHowManySteps() {
        RunDiff d;
        for (size_t i = 0; i < 8; ++i) d.pairing.pairs.emplace_back(i, i);
        DiffRow r;
        r.name = "model/x";
        r.base.perStepUs = {1, 2, 3, 4, 5, 6, 7, 8};
        r.candidate.perStepUs = {9, 10, 11, 12, 13, 14, 15, 0.5};
        r.base.totalPs = 36'000'000;
        r.candidate.totalPs = 84'500'000;
        r.base.count = r.candidate.count = 8;
        d.ops.push_back(r);
        classifyDiffRows(d.ops, 0.95, 1.0);
        QCOMPARE(d.ops[0].diffClass, DiffClass::Slower);
        QCOMPARE(d.ops[0].test.shift, 7.0);
        const std::vector<std::string> s = runDiffSummary(d);
        QCOMPARE(s.size(), size_t(1));
        QCOMPARE(s[0], std::string("Op model/x 155.6% slower than the baseline in 7 of 8 steps "
                                   "(+7 µs per step; 95% interval +66.7% to +222.2%)."));
    }

    // Two hosts each, loaded from two files per run. worker-a runs KernelSlower's baseline in
    // both runs; worker-b runs the baseline in the baseline and KernelSlower's candidate in the
    // candidate, whose files come in the other order (b, a). By name (auto: the names match):
    // worker-b's step time 620 + J -> 720 + J, 16.1% slower (values as findingsForTheOverview),
    // worker-a identical: unchanged. Found on worker-b only. By order: the baseline's worker-a
    // with the candidate's first host, worker-b: "worker-a / worker-b" slower.
    void hostsPairedNotSummed() {
        QTemporaryDir dir;
        const auto [same, slower] = diffFixture(DiffScenario::KernelSlower);
        const QString a = dir.filePath("a.xplane.pb"), b = dir.filePath("b.xplane.pb");
        QVERIFY(writeFile(a, same.encode()));
        QVERIFY(writeFile(b, slower.encode()));
        auto loaded = [](std::vector<HostFile> files) {
            LoadResult r = loadHosts(files);
            if (!r.ok()) qFatal("fixture hosts do not load: %s", r.error.c_str());
            return r.profile;
        };
        const auto base = loaded({{"worker-a", a.toStdString()}, {"worker-b", a.toStdString()}});
        const auto candidate =
            loaded({{"worker-b", b.toStdString()}, {"worker-a", a.toStdString()}});
        auto host = [](const std::vector<DiffRow>& rows, const std::string& h,
                       const std::string& name) -> const DiffRow* {
            for (const DiffRow& r : rows)
                if (r.host == h && r.name == name) return &r;
            return nullptr;
        };

        const RunDiff d = diffRuns(*base, *candidate, {});
        QCOMPARE(d.hostMatching, HostMatching::ByName);
        QCOMPARE(d.hostPairs.size(), size_t(2));
        QCOMPARE(d.hostPairs[0].label, std::string("worker-a"));
        QCOMPARE(d.hostPairs[1].label, std::string("worker-b"));
        QCOMPARE(d.hostPairs[1].candidate, uint32_t(0));
        QCOMPARE(d.pairing.pairs.size(), size_t(16)); // 8 steps per host, never mixed
        for (const HostPair& h : d.hostPairs)
            for (size_t i = h.firstPair; i < h.firstPair + h.pairCount; ++i) {
                QCOMPARE(d.baseSteps.steps[d.pairing.pairs[i].first].host, h.base);
                QCOMPARE(d.candidateSteps.steps[d.pairing.pairs[i].second].host, h.candidate);
            }
        const DiffRow* stepA = host(d.categories, "worker-a", "Step time");
        const DiffRow* stepB = host(d.categories, "worker-b", "Step time");
        QVERIFY(stepA && stepB);
        QCOMPARE(stepA->diffClass, DiffClass::Unchanged);
        QCOMPARE(stepB->diffClass, DiffClass::Slower);
        QCOMPARE(stepB->base.totalPs, int64_t(8 * 620) * 1000000);
        QCOMPARE(stepB->candidate.totalPs, int64_t(8 * 720) * 1000000);
        const DiffRow* gemmA = host(d.kernels, "worker-a", kGemm);
        const DiffRow* gemmB = host(d.kernels, "worker-b", kGemm);
        QCOMPARE(gemmA->candidate.totalPs, int64_t(4000) * 1000000);
        QCOMPARE(gemmA->diffClass, DiffClass::Unchanged);
        QCOMPARE(gemmB->candidate.totalPs, int64_t(4800) * 1000000);
        QCOMPARE(gemmB->diffClass, DiffClass::Slower);
        const std::vector<std::string> summary = runDiffSummary(d);
        QCOMPARE(summary.size(), size_t(3));
        QCOMPARE(summary[0], std::string("Step time on worker-b 16.1% slower than the baseline in "
                                         "every step (+100 µs per step; 95% interval +11.3% to "
                                         "+21.0%)."));
        QCOMPARE(summary[2], std::string("Kernel volta_sgemm_128x64_nn on worker-b 20.0% slower "
                                         "than the baseline in every step (+100 µs per step; 95% "
                                         "interval +14.0% to +26.0%)."));
        const Table t = runDiffTable(d, DiffBy::Category);
        QCOMPARE(t.columnIndex("Host"), 0);
        QCOMPARE(t.text(0, 0), std::string("worker-a"));
        QCOMPARE(t.text(0, 1), std::string("Step time"));

        RunDiffOptions byOrder;
        byOrder.hosts = HostMatching::ByOrder;
        const RunDiff o = diffRuns(*base, *candidate, byOrder);
        QCOMPARE(o.hostMatching, HostMatching::ByOrder);
        QCOMPARE(o.hostPairs[0].label, std::string("worker-a / worker-b"));
        QCOMPARE(host(o.categories, "worker-a / worker-b", "Step time")->diffClass,
                 DiffClass::Slower);
        QCOMPARE(host(o.categories, "worker-b / worker-a", "Step time")->diffClass,
                 DiffClass::Unchanged);
        // By name with no shared name: nothing to compare, said plainly.
        const auto other = loaded({{"node-1", a.toStdString()}});
        RunDiffOptions byName;
        byName.hosts = HostMatching::ByName;
        const RunDiff none = diffRuns(*base, *other, byName);
        QVERIFY(none.pairing.pairs.empty());
        QVERIFY(none.pairing.explanation.find("No host of the baseline") != std::string::npos);
        // Auto with no shared name: by order.
        QCOMPARE(diffRuns(*base, *other, {}).hostMatching, HostMatching::ByOrder);
    }

    // The order statistics are selected (nth_element), not sorted: on random samples without
    // ties, the estimate must be the median of the fully sorted differences (formed here) and
    // the interval's ends the sorted differences at positions i and mn - 1 - i.
    void selectionMatchesSortedDifferences() {
        std::mt19937 random(7);
        for (int trial = 0; trial < 200; ++trial) {
            const size_t m = 2 + random() % 14, n = 2 + random() % 14;
            std::vector<double> a(m), b(n);
            for (double& v : a) v = double(random()) / 4096.0;
            for (double& v : b) v = double(random()) / 4096.0 + 100.0;
            std::vector<double> d;
            for (double x : a)
                for (double y : b) d.push_back(y - x);
            std::sort(d.begin(), d.end());
            const size_t mn = d.size();
            const double hl = mn % 2 ? d[mn / 2] : d[mn / 2 - 1] + (d[mn / 2] - d[mn / 2 - 1]) / 2;
            const RankSumNull null(m, n);
            for (const RankSumNull* exact : {&null, static_cast<const RankSumNull*>(nullptr)}) {
                const ShiftTest t = shiftTest(a, b, 0.95, exact);
                QCOMPARE(t.shift, hl);
                if (!t.interval) continue;
                const auto at = std::find(d.begin(), d.end(), t.interval->first);
                QVERIFY(at != d.end());
                QCOMPARE(t.interval->second, d[mn - 1 - size_t(at - d.begin())]);
            }
        }
    }

    // Rows built directly: m = 100 rows per table, 8 steps each, every value 500 µs times
    // (1 + u), u uniform in [-5%, 5%] from a fixed mt19937 stream (its output is fixed by the
    // standard; the uniform is formed here, not by a library distribution). No row has a real
    // change. A per-row test at 95% flags about 5% of rows (so ~5 per table, nearly every table);
    // Benjamini-Hochberg over the table keeps the chance of any flagged row in a table of pure
    // noise at most 5%: over 200 tables at most 20 (twice the 10 expected at the bound; the exact
    // discrete test flags fewer) may show one. The per-row count proves the tables do hold
    // p-values a per-row rule would flag.
    void manyRowsOfJitterAreNoChange() {
        std::mt19937 gen(20261123);
        auto jittered = [&] { return 500.0 * (1 + 0.1 * (double(gen()) / 4294967296.0 - 0.5)); };
        int tablesFlagged = 0, rowsFlaggedPerRow = 0;
        for (int table = 0; table < 200; ++table) {
            std::vector<DiffRow> rows(100);
            for (DiffRow& r : rows) {
                for (int i = 0; i < 8; ++i) {
                    r.base.perStepUs.push_back(jittered());
                    r.candidate.perStepUs.push_back(jittered());
                }
                for (double v : r.base.perStepUs) r.base.totalPs += int64_t(v * 1e6);
                for (double v : r.candidate.perStepUs) r.candidate.totalPs += int64_t(v * 1e6);
            }
            classifyDiffRows(rows, 0.95, 1.0);
            bool flagged = false;
            for (const DiffRow& r : rows) {
                QVERIFY(r.evidence != DiffEvidence::TooFewSteps);
                if (r.evidence == DiffEvidence::NotSignificantAcrossRows) ++rowsFlaggedPerRow;
                if (r.diffClass == DiffClass::Slower || r.diffClass == DiffClass::Faster)
                    flagged = true;
                QVERIFY(r.diffClass != DiffClass::Inconclusive);
            }
            tablesFlagged += flagged;
        }
        QVERIFY2(tablesFlagged <= 20, std::to_string(tablesFlagged).c_str());
        // ~5% of 20,000 rows have an interval without 0 on their own.
        QVERIFY2(rowsFlaggedPerRow > 500, std::to_string(rowsFlaggedPerRow).c_str());
    }

    // The same 99 rows of jitter plus one row 10% slower in every step (550 vs 500, jitter 2%:
    // every candidate value exceeds every baseline value): exact p = 2 / C(16,8) = 1.55e-4; BH's
    // bound for the smallest of 100 p-values is 0.05 / 100 = 5e-4, so it stays significant
    // (adjusted p = 100 x 2/12870 = 0.01554...), slower, and alone.
    void oneRealChangeAmongManyRows() {
        std::mt19937 gen(7);
        auto unit = [&] { return double(gen()) / 4294967296.0 - 0.5; };
        std::vector<DiffRow> rows(100);
        for (size_t k = 0; k < rows.size(); ++k) {
            DiffRow& r = rows[k];
            for (int i = 0; i < 8; ++i) {
                r.base.perStepUs.push_back(500 * (1 + 0.04 * unit()));
                r.candidate.perStepUs.push_back((k == 0 ? 550 : 500) * (1 + 0.04 * unit()));
            }
            for (double v : r.base.perStepUs) r.base.totalPs += int64_t(v * 1e6);
            for (double v : r.candidate.perStepUs) r.candidate.totalPs += int64_t(v * 1e6);
        }
        classifyDiffRows(rows, 0.95, 1.0);
        QCOMPARE(rows[0].diffClass, DiffClass::Slower);
        QCOMPARE(rows[0].evidence, DiffEvidence::Significant);
        QVERIFY(std::fabs(rows[0].adjustedPValue - 100 * 2.0 / 12870) < 1e-12);
        for (size_t k = 1; k < rows.size(); ++k) QCOMPARE(rows[k].diffClass, DiffClass::Unchanged);
    }

    // Auto alignment with noisy steps: 40 steps of 100 ms whose compute varies by +-5 ms
    // (jitter (7i mod 11) - 5 ms); the candidate has a warm-up step of 130 ms
    // first, then the same 40 steps. Unshifted, every pair's distance is a jitter difference
    // (at most 2 x 5 ms = 10 ms, median a few ms) except pair 0: 130 vs 100 -> 30 ms plus, more
    // than 3 x the median; shifted by one, every pair matches exactly: shift 1. Without the
    // warm-up (candidate = baseline rotated by one step) no pair stands out: shift 0.
    void warmUpFoundAmongNoisySteps() {
        auto stepOf = [](int64_t number, double ms) {
            StepRecord s;
            s.number = number;
            s.durationPs = int64_t(ms * 1e9);
            s.categoryPs[size_t(StepCategory::DeviceCompute32)] = s.durationPs;
            return s;
        };
        StepAnalysis base, candidate, rotated;
        auto jitterMs = [](int i) { return double((7 * i) % 11 - 5); };
        candidate.steps.push_back(stepOf(0, 130));
        for (int i = 0; i < 40; ++i) {
            base.steps.push_back(stepOf(i, 100 + jitterMs(i)));
            candidate.steps.push_back(stepOf(i + 1, 100 + jitterMs(i)));
            rotated.steps.push_back(stepOf(i, 100 + jitterMs(i + 1)));
        }
        const StepPairing p = pairSteps(base, candidate, {});
        QCOMPARE(p.shift, 1);
        QCOMPARE(p.pairs.size(), size_t(40));
        const StepPairing q = pairSteps(base, rotated, {});
        QCOMPARE(q.shift, 0);
    }

    // A run without steps (no markers): each whole profile is one step.
    void runWithoutSteps() {
        auto [base, candidate] = diffFixture(DiffScenario::OneStep);
        base.planes[0].lines[0].events.clear();
        const RunDiff d = diffRuns(*load(base), *load(candidate), {});
        QVERIFY(d.wholeProfiles);
        QVERIFY(d.categories.empty());
        QVERIFY(d.pairing.explanation.find("The baseline has no steps") != std::string::npos);
        QCOMPARE(row(d.kernels, kGemm)->base.totalPs, int64_t(500) * 1000000);
    }

    // The CLI writes the same table (CSV) and everything (JSON); bad input says which file and
    // why, with exit status 1; bad options are usage errors (2).
    void commandLine() {
        QTemporaryDir dir;
        const auto [base, candidate] = diffFixture(DiffScenario::KernelSlower);
        const QString b = dir.filePath("base.xplane.pb"), c = dir.filePath("cand.xplane.pb");
        QVERIFY(writeFile(b, base.encode()));
        QVERIFY(writeFile(c, candidate.encode()));
        auto run = [](const QStringList& args, QByteArray* out = nullptr,
                      QByteArray* err = nullptr) {
            QProcess p;
            p.start(STEPSCOPE_CLI, QStringList{"diff"} + args);
            if (!p.waitForFinished(60000)) qFatal("stepscope-cli diff hangs");
            if (out) *out = p.readAllStandardOutput();
            if (err) *err = p.readAllStandardError();
            return p.exitCode();
        };
        QByteArray out, err;
        QCOMPARE(run({b, c, "--by", "kernel", "--csv", "-"}, &out, &err), 0);
        QVERIFY(out.startsWith("Kernel,Launch configuration,Class,Evidence,"));
        QVERIFY2(out.contains("\r\nvolta_sgemm_128x64_nn,\"grid:8,2,1 block:256,1,1 regs:32 "
                              "shm:4096\",slower,significant,8,8,4000,4800,800,1.2,500,600,100,70,"
                              "130,20,"),
                 out.constData());
        QVERIFY(err.contains("Steps paired by order. 8 step pair(s)."));
        QCOMPARE(run({b, c, "--json", "-"}, &out), 0);
        const QJsonObject json = QJsonDocument::fromJson(out).object();
        QCOMPARE(json["pairing"].toObject()["steps"].toArray().size(), 8);
        QCOMPARE(json["kernels"].toArray()[0].toObject()["Class"].toString(), QString("slower"));
        QVERIFY(json.contains("categories") && json.contains("ops"));
        // The step time, MatMul and the gemm kernel.
        QCOMPARE(json["summary"].toArray().size(), 3);
        // --steps 2:4 keeps three pairs.
        QCOMPARE(run({b, c, "--steps", "2:4", "--by", "category", "--json", "-"}, &out), 0);
        QCOMPARE(
            QJsonDocument::fromJson(out).object()["pairing"].toObject()["steps"].toArray().size(),
            3);

        const QString c0 = dir.filePath("cand0.xplane.pb");
        QVERIFY(QFile::copy(c, c0));
        // A candidate cut short: exit 1, the message names the candidate and the problem.
        QFile cut(c);
        QVERIFY(cut.resize(cut.size() / 2));
        QCOMPARE(run({b, c, "--csv", "-"}, &out, &err), 1);
        QVERIFY2(err.contains("cannot load the candidate") && err.contains("cand.xplane.pb"),
                 err.constData());
        QCOMPARE(run({dir.filePath("missing.pb"), b, "--csv", "-"}, &out, &err), 1);
        QVERIFY(err.contains("cannot load the baseline"));
        QCOMPARE(run({b, "--csv", "-"}), 2);
        QCOMPARE(run({b, b, "--csv", "-", "--by", "nothing"}), 2);
        QCOMPARE(run({b, b, "--csv", "-", "--steps", "5"}), 2);
        QCOMPARE(run({b, b, "--csv", "-", "--confidence", "1.5"}), 2);
        QCOMPARE(run({b, b, "--csv", "-", "--shift", "1"}), 2); // needs --align order|number
        QCOMPARE(run({b, b, "--csv", "-", "--hosts", "rank"}), 2);
        QCOMPARE(run({b, c0, "--json", "-", "--hosts", "order"}, &out), 0);
        QCOMPARE(QJsonDocument::fromJson(out).object()["hosts"].toObject()["matching"].toString(),
                 QString("order"));
    }

    // The two ranks of HTA's sampled 128-rank job, as baseline and candidate. Independent count:
    // gunzip with the gzip program, parse with QJsonDocument, and sum the kernels (cat "kernel")
    // that start inside each ProfilerStep's [ts, ts + dur).
    void realRanks() {
        const QString dir = QStringLiteral(STEPSCOPE_REALDATA) + "/kineto/";
        const QString f0 = dir + "sampled_rank-0.json.gz", f1 = dir + "sampled_rank-1.json.gz";
        if (!QFile::exists(f0) || !QFile::exists(f1))
            QSKIP("../shared/realdata/kineto/sampled_rank-{0,1}.json.gz not present");
        struct Count {
            int64_t kernels = 0;
            double kernelUs = 0;
            std::map<std::string, double> byName;
        };
        auto count = [](const QString& path) {
            QProcess gz;
            gz.start("gzip", {"-dc", path});
            if (!gz.waitForFinished(60000)) qFatal("gzip failed");
            const QJsonArray events = QJsonDocument::fromJson(gz.readAllStandardOutput())
                                          .object()["traceEvents"]
                                          .toArray();
            std::vector<std::pair<double, double>> steps;
            for (const QJsonValue& v : events) {
                const QJsonObject e = v.toObject();
                if (e["name"].toString().startsWith("ProfilerStep#"))
                    steps.emplace_back(e["ts"].toDouble(),
                                       e["ts"].toDouble() + e["dur"].toDouble());
            }
            Count c;
            for (const QJsonValue& v : events) {
                const QJsonObject e = v.toObject();
                if (e["cat"].toString() != "kernel") continue;
                const double ts = e["ts"].toDouble();
                for (auto [b, end] : steps)
                    if (b <= ts && ts < end) {
                        ++c.kernels;
                        c.kernelUs += e["dur"].toDouble();
                        c.byName[e["name"].toString().toStdString()] += e["dur"].toDouble();
                    }
            }
            return c;
        };
        const Count c0 = count(f0), c1 = count(f1);
        QCOMPARE(c0.kernels, int64_t(1154)); // every kernel of the sampled trace is in a step
        const LoadResult base = loadPath(f0.toStdString());
        const LoadResult candidate = loadPath(f1.toStdString());
        QVERIFY2(base.ok() && candidate.ok(), (base.error + candidate.error).c_str());
        const RunDiff d = diffRuns(*base.profile, *candidate.profile, {});
        QCOMPARE(d.baseSteps.source, StepSource::ProfilerSteps);
        QCOMPARE(d.pairing.pairs.size(), size_t(2));
        QCOMPARE(d.baseSteps.steps[0].number, int64_t(551));
        int64_t n0 = 0, n1 = 0;
        double us0 = 0, us1 = 0;
        std::map<std::string, double> name0, name1;
        for (const DiffRow& r : d.kernels) {
            n0 += int64_t(r.base.count);
            n1 += int64_t(r.candidate.count);
            us0 += double(r.base.totalPs) / 1e6;
            us1 += double(r.candidate.totalPs) / 1e6;
            name0[r.name] += double(r.base.totalPs) / 1e6;
            name1[r.name] += double(r.candidate.totalPs) / 1e6;
            // Two steps each: no 95% interval exists (smallest p = 1/3).
            QVERIFY(r.evidence == DiffEvidence::TooFewSteps);
        }
        QCOMPARE(n0, c0.kernels);
        QCOMPARE(n1, c1.kernels);
        QVERIFY(std::fabs(us0 - c0.kernelUs) < 1e-6 * c0.kernelUs);
        QVERIFY(std::fabs(us1 - c1.kernelUs) < 1e-6 * c1.kernelUs);
        for (const auto& [name, v] : c0.byName) QVERIFY(std::fabs(name0[name] - v) < 1e-3);
        for (const auto& [name, v] : c1.byName) QVERIFY(std::fabs(name1[name] - v) < 1e-3);
        // PyTorch ops have no type of their own: the Type column is empty, never the name again.
        const auto copy = std::find_if(d.ops.begin(), d.ops.end(),
                                       [](const DiffRow& r) { return r.name == "aten::copy_"; });
        QVERIFY(copy != d.ops.end());
        QCOMPARE(copy->type, std::string());
        for (const DiffRow& r : d.ops) QVERIFY2(r.type != r.name, r.name.c_str());
        // Findings quote long kernel names cut at 80 characters (rank 0's split_embedding
        // kernels run past 900), so a finding stays a readable line.
        bool cut = false;
        for (const Recommendation& f : runDiffFindings(d)) {
            QVERIFY2(f.text.size() < 300, f.text.c_str());
            cut = cut || f.text.find("…") != std::string::npos;
        }
        QVERIFY(cut);
        // Kernel names in only one rank are added / removed rows.
        for (const DiffRow& r : d.kernels) {
            const bool in0 = c0.byName.count(r.name) > 0, in1 = c1.byName.count(r.name) > 0;
            if (in0 && !in1 && r.base.totalPs > 0) QCOMPARE(r.diffClass, DiffClass::Removed);
            if (in1 && !in0 && r.candidate.totalPs > 0) QCOMPARE(r.diffClass, DiffClass::Added);
        }
    }
};

QTEST_GUILESS_MAIN(TestRunDiff)
#include "test_run_diff.moc"
