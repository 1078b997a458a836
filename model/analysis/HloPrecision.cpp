#include "model/analysis/HloPrecision.h"

#include <algorithm>
#include <unordered_set>
#include <vector>

namespace stepscope {

bool isMatrixLibraryCall(std::string_view target) {
    if (target == "__cublas$gemm" || target == "__cublas$lt$matmul" ||
        target == "__cublas$lt$matmul$f8")
        return true;
    if (target.starts_with("__cudnn$conv")) return !target.starts_with("__cudnn$convReorder");
    return target.starts_with("__cudnn$fmha") || target.starts_with("__cudnn$fhma");
}

namespace {

bool isMatrixOpcode(std::string_view opcode) {
    return opcode == "dot" || opcode == "ragged-dot" || opcode == "convolution";
}

// The instruction itself when it does a multiply: a dot or convolution, or a matrix library call.
bool multiplies(const HloInstruction& i) {
    return isMatrixOpcode(i.opcode) ||
           (i.opcode == "custom-call" && isMatrixLibraryCall(i.customCallTarget));
}

// The instruction that does a matrix op's multiply: the instruction itself, or for a fusion the
// first dot, convolution or matrix library call of its called computations, found breadth first
// (a computation's own instructions before those of the fusions it holds), each computation
// visited once. Null when there is none. Iterative, with a set of the
// computations seen: a crafted module may nest fusions hundreds of thousands deep.
const HloInstruction* matrixCore(const HloModule& module, const HloInstruction& instruction) {
    if (multiplies(instruction)) return &instruction;
    if (instruction.opcode != "fusion") return nullptr;
    std::unordered_set<int64_t> visited;
    std::vector<const HloInstruction*> fusions{&instruction}; // to look into, in order
    for (size_t next = 0; next < fusions.size(); ++next)
        for (int64_t id : fusions[next]->calledComputationIds) {
            if (!visited.insert(id).second) continue;
            const HloComputation* c = module.computation(id);
            if (!c) continue;
            for (const HloInstruction& inner : c->instructions) {
                if (multiplies(inner)) return &inner;
                if (inner.opcode == "fusion") fusions.push_back(&inner);
            }
        }
    return nullptr;
}

// Narrows `best` by every array leaf of `shape`.
void narrowBy(const HloShape& shape, bool matrix, std::optional<Precision>& best) {
    shape.forEachLeaf([&](const HloShape& leaf) {
        const std::optional<Precision> p = precisionOfElementType(leaf.elementType, matrix);
        if (p && (!best || *p < *best)) best = p;
    });
}

void narrowByOperands(const HloModule& module, const HloInstruction& instruction, bool matrix,
                      std::optional<Precision>& best) {
    for (int64_t id : instruction.operandIds)
        if (const HloInstruction* operand = module.instruction(id))
            narrowBy(operand->shape, matrix, best);
}

} // namespace

bool isMatrixInstruction(const HloModule& module, const HloInstruction& instruction) {
    return matrixCore(module, instruction) != nullptr;
}

std::optional<Precision> precisionOfElementType(HloElementType type, bool matrix) {
    using T = HloElementType;
    switch (type) {
    case T::F16:
        return Precision::FP16;
    case T::BF16:
        return Precision::BF16;
    case T::F32:
    case T::C64:
        return Precision::FP32;
    case T::F64:
    case T::C128:
        return Precision::FP64;
    case T::F8E5M2:
    case T::F8E4M3:
    case T::F8E4M3FN:
    case T::F8E4M3B11FNUZ:
    case T::F8E3M4:
    case T::F8E5M2FNUZ:
    case T::F8E4M3FNUZ:
    case T::F8E8M0FNU:
        return Precision::FP8;
    case T::F4E2M1FN:
        return Precision::FP4;
    case T::S8:
    case T::U8:
        if (matrix) return Precision::INT8;
        return std::nullopt;
    default:
        return std::nullopt;
    }
}

// The precision a dot's PrecisionConfig.algorithm fixes (xla_data.proto
// PrecisionConfig.Algorithm), or none when unset or unknown.
std::optional<Precision> precisionOfAlgorithm(int32_t algorithm) {
    switch (algorithm) {
    case 1: // ALG_DOT_ANY_F8_ANY_F8_F32
    case 2: // ..._FAST_ACCUM
        return Precision::FP8;
    case 3: // ALG_DOT_F16_F16_F16
    case 4: // ALG_DOT_F16_F16_F32
        return Precision::FP16;
    case 5:  // ALG_DOT_BF16_BF16_BF16
    case 6:  // ALG_DOT_BF16_BF16_F32
    case 7:  // ..._X3: fp32 emulated in three bf16 passes
    case 8:  // ..._X6
    case 13: // ..._X9
        return Precision::BF16;
    case 9:  // ALG_DOT_TF32_TF32_F32
    case 10: // ..._X3
        return Precision::TF32;
    case 11: // ALG_DOT_F32_F32_F32
        return Precision::FP32;
    case 12: // ALG_DOT_F64_F64_F64
        return Precision::FP64;
    default:
        return std::nullopt;
    }
}

Precision instructionPrecision(const HloModule& module, const HloInstruction& instruction) {
    std::optional<Precision> best;
    if (const HloInstruction* core = matrixCore(module, instruction)) {
        if (const auto fixed = precisionOfAlgorithm(core->dotAlgorithm)) return *fixed;
        narrowByOperands(module, *core, true, best);
    } else {
        narrowByOperands(module, instruction, false, best);
        narrowBy(instruction.shape, false, best);
    }
    return best.value_or(Precision::Unknown);
}

} // namespace stepscope
