// Precision and Tensor Core answers per kernel (Precision, TensorCore, KernelFacts) against a
// table of REAL kernel names, each expected value worked out by hand from the naming conventions
// in /work/notes/kernel-conventions.md (the section is named per family); the "Input type" and
// tensor-shape rules on real spellings; and two PyTorch (Kineto) traces written here by hand: a
// ROCm one whose kernels record no launch geometry, and one whose kernels take their precision
// from the launching op, except those replayed from a CUDA graph.
#include <QtTest>

#include <QTemporaryDir>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "model/Csv.h"
#include "model/ProfileLoader.h"
#include "model/analysis/KernelStats.h"
#include "model/analysis/Precision.h"
#include "model/analysis/TensorCore.h"
#include "tests/fixtures/TableRows.h"

using namespace stepscope;

Q_DECLARE_METATYPE(std::optional<stepscope::Precision>)

namespace {

using Rows = fixtures::TableRows;

// ---- real kernel names used by more than one test

// AMD Tensile (rocBLAS) bf16 GEMM with an MFMA field, from the JAX MI300X profile
// (realdata/jax-rocm/jax08_gemm.tw003.xplane.pb).
constexpr const char* kTensileBf16Mfma =
    "Cijk_Ailk_Bljk_BBS_BH_MT128x32x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_"
    "AMAS3_ASE_ASGT_ASLT_ASM_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_CLR1_DTLA0_DTLB0_DTVA1_DTVB0_DVO0_"
    "ETSP_EPS1_ELFLRn30_EMLL0_FSSC10_FL0_GLVWA2_GLVWB2_GRCGA1_GRCGB1_GRPM1_GRVWn1_GSU1_GSUASB_"
    "GLS1_ISA942_IU1_K1_KLA_LBSPPA0_LBSPPB256_LPA0_LPB16_LDL1_LRVW8_LWPMn1_LDW0_FMA_MIAV0_MDA2_"
    "MO40_MMFSC_MKFGSU256_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA1_NLCB2_ONLL1_OPLV0_PK0_PAP0_PGR2_PLR5_"
    "PKA0_SIA3_SLW1_SS1_SU0_SUM0_SUS0_SCIUI1_SPO1_SRVW0_SSO0_SVW2_SNLL0_TSGRA0_TSGRB0_TT2_32_"
    "TLDS1_UMLDSA0_UMLDSB1_U64SL1_USFGROn1_VAW1_VSn1_VW2_VWB2_VFLRP1_WSGRA0_WSGRB0_WS64_WG64_4_1_"
    "WGM8.kd";
// hipBLASLt (TensileLite) bf16 GEMM, MI field of three numbers, from the gfx950 TransformerEngine
// profile (realdata/jax-rocm/te_fused_attn.934987a2fc2f.xplane.pb).
constexpr const char* kHipBlasLtBf16 =
    "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1_CMS_SN_LDSB0_AFC0_AG1_"
    "AFEM1_AFEM1_ASEM1_CLR0_CADS0_DTLA1_DTLB1_DTVA0_DTVB0_EPS0_ELFLR0_EMLLn1_FDSI0_GRPM1_GRVWA8_"
    "GRVWB8_GSU0_GSUAMB_GLS0_ISA950_IU1_K1_LDSTI0_LBSPPA1024_LBSPPB1024_LBSPPM0_LPA16_LPB16_LPM0_"
    "LRVW8_LWPMn1_MIAV0_MIWT8_8_MO40_NTn1_NTA0_NTB0_NTC4_NTD4_NTM0_NEPBS0_NLCA1_NLCB1_ONLL1_PGR2_"
    "PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO4_SVW8_SK3_SKFTR0_SKXCCM0_SGRO0_TIN0_TLDS1_ULSGRO0_USL1_"
    "UIOFGRO0_USFGRO0_VSn1_VWA8_VWB8_WSGRA0_WSGRB0_WS64_WG32_8_1.kd";
// PyTorch's own add kernel on fp32 (the H200 gpt12 trace).
constexpr const char* kAddFloat = "void at::native::vectorized_elementwise_kernel<4, "
                                  "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> "
                                  ">(int, at::native::CUDAFunctor_add<float>, std::array<char*, "
                                  "3ul>)";
constexpr const char* kFillFloat = "void at::native::vectorized_elementwise_kernel<4, "
                                   "at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, "
                                   "at::native::FillFunctor<float>, std::array<char*, 1ul>)";
// cuBLAS's CUTLASS TF32 GEMM (an aten::mm on float tensors in realdata/kineto/sampled_rank-0).
constexpr const char* kCutlassTf32 =
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>("
    "cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4::Params)";

// A CUTLASS 2 implicit-GEMM convolution as the demangler writes it (a TF32 Conv2DBackpropFilter
// kernel of a public TensorFlow A100 profile): the op class tag OpClassTensorOp is consumed by
// the templates, and what stays in the name is MmaTensorOp / cutlass::tfloat32_t. The name is
// "void cutlass::Kernel<T >(T::Params)".
constexpr const char* kCutlassConvTemplate =
    "cutlass::conv::kernel::ImplicitGemmConvolution<cutlass::conv::threadblock::"
    "ImplicitGemmMultistage<cutlass::gemm::GemmShape<64, 64, 16>, cutlass::conv::threadblock::"
    "Conv2dWgradOutputGradientTileAccessIteratorAnalytic<cutlass::MatrixShape<64, 16>, "
    "cutlass::tfloat32_t, cutlass::transform::PitchLinearWarpRakedThreadMap<cutlass::layout::"
    "PitchLinearShape<64, 16>, 128, cutlass::layout::PitchLinearShape<8, 4>, 4> >, "
    "cutlass::transform::threadblock::RegularTileAccessIterator<cutlass::MatrixShape<64, 16>, "
    "cutlass::tfloat32_t, cutlass::layout::ColumnMajorTensorOpMultiplicandCongruous<32, 32>, 1, "
    "cutlass::transform::PitchLinearWarpRakedThreadMap<cutlass::layout::PitchLinearShape<64, 16>, "
    "128, cutlass::layout::PitchLinearShape<8, 4>, 4>, 16>, (cutlass::arch::CacheOperation::Kind)"
    "0, cutlass::conv::threadblock::Conv2dWgradActivationTileAccessIteratorAnalytic<cutlass::"
    "MatrixShape<16, 64>, cutlass::tfloat32_t, cutlass::transform::PitchLinearWarpRakedThreadMap<"
    "cutlass::layout::PitchLinearShape<64, 16>, 128, cutlass::layout::PitchLinearShape<8, 4>, 4> "
    ">, cutlass::transform::threadblock::RegularTileAccessIterator<cutlass::MatrixShape<16, 64>, "
    "cutlass::tfloat32_t, cutlass::layout::RowMajorTensorOpMultiplicandCongruous<32, 32>, 0, "
    "cutlass::transform::PitchLinearWarpRakedThreadMap<cutlass::layout::PitchLinearShape<64, 16>, "
    "128, cutlass::layout::PitchLinearShape<8, 4>, 4>, 16>, (cutlass::arch::CacheOperation::Kind)"
    "0, cutlass::gemm::threadblock::MmaPolicy<cutlass::gemm::warp::MmaTensorOp<cutlass::gemm::"
    "GemmShape<32, 32, 16>, cutlass::tfloat32_t, cutlass::layout::"
    "ColumnMajorTensorOpMultiplicandCongruous<32, 32>, cutlass::tfloat32_t, cutlass::layout::"
    "RowMajorTensorOpMultiplicandCongruous<32, 32>, float, cutlass::layout::RowMajor, "
    "cutlass::gemm::warp::MmaTensorOpPolicy<cutlass::arch::Mma<cutlass::gemm::GemmShape<16, 8, "
    "8>, 32, cutlass::tfloat32_t, cutlass::layout::RowMajor, cutlass::tfloat32_t, cutlass::layout"
    "::ColumnMajor, float, cutlass::layout::RowMajor, cutlass::arch::OpMultiplyAdd>, "
    "cutlass::MatrixShape<1, 1> >, 1, false, bool>, cutlass::MatrixShape<0, 0>, "
    "cutlass::MatrixShape<0, 0>, 1>, 10, bool>, cutlass::epilogue::threadblock::Epilogue<"
    "cutlass::gemm::GemmShape<64, 64, 16>, cutlass::gemm::warp::MmaTensorOp<cutlass::gemm::"
    "GemmShape<32, 32, 16>, cutlass::tfloat32_t, cutlass::layout::"
    "ColumnMajorTensorOpMultiplicandCongruous<32, 32>, cutlass::tfloat32_t, cutlass::layout::"
    "RowMajorTensorOpMultiplicandCongruous<32, 32>, float, cutlass::layout::RowMajor, "
    "cutlass::gemm::warp::MmaTensorOpPolicy<cutlass::arch::Mma<cutlass::gemm::GemmShape<16, 8, "
    "8>, 32, cutlass::tfloat32_t, cutlass::layout::RowMajor, cutlass::tfloat32_t, cutlass::layout"
    "::ColumnMajor, float, cutlass::layout::RowMajor, cutlass::arch::OpMultiplyAdd>, "
    "cutlass::MatrixShape<1, 1> >, 1, false, bool>, 1, cutlass::epilogue::threadblock::"
    "PredicatedTileIterator<cutlass::epilogue::threadblock::OutputTileOptimalThreadMap<cutlass::"
    "epilogue::threadblock::OutputTileShape<64, 8, 2, 1, 1>, cutlass::epilogue::threadblock::"
    "OutputTileShape<1, 4, 1, 1, 4>, 128, 4, 32>, float>, cutlass::epilogue::warp::"
    "FragmentIteratorTensorOp<cutlass::gemm::GemmShape<32, 32, 16>, cutlass::gemm::GemmShape<16, "
    "8, 8>, float, cutlass::Array<float, 4, true>, cutlass::layout::RowMajor>, cutlass::epilogue::"
    "warp::TileIteratorTensorOp<cutlass::gemm::GemmShape<32, 32, 16>, cutlass::gemm::GemmShape<"
    "16, 8, 8>, float, cutlass::layout::RowMajor>, cutlass::epilogue::threadblock::"
    "SharedLoadIterator<cutlass::epilogue::threadblock::OutputTileOptimalThreadMap<cutlass::"
    "epilogue::threadblock::OutputTileShape<64, 8, 2, 1, 1>, cutlass::epilogue::threadblock::"
    "OutputTileShape<1, 4, 1, 1, 4>, 128, 4, 32>::CompactedThreadMap, float, 16>, "
    "cutlass::epilogue::thread::LinearCombination<float, 4, float, float, (cutlass::"
    "FloatRoundStyle)2>, cutlass::MatrixShape<0, 8> >, cutlass::gemm::threadblock::"
    "GemmIdentityThreadblockSwizzle<4>, (cutlass::conv::Operator)2>";

std::string cutlassConvName() {
    const std::string t = kCutlassConvTemplate;
    return "void cutlass::Kernel<" + t + " >(" + t + "::Params)";
}

// ---- Kineto traces written here

std::shared_ptr<const Profile> loadTrace(const QTemporaryDir& dir, const std::string& name,
                                         const std::string& text) {
    const std::string path = dir.path().toStdString() + "/" + name;
    std::ofstream(path) << text;
    LoadResult r = loadPath(path);
    if (!r.ok()) qFatal("trace does not load: %s", r.error.c_str());
    return r.profile;
}

std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

// A host event (cpu_op or cuda_runtime) on pid 1, tid 1; `args` is the inside of its args object.
std::string hostEvent(const std::string& cat, const std::string& name, double ts, double dur,
                      const std::string& args) {
    std::ostringstream s;
    s << R"({"ph":"X","cat":")" << cat << R"(","name":)" << quoted(name)
      << R"(,"pid":1,"tid":1,"ts":)" << ts << R"(,"dur":)" << dur << R"(,"args":{)" << args << "}}";
    return s.str();
}

// A kernel on device 0, stream 7; `geometry` adds the launch configuration an NVIDIA trace has.
std::string kernelEvent(const std::string& name, double ts, double dur, int correlation,
                        bool geometry) {
    std::ostringstream s;
    s << R"({"ph":"X","cat":"kernel","name":)" << quoted(name) << R"(,"pid":0,"tid":7,"ts":)" << ts
      << R"(,"dur":)" << dur << R"(,"args":{"device":0,"stream":7,"correlation":)" << correlation;
    if (geometry)
        s << R"(,"registers per thread":32,"shared memory":0,"grid":[1,1,1],"block":[128,1,1])";
    s << "}}";
    return s.str();
}

std::string trace(const std::string& deviceProperties, const std::vector<std::string>& events) {
    std::string out =
        "{\"schemaVersion\":1,\"deviceProperties\":[" + deviceProperties + "],\"traceEvents\":[\n";
    for (size_t i = 0; i < events.size(); ++i) out += (i ? ",\n" : "") + events[i];
    return out + "\n],\"baseTimeNanoseconds\":1700000000000000000}\n";
}

constexpr const char* kMi250 =
    R"({"id":0,"name":"AMD Instinct MI250X / MI250","totalGlobalMem":68702699520,)"
    R"("computeMajor":9,"computeMinor":0,"numSms":104,"maxThreadsPerBlock":1024})";
constexpr const char* kH200 = R"({"id":0,"name":"NVIDIA H200","totalGlobalMem":150109880320,)"
                              R"("computeMajor":9,"computeMinor":0,"numSms":132})";

// The rows of a kernel stats table by (kernel name, op name).
std::map<std::pair<std::string, std::string>, size_t> rowsByKernelAndOp(const Table& t) {
    std::map<std::pair<std::string, std::string>, size_t> out;
    const Rows rows{t};
    for (size_t r = 0; r < t.rowCount(); ++r)
        out[{rows.text(r, "Kernel name"), rows.text(r, "Op name")}] = r;
    return out;
}

// RFC 4180 records of a CSV text (quoted fields, doubled quotes, CRLF), read here so that the
// export is checked by a reader other than the writer.
std::vector<std::vector<std::string>> parseCsv(const std::string& text) {
    std::vector<std::vector<std::string>> records(1);
    std::string field;
    bool inQuotes = false, fieldStarted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inQuotes) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                inQuotes = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            inQuotes = fieldStarted = true;
        } else if (c == ',') {
            records.back().push_back(field);
            field.clear();
        } else if (c == '\r' || c == '\n') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            records.back().push_back(field);
            field.clear();
            records.emplace_back();
        } else {
            field += c;
            fieldStarted = true;
        }
    }
    if (records.back().empty()) records.pop_back();
    return records;
}

} // namespace

class TestKernelFacts : public QObject {
    Q_OBJECT

private slots:
    // One row per real kernel name: the precision its name says and whether it ran on Tensor
    // (Matrix) Cores, both worked out by hand. `given` is the precision passed to the Tensor Core
    // rule in place of the name's (for the families whose name cannot tell).
    void realKernelNames_data() {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<QByteArray>("vendor");
        QTest::addColumn<QByteArray>("precision");
        QTest::addColumn<QByteArray>("tensorCore");
        QTest::addColumn<std::optional<Precision>>("given");
        const auto row = [](const char* tag, const std::string& name, const char* vendor,
                            const char* precision, const char* tc,
                            std::optional<Precision> given = std::nullopt) {
            QTest::newRow(tag) << QByteArray::fromStdString(name) << QByteArray(vendor)
                               << QByteArray(precision) << QByteArray(tc) << given;
        };
        // cuBLASLt nvjet (notes §1): <A/B><compute><out> letters, h fp16, t bf16, s fp32,
        // q fp8 e4m3, o fp4; a 5-letter block gives A and B apart; _tf32 marks TF32 math.
        // Every nvjet kernel is a wgmma/tcgen05 GEMM: Tensor Cores (nsys-ai PR #582).
        row("nvjet hsh (gemmsteps capture)", "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT",
            "NVIDIA", "fp16", "yes");
        row("nvjet tst (gpt12)", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", "NVIDIA", "bf16",
            "yes");
        row("nvjet tst bias (gpt12)", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT", "",
            "bf16", "yes");
        row("nvjet hss", "nvjet_sm90_hss_320x128_64x3_1x2_h_bz_coopB_NNT", "Nvidia", "fp16", "yes");
        row("nvjet qqtst (compiled, _scaled_mm e4m3)",
            "nvjet_sm90_qqtst_128x128_128x6_2x1_v_bz_coopA_algo2_TNT", "NVIDIA", "fp8", "yes");
        row("nvjet sss_tf32, no sm tag", "nvjet_sss_tf32_128x256_TNT", "NVIDIA", "tf32", "yes");
        row("nvjet sm100 ootst (NVFP4 in)",
            "nvjet_sm100_ootst_128x128_256x7_4x1_2cta_v_bx_Avec16UE4M3_Bvec16UE4M3_", "NVIDIA",
            "fp4", "yes");
        row("nvjet sm100 tst", "nvjet_sm100_tst_64x8_64x16_4x1_v_bz_TNT", "NVIDIA", "bf16", "yes");

        // CUTLASS 2 (notes §2, library.py / gemm_operation.py): tensorop = Tensor Cores, simt =
        // CUDA cores; the A type follows the MMA shape when it differs from the fp32
        // accumulator (s16816gemm_bf16), a C type differing from it comes first (f16_s16816);
        // a bare s1688gemm reads fp32 data through TF32 MMAs.
        row("CUTLASS 2 tensorop f16 (profiler.md)",
            "cutlass_tensorop_s16816gemm_f16_256x128_32x3_nn_align8", "NVIDIA", "fp16", "yes");
        row("CUTLASS 2 tensorop s16816gemm_bf16 (cuBLAS Kernel2)",
            "void cutlass::Kernel2<cutlass_80_tensorop_s16816gemm_bf16_64x64_64x6_tn_align8>(T1::"
            "Params)",
            "NVIDIA", "bf16", "yes");
        row("CUTLASS 2 f16_s16816gemm_relu_f16 (cutlass#1025)",
            "cutlass_80_tensorop_f16_s16816gemm_relu_f16_128x128_32x4_tn_align8", "NVIDIA", "fp16",
            "yes");
        row("CUTLASS 2 wmma_tensorop bf16",
            "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_"
            "align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::"
            "Params)",
            "NVIDIA", "bf16", "yes");
        row("CUTLASS 2 bare s1688gemm = tf32 (sampled_rank-0)", kCutlassTf32, "", "tf32", "yes");
        row("CUTLASS 2 simt sgemm (gemmsteps capture)",
            "cutlass_80_simt_sgemm_256x128_8x4_nn_align1", "NVIDIA", "fp32", "no");
        row("CUTLASS 2 simt sgemm (profiler.md)", "cutlass_simt_sgemm_128x128_8x2_nn_align1", "",
            "fp32", "no");
        // SIMT GEMMs whose name has no sgemm/dgemm (the CUTLASS library's fp16 and int8 ones):
        // the op class alone says CUDA cores.
        row("CUTLASS 2 simt hgemm (library name)", "cutlass_simt_hgemm_128x128_8x2_nn_align1",
            "NVIDIA", "fp16", "no");
        row("CUTLASS 2 simt igemm s8 (library name)",
            "cutlass_simt_igemm_s8_128x128_32x2_nn_align1", "NVIDIA", "int8", "no");
        row("CUTLASS 2 template, MmaTensorOp tfloat32_t", cutlassConvName(), "NVIDIA", "tf32",
            "yes");
        // CUTLASS 3 (profiler.md "CUTLASS 3.0 GEMM procedural names"): A, B, accumulator, C, D;
        // block-scaled types are <scale>x<element> (ue4m3xf4: NVFP4 data with ue4m3 scales).
        row("CUTLASS 3 sm90 tensorop f16 (profiler.md)",
            "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f32_128x128x64_2x1x1_0_ntn_align8",
            "NVIDIA", "fp16", "yes");
        row("CUTLASS 3 sm100 bstensorop NVFP4 (torch._scaled_mm on B200)",
            "cutlass3x_sm100_bstensorop_s256x128x64gemm_block_scaled_ue4m3xf4_ue4m3xf4_f32_f16_"
            "f16_256x128x256_0_tnn_align32_o_vs16_2sm_bias_f16_relu",
            "NVIDIA", "fp4", "yes");
        // (The library's own MXFP8 form; only this prefix, from a CUTLASS_LIBRARY_KERNELS filter,
        // was found in public text.)
        row("CUTLASS 3 sm100 bstensorop MXFP8 (library name prefix)",
            "cutlass3x_sm100_bstensorop_gemm_ue8m0xe4m3_ue8m0xe4m3_f32_void_bf16", "NVIDIA", "fp8",
            "yes");

        // cuDNN/cuBLAS xmma (notes §3): <A/B><C/D>_<MMA input><accumulator>_<scale>; the pass
        // (fprop/dgrad/wgrad) sits between xmma_ and implicit_gemm; all are Tensor Core kernels.
        row("cuDNN sm90 xmma fprop bf16",
            "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_"
            "warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
            "NVIDIA", "bf16", "yes");
        row("cuDNN sm80 xmma dgrad f16",
            "sm80_xmma_dgrad_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nhwc_"
            "tilesize64x64x64_"
            "stage4_warpsize1x4x1_g8_tensor16x8x16_execute_kernel__5x_cudnn",
            "NVIDIA", "fp16", "yes");
        row("cuDNN sm80 xmma wgrad f16",
            "sm80_xmma_wgrad_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nhwc_"
            "tilesize32x256x32_"
            "stage3_warpsize1x4x1_g1_tensor16x8x16_execute_kernel_cudnn_train",
            "NVIDIA", "fp16", "yes");
        row("cuDNN sm80 xmma fprop tf32 (alexnet A100)",
            "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_"
            "tilesize128x128x16_"
            "stage4_warpsize2x2x1_g1_tensor16x8x8_alignc4_execute_kernel_cudnn",
            "NVIDIA", "tf32", "yes");
        row("cuBLAS sm80 xmma gemm f32 data through tf32",
            "sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x64x16_stage6_warpsize2x2x1_"
            "tensor16x8x8",
            "NVIDIA", "tf32", "yes");
        // cuDNN's generated SDPA kernels write f16 for fp16 and bf16 alike (this one ran bf16 in
        // the gpt12 trace): precision unknown from the name; wgmma = Tensor Cores.
        row("cuDNN sdpa sm90 bprop wgmma (gpt12)",
            "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x64_1x4x1_"
            "cga1x1x1_kernel0_0",
            "NVIDIA", "unknown", "yes");
        row("cuDNN sdpa sm90 fprop wgmma (gpt12)",
            "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_"
            "cga1x1x1_kernel0_0",
            "NVIDIA", "unknown", "yes");

        // Legacy cuBLAS/cuDNN (notes §3): <arch>_<io type>_<acc><MMA shape><gemm|cudnn>;
        // s884/h884/1688/16816 are HMMA shapes (PyProf/XProf lists); sgemm/scudnn are SIMT fp32.
        row("legacy volta_fp16_s884cudnn_fp16",
            "volta_fp16_s884cudnn_fp16_256x128_ldg8_relu_f2f_exp_small_nhwc2nchw_tn_v1", "", "fp16",
            "yes");
        row("legacy ampere_bf16_s16816gemm_bf16",
            "ampere_bf16_s16816gemm_bf16_128x256_ldg8_f2f_stages_64x3_tn", "NVIDIA", "bf16", "yes");
        row("legacy ampere_s1688gemm_bf16", "ampere_s1688gemm_bf16_128x128_ldg8_stages_32x1_nt",
            "NVIDIA", "bf16", "yes");
        row("legacy volta_sgemm (df_index_resolver V100)", "volta_sgemm_128x64_nn", "", "fp32",
            "no");
        row("legacy ampere_sgemm (alexnet A100)", "ampere_sgemm_32x32_sliced1x4_tn", "NVIDIA",
            "fp32", "no");
        row("legacy maxwell_scudnn", "maxwell_scudnn_128x64_relu_small_nn", "", "fp32", "no");
        row("legacy volta_scudnn_winograd (resnet50 V100)",
            "volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", "", "fp32", "no");
        row("legacy cudnn_ampere_scudnn (alexnet A100)",
            "cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1", "NVIDIA", "fp32", "no");
        row("cuBLAS level-1 scal (sampled_rank-0)",
            "void scal_kernel<float, float, 1, false, 6, 5, 5, 3>(cublasTransposeParams<float>, "
            "float const*, float*, float const*)",
            "NVIDIA", "fp32", "no");
        row("cuBLAS splitKreduce (resnet50 V100)",
            "void splitKreduce_kernel<float, float, float, float>(cublasSplitKParams<float>, float "
            "const*, float const*, float*, float const*, float const*, float const*)",
            "", "fp32", "no");

        // FlashAttention 2 (kernel_traits.h: SM80 16x8x16 MMA atoms, elem_type a template
        // argument) and 3 (FlashAttnFwdSm90: Hopper GMMA).
        row("FlashAttention 2 (PyTorch's copy) bf16",
            "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<(int)128, (int)128, "
            "(int)64, (int)4, (bool)0, (bool)0, cutlass::bfloat16_t, Flash_kernel_traits<(int)128, "
            "(int)128, (int)64, (int)4, cutlass::bfloat16_t>>, (bool)0, (bool)1, (bool)0, (bool)0, "
            "(bool)0, (bool)1, (bool)0, (bool)0>(pytorch_flash::Flash_fwd_params)",
            "NVIDIA", "bf16", "yes");
        row("FlashAttention 3 sm90 bf16",
            "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash"
            "::CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, "
            "cute::tuple<cute::C<128>, cute::C<176>, cute::C<128> >, 128, cutlass::bfloat16_t, "
            "float, cutlass::arch::Sm90, false, false, false, false, false, false, false, false, "
            "true, true, false, false, false, cutlass::bfloat16_t, false, 1>, flash::"
            "CollectiveEpilogueFwd<cute::tuple<cute::C<128>, cute::C<128>, cute::C<176> >, "
            "cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cutlass::bfloat16_t, cutlass::arch"
            "::Sm90, 256, false, false, false, false>, flash::StaticPersistentTileScheduler<false> "
            "> > >",
            "NVIDIA", "bf16", "yes");
        // PyTorch mem-efficient attention (generate_kernels.py names, gemm_kernel_utils.h
        // DefaultGemmType): TensorOp for f16/bf16 and for f32 on sm80+; f32 below sm80 is SIMT.
        row("fmha_cutlassF bf16 sm80", "fmha_cutlassF_bf16_aligned_64x128_rf_sm80", "NVIDIA",
            "bf16", "yes");
        row("fmha_cutlassB bf16 sm80", "fmha_cutlassB_bf16_aligned_128x128_k128_sm80", "NVIDIA",
            "bf16", "yes");
        row("fmha_cutlassF f32 sm75 (SIMT)", "fmha_cutlassF_f32_aligned_64x64_rf_sm75", "NVIDIA",
            "fp32", "no");
        row("fmha_cutlassF f32 sm80 (TensorOp, fast fp32)",
            "fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float,"
            " "
            "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
            "NVIDIA", "fp32", "yes");

        // Inductor's Triton kernels (notes §7): poi/red/per are elementwise or reductions (no
        // tl.dot); tem are GEMM templates, on Tensor Cores below 32 bits and for tf32; the dtype
        // is not in the name.
        row("triton_poi (compiled)", "triton_poi_fused__to_copy_1", "NVIDIA", "unknown", "no");
        row("triton_per (compiled)", "triton_per_fused_sum_2", "NVIDIA", "unknown", "no");
        row("triton_red (compiled)", "triton_red_fused_gelu_gelu_backward_sum_view_4", "NVIDIA",
            "unknown", "no");
        row("triton_tem given bf16", "triton_tem_fused__to_copy_addmm_gelu_t_view_9", "NVIDIA",
            "unknown", "yes", Precision::BF16);
        row("triton_tem precision unknown", "triton_tem_fused__to_copy_addmm_gelu_t_view_9",
            "NVIDIA", "unknown", "unknown", Precision::Unknown);
        row("triton_tem given fp32 (allow_tf32 not recorded)",
            "triton_tem_fused__to_copy_addmm_gelu_t_view_9", "NVIDIA", "unknown", "unknown",
            Precision::FP32);

        // XLA's own emitters (fusion kinds kLoop/kInput, wrapped single ops): elementwise and
        // reductions; its Triton GEMM fusions cannot be told from the name (the HLO decides).
        row("XLA loop fusion (JAX H200)", "loop_add_fusion", "Nvidia", "unknown", "no");
        row("XLA input fusion on ROCm (gfx950)", "input_reduce_fusion.kd", "AMD", "unknown", "no");
        row("XLA wrapped op on ROCm (gfx950)", "wrapped_convert.kd", "AMD", "unknown", "no");
        row("XLA gemm fusion: name says nothing", "gemm_fusion_dot_3", "Nvidia", "unknown",
            "unknown");

        // NCCL: collectives move and reduce data on CUDA cores. A reduction's type is what it
        // adds; 8-bit integers count only for matrix ops (Precision.h), and SendRecv's int8_t is
        // plain bytes (an all-to-all of a recommendation model in sampled_rank-0).
        // Collectives compute in no precision: unknown, whatever type their name carries.
        row("NCCL AllReduce float (df_index_resolver V100)",
            "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "", "unknown", "no");
        row("NCCL AllGather, no type",
            "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)",
            "NVIDIA", "unknown", "no");
        row("NCCL SendRecv int8_t bytes (sampled_rank-0)",
            "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
            "", "unknown", "no");

        // PyTorch's own kernels (the gpt12 trace): the tensor types are template arguments; the
        // narrowest floating type wins (a bf16 kernel accumulating in float is bf16).
        row("at::native add bf16",
            "void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::"
            "BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
            "std::array<char*, 3ul>)",
            "NVIDIA", "bf16", "no");
        row("at::native add float", kAddFloat, "NVIDIA", "fp32", "no");
        row("at::native dropout bf16 with float",
            "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<c10::BFloat16, "
            "float, "
            "unsigned int, 1, 8, bool>(at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned "
            "int>, at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::"
            "TensorInfo<bool, unsigned int>, unsigned int, float, at::PhiloxCudaState)",
            "NVIDIA", "bf16", "no");
        row("at::native float to bf16 copy",
            "void at::native::vectorized_elementwise_kernel<8, at::native::bfloat16_copy_kernel_"
            "cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >(int, "
            "at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, "
            "std::array<char*, 2ul>)",
            "NVIDIA", "bf16", "no");
        row("at::native layer norm float",
            "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, "
            "false>(int, float, float const*, float const*, float const*, float*, float*, float*)",
            "NVIDIA", "fp32", "no");
        row("at::native AdamW foreach float",
            "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::"
            "(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::"
            "BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>, float>(at::native::"
            "(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::"
            "BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>, float)",
            "NVIDIA", "fp32", "no");
        row("at::cuda philox helper: nothing known",
            "at::cuda::philox::unpack_cudnn(at::PhiloxCudaState, long*, long*)", "NVIDIA",
            "unknown", "unknown");

        // AMD (notes §6): Tensile/hipBLASLt type field after the index letters (B bf16, S fp32),
        // an MI<..> field only on MFMA kernels; Composable Kernel xdl = MFMA; MIOpen igemm gtcx*
        // = xdlops, precision token in the name.
        row("Tensile BBS with MI field (MI300X)", kTensileBf16Mfma, "AMD", "bf16", "yes");
        row("hipBLASLt BBS with MI field (gfx950)", kHipBlasLtBf16, "AMD", "bf16", "yes");
        row("Tensile SB without MI field (gfx1030)",
            "Cijk_Ailk_Bljk_SB_MT32x32x8_SN_EPS0_K1_LPB4_LRVW4_PGR0_PLR0_SVW4_TT4_4_VW4_VWB4_WG8_8_"
            "4_WGM4",
            "AMD", "fp32", "no");
        row("Composable Kernel xdl fp8 (MI300 SGLang)",
            "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemmMultiD_ABScale_xdl_cshuffle_v3<"
            "ck::tensor_layout::gemm::RowMajor, ck::tensor_layout::gemm::ColumnMajor, ck::Tuple<>, "
            "ck::tensor_layout::gemm::RowMajor, ck::f8_fnuz_t, ck::f8_fnuz_t, float, float, "
            "ck::Tuple<>, unsigned short, ck::tensor_operation::element_wise::PassThrough, "
            "ck::tensor_operation::element_wise::PassThrough, ck::tensor_operation::element_wise::"
            "PassThrough, (ck::tensor_operation::device::GemmSpecialization)0, 256, 1, 128, 128, "
            "16, 128, 256, 16, 16, 16, 16, 1, 2, ck::Sequence<16, 16, 1>, ck::Sequence<1, 0, 2>, "
            "ck::Sequence<1, 0, 2>, 2, 16, 16, false, 0, ck::Sequence<16, 16, 1>, ck::Sequence<1, "
            "0, 2>, ck::Sequence<1, 0, 2>, 2, 16, 16, false, 0, 1, 2, ck::Sequence<1, 16, 1, 16>, "
            "ck::Sequence<8>, (ck::BlockGemmPipelineScheduler)0, (ck::BlockGemmPipelineVersion)0, "
            "ck::f8_fnuz_t, ck::f8_fnuz_t, ck::f8_fnuz_t, ck::f8_fnuz_t>, true, (ck::"
            "InMemoryDataOperationEnum)0, 2, (ck::TailNumber)10>",
            "AMD", "fp8", "yes");
        row("MIOpen igemm gtcx3 fp16",
            "igemm_fwd_gtcx3_nhwc_fp16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_"
            "1x4x1x64_tb1x8x2x1_1x4x1x64_gkgs",
            "AMD", "fp16", "yes");
        row("MIOpen igemm gtcx fp16",
            "igemm_fwd_gtcx_cnhwc_fp16_ex0_bt256x128x32_wt32x32x8_ws2x1_wr2x2", "AMD", "fp16",
            "yes");

        // Vendor gating: one vendor's families say nothing on the other's device (the precision
        // a name states does not depend on the device).
        row("nvjet on an AMD device", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", "AMD",
            "bf16", "unknown");
        row("CUTLASS simt on an AMD device", "cutlass_80_simt_sgemm_256x128_8x4_nn_align1", "AMD",
            "fp32", "unknown");
        row("Tensile MFMA on an NVIDIA device", kTensileBf16Mfma, "NVIDIA", "bf16", "unknown");
        row("XLA loop fusion on an AMD device", "loop_transpose_fusion.kd", "AMD", "unknown", "no");
    }

    void realKernelNames() {
        QFETCH(QByteArray, name);
        QFETCH(QByteArray, vendor);
        QFETCH(QByteArray, precision);
        QFETCH(QByteArray, tensorCore);
        QFETCH(std::optional<Precision>, given);
        const std::string_view n(name.constData(), size_t(name.size()));
        const Precision p = precisionOfKernelName(n);
        QCOMPARE(QByteArray(precisionName(p).data(), qsizetype(precisionName(p).size())),
                 precision);
        const TensorCoreUse tc = kernelTensorCoreUse(n, vendor.toStdString(), given.value_or(p));
        const std::string_view tcName = tensorCoreUseName(tc);
        QCOMPARE(QByteArray(tcName.data(), qsizetype(tcName.size())), tensorCore);
    }

    // "Input type" lists as Kineto writes them (spellings from the real traces: the H200 gpt12
    // and compiled traces, sampled_rank-0, and a trace dump quoted in notes §8).
    void inputTypesOnRealSpellings() {
        using P = Precision;
        QCOMPARE(precisionOfInputTypes(R"(["c10::BFloat16", "c10::BFloat16"])", true), P::BF16);
        // torch._scaled_mm: e4m3 operands with float scales is an fp8 GEMM (compiled trace).
        QCOMPARE(precisionOfInputTypes(R"(["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", )"
                                       R"("float", "", "", "Scalar", "Scalar"])",
                                       true),
                 P::FP8);
        // foreach ops list tensors only as TensorList: nothing known.
        QCOMPARE(precisionOfInputTypes(R"(["TensorList", "Scalar"])", false), P::Unknown);
        QCOMPARE(precisionOfInputTypes(R"(["TensorList", "TensorList", "TensorList", ""])", false),
                 P::Unknown);
        QCOMPARE(
            precisionOfInputTypes(R"(["long int", "ScalarList", "ScalarList", "Scalar"])", false),
            P::Unknown);
        // 8-bit integers count only for a matrix op (an int8 GEMM), never for a copy or a
        // collective's byte buffer (c10d::_allgather_base_ in sampled_rank-0).
        QCOMPARE(precisionOfInputTypes(R"(["signed char", "signed char", ""])", true), P::INT8);
        QCOMPARE(precisionOfInputTypes(R"(["signed char", "signed char", ""])", false), P::Unknown);
        QCOMPARE(precisionOfTorchType("signed char", false), P::Unknown);
        QCOMPARE(precisionOfTorchType("signed char", true), P::INT8);
        // The narrowest float type: a cast from float to bf16 is bf16; float with an index is fp32.
        QCOMPARE(precisionOfInputTypes(R"(["float", "c10::BFloat16", "Scalar"])", false), P::BF16);
        QCOMPARE(precisionOfInputTypes(R"(["float", "long int"])", false), P::FP32);
        QCOMPARE(precisionOfInputTypes(R"(["float", "c10::Half"])", true), P::FP16);
        QCOMPARE(precisionOfInputTypes(R"(["double", "double"])", false), P::FP64);
        QCOMPARE(precisionOfInputTypes(R"(["c10::complex<float>"])", false), P::FP32);
        QCOMPARE(precisionOfInputTypes(R"(["c10::Float4_e2m1fn_x2", "float"])", true), P::FP4);
        QCOMPARE(precisionOfInputTypes(R"(["bool", "int"])", false), P::Unknown);
        QCOMPARE(precisionOfInputTypes("[]", true), P::Unknown);
        QCOMPARE(precisionOfInputTypes("", true), P::Unknown);
    }

    // XProf's tensor-shapes stat, as TensorFlow writes it (spellings from the BERT V100 profile,
    // realdata/tf-gpu-bert): the narrowest float type named.
    void tensorShapesOnRealSpellings() {
        using P = Precision;
        QCOMPARE(precisionOfTensorShapes("(half[4,384,1024];half[])"), P::FP16);
        QCOMPARE(precisionOfTensorShapes("(half[];half[4,16,384,384])"), P::FP16);
        QCOMPARE(precisionOfTensorShapes("(float[1024,16,64])"), P::FP32);
        QCOMPARE(precisionOfTensorShapes("(int32[3])"), P::Unknown);
        QCOMPARE(precisionOfTensorShapes("(bool[4,384,1024])"), P::Unknown);
        QCOMPARE(precisionOfTensorShapes("(float[16,64];bfloat16[64])"), P::BF16);
        QCOMPARE(precisionOfTensorShapes("(double[8];float[8])"), P::FP32);
        QCOMPARE(precisionOfTensorShapes(""), P::Unknown);
    }

    // A PyTorch trace of an AMD MI250 whose kernel events carry no launch geometry (no grid,
    // block, registers or shared memory), launched with hipLaunchKernel by four ops. Kernel stats
    // keep every kernel, one row per (kernel, op), with empty geometry cells on screen and in CSV.
    void rocmKernelsWithoutGeometry() {
        QTemporaryDir dir;
        const std::string mm = "aten::mm", addmm = "aten::addmm";
        const std::string bf16 = R"("Input type":["c10::BFloat16","c10::BFloat16"])";
        const std::string f32 = R"("Input type":["float","float","Scalar"])";
        const auto corr = [](int c) { return "\"correlation\":" + std::to_string(c); };
        const std::vector<std::string> events = {
            hostEvent("cpu_op", mm, 10, 30, bf16),
            hostEvent("cuda_runtime", "hipLaunchKernel", 12, 4, corr(1)),
            hostEvent("cuda_runtime", "hipLaunchKernel", 20, 4, corr(2)),
            hostEvent("cpu_op", "aten::add", 50, 20, f32),
            hostEvent("cuda_runtime", "hipLaunchKernel", 52, 4, corr(3)),
            hostEvent("cpu_op", "aten::add_", 80, 20, f32),
            hostEvent("cuda_runtime", "hipLaunchKernel", 82, 4, corr(4)),
            hostEvent("cpu_op", addmm, 110, 20, bf16),
            hostEvent("cuda_runtime", "hipExtModuleLaunchKernel", 112, 4, corr(5)),
            kernelEvent(kTensileBf16Mfma, 30, 8, 1, false),
            kernelEvent(kTensileBf16Mfma, 40, 6, 2, false),
            kernelEvent(kAddFloat, 60, 3, 3, false),
            kernelEvent(kAddFloat, 90, 2, 4, false),
            kernelEvent(kHipBlasLtBf16, 120, 5, 5, false),
        };
        const auto p = loadTrace(dir, "rocm.pt.trace.json", trace(kMi250, events));
        const KernelStats s = computeKernelStats(*p);
        const Rows rows{s.table};
        // By hand: (Tensile, aten::mm) x2, (add, aten::add), (add, aten::add_),
        // (hipBLASLt, aten::addmm): 4 rows, 5 kernels.
        QCOMPARE(s.table.rowCount(), size_t(4));
        QCOMPARE(s.kernelEvents, uint64_t(5));
        const auto byKey = rowsByKernelAndOp(s.table);
        const std::map<std::pair<std::string, std::string>, std::pair<double, double>> expected = {
            {{kTensileBf16Mfma, mm}, {2, 14}},
            {{kAddFloat, "aten::add"}, {1, 3}},
            {{kAddFloat, "aten::add_"}, {1, 2}},
            {{kHipBlasLtBf16, addmm}, {1, 5}},
        };
        for (const auto& [key, counts] : expected) {
            QVERIFY2(byKey.count(key), (key.first.substr(0, 40) + " / " + key.second).c_str());
            const size_t r = byKey.at(key);
            QCOMPARE(rows.num(r, "Occurrences"), counts.first);
            QCOMPARE(rows.num(r, "Total duration (µs)"), counts.second);
        }
        QCOMPARE(s.table.columnIndex("Theoretical occupancy %"), -1);
        for (size_t r = 0; r < s.table.rowCount(); ++r) {
            for (const char* c :
                 {"Registers per thread", "Shared memory (bytes)", "Block dim", "Grid dim"}) {
                QVERIFY2(s.table.exactText(r, rows.col(c)).empty(), c);
                QVERIFY2(s.table.displayText(r, rows.col(c)).empty(), c);
            }
            QVERIFY(std::isnan(rows.num(r, "Registers per thread")));
            QVERIFY(std::isnan(rows.num(r, "Shared memory (bytes)")));
        }
        // MFMA GEMMs on an MI250 (gfx90a has Matrix Cores), bf16 from their ops' input types;
        // PyTorch's own add on CUDA cores, fp32.
        const size_t gemm = byKey.at({kTensileBf16Mfma, mm});
        QCOMPARE(rows.num(gemm, "Kernel uses TensorCore"), 1.0);
        QCOMPARE(rows.text(gemm, "Precision"), std::string("bf16"));
        QCOMPARE(rows.text(gemm, "Precision from"), std::string("op input types"));
        const size_t add = byKey.at({kAddFloat, "aten::add"});
        QCOMPARE(rows.num(add, "Kernel uses TensorCore"), 0.0);
        QCOMPARE(rows.text(add, "Precision"), std::string("fp32"));

        // The CSV export, read back with a reader of its own.
        std::ostringstream csv;
        writeCsv(s.table, csv);
        const auto records = parseCsv(csv.str());
        QCOMPARE(records.size(), size_t(1 + 4));
        const std::vector<std::string>& header = records[0];
        const auto column = [&](const std::string& name) {
            return size_t(std::find(header.begin(), header.end(), name) - header.begin());
        };
        for (size_t i = 1; i < records.size(); ++i) {
            QCOMPARE(records[i].size(), header.size());
            for (const char* c :
                 {"Registers per thread", "Shared memory (bytes)", "Block dim", "Grid dim"}) {
                QVERIFY2(column(c) < header.size(), c);
                QVERIFY2(records[i][column(c)].empty(), c);
            }
            QVERIFY(!records[i][column("Occurrences")].empty());
        }
    }

    // The precision of a kernel whose name says nothing comes from its op's "Input type"; a
    // kernel that the same op replays from a CUDA graph has the graph-launching op's name but
    // not its input types (those are the launch's, not the kernel's): its precision comes from
    // its own name, here unknown or fp32.
    void precisionFromTheLaunchingOp() {
        QTemporaryDir dir;
        const std::string bf16 = R"("Input type":["c10::BFloat16","c10::BFloat16"])";
        const std::string int8 = R"("Input type":["signed char","signed char"])";
        const auto corr = [](int c) { return "\"correlation\":" + std::to_string(c); };
        const std::string opaque = "opaque_kernel"; // a name that says nothing
        const std::vector<std::string> events = {
            hostEvent("cpu_op", "aten::mm", 10, 20, bf16),
            hostEvent("cuda_runtime", "cudaLaunchKernel", 12, 3, corr(1)),
            hostEvent("cpu_op", "aten::mm", 40, 20, bf16),
            hostEvent("cuda_runtime", "cudaGraphLaunch", 42, 3, corr(2)),
            // int8 counts for a matrix op (aten::mm) and not for an elementwise one.
            hostEvent("cpu_op", "aten::mm", 70, 20, int8),
            hostEvent("cuda_runtime", "cudaLaunchKernel", 72, 3, corr(3)),
            hostEvent("cpu_op", "aten::add", 100, 20, int8),
            hostEvent("cuda_runtime", "cudaLaunchKernel", 102, 3, corr(4)),
            kernelEvent(opaque, 20, 5, 1, true),
            kernelEvent(opaque, 50, 5, 2, true),
            kernelEvent(kFillFloat, 56, 2, 2, true),
            kernelEvent(opaque, 80, 5, 3, true),
            kernelEvent(opaque, 110, 5, 4, true),
        };
        const auto p = loadTrace(dir, "graph.pt.trace.json", trace(kH200, events));
        const KernelStats s = computeKernelStats(*p);
        const Rows rows{s.table};
        QCOMPARE(s.kernelEvents, uint64_t(5));
        struct Expect {
            std::string kernel, op, precision, source;
        };
        // By hand, one row each: the direct launch (bf16 from the op), the graph replays (the
        // op's name, precision from the kernel names), the int8 launches.
        const std::vector<Expect> expected = {
            {opaque, "aten::mm", "bf16", "op input types"},
            {opaque, "aten::mm", "unknown", ""},
            {kFillFloat, "aten::mm", "fp32", "kernel name"},
            {opaque, "aten::mm", "int8", "op input types"},
            {opaque, "aten::add", "unknown", ""},
        };
        QCOMPARE(s.table.rowCount(), expected.size());
        for (const Expect& e : expected) {
            bool found = false;
            for (size_t r = 0; r < s.table.rowCount(); ++r)
                found |=
                    rows.text(r, "Kernel name") == e.kernel && rows.text(r, "Op name") == e.op &&
                    rows.text(r, "Precision") == e.precision &&
                    rows.text(r, "Precision from") == e.source && rows.num(r, "Occurrences") == 1.0;
            QVERIFY2(found, (e.kernel.substr(0, 30) + " / " + e.op + " / " + e.precision).c_str());
        }
        // The opaque kernel's Tensor Core use is unknown whatever its precision; the fill kernel
        // is PyTorch's own (CUDA cores).
        for (size_t r = 0; r < s.table.rowCount(); ++r) {
            if (rows.text(r, "Kernel name") == opaque)
                QVERIFY(std::isnan(rows.num(r, "Kernel uses TensorCore")));
            else
                QCOMPARE(rows.num(r, "Kernel uses TensorCore"), 0.0);
        }
    }

    // An aten::mm on float tensors that cuBLAS ran as a TF32 Tensor Core GEMM (the CUTLASS kernel
    // of sampled_rank-0's aten::mm ["float", "float"]): its precision is TF32, as for an f32 HLO
    // dot whose kernel says tf32 (KernelFacts), not the full fp32 its inputs are stored in.
    void floatMatmulOnTf32Kernel() {
        QTemporaryDir dir;
        const std::vector<std::string> events = {
            hostEvent("cpu_op", "aten::mm", 10, 20, R"("Input type":["float","float"])"),
            hostEvent("cuda_runtime", "cudaLaunchKernel", 12, 3, "\"correlation\":1"),
            kernelEvent(kCutlassTf32, 20, 6, 1, true),
            hostEvent("cpu_op", "aten::add", 40, 20, R"("Input type":["float","float"])"),
            hostEvent("cuda_runtime", "cudaLaunchKernel", 42, 3, "\"correlation\":2"),
            kernelEvent(kAddFloat, 50, 2, 2, true),
        };
        const auto p = loadTrace(dir, "tf32.pt.trace.json", trace(kH200, events));
        const KernelStats s = computeKernelStats(*p);
        const Rows rows{s.table};
        const auto byKey = rowsByKernelAndOp(s.table);
        QCOMPARE(s.table.rowCount(), size_t(2));
        const size_t gemm = byKey.at({kCutlassTf32, "aten::mm"});
        QCOMPARE(rows.num(gemm, "Kernel uses TensorCore"), 1.0);
        QCOMPARE(rows.text(gemm, "Precision"), std::string("tf32"));
        QCOMPARE(rows.text(gemm, "Precision from"), std::string("op input types"));
        const size_t add = byKey.at({kAddFloat, "aten::add"});
        QCOMPARE(rows.text(add, "Precision"), std::string("fp32"));
        QCOMPARE(rows.text(add, "Precision from"), std::string("op input types"));
    }
};

QTEST_GUILESS_MAIN(TestKernelFacts)
#include "test_kernel_facts.moc"
