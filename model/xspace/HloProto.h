#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stepscope {

// The part of a serialized xla.HloProto that Stepscope's analyses read, decoded into plain
// structs. XLA writes one per compiled module into an XSpace: plane `/host:metadata`, one
// XEventMetadata per module (named like `jit_train_step(7961)`) with a Bytes stat `Hlo Proto`
// and an int stat `program_id`.
//
// Field numbers and enum values are those of openxla/xla `xla/service/hlo.proto` (HloProto,
// HloModuleProto, HloComputationProto, HloInstructionProto, HloScheduleProto) and
// `xla/xla_data.proto` (ShapeProto, PrimitiveType, OpMetadata, PrecisionConfig,
// DotDimensionNumbers). Fields not listed here are skipped.

// xla.PrimitiveType (xla_data.proto). Values outside this list are kept as their number.
enum class HloElementType : int32_t {
    Invalid = 0,
    Pred = 1,
    S8 = 2,
    S16 = 3,
    S32 = 4,
    S64 = 5,
    U8 = 6,
    U16 = 7,
    U32 = 8,
    U64 = 9,
    F16 = 10,
    F32 = 11,
    F64 = 12,
    Tuple = 13,
    OpaqueType = 14,
    C64 = 15,
    BF16 = 16,
    Token = 17,
    C128 = 18,
    F8E5M2 = 19,
    F8E4M3FN = 20,
    S4 = 21,
    U4 = 22,
    F8E4M3B11FNUZ = 23,
    F8E5M2FNUZ = 24,
    F8E4M3FNUZ = 25,
    S2 = 26,
    U2 = 27,
    F8E4M3 = 28,
    F8E3M4 = 29,
    S1 = 30,
    U1 = 31,
    F4E2M1FN = 32,
    F8E8M0FNU = 33,
    Buffer = 34,
};

// XLA's spelling: "f32", "bf16", "f8e4m3fn", "pred", "tuple", ...; "unknown" for other numbers.
std::string_view elementTypeName(HloElementType t);

// xla.ShapeProto: element_type = 2, dimensions = 3, tuple_shapes = 4. Layouts are skipped.
struct HloShape {
    HloElementType elementType = HloElementType::Invalid;
    std::vector<int64_t> dimensions;
    std::vector<HloShape> tupleShapes; // a tuple's elements

    // Calls fn(const HloShape&) for every array (non-tuple) shape inside, this one if it is one.
    template <class Fn> void forEachLeaf(Fn&& fn) const {
        if (elementType == HloElementType::Tuple)
            for (const HloShape& s : tupleShapes) s.forEachLeaf(fn);
        else
            fn(*this);
    }
};

// xla.OpMetadata: op_type = 1, op_name = 2, source_file = 3, source_line = 4.
struct HloOpMetadata {
    std::string opType;
    std::string opName; // the framework op path, e.g. "jit(train_step)/jvp()/dot_general"
    std::string sourceFile;
    int32_t sourceLine = 0;
};

// xla.DotDimensionNumbers: lhs_contracting_dimensions = 1, rhs_contracting_dimensions = 2,
// lhs_batch_dimensions = 3, rhs_batch_dimensions = 4.
struct HloDotDimensions {
    std::vector<int64_t> lhsContracting, rhsContracting, lhsBatch, rhsBatch;
};

// xla.WindowDimension: size = 1, stride = 2, padding_low = 3, padding_high = 4,
// window_dilation = 5, base_dilation = 6. Absent fields read 0, as protobuf leaves them (XLA
// writes stride and dilations of 1 explicitly).
struct HloWindowDimension {
    int64_t size = 0, stride = 0, paddingLow = 0, paddingHigh = 0, windowDilation = 0,
            baseDilation = 0;
};

// xla.ConvolutionDimensionNumbers: input_batch_dimension = 7, input_feature_dimension = 8,
// input_spatial_dimensions = 11, kernel_input_feature_dimension = 3,
// kernel_output_feature_dimension = 4, kernel_spatial_dimensions = 6, output_batch_dimension = 9,
// output_feature_dimension = 10, output_spatial_dimensions = 12.
struct HloConvolutionDimensions {
    int64_t inputBatch = 0, inputFeature = 0, kernelInputFeature = 0, kernelOutputFeature = 0,
            outputBatch = 0, outputFeature = 0;
    std::vector<int64_t> inputSpatial, kernelSpatial, outputSpatial;
};

// xla.HloInstructionProto: name = 1, opcode = 2, shape = 3, metadata = 7, fusion_kind = 11,
// window = 15 (Window.dimensions = 1), convolution_dimension_numbers = 16,
// custom_call_target = 28, dot_dimension_numbers = 30, id = 35, operand_ids = 36,
// called_computation_ids = 38, backend_config = 43, feature_group_count = 50,
// precision_config = 51 (PrecisionConfig.algorithm = 2), batch_group_count = 58.
struct HloInstruction {
    std::string name;   // unique in its module, e.g. "loop_add_fusion.1"
    std::string opcode; // "fusion", "custom-call", "dot", "parameter", ...
    HloShape shape;
    int64_t id = 0; // unique in its module
    std::vector<int64_t> operandIds;
    std::vector<int64_t> calledComputationIds;
    std::string fusionKind;       // fusions: "kLoop", "kInput", "kOutput", "kCustom"
    std::string customCallTarget; // custom-calls: "__cublas$lt$matmul", ...
    HloOpMetadata metadata;
    // PrecisionConfig.algorithm of a dot: the algorithm it must run (xla_data.proto Algorithm:
    // 1, 2 any f8 -> f32; 3, 4 f16; 5-8, 13 bf16 (one or several passes); 9, 10 tf32; 11 f32;
    // 12 f64); 0 when unset.
    int32_t dotAlgorithm = 0;
    HloDotDimensions dot;                   // dots
    std::vector<HloWindowDimension> window; // convolutions, reduce-windows
    HloConvolutionDimensions convolution;   // convolutions and cuDNN convolution calls
    int64_t featureGroupCount = 0;          // 0 when absent (XLA's default is 1)
    int64_t batchGroupCount = 0;            // 0 when absent (XLA's default is 1)
    // Kept for custom-calls only (JSON text, e.g. a cuBLAS call's gemm_backend_config with its
    // dot_dimension_numbers): other instructions' configs are launch details no analysis reads.
    std::string backendConfig;
};

// xla.HloComputationProto: name = 1, instructions = 2, id = 5, root_id = 6. The instructions are
// in a dependency order, which is not the order they run in: that is the module's schedule.
struct HloComputation {
    std::string name;
    int64_t id = 0;
    int64_t rootId = 0;
    std::vector<HloInstruction> instructions;
};

// One entry of xla.HloScheduleProto.sequences (field 1, map<int64 computation id,
// InstructionSequence{repeated int64 instruction_ids = 1}>): the order a computation's
// instructions run in.
struct HloSequence {
    int64_t computationId = 0;
    std::vector<int64_t> instructionIds;
};

// xla.HloModuleProto: name = 1, entry_computation_name = 2, computations = 3, id = 5,
// entry_computation_id = 6, schedule = 7.
class HloModule {
public:
    std::string name; // e.g. "jit_train_step"; several modules of a profile can share one
    int64_t id = 0;   // what device events carry as `program_id`
    std::string entryComputationName;
    int64_t entryComputationId = 0;
    std::vector<HloComputation> computations;
    std::vector<HloSequence> schedule; // in wire order; empty when the module is unscheduled

    // Lookups, valid after index() (decodeHloProto calls it); null when absent.
    const HloComputation* computation(int64_t id) const;
    const HloComputation* entryComputation() const { return computation(entryComputationId); }
    const HloInstruction* instruction(int64_t id) const;
    const HloInstruction* instructionNamed(std::string_view name) const;
    const HloSequence* sequence(int64_t computationId) const;
    // The computation that holds an instruction of this module.
    const HloComputation* computationOf(const HloInstruction& instruction) const;

    // Builds the lookups; call again after changing the computations.
    void index();

private:
    struct Slot {
        uint32_t computation = 0, instruction = 0;
    };
    const HloInstruction& at(Slot s) const {
        return computations[s.computation].instructions[s.instruction];
    }
    std::vector<std::pair<int64_t, Slot>> byId_;            // sorted by id
    std::vector<Slot> byName_;                              // sorted by instruction name
    std::vector<std::pair<int64_t, uint32_t>> computation_; // (id, index), sorted by id
};

// Decodes a serialized xla.HloProto (its hlo_module, field 1). On bad bytes returns nothing and
// sets `error` to what failed and where: "at byte N: <problem> in <Message.field>" (N counts from
// the start of `bytes`). Lengths are checked against the bytes before anything is read or
// allocated, so a corrupt length prefix cannot make it allocate beyond the input's size; shapes
// nested deeper than kMaxShapeDepth are refused rather than followed.
std::optional<HloModule> decodeHloProto(std::span<const uint8_t> bytes, std::string& error);

inline constexpr int kMaxShapeDepth = 64;

} // namespace stepscope
