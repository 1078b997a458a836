// The run diff's host-op table (model/analysis/HostOpDiff.h): HTA's own trace-diff test pair
// (tests/fixtures/HostOpFixtures.h, rewritten from HTA's tests/data/trace_compare) must give the
// classes HTA's tests/test_trace_diff.py asserts; hand-built PyTorch traces for self time, the
// noise-aware verdict (one op 20% slower among jittered ones; tables of pure jitter) and the
// PyTorch plugin's step breakdown; a TensorFlow host op; the CLI's --by host_op.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <random>

#include "model/ProfileLoader.h"
#include "model/analysis/RunDiff.h"
#include "model/analysis/RunDiffFindings.h"
#include "model/analysis/RunDiffTable.h"
#include "tests/fixtures/DiffFixtures.h"
#include "tests/fixtures/HostOpFixtures.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {

constexpr int64_t kUs = 1000000; // ps

const HostOpRow* hostOp(const RunDiff& d, const std::string& kind, const std::string& name) {
    for (const HostOpRow& r : d.hostOps)
        if (r.self.type == kind && r.self.name == name) return &r;
    return nullptr;
}

// 20 ops of 90 µs self time with jitter: op k in step i is 90 x (1 + j/100), j in -5..5 from the
// sequence `seq(i, k)`; the candidate's op_3 has 20% more self time (108 x ...).
std::vector<JitterStep> jitterSteps(int steps, int (*seq)(int, int), double slowerFactor) {
    std::vector<JitterStep> out(static_cast<size_t>(steps));
    for (int i = 0; i < steps; ++i)
        for (int k = 0; k < 20; ++k)
            out[size_t(i)].opSelfUs.push_back(90.0 * (k == 3 ? slowerFactor : 1.0) *
                                              (1 + double(seq(i, k)) / 100));
    return out;
}
int baseJitter(int i, int k) {
    return (7 * i + 3 * k) % 11 - 5;
}
int candidateJitter(int i, int k) {
    return (5 * i + 2 * k + 1) % 11 - 5;
}

RunDiffOptions byOrder() {
    RunDiffOptions o;
    o.alignment = StepAlignment::ByOrder;
    return o;
}

} // namespace

class TestHostOpDiff : public QObject {
    Q_OBJECT

private slots:
    // HTA's tests/test_trace_diff.py on rank 1, iteration 1010 of its trace_compare pair:
    //   ops_diff (CPU): added AddmmBackward0, All2All_Pooled_Req, CatBackward0; deleted
    //   nccl:all_reduce; increased, decreased none; unchanged ProfilerStep#1010,
    //   aten::as_strided, aten::empty, cudaEventQuery, cudaLaunchKernel (compare_traces' count
    //   categories: cpu "=" 5, "+" 3, "-" 1);
    //   get_ops_summary of the base: counts 1 each, total_duration ProfilerStep#1010 122149,
    //   aten::as_strided 0, aten::empty 0, cudaEventQuery 4, cudaLaunchKernel 4, nccl:all_reduce
    //   67 µs;
    //   compare_traces (GPU): "-" 1, the kernel launched by step 1010's cudaLaunchKernel.
    // Here: the same nine rows with the same classes (ProfilerStep#1010 is the row
    // "ProfilerStep#*"; the launch and sync calls are kind "runtime"), and the same counts and
    // totals. With one step pair there is no noise estimate: nothing is inconclusive, since no
    // row present in both runs moved by 1% (the step marker's self time: 122149 - 0 (aten::empty)
    // - 4 - 4 (its two runtime calls) = 122141 µs in the base, and 311 µs (All2All_Pooled_Req)
    // less in the test, -0.25%).
    void htaTraceComparePair() {
        const auto base = loadTraceText(htaTraceCompareText(false));
        const auto test = loadTraceText(htaTraceCompareText(true));
        RunDiffOptions options;
        options.firstStep = options.lastStep = 1010;
        const RunDiff d = diffRuns(*base, *test, options);
        QCOMPARE(d.pairing.pairs.size(), size_t(1));
        QCOMPARE(d.baseSteps.steps[d.pairing.pairs[0].first].number, int64_t(1010));
        QCOMPARE(d.candidateSteps.steps[d.pairing.pairs[0].second].number, int64_t(1010));

        const std::map<std::pair<std::string, std::string>, DiffClass> expected = {
            {{"cpu_op", "AddmmBackward0"}, DiffClass::Added},
            {{"cpu_op", "All2All_Pooled_Req"}, DiffClass::Added},
            {{"cpu_op", "CatBackward0"}, DiffClass::Added},
            {{"user_annotation", "nccl:all_reduce"}, DiffClass::Removed},
            {{"user_annotation", "ProfilerStep#*"}, DiffClass::Unchanged},
            {{"cpu_op", "aten::as_strided"}, DiffClass::Unchanged},
            {{"cpu_op", "aten::empty"}, DiffClass::Unchanged},
            {{"runtime", "cudaEventQuery"}, DiffClass::Unchanged},
            {{"runtime", "cudaLaunchKernel"}, DiffClass::Unchanged},
        };
        QCOMPARE(d.hostOps.size(), expected.size());
        for (const HostOpRow& r : d.hostOps) {
            const auto it = expected.find({r.self.type, r.self.name});
            QVERIFY2(it != expected.end(), r.self.name.c_str());
            QVERIFY2(r.self.diffClass == it->second, r.self.name.c_str());
            QCOMPARE(r.self.evidence, DiffEvidence::NoNoiseEstimate);
        }
        const std::map<std::string, int64_t> baseTotalUs = {
            {"ProfilerStep#*", 122149}, {"aten::as_strided", 0}, {"aten::empty", 0},
            {"cudaEventQuery", 4},      {"cudaLaunchKernel", 4}, {"nccl:all_reduce", 67}};
        for (const auto& [name, us] : baseTotalUs) {
            const HostOpRow* r = nullptr;
            for (const HostOpRow& h : d.hostOps)
                if (h.self.name == name) r = &h;
            QVERIFY2(r, name.c_str());
            QCOMPARE(r->self.base.count, uint64_t(1));
            QCOMPARE(r->baseTotalPs, us * kUs);
        }
        const HostOpRow* step = hostOp(d, "user_annotation", "ProfilerStep#*");
        QCOMPARE(step->self.base.totalPs, int64_t(122141) * kUs);
        QCOMPARE(step->self.candidate.totalPs, int64_t(122141 - 311) * kUs);
        QCOMPARE(hostOp(d, "cpu_op", "All2All_Pooled_Req")->candidateTotalPs, 311 * kUs);
        QCOMPARE(hostOp(d, "cpu_op", "AddmmBackward0")->self.candidate.count, uint64_t(1));

        // GPU: the kernel launched in step 1010 is gone. (Stepscope also counts device work that
        // no recorded launch explains by its start, the FillFunctor kernel at 422501 µs, which
        // HTA leaves out; it is unchanged.)
        int removed = 0;
        for (const DiffRow& k : d.kernels) {
            if (k.diffClass == DiffClass::Removed) {
                ++removed;
                QVERIFY(k.name.find("CUDAFunctor_add<int>") != std::string::npos);
                QCOMPARE(k.base.count, uint64_t(1));
                QCOMPARE(k.type, std::string("grid:1,1,1 block:128,1,1 regs:20 shm:0"));
            } else {
                QCOMPARE(k.diffClass, DiffClass::Unchanged);
            }
        }
        QCOMPARE(removed, 1);

        const std::vector<std::string> summary = runDiffSummary(d);
        auto said = [&](const std::string& text) {
            return std::find(summary.begin(), summary.end(), text) != summary.end();
        };
        QVERIFY(said("Host op All2All_Pooled_Req added (1 call and 311 µs per step)."));
        QVERIFY(said("Host op AddmmBackward0 added (1 call and 207 µs per step)."));
        QVERIFY(said("Host op nccl:all_reduce removed (was 1 call and 67 µs per step)."));
    }

    // Self and total time by hand on a two-step trace (HostOpFixtures.h's layout): op_0 with
    // 90 and 70 µs of self time, op_1 with 30 µs. A step lasts 10 + (90 + 10) + (30 + 10) + 40 =
    // 190 µs (then 170 µs): op_k total = self + 10, its launch child 10 µs; the marker's self time
    // is its 10 µs head and 40 µs tail: its children are the ops (the launches are the ops').
    void selfTimeByHand() {
        const auto trace = loadTraceText(jitterTraceText({{{90, 30}}, {{70, 30}}}));
        const RunDiff d = diffRuns(*trace, *trace, byOrder());
        QCOMPARE(d.pairing.pairs.size(), size_t(2));
        const HostOpRow* op0 = hostOp(d, "cpu_op", "op_0");
        QCOMPARE(op0->baseTotalPs, int64_t(100 + 80) * kUs);
        QCOMPARE(op0->self.base.totalPs, int64_t(90 + 70) * kUs);
        QCOMPARE(op0->self.base.perStepUs, (std::vector<double>{90, 70}));
        QCOMPARE(op0->calls.base.perStepUs, (std::vector<double>{1, 1}));
        const HostOpRow* launch = hostOp(d, "runtime", "cudaLaunchKernel");
        QCOMPARE(launch->self.base.count, uint64_t(4));
        QCOMPARE(launch->self.base.totalPs, int64_t(40) * kUs);
        QCOMPARE(launch->calls.base.perStepUs, (std::vector<double>{2, 2}));
        const HostOpRow* step = hostOp(d, "user_annotation", "ProfilerStep#*");
        QCOMPARE(step->baseTotalPs, int64_t(190 + 170) * kUs);
        QCOMPARE(step->self.base.totalPs, int64_t(2 * 50) * kUs);
        QCOMPARE(d.hostOps.size(), size_t(4));
        for (const HostOpRow& r : d.hostOps) QCOMPARE(r.self.diffClass, DiffClass::Unchanged);
    }

    // 10 steps, 20 ops of 90 µs self time with up to 5% jitter each way, op_3 20% slower in the
    // candidate: its baseline values lie in [85.5, 94.5] µs and its candidate values in
    // [102.6, 113.4] µs, so every candidate value exceeds every baseline value: U = 100 and the
    // exact two-sided p = 2 / C(20, 10) = 2 / 184756. The shift and interval are checked against
    // the 100 differences sorted here: the median, and [D(24), D(77)] (m = n = 10: the two-sided
    // 5% critical value of U is 23, Mann-Whitney tables). 44 tests in the family (22 rows: 20
    // ops, the launch, the step marker; self time and calls each); op_3's p is the smallest, so
    // its BH-adjusted p is 44 x 2/184756 = 4.8e-4, far below 0.05. No other op is flagged.
    void oneSlowerOpAmongJitteredOnes() {
        const auto base = loadTraceText(jitterTraceText(jitterSteps(10, baseJitter, 1.0)));
        const auto candidate =
            loadTraceText(jitterTraceText(jitterSteps(10, candidateJitter, 1.2)));
        const RunDiff d = diffRuns(*base, *candidate, byOrder());
        QCOMPARE(d.pairing.pairs.size(), size_t(10));
        const HostOpRow* op3 = hostOp(d, "cpu_op", "op_3");
        QVERIFY(op3);
        QCOMPARE(op3->self.diffClass, DiffClass::Slower);
        QCOMPARE(op3->self.evidence, DiffEvidence::Significant);
        QCOMPARE(op3->self.test.u, 100.0);
        QVERIFY(std::fabs(op3->self.test.pValue - 2.0 / 184756) < 1e-15);
        // The smallest of the family's 44 p-values: adjusted to 44 x p.
        QVERIFY(std::fabs(op3->self.adjustedPValue - 44 * 2.0 / 184756) < 1e-12);
        std::vector<double> differences;
        for (int i = 0; i < 10; ++i)
            for (int j = 0; j < 10; ++j)
                differences.push_back(108 * (1 + candidateJitter(j, 3) / 100.0) -
                                      90 * (1 + baseJitter(i, 3) / 100.0));
        std::sort(differences.begin(), differences.end());
        const double median = (differences[49] + differences[50]) / 2;
        QVERIFY(std::fabs(op3->self.test.shift - median) < 1e-6);
        QVERIFY(std::fabs(op3->self.test.interval->first - differences[23]) < 1e-6);
        QVERIFY(std::fabs(op3->self.test.interval->second - differences[76]) < 1e-6);
        double baseMean = 0;
        for (int i = 0; i < 10; ++i) baseMean += 90 * (1 + baseJitter(i, 3) / 100.0) / 10;
        QVERIFY(std::fabs(op3->self.relativeShiftPercent - 100 * median / baseMean) < 1e-6);
        for (const HostOpRow& r : d.hostOps)
            if (&r != op3) QVERIFY2(r.self.diffClass == DiffClass::Unchanged, r.self.name.c_str());
        const std::vector<std::string> summary = runDiffSummary(d);
        QVERIFY(std::any_of(summary.begin(), summary.end(), [](const std::string& s) {
            return s.starts_with("Host op op_3 (self time) ") &&
                   s.find("slower than the baseline in every step") != std::string::npos;
        }));
    }

    // 100 pairs of traces whose ops all come from one distribution: 10 steps of 20 ops, self
    // time 90 µs x (1 + u), u uniform in [-5%, 5%] from a fixed mt19937 stream (formed here, not
    // by a library distribution). No op changed; the device tables' test
    // (test_run_diff manyRowsOfJitterAreNoChange) allows a flagged row in at most 10% of such
    // tables (Benjamini-Hochberg bounds it by 5%). The count of rows a per-row test would flag
    // proves the tables do hold such p-values.
    void identicalDistributionsAreNoChange() {
        std::mt19937 gen(20261207);
        auto jittered = [&] { return 90.0 * (1 + 0.1 * (double(gen()) / 4294967296.0 - 0.5)); };
        auto steps = [&] {
            std::vector<JitterStep> s(10);
            for (JitterStep& step : s)
                for (int k = 0; k < 20; ++k) step.opSelfUs.push_back(jittered());
            return s;
        };
        int tablesFlagged = 0, rowsFlaggedPerRow = 0;
        for (int table = 0; table < 100; ++table) {
            const auto base = loadTraceText(jitterTraceText(steps()));
            const auto candidate = loadTraceText(jitterTraceText(steps()));
            const RunDiff d = diffRuns(*base, *candidate, byOrder());
            QCOMPARE(d.hostOps.size(), size_t(22));
            bool flagged = false;
            for (const HostOpRow& r : d.hostOps) {
                const DiffClass c = r.self.diffClass;
                QVERIFY(c != DiffClass::Added && c != DiffClass::Removed &&
                        c != DiffClass::Inconclusive);
                flagged = flagged || c != DiffClass::Unchanged;
                if (r.self.evidence == DiffEvidence::NotSignificantAcrossRows) ++rowsFlaggedPerRow;
            }
            tablesFlagged += flagged;
        }
        QVERIFY2(tablesFlagged <= 10, std::to_string(tablesFlagged).c_str());
        // About 5% of the 2,100 self-time rows (less: the exact test is discrete) have an
        // interval without 0 on their own.
        QVERIFY2(rowsFlaggedPerRow > 40, std::to_string(rowsFlaggedPerRow).c_str());
    }

    // Calls per step: op_1 runs twice per step in the candidate (a second op_1 after the first
    // op_1's place: the fixture writes op_k names by position, so the candidate's steps hold
    // op_0, op_1, op_1). Every step 1 -> 2 calls: ties only, HL shift 1 call, interval [1, 1]:
    // more calls. Its self time grew with it; the class says why.
    void moreCallsFound() {
        std::vector<JitterStep> one(8), two(8);
        for (int i = 0; i < 8; ++i) {
            one[size_t(i)].opSelfUs = {90, 30};
            two[size_t(i)].opSelfUs = {90, 30, 30};
        }
        std::string twice = jitterTraceText(two);
        // op_2 -> op_1: the same op called a second time.
        for (size_t at = twice.find("\"op_2\""); at != std::string::npos;
             at = twice.find("\"op_2\"", at))
            twice.replace(at, 6, "\"op_1\"");
        const RunDiff d =
            diffRuns(*loadTraceText(jitterTraceText(one)), *loadTraceText(twice), byOrder());
        const HostOpRow* op1 = hostOp(d, "cpu_op", "op_1");
        QCOMPARE(op1->self.diffClass, DiffClass::MoreCalls);
        QCOMPARE(op1->self.evidence, DiffEvidence::Significant);
        QCOMPARE(op1->calls.test.shift, 1.0);
        QCOMPARE(op1->self.base.count, uint64_t(8));
        QCOMPARE(op1->self.candidate.count, uint64_t(16));
        // The launches: 2 -> 3 per step.
        QCOMPARE(hostOp(d, "runtime", "cudaLaunchKernel")->self.diffClass, DiffClass::MoreCalls);
        QCOMPARE(hostOp(d, "cpu_op", "op_0")->self.diffClass, DiffClass::Unchanged);
        const std::vector<std::string> summary = runDiffSummary(d);
        QVERIFY(std::find(summary.begin(), summary.end(),
                          "Host op op_1 called more often than the baseline in every step (1 → 2 "
                          "calls per step).") != summary.end());
        const Table t = runDiffTable(d, DiffBy::HostOp);
        QCOMPARE(t.columnIndex("Kind"), 0);
        size_t row = 0;
        while (t.text(row, 1) != "op_1") ++row;
        QCOMPARE(t.text(row, size_t(t.columnIndex("Class"))), std::string("more calls"));
        QCOMPARE(t.exactText(row, size_t(t.columnIndex("Calls shift per step"))), std::string("1"));
    }

    // Two hosts per run, paired by name: worker-a runs the jitter baseline in both runs, worker-b
    // the baseline and then the candidate with op_3 20% slower (as oneSlowerOpAmongJittered
    // Ones). op_3 is slower on worker-b only; each host pair has its own 22 rows.
    void hostPairsNotSummed() {
        QTemporaryDir dir;
        const QString same = dir.filePath("a.pt.trace.json"),
                      slower = dir.filePath("b.pt.trace.json");
        std::ofstream(same.toStdString()) << jitterTraceText(jitterSteps(10, baseJitter, 1.0));
        std::ofstream(slower.toStdString())
            << jitterTraceText(jitterSteps(10, candidateJitter, 1.2));
        auto loaded = [](std::vector<HostFile> files) {
            LoadResult r = loadHosts(files);
            if (!r.ok()) qFatal("hosts do not load: %s", r.error.c_str());
            return r.profile;
        };
        const auto base =
            loaded({{"worker-a", same.toStdString()}, {"worker-b", same.toStdString()}});
        const auto candidate =
            loaded({{"worker-b", slower.toStdString()}, {"worker-a", same.toStdString()}});
        const RunDiff d = diffRuns(*base, *candidate, byOrder());
        QCOMPARE(d.hostMatching, HostMatching::ByName);
        QCOMPARE(d.hostOps.size(), size_t(44));
        for (const HostOpRow& r : d.hostOps) {
            const bool found = r.self.host == "worker-b" && r.self.name == "op_3";
            QVERIFY2(r.self.diffClass == (found ? DiffClass::Slower : DiffClass::Unchanged),
                     (r.self.host + " " + r.self.name).c_str());
        }
        const Table t = runDiffTable(d, DiffBy::HostOp);
        QCOMPARE(t.columnIndex("Host"), 0);
        QCOMPARE(t.text(0, 0), std::string("worker-b"));
        QCOMPARE(t.text(0, 2), std::string("op_3"));
    }

    // python_function events are host ops only when asked for.
    void pythonFunctionsOnlyWhenAsked() {
        std::string text = jitterTraceText({{{90}}, {{90}}});
        const std::string python =
            R"({"ph": "X", "cat": "python_function", "name": "train.py(12): step", "pid": 1, )"
            R"("tid": 1, "ts": 5, "dur": 120, "args": {}},)";
        text.insert(text.find("[") + 1, "\n" + python);
        const auto trace = loadTraceText(text);
        const RunDiff without = diffRuns(*trace, *trace, byOrder());
        QVERIFY(!hostOp(without, "python_function", "train.py(12): step"));
        RunDiffOptions options = byOrder();
        options.pythonFunctions = true;
        const RunDiff with = diffRuns(*trace, *trace, options);
        const HostOpRow* py = hostOp(with, "python_function", "train.py(12): step");
        QVERIFY(py);
        QCOMPARE(py->self.base.count, uint64_t(1)); // it starts in step 0 only
        // It holds op_0 of step 0 (10..110 µs): 120 - 100 µs of self time.
        QCOMPARE(py->self.base.totalPs, int64_t(20) * kUs);
    }

    // TensorFlow host ops (XSpace): the TraceMe "model/dense/MatMul:MatMul" on the step's thread,
    // with a child "model/dense/MatMul/ReadVariableOp:ReadVariableOp" of 5 µs: rows of kind
    // MatMul and ReadVariableOp, as the TF op stats' host side names them. MatMul lasts 30 µs in
    // every baseline step and 40 µs in every candidate step (8 steps): self time 25 -> 35 µs, all
    // ties; HL shift 10 µs, interval [10, 10], +40%: slower.
    void tensorflowHostOps() {
        auto [base, candidate] = diffFixture(DiffScenario::KernelSlower);
        auto addOps = [](FixtureSpace& space, int64_t matMulUs) {
            FixtureLine& python = space.planes[0].lines[0];
            for (int i = 0; i < 8; ++i) {
                const int64_t step = int64_t(i) * 2000 * kUs;
                python.add("model/dense/MatMul:MatMul", step + 2 * kUs, matMulUs * kUs);
                python.add("model/dense/MatMul/ReadVariableOp:ReadVariableOp", step + 3 * kUs,
                           5 * kUs);
            }
        };
        addOps(base, 30);
        addOps(candidate, 40);
        auto load = [](const FixtureSpace& s) {
            const std::vector<uint8_t> bytes = s.encode();
            LoadResult r = loadXSpaceBytes(bytes, "diff-host");
            if (!r.ok()) qFatal("fixture does not load: %s", r.error.c_str());
            return r.profile;
        };
        const RunDiff d = diffRuns(*load(base), *load(candidate), {});
        QCOMPARE(d.hostOps.size(), size_t(2));
        const HostOpRow* matMul = hostOp(d, "MatMul", "model/dense/MatMul");
        QVERIFY(matMul);
        QCOMPARE(matMul->self.base.totalPs, int64_t(8 * 25) * kUs);
        QCOMPARE(matMul->self.candidate.totalPs, int64_t(8 * 35) * kUs);
        QCOMPARE(matMul->self.test.shift, 10.0);
        QCOMPARE(matMul->self.diffClass, DiffClass::Slower);
        QCOMPARE(matMul->self.relativeShiftPercent, 40.0);
        const HostOpRow* read = hostOp(d, "ReadVariableOp", "model/dense/MatMul/ReadVariableOp");
        QCOMPARE(read->self.diffClass, DiffClass::Unchanged);
        QCOMPARE(read->self.base.count, uint64_t(8));
    }

    // Both runs PyTorch: the step breakdown is the PyTorch plugin's, as their overview shows it.
    // The jitter traces have no device work, so the plugin's steps are the ProfilerStep# spans:
    // step time 10 + sum(self + 10) + 40 µs; Runtime is the 20 launches (200 µs, the role above
    // CPU Exec), CPU Exec the ops' remaining time (their summed self time), Other the 50 µs the
    // marker holds alone.
    void pytorchStepBreakdown() {
        const std::vector<JitterStep> steps = jitterSteps(4, baseJitter, 1.0);
        const auto trace = loadTraceText(jitterTraceText(steps));
        const RunDiff d = diffRuns(*trace, *trace, byOrder());
        QVERIFY(d.torchCategories);
        auto category = [&](const std::string& name) -> const DiffRow* {
            for (const DiffRow& r : d.categories)
                if (r.name == name) return &r;
            return nullptr;
        };
        QCOMPARE(d.categories.front().name, std::string("Step time"));
        for (size_t i = 0; i < steps.size(); ++i) {
            double self = 0;
            for (double s : steps[i].opSelfUs) self += s;
            QVERIFY(std::fabs(category("Step time")->base.perStepUs[i] - (self + 250)) < 1e-6);
            QVERIFY(std::fabs(category("CPU Exec")->base.perStepUs[i] - self) < 1e-6);
            QVERIFY(std::fabs(category("Runtime")->base.perStepUs[i] - 200) < 1e-6);
            QVERIFY(std::fabs(category("Other")->base.perStepUs[i] - 50) < 1e-6);
        }
        QVERIFY(!category("Kernel")); // neither run has it: no row
        QVERIFY(!category("Device compute 32"));
        // An XSpace run against it: XProf's categories.
        const auto [xspace, unused] = diffFixture(DiffScenario::KernelSlower);
        const std::vector<uint8_t> bytes = xspace.encode();
        const RunDiff mixed =
            diffRuns(*loadXSpaceBytes(bytes, "diff-host").profile, *trace, byOrder());
        QVERIFY(!mixed.torchCategories);
    }

    // `stepscope-cli diff --by host_op` writes the host-op table; the JSON holds it as host_ops,
    // with the step breakdown's source.
    void commandLine() {
        QTemporaryDir dir;
        const QString b = dir.filePath("base.pt.trace.json"),
                      t = dir.filePath("test.pt.trace.json");
        std::ofstream(b.toStdString()) << htaTraceCompareText(false);
        std::ofstream(t.toStdString()) << htaTraceCompareText(true);
        auto run = [](const QStringList& args, QByteArray* out) {
            QProcess p;
            p.start(STEPSCOPE_CLI, QStringList{"diff"} + args);
            if (!p.waitForFinished(60000)) qFatal("stepscope-cli diff hangs");
            *out = p.readAllStandardOutput();
            return p.exitCode();
        };
        QByteArray out;
        QCOMPARE(run({b, t, "--steps", "1010:1010", "--by", "host_op", "--csv", "-"}, &out), 0);
        QVERIFY2(out.startsWith("Kind,Operation,Class,Evidence,Baseline calls,Candidate calls,"),
                 out.constData());
        QVERIFY2(out.contains("\r\ncpu_op,All2All_Pooled_Req,added,one step each,0,1,0,311,"),
                 out.constData());
        QVERIFY(
            out.contains("\r\nuser_annotation,nccl:all_reduce,removed,one step each,1,0,67,0,"));
        QCOMPARE(run({b, t, "--json", "-"}, &out), 0);
        const QJsonObject json = QJsonDocument::fromJson(out).object();
        // Both steps: step 1009 adds no name (aten::zeros starts before it).
        QCOMPARE(json["host_ops"].toArray().size(), 9);
        QCOMPARE(json["step_breakdown"].toString(), QString("pytorch"));
        QVERIFY(json.contains("categories") && json.contains("kernels"));
    }
};

QTEST_MAIN(TestHostOpDiff)
#include "test_host_op_diff.moc"
