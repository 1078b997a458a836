#pragma once

#include <cstdint>
#include <string_view>

namespace stepscope {

// The numeric precision a kernel or op computes in, as far as the profile says. Ordered from the
// narrowest to the widest; Unknown sorts last and means "nothing in the profile says".
enum class Precision : uint8_t { FP4, FP8, INT8, FP16, BF16, TF32, FP32, FP64, Unknown };
inline constexpr size_t kPrecisionCount = 9;

// "fp4", "fp8", "int8", "fp16", "bf16", "tf32", "fp32", "fp64", "unknown".
std::string_view precisionName(Precision p);

// Narrower than 32 bits: what XProf's overview counts as "16-bit" device compute (fp16, bf16,
// and the 8- and 4-bit types that came after it).
inline bool isBelow32Bit(Precision p) {
    return p == Precision::FP4 || p == Precision::FP8 || p == Precision::INT8 ||
           p == Precision::FP16 || p == Precision::BF16;
}

// What Tensor Cores take: 16 bits or fewer, or tf32.
inline bool isTensorCorePrecision(Precision p) {
    return isBelow32Bit(p) || p == Precision::TF32;
}

// The narrower of two answers (Unknown only when both are).
inline Precision narrower(Precision a, Precision b) {
    return a < b ? a : b;
}

// Where a precision answer came from, best first. The first source that says anything wins.
enum class PrecisionSource : uint8_t {
    Hlo,          // the element types of the XLA HLO instruction (/host:metadata HLO protos)
    OpInputTypes, // the "Input type" of the PyTorch op that launched the kernel (Kineto)
    KernelName,   // type tokens in the kernel's name
    TensorShapes, // XProf's rule: the TensorFlow op's tensor shapes name a type
    None          // nothing said: Precision::Unknown
};
std::string_view precisionSourceName(PrecisionSource s);

// One rule for every source: the precision of a kernel or op is the NARROWEST floating-point
// type among the tensors it reads and writes (a bf16 GEMM accumulating in fp32 is bf16; a cast
// from fp32 to bf16 is bf16; an fp32 optimizer step is fp32). This is XProf's rule grown up: its
// ClassifyGpuCompute (xprof/convert/xplane_to_step_events.cc) calls any kernel whose tensor shapes
// mention "half" 16-bit. Integer tensors (indices, masks, counters) never count, except 8-bit
// integers of a matrix op (an int8 GEMM), which make it INT8.

// One entry of a PyTorch op's "Input type" list, as the profiler spells dtypes
// (c10::util::get_fully_qualified_type_name through TypeMeta::name(); GCC spellings):
// "float", "double", "c10::Half", "c10::BFloat16", "c10::Float8_e4m3fn", "c10::Float8_e5m2",
// "c10::Float8_e4m3fnuz", "c10::Float8_e5m2fnuz", "c10::Float8_e8m0fnu",
// "c10::Float4_e2m1fn_x2", "c10::complex<float>" ...; "signed char" / "unsigned char" are INT8
// when `matrixOp`. "Scalar", "ScalarList", "TensorList", "" and integer types say nothing.
Precision precisionOfTorchType(std::string_view type, bool matrixOp);
// The narrowest of the entries of an "Input type" list as Kineto writes it (a JSON array of
// strings, e.g. ["c10::BFloat16", "c10::BFloat16", "Scalar"]).
Precision precisionOfInputTypes(std::string_view jsonArray, bool matrixOp);

// What a kernel's name says (rules and sources in Precision.cpp): C++ template arguments of
// demangled names (float, c10::BFloat16, cutlass::half_t, __nv_fp8_e4m3, ...), the type letters
// of cuBLASLt's nvjet_* GEMMs, CUTLASS/cuDNN/xmma type tokens (bf16, f16, tf32, e4m3, ... and
// their run-together forms bf16bf16_bf16f32), legacy cuBLAS/cuDNN prefixes (volta_sgemm,
// ampere_fp16_..., s884), AMD Tensile/hipBLASLt type fields (Cijk_..._HHS_...), Composable Kernel
// and MIOpen tokens. C++ type words count as whole identifiers only, and short tokens (f16, f32,
// s8, int8, ...) only in the names of library kernel families. Unknown where the name names no
// type (XLA fusions, Triton kernels, most user kernels), and for collectives (nccl*, rccl*).
Precision precisionOfKernelName(std::string_view kernelName);

// XProf's tensor-shapes rule, generalised to every type word TensorFlow writes there
// ("half", "bfloat16", "float", "double", "float8_e4m3fn", ...): the narrowest.
Precision precisionOfTensorShapes(std::string_view shapes);

} // namespace stepscope
