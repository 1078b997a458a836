#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "model/xspace/HloProto.h"

namespace stepscope {

// What one execution of an op costs: floating-point operations, transcendental operations
// (counted apart from FLOPs, as XLA does: one exp or tanh is several instructions) and bytes
// read plus written. An empty optional means the model cannot tell; it is never a guess.
struct OpCost {
    std::optional<int64_t> flops;
    int64_t transcendentals = 0;
    std::optional<int64_t> bytes;
};

// Bytes of the array leaves of a shape (a tuple's elements, recursively): elements times the
// type's width, sub-byte types packed (s4 and f4e2m1fn take 4 bits); tokens and opaque values 0.
// These three say nothing when a dimension is negative or the count does not fit in int64.
std::optional<int64_t> shapeBytes(const HloShape& shape);
// Elements of an array shape (the product of its dimensions; 1 for a scalar); 0 for a tuple.
std::optional<int64_t> elementCount(const HloShape& shape);
// Elements of every array leaf of a shape.
std::optional<int64_t> leafElementCount(const HloShape& shape);

// XLA counts a convolution's valid positions by visiting every (kernel position, output
// position) pair of each spatial dimension. A real convolution has a few thousand (a 7-wide
// kernel over 4096 outputs: 28,672); a made-up one could ask for 2^62 and never finish, so past
// this many pairs in one dimension its FLOPs are unknown.
inline constexpr int64_t kMaxConvolutionPairs = int64_t(1) << 24;

// Whether a custom-call target is a cuBLAS GEMM ("__cublas$gemm", "__cublas$lt$matmul",
// "__cublas$lt$matmul$f8") or a cuDNN convolution ("__cudnn$conv...", not the filter
// reorderings), as XLA:GPU names them (xla/service/gpu/cublas_cudnn.h).
bool isCublasGemmTarget(std::string_view target);
bool isCudnnConvolutionTarget(std::string_view target);

// The dot_dimension_numbers of a cuBLAS call's backend config (JSON, as XLA writes
// GpuBackendConfig: {"gemm_backend_config": {"dot_dimension_numbers": {...}}}); nothing when
// the config holds none or is not JSON.
std::optional<HloDotDimensions> gemmDotDimensions(std::string_view backendConfig);

// The cost of HLO instructions by the rules of XLA's HloCostAnalysis (openxla/xla
// xla/service/hlo_cost_analysis.cc) and, for library calls, GpuHloCostAnalysis
// (xla/service/gpu/model/gpu_hlo_cost_analysis.cc), over the shapes the HLO proto records.
// docs/roofline.md lists each rule and where Stepscope departs; in short:
// - bytes: the array leaves of the operands plus those of the result; parameter, constant,
//   get-tuple-element, bitcast, after-all, add-dependency and domain move nothing; slices read
//   what they write; gather and scatter read their indices and what they move;
// - element-wise ops: one FLOP per result element, or one transcendental for exponential, log,
//   logistic, power, sqrt, cbrt, rsqrt, tanh, sine, cosine, tan, exponential-minus-one,
//   log-plus-one, atan2, erf;
// - dot: 2 x result elements x the product of the lhs contracting dimensions (2·M·N·K per
//   batch); cuBLAS calls likewise, from the dot dimensions of their backend config;
// - convolution (and cuDNN convolution calls): 2 x (input features / feature groups) x output
//   features x (batch / batch groups) x the kernel positions that fall on the input (padding
//   and dilation holes excluded), per spatial dimension;
// - reduce: (operand elements - result elements) x the reducer's cost; reduce-window, map,
//   select-and-scatter, scatter and sort as XLA;
// - fusion: the sum of its fused computation's FLOPs and transcendentals; its bytes are its own
//   operands and result (what crosses memory), not its fused instructions';
// - library calls (cuBLAS, cuDNN convolutions) count their real result, not their workspace.
// Unknown: other custom-calls (cuDNN attention, Triton and Pallas kernels), while,
// conditional, fft, cholesky, triangular-solve, and opcodes the model does not list; a fusion or
// call holding one of those is unknown too. Unknown as well, since no real module has them: a
// negative dimension (XLA's mark of an unbounded one), a window size below 1, a reduce to more
// elements than its input, a count that does not fit in int64, and a convolution with more than
// kMaxConvolutionPairs (kernel, output) position pairs in one spatial dimension.
// Holds a reference to the module; not thread-safe (it caches per computation).
class HloCostModel {
public:
    explicit HloCostModel(const HloModule& module)
        : module_(module) {}

    OpCost cost(const HloInstruction& instruction);

private:
    struct Work {
        std::optional<int64_t> flops;
        int64_t transcendentals = 0;
    };
    Work work(const HloInstruction& instruction);
    Work computationWork(int64_t computationId);
    std::optional<int64_t> bytes(const HloInstruction& instruction);
    const HloShape* operandShape(const HloInstruction& instruction, size_t i) const;

    const HloModule& module_;
    std::unordered_map<int64_t, Work> computations_; // by computation id
    std::unordered_map<int64_t, bool> visiting_;     // computation ids being summed (cycles)
};

} // namespace stepscope
