// Overview analysis: step detection and XProf's per-step breakdown on fixtures built to a known
// breakdown (tests/fixtures/OverviewFixtures.h, every expected value worked out by hand from the
// fixture's intervals), the verdicts and exactly which recommendations fire, GPU time (busy union,
// idle, exposed copies), the "no steps" state and the name pattern, bad data, and facts about the
// real profiles counted with protobuf's own classes (tests/fixtures/ProtoXSpace.h).
#include <QtTest>
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "model/ProfileLoader.h"
#include "model/analysis/GpuTime.h"
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
// offsets within the 1000 µs step period).
int lowWindows(int64_t busyFromUs, int64_t busyToUs, int steps = 4, int64_t pitchUs = 0,
               int64_t dutyUs = 0) {
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
    int low = 0;
    for (int c = 0; c < 30; ++c) {
        const int64_t lo = first + (last - first) * c / 30,
                      hi = first + (last - first) * (c + 1) / 30;
        int64_t b = 0;
        for (auto [s, e] : busy) b += std::max<int64_t>(0, std::min(hi, e) - std::max(lo, s));
        if (2 * b < hi - lo) ++low;
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
        QCOMPARE(o.bottleneck.kernelLaunch, std::string("no"));
        QCOMPARE(o.compute16Percent, 0.0);
        QCOMPARE(ids(o),
                 (std::set<std::string>{"input_bound", "mixed_precision", "low_utilization"}));
        QCOMPARE(find(o, "input_bound")->level, std::string("high"));
        QCOMPARE(find(o, "input_bound")->value, 40.0);
        QCOMPARE(find(o, "low_utilization")->value, double(lowWindows(410, 1000)));
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
        QCOMPARE(o.bottleneck.kernelLaunch, std::string("high"));
        // Not input-bound by input, but all-others >= 3%: XProf's "potentially" input-bound,
        // which then is not reported again as all-others.
        QCOMPARE(o.bottleneck.input, std::string("both"));
        QCOMPARE(o.bottleneck.allOther, std::string("no"));
        QCOMPARE(ids(o), (std::set<std::string>{"input_bound", "kernel_launch", "mixed_precision",
                                                "low_utilization"}));
        QCOMPARE(find(o, "input_bound")->value, 20.0);
        QVERIFY(find(o, "kernel_launch")->text.find("160 of 160 kernels") != std::string::npos);
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

    void summaryStatistics() {
        const SampleSummary s = summarize({1, 2, 3, 4});
        QCOMPARE(s.average, 2.5);
        QCOMPARE(s.stddev, std::sqrt(1.25)); // population: (2.25 + 0.25 + 0.25 + 2.25) / 4
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
    }

    // Raw JAX profiles: no group ids and no step markers, so no steps (never invented), but GPU
    // time per device, counted here with protobuf's classes.
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
        QCOMPARE(o.steps.source, StepSource::None);
        QCOMPARE(o.gpu.devices.size(), extent.size());
        for (const GpuTimeRow& d : o.gpu.devices) {
            QCOMPARE(d.events, count.at(d.device));
            QCOMPARE(d.spanPs(), extent.at(d.device).second - extent.at(d.device).first);
            QVERIFY(d.busyPs <= d.spanPs());
        }
    }
};

QTEST_GUILESS_MAIN(TestOverview)
#include "test_overview.moc"
