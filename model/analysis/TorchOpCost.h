#pragma once

#include <optional>
#include <string_view>

#include "model/analysis/HloCostModel.h"

namespace stepscope {

// What kind of work a PyTorch operator does, for the roofline's categories (TraceLens's
// perf-model categories, AMD-AGI/TraceLens TraceLens/PerfModel/torch_op_mapping.py).
enum class TorchOpKind : uint8_t { Gemm, Convolution, Attention, Elementwise, Reduction, Other };
std::string_view torchOpKindName(TorchOpKind kind); // "GEMM", "CONV", "SDPA", ...

// The args of one PyTorch operator call as the profiler records them with record_shapes: the
// texts of "Input Dims" ([[4096, 1024], [1024, 3072]]), "Input type" (["c10::BFloat16", ...])
// and "Concrete Inputs" (["", "", "0.1", "False"]), and the "flops" arg of with_flops=True.
struct TorchOpArgs {
    std::string_view name;
    std::string_view inputDims;
    std::string_view inputTypes;
    std::string_view concreteInputs;
    std::optional<double> flops;
};

TorchOpKind torchOpKind(std::string_view opName);

// The FLOPs and bytes of one call, by TraceLens's perf models (TraceLens/PerfModel/
// perf_model.py), rules and departures in docs/roofline.md:
// - aten::mm A[M,K] B[K,N]: 2·M·N·K FLOPs; bytes (MK + KN + MN) x A's element size.
//   aten::addmm C, A, B: 2·M·N·K + M·N (the bias add); bytes add C's elements.
//   aten::bmm / aten::baddbmm: the same per batch, times the batch. aten::_scaled_mm: as mm,
//   element size of A. aten::matmul (A[..., M, K] @ B[K, N] or batched) and aten::linear
//   (input[..., K], weight[N, K], bias[N]) where they launch kernels themselves.
// - aten::convolution / aten::_convolution / aten::cudnn_convolution (input, weight, bias,
//   stride, padding, dilation, transposed, output_padding, groups): 2 x output elements x
//   weight elements per output channel, + output elements for a bias; transposed: input
//   elements instead of output elements. Bytes: input + weight + bias + output.
// - scaled dot-product attention (aten::_scaled_dot_product_{flash,efficient,cudnn}_attention,
//   aten::_flash_attention_forward, aten::_efficient_attention_forward,
//   aten::_cudnn_attention_forward, and aten::scaled_dot_product_attention itself) on
//   q [B, Hq, Nq, d], k [B, Hkv, Nkv, d], v [B, Hkv, Nkv, dv]: 2·B·Hq·Nq·Nkv·(d + dv), halved
//   when is_causal; bytes (q + k + v + output) x q's element size. Backward (..._backward):
//   the four GEMMs of the gradient, 2·B·Hq·Nq·Nkv·(2·d + 2·dv), plus a recomputed Q·Kᵀ for the
//   flash kernels, halved when causal; bytes q, k, v, dO read and dQ, dK, dV written.
// - element-wise ops (add, sub, mul, div, relu, gelu, sigmoid, silu, copy_, ... and their
//   in-place forms): one FLOP per output element (the broadcast of the tensor inputs); bytes
//   every tensor input plus the output (the first input's element size, or the widest of two
//   tensors). Scalars ("Scalar", empty dims) move nothing.
// - reductions (sum, mean, amax, amin, max, min, norm): one FLOP per input element; bytes input
//   plus output.
// A "flops" arg, where the trace has one, replaces the FLOPs (bytes are still the model's); one
// that is no count below 2^63 (1e300, negative, NaN) makes them unknown.
// Anything else, or args the rules cannot read, is unknown (empty), never a guess; so are shapes
// no tensor has (a negative, fractional or past-int64 size, a count that does not fit in int64,
// a kernel wider than its padded input): every sum and product is checked (CheckedCount.h).
OpCost torchOpCost(const TorchOpArgs& args);

// Bytes per element of a PyTorch "Input type" entry ("float" 4, "c10::BFloat16" 2,
// "c10::Float8_e4m3fn" 1, "long int" 8, ...); 0 for non-tensors ("Scalar", "", "TensorList").
int torchElementBytes(std::string_view type);

} // namespace stepscope
