#include "model/analysis/TensorCore.h"

namespace stepscope {

bool kernelUsesTensorCore(std::string_view kernelName, std::string_view deviceVendor) {
    if (deviceVendor == "AMD") return false;
    for (std::string_view pattern : kTensorCoreKernelNamePatterns)
        if (kernelName.find(pattern) != std::string_view::npos) return true;
    for (std::string_view pattern : kHopperTensorCoreKernelNamePatterns)
        if (kernelName.find(pattern) != std::string_view::npos) return true;
    return false;
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
        "aten::_scaled_dot_product_cudnn_attention", "aten::_scaled_mm"};
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
