#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "model/analysis/Precision.h"

namespace stepscope {

// Whether a kernel ran on Tensor Cores (NVIDIA) or Matrix Cores (AMD MFMA/WMMA), with three
// answers: a kernel the profile cannot place is Unknown, never "does not".
enum class TensorCoreUse : uint8_t { Uses, DoesNot, Unknown };
std::string_view tensorCoreUseName(TensorCoreUse u); // "yes", "no", "unknown"
// The value of a Yes / No / Unknown table cell (a Double column of ColumnFormat::Bool): 1, 0, or
// NaN, which the table shows as "Unknown" and CSV leaves empty.
double tensorCoreCell(TensorCoreUse u);

// The TensorFlow Profiler's (XProf's) Tensor Core kernel-name patterns, kept as the first rule of
// the table below (openxla/xprof xprof/utils/kernel_stats_utils.cc kTensorCoreKernelNamePatterns,
// itself NVIDIA PyProf's pyprof/prof/tc.py list plus i16832): a name containing one uses Tensor
// Cores. They stop at Ampere; the table adds the families that came after.
inline constexpr std::array<std::string_view, 19> kTensorCoreKernelNamePatterns = {
    "16816",
    "c1688",
    "conv1x1",
    "conv2d_c1_k1",
    "dgrad_1x1_stride_2x2",
    "direct_group",
    "first_layer_wgrad_kernel",
    "h1688",
    "h884",
    "hmma",
    "i16832",
    "i8816",
    "s884",
    "s1688",
    "xmma_gemm",
    "xmma_implicit_gemm",
    "xmma_sparse_conv",
    "xmma_sparse_gemm",
    "xmma_warp_specialized_implicit_gemm",
};

// What a kernel's name (and, for the few families whose name alone cannot tell, its precision)
// says, from one table of kernel families, Volta to Blackwell and AMD. The rules, each with its
// source, are in TensorCore.cpp; the README lists them. First match wins:
//   uses     XProf's patterns above (NVIDIA); cuBLASLt nvjet_* GEMMs (wgmma kernels: Hopper and
//            Blackwell cuBLAS); CUTLASS op classes tensorop / wmma_tensorop / sptensorop /
//            bstensorop and OpClass*TensorOp (CUTLASS library.py OpcodeClass); warpgroup and
//            Blackwell MMA tokens wgmma, tcgen05; cuDNN implicit-GEMM convolutions
//            sm90_xmma_fprop_/dgrad_/wgrad_...; FlashAttention 2 and 3 (flash_fwd/flash_bwd,
//            FlashAttn...Sm90); PyTorch's mem-efficient attention fmha_cutlassF/B except fp32 on
//            sm50/70/75 (SIMT there: gemm_kernel_utils.h DefaultGemmType); Inductor's Triton
//            GEMM templates triton_tem_* when the precision is below 32 bits or tf32; AMD Tensile
//            and hipBLASLt Cijk_ kernels with an MI (MFMA instruction) field, Composable Kernel
//            xdl/xdlops and wmma, MIOpen igemm gtcx/gtcw, any mfma;
//   does not CUTLASS simt kernels and OpClassSimt; legacy SIMT GEMMs (sgemm, dgemm, scudnn);
//            cuBLAS level-1/2 kernels (gemv, dot, scal, axpy, gemmSN, splitKreduce); PyTorch's
//            own at::native:: kernels; Inductor's pointwise/reduction/foreach/scan Triton kernels
//            (triton_poi_/red_/per_/for_/spl_); XLA's loop and input fusions (loop_*, input_*,
//            wrapped_*); NCCL kernels; Eigen and TensorFlow's own kernels; Tensile Cijk_ kernels
//            without an MI field; Composable Kernel dl/dlops; MIOpen gtc/gtcm;
//   unknown  everything else (user kernels, cuDNN helpers, XLA's Triton GEMM fusions by name).
// NVIDIA rules are not applied to AMD devices nor AMD rules to NVIDIA ones; an empty vendor
// (TF 2.x-era profiles and Kineto traces without device properties) takes both.
TensorCoreUse kernelTensorCoreUse(std::string_view kernelName, std::string_view deviceVendor,
                                  Precision precision = Precision::Unknown);

// Whether an op is Tensor Core eligible, from its op NAME (not type). XProf's rule
// (IsOpTensorCoreEligible in xprof/utils/kernel_stats_utils.cc):
//   ends with   Conv2D, Conv2DBackpropFilter, Conv2DBackpropInput, Conv3D,
//               DepthwiseConv2dNative, DepthwiseConv2dNativeBackpropFilter,
//               DepthwiseConv2dNativeBackpropInput, /MatMul, FusedMatMul, /CudnnRNN, XlaDot,
//               XlaDotV2
//   contains    BatchMatMul (V2/V3 too), CudnnRNNV, CudnnRNNForward, CudnnRNNBackprop
// The list is XProf's and, as XProf says of it, not exhaustive. Stepscope adds its own rule for
// JAX/XLA op paths, which XProf's list does not cover (JAX names its ops by the lax primitive):
//   contains    dot_general, conv_general_dilated
// and, for PyTorch ops (Kineto traces), the exact names of the PyTorch TensorBoard plugin's
// TC_OP_Allowlist (aten::mm, aten::addmm, aten::bmm, aten::baddbmm, aten::matmul, aten::linear,
// aten::convolution and its variants, RNN cells, their backward ops; list in TensorCore.cpp)
// plus aten::convolution_backward, aten::scaled_dot_product_attention,
// aten::_scaled_dot_product_{flash,efficient,cudnn}_attention and aten::_scaled_mm.
bool opIsTensorCoreEligible(std::string_view opName);

// An einsum is eligible when its `equation` stat has exactly two inputs ("ab,bc->ac").
bool einsumIsTensorCoreEligible(std::string_view equation);

} // namespace stepscope
