#include "model/analysis/Precision.h"

#include "model/analysis/KernelNameTokens.h"

#include <array>
#include <utility>

namespace stepscope {

std::string_view precisionName(Precision p) {
    switch (p) {
    case Precision::FP4:
        return "fp4";
    case Precision::FP8:
        return "fp8";
    case Precision::INT8:
        return "int8";
    case Precision::FP16:
        return "fp16";
    case Precision::BF16:
        return "bf16";
    case Precision::TF32:
        return "tf32";
    case Precision::FP32:
        return "fp32";
    case Precision::FP64:
        return "fp64";
    case Precision::Unknown:
        break;
    }
    return "unknown";
}

std::string_view precisionSourceName(PrecisionSource s) {
    switch (s) {
    case PrecisionSource::Hlo:
        return "HLO element types";
    case PrecisionSource::OpInputTypes:
        return "op input types";
    case PrecisionSource::KernelName:
        return "kernel name";
    case PrecisionSource::TensorShapes:
        return "tensor shapes";
    case PrecisionSource::None:
        break;
    }
    return "none";
}

namespace {

using Rule = std::pair<std::string_view, Precision>;

template <size_t N> Precision lookup(const std::array<Rule, N>& rules, std::string_view word) {
    for (const Rule& r : rules)
        if (r.first == word) return r.second;
    return Precision::Unknown;
}

// Whole C++ type names in demangled kernel names: PyTorch (c10::), CUDA (__half, __nv_*),
// CUTLASS (cutlass::half_t ..., NVIDIA/cutlass python/cutlass_library/library.py DataTypeTag),
// Eigen (Eigen::half), Composable Kernel (ck::half_t, ck::bhalf_t, ck::f8_t, ck::bf8_t).
constexpr std::array<Rule, 35> kCppTypes = {{
    {"float", Precision::FP32},
    {"double", Precision::FP64},
    {"half", Precision::FP16},
    {"Half", Precision::FP16},
    {"__half", Precision::FP16},
    {"half2", Precision::FP16},
    {"__half2", Precision::FP16},
    {"half_t", Precision::FP16},
    {"BFloat16", Precision::BF16},
    {"bfloat16", Precision::BF16},
    {"bfloat16_t", Precision::BF16},
    {"__nv_bfloat16", Precision::BF16},
    {"__nv_bfloat162", Precision::BF16},
    {"nv_bfloat16", Precision::BF16},
    {"bhalf_t", Precision::BF16},
    {"tfloat32_t", Precision::TF32},
    {"Float8_e4m3fn", Precision::FP8},
    {"Float8_e5m2", Precision::FP8},
    {"Float8_e4m3fnuz", Precision::FP8},
    {"Float8_e5m2fnuz", Precision::FP8},
    {"float_e4m3_t", Precision::FP8},
    {"float_e5m2_t", Precision::FP8},
    {"__nv_fp8_e4m3", Precision::FP8},
    {"__nv_fp8_e5m2", Precision::FP8},
    {"type_erased_dynamic_float8_t", Precision::FP8},
    {"f8_t", Precision::FP8},
    {"bf8_t", Precision::FP8},
    {"f8_fnuz_t", Precision::FP8},
    {"bf8_fnuz_t", Precision::FP8},
    {"f8_ocp_t", Precision::FP8},
    {"bf8_ocp_t", Precision::FP8},
    {"Float4_e2m1fn_x2", Precision::FP4},
    {"float_e2m1_t", Precision::FP4},
    {"__nv_fp4_e2m1", Precision::FP4},
    {"type_erased_dynamic_float4_t", Precision::FP4},
}};
// Block-scale types (c10::Float8_e8m0fnu, cutlass::float_ue4m3_t / float_ue8m0_t) are not in the
// table: they scale the data of MX and NVFP4 GEMMs and are not the data's precision.

// Type tokens of kernel names, as '_'-separated parts: CUTLASS's DataTypeNames (library.py),
// cuDNN/xmma names (sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_...), PyTorch's
// mem-efficient attention (fmha_cutlassF_bf16_...), MIOpen's igemm (..._fp16_...), FP8 and FP4
// recipe names. These spellings name a type wherever they stand.
constexpr std::array<Rule, 15> kTypeParts = {{
    {"bf16", Precision::BF16},
    {"bfloat16", Precision::BF16}, // at::native::bfloat16_copy_kernel_cuda
    {"fp16", Precision::FP16},
    {"tf32", Precision::TF32},
    {"fp32", Precision::FP32},
    {"fp64", Precision::FP64},
    {"e4m3", Precision::FP8},
    {"e5m2", Precision::FP8},
    {"e4m3fn", Precision::FP8},
    {"fp8", Precision::FP8},
    {"mxfp8", Precision::FP8},
    {"e2m1", Precision::FP4},
    {"fp4", Precision::FP4},
    {"nvfp4", Precision::FP4},
    {"mxfp4", Precision::FP4},
}};
// Short spellings that are type tokens only in the names of library kernel families
// (cutlass_..._f16_..., sm80_xmma_gemm_..._f32, fmha_cutlassF_f32_...): in other names "f4" or
// "s8" may be anything; 8-bit integers are matrix data only there (NCCL's ..._Sum_int8_t moves
// bytes, it computes in no precision).
constexpr std::array<Rule, 8> kLibraryTypeParts = {{
    {"int8", Precision::INT8},
    {"f16", Precision::FP16},
    {"f32", Precision::FP32},
    {"f64", Precision::FP64},
    {"f8", Precision::FP8},
    {"f4", Precision::FP4},
    {"s8", Precision::INT8},
    {"u8", Precision::INT8},
}};

// Whether an identifier is a library kernel's procedural name, by its first part: CUTLASS
// (cutlass, cutlass3x), cuBLAS/cuDNN (sm<N>_xmma..., ampere_/volta_/turing_/maxwell_/hopper_...),
// PyTorch's fmha_cutlass*, MIOpen's igemm, and names of an xmma or implicit_gemm kernel.
bool isLibraryName(std::string_view identifier) {
    const std::string_view first = identifier.substr(0, identifier.find('_'));
    static constexpr std::string_view kFamilies[] = {"cutlass", "cutlass3x", "xmma",    "ampere",
                                                     "volta",   "turing",    "maxwell", "hopper",
                                                     "ada",     "igemm",     "cudnn",   "implicit"};
    for (std::string_view f : kFamilies)
        if (first == f) return true;
    if (first.starts_with("fmha_cutlass") || identifier.starts_with("fmha_cutlass")) return true;
    if (first.size() > 2 && first.starts_with("sm") && first[2] >= '0' && first[2] <= '9')
        return true;
    return identifier.find("_xmma_") != std::string_view::npos;
}

// Legacy cuBLAS/cuDNN/CUTLASS-2 tokens: SIMT GEMMs by their type letter (volta_sgemm_...,
// maxwell_scudnn_..., cutlass_80_simt_sgemm_...), and MMA instruction shapes whose letter fixes
// the data type (NVIDIA PyProf's and XProf's Tensor Core lists; CUTLASS generator.py
// MathInstruction shapes: 884 is Volta's fp16 HMMA, h.... accumulates in fp16, i.... are integer
// MMAs, d.... fp64 DMMA).
constexpr std::array<Rule, 14> kLegacyPrefixes = {{
    {"sgemm", Precision::FP32},
    {"scudnn", Precision::FP32},
    {"dgemm", Precision::FP64},
    {"hgemm", Precision::FP16},
    {"hcudnn", Precision::FP16},
    {"h884", Precision::FP16},
    {"s884", Precision::FP16},
    {"h1688", Precision::FP16},
    {"h16816", Precision::FP16},
    {"i8816", Precision::INT8},
    {"i8832", Precision::INT8},
    {"i16832", Precision::INT8},
    {"d884", Precision::FP64},
    {"d1684", Precision::FP64},
}};

// Run-together types of one part (xmma's bf16bf16, f32f32, tf32f32, e4m3bf16): the narrowest,
// or Unknown when the part is not made only of type tokens. 32-bit integer accumulators (s32,
// i32) are allowed and say nothing.
Precision runTogetherTypes(std::string_view part) {
    static constexpr std::array<Rule, 12> kTokens = {{
        {"bf16", Precision::BF16},
        {"tf32", Precision::TF32},
        {"f16", Precision::FP16},
        {"f32", Precision::FP32},
        {"f64", Precision::FP64},
        {"e4m3", Precision::FP8},
        {"e5m2", Precision::FP8},
        {"e2m1", Precision::FP4},
        {"s8", Precision::INT8},
        {"u8", Precision::INT8},
        {"s32", Precision::Unknown},
        {"i32", Precision::Unknown},
    }};
    Precision result = Precision::Unknown;
    size_t count = 0;
    while (!part.empty()) {
        bool matched = false;
        for (const Rule& t : kTokens)
            if (part.starts_with(t.first)) {
                result = narrower(result, t.second);
                part.remove_prefix(t.first.size());
                matched = true;
                ++count;
                break;
            }
        if (!matched) return Precision::Unknown;
    }
    return count >= 2 ? result : Precision::Unknown;
}

Precision nvjetLetter(char c) {
    switch (c) {
    case 'h':
        return Precision::FP16;
    case 't':
        return Precision::BF16;
    case 's':
        return Precision::FP32;
    case 'q':
        return Precision::FP8;
    case 'o':
        return Precision::FP4;
    default:
        return Precision::Unknown;
    }
}

// cuBLASLt's Hopper/Blackwell GEMMs: nvjet[_smNN]_<types>_..., where the type block is three
// letters (A/B, compute, output: hsh = fp16 in, fp32 compute, fp16 out; tst = bf16) or five (A
// and B apart: qqtst = e4m3 x e4m3 -> bf16). No public source decodes the letters; this reading
// (h fp16, t bf16, s fp32, q fp8 e4m3, o fp4) is ours, from cuBLAS calls of known types (the
// gemmsteps capture's fp16 cublasGemmEx ran as nvjet_sm90_hsh_..., torch._scaled_mm on e4m3 as
// nvjet_sm90_qqtst_...), and a _tf32 part marks TF32 math. The input letters decide.
Precision nvjetPrecision(std::string_view ident) {
    Precision result = Precision::Unknown;
    bool typesSeen = false, tf32 = false;
    anyPart(ident.substr(6), [&](std::string_view part) {
        if (part == "tf32") tf32 = true;
        if (typesSeen || part.starts_with("sm")) return false;
        if (part.size() != 3 && part.size() != 5) return false;
        for (char c : part)
            if (nvjetLetter(c) == Precision::Unknown) return false;
        typesSeen = true;
        result = nvjetLetter(part[0]);
        if (part.size() == 5) result = narrower(result, nvjetLetter(part[1]));
        return false;
    });
    return tf32 ? Precision::TF32 : result;
}

// AMD Tensile / hipBLASLt GEMMs: Cijk_<A index>_<B index>_<types>_..., whose type field starts
// with the A/B data type (ROCm/Tensile Tensile/DataType.py; hipBLASLt TensileLite
// Tensile/Common/DataType.py): H fp16, B bf16, S fp32, D fp64, X xf32 (TF32-like), I8 and 4xi8
// int8, F8/B8 (and their N forms) fp8, C/Z complex fp32/fp64.
Precision tensilePrecision(std::string_view ident) {
    Precision result = Precision::Unknown;
    size_t index = 0;
    anyPart(ident, [&](std::string_view part) {
        if (index++ == 0) return false;
        if ((part[0] == 'A' || part[0] == 'B') && part.size() > 1 && part[1] >= 'a' &&
            part[1] <= 'z')
            return false; // Alik, Bljk: the index letters of A and B
        static constexpr std::array<Rule, 10> kCodes = {{
            {"4xi8", Precision::INT8},
            {"F8", Precision::FP8},
            {"B8", Precision::FP8},
            {"I8", Precision::INT8},
            {"H", Precision::FP16},
            {"B", Precision::BF16},
            {"S", Precision::FP32},
            {"D", Precision::FP64},
            {"X", Precision::TF32},
            {"C", Precision::FP32},
        }};
        for (const Rule& r : kCodes)
            if (part.starts_with(r.first)) {
                result = r.second;
                return true;
            }
        if (part[0] == 'Z') result = Precision::FP64;
        return true;
    });
    return result;
}

} // namespace

Precision precisionOfKernelName(std::string_view name) {
    // cuDNN's generated attention kernels write "f16" for both fp16 and bf16 runs (a bf16 run of
    // the gpt12 trace is ..._wgmma_f16_...): their name cannot tell.
    if (name.find("cudnn_generated_fort_native_sdpa") != std::string_view::npos)
        return Precision::Unknown;
    // Collectives (NCCL, RCCL) move and add data of their type but compute in no precision of
    // the kind this asks about: unknown, whatever type their name carries.
    if (name.starts_with("nccl") || name.starts_with("rccl")) return Precision::Unknown;
    Precision result = Precision::Unknown;
    bool bareS1688 = false;
    anyIdentifier(name, [&](std::string_view ident) {
        // C++ type names count as whole identifiers only (c10::Half, cutlass::half_t, float):
        // "half" in rotate_half_kernel is no type.
        if (const Precision type = lookup(kCppTypes, ident); type != Precision::Unknown) {
            result = narrower(result, type);
            return false;
        }
        if (ident.starts_with("nvjet_")) {
            result = narrower(result, nvjetPrecision(ident));
            return false;
        }
        if (ident.starts_with("Cijk_")) {
            result = narrower(result, tensilePrecision(ident));
            return false;
        }
        const bool library = isLibraryName(ident);
        anyPart(ident, [&](std::string_view part) {
            // CUTLASS 3 names a block-scaled operand <scale type>x<element type> (library.py
            // extended_name_3x: ue4m3xe2m1 is NVFP4, ue8m0xe4m3 MXFP8): the data is the element.
            for (std::string_view scale : {"ue4m3x", "ue8m0x"})
                if (part.starts_with(scale)) part.remove_prefix(scale.size());
            Precision p = lookup(kTypeParts, part);
            if (p == Precision::Unknown && library) {
                p = lookup(kLibraryTypeParts, part);
                if (p == Precision::Unknown) p = runTogetherTypes(part);
                if (p == Precision::Unknown && part.find("tf32") != std::string_view::npos)
                    p = Precision::TF32; // s1688tf32gemm: fp32 data through TF32 MMAs
                if (p == Precision::Unknown)
                    for (const Rule& r : kLegacyPrefixes)
                        if (part.starts_with(r.first)) {
                            p = r.second;
                            break;
                        }
                if (part.starts_with("s1688")) bareS1688 = true;
            }
            result = narrower(result, p);
            return false;
        });
        return false;
    });
    // CUTLASS 2 writes the A type after the instruction shape when it differs from the fp32
    // accumulator (s1688gemm_f16, s16816gemm_bf16; gemm_operation.py extended_name): a 16x8x8 MMA
    // named with no type reads fp32 data, which on sm_80+ only TF32 Tensor Cores take.
    if (result == Precision::Unknown && bareS1688) return Precision::TF32;
    return result;
}

Precision precisionOfTorchType(std::string_view type, bool matrixOp) {
    static constexpr std::array<Rule, 14> kTorchTypes = {{
        {"float", Precision::FP32},
        {"double", Precision::FP64},
        {"c10::Half", Precision::FP16},
        {"c10::BFloat16", Precision::BF16},
        {"c10::Float8_e4m3fn", Precision::FP8},
        {"c10::Float8_e5m2", Precision::FP8},
        {"c10::Float8_e4m3fnuz", Precision::FP8},
        {"c10::Float8_e5m2fnuz", Precision::FP8},
        {"c10::Float4_e2m1fn_x2", Precision::FP4},
        {"c10::complex<float>", Precision::FP32},
        {"c10::complex<double>", Precision::FP64},
        {"c10::complex<c10::Half>", Precision::FP16},
        {"signed char", Precision::INT8},
        {"unsigned char", Precision::INT8},
    }};
    const Precision p = lookup(kTorchTypes, type);
    if (p == Precision::INT8 && !matrixOp) return Precision::Unknown;
    return p;
}

Precision precisionOfInputTypes(std::string_view list, bool matrixOp) {
    Precision result = Precision::Unknown;
    size_t i = 0;
    while ((i = list.find('"', i)) != std::string_view::npos) {
        const size_t end = list.find('"', i + 1);
        if (end == std::string_view::npos) break;
        result = narrower(result, precisionOfTorchType(list.substr(i + 1, end - i - 1), matrixOp));
        i = end + 1;
    }
    return result;
}

Precision precisionOfTensorShapes(std::string_view shapes) {
    // TensorFlow's DataTypeString spellings (tensorflow/core/framework/types.cc).
    static constexpr std::array<Rule, 8> kTfTypes = {{
        {"half", Precision::FP16},
        {"bfloat16", Precision::BF16},
        {"float", Precision::FP32},
        {"double", Precision::FP64},
        {"float8_e4m3fn", Precision::FP8},
        {"float8_e5m2", Precision::FP8},
        {"float8_e4m3fnuz", Precision::FP8},
        {"float8_e5m2fnuz", Precision::FP8},
    }};
    Precision result = Precision::Unknown;
    anyIdentifier(shapes, [&](std::string_view ident) {
        result = narrower(result, lookup(kTfTypes, ident));
        return false;
    });
    return result;
}

} // namespace stepscope
