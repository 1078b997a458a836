#include "model/analysis/HloPrecision.h"

#include <algorithm>
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

// The instruction that does a matrix op's multiply: the instruction itself, or for a fusion the
// first dot, convolution or matrix library call of its called computations (depth first, nested
// fusions followed, each computation visited once). Null when there is none.
const HloInstruction* matrixCore(const HloModule& module, const HloInstruction& instruction,
                                 std::vector<int64_t>& visited) {
    if (isMatrixOpcode(instruction.opcode)) return &instruction;
    if (instruction.opcode == "custom-call")
        return isMatrixLibraryCall(instruction.customCallTarget) ? &instruction : nullptr;
    if (instruction.opcode != "fusion") return nullptr;
    for (int64_t id : instruction.calledComputationIds) {
        if (std::find(visited.begin(), visited.end(), id) != visited.end()) continue;
        visited.push_back(id);
        const HloComputation* c = module.computation(id);
        if (!c) continue;
        for (const HloInstruction& inner : c->instructions)
            if (const HloInstruction* core = matrixCore(module, inner, visited)) return core;
    }
    return nullptr;
}

const HloInstruction* matrixCore(const HloModule& module, const HloInstruction& instruction) {
    std::vector<int64_t> visited;
    return matrixCore(module, instruction, visited);
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

Precision instructionPrecision(const HloModule& module, const HloInstruction& instruction) {
    std::optional<Precision> best;
    if (const HloInstruction* core = matrixCore(module, instruction)) {
        narrowByOperands(module, *core, true, best);
    } else {
        narrowByOperands(module, instruction, false, best);
        narrowBy(instruction.shape, false, best);
    }
    return best.value_or(Precision::Unknown);
}

} // namespace stepscope
