// PyTorch's distributed view (model/analysis/PytorchDistributed.h): the PyTorch profiler
// plugin's own two-worker test with its expected values, a hand-built two-rank fixture with every
// value worked out by hand (in the comments), and the real two-rank NCCL job.
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "model/ProfileLoader.h"
#include "model/analysis/PytorchDistributed.h"

using namespace stepscope;

namespace {
constexpr int64_t us = 1000000;
const std::string kRealData = STEPSCOPE_REALDATA;

std::shared_ptr<const Profile> loadText(const QTemporaryDir& dir, const std::string& name,
                                        std::string_view text) {
    const std::string path = dir.path().toStdString() + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    const LoadResult r = loadHosts({{name, path}});
    if (!r.ok()) qWarning("%s", r.error.c_str());
    return r.profile;
}

// pytorch/kineto tb_plugin/test/test_profiler.py, test_distributed_nccl (at 949796072a~1): the
// events of its two workers, unchanged.
constexpr std::string_view kPluginWorker0 = R"J([
 {"ph": "X", "cat": "cpu_op", "name": "nccl:broadcast", "pid": 23803, "tid": "23803",
  "ts": 0, "dur": 75, "args": {"External id": 146, "Input Dims": [[53120]], "Input type": ["float"]}},
 {"ph": "X", "cat": "Kernel", "name": "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclWorkElem)",
  "pid": 0, "tid": "stream 16", "ts": 16, "dur": 16,
  "args": {"device": 0, "correlation": 28506, "external id": 146}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::add_", "pid": 23803, "tid": "23803", "ts": 100,
  "dur": 20, "args": {"External id": 24504, "Input Dims": [[1000], [1000], []],
  "Input type": ["float", "float", "Int"]}},
 {"ph": "X", "cat": "Kernel", "name": "void at::native::vectorized_elementwise_kernel", "pid": 0,
  "tid": "stream 7", "ts": 130, "dur": 161,
  "args": {"device": 0, "correlation": 99765, "external id": 24504}},
 {"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 23803, "tid": "25166",
  "ts": 160, "dur": 75, "args": {"External id": 2513, "Input Dims": [[2049000]], "Input type": ["float"]}},
 {"ph": "X", "cat": "Kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
  "pid": 0, "tid": "stream 16", "ts": 162, "dur": 1556,
  "args": {"device": 0, "correlation": 33218, "external id": 2513}}
])J";
constexpr std::string_view kPluginWorker1 = R"J([
 {"ph": "X", "cat": "cpu_op", "name": "nccl:broadcast", "pid": 23803, "tid": "23803",
  "ts": 0, "dur": 20, "args": {"External id": 146, "Input Dims": [[53120]], "Input type": ["float"]}},
 {"ph": "X", "cat": "Kernel", "name": "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclWorkElem)",
  "pid": 0, "tid": "stream 16", "ts": 8, "dur": 31,
  "args": {"device": 0, "correlation": 28506, "external id": 146}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::add_", "pid": 23803, "tid": "23803", "ts": 25,
  "dur": 20, "args": {"External id": 24504, "Input Dims": [[1000], [1000], []],
  "Input type": ["float", "float", "Int"]}},
 {"ph": "X", "cat": "Kernel", "name": "void at::native::vectorized_elementwise_kernel", "pid": 0,
  "tid": "stream 7", "ts": 30, "dur": 161,
  "args": {"device": 0, "correlation": 99765, "external id": 24504}},
 {"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 23803, "tid": "25166",
  "ts": 160, "dur": 75, "args": {"External id": 2513, "Input Dims": [[2049000]], "Input type": ["float"]}},
 {"ph": "X", "cat": "Kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
  "pid": 0, "tid": "stream 16", "ts": 562, "dur": 1058,
  "args": {"device": 0, "correlation": 33218, "external id": 2513}}
])J";

// Two ranks, one ProfilerStep#7 each plus a ProfilerStep#8 that launches nothing (dropped as the
// plugin drops trailing steps without device work). Times in µs.
// Rank 0: aten::mm [10,30] launches sgemm [20,80]; nccl:all_reduce [40,50] (inputs 1000 floats,
// 2x3 halves, 5 "long" = 4000 + 12 + 0 bytes) launches ncclKernel [60,130].
// Rank 1: aten::mm [10,30] launches sgemm [20,50]; nccl:all_reduce [55,65] launches ncclKernel
// [70,125].
std::string rankTrace(int rank) {
    const bool r0 = rank == 0;
    auto x = [](const char* cat, const char* name, int pid, int tid, int ts, int dur,
                const std::string& args) {
        return std::string("{\"ph\": \"X\", \"cat\": \"") + cat + "\", \"name\": \"" + name +
               "\", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid) +
               ", \"ts\": " + std::to_string(ts) + ", \"dur\": " + std::to_string(dur) +
               ", \"args\": {" + args + "}}";
    };
    const int c = r0 ? 100 : 200;
    std::vector<std::string> ev = {
        x("user_annotation", "ProfilerStep#7", 1, 1, 0, 100, "\"External id\": 90"),
        x("user_annotation", "ProfilerStep#8", 1, 1, 150, 10, "\"External id\": 91"),
        x("cpu_op", "aten::mm", 1, 1, 10, 20, "\"External id\": 1"),
        x("cuda_runtime", "cudaLaunchKernel", 1, 1, 12, 2,
          "\"External id\": 1, \"correlation\": " + std::to_string(c + 1)),
        x("kernel", "sgemm", 0, 7, 20, r0 ? 60 : 30,
          "\"External id\": 1, \"device\": 0, \"stream\": 7, \"correlation\": " +
              std::to_string(c + 1)),
        x("user_annotation", "nccl:all_reduce", 1, 2, r0 ? 40 : 55, 10,
          "\"External id\": 2, \"Input Dims\": [[1000], [2, 3], [5]], \"Input type\": "
          "[\"float\", \"c10::Half\", \"long\"]"),
        x("cuda_runtime", "cudaLaunchKernel", 1, 2, r0 ? 42 : 57, 2,
          "\"External id\": 2, \"correlation\": " + std::to_string(c + 2)),
        x("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 0, 16, r0 ? 60 : 70, r0 ? 70 : 55,
          "\"External id\": 2, \"device\": 0, \"stream\": 16, \"correlation\": " +
              std::to_string(c + 2)),
    };
    std::string out =
        "{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " + std::to_string(rank) +
        ", \"world_size\": 2}, \"traceEvents\": [\n";
    for (size_t i = 0; i < ev.size(); ++i) out += ev[i] + (i + 1 < ev.size() ? ",\n" : "\n");
    return out + "]}";
}
} // namespace

class TestPytorchDistributed : public QObject {
    Q_OBJECT

private slots:
    // The plugin's expectations (test_distributed_nccl), in µs:
    //   steps_to_overlap '0': worker0 [30, 75, 75, 55], worker1 [121, 40, 74, 0]
    //   steps_to_wait '0':    worker0 [1169, 464],     worker1 [1169, 3]
    //   comm_ops rows: worker0 broadcast 1 call 212480 bytes latency 75 transfer 36,
    //                          all_reduce 1 call 8196000 bytes latency 1558 transfer 1133;
    //                  worker1 broadcast latency 39 transfer 36, all_reduce latency 1133 and 1133.
    void pluginTest() {
        QTemporaryDir dir;
        const auto w0 = loadText(dir, "worker0.json", kPluginWorker0);
        const auto w1 = loadText(dir, "worker1.json", kPluginWorker1);
        QVERIFY(w0 && w1);
        const DistributedView v = analyzeDistributed({{w0.get(), 0}, {w1.get(), 0}});
        QVERIFY2(v.transferKnown, v.problem.c_str());
        QCOMPARE(v.workers.size(), size_t(2));
        const int64_t overlap[2][4] = {{30, 75, 75, 55}, {121, 40, 74, 0}};
        const int64_t wait[2][2] = {{1169, 464}, {1169, 3}};
        for (size_t w = 0; w < 2; ++w) {
            const DistributedWorker& worker = v.workers[w];
            QCOMPARE(worker.steps.size(), size_t(1));
            const DistributedStep& s = worker.steps[0];
            QCOMPARE(s.name, std::string("0"));
            QCOMPARE(s.computationOnlyPs(), overlap[w][0] * us);
            QCOMPARE(s.overlapPs, overlap[w][1] * us);
            QCOMPARE(s.communicationOnlyPs(), overlap[w][2] * us);
            QCOMPARE(s.otherPs, overlap[w][3] * us);
            QCOMPARE(s.commTransferPs, wait[w][0] * us);
            QCOMPARE(s.commLatencyPs - s.commTransferPs, wait[w][1] * us);
            QCOMPARE(worker.ops.size(), size_t(2));
            QCOMPARE(worker.ops[0].name, std::string("nccl:broadcast"));
            QCOMPARE(worker.ops[0].calls, int64_t(1));
            QCOMPARE(worker.ops[0].bytes, int64_t(212480));
            QCOMPARE(worker.ops[0].latencyPs, (w == 0 ? 75 : 39) * us);
            QCOMPARE(worker.ops[0].transferPs, 36 * us);
            QCOMPARE(worker.ops[1].name, std::string("nccl:all_reduce"));
            QCOMPARE(worker.ops[1].bytes, int64_t(8196000));
            QCOMPARE(worker.ops[1].latencyPs, (w == 0 ? 1558 : 1133) * us);
            QCOMPARE(worker.ops[1].transferPs, 1133 * us);
        }
        // The tables in µs, exactly.
        const Table ops = distributedOpTable(v, {"worker0", "worker1"});
        QCOMPARE(ops.rowCount(), size_t(4));
        QCOMPARE(ops.exactText(1, 1), std::string("nccl:all_reduce"));
        QCOMPARE(ops.exactText(1, 3), std::string("8196000"));
        QCOMPARE(ops.exactText(1, 5), std::string("1558"));
        QCOMPARE(ops.exactText(1, 7), std::string("1133"));
        const Table steps = distributedStepTable(v, {"worker0", "worker1"});
        QCOMPARE(steps.rowCount(), size_t(4)); // step 0 and "all" per worker
        QCOMPARE(steps.exactText(2, 0), std::string("0"));
        QCOMPARE(steps.exactText(2, 2), std::string("121"));
        QCOMPARE(steps.exactText(3, 0), std::string("all"));
        QCOMPARE(steps.exactText(3, 7), std::string("3"));
    }

    // Hand-worked (µs). Rank 0: step 7 on the host [0,100]; its runtimes launched [20,80] and
    // [60,130], so the step becomes [0,130]. Kernels [20,80]; communication = the nccl op [40,50]
    // and its kernel [60,130]. Computation 60, communication 10 + 70 = 80, overlap [40,50] +
    // [60,80] = 30, other 130 + 30 - 60 - 80 = 20 (the uncovered [0,20]). Shown: 30, 30, 50, 20.
    // Rank 1: step [0,125]; kernels [20,50]; communication [55,65] + [70,125]: computation 30,
    // communication 65, overlap 0, other 30 ([0,20], [50,55], [65,70]).
    // Transfer: range 1 (host op) lasts 10 on both -> 10; range 2 lasts 70 and 55 -> 55:
    // rank 0 real ranges [40,50] and [75,130] -> 65 of latency 80 (wait 15); rank 1 [55,65] and
    // [70,125] -> 65 of 65 (wait 0). Bytes 1000*4 + 6*2 + 5*0 = 4012. Step 8 launched nothing and
    // is the last step: dropped.
    void handFixture() {
        QTemporaryDir dir;
        const auto r0 = loadText(dir, "rank0.json", rankTrace(0));
        const auto r1 = loadText(dir, "rank1.json", rankTrace(1));
        QVERIFY(r0 && r1);
        const DistributedView v = analyzeDistributed({{r0.get(), 0}, {r1.get(), 0}});
        QVERIFY2(v.transferKnown, v.problem.c_str());
        const int64_t shown[2][4] = {{30, 30, 50, 20}, {30, 0, 65, 30}};
        const int64_t span[2] = {130, 125}, latency[2] = {80, 65};
        for (size_t w = 0; w < 2; ++w) {
            const DistributedWorker& worker = v.workers[w];
            QCOMPARE(worker.steps.size(), size_t(1));
            const DistributedStep& s = worker.steps[0];
            QCOMPARE(s.name, std::string("7"));
            QCOMPARE(s.endPs - s.beginPs, span[w] * us);
            QCOMPARE(s.computationOnlyPs(), shown[w][0] * us);
            QCOMPARE(s.overlapPs, shown[w][1] * us);
            QCOMPARE(s.communicationOnlyPs(), shown[w][2] * us);
            QCOMPARE(s.otherPs, shown[w][3] * us);
            QCOMPARE(s.commLatencyPs, latency[w] * us);
            QCOMPARE(s.commTransferPs, 65 * us);
            QCOMPARE(worker.ops.size(), size_t(1));
            QCOMPARE(worker.ops[0].bytes, int64_t(4012));
            QCOMPARE(worker.ops[0].latencyPs, latency[w] * us);
            QCOMPARE(worker.ops[0].transferPs, 65 * us);
            QVERIFY(worker.nccl && !worker.gloo);
        }
        // A worker without communication: transfer is not known, the rest still is.
        const DistributedView one = analyzeDistributed({{r0.get(), 0}, {nullptr, 0}});
        QVERIFY(!one.transferKnown);
        QVERIFY(!one.problem.empty());
        QCOMPARE(one.workers[0].steps[0].overlapPs, 30 * us);
        QCOMPARE(one.workers[0].steps[0].commTransferPs, int64_t(-1));
        QCOMPARE(one.workers[0].ops[0].transferPs, int64_t(-1));
        const Table t = distributedOpTable(one, {"rank 0", "rank 1"});
        QVERIFY(t.isMissing(0, 7));
        QCOMPARE(t.exactText(0, 5), std::string("80"));
    }

    // Corrupt shapes and types: no overflow, no crash; such inputs count 0 bytes.
    void corruptShapes() {
        QTemporaryDir dir;
        const auto p = loadText(dir, "odd.json", R"J([
 {"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 1, "tid": 1, "ts": 0, "dur": 10,
  "args": {"External id": 5, "Input Dims": [[4611686018427387904, 4611686018427387904], [3]],
  "Input type": ["float", "c10::Half"]}},
 {"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 1, "tid": 1, "ts": 20, "dur": 10,
  "args": {"External id": 6, "Input Dims": "no shape", "Input type": 7}}
])J");
        QVERIFY(p);
        const DistributedView v = analyzeDistributed({{p.get(), 0}});
        QCOMPARE(v.workers[0].ops.size(), size_t(1));
        QCOMPARE(v.workers[0].ops[0].calls, int64_t(2));
        QCOMPARE(v.workers[0].ops[0].bytes, int64_t(6)); // only the 3 halves
        QCOMPARE(v.workers[0].ops[0].latencyPs, 20 * us);
    }

    // The real two-rank NCCL job (HTA's sampled_rank-0/1). Expected values from the plugin itself:
    // torch_tb_profiler at 949796072a~1 run on the two files (RunProfileData.from_json, then
    // RunLoader._process_distributed_profiles; its pandas kernel table stubbed out, which the
    // distributed view does not use). Its NCCL kernels carry no external id of an nccl:* op, so
    // communication is the four nccl:all_reduce host ops per rank (nccl:all_to_all and
    // nccl:_all_gather_base are not in the plugin's op list), and the NCCL kernels count as
    // computation. Plugin output (µs): steps 551, 552;
    //   overlap rank 0: 551 [278511, 0, 218, 328583], 552 [268701, 91, 76, 354060]
    //           rank 1: 551 [269790, 94, 112, 337908], 552 [305459, 153, 13, 325014]
    //   wait rank 0: 551 [206, 12], 552 [164, 3]; rank 1: 551 [206, 0], 552 [164, 2]
    //   ops rank 0: nccl:all_reduce 4 calls 314195708 bytes latency 385 transfer 370;
    //       rank 1: 4 calls 284846792 bytes latency 372 transfer 370.
    void realRanks() {
        const std::string src = kRealData + "/kineto";
        if (!std::filesystem::exists(src + "/sampled_rank-0.json.gz"))
            QSKIP("../shared/realdata is absent");
        std::vector<std::shared_ptr<const Profile>> ranks;
        for (const char* name : {"sampled_rank-0", "sampled_rank-1"}) {
            const LoadResult r = loadHosts({{name, src + "/" + name + ".json.gz"}});
            QVERIFY2(r.ok(), r.error.c_str());
            ranks.push_back(r.profile);
        }
        const DistributedView v = analyzeDistributed({{ranks[0].get(), 0}, {ranks[1].get(), 0}});
        QVERIFY2(v.transferKnown, v.problem.c_str());
        const int64_t overlap[2][2][4] = {{{278511, 0, 218, 328583}, {268701, 91, 76, 354060}},
                                          {{269790, 94, 112, 337908}, {305459, 153, 13, 325014}}};
        const int64_t wait[2][2][2] = {{{206, 12}, {164, 3}}, {{206, 0}, {164, 2}}};
        const int64_t bytes[2] = {314195708, 284846792}, latency[2] = {385, 372};
        for (size_t w = 0; w < 2; ++w) {
            const DistributedWorker& worker = v.workers[w];
            QCOMPARE(worker.steps.size(), size_t(2));
            QCOMPARE(worker.nodes, size_t(4));
            for (size_t s = 0; s < 2; ++s) {
                const DistributedStep& step = worker.steps[s];
                QCOMPARE(step.name, std::string(s == 0 ? "551" : "552"));
                QCOMPARE(step.computationOnlyPs(), overlap[w][s][0] * us);
                QCOMPARE(step.overlapPs, overlap[w][s][1] * us);
                QCOMPARE(step.communicationOnlyPs(), overlap[w][s][2] * us);
                QCOMPARE(step.otherPs, overlap[w][s][3] * us);
                QCOMPARE(step.commTransferPs, wait[w][s][0] * us);
                QCOMPARE(step.commLatencyPs - step.commTransferPs, wait[w][s][1] * us);
            }
            QCOMPARE(worker.ops.size(), size_t(1));
            QCOMPARE(worker.ops[0].name, std::string("nccl:all_reduce"));
            QCOMPARE(worker.ops[0].calls, int64_t(4));
            QCOMPARE(worker.ops[0].bytes, bytes[w]);
            QCOMPARE(worker.ops[0].latencyPs, latency[w] * us);
            QCOMPARE(worker.ops[0].transferPs, 370 * us);
        }
    }
};

QTEST_GUILESS_MAIN(TestPytorchDistributed)
#include "test_pytorch_distributed.moc"
