// Precision and Tensor Core answers on the real H200 profiles (realdata/h200, SOURCES.md), each
// fact counted by a reader of the test's own: the PyTorch traces read with zlib and simdjson's
// DOM and joined here (kernel -> launch by correlation -> innermost enclosing cpu_op), the JAX
// profile's HLO read with the classes of tests/fixtures/hlo_subset.proto, and the CUPTI capture
// counted from its records. Skips with a message where ../shared/realdata is absent.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <simdjson.h>

#include "capture/CuptiConverter.h"
#include "capture/RecordFile.h"
#include "model/ProfileLoader.h"
#include "model/analysis/KernelStats.h"
#include "model/analysis/Overview.h"
#include "model/analysis/TfOpStats.h"
#include "tests/fixtures/GzipFile.h"
#include "tests/fixtures/HloFixtures.h"
#include "tests/fixtures/TableRows.h"

using namespace stepscope;
using namespace stepscope::fixtures;
namespace fs = std::filesystem;

namespace {

const std::string kH200 = std::string(STEPSCOPE_REALDATA) + "/h200";

using Rows = TableRows;

// The one file of `folder` whose name starts with `prefix` ("" when none).
std::string realFile(const std::string& folder, const std::string& prefix) {
    if (!fs::exists(kH200 + "/" + folder)) return {};
    for (const auto& entry : fs::directory_iterator(kH200 + "/" + folder))
        if (entry.path().filename().string().starts_with(prefix)) return entry.path().string();
    return {};
}

#define REQUIRE_FILE(path)                                                                         \
    if ((path).empty()) QSKIP("../shared/realdata/h200 not found: real H200 profiles skipped")

// ---- an independent reader of Kineto traces (zlib + simdjson's DOM, not the importer)

struct KEvent {
    std::string name, thread; // thread: "pid/tid"
    int64_t startNs = 0, durNs = 0;
    int64_t correlation = -1;
    std::vector<std::string> inputTypes; // cpu_op "Input type"
};

struct KinetoTrace {
    std::vector<KEvent> kernels;
    std::map<int64_t, KEvent> launches;             // runtime/driver events by correlation
    std::map<std::string, std::vector<KEvent>> ops; // cpu_ops by thread, by (start, -dur)
};

std::string idText(const simdjson::dom::element& e) {
    if (e.is_string()) return std::string(std::string_view(e));
    if (e.is_int64()) return std::to_string(int64_t(e));
    if (e.is_uint64()) return std::to_string(uint64_t(e));
    return std::to_string(double(e));
}

int64_t nanoseconds(const simdjson::dom::element& e) {
    if (e.is_int64()) return int64_t(e) * 1000;
    if (e.is_uint64()) return int64_t(uint64_t(e)) * 1000;
    return std::llround(double(e) * 1000); // µs with three decimals: whole ns
}

KinetoTrace readKineto(const std::string& path) {
    const std::string json = gunzipFile(path);
    simdjson::dom::parser parser;
    const simdjson::dom::element doc = parser.parse(json);
    KinetoTrace t;
    for (simdjson::dom::element e : doc["traceEvents"].get_array()) {
        std::string_view cat, name;
        if (e["cat"].get(cat) != simdjson::SUCCESS || e["name"].get(name) != simdjson::SUCCESS)
            continue;
        const bool kernel = cat == "kernel", op = cat == "cpu_op";
        const bool launch = cat == "cuda_runtime" || cat == "cuda_driver";
        if (!kernel && !op && !launch) continue;
        KEvent k;
        k.name = std::string(name);
        k.thread = idText(e["pid"]) + "/" + idText(e["tid"]);
        k.startNs = nanoseconds(e["ts"]);
        k.durNs = nanoseconds(e["dur"]);
        simdjson::dom::element args, v;
        if (e["args"].get(args) == simdjson::SUCCESS) {
            if (args["correlation"].get(v) == simdjson::SUCCESS) k.correlation = int64_t(v);
            simdjson::dom::array types;
            if (args["Input type"].get(types) == simdjson::SUCCESS)
                for (simdjson::dom::element s : types)
                    k.inputTypes.emplace_back(std::string_view(s));
        }
        if (kernel)
            t.kernels.push_back(std::move(k));
        else if (op)
            t.ops[k.thread].push_back(std::move(k));
        else if (k.correlation >= 0)
            t.launches[k.correlation] = std::move(k);
    }
    for (auto& [thread, list] : t.ops)
        std::sort(list.begin(), list.end(), [](const KEvent& a, const KEvent& b) {
            return a.startNs != b.startNs ? a.startNs < b.startNs : a.durNs > b.durNs;
        });
    return t;
}

// The innermost cpu_op of the launch's thread that encloses it: of the enclosing ops the one
// that starts last (the shorter of equal starts); null when none.
const KEvent* innermostOp(const KinetoTrace& t, const KEvent& launch) {
    const auto it = t.ops.find(launch.thread);
    if (it == t.ops.end()) return nullptr;
    const std::vector<KEvent>& ops = it->second;
    auto end = std::upper_bound(ops.begin(), ops.end(), launch.startNs,
                                [](int64_t ts, const KEvent& o) { return ts < o.startNs; });
    for (auto i = end; i != ops.begin();) {
        --i;
        if (i->startNs + i->durNs >= launch.startNs + launch.durNs) return &*i;
    }
    return nullptr;
}

// The kernel's launch (a cuda_runtime launch, or for cuBLASLt's kernels the cuda_driver
// cuLaunchKernelEx of the same correlation); null when the trace has none.
const KEvent* launchOf(const KinetoTrace& t, const KEvent& kernel) {
    const auto it = t.launches.find(kernel.correlation);
    return it == t.launches.end() ? nullptr : &it->second;
}

// The test's own precision of a kernel: the narrowest of c10::Half / c10::BFloat16 / float /
// double among its launching op's input types, else the kernel name's template arguments
// (c10::BFloat16, then float), else unknown. Graph replays take no input types.
std::string joinedPrecision(const KinetoTrace& t, const KEvent& kernel) {
    static const std::vector<std::pair<std::string, std::string>> kRanked = {
        {"c10::Half", "fp16"}, {"c10::BFloat16", "bf16"}, {"float", "fp32"}, {"double", "fp64"}};
    const KEvent* launch = launchOf(t, kernel);
    const KEvent* op = launch && launch->name.find("GraphLaunch") == std::string::npos
                           ? innermostOp(t, *launch)
                           : nullptr;
    if (op)
        for (const auto& [type, label] : kRanked)
            if (std::find(op->inputTypes.begin(), op->inputTypes.end(), type) !=
                op->inputTypes.end())
                return label;
    if (kernel.name.find("c10::BFloat16") != std::string::npos) return "bf16";
    for (size_t at = kernel.name.find("float"); at != std::string::npos;
         at = kernel.name.find("float", at + 1)) {
        const char before = at ? kernel.name[at - 1] : ' ';
        const char after = at + 5 < kernel.name.size() ? kernel.name[at + 5] : ' ';
        if (!std::isalnum(static_cast<unsigned char>(before)) && before != '_' &&
            !std::isalnum(static_cast<unsigned char>(after)) && after != '_')
            return "fp32";
    }
    return "unknown";
}

std::set<std::string> recommendationIds(const Overview& o) {
    std::set<std::string> out;
    for (const Recommendation& r : o.recommendations) out.insert(r.id);
    return out;
}

// Kernel stats occurrences summed per (kernel name, op name).
std::map<std::pair<std::string, std::string>, uint64_t> occurrencesByKernelAndOp(const Table& t) {
    std::map<std::pair<std::string, std::string>, uint64_t> out;
    const Rows rows{t};
    for (size_t r = 0; r < t.rowCount(); ++r)
        out[{rows.text(r, "Kernel name"), rows.text(r, "Op name")}] +=
            uint64_t(rows.num(r, "Occurrences"));
    return out;
}

auto startsWith(const char* prefix) {
    return [prefix](const std::string& n) { return n.starts_with(prefix); };
}
auto contains(const char* part) {
    return [part](const std::string& n) { return n.find(part) != std::string::npos; };
}

// The kernel stats rows whose name `matches`: their summed occurrences, and the first of them
// whose Tensor Core cell (NaN: unknown) or precision ("": any) differs from the expected.
struct Checked {
    uint64_t occurrences = 0;
    std::string mismatch;
};
template <typename Match>
Checked checkRows(const Table& t, Match&& matches, double tensorCore,
                  const std::string& precision) {
    const Rows rows{t};
    Checked out;
    for (size_t r = 0; r < t.rowCount(); ++r) {
        const std::string& name = rows.text(r, "Kernel name");
        if (!matches(name)) continue;
        out.occurrences += uint64_t(rows.num(r, "Occurrences"));
        const double tc = rows.num(r, "Kernel uses TensorCore");
        const bool tcOk = std::isnan(tensorCore) ? std::isnan(tc) : tc == tensorCore;
        const bool precisionOk = precision.empty() || rows.text(r, "Precision") == precision;
        if ((!tcOk || !precisionOk) && out.mismatch.empty())
            out.mismatch = name.substr(0, 60) + " / " + rows.text(r, "Op name") + ": tensor core " +
                           t.exactText(r, rows.col("Kernel uses TensorCore")) + ", precision " +
                           rows.text(r, "Precision");
    }
    return out;
}

#define CHECK_ROWS(table, match, tensorCore, precision, expectedOccurrences)                       \
    do {                                                                                           \
        const Checked checked = checkRows(table, match, tensorCore, precision);                    \
        QVERIFY2(checked.mismatch.empty(), checked.mismatch.c_str());                              \
        QCOMPARE(checked.occurrences, uint64_t(expectedOccurrences));                              \
    } while (false)

const std::vector<std::string> kJaxDotPaths = {
    "jit(train_step)/jvp()/dot_general",
    "jit(train_step)/transpose(jvp())/dot_general",
    "jit(train_step)/transpose(jvp())/transpose",
};

} // namespace

class TestKernelFactsReal : public QObject {
    Q_OBJECT

private slots:
    // The 12-layer bf16-autocast transformer: cuBLASLt's bf16 GEMMs and cuDNN's SDPA kernels on
    // Tensor Cores, the kernel time by precision as the test's own join finds it.
    void gpt12Transformer() {
        const std::string path = realFile("pytorch", "gpt12.");
        REQUIRE_FILE(path);
        const KinetoTrace t = readKineto(path);
        QCOMPARE(t.kernels.size(), size_t(7456)); // SOURCES.md

        const LoadResult r = loadPath(path);
        QVERIFY2(r.ok(), r.error.c_str());
        const KernelStats s = computeKernelStats(*r.profile);
        uint64_t tst = 0, sdpa = 0;
        for (const KEvent& k : t.kernels) {
            tst += k.name.starts_with("nvjet_sm90_tst");
            sdpa += k.name.find("sdpa_sm90") != std::string::npos;
        }
        QVERIFY(tst > 0 && sdpa > 0);
        CHECK_ROWS(s.table, startsWith("nvjet_sm90_tst"), 1.0, "bf16", tst);
        CHECK_ROWS(s.table, contains("sdpa_sm90"), 1.0, "", sdpa);

        // Kernel time by precision, by the test's join, against the overview's table.
        std::map<std::string, int64_t> byPrecision;
        int64_t total = 0;
        for (const KEvent& k : t.kernels) {
            byPrecision[joinedPrecision(t, k)] += k.durNs;
            total += k.durNs;
        }
        const Overview o = computeOverview(*r.profile);
        const Table table = precisionTable(o);
        const Rows rows{table};
        std::map<std::string, double> shown;
        for (size_t i = 0; i < table.rowCount(); ++i)
            shown[rows.text(i, "Precision")] = rows.num(i, "Kernel time (%)");
        for (const char* p : {"bf16", "fp32"}) {
            const double expected = 100.0 * double(byPrecision[p]) / double(total);
            qInfo("gpt12 %s: %.3f%% of kernel time by the test's join, %.3f%% in the overview", p,
                  expected, shown[p]);
            QVERIFY2(std::abs(expected - shown[p]) < 0.5, p);
        }
        QVERIFY(shown["bf16"] > 50);
        const std::set<std::string> ids = recommendationIds(o);
        QVERIFY(!ids.count("mixed_precision"));
        QVERIFY(!ids.count("tensor_core"));
        QVERIFY2(o.compute16Percent > 50, std::to_string(o.compute16Percent).c_str());
    }

    // torch.compile with CUDA graphs plus fp8 GEMMs: cuBLASLt's fp8 and bf16 GEMMs on Tensor
    // Cores, and the kernels a CUDA graph replays keep the op that launched the graph.
    void compiledWithGraphsAndFp8() {
        const std::string path = realFile("pytorch", "compiled.");
        REQUIRE_FILE(path);
        const KinetoTrace t = readKineto(path);
        QCOMPARE(t.kernels.size(), size_t(471)); // SOURCES.md

        const LoadResult r = loadPath(path);
        QVERIFY2(r.ok(), r.error.c_str());
        const KernelStats s = computeKernelStats(*r.profile);
        uint64_t fp8 = 0, tst = 0;
        for (const KEvent& k : t.kernels) {
            fp8 += k.name.starts_with("nvjet_sm90_qqtst");
            tst += k.name.starts_with("nvjet_sm90_tst");
        }
        // 4 per step in the 4 active steps, and 4 whose launches fell before the trace window.
        QCOMPARE(fp8, uint64_t(20));
        CHECK_ROWS(s.table, startsWith("nvjet_sm90_qqtst"), 1.0, "fp8", fp8);
        QVERIFY(tst > 0);
        CHECK_ROWS(s.table, startsWith("nvjet_sm90_tst"), 1.0, "bf16", tst);

        const Overview o = computeOverview(*r.profile);
        const std::set<std::string> ids = recommendationIds(o);
        QVERIFY(!ids.count("mixed_precision"));
        QVERIFY(!ids.count("tensor_core"));

        // Every kernel of a name some CUDA graph replays, with the op its launch happened in.
        std::set<std::string> replayed;
        for (const KEvent& k : t.kernels)
            if (const KEvent* l = launchOf(t, k);
                l && l->name.find("GraphLaunch") != std::string::npos)
                replayed.insert(k.name);
        QVERIFY(!replayed.empty());
        std::map<std::pair<std::string, std::string>, uint64_t> expected;
        uint64_t graphKernels = 0;
        for (const KEvent& k : t.kernels) {
            if (!replayed.count(k.name)) continue;
            const KEvent* l = launchOf(t, k);
            const KEvent* op = l ? innermostOp(t, *l) : nullptr;
            QVERIFY2(op, k.name.c_str());
            ++expected[{k.name, op->name}];
            graphKernels += l->name.find("GraphLaunch") != std::string::npos;
        }
        const auto shown = occurrencesByKernelAndOp(s.table);
        for (const auto& [key, n] : expected) {
            const auto it = shown.find(key);
            QVERIFY2(it != shown.end(), (key.first + " / " + key.second).c_str());
            QCOMPARE(it->second, n);
        }
        for (const auto& [key, n] : shown)
            if (replayed.count(key.first))
                QVERIFY2(expected.count(key), (key.first + " / " + key.second).c_str());
        qInfo("compiled: %zu kernel names replayed by CUDA graphs, %llu graph kernels",
              replayed.size(), static_cast<unsigned long long>(graphKernels));
    }

    // JAX with XLA command buffers: op stats name the three bf16 GEMM op paths (the op_names of
    // jit_train_step's cuBLAS custom-calls and gemm fusions), not command_buffer_1.
    void jaxCommandBufferOps() {
        const std::string path = realFile("jax-remote", "localhost_9012");
        REQUIRE_FILE(path);
        // By protobuf's classes: the op paths of the module's GEMMs.
        std::set<std::string> gemmPaths;
        size_t modules = 0;
        for (const HloBlob& b : readHloBlobs(path)) {
            if (!b.name.starts_with("jit_train_step(")) continue;
            ++modules;
            testhlo::HloProto proto;
            QVERIFY(proto.ParseFromString(b.bytes));
            for (const auto& c : proto.hlo_module().computations())
                for (const auto& h : c.instructions()) {
                    const bool cublas = h.opcode() == "custom-call" &&
                                        h.custom_call_target().find("cublas") != std::string::npos;
                    const bool gemmFusion =
                        h.opcode() == "fusion" && h.name().starts_with("gemm_fusion");
                    if (cublas || gemmFusion) gemmPaths.insert(h.metadata().op_name());
                }
        }
        QCOMPARE(modules, size_t(1));
        for (const std::string& p : kJaxDotPaths) QVERIFY2(gemmPaths.count(p), p.c_str());

        const LoadResult r = loadPath(path);
        QVERIFY2(r.ok(), r.error.c_str());
        const TfOpStats stats = computeTfOpStats(*r.profile);
        int64_t deviceTotal = 0, commandBuffer = 0;
        for (const TfOpStatsRow& row : stats.rows) {
            if (row.side != OpSide::Device) continue;
            deviceTotal += row.totalPs;
            if (stats.ops[row.op].name.find("command_buffer") != std::string::npos)
                commandBuffer += row.totalPs;
        }
        QVERIFY(deviceTotal > 0);
        const double commandBufferPercent = 100.0 * double(commandBuffer) / double(deviceTotal);
        qInfo("JAX H200: %.3f%% of device op time in command_buffer rows", commandBufferPercent);
        QVERIFY(commandBufferPercent < 5);

        const Table table = tfOpStatsTable(stats, false);
        const Rows rows{table};
        for (const std::string& p : kJaxDotPaths) {
            size_t found = 0;
            for (size_t i = 0; i < table.rowCount(); ++i) {
                if (rows.text(i, "Host/device") != "Device" || rows.text(i, "Operation") != p)
                    continue;
                ++found;
                QCOMPARE(rows.text(i, "Precision"), std::string("bf16"));
                const double tc = rows.num(i, "TensorCore utilization (%)");
                qInfo("%s: TensorCore utilization %.2f%%", p.c_str(), tc);
                QVERIFY2(tc > 90, p.c_str());
            }
            QCOMPARE(found, size_t(1));
        }
        const Overview o = computeOverview(*r.profile);
        QVERIFY(o.topOps.rowCount() > 0);
        const std::string top = Rows{o.topOps}.text(0, "Operation");
        QVERIFY2(std::find(kJaxDotPaths.begin(), kJaxDotPaths.end(), top) != kJaxDotPaths.end(),
                 top.c_str());

        // XLA's Triton GEMM fusions (gemm_fusion_dot*: a dot on bf16 operands) run on Tensor
        // Cores on the H200; their names say nothing, so the HLO decides.
        const KernelStats s = computeKernelStats(*r.profile);
        const Checked gemmFusions = checkRows(s.table, startsWith("gemm_fusion_"), 1.0, "bf16");
        QVERIFY(gemmFusions.occurrences > 0);
        QVERIFY2(gemmFusions.mismatch.empty(), gemmFusions.mismatch.c_str());
    }

    // Stepscope's own CUPTI capture of gemmsteps (SOURCES.md): cuBLAS's fp16 Tensor Core GEMM,
    // its SIMT fp32 SGEMM, and the program's own scale_kernel, counted from the records.
    void cuptiGemmsteps() {
        const std::string path = realFile("cupti", "gemmsteps_50.rec");
        REQUIRE_FILE(path);
        const capture::RecordFileContents c = capture::readRecordFile(path);
        QVERIFY2(c.ok(), c.error.c_str());
        std::map<std::string, uint64_t> counted; // by family
        std::string scaleName;
        for (const capture::Record& rec : c.records) {
            const auto* k = std::get_if<capture::KernelRecord>(&rec);
            if (!k) continue;
            if (k->name.starts_with("nvjet_sm90_hsh_")) ++counted["hsh"];
            // cuBLAS's CUTLASS kernels are recorded demangled: void cutlass::Kernel2<...>(...).
            if (k->name.find("cutlass_80_simt_sgemm_") != std::string::npos) ++counted["simt"];
            if (k->name.starts_with("scale_kernel")) {
                ++counted["scale"];
                scaleName = k->name;
            }
        }
        QCOMPARE(counted["hsh"], uint64_t(200)); // 4 per step, 50 steps
        QCOMPARE(counted["simt"], uint64_t(200));
        QCOMPARE(counted["scale"], uint64_t(100));

        const LoadResult r = loadXSpaceBytes(
            capture::convertToXSpace({c.records, c.problem, c.rejected}), "capture");
        QVERIFY2(r.ok(), r.error.c_str());
        const KernelStats s = computeKernelStats(*r.profile);
        CHECK_ROWS(s.table, startsWith("nvjet_sm90_hsh_"), 1.0, "fp16", counted["hsh"]);
        CHECK_ROWS(s.table, contains("cutlass_80_simt_sgemm_"), 0.0, "fp32", counted["simt"]);
        // The program's own kernel: no family the Tensor Core table knows. CUPTI records it with
        // its signature, scale_kernel(float*, unsigned long, float), and it scales an fp32
        // buffer (gpu-workloads/gemmsteps.cu): the name says fp32, which is right.
        QCOMPARE(scaleName, std::string("scale_kernel(float*, unsigned long, float)"));
        CHECK_ROWS(s.table, startsWith("scale_kernel"), std::nan(""), "fp32", counted["scale"]);
    }
};

QTEST_GUILESS_MAIN(TestKernelFactsReal)
#include "test_kernel_facts_real.moc"
