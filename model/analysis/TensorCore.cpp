#include "model/analysis/TensorCore.h"

#include <cctype>
#include <limits>

#include "model/DeviceDetails.h"
#include "model/analysis/KernelNameTokens.h"

namespace stepscope {

namespace {

bool has(std::string_view s, std::string_view what) {
    return s.find(what) != std::string_view::npos;
}

bool hasIgnoreCase(std::string_view s, std::string_view lowerWhat) {
    if (lowerWhat.size() > s.size()) return false;
    for (size_t i = 0; i + lowerWhat.size() <= s.size(); ++i) {
        size_t k = 0;
        while (k < lowerWhat.size() &&
               std::tolower(static_cast<unsigned char>(s[i + k])) == lowerWhat[k])
            ++k;
        if (k == lowerWhat.size()) return true;
    }
    return false;
}

bool hasPart(std::string_view name, std::string_view part) {
    return anyNamePart(name, [&](std::string_view p) { return p == part; });
}

// FlashAttention's kernels that do no MMA: FA2's backward preprocessing and conversions
// (flash_bwd_dot_do_o_kernel, flash_bwd_convert_dq_kernel, flash_bwd_convert_dkv_kernel,
// flash_bwd_clear_dkvaccum_kernel), its split-KV combine, FA3's FlashAttnFwdCombine and
// FlashAttnBwdPreprocess / Postprocess* (flash-attention csrc/flash_attn/src/flash_bwd_kernel.h,
// flash_fwd_kernel.h, hopper/flash_bwd_preprocess_kernel.h, flash_bwd_postprocess_kernel.h).
bool isFlashHelper(std::string_view n) {
    for (std::string_view helper : {"dot_do_o", "convert_dq", "convert_dkv", "clear_dkvaccum",
                                    "combine", "Combine", "Preprocess", "Postprocess"})
        if (has(n, helper)) return true;
    return false;
}

// NVIDIA families, Yes / No / Unknown. The SIMT tests come first: cuBLAS's and cuDNN's FFMA
// kernels are xmma kernels too (sm80_xmma_gemm_f32f32_f32f32_f32_..._ffma_...), which XProf's
// "xmma_gemm" pattern would call Tensor Core kernels.
TensorCoreUse nvidia(std::string_view n) {
    // CUTLASS OpcodeClass Simt (library.py): CUDA cores; FFMA kernels; xmma kernels whose MMA
    // input type is f32 with no tf32 (the f32f32_f32f32 type block: fp32 FMA on CUDA cores).
    if (hasIgnoreCase(n, "simt") || hasPart(n, "ffma") ||
        (has(n, "xmma") && has(n, "_f32f32_f32f32_")))
        return TensorCoreUse::DoesNot;
    // Legacy SIMT GEMMs and cuBLAS level-1/2 kernels (volta_sgemm_128x64_nn, maxwell_scudnn_...,
    // gemv2T_kernel_val, gemmSN_NN_kernel, splitKreduce_kernel, dot_kernel, scal_kernel_val,
    // axpy_kernel_val).
    const bool simtGemm = anyNamePart(n, [](std::string_view p) {
        return p.starts_with("sgemm") || p.starts_with("dgemm") || p.starts_with("scudnn") ||
               p.starts_with("gemv") || p.starts_with("gemmSN") || p.starts_with("splitKreduce");
    });
    const bool level1 = anyIdentifier(n, [](std::string_view id) {
        return id.starts_with("dot_kernel") || id.starts_with("scal_kernel") ||
               id.starts_with("axpy_kernel");
    });
    if (simtGemm || level1 || has(n, "cudnn::bn_")) return TensorCoreUse::DoesNot;
    // PyTorch's mem-efficient attention (fmha_cutlassF_<dtype>_..._sm<N>, fmha_cutlassB_...):
    // TensorOp except fp32 below sm80, which is SIMT (aten/src/ATen/native/transformers/cuda/
    // mem_eff_attention/gemm_kernel_utils.h DefaultGemmType).
    if (has(n, "fmha_cutlass")) {
        const bool fp32 = hasPart(n, "f32");
        const bool oldArch = hasPart(n, "sm50") || hasPart(n, "sm70") || hasPart(n, "sm75");
        return fp32 && oldArch ? TensorCoreUse::DoesNot : TensorCoreUse::Uses;
    }
    // FlashAttention 2 (flash_fwd_kernel / flash_bwd_dq_dk_dv_*: SM80 16x8x16 MMA atoms only,
    // Dao-AILab/flash-attention csrc/flash_attn/src/kernel_traits.h) and 3 (flash::FlashAttn*Sm90,
    // Hopper GMMA); their helpers do no MMA.
    if (has(n, "flash_fwd") || has(n, "flash_bwd") || has(n, "FlashAttn"))
        return isFlashHelper(n) ? TensorCoreUse::DoesNot : TensorCoreUse::Uses;
    for (std::string_view pattern : kTensorCoreKernelNamePatterns)
        if (has(n, pattern)) return TensorCoreUse::Uses;
    // cuBLASLt's Hopper/Blackwell GEMMs (warpgroup-MMA kernels; not in XProf's, PyProf's or the
    // PyTorch plugin's lists; nsys-ai PR #582 added them for the same reason).
    if (has(n, "nvjet")) return TensorCoreUse::Uses;
    // CUTLASS op classes (NVIDIA/cutlass python/cutlass_library/library.py OpcodeClass: TensorOp,
    // WmmaTensorOp, SparseTensorOp, BlockScaledTensorOp; names "tensorop", "wmma_tensorop",
    // "sptensorop", "bstensorop"; C++ tags cutlass::arch::OpClass...TensorOp).
    if (hasIgnoreCase(n, "tensorop")) return TensorCoreUse::Uses;
    // The MMA instructions themselves: Hopper's warpgroup MMA, Blackwell's tcgen05, the WMMA API
    // (cuDNN's generated attention kernels name them: ..._sdpa_sm90_flash_bprop_wgmma_f16_...).
    if (hasPart(n, "wgmma") || has(n, "tcgen05") || hasPart(n, "wmma")) return TensorCoreUse::Uses;
    // cuDNN's implicit-GEMM convolutions put the pass between "xmma_" and the GEMM
    // (sm90_xmma_fprop_implicit_gemm_..., sm90_xmma_dgrad_..., sm90_xmma_wgrad_...), which
    // XProf's "xmma_implicit_gemm" does not match.
    if (has(n, "xmma_fprop") || has(n, "xmma_dgrad") || has(n, "xmma_wgrad"))
        return TensorCoreUse::Uses;
    return TensorCoreUse::Unknown;
}

// AMD Matrix Core families. Tensile/hipBLASLt (ROCm/Tensile Solution.getNameMin: the MI<M>x<N>..
// field is written only when the kernel uses MFMA instructions), Composable Kernel (xdl/xdlops:
// MFMA, include/ck/utility/amd_xdlops.hpp; wmma: RDNA WMMA; dl/dlops: dot products), MIOpen's
// igemm (ROCm/MISA igemm_base.py: gtcx, gtcx2, gtcx3, gtcx35 xdlops, gtcw wmma; gtc, gtcm not).
// Tokens count as '_'-separated parts (or CK's CamelCase Xdl / Wmma / Dl in class names), never
// inside a word.
TensorCoreUse amd(std::string_view n) {
    if (n.starts_with("Cijk_")) {
        const bool mfma = anyPart(n, [](std::string_view p) {
            return p.size() > 2 && p[0] == 'M' && p[1] == 'I' && p[2] >= '0' && p[2] <= '9';
        });
        return mfma ? TensorCoreUse::Uses : TensorCoreUse::DoesNot;
    }
    const bool matrix = anyNamePart(n, [](std::string_view p) {
        return p == "xdl" || p == "xdlops" || p == "wmma" || p == "mfma" || p.starts_with("gtcx") ||
               p == "gtcw";
    });
    if (matrix || has(n, "Xdl") || has(n, "Wmma")) return TensorCoreUse::Uses;
    const bool dots = anyNamePart(n, [](std::string_view p) {
        return p == "dl" || p == "dlops" || p == "gtc" || p == "gtcm";
    });
    return dots ? TensorCoreUse::DoesNot : TensorCoreUse::Unknown;
}

// Families of either vendor.
TensorCoreUse anyVendor(std::string_view n, Precision precision) {
    // Inductor's Triton GEMM templates (triton_tem_fused_mm..., torch/_inductor/kernel/mm.py)
    // issue tl.dot, which runs on Tensor Cores for 16- and 8-bit inputs and for tf32; for fp32
    // inputs it depends on allow_tf32, which the profile does not record.
    if (n.starts_with("triton_tem_"))
        return isTensorCorePrecision(precision) ? TensorCoreUse::Uses : TensorCoreUse::Unknown;
    // PyTorch's own CUDA/HIP kernels (elementwise, reductions, normalization, indexing,
    // optimizers): its GEMMs, convolutions and attention go to vendor libraries, CUTLASS or
    // FlashAttention, whose names the vendor rules read first.
    if (has(n, "at::native::")) return TensorCoreUse::DoesNot;
    // Inductor's Triton pointwise, reduction, persistent-reduction, foreach and scan kernels
    // (torch/_inductor/codegen/triton.py names them triton_<category[:3]>_...): no tl.dot.
    for (std::string_view prefix :
         {"triton_poi_", "triton_red_", "triton_per_", "triton_for_", "triton_spl_"})
        if (n.starts_with(prefix)) return TensorCoreUse::DoesNot;
    // XLA's loop and input (reduction) fusions and wrapped single ops, named by their fusion
    // kind (loop_add_fusion, input_reduce_fusion, wrapped_convert): elementwise emitters.
    if (n.starts_with("loop_") || n.starts_with("input_") || n.starts_with("wrapped_"))
        return TensorCoreUse::DoesNot;
    // NCCL/RCCL collectives, Eigen's and TensorFlow's own kernels.
    if (n.starts_with("nccl") || has(n, "Eigen::") || has(n, "tensorflow::"))
        return TensorCoreUse::DoesNot;
    return TensorCoreUse::Unknown;
}

} // namespace

std::string_view tensorCoreUseName(TensorCoreUse u) {
    switch (u) {
    case TensorCoreUse::Uses:
        return "yes";
    case TensorCoreUse::DoesNot:
        return "no";
    case TensorCoreUse::Unknown:
        break;
    }
    return "unknown";
}

double tensorCoreCell(TensorCoreUse u) {
    return u == TensorCoreUse::Uses      ? 1.0
           : u == TensorCoreUse::DoesNot ? 0.0
                                         : std::numeric_limits<double>::quiet_NaN();
}

TensorCoreUse kernelTensorCoreUse(std::string_view name, std::string_view deviceVendor,
                                  Precision precision) {
    const GpuVendor vendor = gpuVendorOf(deviceVendor);
    if (vendor != GpuVendor::Amd)
        if (const TensorCoreUse n = nvidia(name); n != TensorCoreUse::Unknown) return n;
    if (vendor != GpuVendor::Nvidia)
        if (const TensorCoreUse a = amd(name); a != TensorCoreUse::Unknown) return a;
    return anyVendor(name, precision);
}

bool opIsTensorCoreEligible(std::string_view op) {
    static constexpr std::string_view kEndsWith[] = {
        "Conv2D",
        "Conv2DBackpropFilter",
        "Conv2DBackpropInput",
        "Conv3D",
        "DepthwiseConv2dNative",
        "DepthwiseConv2dNativeBackpropFilter",
        "DepthwiseConv2dNativeBackpropInput",
        "/MatMul",
        "FusedMatMul",
        "/CudnnRNN",
        "XlaDot",
        "XlaDotV2",
    };
    static constexpr std::string_view kContains[] = {
        "BatchMatMul",
        "CudnnRNNV",
        "CudnnRNNForward",
        "CudnnRNNBackprop",
    };
    // Stepscope's own addition for JAX/XLA op paths (not in XProf's list).
    static constexpr std::string_view kJaxContains[] = {"dot_general", "conv_general_dilated"};
    for (std::string_view s : kEndsWith)
        if (op.ends_with(s)) return true;
    for (std::string_view s : kContains)
        if (op.find(s) != std::string_view::npos) return true;
    for (std::string_view s : kJaxContains)
        if (op.find(s) != std::string_view::npos) return true;
    // PyTorch ops (Kineto traces), by exact name: the TensorBoard plugin's TC_OP_Allowlist
    // (pytorch/kineto tb_plugin/torch_tb_profiler/profiler/tensor_core.py, from autocast's fp16
    // list in aten/src/ATen/autocast_mode.cpp), plus Stepscope's additions for ops PyTorch added
    // since (the fused attention and scaled-mm ops, convolution_backward).
    static constexpr std::string_view kPyTorchExact[] = {
        "aten::_convolution", "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv_tbc",
        "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d",
        "aten::convolution", "aten::cudnn_convolution", "aten::cudnn_convolution_transpose",
        "aten::prelu", "aten::addmm", "aten::addmv", "aten::addr", "aten::matmul", "aten::mm",
        "aten::mv", "aten::linear", "aten::addbmm", "aten::baddbmm", "aten::bmm",
        "aten::chain_matmul", "aten::linalg_multi_dot", "aten::_thnn_fused_lstm_cell",
        "aten::_thnn_fused_gru_cell", "aten::lstm_cell", "aten::gru_cell", "aten::rnn_tanh_cell",
        "aten::rnn_relu_cell", "CudnnConvolutionBackward", "BmmBackward0",
        "aten::cudnn_convolution_transpose_backward", "CudnnConvolutionTransposeBackward",
        "MmBackward", "aten::cudnn_convolution_backward_weight", "aten::addmm_", "AddmvBackward",
        "MvBackward", "aten::cudnn_convolution_transpose_backward_weight",
        "aten::cudnn_convolution_transpose_backward_input", "AddmmBackward",
        "aten::cudnn_convolution_backward_input", "AddbmmBackward",
        "aten::cudnn_convolution_backward",
        // Stepscope's additions.
        "aten::convolution_backward", "aten::scaled_dot_product_attention",
        "aten::_scaled_dot_product_flash_attention",
        "aten::_scaled_dot_product_efficient_attention",
        "aten::_scaled_dot_product_cudnn_attention", "aten::_scaled_mm",
        // The ops those attention ops call, which launch the kernels.
        "aten::_cudnn_attention_forward", "aten::_cudnn_attention_backward",
        "aten::_flash_attention_forward", "aten::_flash_attention_backward",
        "aten::_efficient_attention_forward", "aten::_efficient_attention_backward",
        "aten::_scaled_dot_product_flash_attention_backward",
        "aten::_scaled_dot_product_efficient_attention_backward",
        "aten::_scaled_dot_product_cudnn_attention_backward"};
    for (std::string_view s : kPyTorchExact)
        if (op == s) return true;
    return false;
}

bool einsumIsTensorCoreEligible(std::string_view equation) {
    const size_t arrow = equation.find("->");
    if (equation.empty() || arrow == std::string_view::npos) return false;
    if (equation.find("->", arrow + 2) != std::string_view::npos) return false;
    const std::string_view inputs = equation.substr(0, arrow);
    size_t commas = 0;
    for (char c : inputs) commas += c == ',';
    return commas == 1;
}

} // namespace stepscope
