#pragma once

#include <array>
#include <string_view>

namespace stepscope {

// The TensorFlow Profiler's (XProf's) public Tensor Core rules, as in its kernel-stats utilities
// (tensorflow/core/profiler/utils/kernel_stats_utils.cc, now openxla/xprof
// xprof/utils/kernel_stats_utils.cc and xprof/utils/cuda_type_utils.cc).

// A kernel uses Tensor Cores when its name contains any of these (cuBLAS/cuDNN/CUTLASS naming:
// volta_h884gemm..., turing_fp16_s1688cudnn_fp16..., sm80_xmma_gemm_...).
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

// Stepscope's extension for Hopper-era naming that XProf's list predates: CUTLASS 3 kernels
// (cutlass3x_sm90_tensorop_gemm_...), kernels named after the warpgroup MMA instruction
// (..._wgmma_...), and cuBLAS 12's nvjet_* GEMMs all run on Tensor Cores. Without these an H100
// profile would report its GEMMs as not using Tensor Cores.
inline constexpr std::array<std::string_view, 3> kHopperTensorCoreKernelNamePatterns = {
    "tensorop",
    "wgmma",
    "nvjet_",
};

// Whether a kernel uses Tensor Cores (either list above). The name patterns are NVIDIA's; as in
// current XProf they are not applied to kernels of AMD devices (device_vendor "AMD"), whose names
// follow other conventions (XProf keeps a separate Matrix Core list for them, which Stepscope does
// not have). An empty vendor (TF 2.x-era profiles do not record one) counts as NVIDIA.
bool kernelUsesTensorCore(std::string_view kernelName, std::string_view deviceVendor);

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
