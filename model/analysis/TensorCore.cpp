#include "model/analysis/TensorCore.h"

#include <cctype>
#include <limits>

namespace stepscope {

namespace {

bool has(std::string_view s, std::string_view what) {
    return s.find(what) != std::string_view::npos;
}

bool hasIgnoreCase(std::string_view s, std::string_view lowerWhat) {
    if (lowerWhat.size() > s.size()) return false;
    for (size_t i = 0; i + lowerWhat.size() <= s.size(); ++i) {
        size_t k = 0;
        while (k < lowerWhat.size()) {
            char c = s[i + k];
            if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
            if (c != lowerWhat[k]) break;
            ++k;
        }
        if (k == lowerWhat.size()) return true;
    }
    return false;
}

// Whether a '_'-separated part of the name starts with `prefix` (the part itself, not text in
// the middle of a word): "Cijk_..._MI32x32x8x1_..." has a part "MI32x32x8x1".
template <typename Pred> bool anyPart(std::string_view name, Pred&& pred) {
    size_t i = 0;
    while (i <= name.size()) {
        size_t j = name.find_first_of("_ <>(),:", i);
        if (j == std::string_view::npos) j = name.size();
        if (j > i && pred(name.substr(i, j - i))) return true;
        i = j + 1;
    }
    return false;
}

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

// NVIDIA families that run on Tensor Cores, past XProf's list.
bool nvidiaUses(std::string_view n) {
    for (std::string_view pattern : kTensorCoreKernelNamePatterns)
        if (has(n, pattern)) return true;
    // cuBLASLt's Hopper/Blackwell GEMMs (warpgroup-MMA kernels; not in XProf's, PyProf's or the
    // PyTorch plugin's lists; nsys-ai PR #582 added them for the same reason).
    if (has(n, "nvjet")) return true;
    // CUTLASS op classes (NVIDIA/cutlass python/cutlass_library/library.py OpcodeClass: TensorOp,
    // WmmaTensorOp, SparseTensorOp, BlockScaledTensorOp; names "tensorop", "wmma_tensorop",
    // "sptensorop", "bstensorop"; C++ tags cutlass::arch::OpClass...TensorOp).
    if (hasIgnoreCase(n, "tensorop")) return true;
    // The MMA instructions themselves: Hopper's warpgroup MMA, Blackwell's tcgen05, the WMMA API
    // (cuDNN's generated attention kernels name them: ..._sdpa_sm90_flash_bprop_wgmma_f16_...).
    if (has(n, "wgmma") || has(n, "tcgen05") || has(n, "wmma")) return true;
    // cuDNN's implicit-GEMM convolutions put the pass between "xmma_" and the GEMM
    // (sm90_xmma_fprop_implicit_gemm_..., sm90_xmma_dgrad_..., sm90_xmma_wgrad_...), which
    // XProf's "xmma_implicit_gemm" does not match.
    if (has(n, "xmma_fprop") || has(n, "xmma_dgrad") || has(n, "xmma_wgrad")) return true;
    // FlashAttention 2 (flash_fwd_kernel / flash_bwd_*: SM80 16x8x16 MMA atoms only,
    // Dao-AILab/flash-attention csrc/flash_attn/src/kernel_traits.h) and 3 (flash::FlashAttn*Sm90,
    // Hopper GMMA).
    if (has(n, "flash_fwd") || has(n, "flash_bwd") || has(n, "FlashAttn")) return true;
    // PyTorch's mem-efficient attention (fmha_cutlassF_<dtype>_..._sm<N>, fmha_cutlassB_...):
    // TensorOp except fp32 below sm80, which is SIMT (aten/src/ATen/native/transformers/cuda/
    // mem_eff_attention/gemm_kernel_utils.h DefaultGemmType).
    if (has(n, "fmha_cutlass")) {
        const bool fp32 = anyPart(n, [](std::string_view p) { return p == "f32"; });
        const bool oldArch = anyPart(
            n, [](std::string_view p) { return p == "sm50" || p == "sm70" || p == "sm75"; });
        return !(fp32 && oldArch);
    }
    return false;
}

bool nvidiaDoesNot(std::string_view n) {
    if (hasIgnoreCase(n, "simt")) return true; // CUTLASS OpcodeClass Simt: CUDA cores
    // Legacy SIMT GEMMs and cuBLAS level-1/2 kernels (volta_sgemm_128x64_nn, maxwell_scudnn_...,
    // gemv2T_kernel, gemmSN_NN_kernel, dot_kernel, splitKreduce_kernel).
    if (anyPart(n, [](std::string_view p) {
            return p.starts_with("sgemm") || p.starts_with("dgemm") || p.starts_with("scudnn") ||
                   p.starts_with("gemv") || p.starts_with("gemmSN") ||
                   p.starts_with("splitKreduce");
        }))
        return true;
    // Level-1 kernels by their whole identifier: "dot" alone is also a part of XLA's
    // gemm_fusion_dot_3, a Tensor Core GEMM.
    size_t i = 0;
    while (i < n.size()) {
        const size_t begin = i;
        while (i < n.size() && (std::isalnum(static_cast<unsigned char>(n[i])) || n[i] == '_')) ++i;
        const std::string_view ident = n.substr(begin, i - begin);
        if (ident == "dot_kernel" || ident == "scal_kernel" || ident == "axpy_kernel") return true;
        if (i == begin) ++i;
    }
    return has(n, "cudnn::bn_"); // cuDNN batch norm
}

// Families of either vendor.
TensorCoreUse anyVendor(std::string_view n, Precision precision) {
    // Inductor's Triton GEMM templates (triton_tem_fused_mm..., torch/_inductor/kernel/mm.py)
    // issue tl.dot, which runs on Tensor Cores for 16- and 8-bit inputs and for tf32; for fp32
    // inputs it depends on allow_tf32, which the profile does not record.
    if (n.starts_with("triton_tem_"))
        return isBelow32Bit(precision) || precision == Precision::TF32 ? TensorCoreUse::Uses
                                                                       : TensorCoreUse::Unknown;
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

// AMD Matrix Core families. Tensile/hipBLASLt (ROCm/Tensile Solution.getNameMin: the MI<M>x<N>..
// field is written only when the kernel uses MFMA instructions), Composable Kernel (xdl/xdlops:
// MFMA, include/ck/utility/amd_xdlops.hpp; wmma: RDNA WMMA; dl/dlops: dot products), MIOpen's
// igemm (ROCm/MISA igemm_base.py: gtcx, gtcx2, gtcx3, gtcx35 xdlops, gtcw wmma; gtc, gtcm not).
TensorCoreUse amd(std::string_view n) {
    if (n.starts_with("Cijk_")) {
        const bool mfma = anyPart(n, [](std::string_view p) {
            return p.size() > 2 && p[0] == 'M' && p[1] == 'I' && isDigit(p[2]);
        });
        return mfma ? TensorCoreUse::Uses : TensorCoreUse::DoesNot;
    }
    if (hasIgnoreCase(n, "mfma") || has(n, "xdl") || has(n, "wmma") ||
        anyPart(n, [](std::string_view p) { return p.starts_with("gtcx") || p == "gtcw"; }))
        return TensorCoreUse::Uses;
    if (anyPart(n, [](std::string_view p) {
            return p == "dl" || p == "dlops" || p == "gtc" || p == "gtcm";
        }))
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

TensorCoreUse kernelTensorCoreUse(std::string_view name, std::string_view vendor,
                                  Precision precision) {
    const bool isAmd = hasIgnoreCase(vendor, "amd");
    const bool isNvidia = hasIgnoreCase(vendor, "nvidia");
    if (!isNvidia) {
        const TensorCoreUse a = amd(name);
        if (a != TensorCoreUse::Unknown) return a;
    }
    if (!isAmd) {
        if (nvidiaUses(name)) return TensorCoreUse::Uses;
        if (nvidiaDoesNot(name)) return TensorCoreUse::DoesNot;
    }
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
