#include "model/analysis/HloCostModel.h"

#include <algorithm>
#include <array>
#include <simdjson.h>
#include <string_view>

#include "model/analysis/CheckedCount.h"

namespace stepscope {

namespace {

// Bits of one element of a type; 0 for types that hold no data (tuple, token, opaque).
int elementBits(HloElementType t) {
    using T = HloElementType;
    switch (t) {
    case T::S1:
    case T::U1:
        return 1;
    case T::S2:
    case T::U2:
        return 2;
    case T::S4:
    case T::U4:
    case T::F4E2M1FN:
        return 4;
    case T::Pred:
    case T::S8:
    case T::U8:
    case T::F8E5M2:
    case T::F8E4M3FN:
    case T::F8E4M3B11FNUZ:
    case T::F8E5M2FNUZ:
    case T::F8E4M3FNUZ:
    case T::F8E4M3:
    case T::F8E3M4:
    case T::F8E8M0FNU:
        return 8;
    case T::S16:
    case T::U16:
    case T::F16:
    case T::BF16:
        return 16;
    case T::S32:
    case T::U32:
    case T::F32:
        return 32;
    case T::S64:
    case T::U64:
    case T::F64:
    case T::C64:
        return 64;
    case T::C128:
        return 128;
    default:
        return 0;
    }
}

// Opcodes that compute one result element per input position (XLA's HloInstruction::
// IsElementwise), split by whether HloCostAnalysis::HandleElementwiseOp counts them as
// transcendentals. Spelled as the HLO proto writes opcodes (HloOpcodeString,
// xla/hlo/ir/hlo_opcode.h: "exponential", "log-plus-one", "sine", "count-leading-zeros").
constexpr std::array<std::string_view, 15> kTranscendental = {
    "exponential",  "log",   "logistic", "power",  "sqrt", "cbrt",
    "rsqrt",        "tanh",  "sine",     "cosine", "tan",  "exponential-minus-one",
    "log-plus-one", "atan2", "erf"};
constexpr std::array<std::string_view, 34> kElementwise = {"abs",
                                                           "add",
                                                           "and",
                                                           "bitcast-convert",
                                                           "ceil",
                                                           "clamp",
                                                           "count-leading-zeros",
                                                           "compare",
                                                           "complex",
                                                           "convert",
                                                           "divide",
                                                           "floor",
                                                           "imag",
                                                           "is-finite",
                                                           "maximum",
                                                           "minimum",
                                                           "multiply",
                                                           "negate",
                                                           "not",
                                                           "or",
                                                           "popcnt",
                                                           "real",
                                                           "reduce-precision",
                                                           "remainder",
                                                           "round-nearest-afz",
                                                           "round-nearest-even",
                                                           "select",
                                                           "shift-left",
                                                           "shift-right-arithmetic",
                                                           "shift-right-logical",
                                                           "sign",
                                                           "stochastic-convert",
                                                           "subtract",
                                                           "xor"};

// Opcodes that move or arrange data and do no arithmetic (HloCostAnalysis gives them no FLOPs).
constexpr std::array<std::string_view, 37> kNoArithmetic = {"parameter",
                                                            "constant",
                                                            "get-tuple-element",
                                                            "bitcast",
                                                            "tuple",
                                                            "after-all",
                                                            "add-dependency",
                                                            "domain",
                                                            "opt-barrier",
                                                            "copy",
                                                            "transpose",
                                                            "broadcast",
                                                            "reshape",
                                                            "dynamic-reshape",
                                                            "concatenate",
                                                            "pad",
                                                            "reverse",
                                                            "iota",
                                                            "copy-start",
                                                            "copy-done",
                                                            "send",
                                                            "send-done",
                                                            "recv",
                                                            "recv-done",
                                                            "all-gather",
                                                            "all-gather-start",
                                                            "all-gather-done",
                                                            "all-to-all",
                                                            "collective-permute",
                                                            "collective-permute-start",
                                                            "collective-permute-done",
                                                            "reduce-scatter",
                                                            "partition-id",
                                                            "replica-id",
                                                            "slice",
                                                            "dynamic-slice",
                                                            "dynamic-update-slice"};
constexpr std::array<std::string_view, 10> kNoArithmeticMore = {"gather",
                                                                "all-reduce-done",
                                                                "async-done",
                                                                "async-update",
                                                                "infeed",
                                                                "outfeed",
                                                                "get-dimension-size",
                                                                "set-dimension-size",
                                                                "rng-get-and-update-state",
                                                                "collective-broadcast"};

template <size_t N> bool in(const std::array<std::string_view, N>& set, std::string_view v) {
    return std::find(set.begin(), set.end(), v) != set.end();
}

// Nesting deeper than this (fusions in fusions, reducers calling computations) is not followed:
// a crafted module could otherwise exhaust the stack.
constexpr int kMaxDepth = 64;

// Dimension i of a shape; 1 when it has none such, nothing when it is negative.
Count dimension(const HloShape& shape, int64_t i) {
    if (i < 0 || size_t(i) >= shape.dimensions.size()) return 1;
    const int64_t d = shape.dimensions[size_t(i)];
    return d < 0 ? std::nullopt : Count(d);
}

// An array result: the shape itself, or a tuple's first element (library calls return
// (result, workspace); variadic reduces (result0, result1, ...)).
const HloShape& firstArray(const HloShape& shape) {
    if (shape.elementType == HloElementType::Tuple && !shape.tupleShapes.empty())
        return firstArray(shape.tupleShapes.front());
    return shape;
}

// 2 x result elements x the product of the lhs contracting dimensions
// (HloCostAnalysis::GetDotFlops; kFmaFlops = 2).
Count dotFlops(const HloShape& lhs, const HloShape& result, const HloDotDimensions& d) {
    Count reduction = 1;
    for (int64_t dim : d.lhsContracting) reduction = times(reduction, dimension(lhs, dim));
    return times(times(2, elementCount(result)), reduction);
}

// HloCostAnalysis::GetConvolutionFlops: per spatial dimension, the (kernel position, output
// position) pairs whose input position is a real element (not padding, not a base-dilation
// hole); their product times input features per group, output features and batch per group,
// times 2. An absent window is one position.
Count convolutionFlops(const HloInstruction& conv, const HloShape& lhs, const HloShape& rhs,
                       const HloShape& result) {
    const HloConvolutionDimensions& d = conv.convolution;
    Count positions = 1;
    for (size_t s = 0; s < conv.window.size(); ++s) {
        const HloWindowDimension& w = conv.window[s];
        const Count kernel = s < d.kernelSpatial.size() ? dimension(rhs, d.kernelSpatial[s]) : 1;
        const Count output = s < d.outputSpatial.size() ? dimension(result, d.outputSpatial[s]) : 1;
        const Count input = s < d.inputSpatial.size() ? dimension(lhs, d.inputSpatial[s]) : 1;
        const Count pairs = times(kernel, output);
        if (!pairs || !input || *pairs > kMaxConvolutionPairs) return std::nullopt;
        const int64_t stride = std::max<int64_t>(1, w.stride);
        const int64_t windowDilation = std::max<int64_t>(1, w.windowDilation);
        const int64_t baseDilation = std::max<int64_t>(1, w.baseDilation);
        int64_t valid = 0;
        for (int64_t k = 0; k < *kernel; ++k)
            for (int64_t o = 0; o < *output; ++o) {
                // A position past int64 lies outside any input.
                const Count undilated =
                    plus(minus(times(o, stride), w.paddingLow), times(k, windowDilation));
                if (!undilated || *undilated % baseDilation != 0) continue; // or a dilation hole
                if (*undilated >= 0 && *undilated / baseDilation < *input) ++valid;
            }
        positions = times(positions, valid);
    }
    const int64_t featureGroups = std::max<int64_t>(1, conv.featureGroupCount);
    const int64_t batchGroups = std::max<int64_t>(1, conv.batchGroupCount);
    const Count features = dimension(lhs, d.inputFeature);
    const Count batch = dimension(lhs, d.inputBatch);
    if (!features || !batch) return std::nullopt;
    return times(times(times(2, *features / featureGroups), dimension(result, d.outputFeature)),
                 times(*batch / batchGroups, positions));
}

// The product of a window's sizes; nothing when a size is below 1 (no real window has one).
Count windowSize(const std::vector<HloWindowDimension>& window) {
    Count n = 1;
    for (const HloWindowDimension& w : window) n = w.size < 1 ? std::nullopt : times(n, w.size);
    return n;
}

int64_t ceilLog2(int64_t n) {
    int64_t bits = 0;
    while ((int64_t(1) << bits) < n && bits < 62) ++bits;
    return bits;
}

} // namespace

std::optional<int64_t> elementCount(const HloShape& shape) {
    if (shape.elementType == HloElementType::Tuple) return 0;
    return product(shape.dimensions);
}

std::optional<int64_t> leafElementCount(const HloShape& shape) {
    Count n = 0;
    shape.forEachLeaf([&](const HloShape& leaf) { n = plus(n, elementCount(leaf)); });
    return n;
}

std::optional<int64_t> shapeBytes(const HloShape& shape) {
    Count bytes = 0;
    shape.forEachLeaf([&](const HloShape& leaf) {
        const Count bits = plus(times(elementCount(leaf), elementBits(leaf.elementType)), 7);
        bytes = plus(bytes, bits ? Count(*bits / 8) : std::nullopt);
    });
    return bytes;
}

bool isCublasGemmTarget(std::string_view target) {
    return target == "__cublas$gemm" || target == "__cublas$lt$matmul" ||
           target == "__cublas$lt$matmul$f8";
}

bool isCudnnConvolutionTarget(std::string_view target) {
    return target.starts_with("__cudnn$conv") && !target.starts_with("__cudnn$convReorder");
}

std::optional<HloDotDimensions> gemmDotDimensions(std::string_view backendConfig) {
    if (backendConfig.empty()) return std::nullopt;
    simdjson::dom::parser parser;
    const simdjson::padded_string text(backendConfig);
    simdjson::dom::element root;
    if (parser.parse(text).get(root)) return std::nullopt;
    simdjson::dom::object dims;
    if (root["gemm_backend_config"]["dot_dimension_numbers"].get(dims)) return std::nullopt;
    HloDotDimensions out;
    // Protobuf's JSON writes int64 values as strings ("1"); numbers are read as well.
    const auto read = [&](const char* key, std::vector<int64_t>& into) {
        simdjson::dom::array values;
        if (dims[key].get(values)) return true; // absent: empty
        for (simdjson::dom::element v : values) {
            int64_t n = 0;
            std::string_view s;
            if (!v.get(n)) {
                into.push_back(n);
            } else if (!v.get(s)) {
                int64_t parsed = 0;
                for (char c : s) {
                    if (c < '0' || c > '9') return false;
                    parsed = parsed * 10 + (c - '0');
                }
                if (s.empty()) return false;
                into.push_back(parsed);
            } else {
                return false;
            }
        }
        return true;
    };
    if (!read("lhs_contracting_dimensions", out.lhsContracting) ||
        !read("rhs_contracting_dimensions", out.rhsContracting) ||
        !read("lhs_batch_dimensions", out.lhsBatch) || !read("rhs_batch_dimensions", out.rhsBatch))
        return std::nullopt;
    return out;
}

const HloShape* HloCostModel::operandShape(const HloInstruction& instruction, size_t i) const {
    if (i >= instruction.operandIds.size()) return nullptr;
    const HloInstruction* operand = module_.instruction(instruction.operandIds[i]);
    return operand ? &operand->shape : nullptr;
}

HloCostModel::Work HloCostModel::computationWork(int64_t id) {
    if (const auto it = computations_.find(id); it != computations_.end()) return it->second;
    const HloComputation* c = module_.computation(id);
    if (!c || visiting_.size() >= size_t(kMaxDepth) || visiting_.contains(id)) return {};
    visiting_[id] = true;
    Work sum{int64_t(0), 0};
    for (const HloInstruction& i : c->instructions) {
        const Work w = work(i);
        const Count transcendentals = plus(sum.transcendentals, w.transcendentals);
        sum.flops = plus(sum.flops, w.flops);
        if (!sum.flops || !transcendentals) {
            sum = {};
            break;
        }
        sum.transcendentals = *transcendentals;
    }
    visiting_.erase(id);
    computations_[id] = sum;
    return sum;
}

HloCostModel::Work HloCostModel::work(const HloInstruction& i) {
    const std::string_view op = i.opcode;
    const Count elements = leafElementCount(i.shape);
    // Transcendentals only (rng, rng-bit-generator and the kTranscendental ops).
    const auto transcendentals = [](Count n) -> Work {
        if (!n) return {};
        return {int64_t(0), *n};
    };
    if (in(kTranscendental, op)) return transcendentals(elements);
    if (in(kElementwise, op)) return {elements, 0};
    if (in(kNoArithmetic, op) || in(kNoArithmeticMore, op)) return {int64_t(0), 0};
    // The cost of applying a called computation `count` times.
    const auto apply = [&](size_t called, Count count) -> Work {
        if (called >= i.calledComputationIds.size()) return {};
        const Work w = computationWork(i.calledComputationIds[called]);
        const Count flops = times(w.flops, count);
        const Count calls = times(w.transcendentals, count);
        if (!flops || !calls) return {};
        return {flops, *calls};
    };
    const HloShape* lhs = operandShape(i, 0);
    if (op == "dot") {
        if (!lhs) return {};
        return {dotFlops(*lhs, i.shape, i.dot), 0};
    }
    if (op == "convolution") {
        const HloShape* rhs = operandShape(i, 1);
        if (!lhs || !rhs) return {};
        return {convolutionFlops(i, *lhs, *rhs, i.shape), 0};
    }
    if (op == "custom-call") {
        if (isCublasGemmTarget(i.customCallTarget)) {
            const std::optional<HloDotDimensions> dims = gemmDotDimensions(i.backendConfig);
            if (!lhs || !dims) return {};
            return {dotFlops(*lhs, firstArray(i.shape), *dims), 0};
        }
        if (isCudnnConvolutionTarget(i.customCallTarget)) {
            const HloShape* rhs = operandShape(i, 1);
            if (!lhs || !rhs) return {};
            return {convolutionFlops(i, *lhs, *rhs, firstArray(i.shape)), 0};
        }
        return {};
    }
    if (op == "fusion" || op == "call" || op == "async-start") return apply(0, 1);
    if (op == "reduce") {
        if (!lhs) return {};
        // A result with more elements than the input is no reduce XLA writes.
        const Count reduced =
            minus(elementCount(firstArray(*lhs)), elementCount(firstArray(i.shape)));
        if (!reduced || *reduced < 0) return {};
        return apply(0, reduced);
    }
    if (op == "reduce-window")
        return apply(0, times(minus(windowSize(i.window), 1), elementCount(firstArray(i.shape))));
    if (op == "map") return apply(0, elementCount(i.shape));
    if (op == "scatter") {
        // Operands: inputs..., indices, updates... (as many updates as inputs).
        if (i.operandIds.size() < 3) return {};
        const size_t inputs = (i.operandIds.size() - 1) / 2;
        const HloShape* updates = operandShape(i, inputs + 1);
        if (!updates) return {};
        return apply(0, elementCount(*updates));
    }
    if (op == "select-and-scatter") {
        const HloShape* source = operandShape(i, 1);
        if (!source) return {};
        const Count sources = elementCount(*source);
        const Work select = apply(0, times(sources, minus(windowSize(i.window), 1)));
        const Work scatter = apply(1, sources);
        const Count flops = plus(select.flops, scatter.flops);
        const Count calls = plus(select.transcendentals, scatter.transcendentals);
        if (!flops || !calls) return {};
        return {flops, *calls};
    }
    if (op == "sort") {
        if (!lhs) return {};
        const Count n = elementCount(*lhs);
        if (!n) return {};
        return {times(n, ceilLog2(*n)), 0};
    }
    if (op == "rng") return transcendentals(elementCount(i.shape));
    if (op == "rng-bit-generator") return transcendentals(elements);
    if (op == "all-reduce" || op == "all-reduce-start") return {elements, 0};
    return {}; // while, conditional, fft, cholesky, triangular-solve, unknown opcodes
}

std::optional<int64_t> HloCostModel::bytes(const HloInstruction& i) {
    const std::string_view op = i.opcode;
    if (op == "parameter" || op == "constant" || op == "get-tuple-element" || op == "bitcast" ||
        op == "after-all" || op == "add-dependency" || op == "domain")
        return 0;
    const auto operandBytes = [&](size_t k) -> Count {
        const HloShape* s = operandShape(i, k);
        return s ? shapeBytes(*s) : 0;
    };
    if (op == "tuple") return 8 * int64_t(i.shape.tupleShapes.size()); // its pointer table
    if (op == "slice") return times(2, shapeBytes(i.shape));
    if (op == "dynamic-slice" || op == "gather")
        return plus(times(2, shapeBytes(i.shape)), operandBytes(1));
    if (op == "dynamic-update-slice") return plus(times(2, operandBytes(1)), operandBytes(2));
    if (op == "scatter") {
        if (i.operandIds.size() < 3) return std::nullopt; // no input, indices and update
        const size_t inputs = (i.operandIds.size() - 1) / 2;
        Count updates = 0;
        for (size_t k = 0; k < inputs; ++k) updates = plus(updates, operandBytes(inputs + 1 + k));
        return plus(times(3, updates), operandBytes(inputs));
    }
    Count sum = 0;
    for (size_t k = 0; k < i.operandIds.size(); ++k) sum = plus(sum, operandBytes(k));
    const bool library = op == "custom-call" && (isCublasGemmTarget(i.customCallTarget) ||
                                                 isCudnnConvolutionTarget(i.customCallTarget));
    return plus(sum, shapeBytes(library ? firstArray(i.shape) : i.shape));
}

OpCost HloCostModel::cost(const HloInstruction& instruction) {
    const Work w = work(instruction);
    OpCost c;
    c.flops = w.flops;
    c.transcendentals = w.flops ? w.transcendentals : 0;
    c.bytes = bytes(instruction);
    return c;
}

} // namespace stepscope
