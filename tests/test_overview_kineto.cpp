// Overview analysis on small PyTorch (Kineto) traces written here: zero-length GPU events, Kineto's
// copy names, ProfilerStep#N against other host events. Every expected value is worked out by
// hand from the trace's timestamps (µs) in the comment above it.
#include <QtTest>
#include <fstream>
#include <set>

#include "model/ProfileLoader.h"
#include "model/analysis/GpuTime.h"
#include "model/analysis/InputPipeline.h"
#include "model/analysis/Overview.h"
#include "model/analysis/StepAnalysis.h"

using namespace stepscope;

namespace {
constexpr int64_t us = 1000000;

// `head`: top-level fields before the events ("deviceProperties": [...],).
std::shared_ptr<const Profile> loadTrace(const QTemporaryDir& dir, const std::string& events,
                                         const std::string& head = {}) {
    const std::string path = dir.path().toStdString() + "/t.pt.trace.json";
    std::ofstream(path) << "{" << head << "\"traceEvents\":[\n" << events << "\n]}\n";
    LoadResult r = loadPath(path);
    if (!r.ok()) qFatal("trace does not load: %s", r.error.c_str());
    return r.profile;
}

std::string hostEvent(const std::string& cat, const std::string& name, int tid, int ts, int dur,
                      int correlation = -1) {
    std::string e = R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":1,"tid":)" +
                    std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" +
                    std::to_string(dur);
    if (correlation >= 0) e += R"(,"args":{"correlation":)" + std::to_string(correlation) + "}";
    return e + "}";
}

std::string gpuEvent(const std::string& cat, const std::string& name, int ts, int dur,
                     int correlation, int device = 0) {
    const std::string d = std::to_string(device);
    return R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":)" + d +
           R"(,"tid":7,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
           R"(,"args":{"device":)" + d + R"(,"stream":7,"correlation":)" +
           std::to_string(correlation) + R"(,"bytes":1000}})";
}

std::set<std::string> ids(const Overview& o) {
    std::set<std::string> out;
    for (const Recommendation& r : o.recommendations) out.insert(r.id);
    return out;
}
} // namespace

class TestOverviewKineto : public QObject {
    Q_OBJECT

private slots:
    // A GPU whose stream events all last 0 µs: no busy time, a span from its events, no crash.
    void zeroLengthGpuEvents() {
        QTemporaryDir dir;
        {
            const auto p = loadTrace(dir, hostEvent("cpu_op", "aten::add", 1, 0, 10) + ",\n" +
                                              gpuEvent("kernel", "k", 5, 0, 1));
            const Overview o = computeOverview(*p);
            QCOMPARE(o.gpu.devices.size(), size_t(1));
            const GpuTimeRow& d = o.gpu.devices[0];
            QCOMPARE(d.events, uint64_t(1));
            QCOMPARE(d.busyPs, int64_t(0));
            QCOMPARE(d.firstPs, 5 * us);
            QCOMPARE(d.spanPs(), int64_t(0));
            QCOMPARE(d.idlePs, int64_t(0));
            QVERIFY(!overviewJson(o).empty());
        }
        {
            // A 0 µs kernel at 5, a 2 µs one at 10: span 5..12 = 7 µs, busy 2, idle 5.
            const auto p = loadTrace(dir, hostEvent("cpu_op", "aten::add", 1, 0, 1) + ",\n" +
                                              gpuEvent("kernel", "k", 5, 0, 1) + ",\n" +
                                              gpuEvent("kernel", "k", 10, 2, 2));
            const GpuTime g = computeGpuTime(*p);
            QCOMPARE(g.devices.size(), size_t(1));
            QCOMPARE(g.devices[0].firstPs, 5 * us);
            QCOMPARE(g.devices[0].spanPs(), 7 * us);
            QCOMPARE(g.devices[0].busyPs, 2 * us);
            QCOMPARE(g.devices[0].idlePs, 5 * us);
        }
    }

    // Kineto's copy names ("Memcpy HtoD (Pageable -> Device)", ...) are copies, not compute.
    // ProfilerStep#1 0..1000; host: four runtime calls 0..40 (kernel launch: each has a
    // correlation id and the profile has GPU work); stream 7: HtoD copy 100..300, kernel 300..700,
    // DtoD copy 700..800, DtoH copy 800..900. Input 200, device compute 400, device to device
    // 100, output 100, kernel launch 40, all others 40..100 and 900..1000 = 160 µs.
    void kinetoCopies() {
        QTemporaryDir dir;
        const auto p = loadTrace(
            dir, hostEvent("user_annotation", "ProfilerStep#1", 1, 0, 1000) + ",\n" +
                     hostEvent("cuda_runtime", "cudaMemcpyAsync", 1, 0, 10, 1) + ",\n" +
                     hostEvent("cuda_runtime", "cudaLaunchKernel", 1, 10, 10, 2) + ",\n" +
                     hostEvent("cuda_runtime", "cudaMemcpyAsync", 1, 20, 10, 3) + ",\n" +
                     hostEvent("cuda_runtime", "cudaMemcpyAsync", 1, 30, 10, 4) + ",\n" +
                     gpuEvent("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 100, 200, 1) +
                     ",\n" + gpuEvent("kernel", "k", 300, 400, 2) + ",\n" +
                     gpuEvent("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 700, 100, 3) + ",\n" +
                     gpuEvent("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 800, 100, 4));
        const StepAnalysis a = analyzeSteps(*p);
        QCOMPARE(a.source, StepSource::ProfilerSteps);
        QCOMPARE(a.steps.size(), size_t(1));
        const StepRecord& s = a.steps[0];
        QCOMPARE(s.number, int64_t(1));
        QCOMPARE(s.durationPs, 1000 * us);
        QCOMPARE(s.ps(StepCategory::Input), 200 * us);
        QCOMPARE(s.hostToDevicePs, 200 * us);
        QCOMPARE(s.ps(StepCategory::DeviceCompute32), 400 * us);
        QCOMPARE(s.ps(StepCategory::DeviceCompute16), int64_t(0));
        QCOMPARE(s.ps(StepCategory::DeviceToDevice), 100 * us);
        QCOMPARE(s.ps(StepCategory::Output), 100 * us);
        QCOMPARE(s.ps(StepCategory::KernelLaunch), 40 * us);
        QCOMPARE(s.ps(StepCategory::AllOthers), 160 * us);
        // Input is 200 of 1000 µs = 20%: XProf's "highly input-bound" threshold (20%).
        const Overview o = computeOverview(*p);
        QCOMPARE(o.bottleneck.input, std::string("host"));
    }

    // A python event named "train.py(12): <module>" (no "/", no group id) around two
    // ProfilerSteps: XProf takes train*/test* names as step markers only on events with a group
    // id, so the ProfilerSteps are the steps. Host only: step 1 is 10..410 with aten::add 20..30
    // (host compute 10, all others 390); step 2 is 500..900 with aten::mul 510..560 (50, 350).
    void profilerStepsOverPythonNames() {
        QTemporaryDir dir;
        const auto p =
            loadTrace(dir, hostEvent("python_function", "train.py(12): <module>", 1, 0, 1000) +
                               ",\n" + hostEvent("user_annotation", "ProfilerStep#1", 1, 10, 400) +
                               ",\n" + hostEvent("cpu_op", "aten::add", 1, 20, 10) + ",\n" +
                               hostEvent("user_annotation", "ProfilerStep#2", 1, 500, 400) + ",\n" +
                               hostEvent("cpu_op", "aten::mul", 1, 510, 50));
        const StepAnalysis a = analyzeSteps(*p);
        QCOMPARE(a.source, StepSource::ProfilerSteps);
        QCOMPARE(a.steps.size(), size_t(2));
        QCOMPARE(a.steps[0].number, int64_t(1));
        QCOMPARE(a.steps[0].beginPs, 10 * us);
        QCOMPARE(a.steps[0].durationPs, 400 * us);
        QCOMPARE(a.steps[0].ps(StepCategory::HostCompute), 10 * us);
        QCOMPARE(a.steps[0].ps(StepCategory::AllOthers), 390 * us);
        QCOMPARE(a.steps[1].number, int64_t(2));
        QCOMPARE(a.steps[1].beginPs, 500 * us);
        QCOMPARE(a.steps[1].ps(StepCategory::HostCompute), 50 * us);
        QCOMPARE(a.steps[1].ps(StepCategory::AllOthers), 350 * us);

        // Keras- or Lightning-style names without a group id or step_num are not steps by
        // themselves: no steps, never invented ones.
        const auto q = loadTrace(dir, hostEvent("python_function", "train_step", 1, 0, 100) +
                                          ",\n" + hostEvent("cpu_op", "aten::add", 1, 10, 10));
        const StepAnalysis b = analyzeSteps(*q);
        QCOMPARE(b.source, StepSource::None);
        QVERIFY(b.steps.empty());
    }

    // Input ops and a host-to-device copy but no enqueue op: the host breakdown is the ops' self
    // time. ProfilerStep#1 0..1000; thread 2: Iterator::Prefetch 0..300 holding
    // Iterator::Prefetch::Map 50..250 (self 100 and 200 µs, both preprocessing); a MemcpyH2D copy
    // 10..110 gives the step 100 µs host to device.
    void inputBreakdownWithCopy() {
        QTemporaryDir dir;
        const auto p =
            loadTrace(dir, hostEvent("user_annotation", "ProfilerStep#1", 1, 0, 1000) + ",\n" +
                               hostEvent("cpu_op", "Iterator::Prefetch", 2, 0, 300) + ",\n" +
                               hostEvent("cpu_op", "Iterator::Prefetch::Map", 2, 50, 200) + ",\n" +
                               hostEvent("cuda_runtime", "cudaMemcpyAsync", 1, 0, 10, 1) + ",\n" +
                               gpuEvent("gpu_memcpy", "MemcpyH2D", 10, 100, 1) + ",\n" +
                               hostEvent("cuda_runtime", "cudaLaunchKernel", 1, 110, 10, 2) +
                               ",\n" + gpuEvent("kernel", "k", 120, 880, 2));
        const InputPipeline ip = computeInputPipeline(*p);
        QCOMPARE(ip.steps.steps.size(), size_t(1));
        QCOMPARE(ip.steps.steps[0].hostToDevicePs, 100 * us);
        QCOMPARE(ip.ops.size(), size_t(2));
        QCOMPARE(ip.enqueueUs, 0.0);
        QCOMPARE(ip.preprocessingUs, 300.0);
        QCOMPARE(ip.demandedFileReadUs, 0.0);
        QCOMPARE(ip.advancedFileReadUs, 0.0);
        QCOMPARE(ip.otherUs, 0.0);
        QVERIFY(ip.tfDataUsed);
    }

    // Tensor Core advice only for NVIDIA GPUs: an eligible op ("model/MatMul") whose kernel "k"
    // is no Tensor Core kernel is 100% of kernel time off Tensor Cores on an A100 (cc 8.0); on an
    // MI300X (gfx 9.4, written as computeMajor 9) the rule does not apply.
    void tensorCoreAdviceNvidiaOnly() {
        const std::string events =
            hostEvent("user_annotation", "ProfilerStep#1", 1, 0, 1000) + ",\n" +
            hostEvent("cpu_op", "model/MatMul", 1, 0, 20) + ",\n" +
            hostEvent("cuda_runtime", "cudaLaunchKernel", 1, 5, 10, 1) + ",\n" +
            R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":900,)"
            R"("args":{"device":0,"stream":7,"correlation":1,"grid":[1,1,1],"block":[32,1,1]}})";
        QTemporaryDir dir;
        const Overview nvidia = computeOverview(*loadTrace(
            dir, events,
            R"("deviceProperties":[{"id":0,"name":"NVIDIA A100","computeMajor":8,"computeMinor":0}],)"));
        QVERIFY(ids(nvidia).count("tensor_core"));
        const Overview amd = computeOverview(*loadTrace(
            dir, events,
            R"("deviceProperties":[{"id":0,"name":"AMD Instinct MI300X","computeMajor":9,"computeMinor":4}],)"));
        QCOMPARE(amd.devices.size(), size_t(1));
        QCOMPARE(amd.devices[0].info.vendor, std::string("AMD"));
        QVERIFY(!ids(amd).count("tensor_core"));
    }

    // Devices that ran no computation are no replicas. GPU 0: kernel 0..1000 µs; GPU 1: one HtoD
    // copy 0..10 µs and nothing else; GPU 2: kernel 0..500 µs. Busy time differs by
    // (1000 - 500) / 1000 = 50% between GPU 0 and GPU 2; GPU 1 (99% less busy) is not compared,
    // and its 0.01 ms of exposed copies is below the 1 ms exposed-copies floor.
    void deviceChecksSkipIdleDevices() {
        QTemporaryDir dir;
        const auto p = loadTrace(
            dir, gpuEvent("kernel", "k", 0, 1000, 1, 0) + ",\n" +
                     gpuEvent("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 10, 2, 1) +
                     ",\n" + gpuEvent("kernel", "k", 0, 500, 3, 2));
        const Overview o = computeOverview(*p);
        QCOMPARE(o.gpu.devices.size(), size_t(3));
        QVERIFY(!ids(o).count("exposed_copies"));
        const Recommendation* r = nullptr;
        for (const Recommendation& x : o.recommendations)
            if (x.id == "replica_imbalance") r = &x;
        QVERIFY(r);
        QCOMPARE(r->value, 50.0);
        QVERIFY(r->text.find("/device:GPU:2 (least busy)") != std::string::npos);
    }

    // Nsight Systems' "async copy from pageable memory": ProfilerStep#1 0..1000; cudaMemcpyAsync
    // (correlation 1) -> "Memcpy HtoD (Pageable -> Device)" 100..300 fires; cudaMemcpy (2, not
    // asynchronous) -> a pageable copy 300..400 does not (the synchronous-copy rule covers it);
    // cudaMemcpyAsync (3) -> "Memcpy HtoD (Pinned -> Device)" 400..500 does not. A kernel 500..900
    // makes the step well formed. One asynchronous pageable copy of 0.2 ms, evidence 100..300 µs.
    void pageableAsyncCopies() {
        QTemporaryDir dir;
        const auto p = loadTrace(
            dir, hostEvent("user_annotation", "ProfilerStep#1", 1, 0, 1000) + ",\n" +
                     hostEvent("cuda_runtime", "cudaMemcpyAsync", 1, 0, 10, 1) + ",\n" +
                     hostEvent("cuda_runtime", "cudaMemcpy", 1, 10, 390, 2) + ",\n" +
                     hostEvent("cuda_runtime", "cudaMemcpyAsync", 1, 400, 10, 3) + ",\n" +
                     hostEvent("cuda_runtime", "cudaLaunchKernel", 1, 410, 10, 4) + ",\n" +
                     gpuEvent("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 100, 200, 1) +
                     ",\n" +
                     gpuEvent("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 300, 100, 2) +
                     ",\n" + gpuEvent("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 400, 100, 3) +
                     ",\n" + gpuEvent("kernel", "k", 500, 400, 4));
        const Overview o = computeOverview(*p);
        const Recommendation* r = nullptr;
        for (const Recommendation& x : o.recommendations)
            if (x.id == "pageable_async_copies") r = &x;
        QVERIFY(r);
        QCOMPARE(r->value, 1.0);
        QCOMPARE(r->beginPs, 100 * us);
        QCOMPARE(r->endPs, 300 * us);
        QVERIFY(r->text.find("(0.200 ms)") != std::string::npos);
        QVERIFY(ids(o).count("sync_memcpy"));
    }

    // Synchronization time is the union over host threads, so its share cannot pass 100%:
    // threads 1 and 2 both in cudaStreamSynchronize 0..600 of a 0..1000 host span (a kernel
    // 600..1000 on the GPU, launched 0..5 on thread 3). Union 600 µs = 60%; the old per-thread
    // sum read 1200 µs = 120%.
    void syncApiShareIsUnion() {
        QTemporaryDir dir;
        const auto p =
            loadTrace(dir, hostEvent("cuda_runtime", "cudaStreamSynchronize", 1, 0, 600) + ",\n" +
                               hostEvent("cuda_runtime", "cudaStreamSynchronize", 2, 0, 600) +
                               ",\n" + hostEvent("cuda_runtime", "cudaLaunchKernel", 3, 0, 5, 1) +
                               ",\n" + hostEvent("cpu_op", "aten::add", 3, 990, 10) + ",\n" +
                               gpuEvent("kernel", "k", 600, 400, 1));
        const Overview o = computeOverview(*p);
        const Recommendation* r = nullptr;
        for (const Recommendation& x : o.recommendations)
            if (x.id == "sync_apis") r = &x;
        QVERIFY(r);
        QCOMPARE(r->value, 60.0);
        QVERIFY(r->text.find("(2 calls)") != std::string::npos);
    }

    // One step has no spread: its standard deviation is not recorded (null), not 0, in both
    // exports (kinetoCopies' trace shape, one ProfilerStep).
    void singleStepHasNoDeviation() {
        QTemporaryDir dir;
        const auto p =
            loadTrace(dir, hostEvent("user_annotation", "ProfilerStep#1", 1, 0, 1000) + ",\n" +
                               hostEvent("cuda_runtime", "cudaLaunchKernel", 1, 0, 10, 1) + ",\n" +
                               gpuEvent("kernel", "k", 10, 900, 1));
        const Overview o = computeOverview(*p);
        QCOMPARE(o.steps.steps.size(), size_t(1));
        const std::string j = overviewJson(o);
        QVERIFY(j.find(R"("step_time_ms":{"average":1,"stddev":null,"min":1,"max":1})") !=
                std::string::npos);
        QVERIFY(j.find(R"("stddev":0)") == std::string::npos);
        const std::string k = inputPipelineJson(computeInputPipeline(*p));
        QVERIFY(k.find(R"("step_time_ms":{"average":1,"stddev":null,"min":1,"max":1})") !=
                std::string::npos);
    }

    // TraceLens' exposed memcpy (overlapped by neither computation nor collectives) beside the
    // exposed memcpy against computation only. GPU 0: DtoD copy 0..100 on stream 7, an NCCL
    // kernel 0..100 on stream 8, a kernel 100..200 on stream 7. Memory 100 µs, not overlapped
    // by computation (exposed 100 µs) but wholly by the collective (TraceLens: 0).
    void traceLensExposedMemcpy() {
        QTemporaryDir dir;
        const auto p = loadTrace(
            dir, gpuEvent("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 0, 100, 1) + ",\n" +
                     R"({"ph":"X","cat":"kernel","name":"ncclAllReduceKernel","pid":0,"tid":8,)"
                     R"("ts":0,"dur":100,"args":{"device":0,"stream":8,"correlation":2}},)" +
                     "\n" + gpuEvent("kernel", "k", 100, 100, 3));
        const Overview o = computeOverview(*p);
        QCOMPARE(o.gpu.devices.size(), size_t(1));
        QCOMPARE(o.gpu.devices[0].memoryExposedPs, 100 * us);
        QCOMPARE(o.gpu.devices[0].memoryOnlyPs, int64_t(0));
        const Table t = gpuTimeTable(o.gpu);
        QCOMPARE(t.number(0, size_t(t.columnIndex("Memcpy/memset exposed (ms)"))), 0.1);
        QCOMPARE(t.number(0, size_t(t.columnIndex("Memcpy/memset only (ms)"))), 0.0);
        QVERIFY(overviewJson(o).find("Memcpy/memset only (ms)") != std::string::npos);
    }

    // No steps: the step statistics are not recorded (null in the JSON), not 0; no input op: no
    // host breakdown rows. A lone kernel 0..10 µs and no ProfilerStep.
    void missingIsNotZero() {
        QTemporaryDir dir;
        const auto p = loadTrace(dir, gpuEvent("kernel", "k", 0, 10, 1));
        const Overview o = computeOverview(*p);
        QVERIFY(o.steps.steps.empty());
        const std::string j = overviewJson(o);
        QVERIFY(j.find(R"("step_time_ms":{"average":null,"stddev":null,"min":null,"max":null})") !=
                std::string::npos);
        QVERIFY(j.find(R"("input_percent":null)") != std::string::npos);
        const InputPipeline ip = computeInputPipeline(*p);
        QCOMPARE(inputBreakdownTable(ip).rowCount(), size_t(0));
        const std::string k = inputPipelineJson(ip);
        QVERIFY(k.find(R"("input_percent":null)") != std::string::npos);
        QVERIFY(k.find(R"("step_time_ms":{"average":null)") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestOverviewKineto)
#include "test_overview_kineto.moc"
