// The CUPTI captures recorded on an H200 (../shared/realdata/h200/cupti, see SOURCES.md there),
// converted as the launcher converts them and opened by every tool: the steps the program marked
// with NVTX reach the overview, the input pipeline and the memory profile; the kernel, copy and
// memset counts and Tensor Core flags are those SOURCES.md counts from the program's source.
// Step times and memory step ids are checked against the raw records (the NVTX ranges as the
// record file holds them), not against the converter's output.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "capture/ApiCallFilter.h"
#include "capture/CuptiConverter.h"
#include "capture/RecordFile.h"
#include "model/ProfileLoader.h"
#include "model/analysis/InputPipeline.h"
#include "model/analysis/KernelStats.h"
#include "model/analysis/MemoryProfile.h"
#include "model/analysis/Overview.h"
#include "tests/fixtures/TableRows.h"

using namespace stepscope;
using namespace stepscope::fixtures;
namespace fs = std::filesystem;

namespace {

const std::string kCupti = std::string(STEPSCOPE_REALDATA) + "/h200/cupti/";

struct Capture {
    capture::RecordFileContents records;
    LoadResult loaded;
};

Capture open(const std::string& file) {
    Capture c;
    c.records = capture::readRecordFile(kCupti + file);
    c.loaded = loadXSpaceBytes(
        capture::convertToXSpace({c.records.records, c.records.problem, c.records.rejected}), file);
    return c;
}

// NVTX "step N" ranges of the record file, CUPTI ns.
std::map<int64_t, std::pair<uint64_t, uint64_t>> nvtxSteps(const capture::RecordFileContents& c) {
    std::map<int64_t, std::pair<uint64_t, uint64_t>> steps;
    for (const capture::Record& r : c.records) {
        const auto* n = std::get_if<capture::NvtxRangeRecord>(&r);
        if (n && n->name.rfind("step ", 0) == 0)
            steps[std::stoll(n->name.substr(5))] = {n->startNs, n->endNs};
    }
    return steps;
}

// The step of each device 0 allocation or free in time order: the NVTX step range that holds
// it, or none.
std::vector<int64_t> memoryStepsByNvtx(const capture::RecordFileContents& c) {
    const auto steps = nvtxSteps(c);
    std::vector<uint64_t> times;
    for (const capture::Record& r : c.records)
        if (const auto* m = std::get_if<capture::MemoryRecord>(&r); m && m->deviceId == 0)
            times.push_back(m->timestampNs);
    std::sort(times.begin(), times.end());
    std::vector<int64_t> out;
    for (const uint64_t t : times) {
        int64_t step = kNoStep;
        for (const auto& [n, span] : steps)
            if (t >= span.first && t < span.second) step = n;
        out.push_back(step);
    }
    return out;
}

// Events per name on the GPU planes' streams.
std::map<std::string, uint64_t> deviceEventCounts(const Profile& p) {
    std::map<std::string, uint64_t> counts;
    for (uint32_t ti = 0; ti < p.tracks().size(); ++ti) {
        const Track& t = p.tracks()[ti];
        if (!t.deviceOps || t.derived || p.planes()[t.plane].kind != PlaneKind::Gpu) continue;
        for (uint32_t depth = 0; depth < t.depthCount; ++depth) {
            const EventRange r = p.eventsAt(ti, depth);
            for (EventIndex e = r.begin; e < r.end; ++e) ++counts[std::string(p.name(e))];
        }
    }
    return counts;
}

constexpr const char* kFp16Gemm = "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT";
constexpr const char* kSimtGemm =
    "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>("
    "cutlass_80_simt_sgemm_256x128_8x4_nn_align1::Params)";

} // namespace

class TestCuptiRealdata : public QObject {
    Q_OBJECT

    // The steps every step-based tool reports, against the NVTX ranges of the record file.
    static void checkSteps(const Capture& c, size_t stepCount) {
        QVERIFY2(c.loaded.ok(), c.loaded.error.c_str());
        const Profile& p = *c.loaded.profile;
        const auto nvtx = nvtxSteps(c.records);
        QCOMPARE(nvtx.size(), stepCount);
        const Overview o = computeOverview(p);
        QCOMPARE(o.steps.source, StepSource::StepLines);
        QCOMPARE(o.steps.steps.size(), stepCount);
        QCOMPARE(o.steps.notWellFormed, size_t(0));
        // Times as the ranges were recorded, relative to step 0 (the profile's time base starts
        // at its earliest record; CUPTI's are Unix ns, too large to hold in ps).
        const int64_t step0Ps = o.steps.steps.front().beginPs;
        const uint64_t step0Ns = nvtx.at(0).first;
        for (size_t i = 0; i < o.steps.steps.size(); ++i) {
            const StepRecord& s = o.steps.steps[i];
            QCOMPARE(s.number, int64_t(i));
            QCOMPARE(s.name, "step " + std::to_string(i));
            QCOMPARE(s.beginPs - step0Ps, int64_t(nvtx.at(s.number).first - step0Ns) * 1000);
            QCOMPARE(s.durationPs,
                     int64_t(nvtx.at(s.number).second - nvtx.at(s.number).first) * 1000);
            // Each step copies 64 MiB in and 16 MiB out around its GEMMs.
            QVERIFY(s.ps(StepCategory::Input) > 0);
            QVERIFY(s.ps(StepCategory::Output) > 0);
            QVERIFY(s.deviceComputePs() > 0);
        }
        QCOMPARE(o.stepTimeMs.count, stepCount);
        QVERIFY(o.bottleneck.input != "unknown");
        const InputPipeline ip = computeInputPipeline(p);
        QCOMPARE(ip.steps.source, StepSource::StepLines);
        QCOMPARE(ip.steps.steps.size(), stepCount);
        QCOMPARE(ip.stepTimeMs.count, stepCount);

        // The memory profile takes each allocation's step from those steps, by time.
        const MemoryProfile m = computeMemoryProfile(p);
        const MemorySeries* gpu = m.find("GPU_0_cuda");
        QVERIFY(gpu);
        QVERIFY(gpu->stepsFromProfile);
        std::vector<int64_t> found;
        for (const AllocationRecord& r : gpu->records) found.push_back(r.stepId);
        const std::vector<int64_t> expected = memoryStepsByNvtx(c.records);
        QCOMPARE(found, expected);
        QVERIFY(std::count(expected.begin(), expected.end(), kNoStep) < ptrdiff_t(expected.size()));
    }

    static void checkKernels(const Profile& p, uint64_t gemms, uint64_t scales) {
        const KernelStats byKernel =
            groupKernelStats(computeKernelStats(p), KernelGrouping::Kernel);
        const TableRows rows{byKernel.table};
        std::map<std::string, std::pair<double, double>> found; // occurrences, uses Tensor Core
        for (size_t i = 0; i < byKernel.table.rowCount(); ++i)
            found[rows.text(i, "Kernel name")] = {rows.num(i, "Occurrences"),
                                                  rows.num(i, kKernelUsesTensorCoreColumn)};
        QCOMPARE(found[kFp16Gemm], std::make_pair(double(gemms), 1.0));
        QCOMPARE(found[kSimtGemm], std::make_pair(double(gemms), 0.0));
        QCOMPARE(found["scale_kernel(float*, unsigned long, float)"].first, double(scales));
    }

private slots:
    void initTestCase() {
        if (!fs::exists(kCupti))
            QSKIP(qPrintable(QString("%1 not found; real-capture tests skipped")
                                 .arg(QString::fromStdString(kCupti))));
    }

    // gemmsteps 50: 50 NVTX steps; 200 + 200 GEMMs, 100 scale_kernel, 50 + 50 copies, 250
    // memsets, 15 graph kernels (SOURCES.md).
    void gemmsteps50() {
        const Capture c = open("gemmsteps_50.rec");
        checkSteps(c, 50);
        const Profile& p = *c.loaded.profile;
        checkKernels(p, 200, 100);
        auto counts = deviceEventCounts(p);
        QCOMPARE(counts["MemcpyH2D"], uint64_t(50));
        QCOMPARE(counts["MemcpyD2H"], uint64_t(50));
        QCOMPARE(counts["Memset"], uint64_t(250));
        QCOMPARE(counts["tiny_kernel(float*, int)"], uint64_t(15));
    }

    // The API calls recorded by default (capture/ApiCallFilter.h) keep every launch: each
    // kernel, copy and memset of the capture has its launching call among them (flows from host
    // to device stay whole), while 1,156 of its 5,728 API records remain (the 4,572 others are
    // queries: cuGetProcAddress, cuStreamGetCaptureInfo, cudaGetDevice, cuCtxGetCurrent, ...).
    void defaultApiCallsKeepEveryLaunch() {
        const Capture c = open("gemmsteps_50.rec");
        std::set<uint32_t> kept;
        size_t api = 0;
        for (const capture::Record& r : c.records.records)
            if (const auto* a = std::get_if<capture::ApiRecord>(&r)) {
                ++api;
                if (capture::recordedByDefault(a->domain, a->name)) kept.insert(a->correlationId);
            }
        QCOMPARE(api, size_t(5728));
        QCOMPARE(kept.size(), size_t(1156));
        size_t launched = 0;
        for (const capture::Record& r : c.records.records) {
            uint32_t correlation = 0;
            if (const auto* k = std::get_if<capture::KernelRecord>(&r))
                correlation = k->correlationId;
            else if (const auto* m = std::get_if<capture::MemcpyRecord>(&r))
                correlation = m->correlationId;
            else if (const auto* m = std::get_if<capture::MemsetRecord>(&r))
                correlation = m->correlationId;
            else
                continue;
            ++launched;
            QVERIFY2(kept.count(correlation), std::to_string(correlation).c_str());
        }
        QCOMPARE(launched, size_t(4 + 200 + 200 + 100 + 15 + 50 + 50 + 250));
    }

    // Both files brought to another machine and converted by stepscope-cli, a run each (they
    // are two captures of one machine: given together they would be one run's processes), then
    // the overview exported from each as a user would: 50 and 11 steps.
    void cliRecordsToOverview() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QProcess p;
        std::multiset<uint64_t> counts;
        for (const char* rec : {"gemmsteps_50.rec", "gemmsteps_abort_at_10.rec"}) {
            p.start(STEPSCOPE_CLI, {"capture", "--records", QString::fromStdString(kCupti + rec),
                                    "--logdir", dir.path(), "--run", rec});
            QVERIFY(p.waitForFinished(60000));
            QCOMPARE(p.exitCode(), 0);
            const QStringList files =
                QString(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
            QCOMPARE(files.size(), 1);
            p.start(STEPSCOPE_CLI, {"export", "overview", files[0], "--json", "-", "--no-cache"});
            QVERIFY(p.waitForFinished(60000));
            QCOMPARE(p.exitCode(), 0);
            const QJsonObject steps =
                QJsonDocument::fromJson(p.readAllStandardOutput()).object()["steps"].toObject();
            QCOMPARE(steps["source"].toString(), QString("'Steps' line step_num stats"));
            counts.insert(uint64_t(steps["count"].toInteger()));
        }
        QCOMPARE(counts, (std::multiset<uint64_t>{11, 50}));
    }

    // Both captures as the processes of one run: one XSpace, a host plane each. The same program
    // twice, so CUPTI gave both the same correlation ids; still every launch joins only its own
    // process's work: as many flows as the two captures have apart, each within one pid.
    void twoCapturesAsOneRunsProcesses() {
        const Capture a = open("gemmsteps_50.rec"), b = open("gemmsteps_abort_at_10.rec");
        QVERIFY(a.loaded.ok() && b.loaded.ok());
        const LoadResult merged = loadXSpaceBytes(
            capture::convertProcessesToXSpace({{a.records.records, a.records.problem, {}},
                                               {b.records.records, b.records.problem, {}}}),
            "merged");
        QVERIFY2(merged.ok(), merged.error.c_str());
        const Profile& p = *merged.profile;
        size_t hostPlanes = 0;
        for (const Plane& plane : p.planes()) hostPlanes += plane.kind == PlaneKind::Host;
        QCOMPARE(hostPlanes, size_t(2));
        QCOMPARE(p.flows().size(),
                 a.loaded.profile->flows().size() + b.loaded.profile->flows().size());
        for (const Flow& f : p.flows()) {
            // "/host:CPU gemmsteps (pid N)" launches on "Stream #S(...) pid N".
            const std::string_view host =
                p.str(p.planes()[p.tracks()[p.trackOf(f.launch)].plane].name);
            const std::string_view stream = p.str(p.tracks()[p.trackOf(f.target)].name);
            const std::string_view pid =
                host.substr(host.rfind("pid "), host.size() - host.rfind("pid ") - 1);
            QVERIFY2(stream.ends_with(pid),
                     (std::string(host) + " -> " + std::string(stream)).c_str());
        }
    }

    // gemmsteps 50 10, aborted after step 10: steps 0..10 whole, 44 + 44 GEMMs, 22 scale_kernel,
    // 11 + 11 copies.
    void gemmstepsAbortAt10() {
        const Capture c = open("gemmsteps_abort_at_10.rec");
        checkSteps(c, 11);
        const Profile& p = *c.loaded.profile;
        checkKernels(p, 44, 22);
        auto counts = deviceEventCounts(p);
        QCOMPARE(counts["MemcpyH2D"], uint64_t(11));
        QCOMPARE(counts["MemcpyD2H"], uint64_t(11));
    }
};

QTEST_GUILESS_MAIN(TestCuptiRealdata)
#include "test_cupti_realdata.moc"
