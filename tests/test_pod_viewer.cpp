// Pod viewer: per-worker step breakdowns, collective time and overlap, and the three straggler
// rules on a generated three-worker run (tests/fixtures/PodFixtures.h; every expected value worked
// out by hand from the fixture's intervals, in the comments), an unreadable worker beside good
// ones, cancel, and the real multi-host and multi-rank runs with facts counted independently.
#include <QtTest>
#include <filesystem>
#include <set>

#include "model/Csv.h"
#include "model/ProfileLoader.h"
#include "model/analysis/PodViewer.h"
#include "tests/fixtures/PodFixtures.h"
#include "tests/fixtures/ProtoXSpace.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {
constexpr int64_t us = 1000000;
const std::string kRealData = STEPSCOPE_REALDATA;

// The fixture run as a log directory of three host files.
QString writePodRun(const QTemporaryDir& dir) {
    std::vector<std::pair<QString, std::vector<uint8_t>>> hosts;
    for (int w = 0; w < 3; ++w) hosts.push_back({podWorkerName(w), podWorkerFixture(w).encode()});
    return writeLogDir(dir, "2026_01_01_pod", hosts);
}

const PodStep& stepNumbered(const PodAnalysis& pod, int64_t n) {
    for (const PodStep& s : pod.steps)
        if (s.number == n) return s;
    qFatal("no step %lld", static_cast<long long>(n));
}
} // namespace

class TestPodViewer : public QObject {
    Q_OBJECT

private slots:
    void fixtureBreakdowns() {
        QTemporaryDir dir;
        const QString logdir = writePodRun(dir);
        QVERIFY(!logdir.isEmpty());
        const LoadResult r = loadPath(logdir.toStdString());
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.profile->hosts().size(), size_t(3));
        const PodAnalysis pod = computePodViewer(*r.profile);
        QCOMPARE(pod.workers.size(), size_t(3));
        QCOMPARE(pod.loadedWorkers(), size_t(3));
        for (int w = 0; w < 3; ++w) {
            QCOMPARE(pod.workers[w].name, std::string(podWorkerName(w)));
            QVERIFY(pod.workers[w].error.empty());
            QCOMPARE(pod.workers[w].source, StepSource::GroupedSteps);
            QCOMPARE(pod.workers[w].steps, size_t(3));
        }
        QCOMPARE(pod.steps.size(), size_t(3));

        // Step 0, every worker: launch [0,10) -> kernel launch 10; sgemm [10,610) covers the
        // second launch -> compute 600; ncclAllReduce [500,800) shows from 610 -> collectives 190;
        // step = the marker [0,800). Collective kernels 300, 110 of them under the sgemm.
        for (int w = 0; w < 3; ++w) {
            const PodCell& c = stepNumbered(pod, 0).cells[w];
            QVERIFY(c.present);
            QCOMPARE(c.step.durationPs, 800 * us);
            QCOMPARE(c.step.ps(StepCategory::KernelLaunch), 10 * us);
            QCOMPARE(c.step.ps(StepCategory::DeviceCompute32), 600 * us);
            QCOMPARE(c.step.ps(StepCategory::DeviceCollectives), 190 * us);
            QCOMPARE(c.step.ps(StepCategory::AllOthers), 0);
            QCOMPARE(c.collectivePs, 300 * us);
            QCOMPARE(c.collectiveOverlapPs, 110 * us);
            QCOMPARE(c.firstCollectivePs, 500 * us); // every line starts at 1000 ns
        }
        // Step 1 (begins at 2000 µs): a: compute [10,610), collectives [610,1000) = 390, kernels
        // [500,1000) = 500 with 110 overlapped. b: compute [10,910) = 900, collectives 90, kernels
        // [850,1000) = 150 with 60 overlapped. c: compute [10,550) = 540, collectives [550,1000)
        // = 450, kernels 450, none overlapped.
        const PodStep& s1 = stepNumbered(pod, 1);
        const int64_t want1[3][5] = {
            {600, 390, 500, 110, 500}, {900, 90, 150, 60, 850}, {540, 450, 450, 0, 550}};
        for (int w = 0; w < 3; ++w) {
            const PodCell& c = s1.cells[w];
            QCOMPARE(c.step.durationPs, 1000 * us);
            QCOMPARE(c.step.ps(StepCategory::KernelLaunch), 10 * us);
            QCOMPARE(c.step.ps(StepCategory::DeviceCompute32), want1[w][0] * us);
            QCOMPARE(c.step.ps(StepCategory::DeviceCollectives), want1[w][1] * us);
            QCOMPARE(c.collectivePs, want1[w][2] * us);
            QCOMPARE(c.collectiveOverlapPs, want1[w][3] * us);
            QCOMPARE(c.firstCollectivePs, (2000 + want1[w][4]) * us);
        }
        // Step 2: c waits for input [800,1200) -> input 400, step 1200.
        const PodCell& c2 = stepNumbered(pod, 2).cells[2];
        QCOMPARE(c2.step.durationPs, 1200 * us);
        QCOMPARE(c2.step.ps(StepCategory::Input), 400 * us);
        QCOMPARE(c2.step.ps(StepCategory::DeviceCollectives), 190 * us);
        QCOMPARE(stepNumbered(pod, 2).cells[0].step.durationPs, 800 * us);
        // The link to the trace viewer: host-c's step-2 marker train_function [4000,5200) µs in
        // the run loaded with all hosts.
        const EventIndex e = podStepEvent(*r.profile, pod, stepNumbered(pod, 2), 2);
        QVERIFY(e != kNoIndex);
        QCOMPARE(std::string(r.profile->name(e)), std::string("train_function"));
        QCOMPARE(r.profile->duration(e), 1200 * us);
        QCOMPARE(r.profile
                     ->hosts()[r.profile->planes()[r.profile->tracks()[r.profile->trackOf(e)].plane]
                                   .host]
                     .name,
                 std::string("host-c"));
    }

    void fixtureStragglers() {
        QTemporaryDir dir;
        const LoadResult r = loadPath(writePodRun(dir).toStdString());
        QVERIFY(r.ok());
        const PodAnalysis pod = computePodViewer(*r.profile);
        // Step 0: all equal, no straggler of any kind.
        const PodStep& s0 = stepNumbered(pod, 0);
        QCOMPARE(s0.stepTime.worker, -1);
        QCOMPARE(s0.collectiveWait.worker, -1);
        QCOMPARE(s0.lastToStart.worker, -1);
        // Step 1: step times equal; waits .39 .09 .45 ms, median .39 -> c, +.06; collectives
        // start at 500, 850, 550 -> lags 0, .35, .05 ms, median .05 -> b, +.30.
        const PodStep& s1 = stepNumbered(pod, 1);
        QCOMPARE(s1.stepTime.worker, -1);
        QCOMPARE(s1.collectiveWait.worker, 2);
        QCOMPARE(s1.collectiveWait.medianMs, 0.39);
        QCOMPARE(s1.collectiveWait.excessMs, 0.45 - 0.39);
        QCOMPARE(s1.lastToStart.worker, 1);
        QCOMPARE(s1.lastToStart.valueMs, 0.35);
        QCOMPARE(s1.lastToStart.medianMs, 0.05);
        // Step 2: .8 .8 1.2 ms -> c, +.4.
        const PodStep& s2 = stepNumbered(pod, 2);
        QCOMPARE(s2.stepTime.worker, 2);
        QCOMPARE(s2.stepTime.valueMs, 1.2);
        QCOMPARE(s2.stepTime.medianMs, 0.8);
        // All steps: mean step .8667 .8667 1.0 -> c; mean wait .25667 .15667 .27667 -> c;
        // mean lag 0, .11667, .01667 -> b.
        QCOMPARE(pod.stepTime.worker, 2);
        QCOMPARE(pod.stepTime.valueMs, 1.0);
        QCOMPARE(pod.stepTime.medianMs, 2.6 / 3);
        QCOMPARE(pod.collectiveWait.worker, 2);
        QCOMPARE(pod.collectiveWait.valueMs, 0.83 / 3);
        QCOMPARE(pod.collectiveWait.medianMs, 0.77 / 3);
        QCOMPARE(pod.lastToStart.worker, 1);
        QCOMPARE(pod.lastToStart.valueMs, 0.35 / 3);
        // Kernels behind the collective time: 3 calls each; a 300+500+300, b 300+150+300,
        // c 300+450+300 µs.
        QCOMPARE(pod.kernels.size(), size_t(3));
        const int64_t totals[3] = {1100, 750, 1050};
        for (int w = 0; w < 3; ++w) {
            QCOMPARE(pod.kernels[w].worker, w);
            QCOMPARE(pod.kernels[w].name, std::string("ncclAllReduceRingLLKernel"));
            QCOMPARE(pod.kernels[w].calls, int64_t(3));
            QCOMPARE(pod.kernels[w].totalPs, totals[w] * us);
        }
        // Worker table: overlap a 330/1100, b 280/750, c 220/1050.
        const Table workers = podWorkerTable(pod);
        const int overlap = workers.columnIndex("Collectives overlapped by compute (%)");
        QCOMPARE(workers.number(0, overlap), 30.0);
        QCOMPARE(workers.number(1, overlap), 100.0 * 280 / 750);
        QCOMPARE(workers.number(2, overlap), 100.0 * 220 / 1050);
        QVERIFY(workers.isMissing(0, workers.columnIndex("Rank")));
        // Step table: 9 rows; step 1's filter has 3; c's step-1 overlap is 0 %, not missing.
        QCOMPARE(podStepTable(pod).rowCount(), size_t(9));
        const Table one = podStepTable(pod, 1);
        QCOMPARE(one.rowCount(), size_t(3));
        QCOMPARE(one.number(2, one.columnIndex("Collectives overlapped by compute (%)")), 0.0);
        QCOMPARE(one.number(1, one.columnIndex("First collective after the earliest worker (ms)")),
                 0.35);
        QCOMPARE(one.exactText(0, one.columnIndex("Device collectives (ms)")), std::string("0.39"));
        const std::string json = podViewerJson(pod);
        QVERIFY(json.find("\"last_to_start_collectives\":{\"worker\":\"host-b\"") !=
                std::string::npos);
    }

    // One unreadable worker: named with its problem, the others analysed as before.
    void unreadableWorker() {
        QTemporaryDir dir;
        const QString logdir = writePodRun(dir);
        const std::string run = logdir.toStdString() + "/plugins/profile/2026_01_01_pod/";
        const std::string bad = run + "host-d.xplane.pb";
        const uint8_t junk[] = {0x0A, 0xFF, 0xFF, 0xFF, 0x0F, 0x01};
        QVERIFY(writeFile(QString::fromStdString(bad), junk));
        std::vector<HostFile> files;
        for (int w = 0; w < 3; ++w)
            files.push_back({podWorkerName(w), run + podWorkerName(w) + ".xplane.pb"});
        files.push_back({"host-d", bad});
        files.push_back({"host-e", run + "missing.xplane.pb"});
        const PodAnalysis pod = computePodViewer(files);
        QCOMPARE(pod.workers.size(), size_t(5));
        QCOMPARE(pod.loadedWorkers(), size_t(3));
        QVERIFY(pod.workers[3].error.starts_with("cannot be loaded: "));
        QVERIFY(pod.workers[3].error.find("host-d.xplane.pb") != std::string::npos);
        QVERIFY(pod.workers[4].error.find("missing.xplane.pb") != std::string::npos);
        QCOMPARE(pod.stepTime.worker, 2);
        QCOMPARE(pod.lastToStart.worker, 1);
        for (const PodStep& s : pod.steps) QVERIFY(!s.cells[3].present && !s.cells[4].present);
        QCOMPARE(podWorkerTable(pod).text(3, 8), pod.workers[3].error);
    }

    // The run loaded with all its hosts (as the window's "All hosts" and the CLI load it) when
    // one host file is corrupt: the others load, the bad one is a host without planes whose
    // error names its file, and the pod viewer lists it as a worker with that problem.
    void allHostsWithCorruptWorker() {
        QTemporaryDir dir;
        const QString logdir = writePodRun(dir);
        const std::string run = logdir.toStdString() + "/plugins/profile/2026_01_01_pod/";
        const std::string bad = run + "host-b2.xplane.pb"; // sorts between host-b and host-c
        const uint8_t junk[] = {0x0A, 0xFF, 0xFF, 0xFF, 0x0F, 0x01};
        QVERIFY(writeFile(QString::fromStdString(bad), junk));
        const LoadResult r = loadPath(logdir.toStdString());
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.profile->hosts().size(), size_t(4));
        const Host& h = r.profile->hosts()[2];
        QCOMPARE(h.name, std::string("host-b2"));
        QCOMPARE(h.errors.size(), size_t(1));
        QVERIFY(h.errors[0].starts_with("cannot be loaded: " + bad + ": "));
        for (const Plane& plane : r.profile->planes()) QVERIFY(plane.host != 2);
        const PodAnalysis pod = computePodViewer(*r.profile);
        QCOMPARE(pod.workers.size(), size_t(4));
        QCOMPARE(pod.loadedWorkers(), size_t(3));
        QCOMPARE(pod.workers[2].name, std::string("host-b2"));
        QVERIFY(pod.workers[2].error.find(bad) != std::string::npos);
        QCOMPARE(pod.stepTime.worker, 3); // host-c, as without the bad file
        // Every host unreadable: the load fails and says so.
        QTemporaryDir dir2;
        const std::string a = dir2.path().toStdString() + "/a.xplane.pb",
                          b = dir2.path().toStdString() + "/b.xplane.pb";
        QVERIFY(writeFile(QString::fromStdString(a), junk));
        QVERIFY(writeFile(QString::fromStdString(b), junk));
        const LoadResult none = loadHosts({{"a", a}, {"b", b}});
        QVERIFY(!none.ok());
        QVERIFY(none.error.starts_with("no host of the run can be read"));
    }

    void cancelled() {
        QTemporaryDir dir;
        const QString logdir = writePodRun(dir);
        const std::string run = logdir.toStdString() + "/plugins/profile/2026_01_01_pod/";
        std::vector<HostFile> files;
        for (int w = 0; w < 3; ++w)
            files.push_back({podWorkerName(w), run + podWorkerName(w) + ".xplane.pb"});
        Progress progress;
        progress.cancel();
        const PodAnalysis pod = computePodViewer(files, &progress);
        QVERIFY(pod.workers.empty());
        QVERIFY(pod.steps.empty());
    }

    // The real two-host TensorBoard run: two workers named by their files; the steps are the
    // group ids that the GPU planes' "Steps" lines and stream events both carry (counted with
    // protobuf's classes); the files are byte-identical, so no worker stands out.
    void realTwoHosts() {
        const std::string run = kRealData + "/tf-gpu-bert/plugins/profile/2020_12_03_bert";
        if (!std::filesystem::exists(run)) QSKIP("../shared/realdata is absent");
        std::map<std::string, std::set<int64_t>> markers, stepEvents;
        std::set<std::string> ncclNames;
        for (const ProtoEvent& e : readProtoEvents(run + "/34.83.195.179_6003.xplane.pb")) {
            if (e.plane.rfind("/device:GPU:", 0) != 0) continue;
            const bool derived = int32_t(e.lineId) >= int32_t(0xdeadbeef) &&
                                 int32_t(e.lineId) <= int32_t(0xdeadbeef) + 289;
            if (e.line == "Steps" && e.ints.count("group_id"))
                markers[e.plane].insert(e.ints.at("group_id"));
            if (derived) continue;
            if (e.ints.count("group_id") && e.ints.count("correlation_id"))
                stepEvents[e.plane].insert(e.ints.at("group_id"));
            std::string lower = e.name;
            for (char& ch : lower) ch = char(std::tolower(uint8_t(ch)));
            if (lower.find("nccl") != std::string::npos) ncclNames.insert(e.name);
        }
        std::set<int64_t> groups;
        for (auto& [plane, g] : stepEvents)
            for (int64_t id : g)
                if (markers[plane].count(id)) groups.insert(id);
        const LoadResult r = loadPath(kRealData + "/tf-gpu-bert");
        QVERIFY2(r.ok(), r.error.c_str());
        const PodAnalysis pod = computePodViewer(*r.profile);
        QCOMPARE(pod.workers.size(), size_t(2));
        QCOMPARE(pod.workers[0].name, std::string("34.83.195.179_6003"));
        QCOMPARE(pod.workers[1].name, std::string("34.83.195.180_6003"));
        QCOMPARE(pod.loadedWorkers(), size_t(2));
        QVERIFY(!pod.steps.empty());
        for (const PodStep& s : pod.steps) {
            QVERIFY(groups.count(s.number));
            QVERIFY(s.cells[0].present && s.cells[1].present);
            QCOMPARE(s.cells[0].step.durationPs, s.cells[1].step.durationPs);
            QCOMPARE(s.cells[0].collectivePs, s.cells[1].collectivePs);
            QCOMPARE(s.stepTime.worker, -1);
        }
        QCOMPARE(pod.stepTime.worker, -1);
        for (const PodCollectiveKernel& k : pod.kernels) QVERIFY(ncclNames.count(k.name));
        QVERIFY(!pod.pytorch); // TensorFlow hosts: no PyTorch distributed view
    }

    // Two ranks of a real NCCL job (HTA's sampled_rank-0/1): named by distributedInfo.rank.
    // Facts counted with Python's json module from the files: steps ProfilerStep#551 and #552;
    // rank 0 lasts 607312 and 622928 µs, rank 1 607904 and 630639 µs; the union of the NCCL
    // kernels within each step is 195327 / 200872 µs (rank 0) and 168027 / 211026 µs (rank 1);
    // the first NCCL kernel of step 551 starts at 1682725898094377 µs on rank 0 and ..129911 on
    // rank 1 (rank 1 last, 35534 µs later); of step 552 at ..741096 and ..701451 (rank 0 last,
    // 39645 µs later).
    void realRanks() {
        const std::string src = kRealData + "/kineto";
        if (!std::filesystem::exists(src + "/sampled_rank-0.json.gz"))
            QSKIP("../shared/realdata is absent");
        // Listed in reverse so that the order comes from the ranks, not the files.
        std::vector<HostFile> files;
        for (const char* name : {"sampled_rank-1", "sampled_rank-0"})
            files.push_back({name, src + "/" + name + ".json.gz"});
        const PodAnalysis pod = computePodViewer(files);
        QCOMPARE(pod.workers.size(), size_t(2));
        QVERIFY2(pod.workers[0].error.empty(), pod.workers[0].error.c_str());
        QCOMPARE(pod.workers[0].name, std::string("rank 0"));
        QCOMPARE(pod.workers[1].name, std::string("rank 1"));
        QCOMPARE(pod.workers[0].source, StepSource::ProfilerSteps);
        QCOMPARE(pod.steps.size(), size_t(2));
        QCOMPARE(pod.steps[0].number, int64_t(551));
        QCOMPARE(pod.steps[1].number, int64_t(552));
        const int64_t duration[2][2] = {{607312, 622928}, {607904, 630639}};
        const int64_t collective[2][2] = {{195327, 200872}, {168027, 211026}};
        for (int s = 0; s < 2; ++s)
            for (int w = 0; w < 2; ++w) {
                QCOMPARE(pod.steps[s].cells[w].step.durationPs, duration[w][s] * us);
                QCOMPARE(pod.steps[s].cells[w].collectivePs, collective[w][s] * us);
            }
        QCOMPARE(pod.steps[0].lastToStart.worker, 1);
        QCOMPARE(pod.steps[0].lastToStart.valueMs, 35.534);
        QCOMPARE(pod.steps[1].lastToStart.worker, 0);
        QCOMPARE(pod.steps[1].lastToStart.valueMs, 39.645);
        // Mean lags 19.8225 (rank 0) and 17.767 ms (rank 1).
        QCOMPARE(pod.lastToStart.worker, 0);
        // Mean step times 615.12 and 619.2715 ms: rank 1 above the median of the two.
        QCOMPARE(pod.stepTime.worker, 1);
        // PyTorch's distributed view over the two ranks, in rank order (its values are checked
        // against the plugin in test_pytorch_distributed): four nccl:all_reduce calls each.
        QVERIFY(pod.pytorch);
        QCOMPARE(pod.distributedWorkers, (std::vector<size_t>{0, 1}));
        QVERIFY(pod.distributed.transferKnown);
        QCOMPARE(pod.distributed.workers[0].ops[0].calls, int64_t(4));
        QCOMPARE(pod.distributed.workers[1].ops[0].bytes, int64_t(284846792)); // rank 1's
        const std::string json = podViewerJson(pod);
        QVERIFY(json.find("\"pytorch_distributed\"") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestPodViewer)
#include "test_pod_viewer.moc"
