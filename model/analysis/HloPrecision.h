#pragma once

#include <optional>
#include <string_view>

#include "model/analysis/Precision.h"
#include "model/xspace/HloProto.h"

namespace stepscope {

// Whether a custom-call target is a matrix-multiply or convolution library call of XLA:GPU
// (xla/service/gpu/cublas_cudnn.h): "__cublas$gemm", "__cublas$lt$matmul",
// "__cublas$lt$matmul$f8", the cuDNN convolutions "__cudnn$convForward",
// "__cudnn$convBackwardInput", "__cudnn$convBackwardFilter",
// "__cudnn$convBiasActivationForward", and cuDNN's fused attention ("__cudnn$fmha*", spelled
// "__cudnn$fhma*" by older XLA), which is two batched GEMMs. Not the filter reorderings
// ("__cudnn$convReorderFilter*"), which move data, nor the triangular solve.
bool isMatrixLibraryCall(std::string_view customCallTarget);

// Whether an instruction multiplies matrices: a dot (also ragged-dot) or convolution, a matrix
// library custom-call, or a fusion whose called computations (followed into nested fusions) hold
// one of those.
bool isMatrixInstruction(const HloModule& module, const HloInstruction& instruction);

// The precision an element type stands for, where it stands for one:
//   f16 -> FP16, bf16 -> BF16, f32 -> FP32, f64 -> FP64, every f8 type (f8e5m2, f8e4m3,
//   f8e4m3fn, f8e4m3fnuz, f8e4m3b11fnuz, f8e5m2fnuz, f8e3m4, f8e8m0fnu) -> FP8,
//   f4e2m1fn -> FP4, c64 -> FP32 and c128 -> FP64 (complex numbers of those parts);
//   s8/u8 -> INT8 only when `matrix` (int8 GEMMs and convolutions).
// Other integers, pred, tuples, tokens and unknown types stand for none.
std::optional<Precision> precisionOfElementType(HloElementType type, bool matrix);

// The precision an instruction computes in, from the element types the HLO records:
// - a matrix op (isMatrixInstruction): the narrowest precision among the operands of the matrix
//   operation itself: the dot's or convolution's own operands (inside a fusion, those of the
//   first dot/convolution of its fused computation, as they enter it), or a library
//   custom-call's operands. The result's type does not count (an f32 result of bf16 inputs is a
//   bf16 GEMM). Scale operands of an fp8 GEMM are f32, the narrowest input still decides.
// - any other op: the narrowest floating-point precision among its operands and its result,
//   tuple elements included (a convert from f32 to bf16 is bf16 work).
// "Narrowest" follows Precision's order (FP4 < FP8 < INT8 < FP16 < BF16 < ... < FP64).
// Precision::Unknown when no type counts (integer or predicate ops, shapes not recorded).
//
// A dot whose PrecisionConfig.algorithm is set runs that algorithm: its precision is the
// algorithm's (ALG_DOT_TF32_TF32_F32 is TF32, ALG_DOT_BF16_BF16_F32_X3 is BF16, ...). Otherwise
// TF32 is not an HLO element type: an f32 dot with default operand precision may run on
// TensorFloat-32 Tensor Cores on sm_80 and later, but the HLO cannot tell, so it says FP32;
// the kernel name (KernelFacts) may refine it.
Precision instructionPrecision(const HloModule& module, const HloInstruction& instruction);

} // namespace stepscope
