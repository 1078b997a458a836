#include "model/analysis/TorchOpCost.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <simdjson.h>
#include <string>
#include <vector>

namespace stepscope {

namespace {

using Dims = std::vector<int64_t>;

// One recorded argument: its dims (empty for a scalar or non-tensor), its type and its concrete
// value's text.
struct Arg {
    Dims dims;
    bool tensor = false; // an "Input Dims" entry that is a list of sizes with a tensor type
    std::string type;
    std::string value;
};

// Parses the three parallel JSON arrays; false when "Input Dims" is not a JSON array.
bool readArgs(const TorchOpArgs& a, std::vector<Arg>& out) {
    simdjson::dom::parser parser;
    simdjson::dom::array dims;
    const simdjson::padded_string dimsText(a.inputDims);
    if (parser.parse(dimsText).get(dims)) return false;
    for (simdjson::dom::element entry : dims) {
        Arg arg;
        simdjson::dom::array sizes;
        if (!entry.get(sizes)) {
            arg.tensor = true;
            for (simdjson::dom::element s : sizes) {
                int64_t n = 0;
                if (s.get(n)) { // a nested list (TensorList): not one tensor
                    arg.tensor = false;
                    arg.dims.clear();
                    break;
                }
                arg.dims.push_back(n);
            }
        }
        out.push_back(std::move(arg));
    }
    const auto strings = [&](std::string_view text, auto member) {
        if (text.empty()) return;
        simdjson::dom::parser p;
        const simdjson::padded_string padded(text);
        simdjson::dom::array values;
        if (p.parse(padded).get(values)) return;
        size_t i = 0;
        for (simdjson::dom::element v : values) {
            std::string_view s;
            if (i < out.size() && !v.get(s)) out[i].*member = std::string(s);
            ++i;
        }
    };
    strings(a.inputTypes, &Arg::type);
    strings(a.concreteInputs, &Arg::value);
    // An empty size list is a tensor only when its type is one (a 0-d tensor); "Scalar" and the
    // like are not.
    for (Arg& arg : out)
        if (arg.tensor && arg.dims.empty() && torchElementBytes(arg.type) == 0) arg.tensor = false;
    return true;
}

int64_t elements(const Dims& d) {
    int64_t n = 1;
    for (int64_t v : d) n *= v;
    return n;
}

// The elements of all but the last `inner` dimensions.
int64_t leading(const Dims& d, size_t inner) {
    return elements(Dims(d.begin(), d.end() - ptrdiff_t(std::min(inner, d.size()))));
}

bool isTrue(const std::vector<Arg>& args, size_t i) {
    if (i >= args.size()) return false;
    std::string v = args[i].value;
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    return v == "true";
}

// A list of ints as the profiler writes it in "Concrete Inputs": "[1, 1]" or "1".
Dims intList(const std::vector<Arg>& args, size_t i) {
    Dims out;
    if (i >= args.size()) return out;
    int64_t n = 0;
    bool inNumber = false;
    for (char c : args[i].value) {
        if (c >= '0' && c <= '9') {
            n = n * 10 + (c - '0');
            inNumber = true;
        } else if (inNumber) {
            out.push_back(n);
            n = 0;
            inNumber = false;
        }
    }
    if (inNumber) out.push_back(n);
    return out;
}

int64_t at(const Dims& d, size_t i, int64_t fallback = 1) {
    return i < d.size() ? d[i] : fallback;
}

OpCost gemm(int64_t batch, int64_t m, int64_t n, int64_t k, int64_t biasElements, int bpe) {
    OpCost c;
    c.flops = batch * (2 * m * n * k) + (biasElements > 0 ? batch * m * n : 0);
    if (bpe > 0) c.bytes = (batch * (m * k + k * n + m * n) + biasElements) * bpe;
    return c;
}

std::optional<OpCost> matrixCost(std::string_view name, const std::vector<Arg>& a) {
    const auto is2d = [&](size_t i) {
        return i < a.size() && a[i].tensor && a[i].dims.size() == 2;
    };
    const auto is3d = [&](size_t i) {
        return i < a.size() && a[i].tensor && a[i].dims.size() == 3;
    };
    if ((name == "aten::mm" || name == "aten::_scaled_mm") && is2d(0) && is2d(1))
        return gemm(1, a[0].dims[0], a[1].dims[1], a[0].dims[1], 0, torchElementBytes(a[0].type));
    if (name == "aten::addmm" && is2d(1) && is2d(2))
        return gemm(1, a[1].dims[0], a[2].dims[1], a[1].dims[1],
                    std::max<int64_t>(1, elements(a[0].dims)), torchElementBytes(a[1].type));
    if (name == "aten::bmm" && is3d(0) && is3d(1))
        return gemm(a[0].dims[0], a[0].dims[1], a[1].dims[2], a[0].dims[2], 0,
                    torchElementBytes(a[0].type));
    if (name == "aten::baddbmm" && is3d(1) && is3d(2))
        return gemm(a[1].dims[0], a[1].dims[1], a[2].dims[2], a[1].dims[2],
                    std::max<int64_t>(1, elements(a[0].dims)), torchElementBytes(a[1].type));
    if (name == "aten::matmul" && a.size() >= 2 && a[0].tensor && a[1].tensor &&
        a[0].dims.size() >= 2 && a[1].dims.size() >= 2) {
        const Dims& x = a[0].dims;
        const Dims& w = a[1].dims;
        const int64_t k = x.back(), n = w.back(), m = x[x.size() - 2];
        // Batch: the broadcast of the leading dims; a 2-d rhs folds the lhs's leading dims
        // into M (one GEMM), as PyTorch does. Products, not quotients: a dimension can be 0
        // (an expert of a mixture of experts that got no tokens).
        if (w.size() == 2) return gemm(1, leading(x, 1), n, k, 0, torchElementBytes(a[0].type));
        const int64_t batch = std::max(leading(x, 2), leading(w, 2));
        return gemm(batch, m, n, k, 0, torchElementBytes(a[0].type));
    }
    if (name == "aten::linear" && a.size() >= 2 && a[0].tensor && is2d(1) && !a[0].dims.empty()) {
        const int64_t k = a[0].dims.back();
        const bool bias = a.size() >= 3 && a[2].tensor && !a[2].dims.empty();
        return gemm(1, leading(a[0].dims, 1), a[1].dims[0], k, bias ? elements(a[2].dims) : 0,
                    torchElementBytes(a[0].type));
    }
    return std::nullopt;
}

std::optional<OpCost> convolutionCost(std::string_view name, const std::vector<Arg>& a) {
    if (name != "aten::convolution" && name != "aten::_convolution" &&
        name != "aten::cudnn_convolution")
        return std::nullopt;
    if (a.size() < 2 || !a[0].tensor || !a[1].tensor || a[0].dims.size() < 3 ||
        a[0].dims.size() != a[1].dims.size())
        return OpCost{};
    // aten::convolution(input, weight, bias, stride, padding, dilation, transposed,
    // output_padding, groups); aten::cudnn_convolution(input, weight, padding, stride,
    // dilation, groups, benchmark, deterministic, allow_tf32) has no bias.
    const bool cudnn = name == "aten::cudnn_convolution";
    const Dims& x = a[0].dims;
    const Dims& w = a[1].dims;
    const size_t spatial = x.size() - 2;
    const Dims stride = intList(a, 3), padding = intList(a, cudnn ? 2 : 4),
               dilation = intList(a, cudnn ? 4 : 5);
    const bool transposed = !cudnn && isTrue(a, 6);
    const Dims outputPadding = transposed ? intList(a, 7) : Dims{};
    const bool bias = !cudnn && a.size() > 2 && a[2].tensor && !a[2].dims.empty();
    // PyTorch repeats a single value for every spatial dimension.
    const auto nth = [](const Dims& d, size_t i, int64_t fallback) {
        return d.empty() ? fallback : d.size() == 1 ? d[0] : at(d, i, fallback);
    };
    Dims out{x[0], transposed ? w[1] * std::max<int64_t>(1, nth(intList(a, 8), 0, 1)) : w[0]};
    for (size_t s = 0; s < spatial; ++s) {
        const int64_t in = x[2 + s], kernel = w[2 + s], st = nth(stride, s, 1),
                      pad = nth(padding, s, 0), dil = nth(dilation, s, 1);
        if (st < 1) return OpCost{}; // no convolution has one; the output size divides by it
        out.push_back(transposed ? (in - 1) * st - 2 * pad + dil * (kernel - 1) +
                                       nth(outputPadding, s, 0) + 1
                                 : (in + 2 * pad - dil * (kernel - 1) - 1) / st + 1);
    }
    int64_t perElement = 1;
    for (size_t i = 1; i < w.size(); ++i) perElement *= w[i];
    OpCost c;
    c.flops =
        2 * perElement * (transposed ? elements(x) : elements(out)) + (bias ? elements(out) : 0);
    const int bpe = torchElementBytes(a[0].type);
    if (bpe > 0)
        c.bytes = (elements(x) + elements(w) + (bias ? out[1] : 0) + elements(out)) * int64_t(bpe);
    return c;
}

struct AttentionForm {
    std::string_view name;
    size_t query;  // index of q; k and v follow
    size_t causal; // index of is_causal (or of custom_mask_type: maskType) in Concrete Inputs
    bool backward;
    bool flash;    // the backward recomputes Q·Kᵀ (FlashAttention)
    bool maskType; // causal is an int mask type: 0 none, 1 and 2 causal
};
// Argument positions from the ops' schemas (aten/src/ATen/native/native_functions.yaml).
constexpr std::array<AttentionForm, 12> kAttention = {{
    {"aten::scaled_dot_product_attention", 0, 5, false, false, false},
    {"aten::_scaled_dot_product_flash_attention", 0, 4, false, false, false},
    {"aten::_scaled_dot_product_efficient_attention", 0, 6, false, false, false},
    {"aten::_scaled_dot_product_cudnn_attention", 0, 6, false, false, false},
    {"aten::_flash_attention_forward", 0, 8, false, false, false},
    {"aten::_efficient_attention_forward", 0, 9, false, false, true},
    {"aten::_cudnn_attention_forward", 0, 10, false, false, false},
    {"aten::_scaled_dot_product_flash_attention_backward", 1, 11, true, true, false},
    {"aten::_scaled_dot_product_efficient_attention_backward", 1, 11, true, false, false},
    {"aten::_scaled_dot_product_cudnn_attention_backward", 1, 14, true, false, false},
    {"aten::_flash_attention_backward", 1, 11, true, true, false},
    {"aten::_cudnn_attention_backward", 1, 14, true, false, false},
}};

std::optional<OpCost> attentionCost(std::string_view name, const std::vector<Arg>& a) {
    const auto form = std::find_if(kAttention.begin(), kAttention.end(),
                                   [&](const AttentionForm& f) { return f.name == name; });
    if (form == kAttention.end()) return std::nullopt;
    const size_t q = form->query;
    if (a.size() < q + 3) return OpCost{};
    for (size_t i = q; i < q + 3; ++i)
        if (!a[i].tensor || a[i].dims.size() != 4) return OpCost{};
    // [B, H, N, d] (SDPA's layout; the _flash/_efficient/_cudnn_attention_* kernels' inputs are
    // [B, N, H, d]).
    const bool bnhd = name.starts_with("aten::_flash_attention") ||
                      name.starts_with("aten::_efficient_attention");
    const auto dim = [&](size_t i, int which) -> int64_t { // which: 0 B, 1 H, 2 N, 3 d
        const Dims& d = a[i].dims;
        static constexpr int bhnd[4] = {0, 1, 2, 3}, bnhdOrder[4] = {0, 2, 1, 3};
        return d[size_t(bnhd ? bnhdOrder[which] : bhnd[which])];
    };
    const int64_t batch = dim(q, 0), hq = dim(q, 1), nq = dim(q, 2), d = dim(q, 3);
    const int64_t hkv = dim(q + 1, 1), nkv = dim(q + 1, 2), dv = dim(q + 2, 3);
    const bool causal = form->maskType ? (intList(a, form->causal) == Dims{1} ||
                                          intList(a, form->causal) == Dims{2})
                                       : isTrue(a, form->causal);
    const int64_t qk = 2 * batch * hq * nq * nkv * d, pv = 2 * batch * hq * nq * nkv * dv;
    const int64_t qElems = batch * hq * nq * d, kElems = batch * hkv * nkv * d,
                  vElems = batch * hkv * nkv * dv, oElems = batch * hq * nq * dv;
    OpCost c;
    int64_t flops = 0, elementsMoved = 0;
    if (!form->backward) {
        flops = qk + pv;
        elementsMoved = qElems + kElems + vElems + oElems;
    } else {
        // dV = Pᵀ·dO, dP = dO·Vᵀ, dQ = dS·K, dK = dSᵀ·Q, plus the sums over a GQA group.
        const int64_t group = hkv > 0 ? hq / hkv - 1 : 0;
        flops = 2 * pv + 2 * qk + batch * nkv * (dv + d) * group + (form->flash ? qk : 0);
        elementsMoved = 2 * (qElems + kElems + vElems) + oElems;
    }
    c.flops = causal && nq == nkv ? flops / 2 : flops;
    const int bpe = torchElementBytes(a[q].type);
    if (bpe > 0) c.bytes = elementsMoved * bpe;
    return c;
}

constexpr std::array<std::string_view, 27> kUnary = {
    "aten::copy_",      "aten::copy",    "aten::clamp_min",  "aten::clamp_min_", "aten::clamp_max",
    "aten::clamp_max_", "aten::sigmoid", "aten::rsqrt",      "aten::silu",       "aten::neg",
    "aten::pow",        "aten::relu",    "aten::relu_",      "aten::gelu",       "aten::tanh",
    "aten::exp",        "aten::log",     "aten::sqrt",       "aten::abs",        "aten::sin",
    "aten::cos",        "aten::erf",     "aten::reciprocal", "aten::silu_",      "aten::sigmoid_",
    "aten::neg_",       "aten::clamp"};
constexpr std::array<std::string_view, 14> kBinary = {"aten::add",
                                                      "aten::add_",
                                                      "aten::sub",
                                                      "aten::sub_",
                                                      "aten::mul",
                                                      "aten::mul_",
                                                      "aten::div",
                                                      "aten::div_",
                                                      "aten::sigmoid_backward",
                                                      "aten::threshold_backward",
                                                      "aten::gelu_backward",
                                                      "aten::silu_backward",
                                                      "aten::tanh_backward",
                                                      "aten::native_dropout_backward"};
constexpr std::array<std::string_view, 7> kReduction = {
    "aten::sum", "aten::mean", "aten::amax", "aten::amin", "aten::max", "aten::min", "aten::norm"};

template <size_t N> bool in(const std::array<std::string_view, N>& set, std::string_view v) {
    return std::find(set.begin(), set.end(), v) != set.end();
}

// The broadcast of two shapes (right-aligned); nothing when they do not broadcast.
std::optional<Dims> broadcast(const Dims& a, const Dims& b) {
    const size_t n = std::max(a.size(), b.size());
    Dims out(n);
    for (size_t i = 0; i < n; ++i) {
        const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
        const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
        if (x != y && x != 1 && y != 1) return std::nullopt;
        out[i] = std::max(x, y);
    }
    return out;
}

std::optional<OpCost> elementwiseCost(std::string_view name, const std::vector<Arg>& a) {
    const bool unary = in(kUnary, name), binary = in(kBinary, name);
    if (!unary && !binary) return std::nullopt;
    if (a.empty() || !a[0].tensor) return OpCost{};
    const int bpe0 = torchElementBytes(a[0].type);
    if (unary) {
        // copy_(self, src): one element read from src for each written to self.
        const int64_t n = elements(a[0].dims);
        const int bpeOut = a.size() > 1 && a[1].tensor ? torchElementBytes(a[1].type) : bpe0;
        return OpCost{n, 0, n * (bpe0 + bpeOut)};
    }
    const bool second = a.size() > 1 && a[1].tensor;
    const std::optional<Dims> out = second ? broadcast(a[0].dims, a[1].dims) : a[0].dims;
    if (!out) return OpCost{};
    const int bpe1 = second ? torchElementBytes(a[1].type) : 0;
    const int64_t n = elements(*out);
    const int bpeOut = second ? std::max(bpe0, bpe1) : bpe0;
    return OpCost{
        n, 0, elements(a[0].dims) * bpe0 + (second ? elements(a[1].dims) * bpe1 : 0) + n * bpeOut};
}

std::optional<OpCost> reductionCost(std::string_view name, const std::vector<Arg>& a) {
    if (!in(kReduction, name)) return std::nullopt;
    if (a.empty() || !a[0].tensor) return OpCost{};
    const int64_t n = elements(a[0].dims);
    // dim (Concrete Inputs[1]): the reduced dimensions; none listed reduces everything.
    const Dims reduced = intList(a, 1);
    int64_t out = 1;
    if (!reduced.empty()) {
        out = n;
        for (int64_t r : reduced)
            if (r >= 0 && size_t(r) < a[0].dims.size() && a[0].dims[size_t(r)] > 0)
                out /= a[0].dims[size_t(r)];
    }
    const int bpe = torchElementBytes(a[0].type);
    return OpCost{n, 0, (n + out) * bpe};
}

} // namespace

std::string_view torchOpKindName(TorchOpKind kind) {
    switch (kind) {
    case TorchOpKind::Gemm:
        return "GEMM";
    case TorchOpKind::Convolution:
        return "CONV";
    case TorchOpKind::Attention:
        return "SDPA";
    case TorchOpKind::Elementwise:
        return "elementwise";
    case TorchOpKind::Reduction:
        return "reduce";
    case TorchOpKind::Other:
        break;
    }
    return "other";
}

TorchOpKind torchOpKind(std::string_view n) {
    if (n == "aten::mm" || n == "aten::addmm" || n == "aten::bmm" || n == "aten::baddbmm" ||
        n == "aten::_scaled_mm" || n == "aten::matmul" || n == "aten::linear")
        return TorchOpKind::Gemm;
    if (n == "aten::convolution" || n == "aten::_convolution" || n == "aten::cudnn_convolution")
        return TorchOpKind::Convolution;
    if (std::any_of(kAttention.begin(), kAttention.end(),
                    [&](const AttentionForm& f) { return f.name == n; }))
        return TorchOpKind::Attention;
    if (in(kUnary, n) || in(kBinary, n)) return TorchOpKind::Elementwise;
    if (in(kReduction, n)) return TorchOpKind::Reduction;
    return TorchOpKind::Other;
}

int torchElementBytes(std::string_view type) {
    if (type == "double" || type == "long int" || type == "long" || type == "int64_t" ||
        type == "c10::complex<float>")
        return 8;
    if (type == "float" || type == "int" || type == "unsigned int") return 4;
    if (type == "c10::Half" || type == "c10::BFloat16" || type == "short int" || type == "short")
        return 2;
    if (type == "c10::complex<double>") return 16;
    if (type.starts_with("c10::Float8") || type == "signed char" || type == "unsigned char" ||
        type == "bool" || type == "c10::Float4_e2m1fn_x2")
        return 1;
    return 0;
}

OpCost torchOpCost(const TorchOpArgs& args) {
    std::vector<Arg> a;
    OpCost c;
    if (!args.inputDims.empty() && readArgs(args, a)) {
        for (const auto& rule :
             {matrixCost, convolutionCost, attentionCost, elementwiseCost, reductionCost})
            if (std::optional<OpCost> r = rule(args.name, a)) {
                c = *r;
                break;
            }
    }
    if (args.flops && std::isfinite(*args.flops) && *args.flops >= 0)
        c.flops = int64_t(std::llround(*args.flops));
    return c;
}

} // namespace stepscope
