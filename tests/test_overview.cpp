// Overview analysis: step detection and XProf's per-step breakdown on fixtures built to a known
// breakdown (tests/fixtures/OverviewFixtures.h, every expected value worked out by hand from the
// fixture's intervals), the verdicts and exactly which recommendations fire, GPU time (busy union,
// idle, exposed copies), the "no steps" state and the name pattern, bad data, and facts about the
// real profiles counted with protobuf's own classes (tests/fixtures/ProtoXSpace.h).
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "model/ProfileLoader.h"
#include "model/analysis/GpuTime.h"
#include "model/analysis/InputPipeline.h"
#include "model/analysis/Overview.h"
#include "model/analysis/StepAnalysis.h"
#include "tests/fixtures/OverviewFixtures.h"
#include "tests/fixtures/ProtoXSpace.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {
constexpr int64_t us = 1000000;
const std::string kRealData = STEPSCOPE_REALDATA;

std::shared_ptr<const Profile> load(OverviewScenario s) {
    const std::vector<uint8_t> bytes = overviewFixture(s).encode();
    LoadResult r = loadXSpaceBytes(bytes, "overview-host");
    if (!r.ok()) qFatal("fixture does not load: %s", r.error.c_str());
    return r.profile;
}

std::set<std::string> ids(const Overview& o) {
    std::set<std::string> out;
    for (const Recommendation& r : o.recommendations) out.insert(r.id);
    return out;
}

const Recommendation* find(const Overview& o, const std::string& id) {
    for (const Recommendation& r : o.recommendations)
        if (r.id == id) return &r;
    return nullptr;
}

// Windows (of 30 equal ones over [first, last)) less than half busy, counted by brute force over
// each picosecond-exact interval of the fixture: the busy intervals are given per step (µs
// offsets within the 1000 µs step period). `run`: the longest run of consecutive low windows
// (the earliest of equals), as [begin, end) in ps.
int lowWindows(int64_t busyFromUs, int64_t busyToUs, int steps = 4, int64_t pitchUs = 0,
               int64_t dutyUs = 0, std::pair<int64_t, int64_t>* run = nullptr) {
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (int g = 0; g < steps; ++g) {
        if (pitchUs == 0) {
            busy.push_back({(g * 1000 + busyFromUs) * us, (g * 1000 + busyToUs) * us});
        } else {
            for (int64_t t = busyFromUs; t < busyToUs; t += pitchUs)
                busy.push_back({(g * 1000 + t) * us, (g * 1000 + t + dutyUs) * us});
        }
    }
    const int64_t first = busy.front().first, last = busy.back().second;
    int low = 0, length = 0, best = 0;
    for (int c = 0; c < 30; ++c) {
        const int64_t lo = first + (last - first) * c / 30,
                      hi = first + (last - first) * (c + 1) / 30;
        int64_t b = 0;
        for (auto [s, e] : busy) b += std::max<int64_t>(0, std::min(hi, e) - std::max(lo, s));
        if (2 * b < hi - lo) {
            ++low;
            if (++length > best) {
                best = length;
                if (run) *run = {first + (last - first) * (c + 1 - length) / 30, hi};
            }
        } else {
            length = 0;
        }
    }
    return low;
}
} // namespace

class TestOverview : public QObject {
    Q_OBJECT

private slots:
    void inputBound() {
        const auto p = load(OverviewScenario::InputBound);
        const Overview o = computeOverview(*p);
        QCOMPARE(o.steps.source, StepSource::GroupedSteps);
        QCOMPARE(o.steps.steps.size(), size_t(4));
        for (int g = 0; g < 4; ++g) {
            const StepRecord& s = o.steps.steps[size_t(g)];
            QCOMPARE(s.number, int64_t(g));
            QCOMPARE(s.name, std::to_string(g));
            QCOMPARE(s.beginPs, g * 1000 * us); // the host marker holds the device marker
            QCOMPARE(s.durationPs, 1000 * us);
            QCOMPARE(s.ps(StepCategory::Input), 400 * us);
            QCOMPARE(s.hostWaitInputPs, 400 * us);
            QCOMPARE(s.hostToDevicePs, int64_t(0));
            QCOMPARE(s.ps(StepCategory::KernelLaunch), 10 * us);
            QCOMPARE(s.ps(StepCategory::DeviceCompute32), 590 * us);
            QCOMPARE(s.ps(StepCategory::DeviceCompute16), int64_t(0));
            QCOMPARE(s.ps(StepCategory::AllOthers), int64_t(0));
        }
        QCOMPARE(o.stepTimeMs.average, 1.0);
        QCOMPARE(o.stepTimeMs.stddev, 0.0);
        QCOMPARE(o.bottleneck.input, std::string("host"));
        QCOMPARE(o.bottleneck.inputPercent, 40.0);
        QCOMPARE(o.bottleneck.kernelLaunch, std::optional<Level>()); // "no"
        QCOMPARE(o.compute16Percent, 0.0);
        QCOMPARE(ids(o),
                 (std::set<std::string>{"input_bound", "mixed_precision", "low_utilization"}));
        QCOMPARE(find(o, "input_bound")->level, Level::High);
        QCOMPARE(find(o, "input_bound")->value, 40.0);
        std::pair<int64_t, int64_t> run;
        QCOMPARE(find(o, "low_utilization")->value, double(lowWindows(410, 1000, 4, 0, 0, &run)));
        // The evidence is the longest run of low windows, not first-to-last low window.
        QCOMPARE(find(o, "low_utilization")->beginPs, run.first);
        QCOMPARE(find(o, "low_utilization")->endPs, run.second);
    }

    void launchBound() {
        const auto p = load(OverviewScenario::LaunchBound);
        const Overview o = computeOverview(*p);
        QCOMPARE(o.steps.steps.size(), size_t(4));
        for (const StepRecord& s : o.steps.steps) {
            QCOMPARE(s.durationPs, 1000 * us);
            QCOMPARE(s.ps(StepCategory::KernelLaunch), 600 * us); // 40 x (20 - 5)
            QCOMPARE(s.ps(StepCategory::DeviceCompute32), 200 * us);
            QCOMPARE(s.ps(StepCategory::AllOthers), 200 * us);
        }
        QCOMPARE(o.bottleneck.kernelLaunchPercent, 60.0);
        QCOMPARE(o.bottleneck.kernelLaunch, std::optional(Level::High));
        // Not input-bound by input, but all-others >= 3%: XProf's "potentially" input-bound,
        // which then is not reported again as all-others.
        QCOMPARE(o.bottleneck.input, std::string("both"));
        QCOMPARE(o.bottleneck.allOther, std::optional<Level>());
        // The fixture's kernels name no type: their precision is unknown, so no mixed-precision
        // advice (XProf would give it: to its rule, whatever is not "half" is 32-bit).
        QCOMPARE(ids(o),
                 (std::set<std::string>{"input_bound", "kernel_launch", "low_utilization"}));
        QCOMPARE(find(o, "input_bound")->value, 20.0);
        QVERIFY(find(o, "kernel_launch")->text.find("160 of 160 kernels") != std::string::npos);
        // XProf adds the TF_GPU_THREAD_MODE advice only when tf.data is in use; no tf.data here.
        QVERIFY(find(o, "kernel_launch")->text.find("gpu_private") == std::string::npos);
        QCOMPARE(find(o, "low_utilization")->value, double(lowWindows(10, 795, 4, 20, 5)));
    }

    void computeBoundFp16() {
        const auto p = load(OverviewScenario::ComputeBoundFp16);
        const Overview o = computeOverview(*p);
        QCOMPARE(o.steps.steps.size(), size_t(4));
        for (const StepRecord& s : o.steps.steps) {
            QCOMPARE(s.durationPs, 1000 * us);
            QCOMPARE(s.ps(StepCategory::KernelLaunch), 10 * us);
            QCOMPARE(s.ps(StepCategory::DeviceCompute16), 990 * us);
        }
        QCOMPARE(o.compute16Percent, 100.0);
        QCOMPARE(o.bottleneck.input, std::string("device"));
        QVERIFY(o.recommendations.empty());
        // Top op: the MatMul, eligible and on Tensor Cores (h884).
        QCOMPARE(o.topOps.rowCount(), size_t(1));
        QCOMPARE(o.topOps.text(0, 4), std::string("model/dense/MatMul"));
        QCOMPARE(o.topOps.number(0, 1), 100.0);
        QCOMPARE(o.topOps.number(0, 6), 1.0);
        QCOMPARE(o.topOps.number(0, 7), 1.0);
    }

    void heavyCallback() {
        const auto p = load(OverviewScenario::HeavyCallback);
        const Overview o = computeOverview(*p);
        QCOMPARE(o.steps.steps.size(), size_t(4));
        for (const StepRecord& s : o.steps.steps) {
            QCOMPARE(s.durationPs, 600 * us);
            QCOMPARE(s.ps(StepCategory::DeviceCompute16), 590 * us);
            QCOMPARE(s.ps(StepCategory::KernelLaunch), 10 * us);
            // The callback has no group id: it is in no step.
            QCOMPARE(s.ps(StepCategory::HostCompute), int64_t(0));
        }
        QCOMPARE(ids(o), (std::set<std::string>{"step_gaps", "low_utilization"}));
        const Recommendation* gap = find(o, "step_gaps");
        QCOMPARE(gap->value, 100.0 * 0.4 / 0.6); // 400 µs gaps, 600 µs steps
        QCOMPARE(gap->beginPs, 600 * us);
        QCOMPARE(gap->endPs, 1000 * us);
        QCOMPARE(find(o, "low_utilization")->value, double(lowWindows(10, 600)));
    }

    void copyStall() {
        const auto p = load(OverviewScenario::CopyStall);
        const Overview o = computeOverview(*p);
        QCOMPARE(o.steps.steps.size(), size_t(4));
        for (const StepRecord& s : o.steps.steps) {
            QCOMPARE(s.durationPs, 1000 * us);
            QCOMPARE(s.ps(StepCategory::KernelLaunch), 20 * us);
            QCOMPARE(s.ps(StepCategory::Input), 400 * us);
            QCOMPARE(s.hostToDevicePs, 400 * us);
            QCOMPARE(s.ps(StepCategory::DeviceCompute16), 580 * us);
        }
        QCOMPARE(ids(o), (std::set<std::string>{"input_bound", "exposed_copies"}));
        QCOMPARE(find(o, "exposed_copies")->value, 100.0 * 1600 / 3920);
        QCOMPARE(o.gpu.devices.size(), size_t(1));
        const GpuTimeRow& d = o.gpu.devices[0];
        QCOMPARE(d.firstPs, 20 * us);
        QCOMPARE(d.lastPs, 4000 * us);
        QCOMPARE(d.busyPs, 4 * 980 * us);
        QCOMPARE(d.idlePs, 3 * 20 * us);
        QCOMPARE(d.computePs, 4 * 580 * us);
        QCOMPARE(d.memoryPs, 4 * 400 * us);
        QCOMPARE(d.memoryExposedPs, 4 * 400 * us);
        QCOMPARE(d.memoryOnlyPs, 4 * 400 * us);
        QCOMPARE(d.collectivesPs, int64_t(0));
    }

    void noStepsAndPattern() {
        const auto p = load(OverviewScenario::NoSteps);
        const Overview o = computeOverview(*p);
        QCOMPARE(o.steps.source, StepSource::None);
        QVERIFY(o.steps.steps.empty());
        QCOMPARE(o.bottleneck.input, std::string("unknown"));
        QVERIFY(std::isnan(o.compute16Percent));
        QCOMPARE(ids(o), (std::set<std::string>{"low_utilization"}));
        const Overview byName = computeOverview(*p, "loop_iteration");
        QCOMPARE(byName.steps.source, StepSource::NamePattern);
        QCOMPARE(byName.steps.steps.size(), size_t(4));
        for (const StepRecord& s : byName.steps.steps) {
            QCOMPARE(s.durationPs, 1000 * us);
            QCOMPARE(s.ps(StepCategory::KernelLaunch), 600 * us);
            QCOMPARE(s.ps(StepCategory::DeviceCompute32), 200 * us);
            QCOMPARE(s.ps(StepCategory::AllOthers), 200 * us);
        }
        QCOMPARE(computeOverview(*p, "no such event").steps.steps.size(), size_t(0));
    }

    void sweepPriorities() {
        // Overlapping device compute wins over launch and input, as XProf's priorities say; the
        // step's categories always sum to its time.
        for (OverviewScenario s : {OverviewScenario::InputBound, OverviewScenario::LaunchBound,
                                   OverviewScenario::ComputeBoundFp16,
                                   OverviewScenario::HeavyCallback, OverviewScenario::CopyStall}) {
            const StepAnalysis a = analyzeSteps(*load(s));
            for (const StepRecord& r : a.steps) {
                int64_t sum = 0;
                for (int64_t v : r.categoryPs) sum += v;
                QCOMPARE(sum, r.durationPs);
            }
        }
    }

    // Partial and odd data: never a crash, never invented steps, XProf's rules where it has them.
    void badData() {
        using S = FixtureStat;
        auto loadSpace = [](const FixtureSpace& space) {
            const std::vector<uint8_t> bytes = space.encode();
            LoadResult r = loadXSpaceBytes(bytes, "bad");
            if (!r.ok()) qFatal("does not load: %s", r.error.c_str());
            return r.profile;
        };
        {
            // A Steps line without stream events of its groups, and stream events of a group the
            // Steps line lacks: XProf's intersection keeps neither.
            FixtureSpace space;
            FixturePlane& gpu = space.addPlane(1, "/device:GPU:0");
            gpu.addLine(-559038737, "Steps", 1000).add("0", 0, 10 * us, {S::int64("group_id", 0)});
            gpu.addLine(7, "Stream #7(Compute)", 1000)
                .add("k", 0, 5 * us, {S::int64("group_id", 1), S::uint64("correlation_id", 1)})
                .add("no_correlation", 5 * us, 5 * us, {S::int64("group_id", 0)});
            const Overview o = computeOverview(*loadSpace(space));
            QCOMPARE(o.steps.source, StepSource::None);
            QCOMPARE(o.gpu.devices.size(), size_t(1));
            QCOMPARE(o.gpu.devices[0].busyPs, 10 * us);
            QVERIFY(!overviewJson(o).empty());
        }
        {
            // The device marker outside the host marker wins (XProf's StepTime); a zero-length
            // step is skipped; a group id beyond int32 is no group.
            FixtureSpace space;
            FixturePlane& gpu = space.addPlane(1, "/device:GPU:0");
            gpu.addLine(-559038737, "Steps", 1000)
                .add("0", 5 * us, 20 * us, {S::int64("group_id", 0)})
                .add("1", 30 * us, 0, {S::int64("group_id", 1)})
                .add("2", 40 * us, 5 * us, {S::int64("group_id", int64_t(1) << 40)});
            gpu.addLine(7, "Stream #7(Compute)", 1000)
                .add("k", 5 * us, 20 * us,
                     {S::int64("group_id", 0), S::uint64("correlation_id", 1)})
                .add("k", 30 * us, 0, {S::int64("group_id", 1), S::uint64("correlation_id", 2)})
                .add("k", 40 * us, 5 * us,
                     {S::int64("group_id", int64_t(1) << 40), S::uint64("correlation_id", 3)});
            FixturePlane& host = space.addPlane(0, "/host:CPU");
            host.addLine(1, "python3", 1000).add("train", 0, 10 * us, {S::int64("group_id", 0)});
            const StepAnalysis a = analyzeSteps(*loadSpace(space));
            QCOMPARE(a.steps.size(), size_t(1));
            QCOMPARE(a.steps[0].beginPs, 5 * us);
            QCOMPARE(a.steps[0].durationPs, 20 * us);
            QCOMPARE(a.steps[0].ps(StepCategory::DeviceCompute32), 20 * us);
        }
        {
            // Nothing but an empty host: no steps, no devices, an empty but valid export.
            FixtureSpace space;
            space.addPlane(0, "/host:CPU").addLine(1, "idle", 1000);
            const auto p = loadSpace(space);
            const Overview o = computeOverview(*p);
            QVERIFY(o.steps.steps.empty());
            QVERIFY(o.gpu.devices.empty());
            QCOMPARE(overviewStepTable(o).rowCount(), size_t(0));
            QVERIFY(computeInputPipeline(*p).ops.empty());
            QCOMPARE(computeOverview(*p, "x").steps.steps.size(), size_t(0));
        }
        {
            // Name-pattern markers nested in one another make one step (the outer one).
            FixtureSpace space;
            space.addPlane(0, "/host:CPU")
                .addLine(1, "python3", 1000)
                .add("my_step", 0, 100 * us)
                .add("my_step_inner", 10 * us, 10 * us)
                .add("my_step", 200 * us, 100 * us);
            const StepAnalysis a = analyzeSteps(*loadSpace(space), "my_step");
            QCOMPARE(a.source, StepSource::NamePattern);
            // Host-only: a step is kept when it has host compute (XProf's well-formed test): the
            // first has its inner event, the second nothing.
            QCOMPARE(a.steps.size(), size_t(1));
            QCOMPARE(a.steps[0].beginPs, int64_t(0));
            QCOMPARE(a.steps[0].durationPs, 100 * us);
            QCOMPARE(a.steps[0].ps(StepCategory::HostCompute), 10 * us);
            QCOMPARE(a.steps[0].ps(StepCategory::AllOthers), 90 * us);
            QCOMPARE(a.notWellFormed, size_t(1));
        }
        // Cancelled: an empty result, not a partial one.
        Progress cancelled;
        cancelled.cancel();
        QVERIFY(computeOverview(*load(OverviewScenario::InputBound), {}, &cancelled)
                    .steps.steps.empty());
    }

    void summaryStatistics() {
        const SampleSummary s = summarize({1, 2, 3, 4});
        QCOMPARE(s.average, 2.5);
        // Sample (n - 1), as tsl::Stat::sample_variance: (2.25 + 0.25 + 0.25 + 2.25) / 3.
        QCOMPARE(s.stddev, std::sqrt(5.0 / 3.0));
        QCOMPARE(summarize({7}).stddev, 0.0);
        QCOMPARE(summarize({2, 2, 2}).stddev, 0.0);
        QCOMPARE(s.minimum, 1.0);
        QCOMPARE(s.maximum, 4.0);
        QCOMPARE(summarize({}).count, size_t(0));
    }

    void tables() {
        const Overview o = computeOverview(*load(OverviewScenario::InputBound));
        const Table t = overviewStepTable(o);
        QCOMPARE(t.rowCount(), size_t(4));
        QCOMPARE(t.number(0, size_t(t.columnIndex("Input (ms)"))), 0.4);
        QCOMPARE(t.number(0, size_t(t.columnIndex("Input (%)"))), 40.0);
        const Table g = gpuTimeTable(o.gpu);
        QCOMPARE(g.rowCount(), size_t(1));
        QCOMPARE(g.number(0, size_t(g.columnIndex("Busy (ms)"))), 4 * 0.59);
        const std::string json = overviewJson(o);
        QVERIFY(json.find("\"input_bound\"") != std::string::npos);
    }

    // Input pipeline on the input-bound fixture: three nested tf.data iterators per step, each
    // with 100 µs of self time (see OverviewFixtures.h).
    void inputPipeline() {
        const auto p = load(OverviewScenario::InputBound);
        const InputPipeline ip = computeInputPipeline(*p);
        QCOMPARE(ip.steps.steps.size(), size_t(4));
        QCOMPARE(ip.bottleneck.input, std::string("host"));
        QCOMPARE(ip.inputPercent.average, 40.0);
        QCOMPARE(ip.stepTimeMs.average, 1.0);
        QCOMPARE(ip.ops.size(), size_t(3));
        QCOMPARE(ip.inputOpSelfPs, 1200 * us);
        const Table t = inputOpTable(ip);
        std::map<std::string, size_t> row;
        for (size_t r = 0; r < t.rowCount(); ++r) row[t.text(r, 0)] = r;
        const size_t prefetch = row.at("Iterator::Prefetch");
        const size_t map = row.at("Iterator::Prefetch::Map");
        const size_t read = row.at("Iterator::Prefetch::Map::TFRecord");
        QCOMPARE(t.number(prefetch, 1), 4.0);
        QCOMPARE(t.number(prefetch, 2), 1.2);   // total ms
        QCOMPARE(t.number(prefetch, 3), 100.0); // 1200 of 1200
        QCOMPARE(t.number(map, 3), 100.0 * 800 / 1200);
        QCOMPARE(t.number(read, 4), 0.4); // self ms
        QCOMPARE(t.number(read, 5), 100.0 * 400 / 1200);
        QCOMPARE(t.text(prefetch, 6), std::string("Preprocessing"));
        QCOMPARE(t.text(read, 6), std::string("Advanced file read"));
        // No host-to-device time: the non-enqueue time is the ops' own self time.
        QCOMPARE(ip.enqueueUs, 0.0);
        QCOMPARE(ip.advancedFileReadUs, 400.0);
        QCOMPARE(ip.preprocessingUs, 800.0);
        QCOMPARE(ip.demandedFileReadUs, 0.0);
        QCOMPARE(ip.otherUs, 0.0);
        QVERIFY(ip.tfDataUsed);
        QCOMPARE(categorizeInputOp("Iterator::Batch::TFRecord", "Dataset"),
                 InputOpCategory::DemandedFileRead);
        QCOMPARE(categorizeInputOp("MemcpyHToD", "MemcpyHToD"), InputOpCategory::Enqueue);
        QCOMPARE(categorizeInputOp("stage", "Read"), InputOpCategory::DemandedFileRead);
        // The copy-stall fixture has host-to-device time but no input op.
        const InputPipeline copy = computeInputPipeline(*load(OverviewScenario::CopyStall));
        QVERIFY(copy.ops.empty());
        QCOMPARE(inputStepTable(copy).number(0, 4), 0.4);
    }

    // The CLI writes the page's numbers: the per-step table as CSV and everything as JSON. With
    // STEPSCOPE_OVERVIEW_FIXTURES set, the fixture files are kept there (for screenshots).
    void cliExport() {
        QTemporaryDir tmp;
        const QString dir = qEnvironmentVariableIsSet("STEPSCOPE_OVERVIEW_FIXTURES")
                                ? qEnvironmentVariable("STEPSCOPE_OVERVIEW_FIXTURES")
                                : tmp.path();
        for (OverviewScenario s :
             {OverviewScenario::InputBound, OverviewScenario::LaunchBound,
              OverviewScenario::ComputeBoundFp16, OverviewScenario::HeavyCallback,
              OverviewScenario::CopyStall, OverviewScenario::NoSteps}) {
            const QString file = dir + "/" + overviewScenarioName(s) + ".xplane.pb";
            QVERIFY(writeFile(file, overviewFixture(s).encode()));
        }
        const QString file = dir + "/input_bound.xplane.pb";
        QProcess csv;
        csv.start(STEPSCOPE_CLI, {"export", "overview", file, "--csv", "-"});
        QVERIFY(csv.waitForFinished(60000));
        QCOMPARE(csv.exitCode(), 0);
        const QStringList lines = QString::fromUtf8(csv.readAllStandardOutput()).split("\r\n");
        QVERIFY(
            lines[0].startsWith("Step,Name,Begin (ms),Step time (ms),Compilation (ms),Input (ms)"));
        QVERIFY(lines[1].startsWith("0,0,0,1,0,0.4,0,0.01,0,0,0,0,0.59,0,40"));
        QProcess json;
        json.start(STEPSCOPE_CLI, {"export", "overview", dir + "/no_steps.xplane.pb", "--json", "-",
                                   "--step-pattern", "loop_iteration"});
        QVERIFY(json.waitForFinished(60000));
        QCOMPARE(json.exitCode(), 0);
        const QByteArray out = json.readAllStandardOutput();
        QVERIFY(out.contains("\"source\":\"events matching a name pattern\""));
        QVERIFY(out.contains("\"count\":4"));
        QProcess ip;
        ip.start(STEPSCOPE_CLI, {"export", "input_pipeline", file, "--csv", "-"});
        QVERIFY(ip.waitForFinished(60000));
        QCOMPARE(ip.exitCode(), 0);
        QVERIFY(QString::fromUtf8(ip.readAllStandardOutput())
                    .startsWith("Input op,Count,Total time (ms),Total time (%),Self time (ms)"));
        QProcess bad;
        bad.start(STEPSCOPE_CLI, {"export", "overview", dir + "/missing.xplane.pb", "--json", "-"});
        QVERIFY(bad.waitForFinished(60000));
        QVERIFY(bad.exitCode() != 0);
    }

    // Real TF profile: the steps are the group ids that the GPU planes' "Steps" lines and their
    // stream events (with a correlation id) both carry; busy time per device is the union of its
    // stream events. Both counted here with protobuf's classes.
    void realTensorFlow() {
        const std::string path = kRealData + "/tf-gpu-bert/plugins/profile/2020_12_03_bert/"
                                             "34.83.195.179_6003.xplane.pb";
        if (!std::filesystem::exists(path)) QSKIP("../shared/realdata is absent");
        const std::vector<ProtoEvent> events = readProtoEvents(path);
        QVERIFY(!events.empty());
        std::map<std::string, std::set<int64_t>> markers, stepEvents;
        std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> streams;
        for (const ProtoEvent& e : events) {
            if (e.plane.rfind("/device:GPU:", 0) != 0) continue;
            const bool derived = int32_t(e.lineId) >= int32_t(0xdeadbeef) &&
                                 int32_t(e.lineId) <= int32_t(0xdeadbeef) + 289;
            if (e.line == "Steps" && e.ints.count("group_id"))
                markers[e.plane].insert(e.ints.at("group_id"));
            if (derived) continue;
            streams[e.plane].push_back({e.startPs, e.startPs + e.durationPs});
            if (e.ints.count("group_id") && e.ints.count("correlation_id"))
                stepEvents[e.plane].insert(e.ints.at("group_id"));
        }
        std::set<int64_t> expected;
        for (auto& [plane, groups] : stepEvents)
            for (int64_t g : groups)
                if (markers[plane].count(g)) expected.insert(g);
        LoadResult r = loadPath(path);
        QVERIFY(r.ok());
        const Overview o = computeOverview(*r.profile);
        QCOMPARE(o.steps.source, StepSource::GroupedSteps);
        std::set<int64_t> found;
        for (const StepRecord& s : o.steps.steps) found.insert(s.number);
        for (int64_t g : found) QVERIFY(expected.count(g));
        QCOMPARE(found.size() + o.steps.notWellFormed, expected.size());
        QVERIFY(!found.empty());
        // Busy union and span per device.
        QCOMPARE(o.gpu.devices.size(), streams.size());
        for (const GpuTimeRow& d : o.gpu.devices) {
            auto v = streams.at(d.device);
            std::sort(v.begin(), v.end());
            int64_t busy = 0, curB = v[0].first, curE = v[0].second, last = v[0].second;
            for (auto [b, e] : v) {
                last = std::max(last, e);
                if (b > curE) {
                    busy += curE - curB;
                    curB = b;
                    curE = e;
                } else {
                    curE = std::max(curE, e);
                }
            }
            busy += curE - curB;
            QCOMPARE(d.busyPs, busy);
            QCOMPARE(d.spanPs(), last - v[0].first);
            QCOMPARE(d.idlePs, last - v[0].first - busy);
            QCOMPARE(d.events, uint64_t(v.size()));
        }
        // Both hosts of the run side by side (the files are byte-identical copies): every device
        // appears once per host, named with its host.
        const std::string dir = kRealData + "/tf-gpu-bert/plugins/profile/2020_12_03_bert/";
        LoadResult both = loadHosts({{"34.83.195.179_6003", dir + "34.83.195.179_6003.xplane.pb"},
                                     {"34.83.195.180_6003", dir + "34.83.195.180_6003.xplane.pb"}});
        QVERIFY(both.ok());
        std::set<std::string> names;
        for (const GpuTimeRow& d : computeOverview(*both.profile).gpu.devices)
            names.insert(d.device);
        QCOMPARE(names.size(), 2 * streams.size());
        for (const auto& [plane, intervals] : streams) {
            QVERIFY(names.count("34.83.195.179_6003 " + plane));
            QVERIFY(names.count("34.83.195.180_6003 " + plane));
        }
    }

    // PyTorch (Kineto importer): the ProfilerStep#N annotations are the steps. The numbers and
    // durations were read from the trace with Python's gzip + json (the "ProfilerStep#" events'
    // names and "dur"), independently of the importer.
    void realKineto() {
        const std::string path = kRealData + "/kineto/worker0.1623143089861.pt.trace.json.gz";
        if (!std::filesystem::exists(path)) QSKIP("../shared/realdata is absent");
        LoadResult r = loadPath(path);
        if (!r.ok()) QSKIP("this build does not read Kineto traces");
        const StepAnalysis a = analyzeSteps(*r.profile);
        QCOMPARE(a.source, StepSource::ProfilerSteps);
        const std::map<int64_t, int64_t> expected = {{5, 176078}, {6, 173992}, {7, 176918},
                                                     {8, 181259}, {9, 176468}, {10, 164261}};
        std::map<int64_t, int64_t> found;
        for (const StepRecord& s : a.steps)
            found[s.number] = s.durationPs / 1000000; // µs, as "dur"
        QCOMPARE(found, expected);
    }

    // Raw JAX profiles: no group ids and no step markers; GPU time per device, counted here with
    // protobuf's classes.
    void realJax() {
        const std::string path = kRealData + "/jax-rocm/jax_conv_minimal_08.tw003.xplane.pb";
        if (!std::filesystem::exists(path)) QSKIP("../shared/realdata is absent");
        std::map<std::string, std::pair<int64_t, int64_t>> extent;
        std::map<std::string, uint64_t> count;
        for (const ProtoEvent& e : readProtoEvents(path)) {
            if (e.plane.rfind("/device:GPU:", 0) != 0 || e.line.rfind("Stream", 0) != 0) continue;
            auto [it, fresh] = extent.try_emplace(e.plane, e.startPs, e.startPs + e.durationPs);
            it->second.first = std::min(it->second.first, e.startPs);
            it->second.second = std::max(it->second.second, e.startPs + e.durationPs);
            ++count[e.plane];
        }
        LoadResult r = loadPath(path);
        QVERIFY(r.ok());
        const Overview o = computeOverview(*r.profile);
        QCOMPARE(o.gpu.devices.size(), extent.size());
        for (const GpuTimeRow& d : o.gpu.devices) {
            QCOMPARE(d.events, count.at(d.device));
            QCOMPARE(d.spanPs(), extent.at(d.device).second - extent.at(d.device).first);
            QVERIFY(d.busyPs <= d.spanPs());
        }
    }
};

namespace {
// The XLA module steps of a raw JAX file, counted with protobuf's classes (the rule is at
// StepAnalysis.cpp moduleSteps): the module with the most device time; its k-th
// "GpuExecutable::ExecuteThunks" launch on each host line is step k (host marker: the extent of
// those launches); device events of that module whose launch call (same correlation id) starts
// inside one of step k's launches make its device marker; step time by XProf's StepTime().
// Returns (begin, duration) per step, in step order.
std::vector<std::pair<int64_t, int64_t>> jaxModuleSteps(const std::string& path) {
    const std::vector<ProtoEvent> events = readProtoEvents(path);
    std::map<std::string, int64_t> deviceTime;
    std::map<int64_t, int64_t> launchStart; // correlation id -> host launch start
    std::map<std::string, std::vector<std::tuple<int64_t, int64_t, std::string>>> byLine;
    for (const ProtoEvent& e : events) {
        const bool gpu = e.plane.rfind("/device:GPU:", 0) == 0 && e.line.rfind("Stream", 0) == 0;
        if (gpu && e.text.count("hlo_module")) deviceTime[e.text.at("hlo_module")] += e.durationPs;
        if (e.plane != "/host:CPU") continue;
        if (e.ints.count("correlation_id")) launchStart[e.ints.at("correlation_id")] = e.startPs;
        if (e.name == "GpuExecutable::ExecuteThunks" && e.text.count("module_name"))
            byLine[e.line].emplace_back(e.startPs, e.startPs + e.durationPs,
                                        e.text.at("module_name"));
    }
    std::string module;
    for (const auto& [m, t] : deviceTime)
        if (module.empty() || t > deviceTime[module]) module = m;
    std::map<int64_t, std::pair<int64_t, int64_t>> host, device;
    std::vector<std::tuple<int64_t, int64_t, int64_t>> windows; // begin, end, k
    for (auto& [line, launches] : byLine) {
        std::sort(launches.begin(), launches.end());
        int64_t k = 0;
        for (const auto& [b, e, m] : launches) {
            if (m != module) continue;
            auto [it, fresh] = host.try_emplace(k, b, e);
            it->second = {std::min(it->second.first, b), std::max(it->second.second, e)};
            windows.emplace_back(b, e, k++);
        }
    }
    for (const ProtoEvent& e : events) {
        const bool gpu = e.plane.rfind("/device:GPU:", 0) == 0 && e.line.rfind("Stream", 0) == 0;
        if (!gpu || !e.text.count("hlo_module") || e.text.at("hlo_module") != module) continue;
        if (!e.ints.count("correlation_id")) continue;
        const auto l = launchStart.find(e.ints.at("correlation_id"));
        if (l == launchStart.end()) continue;
        for (const auto& [b, en, k] : windows) {
            if (l->second < b || l->second > en) continue;
            auto [it, fresh] = device.try_emplace(k, e.startPs, e.startPs + e.durationPs);
            it->second = {std::min(it->second.first, e.startPs),
                          std::max(it->second.second, e.startPs + e.durationPs)};
            break;
        }
    }
    std::vector<std::pair<int64_t, int64_t>> out;
    for (const auto& [k, h] : host) {
        std::pair<int64_t, int64_t> span = h;
        const auto d = device.find(k);
        if (d != device.end() && !(h.first <= d->second.first && d->second.second <= h.second))
            span = d->second;
        out.emplace_back(span.first, span.second - span.first);
    }
    return out;
}
} // namespace

class TestOverviewSteps : public QObject {
    Q_OBJECT

private slots:
    // JAX without step annotations: each launch of the main XLA module is a step. Three raw JAX
    // files: te_fused_attn (5 launches of jit_loss_fn on one thread), jax08_gemm (18 of jit_dot
    // among helper jits), jax_conv_minimal_08 (5 launches on each of 8 device threads).
    void realJaxModuleSteps() {
        for (const auto& [file, count] :
             std::vector<std::pair<std::string, size_t>>{{"te_fused_attn.934987a2fc2f", 5},
                                                         {"jax08_gemm.tw003", 18},
                                                         {"jax_conv_minimal_08.tw003", 5}}) {
            const std::string path = kRealData + "/jax-rocm/" + file + ".xplane.pb";
            if (!std::filesystem::exists(path)) QSKIP("../shared/realdata is absent");
            const auto expected = jaxModuleSteps(path);
            QCOMPARE(expected.size(), count);
            LoadResult r = loadPath(path);
            QVERIFY(r.ok());
            const StepAnalysis a = analyzeSteps(*r.profile);
            QCOMPARE(a.source, StepSource::XlaModules);
            QCOMPARE(a.steps.size() + a.notWellFormed, count);
            QCOMPARE(a.steps.size(), count);
            for (size_t k = 0; k < count; ++k) {
                QCOMPARE(a.steps[k].number, int64_t(k));
                QCOMPARE(a.steps[k].durationPs, expected[k].second);
                // Relative begins: the profile counts time from its own start.
                QCOMPARE(a.steps[k].beginPs - a.steps[0].beginPs,
                         expected[k].first - expected[0].first);
                int64_t sum = 0;
                for (int64_t c : a.steps[k].categoryPs) sum += c;
                QCOMPARE(sum, a.steps[k].durationPs);
            }
        }
    }

    // Each host's steps are its own: the BERT run's two hosts (byte-identical files) give every
    // step twice, once per host, each with the breakdown the host has alone. Before steps were
    // keyed by host, the same group id on both hosts made one step.
    void realTensorFlowTwoHosts() {
        const std::string dir = kRealData + "/tf-gpu-bert/plugins/profile/2020_12_03_bert/";
        if (!std::filesystem::exists(dir)) QSKIP("../shared/realdata is absent");
        LoadResult one = loadPath(dir + "34.83.195.179_6003.xplane.pb");
        QVERIFY(one.ok());
        const StepAnalysis single = analyzeSteps(*one.profile);
        QVERIFY(!single.steps.empty());
        LoadResult both = loadHosts({{"34.83.195.179_6003", dir + "34.83.195.179_6003.xplane.pb"},
                                     {"34.83.195.180_6003", dir + "34.83.195.180_6003.xplane.pb"}});
        QVERIFY(both.ok());
        const StepAnalysis two = analyzeSteps(*both.profile);
        QCOMPARE(two.steps.size(), 2 * single.steps.size());
        for (uint32_t h = 0; h < 2; ++h) {
            std::vector<const StepRecord*> mine;
            for (const StepRecord& s : two.steps)
                if (s.host == h) mine.push_back(&s);
            QCOMPARE(mine.size(), single.steps.size());
            for (size_t i = 0; i < mine.size(); ++i) {
                QCOMPARE(mine[i]->number, single.steps[i].number);
                QCOMPARE(mine[i]->durationPs, single.steps[i].durationPs);
                QVERIFY(mine[i]->categoryPs == single.steps[i].categoryPs);
            }
        }
        const Overview o = computeOverview(*both.profile);
        const Table t = overviewStepTable(o);
        QCOMPARE(t.text(0, size_t(t.columnIndex("Host"))), std::string("34.83.195.179_6003"));
        QCOMPARE(t.text(1, size_t(t.columnIndex("Host"))), std::string("34.83.195.180_6003"));
    }

    // Eager share where the profile says: the BERT profile's TF op events carry is_eager; the
    // eager share of their time, per side, counted with protobuf's classes (recorded lines only).
    void realTensorFlowEagerShare() {
        const std::string path = kRealData + "/tf-gpu-bert/plugins/profile/2020_12_03_bert/"
                                             "34.83.195.179_6003.xplane.pb";
        if (!std::filesystem::exists(path)) QSKIP("../shared/realdata is absent");
        int64_t carried[2] = {}, eager[2] = {};
        for (const ProtoEvent& e : readProtoEvents(path)) {
            const bool derived = int32_t(e.lineId) >= int32_t(0xdeadbeef) &&
                                 int32_t(e.lineId) <= int32_t(0xdeadbeef) + 289;
            if (derived || !e.ints.count("is_eager")) continue;
            const int side = e.plane == "/host:CPU" ? 0 : 1;
            carried[side] += e.durationPs;
            if (e.ints.at("is_eager") != 0) eager[side] += e.durationPs;
        }
        QVERIFY(carried[0] > 0 && carried[1] > 0);
        LoadResult r = loadPath(path);
        QVERIFY(r.ok());
        const Overview o = computeOverview(*r.profile);
        QCOMPARE(o.hostEagerPercent, 100.0 * double(eager[0]) / double(carried[0]));
        QCOMPARE(o.deviceEagerPercent, 100.0 * double(eager[1]) / double(carried[1]));
        // A profile without the stat says nothing: not recorded, not 0.
        QVERIFY(std::isnan(computeOverview(*load(OverviewScenario::InputBound)).hostEagerPercent));
    }

    // Nsight's pageable-copy rule on real PyTorch data: alexnet_a100_small has 16
    // "Memcpy HtoD (Pageable -> Device)" copies, each launched by cudaMemcpyAsync, 55503 µs in
    // all (read with Python's gzip + json: the gpu_memcpy events' names and "dur", their
    // launches' names by "correlation").
    void realKinetoPageableCopies() {
        const std::string path = kRealData + "/kineto/alexnet_a100_small.json.gz";
        if (!std::filesystem::exists(path)) QSKIP("../shared/realdata is absent");
        LoadResult r = loadPath(path);
        QVERIFY(r.ok());
        const Overview o = computeOverview(*r.profile);
        const Recommendation* found = nullptr;
        for (const Recommendation& x : o.recommendations)
            if (x.id == "pageable_async_copies") found = &x;
        QVERIFY(found);
        QCOMPARE(found->value, 16.0);
        QVERIFY(found->text.find("(55.503 ms)") != std::string::npos);
    }
};

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    TestOverview a;
    TestOverviewSteps b;
    return QTest::qExec(&a, argc, argv) | QTest::qExec(&b, argc, argv);
}

#include "test_overview.moc"
