// Stacked runs (model/analysis/StackedRuns.h): a hand-built pair whose taken events, shifted times,
// hosts, tracks, stats and flows are worked out below by hand; the two ranks of a real Kineto job
// checked against an independent count (gzip + QJsonDocument, not Stepscope's importer).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>
#include <set>

#include "model/ProfileBuilder.h"
#include "model/ProfileLoader.h"
#include "model/analysis/HloCatalog.h"
#include "model/analysis/StackedRuns.h"
#include "model/analysis/StepAnalysis.h"
#include "tests/fixtures/DiffFixtures.h"

using namespace stepscope;

namespace {

constexpr int64_t kUs = 1'000'000; // ps

// One run on host "h": thread "python3" on /host:CPU and "Stream #7(Compute)" on /device:GPU:0.
// Host: "setup" [0, 50) µs; `prep` ("prep" [step - 10, step + 5)) when asked; the step marker
// "train" [step, step + length); inside it two cudaLaunchKernel of 5 µs at step + 10 (correlation
// 1) and at step + length - 10 (correlation 2); "after" [step + length + 100, + 100).
// Stream: "gemm" [step + 20, + gemmUs) (correlation 1, tf_op "model/MatMul"), "relu"
// [step + length, + 100) (correlation 2: it starts at the step's end, launched inside it) and
// "stray" [step + length + 200, + 10) (correlation 99, no launch).
std::shared_ptr<const Profile> makeRun(int64_t stepUs, int64_t lengthUs, int64_t gemmUs,
                                       bool prep) {
    ProfileBuilder b;
    b.setTimeBase(0);
    const uint32_t host = b.addHost("h", "");
    const uint32_t cpu = b.addPlane(host, 1, "/host:CPU");
    const uint32_t gpu = b.addPlane(host, 2, "/device:GPU:0");
    const uint32_t thread = b.addTrack(cpu, 42, "python3");
    const uint32_t stream = b.addTrack(gpu, 7, "Stream #7(Compute)");
    auto meta = [&](uint32_t plane, const char* name) {
        static int64_t id = 0;
        return b.addMetadata(plane, ++id, name, "");
    };
    auto corr = [&](uint64_t id) {
        b.addEventStat(StatValue{b.intern("correlation_id"), StatType::Uint64, id});
    };
    const int64_t s = stepUs, end = stepUs + lengthUs;
    b.addEvent(thread, 0, 50 * kUs, meta(cpu, "setup"));
    if (prep) b.addEvent(thread, (s - 10) * kUs, 15 * kUs, meta(cpu, "prep"));
    b.addEvent(thread, s * kUs, lengthUs * kUs, meta(cpu, "train"));
    const uint32_t launch = meta(cpu, "cudaLaunchKernel");
    b.addEvent(thread, (s + 10) * kUs, 5 * kUs, launch);
    corr(1);
    b.addEvent(thread, (end - 10) * kUs, 5 * kUs, launch);
    corr(2);
    b.addEvent(thread, (end + 100) * kUs, 100 * kUs, meta(cpu, "after"));
    b.addEvent(stream, (s + 20) * kUs, gemmUs * kUs, meta(gpu, "gemm"));
    corr(1);
    b.addEventStat(StatValue{b.intern("tf_op"), StatType::Ref, b.intern("model/MatMul")});
    b.addEvent(stream, end * kUs, 100 * kUs, meta(gpu, "relu"));
    corr(2);
    b.addEvent(stream, (end + 200) * kUs, 10 * kUs, meta(gpu, "stray"));
    corr(99);
    return b.finish();
}

StepRecord step(int64_t beginUs, int64_t lengthUs) {
    StepRecord r;
    r.beginPs = beginUs * kUs;
    r.durationPs = lengthUs * kUs;
    return r;
}

// (host name, event name) -> start in µs, of every event of the stacked profile.
std::multimap<std::pair<std::string, std::string>, double> eventsOf(const Profile& p) {
    std::multimap<std::pair<std::string, std::string>, double> out;
    for (EventIndex e = 0; e < p.eventCount(); ++e) {
        const Plane& plane = p.planes()[p.tracks()[p.trackOf(e)].plane];
        out.emplace(std::make_pair(p.hosts()[plane.host].name, std::string(p.name(e))),
                    double(p.start(e)) / kUs);
    }
    return out;
}

} // namespace

class TestStackedRuns : public QObject {
    Q_OBJECT

private slots:
    // Baseline: step [100, 1100) µs with "prep" from 90 µs, gemm 500 µs. Candidate: step
    // [300, 1400) µs, no prep, gemm 600 µs (20% slower).
    // Taken, baseline: prep (overlaps the start), train, both launches, gemm, relu (launched in the
    // step) = 6; not setup, after, stray. Candidate: train, launches, gemm, relu = 5.
    // Lead: the baseline's earliest taken event is prep, 10 µs before its step; the candidate's is
    // train, at its step: both steps start at 10 µs. Baseline times move by 10 - 100 = -90 µs,
    // the candidate's by 10 - 300 = -290 µs.
    void handBuiltPair() {
        const auto base = makeRun(100, 1000, 500, true);
        const auto cand = makeRun(300, 1100, 600, false);
        const StackedRuns s = stackRuns(*base, step(100, 1000), *cand, step(300, 1100));
        QVERIFY(s.profile);
        const Profile& p = *s.profile;
        QCOMPARE(s.stepBeginPs, 10 * kUs);
        QCOMPARE(s.baseDurationPs, 1000 * kUs);
        QCOMPARE(s.candidateDurationPs, 1100 * kUs);
        QCOMPARE(s.baseEvents, size_t(6));
        QCOMPARE(s.candidateEvents, size_t(5));
        QCOMPARE(p.eventCount(), size_t(11));
        QCOMPARE(s.candidateFirstHost, 1u);
        QCOMPARE(p.hosts().size(), size_t(2));
        QCOMPARE(p.hosts()[0].name, std::string("Baseline · h"));
        QCOMPARE(p.hosts()[1].name, std::string("Candidate · h"));
        // Stacked 0 is 10 µs before the baseline step: 90 µs after the baseline's time base.
        QCOMPARE(p.startNs(), int64_t(90'000));

        const std::string B = "Baseline · h", C = "Candidate · h";
        const std::multimap<std::pair<std::string, std::string>, double> expected = {
            {{B, "prep"}, 0},
            {{B, "train"}, 10},
            {{B, "cudaLaunchKernel"}, 20},   // 110 - 90
            {{B, "cudaLaunchKernel"}, 1000}, // 1090 - 90
            {{B, "gemm"}, 30},               // 120 - 90
            {{B, "relu"}, 1010},             // 1100 - 90
            {{C, "train"}, 10},
            {{C, "cudaLaunchKernel"}, 20},   // 310 - 290
            {{C, "cudaLaunchKernel"}, 1100}, // 1390 - 290
            {{C, "gemm"}, 30},               // 320 - 290
            {{C, "relu"}, 1110},             // 1400 - 290
        };
        QCOMPARE(eventsOf(p), expected);

        // Durations kept: the candidate's gemm is 600 µs, the baseline's 500 µs.
        for (EventIndex e = 0; e < p.eventCount(); ++e)
            if (p.name(e) == "gemm") {
                const uint32_t h = p.planes()[p.tracks()[p.trackOf(e)].plane].host;
                QCOMPARE(p.duration(e), (h == 0 ? 500 : 600) * kUs);
                // Stats kept (the tf_op Ref re-interned into the stacked pool).
                const StringId* op = p.frameworkOps().find(e);
                QVERIFY(op);
                QCOMPARE(p.str(*op), std::string_view("model/MatMul"));
            }
        // Tracks per run: one host thread and one GPU stream each, names and ids kept.
        QCOMPARE(p.planes().size(), size_t(4));
        QCOMPARE(p.tracks().size(), size_t(4));
        for (const Track& t : p.tracks()) {
            const Plane& pl = p.planes()[t.plane];
            if (pl.kind == PlaneKind::Gpu) {
                QCOMPARE(p.str(t.name), std::string_view("Stream #7(Compute)"));
                QVERIFY(t.deviceOps);
                QCOMPARE(t.eventCount, 2u);
            } else {
                QCOMPARE(pl.kind, PlaneKind::Host);
                QCOMPARE(p.str(t.name), std::string_view("python3"));
                QCOMPARE(t.eventCount, pl.host == 0 ? 4u : 3u);
            }
        }
        // Nesting kept: prep overlaps train without enclosing it, so train sits one level under
        // prep in the baseline (depth 1) and at the top in the candidate (depth 0); the launches
        // lie inside train, one level further down.
        for (EventIndex e = 0; e < p.eventCount(); ++e) {
            const uint32_t h = p.planes()[p.tracks()[p.trackOf(e)].plane].host;
            if (p.name(e) == "train") QCOMPARE(p.depthOf(e), h == 0 ? 1u : 0u);
            if (p.name(e) == "cudaLaunchKernel") QCOMPARE(p.depthOf(e), h == 0 ? 2u : 1u);
        }
        // Flows joined again within each run: launch 1 -> gemm, launch 2 -> relu, per host.
        QCOMPARE(p.flows().size(), size_t(4));
        std::set<std::tuple<uint32_t, double, std::string>> flows;
        for (const Flow& f : p.flows()) {
            const uint32_t hl = p.planes()[p.tracks()[p.trackOf(f.launch)].plane].host;
            const uint32_t ht = p.planes()[p.tracks()[p.trackOf(f.target)].plane].host;
            QCOMPARE(hl, ht);
            flows.emplace(hl, double(p.start(f.launch)) / kUs, std::string(p.name(f.target)));
        }
        const std::set<std::tuple<uint32_t, double, std::string>> expectedFlows = {
            {0, 20, "gemm"}, {0, 1000, "relu"}, {1, 20, "gemm"}, {1, 1100, "relu"}};
        QCOMPARE(flows, expectedFlows);

        // Linked ops: relu has no framework op, so the diff names its op by the kernel; gemm's op
        // is its tf_op "model/MatMul" (a TF op name without ":type" is all name); host events link
        // by their own name. Each once per run.
        const StackedOpIndex index(p);
        auto names = [&](const std::vector<EventIndex>& events) {
            std::multiset<std::pair<uint32_t, std::string>> out;
            for (EventIndex e : events)
                out.emplace(p.planes()[p.tracks()[p.trackOf(e)].plane].host,
                            std::string(p.name(e)));
            return out;
        };
        using Names = std::multiset<std::pair<uint32_t, std::string>>;
        QCOMPARE(names(index.opEvents("relu")), (Names{{0, "relu"}, {1, "relu"}}));
        QCOMPARE(names(index.opEvents("model/MatMul")), (Names{{0, "gemm"}, {1, "gemm"}}));
        QCOMPARE(names(index.opEvents("train")), (Names{{0, "train"}, {1, "train"}}));
        QCOMPARE(names(index.kernelEvents("gemm")), (Names{{0, "gemm"}, {1, "gemm"}}));
        QVERIFY(index.kernelEvents("train").empty()); // host events are no kernels
        QVERIFY(index.opEvents("nothing").empty());
    }

    // Two hosts per run (test_run_diff's hostsPairedNotSummed): worker-a runs KernelSlower's
    // baseline in both runs, worker-b its baseline, then its candidate (gemm 20% slower); the
    // candidate's files come in the order b, a. The hosts share one clock, so a step pair's
    // stacked profile holds all four hosts' gemm (Baseline · worker-a, Baseline · worker-b,
    // Candidate · worker-b, Candidate · worker-a). The MatMul op and the gemm kernel are slower
    // on worker-b only: exactly its two gemm events are outlined, in both runs, whichever host
    // pair's step is stacked.
    void slowerOnlyOnItsHostPair() {
        QTemporaryDir dir;
        const auto [same, slower] = fixtures::diffFixture(fixtures::DiffScenario::KernelSlower);
        const QString a = dir.filePath("a.xplane.pb"), b = dir.filePath("b.xplane.pb");
        QVERIFY(fixtures::writeFile(a, same.encode()));
        QVERIFY(fixtures::writeFile(b, slower.encode()));
        auto loaded = [](std::vector<HostFile> files) {
            LoadResult r = loadHosts(files);
            if (!r.ok()) qFatal("fixture hosts do not load: %s", r.error.c_str());
            return r.profile;
        };
        const auto base = loaded({{"worker-a", a.toStdString()}, {"worker-b", a.toStdString()}});
        const auto candidate =
            loaded({{"worker-b", b.toStdString()}, {"worker-a", a.toStdString()}});
        const RunDiff d = diffRuns(*base, *candidate, {});
        QCOMPARE(d.hostPairs.size(), size_t(2));
        for (size_t pair : {size_t(0), size_t(8)}) {
            const auto [bi, ci] = d.pairing.pairs[pair];
            const StackedRuns runs =
                stackRuns(*base, d.baseSteps.steps[bi], *candidate, d.candidateSteps.steps[ci]);
            const Profile& p = *runs.profile;
            const StackedOpIndex index(p);
            std::set<std::string> gemmHosts;
            for (EventIndex e = 0; e < p.eventCount(); ++e)
                if (p.name(e) == "volta_sgemm_128x64_nn")
                    gemmHosts.insert(
                        p.hosts()[p.planes()[p.tracks()[p.trackOf(e)].plane].host].name);
            QCOMPARE(gemmHosts.size(), size_t(4));
            std::multiset<std::string> flagged;
            for (EventIndex e : slowerEvents(runs, index, d)) {
                QCOMPARE(p.name(e), std::string_view("volta_sgemm_128x64_nn"));
                flagged.insert(p.hosts()[p.planes()[p.tracks()[p.trackOf(e)].plane].host].name);
            }
            QCOMPARE(flagged,
                     (std::multiset<std::string>{"Baseline · worker-b", "Candidate · worker-b"}));
        }
    }

    // A step with nothing in it still gives a profile; a cancelled stacking gives none.
    void emptyAndCancelled() {
        const auto base = makeRun(100, 1000, 500, true);
        const auto cand = makeRun(300, 1100, 600, false);
        // [60, 80) µs: between setup (ends at 50) and prep (starts at 90).
        const StackedRuns empty = stackRuns(*base, step(60, 20), *cand, step(60, 20));
        QVERIFY(empty.profile);
        QCOMPARE(empty.profile->eventCount(), size_t(0));
        QCOMPARE(empty.stepBeginPs, int64_t(0));
        Progress cancelled;
        cancelled.cancel();
        const StackedRuns none =
            stackRuns(*base, step(100, 1000), *cand, step(300, 1100), &cancelled);
        QVERIFY(!none.profile);
    }

    // The two ranks of HTA's sampled job, first ProfilerStep (#551) of each. Independent count:
    // gunzip with the gzip program, parse with QJsonDocument; events ("ph": "X") that overlap the
    // step's [ts, ts + dur) µs, plus GPU events (kernel, gpu_memcpy, gpu_memset) whose
    // correlation matches a taken cuda_runtime launch; split into GPU and host events. Events on
    // the importer's derived lines (its repeats of recorded events) are counted apart.
    void realRanks() {
        const QString dir = QStringLiteral(STEPSCOPE_REALDATA) + "/kineto/";
        const QString f0 = dir + "sampled_rank-0.json.gz", f1 = dir + "sampled_rank-1.json.gz";
        if (!QFile::exists(f0) || !QFile::exists(f1))
            QSKIP("../shared/realdata/kineto/sampled_rank-{0,1}.json.gz not present");
        struct Count {
            double stepTs = 0, stepDur = 0, firstTs = 0;
            int64_t gpu = 0, host = 0;
            std::map<std::string, int64_t> gpuByName;
        };
        auto count = [](const QString& path) {
            QProcess gz;
            gz.start("gzip", {"-dc", path});
            if (!gz.waitForFinished(60000)) qFatal("gzip failed");
            const QJsonArray events = QJsonDocument::fromJson(gz.readAllStandardOutput())
                                          .object()["traceEvents"]
                                          .toArray();
            Count c;
            for (const QJsonValue& v : events) {
                const QJsonObject e = v.toObject();
                if (e["name"].toString() == "ProfilerStep#551") {
                    c.stepTs = e["ts"].toDouble();
                    c.stepDur = e["dur"].toDouble();
                }
            }
            const double b = c.stepTs, end = c.stepTs + c.stepDur;
            auto isGpu = [](const QString& cat) {
                return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
            };
            std::set<qint64> launches;
            auto overlaps = [&](const QJsonObject& e) {
                const double ts = e["ts"].toDouble(), dur = e["dur"].toDouble();
                return ts < end && (ts + dur > b || ts == b);
            };
            for (const QJsonValue& v : events) {
                const QJsonObject e = v.toObject();
                if (e["ph"].toString() == "X" && e["cat"].toString() == "cuda_runtime" &&
                    overlaps(e))
                    launches.insert(e["args"].toObject()["correlation"].toInteger());
            }
            for (const QJsonValue& v : events) {
                const QJsonObject e = v.toObject();
                if (e["ph"].toString() != "X") continue;
                const QString cat = e["cat"].toString();
                if (isGpu(cat)) {
                    if (overlaps(e) ||
                        launches.count(e["args"].toObject()["correlation"].toInteger())) {
                        ++c.gpu;
                        ++c.gpuByName[e["name"].toString().toStdString()];
                    }
                } else if (overlaps(e)) {
                    ++c.host;
                }
            }
            return c;
        };
        const Count c0 = count(f0), c1 = count(f1);
        QVERIFY(c0.stepDur > 0 && c1.stepDur > 0);
        const LoadResult base = loadPath(f0.toStdString());
        const LoadResult cand = loadPath(f1.toStdString());
        QVERIFY2(base.ok() && cand.ok(), (base.error + cand.error).c_str());
        // The step windows from the JSON: ts is µs of the same clock as the profile's start.
        auto window = [](const Profile& p, const Count& c) {
            StepRecord r;
            // Whole µs and the rest apart: ts * 1e6 ps would overflow an int64.
            const double whole = std::floor(c.stepTs);
            r.beginPs = (int64_t(whole) * 1000 - p.startNs()) * 1000 +
                        int64_t(std::llround((c.stepTs - whole) * 1e6));
            r.durationPs = int64_t(c.stepDur * 1e6);
            return r;
        };
        const StackedRuns s = stackRuns(*base.profile, window(*base.profile, c0), *cand.profile,
                                        window(*cand.profile, c1));
        QVERIFY(s.profile);
        const Profile& p = *s.profile;
        int64_t gpu[2] = {0, 0}, host[2] = {0, 0}, derived[2] = {0, 0};
        std::map<std::string, int64_t> gpuByName[2];
        for (EventIndex e = 0; e < p.eventCount(); ++e) {
            const Track& t = p.tracks()[p.trackOf(e)];
            const int run = p.planes()[t.plane].host < s.candidateFirstHost ? 0 : 1;
            if (t.deviceOps) {
                ++gpu[run];
                ++gpuByName[run][std::string(p.name(e))];
            } else if (t.derived) {
                ++derived[run];
            } else {
                ++host[run];
            }
        }
        QCOMPARE(gpu[0], c0.gpu);
        QCOMPARE(gpu[1], c1.gpu);
        QCOMPARE(host[0], c0.host);
        QCOMPARE(host[1], c1.host);
        QCOMPARE(gpuByName[0], c0.gpuByName);
        QCOMPARE(gpuByName[1], c1.gpuByName);
        // The importer repeats each ProfilerStep on a derived "Steps" line of the GPU plane; only
        // ProfilerStep#551 overlaps its own step.
        QCOMPARE(derived[0], int64_t(1));
        QCOMPARE(derived[1], int64_t(1));
        QCOMPARE(int64_t(s.baseEvents), c0.gpu + c0.host + 1);
        QCOMPARE(int64_t(s.candidateEvents), c1.gpu + c1.host + 1);
        QCOMPARE(s.baseDurationPs, int64_t(c0.stepDur * 1e6));
        // Both ProfilerStep#551 markers start at the same stacked instant.
        std::vector<int64_t> starts;
        for (EventIndex e = 0; e < p.eventCount(); ++e)
            if (p.name(e) == "ProfilerStep#551" && !p.tracks()[p.trackOf(e)].derived)
                starts.push_back(p.start(e));
        QCOMPARE(starts.size(), size_t(2));
        QCOMPARE(starts[0], s.stepBeginPs);
        QCOMPARE(starts[1], s.stepBeginPs);
    }

    // Two steps of the H200 JAX profile (XLA command buffers on) stacked: the stacked profile
    // keeps the HLO modules, so its command-buffer kernels are named by their ops as the run diff
    // names them. Facts of the file, read from its HLO: 13 HLO modules on /host:metadata; every
    // train step runs 3 kernels for the forward dot_general op path (custom-call.4 and
    // custom-call.3, each a memset and an nvjet GEMM, are 4 events; gemm_fusion_dot.3 one: 5).
    void commandBufferOpsSurviveStacking() {
        const std::string path =
            std::string(STEPSCOPE_REALDATA) + "/h200/jax-remote/localhost_9012.xplane.pb";
        if (!QFile::exists(QString::fromStdString(path)))
            QSKIP("../shared/realdata/h200/jax-remote not present");
        const LoadResult r = loadPath(path);
        QVERIFY2(r.ok(), r.error.c_str());
        const StepAnalysis steps = analyzeSteps(*r.profile);
        QVERIFY(steps.steps.size() > 20);
        const StackedRuns s = stackRuns(*r.profile, steps.steps[10], *r.profile, steps.steps[11]);
        QVERIFY(s.profile);
        QCOMPARE(HloCatalog(*s.profile).modules().size(), size_t(2 * 13));
        const StackedOpIndex index(*s.profile);
        // No device event is left on the command buffer (the host's thunk TraceMe named after it
        // stays, as a host event of that name).
        for (EventIndex e : index.opEvents("command_buffer_1"))
            QVERIFY(!s.profile->tracks()[s.profile->trackOf(e)].deviceOps);
        QCOMPARE(index.opEvents("jit(train_step)/jvp()/dot_general").size(), size_t(2 * 5));
    }
};

QTEST_GUILESS_MAIN(TestStackedRuns)
#include "test_stacked_runs.moc"
