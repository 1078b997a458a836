// Overview analysis on small PyTorch (Kineto) traces written here: zero-length GPU events, Kineto's
// copy names, ProfilerStep#N against other host events. Every expected value is worked out by
// hand from the trace's timestamps (µs) in the comment above it.
#include <QtTest>
#include <algorithm>
#include <cmath>
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

// A host or GPU event with args (a JSON object's inside).
std::string traceEvent(const std::string& cat, const std::string& name, int pid, int tid, int ts,
                       int dur, const std::string& args) {
    return R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":)" +
           std::to_string(pid) + R"(,"tid":)" + std::to_string(tid) + R"(,"ts":)" +
           std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) + R"(,"args":{)" + args + "}}";
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

    // Tensor Core advice only where a kernel is KNOWN not to use Tensor Cores (Matrix Cores on
    // AMD), and it names the op: an eligible op ("model/MatMul") whose kernel is a CUTLASS SIMT
    // SGEMM on an A100 (cc 8.0), or a Tensile GEMM without an MFMA field on an MI300X (gfx 9.4,
    // written as computeMajor 9, minor 4). A kernel of no known family ("k"), or an NVIDIA name
    // on an AMD device, says nothing: no advice.
    void tensorCoreAdviceOnKnownMissesOnly() {
        auto events = [](const std::string& kernel) {
            return hostEvent("user_annotation", "ProfilerStep#1", 1, 0, 1000) + ",\n" +
                   hostEvent("cpu_op", "model/MatMul", 1, 0, 20) + ",\n" +
                   hostEvent("cuda_runtime", "cudaLaunchKernel", 1, 5, 10, 1) + ",\n" +
                   "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" + kernel +
                   "\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":900," +
                   R"("args":{"device":0,"stream":7,"correlation":1,"grid":[1,1,1],"block":[32,1,1]}})";
        };
        const std::string a100 =
            R"("deviceProperties":[{"id":0,"name":"NVIDIA A100","computeMajor":8,"computeMinor":0}],)";
        const std::string mi300 =
            R"("deviceProperties":[{"id":0,"name":"AMD Instinct MI300X","computeMajor":9,"computeMinor":4}],)";
        const std::string simt = "cutlass_80_simt_sgemm_256x128_8x4_nn_align1";
        const std::string tensile = "Cijk_Ailk_Bljk_SB_MT64x64x8_SN_1LDSB0_GRVW1";
        QTemporaryDir dir;
        const Overview nvidia = computeOverview(*loadTrace(dir, events(simt), a100));
        QVERIFY(ids(nvidia).count("tensor_core"));
        const Recommendation* r = nullptr;
        for (const Recommendation& x : nvidia.recommendations)
            if (x.id == "tensor_core") r = &x;
        QCOMPARE(r->value, 100.0);
        QVERIFY2(r->text.find("model/MatMul (0.900 ms)") != std::string::npos, r->text.c_str());
        QVERIFY(!ids(computeOverview(*loadTrace(dir, events("k"), a100))).count("tensor_core"));
        const Overview amd = computeOverview(*loadTrace(dir, events(tensile), mi300));
        QCOMPARE(amd.devices.size(), size_t(1));
        QCOMPARE(amd.devices[0].info.vendor, std::string("AMD"));
        QVERIFY(ids(amd).count("tensor_core"));
        QVERIFY(!ids(computeOverview(*loadTrace(dir, events(simt), mi300))).count("tensor_core"));
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

    // PyTorch profiles: the step graph, step table and averages use the PyTorch TensorBoard
    // plugin's categories (overall_parser.py). Two steps of 100 µs (times in µs):
    // step 1 [0, 100]: DataLoader __next__ [0, 20], aten::mm [30, 70] launching (runtime
    //   [40, 50]) a kernel [55, 85]; step 2 [100, 200]: aten::copy_ [110, 140] with a
    //   cudaMemcpyAsync [115, 125] and its copy [130, 150], then a cudaMemsetAsync [150, 155]
    //   outside any op and its memset [160, 170]. Device work ends inside the host steps, so the
    //   steps keep their host ranges. Each instant goes to the first of kernel, memcpy, memset,
    //   communication, runtime, dataloader, CPU exec that covers it, else to other:
    //   step 1: kernel 30, runtime 10, dataloader 20, CPU exec [30,40]+[50,55] = 15,
    //           other [20,30]+[85,100] = 25;
    //   step 2: memcpy 20, memset 10, runtime [115,125]+[150,155] = 15,
    //           CPU exec [110,115]+[125,130] = 10, other 100-20-10-15-10 = 45.
    void pytorchStepBreakdownByHand() {
        QTemporaryDir dir;
        const std::string gpu = R"("device":0,"stream":7,)";
        const auto p = loadTrace(
            dir,
            traceEvent("user_annotation", "ProfilerStep#1", 1, 1, 0, 100, R"("External id":1)") +
                ",\n" +
                traceEvent("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                           1, 1, 0, 20, R"("External id":2)") +
                ",\n" + traceEvent("cpu_op", "aten::mm", 1, 1, 30, 40, R"("External id":10)") +
                ",\n" +
                traceEvent("cuda_runtime", "cudaLaunchKernel", 1, 1, 40, 10,
                           R"("External id":10,"correlation":100)") +
                ",\n" +
                traceEvent("kernel", "gemm", 0, 7, 55, 30,
                           gpu + R"("External id":10,"correlation":100)") +
                ",\n" +
                traceEvent("user_annotation", "ProfilerStep#2", 1, 1, 100, 100,
                           R"("External id":3)") +
                ",\n" + traceEvent("cpu_op", "aten::copy_", 1, 1, 110, 30, R"("External id":20)") +
                ",\n" +
                traceEvent("cuda_runtime", "cudaMemcpyAsync", 1, 1, 115, 10,
                           R"("External id":20,"correlation":200)") +
                ",\n" +
                traceEvent("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 7, 130, 20,
                           gpu + R"("External id":20,"correlation":200,"bytes":1000)") +
                ",\n" +
                traceEvent("cuda_runtime", "cudaMemsetAsync", 1, 1, 150, 5,
                           R"("External id":0,"correlation":201)") +
                ",\n" +
                traceEvent("gpu_memset", "Memset (Device)", 0, 7, 160, 10,
                           gpu + R"("External id":0,"correlation":201,"bytes":1000)"));
        const Overview o = computeOverview(*p);
        QCOMPARE(o.torch.size(), size_t(1));
        const std::vector<TorchStepCosts>& steps = o.torch[0].steps;
        QCOMPARE(steps.size(), size_t(2));
        using R = std::array<int64_t, kTorchRoleCount>;
        // Kernel, Memcpy, Memset, Communication, Runtime, DataLoader, CPU Exec, Other.
        QCOMPARE(steps[0].name, std::string("1"));
        QCOMPARE(steps[0].range.start, 0 * us);
        QCOMPARE(steps[0].range.end, 100 * us);
        QCOMPARE(steps[0].ps, (R{30 * us, 0, 0, 0, 10 * us, 20 * us, 15 * us, 25 * us}));
        QCOMPARE(steps[1].name, std::string("2"));
        QCOMPARE(steps[1].range.start, 100 * us);
        QCOMPARE(steps[1].range.end, 200 * us);
        QCOMPARE(steps[1].ps, (R{0, 20 * us, 10 * us, 0, 15 * us, 0, 10 * us, 45 * us}));
        // Averages over the two steps (ms): kernel 15 µs, memcpy 10, memset 5, runtime 12.5,
        // dataloader 10, CPU exec 12.5, other 35; step time 100 µs, no spread.
        QCOMPARE(o.torchStepTimeMs.count, size_t(2));
        QCOMPARE(o.torchStepTimeMs.average, 0.1);
        QCOMPARE(o.torchStepTimeMs.stddev, 0.0);
        const double averages[kTorchRoleCount] = {0.015,  0.01, 0.005,  0,
                                                  0.0125, 0.01, 0.0125, 0.035};
        for (size_t r = 0; r < kTorchRoleCount; ++r)
            QVERIFY2(std::abs(o.torchRoleMs[r].average - averages[r]) < 1e-12,
                     std::string(torchRoleName(TorchRole(r))).c_str());
        QCOMPARE(o.torchRoleMs[size_t(TorchRole::Other)].maximum, 0.045);
        // The page's step table: Step, Begin (ms), Step time (ms), the roles (ms).
        const Table t = overviewStepTable(o);
        QCOMPARE(t.rowCount(), size_t(2));
        QCOMPARE(t.columnCount(), size_t(3 + kTorchRoleCount));
        QCOMPARE(t.column(0).name, std::string("Step"));
        QCOMPARE(t.column(3).name, std::string("Kernel (ms)"));
        QCOMPARE(t.column(10).name, std::string("Other (ms)"));
        QCOMPARE(t.text(1, 0), std::string("2"));
        QCOMPARE(t.number(1, 1), 0.1);
        QCOMPARE(t.number(1, 2), 0.1);
        QCOMPARE(t.number(1, 4), 0.02);
        QCOMPARE(t.number(1, 10), 0.045);
        const std::string json = overviewJson(o);
        QVERIFY(json.find(R"("pytorch_breakdown_ms":{"Kernel":{"average":0.015,)") !=
                std::string::npos);
        // The plugin's DataLoader rule: 10 µs of 100 µs on average, 10% > 5%.
        const auto rule =
            std::find_if(o.recommendations.begin(), o.recommendations.end(),
                         [](const Recommendation& r) { return r.id == "pytorch_dataloader"; });
        QVERIFY(rule != o.recommendations.end());
        QVERIFY(std::abs(rule->value - 10) < 1e-9);
        QCOMPARE(rule->tool, ToolId::PyTorch);
        // A name pattern finds other steps: the page falls back to XProf's categories, without
        // the plugin's rule.
        const Overview byName = computeOverview(*p, "aten::mm");
        QVERIFY(byName.torch.empty());
        QVERIFY(!ids(byName).count("pytorch_dataloader"));
    }

    // Real PyTorch traces: the overview's steps are the plugin's, each step's roles add up to
    // its time and none is negative; on worker0 the values equal what the plugin's own parsers
    // print for the file (overall_parser.py, run at 790be856 by a small Python driver that
    // calls EventParser.parse and OverallParser.aggregate as data.py does; µs).
    void pytorchStepBreakdownOnRealTraces() {
        const std::string dir = std::string(STEPSCOPE_REALDATA) + "/kineto/";
        if (!QFileInfo::exists(QString::fromStdString(dir)))
            QSKIP("../shared/realdata not found; real-trace checks skipped");
        bool sawWorker0 = false;
        for (const QString& name :
             QDir(QString::fromStdString(dir)).entryList({"*.json", "*.json.gz"}, QDir::Files)) {
            const std::string fileName = name.toStdString();
            const char* file = fileName.c_str();
            LoadResult r = loadPath(dir + fileName);
            QVERIFY2(r.ok(), r.error.c_str());
            const Overview o = computeOverview(*r.profile);
            QVERIFY2(!o.torch.empty(), file);
            for (const TorchOverview& h : o.torch)
                for (const TorchStepCosts& s : h.steps) {
                    int64_t sum = 0;
                    for (int64_t ps : s.ps) {
                        QVERIFY2(ps >= 0, file);
                        sum += ps;
                    }
                    QCOMPARE(sum, s.range.end - s.range.start);
                }
            const Table t = overviewStepTable(o);
            for (size_t row = 0; row < t.rowCount(); ++row)
                for (size_t c = 0; c < t.columnCount(); ++c)
                    if (t.column(c).type == Table::Type::Double)
                        QVERIFY2(!(t.number(row, c) < 0), file);
            if (fileName == "alexnet_a100_small.json.gz") {
                // No ProfilerStep#: one step "0" over the host ops; the plugin prints
                // [10630, 55503, 8, 0, 42217684, 0, 1064731, 0] µs, total 43348556.
                QCOMPARE(o.torch.size(), size_t(1));
                QCOMPARE(o.torch[0].steps.size(), size_t(1));
                const TorchStepCosts& s = o.torch[0].steps[0];
                QCOMPARE(s.name, std::string("0"));
                const int64_t plugin[kTorchRoleCount] = {10630,    55503, 8,       0,
                                                         42217684, 0,     1064731, 0};
                for (size_t r = 0; r < kTorchRoleCount; ++r) QCOMPARE(s.ps[r], plugin[r] * us);
                QCOMPARE(s.range.end - s.range.start, 43348556 * us);
            }
            if (fileName != "worker0.1623143089861.pt.trace.json.gz") continue;
            sawWorker0 = true;
            QCOMPARE(o.torch.size(), size_t(1));
            const std::vector<TorchStepCosts>& steps = o.torch[0].steps;
            QCOMPARE(steps.size(), size_t(6));
            const std::array<int64_t, kTorchRoleCount + 1> plugin[6] = {
                {98598, 1941, 90, 0, 2796, 69317, 14091, 1115, 187948},
                {98570, 1947, 89, 0, 2762, 57669, 12968, 1148, 175153},
                {98596, 1931, 91, 0, 2877, 61257, 13768, 1213, 179733},
                {98623, 1938, 89, 0, 2841, 56453, 13420, 1200, 174564},
                {98504, 1937, 87, 0, 2788, 62690, 15025, 1141, 182172},
                {98641, 1798, 88, 0, 3381, 48185, 12773, 1117, 165983}};
            for (size_t i = 0; i < 6; ++i) {
                QCOMPARE(steps[i].name, std::to_string(5 + i));
                for (size_t r = 0; r < kTorchRoleCount; ++r)
                    QCOMPARE(steps[i].ps[r], plugin[i][r] * us);
                QCOMPARE(steps[i].range.end - steps[i].range.start,
                         plugin[i][kTorchRoleCount] * us);
            }
            // The plugin's average DataLoader time: 59261.833... µs.
            QVERIFY(std::abs(o.torchRoleMs[size_t(TorchRole::DataLoader)].average -
                             59261.833333333336 / 1000) < 1e-9);
            // DataLoader 59261.833 / 177592.167 µs of the average step: the plugin's 33.4%.
            QVERIFY(ids(o).count("pytorch_dataloader"));
            QCOMPARE(t.rowCount(), size_t(6));
            QCOMPARE(t.text(0, 0), std::string("5"));
            QCOMPARE(t.number(0, 3), 98.598);
        }
        QVERIFY(sawWorker0);
    }
};

QTEST_GUILESS_MAIN(TestOverviewKineto)
#include "test_overview_kineto.moc"
