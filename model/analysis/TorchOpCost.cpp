#include "model/analysis/TorchOpCost.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <simdjson.h>
#include <span>
#include <string>
#include <vector>

#include "model/analysis/CheckedCount.h"

namespace stepscope {

namespace {

using Dims = std::vector<int64_t>;

// One recorded argument: its dims (empty for a scalar or non-tensor; never negative), its type
// and its concrete value's text.
struct Arg {
    Dims dims;
    bool tensor = false; // an "Input Dims" entry that is a list of sizes with a tensor type
    std::string type;
    std::string value;
};

// Parses the three parallel JSON arrays; false when "Input Dims" is not a JSON array or holds a
// size that no tensor has (negative, fractional, or past int64: a made-up or corrupt trace).
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
                if (!s.get(n)) {
                    if (n < 0) return false;
                    arg.dims.push_back(n);
                } else if (s.is_number()) {
                    return false;
                } else { // a nested list (TensorList): not one tensor
                    arg.tensor = false;
                    arg.dims.clear();
                    break;
                }
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

// Every sum and product below is checked (model/analysis/CheckedCount.h): a shape whose counts
// do not fit in int64 has an unknown cost.
Count elements(const Dims& d) {
    return product(d);
}

// The elements of all but the last `inner` dimensions.
Count leading(const Dims& d, size_t inner) {
    return product(std::span(d).first(d.size() - std::min(inner, d.size())));
}

Count larger(Count a, Count b) {
    return a && b ? Count(std::max(*a, *b)) : std::nullopt;
}

bool isTrue(const std::vector<Arg>& args, size_t i) {
    if (i >= args.size()) return false;
    std::string v = args[i].value;
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    return v == "true";
}

// A list of ints as the profiler writes it in "Concrete Inputs": "[1, 1]", "1" or "[-1]";
// nothing when a number does not fit in int64.
std::optional<Dims> intList(const std::vector<Arg>& args, size_t i) {
    Dims out;
    if (i >= args.size()) return out;
    const std::string& text = args[i].value;
    const char* p = text.data();
    const char* const end = p + text.size();
    const auto digit = [&](const char* c) { return c < end && *c >= '0' && *c <= '9'; };
    while (p < end) {
        if (!digit(p) && !(*p == '-' && digit(p + 1))) {
            ++p;
            continue;
        }
        int64_t n = 0;
        const std::from_chars_result r = std::from_chars(p, end, n);
        if (r.ec != std::errc()) return std::nullopt; // out of range
        out.push_back(n);
        p = r.ptr;
    }
    return out;
}

int64_t at(const Dims& d, size_t i, int64_t fallback = 1) {
    return i < d.size() ? d[i] : fallback;
}

OpCost gemm(Count batch, Count m, Count n, Count k, Count biasElements, int bpe) {
    const Count mn = times(m, n);
    const Count biasAdd = !biasElements ? std::nullopt : *biasElements > 0 ? times(batch, mn) : 0;
    OpCost c;
    c.flops = plus(times(batch, 2, mn, k), biasAdd);
    if (bpe > 0)
        c.bytes = times(plus(times(batch, plus(times(m, k), times(k, n), mn)), biasElements), bpe);
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
        return gemm(1, a[1].dims[0], a[2].dims[1], a[1].dims[1], larger(1, elements(a[0].dims)),
                    torchElementBytes(a[1].type));
    if (name == "aten::bmm" && is3d(0) && is3d(1))
        return gemm(a[0].dims[0], a[0].dims[1], a[1].dims[2], a[0].dims[2], 0,
                    torchElementBytes(a[0].type));
    if (name == "aten::baddbmm" && is3d(1) && is3d(2))
        return gemm(a[1].dims[0], a[1].dims[1], a[2].dims[2], a[1].dims[2],
                    larger(1, elements(a[0].dims)), torchElementBytes(a[1].type));
    if (name == "aten::matmul" && a.size() >= 2 && a[0].tensor && a[1].tensor &&
        a[0].dims.size() >= 2 && a[1].dims.size() >= 2) {
        const Dims& x = a[0].dims;
        const Dims& w = a[1].dims;
        const int64_t k = x.back(), n = w.back(), m = x[x.size() - 2];
        // Batch: the broadcast of the leading dims; a 2-d rhs folds the lhs's leading dims
        // into M (one GEMM), as PyTorch does. Products, not quotients: a dimension can be 0
        // (an expert of a mixture of experts that got no tokens).
        if (w.size() == 2) return gemm(1, leading(x, 1), n, k, 0, torchElementBytes(a[0].type));
        const Count batch = larger(leading(x, 2), leading(w, 2));
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
    const std::optional<Dims> stride = intList(a, 3), padding = intList(a, cudnn ? 2 : 4),
                              dilation = intList(a, cudnn ? 4 : 5);
    const bool transposed = !cudnn && isTrue(a, 6);
    const std::optional<Dims> outputPadding = transposed ? intList(a, 7) : Dims{},
                              groups = transposed ? intList(a, 8) : Dims{};
    if (!stride || !padding || !dilation || !outputPadding || !groups) return OpCost{};
    const bool bias = !cudnn && a.size() > 2 && a[2].tensor && !a[2].dims.empty();
    // PyTorch repeats a single value for every spatial dimension.
    const auto nth = [](const Dims& d, size_t i, int64_t fallback) {
        return d.empty() ? fallback : d.size() == 1 ? d[0] : at(d, i, fallback);
    };
    const Count channels =
        transposed ? times(w[1], std::max<int64_t>(1, nth(*groups, 0, 1))) : Count(w[0]);
    if (!channels) return OpCost{};
    Dims out{x[0], *channels};
    for (size_t s = 0; s < spatial; ++s) {
        const int64_t in = x[2 + s], kernel = w[2 + s], st = nth(*stride, s, 1),
                      pad = nth(*padding, s, 0), dil = nth(*dilation, s, 1),
                      extra = nth(*outputPadding, s, 0);
        // No convolution has these (PyTorch refuses them); the output size divides by st.
        if (st < 1 || dil < 1 || pad < 0 || extra < 0) return OpCost{};
        const Count reach = times(dil, kernel - 1); // the dilated kernel's extent, less one
        Count side;
        if (transposed) {
            side = plus(minus(times(in - 1, st), times(2, pad)), reach, extra, 1);
        } else {
            const Count span = minus(plus(in, times(2, pad)), plus(reach, 1));
            // A kernel wider than the padded input: PyTorch refuses it.
            if (span && *span >= 0) side = plus(*span / st, 1);
        }
        if (!side || *side < 0) return OpCost{};
        out.push_back(*side);
    }
    const Count perElement = product(std::span(w).subspan(1));
    OpCost c;
    c.flops =
        plus(times(2, perElement, elements(transposed ? x : out)), bias ? elements(out) : Count(0));
    const int bpe = torchElementBytes(a[0].type);
    if (bpe > 0)
        c.bytes = times(plus(elements(x), elements(w), bias ? out[1] : 0, elements(out)), bpe);
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
    const std::optional<Dims> maskType = form->maskType ? intList(a, form->causal) : Dims{};
    if (!maskType) return OpCost{};
    const bool causal =
        form->maskType ? (*maskType == Dims{1} || *maskType == Dims{2}) : isTrue(a, form->causal);
    const Count qk = times(2, batch, hq, nq, nkv, d), pv = times(2, batch, hq, nq, nkv, dv);
    const Count qElems = times(batch, hq, nq, d), kElems = times(batch, hkv, nkv, d),
                vElems = times(batch, hkv, nkv, dv), oElems = times(batch, hq, nq, dv);
    Count flops, elementsMoved;
    if (!form->backward) {
        flops = plus(qk, pv);
        elementsMoved = plus(qElems, kElems, vElems, oElems);
    } else {
        // dV = Pᵀ·dO, dP = dO·Vᵀ, dQ = dS·K, dK = dSᵀ·Q, plus the sums over a GQA group (none
        // when the query has no more heads than the keys).
        const int64_t group = hkv > 0 && hq > hkv ? hq / hkv - 1 : 0;
        flops = plus(times(2, pv), times(2, qk), times(batch, nkv, plus(dv, d), group),
                     form->flash ? qk : Count(0));
        elementsMoved = plus(times(2, plus(qElems, kElems, vElems)), oElems);
    }
    OpCost c;
    c.flops = causal && nq == nkv && flops ? Count(*flops / 2) : flops;
    const int bpe = torchElementBytes(a[q].type);
    if (bpe > 0) c.bytes = times(elementsMoved, bpe);
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
        const Count n = elements(a[0].dims);
        const int bpeOut = a.size() > 1 && a[1].tensor ? torchElementBytes(a[1].type) : bpe0;
        return OpCost{n, 0, times(n, bpe0 + bpeOut)};
    }
    const bool second = a.size() > 1 && a[1].tensor;
    const std::optional<Dims> out = second ? broadcast(a[0].dims, a[1].dims) : a[0].dims;
    if (!out) return OpCost{};
    const int bpe1 = second ? torchElementBytes(a[1].type) : 0;
    const Count n = elements(*out);
    const int bpeOut = second ? std::max(bpe0, bpe1) : bpe0;
    return OpCost{n, 0,
                  plus(times(elements(a[0].dims), bpe0),
                       second ? times(elements(a[1].dims), bpe1) : Count(0), times(n, bpeOut))};
}

std::optional<OpCost> reductionCost(std::string_view name, const std::vector<Arg>& a) {
    if (!in(kReduction, name)) return std::nullopt;
    if (a.empty() || !a[0].tensor) return OpCost{};
    const Dims& dims = a[0].dims;
    const Count n = elements(dims);
    // dim (Concrete Inputs[1]): the reduced dimensions, a negative one counted from the last
    // (-1 the last, as PyTorch does); none listed reduces everything.
    const std::optional<Dims> reduced = intList(a, 1);
    if (!n || !reduced) return OpCost{};
    int64_t out = 1;
    if (!reduced->empty()) {
        out = *n;
        const int64_t rank = int64_t(dims.size());
        for (int64_t r : *reduced) {
            if (r < 0 && r >= -rank) r += rank;
            if (r >= 0 && r < rank && dims[size_t(r)] > 0) out /= dims[size_t(r)];
        }
    }
    const int bpe = torchElementBytes(a[0].type);
    return OpCost{n, 0, times(plus(n, out), bpe)};
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
    if (args.flops) c.flops = countOf(*args.flops);
    return c;
}

} // namespace stepscope
