// GPU kernel stats: aggregation per (kernel, op, launch configuration), the three kernel_details
// spellings, every Tensor Core rule (kernel patterns, op eligibility, einsum, vendor), which
// lines count, and facts on every real XSpace profile.
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <map>

#include "model/ProfileBuilder.h"
#include "model/ProfileLoader.h"
#include "model/analysis/KernelStats.h"
#include "model/analysis/TensorCore.h"
#include "tests/fixtures/ProtoXSpace.h"
#include "tests/fixtures/TableRows.h"

using namespace stepscope;

namespace {
constexpr int64_t us = 1000000;
const std::string kRealData = STEPSCOPE_REALDATA;

StatValue strStat(ProfileBuilder& b, const char* key, std::string_view value) {
    return {b.intern(key), StatType::Str, b.intern(value)};
}

using Rows = fixtures::TableRows;

// The row of a kernel name (+ op name); -1 if absent.
int findKernel(const Rows& rows, const std::string& kernel, const std::string& op) {
    for (size_t r = 0; r < rows.t.rowCount(); ++r)
        if (rows.text(r, "Kernel name") == kernel && rows.text(r, "Op name") == op) return int(r);
    return -1;
}

constexpr const char* kDetails = "regs:32 static_shared:0 dynamic_shared:0 grid:1,1,1 "
                                 "block:128,1,1 occ_pct:50";

// A GPU plane with one compute stream; kernels are added with addKernel().
struct GpuFixture {
    ProfileBuilder b;
    uint32_t plane = 0, stream = 0;
    int64_t clock = 0;
    uint32_t nextMeta = 1;
    std::map<std::string, uint32_t> meta;

    explicit GpuFixture(const char* vendor = nullptr) {
        b.setTimeBase(0);
        const uint32_t h = b.addHost("h", "");
        plane = b.addPlane(h, 1, "/device:GPU:0");
        if (vendor) b.addPlaneStat(plane, strStat(b, "device_vendor", vendor));
        stream = b.addTrack(plane, 7, "Stream #7(Compute)");
    }
    EventIndex addKernel(const std::string& name, const std::string& tfOp, int64_t durPs,
                         const char* details = kDetails, const char* equation = nullptr) {
        auto [it, inserted] = meta.try_emplace(name, 0);
        if (inserted) it->second = b.addMetadata(plane, nextMeta++, name, "");
        b.addEvent(stream, clock, durPs, it->second);
        clock += durPs + us;
        b.addEventStat(strStat(b, "kernel_details", details));
        if (!tfOp.empty()) b.addEventStat(strStat(b, "tf_op", tfOp));
        if (equation) b.addEventStat(strStat(b, "equation", equation));
        return EventIndex(b.eventCount() - 1);
    }
};
} // namespace

class TestKernelStats : public QObject {
    Q_OBJECT
private slots:
    void aggregatesPerKernelAndOp() {
        GpuFixture f;
        f.addKernel("relu_kernel", "model/relu:Relu", 3 * us);
        f.addKernel("relu_kernel", "model/relu:Relu", 5 * us);
        f.addKernel("relu_kernel", "model/relu_1:Relu", 1 * us);
        f.addKernel("gemv_kernel", "model/dense/MatMul:MatMul", 20 * us);
        auto p = f.b.finish();
        const KernelStats s = computeKernelStats(*p);
        const Rows rows{s.table};
        QCOMPARE(s.table.rowCount(), size_t(3));
        QCOMPARE(s.kernelEvents, uint64_t(4));
        // Sorted by total time: gemv (20), relu/model/relu (8), relu/model/relu_1 (1).
        QCOMPARE(rows.num(0, "Rank"), 1.0);
        QCOMPARE(rows.text(0, "Kernel name"), std::string("gemv_kernel"));
        QCOMPARE(rows.text(0, "Op name"), std::string("model/dense/MatMul"));
        QCOMPARE(rows.text(1, "Op name"), std::string("model/relu"));
        QCOMPARE(rows.num(1, "Rank"), 2.0);
        QCOMPARE(rows.num(1, "Occurrences"), 2.0);
        QCOMPARE(rows.num(1, "Total duration (µs)"), 8.0);
        QCOMPARE(rows.num(1, "Avg duration (µs)"), 4.0);
        QCOMPARE(rows.num(1, "Min duration (µs)"), 3.0);
        QCOMPARE(rows.num(1, "Max duration (µs)"), 5.0);
        QCOMPARE(rows.num(1, "Registers per thread"), 32.0);
        QCOMPARE(rows.text(1, "Block dim"), std::string("128,1,1"));
        QCOMPARE(rows.num(1, "Theoretical occupancy %"), 50.0);
        // The longest instance of the relu row is its second (5 µs) event.
        QCOMPARE(p->duration(s.longestInstance[1]), 5 * us);
        QCOMPARE(p->name(s.longestInstance[1]), std::string_view("relu_kernel"));
        QCOMPARE(rows.text(2, "Op name"), std::string("model/relu_1"));

        const PieData pie = kernelTimeByName(s);
        QCOMPARE(pie.size(), size_t(2));
        QCOMPARE(pie[0].label, std::string("gemv_kernel"));
        QCOMPARE(pie[0].value, 20.0);
        QCOMPARE(pie[1].value, 9.0);
    }

    void threeKernelDetailsSpellings() {
        GpuFixture f;
        f.addKernel("tf2020", "a:Relu", 4 * us, "regs:16 shm:512 grid:160,1,1 block:1024,1,1");
        f.addKernel("cuda", "b:Relu", 3 * us,
                    "regs:32 static_shared:1024 dynamic_shared:4096 grid:8,4,1 block:128,2,1 "
                    "occ_pct:62.5");
        f.addKernel("rocm", "c:Relu", 2 * us,
                    " grid:8,32,1 block:256,1,1 private_mem:0 group_mem:12800 occ_pct:0");
        auto p = f.b.finish();
        const KernelStats s = computeKernelStats(*p);
        const Rows rows{s.table};
        QCOMPARE(s.table.rowCount(), size_t(3));
        QCOMPARE(rows.text(0, "Kernel name"), std::string("tf2020"));
        QCOMPARE(rows.num(0, "Registers per thread"), 16.0);
        QCOMPARE(rows.num(0, "Shared memory (bytes)"), 512.0);
        QCOMPARE(rows.text(0, "Grid dim"), std::string("160,1,1"));
        QCOMPARE(rows.text(0, "Block dim"), std::string("1024,1,1"));
        QVERIFY(std::isnan(rows.num(0, "Theoretical occupancy %"))); // not recorded in 2020
        QCOMPARE(rows.num(1, "Registers per thread"), 32.0);
        QCOMPARE(rows.num(1, "Shared memory (bytes)"), 5120.0);
        QCOMPARE(rows.text(1, "Grid dim"), std::string("8,4,1"));
        QCOMPARE(rows.text(1, "Block dim"), std::string("128,2,1"));
        QCOMPARE(rows.num(1, "Theoretical occupancy %"), 62.5);
        QVERIFY(std::isnan(rows.num(2, "Registers per thread"))); // ROCm records none
        QCOMPARE(s.table.displayText(2, size_t(s.table.columnIndex("Registers per thread"))),
                 std::string());
        QCOMPARE(rows.num(2, "Shared memory (bytes)"), 12800.0);
        QCOMPARE(rows.text(2, "Grid dim"), std::string("8,32,1"));
        QVERIFY(std::isnan(rows.num(2, "Theoretical occupancy %"))); // ROCm's occ_pct:0
    }

    void occupancyColumnOnlyWhenRecorded() {
        GpuFixture f;
        f.addKernel("k", "a:Relu", 1 * us, "regs:16 shm:0 grid:1,1,1 block:32,1,1");
        auto p = f.b.finish();
        const KernelStats s = computeKernelStats(*p);
        QCOMPARE(s.table.columnIndex("Theoretical occupancy %"), -1);
        QCOMPARE(s.table.columnCount(), size_t(16));
    }

    void kernelPatternsEachMarkTensorCoreUse() {
        // One kernel name per pattern of XProf's list (kTensorCoreKernelNamePatterns in
        // xprof/utils/kernel_stats_utils.cc), then Stepscope's Hopper additions, typed out here.
        const std::vector<std::string> tensorCoreKernels = {
            "k_16816_x",
            "k_c1688_x",
            "k_conv1x1_x",
            "k_conv2d_c1_k1_x",
            "k_dgrad_1x1_stride_2x2_x",
            "k_direct_group_x",
            "k_first_layer_wgrad_kernel_x",
            "k_h1688_x",
            "k_h884_x",
            "k_hmma_x",
            "k_i16832_x",
            "k_i8816_x",
            "k_s884_x",
            "k_s1688_x",
            "k_xmma_gemm_x",
            "k_xmma_implicit_gemm_x",
            "k_xmma_sparse_conv_x",
            "k_xmma_sparse_gemm_x",
            "k_xmma_warp_specialized_implicit_gemm_x",
            "cutlass3x_sm90_tensorop_gemm_f16_x",
            "sm90_xmma_wgmma_x",
            "nvjet_hsh_128x256_x",
        };
        GpuFixture f;
        int64_t dur = 100 * us; // distinct totals keep the row order known
        for (const std::string& name : tensorCoreKernels) f.addKernel(name, "net/relu:Relu", dur--);
        f.addKernel("plain_elementwise_kernel", "net/relu:Relu", dur--);
        f.addKernel("k_h88_x", "net/relu:Relu", dur--); // a near miss of "h884"
        f.addKernel("cutlass_80_simt_sgemm_256x128_8x4_nn_align1", "net/relu:Relu", dur--);
        auto p = f.b.finish();
        const KernelStats s = computeKernelStats(*p);
        const Rows rows{s.table};
        QCOMPARE(s.table.rowCount(), tensorCoreKernels.size() + 3);
        for (size_t i = 0; i < tensorCoreKernels.size(); ++i) {
            QCOMPARE(rows.text(i, "Kernel name"), tensorCoreKernels[i]);
            QCOMPARE(rows.num(i, "Kernel uses TensorCore"), 1.0);
            // As in XProf: an op whose kernel uses Tensor Cores is eligible.
            QCOMPARE(rows.num(i, "Op is TensorCore eligible"), 1.0);
        }
        // Names of no family Stepscope knows: Unknown (empty in CSV), never "No".
        for (size_t last : {tensorCoreKernels.size(), tensorCoreKernels.size() + 1}) {
            QVERIFY(std::isnan(rows.num(last, "Kernel uses TensorCore")));
            QCOMPARE(rows.num(last, "Op is TensorCore eligible"), 0.0);
            QCOMPARE(s.table.exactText(last, rows.col("Kernel uses TensorCore")), std::string());
        }
        const size_t plain = tensorCoreKernels.size(), simt = plain + 2;
        QCOMPARE(s.table.displayText(plain, rows.col("Kernel uses TensorCore")),
                 std::string("Unknown"));
        QCOMPARE(rows.num(simt, "Kernel uses TensorCore"), 0.0); // CUTLASS SIMT: CUDA cores
        QCOMPARE(s.table.displayText(simt, rows.col("Kernel uses TensorCore")), std::string("No"));
        QCOMPARE(s.table.displayText(0, rows.col("Kernel uses TensorCore")), std::string("Yes"));
    }

    // XProf's kernel_stats_utils_test.cc (KernelDetailsXStatParser, KernelDetailsTokenizer) and
    // op_stats_to_tf_stats_test.cc: newline-separated tokens, odd tokens ignored, a missing
    // block or grid is 1,1,1. Before: only the first newline-separated token was read.
    void kernelDetailsAsXProfParsesThem() {
        const KernelDetails nl = KernelDetails::parse(
            "regs:10\nstatic_shared:128\ndynamic_shared:256\ngrid:3,2,1\nblock:32,8,4\nocc_pct:50");
        QCOMPARE(nl.registersPerThread, 10u);
        QVERIFY(nl.hasRegisters);
        QCOMPARE(nl.staticSharedBytes, 128u);
        QCOMPARE(nl.dynamicSharedBytes, 256u);
        QCOMPARE(nl.grid, (std::array<uint32_t, 3>{3, 2, 1}));
        QCOMPARE(nl.block, (std::array<uint32_t, 3>{32, 8, 4}));
        QCOMPARE(nl.occupancyPct, 50.0);
        const KernelDetails odd = KernelDetails::parse("odd grid:3,2,1");
        QCOMPARE(odd.grid, (std::array<uint32_t, 3>{3, 2, 1}));
        QCOMPARE(odd.block, (std::array<uint32_t, 3>{1, 1, 1}));
        QVERIFY(!odd.hasRegisters);
        const KernelDetails blockOnly = KernelDetails::parse("block:6,5,4 odd ");
        QCOMPARE(blockOnly.block, (std::array<uint32_t, 3>{6, 5, 4}));
        QCOMPARE(blockOnly.grid, (std::array<uint32_t, 3>{1, 1, 1}));
        const KernelDetails both = KernelDetails::parse("block:1,2,3 odd grid:4,5,6");
        QCOMPARE(both.block, (std::array<uint32_t, 3>{1, 2, 3}));
        QCOMPARE(both.grid, (std::array<uint32_t, 3>{4, 5, 6}));
        const KernelDetails shared = KernelDetails::parse("static_shared:7 dynamic_shared:8");
        QCOMPARE(shared.staticSharedBytes, 7u);
        QCOMPARE(shared.dynamicSharedBytes, 8u);
        // Not three numbers: XProf keeps 1,1,1.
        QCOMPARE(KernelDetails::parse("grid:4,5").grid, (std::array<uint32_t, 3>{1, 1, 1}));
        QCOMPARE(KernelDetails::parse("grid:4,5,6,7").grid, (std::array<uint32_t, 3>{1, 1, 1}));

        GpuFixture f;
        f.addKernel("k", "a:Relu", 2 * us,
                    "regs:32\nstatic_shared:0\ndynamic_shared:16384\n"
                    "grid:2,1,1\nblock:32,1,1\nocc_pct:100");
        f.addKernel("k2", "a:Relu", 1 * us, "regs:8");
        auto p = f.b.finish();
        const KernelStats s = computeKernelStats(*p);
        const Rows rows{s.table};
        QCOMPARE(rows.num(0, "Shared memory (bytes)"), 16384.0);
        QCOMPARE(rows.text(0, "Grid dim"), std::string("2,1,1"));
        QCOMPARE(rows.text(0, "Block dim"), std::string("32,1,1"));
        QCOMPARE(rows.num(0, "Theoretical occupancy %"), 100.0);
        // Departure from XProf, which shows a missing grid or block as 1,1,1: a kernel whose
        // profile records no launch geometry shows empty cells.
        QCOMPARE(rows.text(1, "Grid dim"), std::string());
        QCOMPARE(rows.text(1, "Block dim"), std::string());
        QCOMPARE(rows.num(1, "Registers per thread"), 8.0);
        QVERIFY(std::isnan(rows.num(1, "Shared memory (bytes)")));
    }

    void shortKernelNamesForLegends() {
        QCOMPARE(shortKernelName("void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<"
                                 "Eigen::TensorAssignOp<A, B> const, Eigen::GpuDevice>, long>("
                                 "Eigen::TensorEvaluator<X, Y>, long)"),
                 std::string("EigenMetaKernel<…>"));
        QCOMPARE(shortKernelName("volta_h884gemm_64x64_ldg8_nn"),
                 std::string("volta_h884gemm_64x64_ldg8_nn"));
        QCOMPARE(shortKernelName("void tensorflow::functor::FillPhiloxRandomKernelLaunch<"
                                 "tensorflow::random::UniformDistribution<P, Eigen::half> >("
                                 "unsigned long long const*, long long)"),
                 std::string("FillPhiloxRandomKernelLaunch<…>"));
        QCOMPARE(shortKernelName("transformer_engine::fused_attn_rocm::populate_rng_state_kernel("
                                 "long*, long const*, long) [clone .kd]"),
                 std::string("populate_rng_state_kernel [clone .kd]"));
    }

    void opEligibilityRules() {
        // Each rule, by an op name that only it matches, launching a kernel without Tensor Cores.
        const std::vector<std::string> eligible = {
            "m/conv/Conv2D",
            "m/conv/Conv2DBackpropFilter",
            "m/conv/Conv2DBackpropInput",
            "m/conv3d/Conv3D",
            "m/dw/DepthwiseConv2dNative",
            "m/dw/DepthwiseConv2dNativeBackpropFilter",
            "m/dw/DepthwiseConv2dNativeBackpropInput",
            "m/attention/BatchMatMulV2",
            "m/dense/MatMul",
            "m/dense/_FusedMatMul",
            "m/rnn/CudnnRNN",
            "m/rnn/CudnnRNNV3",
            "m/rnn/CudnnRNNForward",
            "m/rnn/CudnnRNNBackpropV3",
            "cluster/XlaDot",
            "cluster/XlaDotV2",
            "jit(f)/dot_general",
            "jit(f)/conv_general_dilated",
        };
        const std::vector<std::string> notEligible = {"m/dense/MatMul_1", "m/relu",
                                                      "m/einsum/Einsum", "MatMulHelper"};
        GpuFixture f;
        int64_t dur = 100 * us;
        // JAX op paths carry their lax primitive as the type; TensorFlow ops a TF type.
        for (const std::string& op : eligible)
            f.addKernel("plain_kernel", op + (op.starts_with("jit") ? ":" : ":Op"), dur--);
        for (const std::string& op : notEligible) f.addKernel("plain_kernel", op + ":Op", dur--);
        // Einsum: eligible only with two inputs in its equation stat.
        f.addKernel("plain_kernel", "m/einsum_2/Einsum:Einsum", dur--, kDetails, "bsd,de->bse");
        f.addKernel("plain_kernel", "m/einsum_1/Einsum:Einsum", dur--, kDetails, "abc->cba");
        f.addKernel("plain_kernel", "", dur--); // no op: never eligible
        auto p = f.b.finish();
        const KernelStats s = computeKernelStats(*p);
        const Rows rows{s.table};
        QCOMPARE(s.table.rowCount(), eligible.size() + notEligible.size() + 3);
        size_t r = 0;
        for (const std::string& op : eligible) {
            QCOMPARE(rows.text(r, "Op name"), op);
            QVERIFY2(rows.num(r, "Op is TensorCore eligible") == 1.0, op.c_str());
            QVERIFY(std::isnan(rows.num(r++, "Kernel uses TensorCore"))); // plain_kernel: unknown
        }
        for (const std::string& op : notEligible) {
            QCOMPARE(rows.text(r, "Op name"), op);
            QVERIFY2(rows.num(r++, "Op is TensorCore eligible") == 0.0, op.c_str());
        }
        QCOMPARE(rows.text(r, "Op name"), std::string("m/einsum_2/Einsum"));
        QCOMPARE(rows.num(r++, "Op is TensorCore eligible"), 1.0);
        QCOMPARE(rows.text(r, "Op name"), std::string("m/einsum_1/Einsum"));
        QCOMPARE(rows.num(r++, "Op is TensorCore eligible"), 0.0);
        QCOMPARE(rows.text(r, "Op name"), std::string());
        QCOMPARE(rows.num(r++, "Op is TensorCore eligible"), 0.0);
    }

    void eligibleOpWithAndWithoutTensorCoreKernel() {
        GpuFixture f;
        f.addKernel("volta_h884gemm_128x128_ldg8_nn", "m/dense/MatMul:MatMul", 3 * us);
        f.addKernel("volta_sgemm_128x64_nn", "m/dense/MatMul:MatMul", 2 * us);
        auto p = f.b.finish();
        const KernelStats s = computeKernelStats(*p);
        const Rows rows{s.table};
        const int tc = findKernel(rows, "volta_h884gemm_128x128_ldg8_nn", "m/dense/MatMul");
        const int noTc = findKernel(rows, "volta_sgemm_128x64_nn", "m/dense/MatMul");
        QVERIFY(tc >= 0 && noTc >= 0);
        QCOMPARE(rows.num(size_t(tc), "Op is TensorCore eligible"), 1.0);
        QCOMPARE(rows.num(size_t(tc), "Kernel uses TensorCore"), 1.0);
        QCOMPARE(rows.num(size_t(noTc), "Op is TensorCore eligible"), 1.0);
        QCOMPARE(rows.num(size_t(noTc), "Kernel uses TensorCore"), 0.0);
    }

    void amdKernelsNeverMatchNvidiaPatterns() {
        GpuFixture f("AMD");
        f.addKernel("igemm_conv1x1_h884_kernel", "m/dense/MatMul:MatMul", 3 * us);
        auto p = f.b.finish();
        const KernelStats s = computeKernelStats(*p);
        // An NVIDIA name on an AMD device says nothing: Unknown (empty), not "does not".
        QVERIFY(std::isnan(Rows{s.table}.num(0, "Kernel uses TensorCore")));
        QCOMPARE(Rows{s.table}.num(0, "Op is TensorCore eligible"), 1.0);
        QCOMPARE(kernelTensorCoreUse("igemm_conv1x1_h884_kernel", "Nvidia"), TensorCoreUse::Uses);
        QCOMPARE(kernelTensorCoreUse("sm80_xmma_gemm_f16f16_f16f32", ""), TensorCoreUse::Uses);
        QCOMPARE(kernelTensorCoreUse("sm80_xmma_gemm_f16f16_f16f32", "AMD"),
                 TensorCoreUse::Unknown);
    }

    void onlyNonDerivedDeviceLines() {
        ProfileBuilder b;
        b.setTimeBase(0);
        const uint32_t h = b.addHost("h", "");
        const uint32_t cpu = b.addPlane(h, 1, "/host:CPU");
        const uint32_t gpu = b.addPlane(h, 2, "/device:GPU:0");
        const uint32_t thread = b.addTrack(cpu, 5, "tf_gpu_private_4/5");
        const uint32_t stream = b.addTrack(gpu, 7, "Stream #7(Compute)");
        const uint32_t derived = b.addTrack(gpu, -559038734, "TensorFlow Ops");
        const uint32_t hostMeta = b.addMetadata(cpu, 1, "k", "");
        const uint32_t gpuMeta = b.addMetadata(gpu, 1, "k", "");
        for (uint32_t t : {thread, stream, derived}) {
            b.addEvent(t, 0, 2 * us, t == thread ? hostMeta : gpuMeta);
            b.addEventStat(strStat(b, "kernel_details", kDetails));
        }
        // As XProf: kernels shorter than a whole nanosecond are not counted (before: they
        // were, with a minimum of 0 µs).
        b.addEvent(stream, 5 * us, 0, gpuMeta);
        b.addEventStat(strStat(b, "kernel_details", kDetails));
        b.addEvent(stream, 5 * us + 10, 999, gpuMeta);
        b.addEventStat(strStat(b, "kernel_details", kDetails));
        b.addEvent(stream, 5 * us + 2000, 1000, gpuMeta); // exactly 1 ns: counted
        b.addEventStat(strStat(b, "kernel_details", kDetails));
        b.addEvent(stream, 6 * us, 1 * us, gpuMeta); // no kernel details: not a kernel
        auto p = b.finish();
        QVERIFY(hasKernelStats(*p));
        const KernelStats s = computeKernelStats(*p);
        QCOMPARE(s.table.rowCount(), size_t(1));
        QCOMPARE(s.kernelEvents, uint64_t(2));
        QCOMPARE(Rows{s.table}.num(0, "Min duration (µs)"), 0.001);
        QCOMPARE(Rows{s.table}.num(0, "Total duration (µs)"), 2.001);
    }

    void noKernels() {
        ProfileBuilder b;
        auto p = b.finish();
        QVERIFY(!hasKernelStats(*p));
        const KernelStats s = computeKernelStats(*p);
        QCOMPARE(s.table.rowCount(), size_t(0));
        QVERIFY(kernelTimeByName(s).empty());
    }

    void realProfilesCountEveryKernel() {
        if (!std::filesystem::exists(kRealData))
            QSKIP("../shared/realdata not found; real-profile kernel stats skipped");
        int files = 0;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(kRealData)) {
            const std::string path = entry.path().string();
            if (!path.ends_with(".xplane.pb")) continue;
            ++files;
            const LoadResult r = loadPath(path);
            QVERIFY2(r.ok(), (path + ": " + r.error).c_str());
            const Profile& p = *r.profile;
            // Counted independently with protobuf's classes: events of GPU planes outside
            // XProf's derived line ids with a kernel_details stat, at least 1 ns long.
            uint64_t expected = 0;
            for (const fixtures::ProtoEvent& e : fixtures::readProtoEvents(path)) {
                const auto id = int32_t(uint32_t(uint64_t(e.lineId)));
                const bool derived = id >= int32_t(0xdeadbeefu) && id <= int32_t(0xdeadbeefu) + 289;
                if (e.plane.starts_with("/device:GPU:") && !derived &&
                    e.text.count("kernel_details") && e.durationPs >= 1000)
                    ++expected;
            }
            const KernelStats s = computeKernelStats(p);
            uint64_t occurrences = 0;
            const Rows rows{s.table};
            for (size_t i = 0; i < s.table.rowCount(); ++i)
                occurrences += uint64_t(rows.num(i, "Occurrences"));
            QVERIFY2(occurrences == expected, path.c_str());
            QVERIFY2(expected > 0, path.c_str());
            QCOMPARE(s.longestInstance.size(), s.table.rowCount());
        }
        QVERIFY(files >= 4);
    }

    void bertV100Kernels() {
        const std::string bert = kRealData + "/tf-gpu-bert/plugins/profile/2020_12_03_bert/"
                                             "34.83.195.179_6003.xplane.pb";
        if (!std::filesystem::exists(bert)) QSKIP("../shared/realdata not found");
        const LoadResult r = loadPath(bert);
        QVERIFY2(r.ok(), r.error.c_str());
        const KernelStats s = computeKernelStats(*r.profile);
        const Rows rows{s.table};
        QCOMPARE(s.kernelEvents, uint64_t(1330)); // 665 on each of GPU:4 and GPU:6
        // The dropout RNG kernel: 38 registers, 160 blocks of 1024 threads, one launch per
        // dropout op, 97 per GPU.
        uint64_t philox = 0;
        for (size_t i = 0; i < s.table.rowCount(); ++i) {
            QCOMPARE(rows.num(i, "Kernel uses TensorCore"), 0.0); // no GEMMs in this window
            if (!rows.text(i, "Kernel name")
                     .starts_with("void tensorflow::functor::FillPhiloxRandomKernelLaunch"))
                continue;
            philox += uint64_t(rows.num(i, "Occurrences"));
            QCOMPARE(rows.num(i, "Registers per thread"), 38.0);
            QCOMPARE(rows.num(i, "Shared memory (bytes)"), 0.0);
            QCOMPARE(rows.text(i, "Grid dim"), std::string("160,1,1"));
            QCOMPARE(rows.text(i, "Block dim"), std::string("1024,1,1"));
            QVERIFY(rows.text(i, "Op name").ends_with("/random_uniform/RandomUniform"));
        }
        QCOMPARE(philox, uint64_t(194));
        QCOMPARE(s.table.columnIndex("Theoretical occupancy %"), -1); // 2020 spelling has none
    }

    void jaxRocmGemm() {
        const std::string path = kRealData + "/jax-rocm/jax08_gemm.tw003.xplane.pb";
        if (!std::filesystem::exists(path)) QSKIP("../shared/realdata not found");
        const LoadResult r = loadPath(path);
        QVERIFY2(r.ok(), r.error.c_str());
        const KernelStats s = computeKernelStats(*r.profile);
        const Rows rows{s.table};
        bool sawHipBlas = false;
        for (size_t i = 0; i < s.table.rowCount(); ++i) {
            const std::string& name = rows.text(i, "Kernel name");
            // hipBLASLt's GEMMs carry the MFMA field (MI16x16x16x1): Matrix Cores; XLA's
            // wrapped fusions are elementwise; the runtime's copy kernels say nothing by name,
            // but those that ran for the HLO copy instruction are no matrix op.
            const double expected =
                name.starts_with("Cijk_") && name.find("_MI16x16x16x1_") != std::string::npos ? 1.0
                : name.starts_with("wrapped_") || rows.text(i, "Op name") == "copy.1"
                    ? 0.0
                    : Table::missing();
            QCOMPARE(s.table.exactText(i, rows.col("Kernel uses TensorCore")),
                     std::isnan(expected) ? std::string() : std::to_string(int(expected)));
            if (name.starts_with("Cijk_")) // BBS: bf16 inputs (Tensile's type letters)
                QCOMPARE(rows.text(i, "Precision"), std::string("bf16"));
            if (!name.starts_with("Cijk_Ailk_Bljk_BBS_BH_MT128x32x64")) continue;
            sawHipBlas = true;
            QCOMPARE(rows.text(i, "Op name"), std::string("jit(dot)/dot_general"));
            QCOMPARE(rows.num(i, "Op is TensorCore eligible"), 1.0);
            QCOMPARE(rows.text(i, "Grid dim"), std::string("8,32,1"));
            QCOMPARE(rows.num(i, "Shared memory (bytes)"), 12800.0);
        }
        QVERIFY(sawHipBlas);
    }
};

QTEST_GUILESS_MAIN(TestKernelStats)
#include "test_kernel_stats.moc"
