// HLO protos in XSpaces: the decoder (every field, packed and unpacked repeated ints, bad bytes),
// the command buffer alignment rules, the catalog's lookups and attribution, and the precision
// rules. HLO protos are written with protobuf's classes of tests/fixtures/hlo_subset.proto, an
// encoder independent of the decoder. Real profiles: test_hlo_real.cpp.
#include <QtTest>

#include "model/ProfileLoader.h"
#include "model/analysis/CommandBufferAlignment.h"
#include "model/analysis/HloCatalog.h"
#include "model/analysis/HloPrecision.h"
#include "model/analysis/Overview.h"
#include "model/xspace/HloProto.h"
#include "tests/fixtures/HloFixtures.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {

constexpr int64_t us = 1000000;

std::span<const uint8_t> span(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Instruction names as Qt Test prints them when a comparison fails.
using Names = QStringList;

std::optional<HloModule> decode(const std::string& bytes, std::string* errorOut = nullptr) {
    std::string error;
    std::optional<HloModule> m = decodeHloProto(span(bytes), error);
    if (errorOut) *errorOut = error;
    return m;
}

// Decodes bytes that must fail; returns the error.
std::string failure(const std::string& bytes) {
    std::string error;
    if (decode(bytes, &error)) return "decoded without error";
    return error;
}

// A module with one of everything the decoder reads, and fields it skips.
HloModuleFixture everyFieldModule() {
    HloModuleFixture m("jit_everything", 4242);
    m.computation("fused_dot");
    m.add("lhs", "parameter", testhlo::BF16, {8, 16});
    m.add("rhs", "parameter", testhlo::BF16, {16, 32});
    auto& dot = m.add("dot.1", "dot", testhlo::F32, {8, 32}, {"lhs", "rhs"});
    dot.mutable_dot_dimension_numbers()->add_lhs_contracting_dimensions(1);
    dot.mutable_dot_dimension_numbers()->add_rhs_contracting_dimensions(0);
    dot.mutable_dot_dimension_numbers()->add_lhs_batch_dimensions(7);
    dot.mutable_dot_dimension_numbers()->add_rhs_batch_dimensions(5);
    dot.mutable_dot_dimension_numbers()->add_rhs_batch_dimensions(6);
    dot.mutable_precision_config()->add_operand_precision(testhlo::PrecisionConfig::HIGHEST);
    dot.mutable_precision_config()->add_operand_precision(testhlo::PrecisionConfig::DEFAULT);
    dot.mutable_precision_config()->set_algorithm(9);
    m.computation("main");
    m.entry("main");
    auto& x = m.add("x", "parameter", testhlo::BF16, {8, 16});
    x.set_parameter_number(3);
    x.mutable_shape()->mutable_layout()->add_minor_to_major(1);
    x.mutable_shape()->mutable_layout()->add_minor_to_major(0);
    x.mutable_shape()->add_is_dynamic_dimension(false);
    m.add("w", "parameter", testhlo::BF16, {16, 32});
    auto& f = m.fusion("gemm_fusion_dot.1", testhlo::F32, "fused_dot", {"x", "w"}, "kCustom");
    f.set_backend_config(R"({"fusion_backend_config":{"kind":"__triton_gemm"}})");
    (*f.mutable_frontend_attributes()->mutable_map())["xla.pdl_launch"] = "true";
    f.mutable_metadata()->set_op_type("dot_general");
    f.mutable_metadata()->set_op_name("jit(f)/dot_general");
    f.mutable_metadata()->set_source_file("/src/model.py");
    f.mutable_metadata()->set_source_line(-3);
    f.mutable_metadata()->set_size_of_generated_code_in_bytes(1 << 20);
    auto& cc =
        m.customCall("custom-call.7", "__cublas$lt$matmul$f8", testhlo::F8E4M3FN, {"x", "w"});
    cc.set_backend_config(R"({"gemm_backend_config":{"alpha_real":1}})");
    // A convolution with every window and dimension field, and both group counts.
    auto& conv = m.add("convolution.4", "convolution", testhlo::F32, {1, 3, 3, 4}, {"x", "w"});
    auto* wd = conv.mutable_window()->add_dimensions();
    wd->set_size(3);
    wd->set_stride(2);
    wd->set_padding_low(1);
    wd->set_padding_high(-2);
    wd->set_window_dilation(4);
    wd->set_base_dilation(5);
    wd->set_window_reversal(true);
    conv.mutable_window()->add_dimensions()->set_size(7);
    auto* cd = conv.mutable_convolution_dimension_numbers();
    cd->set_input_batch_dimension(3);
    cd->set_input_feature_dimension(0);
    cd->add_input_spatial_dimensions(1);
    cd->add_input_spatial_dimensions(2);
    cd->set_kernel_input_feature_dimension(2);
    cd->set_kernel_output_feature_dimension(3);
    cd->add_kernel_spatial_dimensions(0);
    cd->add_kernel_spatial_dimensions(1);
    cd->set_output_batch_dimension(1);
    cd->set_output_feature_dimension(2);
    cd->add_output_spatial_dimensions(0);
    cd->add_output_spatial_dimensions(3);
    conv.set_feature_group_count(6);
    conv.set_batch_group_count(8);
    // A nested tuple: (f8e4m3fn[64,64], u8[4096], (f16[2], pred[]))
    auto* inner = cc.mutable_shape()->add_tuple_shapes();
    inner->set_element_type(testhlo::TUPLE);
    inner->add_tuple_shapes()->set_element_type(testhlo::F16);
    inner->mutable_tuple_shapes(0)->add_dimensions(2);
    inner->add_tuple_shapes()->set_element_type(testhlo::PRED);
    auto& gte = m.add("get-tuple-element.2", "get-tuple-element", testhlo::F8E4M3FN, {64, 64},
                      {"custom-call.7"});
    gte.set_tuple_index(0);
    m.add("tuple.3", "tuple", testhlo::TUPLE, {}, {"gemm_fusion_dot.1", "get-tuple-element.2"});
    m.schedule("main",
               {"w", "x", "custom-call.7", "gemm_fusion_dot.1", "get-tuple-element.2", "tuple.3"});
    m.proto.mutable_hlo_module()->set_is_dynamic(true);
    m.proto.set_buffer_assignment(std::string("\x0a\x03\x08\x01\x10", 5));
    return m;
}

// A scheduled entry computation of the instructions `names`: "p…" parameters, "gte…"
// get-tuple-elements, "cc…" cuBLAS custom-calls, names holding "fusion" fusions (of one fused
// computation, or of another, unlike it, when the name holds "_b_"), anything else the opcode
// before its first '.'.
struct ScheduleFixture {
    HloModuleFixture module{"jit_f", 1};
    std::optional<HloModule> decoded;
    std::optional<CommandBufferSchedule> schedule;

    // `unscheduled`: instructions of the computation that its schedule leaves out (a fusion
    // whose kernel another one reuses, say, run by another computation).
    explicit ScheduleFixture(const std::vector<std::string>& names,
                             const std::vector<std::string>& unscheduled = {}) {
        module.computation("fused");
        module.add("param_0", "parameter", testhlo::F32, {4});
        module.computation("fused_b");
        module.add("param_0.b", "parameter", testhlo::F32, {4});
        module.add("negate.b", "negate", testhlo::F32, {4}, {"param_0.b"});
        module.computation("main");
        module.entry("main");
        std::vector<std::string> all = names;
        all.insert(all.end(), unscheduled.begin(), unscheduled.end());
        for (const std::string& n : all) {
            if (n.starts_with("p"))
                module.add(n, "parameter", testhlo::F32, {4});
            else if (n.starts_with("gte"))
                module.add(n, "get-tuple-element", testhlo::F32, {4});
            else if (n.starts_with("cc"))
                module.customCall(n, "__cublas$lt$matmul", testhlo::BF16, {});
            else if (n.find("fusion") != std::string::npos)
                module.fusion(n, testhlo::F32,
                              n.find("_b_") != std::string::npos ? "fused_b" : "fused");
            else
                module.add(n, n.substr(0, n.find('.')), testhlo::F32, {4});
        }
        module.schedule("main", names);
        decoded = decode(module.bytes());
        schedule.emplace(*decoded, *decoded->sequence(module.computationId("main")));
    }

    // The instruction each event was given, "-" for none.
    QStringList align(const std::vector<std::string_view>& events) const {
        QStringList out;
        for (int32_t at : schedule->align(events))
            out.push_back(at < 0 ? "-"
                                 : QString::fromStdString(schedule->instruction(size_t(at))->name));
        return out;
    }
};

LoadResult load(const FixtureSpace& space) {
    const std::vector<uint8_t> bytes = space.encode();
    return loadXSpaceBytes(bytes, "fixture-host");
}

// The instruction names of a profile's events on device tracks, in event order ("-" for none;
// with `viaGraph`, "direct" for the events whose hlo_op named their instruction).
Names attributed(const Profile& p, const HloCatalog& c, bool viaGraph = false) {
    Names out;
    for (const Track& t : p.tracks()) {
        if (!t.deviceOps) continue;
        for (EventIndex e = t.firstEvent; e < t.firstEvent + t.eventCount; ++e) {
            const HloOpRef r = c.instructionOf(e);
            out.push_back(!r ? QString("-")
                          : viaGraph && !r.viaCommandBuffer
                              ? QString("direct")
                              : QString::fromStdString(r.instruction->name));
        }
    }
    return out;
}

} // namespace

class TestHlo : public QObject {
    Q_OBJECT
private slots:
    // ---- the decoder

    void decodesEveryField() {
        const HloModuleFixture f = everyFieldModule();
        std::string error;
        const std::optional<HloModule> m = decode(f.bytes(), &error);
        QVERIFY2(m, error.c_str());
        QVERIFY(error.empty());
        QCOMPARE(m->name, std::string("jit_everything"));
        QCOMPARE(m->id, int64_t(4242));
        QCOMPARE(m->entryComputationName, std::string("main"));
        QCOMPARE(m->entryComputationId, f.computationId("main"));
        QCOMPARE(m->computations.size(), size_t(2));
        const HloComputation& fused = m->computations[0];
        QCOMPARE(fused.name, std::string("fused_dot"));
        QCOMPARE(fused.id, f.computationId("fused_dot"));
        QCOMPARE(fused.rootId, f.instructionId("dot.1"));
        QCOMPARE(m->entryComputation(), &m->computations[1]);

        const HloInstruction* dot = m->instructionNamed("dot.1");
        QVERIFY(dot);
        QCOMPARE(m->instruction(f.instructionId("dot.1")), dot);
        QCOMPARE(m->computationOf(*dot), &fused);
        QCOMPARE(dot->opcode, std::string("dot"));
        QCOMPARE(dot->shape.elementType, HloElementType::F32);
        QCOMPARE(dot->shape.dimensions, (std::vector<int64_t>{8, 32}));
        QCOMPARE(dot->operandIds,
                 (std::vector<int64_t>{f.instructionId("lhs"), f.instructionId("rhs")}));
        QCOMPARE(dot->dotAlgorithm, 9); // ALG_DOT_TF32_TF32_F32
        // The algorithm, when set, decides the dot's precision over its operands' types.
        QCOMPARE(instructionPrecision(*m, *dot), Precision::TF32);

        const HloInstruction* fusion = m->instructionNamed("gemm_fusion_dot.1");
        QVERIFY(fusion);
        QCOMPARE(fusion->fusionKind, std::string("kCustom"));
        QCOMPARE(fusion->calledComputationIds, std::vector<int64_t>{f.computationId("fused_dot")});
        QCOMPARE(fusion->metadata.opType, std::string("dot_general"));
        QCOMPARE(fusion->metadata.opName, std::string("jit(f)/dot_general"));
        QCOMPARE(fusion->metadata.sourceFile, std::string("/src/model.py"));
        QCOMPARE(fusion->metadata.sourceLine, -3);
        QVERIFY(fusion->customCallTarget.empty());

        const HloInstruction* x = m->instructionNamed("x");
        QCOMPARE(x->shape.dimensions, (std::vector<int64_t>{8, 16})); // layout skipped
        QCOMPARE(x->shape.elementType, HloElementType::BF16);

        const HloInstruction* cc = m->instructionNamed("custom-call.7");
        QCOMPARE(cc->customCallTarget, std::string("__cublas$lt$matmul$f8"));
        QCOMPARE(cc->shape.elementType, HloElementType::Tuple);
        QCOMPARE(cc->shape.tupleShapes.size(), size_t(3));
        QCOMPARE(cc->shape.tupleShapes[0].elementType, HloElementType::F8E4M3FN);
        QCOMPARE(cc->shape.tupleShapes[1].elementType, HloElementType::U8);
        QCOMPARE(cc->shape.tupleShapes[1].dimensions, std::vector<int64_t>{4096});
        QStringList leaves;
        cc->shape.forEachLeaf([&](const HloShape& s) {
            leaves.push_back(QString::fromStdString(std::string(elementTypeName(s.elementType))));
        });
        QCOMPARE(leaves, (Names{"f8e4m3fn", "u8", "f16", "pred"}));
        QCOMPARE(cc->shape.tupleShapes[2].tupleShapes[0].dimensions, std::vector<int64_t>{2});
        // Backend configs are kept for custom-calls only (the fusion had one too).
        QCOMPARE(cc->backendConfig, std::string(R"({"gemm_backend_config":{"alpha_real":1}})"));
        QVERIFY(fusion->backendConfig.empty());

        QCOMPARE(dot->dot.lhsContracting, std::vector<int64_t>{1});
        QCOMPARE(dot->dot.rhsContracting, std::vector<int64_t>{0});
        QCOMPARE(dot->dot.lhsBatch, std::vector<int64_t>{7});
        QCOMPARE(dot->dot.rhsBatch, (std::vector<int64_t>{5, 6}));
        const HloInstruction* conv = m->instructionNamed("convolution.4");
        QVERIFY(conv);
        QCOMPARE(conv->window.size(), size_t(2));
        const HloWindowDimension& w0 = conv->window[0];
        QCOMPARE(w0.size, int64_t(3));
        QCOMPARE(w0.stride, int64_t(2));
        QCOMPARE(w0.paddingLow, int64_t(1));
        QCOMPARE(w0.paddingHigh, int64_t(-2));
        QCOMPARE(w0.windowDilation, int64_t(4));
        QCOMPARE(w0.baseDilation, int64_t(5));
        // Absent fields read 0, as protobuf leaves them.
        QCOMPARE(conv->window[1].size, int64_t(7));
        QCOMPARE(conv->window[1].stride, int64_t(0));
        const HloConvolutionDimensions& cd = conv->convolution;
        QCOMPARE(cd.inputBatch, int64_t(3));
        QCOMPARE(cd.inputFeature, int64_t(0));
        QCOMPARE(cd.inputSpatial, (std::vector<int64_t>{1, 2}));
        QCOMPARE(cd.kernelInputFeature, int64_t(2));
        QCOMPARE(cd.kernelOutputFeature, int64_t(3));
        QCOMPARE(cd.kernelSpatial, (std::vector<int64_t>{0, 1}));
        QCOMPARE(cd.outputBatch, int64_t(1));
        QCOMPARE(cd.outputFeature, int64_t(2));
        QCOMPARE(cd.outputSpatial, (std::vector<int64_t>{0, 3}));
        QCOMPARE(conv->featureGroupCount, int64_t(6));
        QCOMPARE(conv->batchGroupCount, int64_t(8));
        QCOMPARE(x->featureGroupCount, int64_t(0)); // absent

        QCOMPARE(m->schedule.size(), size_t(1));
        const HloSequence* seq = m->sequence(f.computationId("main"));
        QVERIFY(seq);
        Names order;
        for (int64_t id : seq->instructionIds)
            order.push_back(QString::fromStdString(m->instruction(id)->name));
        QCOMPARE(order, (Names{"w", "x", "custom-call.7", "gemm_fusion_dot.1",
                               "get-tuple-element.2", "tuple.3"}));
        QVERIFY(!m->sequence(f.computationId("fused_dot")));
        QVERIFY(!m->instructionNamed("nope"));
        QVERIFY(!m->instruction(1)); // a computation id, not an instruction's
        QVERIFY(!m->computation(1001));
    }

    void acceptsPackedAndUnpackedRepeatedInts() {
        testhlo::UnpackedHloProto u;
        auto* module = u.mutable_hlo_module();
        module->set_name("unpacked");
        auto* c = module->add_computations();
        c->set_id(1);
        auto* h = c->add_instructions();
        h->set_name("dot.9");
        h->set_id(77);
        for (int64_t v : {int64_t(5), int64_t(-1), int64_t(1) << 40}) h->add_operand_ids(v);
        h->add_called_computation_ids(1);
        h->mutable_shape()->set_element_type(testhlo::F16);
        for (int64_t v : {3, 0, 9}) h->mutable_shape()->add_dimensions(v);
        h->mutable_dot_dimension_numbers()->add_lhs_contracting_dimensions(2);
        h->mutable_dot_dimension_numbers()->add_rhs_batch_dimensions(4);
        h->mutable_precision_config()->add_operand_precision(testhlo::PrecisionConfig::HIGH);
        (*module->mutable_schedule()->mutable_sequences())[1].add_instruction_ids(77);
        const std::string unpackedBytes = u.SerializeAsString();
        // The same content written packed must decode alike; the encodings differ.
        testhlo::HloProto packed;
        QVERIFY(packed.ParseFromString(unpackedBytes));
        const std::string packedBytes = packed.SerializeAsString();
        QVERIFY(packedBytes != unpackedBytes);
        for (const std::string& bytes : {unpackedBytes, packedBytes}) {
            std::string error;
            const std::optional<HloModule> m = decode(bytes, &error);
            QVERIFY2(m, error.c_str());
            const HloInstruction* d = m->instructionNamed("dot.9");
            QCOMPARE(d->operandIds, (std::vector<int64_t>{5, -1, int64_t(1) << 40}));
            QCOMPARE(d->calledComputationIds, std::vector<int64_t>{1});
            QCOMPARE(d->shape.dimensions, (std::vector<int64_t>{3, 0, 9}));
            QCOMPARE(d->dotAlgorithm, 0); // operand_precision only: no algorithm
            QCOMPARE(d->dot.lhsContracting, std::vector<int64_t>{2});
            QCOMPARE(d->dot.rhsBatch, std::vector<int64_t>{4});
            QCOMPARE(m->schedule.at(0).instructionIds, std::vector<int64_t>{77});
        }
        // Both forms of one field in one message append, as protobuf parses them.
        const std::string mixed = std::string("\x0a\x0c\x1a\x0a\x12\x08", 6) +
                                  std::string("\xa2\x02\x02\x01\x02", 5) + // operand_ids [1,2]
                                  std::string("\xa0\x02\x03", 3);          // operand_ids 3
        const std::optional<HloModule> m = decode(mixed);
        QVERIFY(m);
        QCOMPARE(m->computations.at(0).instructions.at(0).operandIds,
                 (std::vector<int64_t>{1, 2, 3}));
    }

    void everyTruncationIsAnError() {
        HloModuleFixture f = everyFieldModule();
        f.proto.clear_buffer_assignment(); // hlo_module is then HloProto's only field
        const std::string bytes = f.bytes();
        QVERIFY(bytes.size() > 300);
        QVERIFY(decode(bytes));
        // Every strict prefix cuts hlo_module short.
        for (size_t n = 0; n < bytes.size(); ++n) {
            const std::string error = failure(bytes.substr(0, n));
            if (n == 0)
                QCOMPARE(error, std::string("the HloProto holds no hlo_module (field 1)"));
            else
                QVERIFY2(error.starts_with("at byte "), (std::to_string(n) + ": " + error).c_str());
        }
        QCOMPARE(failure(bytes.substr(0, 2)),
                 std::string("at byte 2: truncated varint in HloProto.hlo_module"));
    }

    void wrongWireTypeNamesTheFieldAndByte() {
        // hlo_module { name: varint 5 }: a string field written as a number.
        const std::string bytes("\x0a\x02\x08\x05", 4);
        QCOMPARE(failure(bytes),
                 std::string("at byte 3: HloModuleProto.name has wire type 0, expected 2"));
        // hlo_module { computations { instructions { id: "x" } } }: id as a string.
        const std::string id("\x0a\x07\x1a\x05\x12\x03\x9a\x02\x00", 9);
        QCOMPARE(failure(id),
                 std::string("at byte 8: HloInstructionProto.id has wire type 2, expected 0"));
        // A group (wire type 3) in an unknown field, which protobuf 3 never writes.
        QCOMPARE(failure(std::string("\x0a\x02\x7b\x0c", 4)),
                 std::string("at byte 3: unsupported wire type 3 in HloModuleProto"));
        // Field number 0.
        QVERIFY(failure(std::string("\x0a\x02\x00\x01", 4)).find("field number 0") !=
                std::string::npos);
    }

    void lengthPastTheEndIsRefused() {
        // hlo_module claims 1000 bytes; 3 follow.
        QCOMPARE(failure(std::string("\x0a\xe8\x07\x0a\x01x", 6)),
                 std::string("at byte 3: length 1000 of HloProto.hlo_module runs past the end of "
                             "its message (truncated or corrupt)"));
        // An instruction's operand_ids claims 2^60 bytes: refused before anything is allocated.
        std::string huge("\x0a\x12\x1a\x10\x12\x0e\xa2\x02", 8);
        huge += std::string("\x80\x80\x80\x80\x80\x80\x80\x80\x10", 9);
        huge += std::string("\x01\x02\x03", 3);
        const std::string error = failure(huge);
        QVERIFY2(error.find("length 1152921504606846976 of HloInstructionProto.operand_ids runs "
                            "past the end") != std::string::npos,
                 error.c_str());
        // A name's length runs past its computation, though not past the whole input.
        const std::string name("\x0a\x06\x1a\x02\x0a\x05xyz\x00\x00", 11);
        QVERIFY(failure(name).find("HloComputationProto.name runs past the end") !=
                std::string::npos);
    }

    void deepShapeNestingIsRefused() {
        testhlo::HloProto p;
        auto* h = p.mutable_hlo_module()->add_computations()->add_instructions();
        h->set_name("deep");
        testhlo::ShapeProto* s = h->mutable_shape();
        for (int i = 0; i < 200; ++i) {
            s->set_element_type(testhlo::TUPLE);
            s = s->add_tuple_shapes();
        }
        s->set_element_type(testhlo::F32);
        const std::string error = failure(p.SerializeAsString());
        QVERIFY2(error.find("shape nested too deeply") != std::string::npos, error.c_str());
        // 64 levels are fine.
        testhlo::HloProto ok;
        s = ok.mutable_hlo_module()->add_computations()->add_instructions()->mutable_shape();
        for (int i = 0; i < kMaxShapeDepth; ++i) {
            s->set_element_type(testhlo::TUPLE);
            s = s->add_tuple_shapes();
        }
        s->set_element_type(testhlo::BF16);
        const std::optional<HloModule> m = decode(ok.SerializeAsString());
        QVERIFY(m);
        int leaves = 0;
        m->computations[0].instructions[0].shape.forEachLeaf([&](const HloShape& leaf) {
            QCOMPARE(leaf.elementType, HloElementType::BF16);
            ++leaves;
        });
        QCOMPARE(leaves, 1);
    }

    void foreignBytesAreRefused() {
        QVERIFY(failure("not a protobuf at all, just text").starts_with("at byte "));
        QCOMPARE(failure(std::string("\x1a\x00", 2)),
                 std::string("the HloProto holds no hlo_module (field 1)"));
        QCOMPARE(elementTypeName(HloElementType(99)), std::string_view("unknown"));
    }

    // ---- command buffer alignment

    void kernelNamesAndDeviceWork() {
        QCOMPARE(kernelNameOf("loop_add_fusion.1"), std::string("loop_add_fusion_1"));
        QCOMPARE(kernelNameOf("gemm_fusion_dot_general.12"),
                 std::string("gemm_fusion_dot_general_12"));
        QCOMPARE(kernelNameOf("custom-call.3"), std::string("custom_call_3"));
        QCOMPARE(kernelNameOf("a$b"), std::string("a$b"));
        QCOMPARE(kernelNameOf("3d.conv"), std::string("_3d_conv"));
        QCOMPARE(kernelNameOf(""), std::string("__unnamed"));
        QCOMPARE(kernelNameOf("."), std::string("__"));
        QCOMPARE(kernelNameOf("$"), std::string("$_"));
        HloInstruction h;
        for (const char* op : {"fusion", "custom-call", "copy", "all-reduce-start", "while",
                               "async-start", "sort"}) {
            h.opcode = op;
            QVERIFY2(emitsDeviceWork(h), op);
        }
        for (const char* op : {"parameter", "constant", "get-tuple-element", "tuple", "bitcast",
                               "after-all", "add-dependency", "opt-barrier", "domain",
                               "all-reduce-done", "copy-done", "async-done", "async-update"}) {
            h.opcode = op;
            QVERIFY2(!emitsDeviceWork(h), op);
        }
        QVERIFY(isMemsetName("Memset 0"));
        QVERIFY(!isMemsetName("memset_fusion"));
    }

    void fusionsAlignByName() {
        const ScheduleFixture f(
            {"p0", "loop_a_fusion", "gte.1", "loop_b_fusion.1", "input_c_fusion.2", "tuple.1"});
        QCOMPARE(f.schedule->size(), size_t(3)); // parameter, gte and tuple run nothing
        QCOMPARE(f.align({"loop_a_fusion", "loop_b_fusion_1", "input_c_fusion_2"}),
                 (Names{"loop_a_fusion", "loop_b_fusion.1", "input_c_fusion.2"}));
        // A fusion that recorded nothing is skipped over.
        QCOMPARE(f.align({"loop_a_fusion", "input_c_fusion_2"}),
                 (Names{"loop_a_fusion", "input_c_fusion.2"}));
        // Names are matched at or after the cursor only: out of order, the later one is lost.
        QCOMPARE(f.align({"input_c_fusion_2", "loop_a_fusion"}), (Names{"input_c_fusion.2", "-"}));
    }

    void reusedKernelTakesTheFusionAtTheCursor() {
        const ScheduleFixture f({"loop_convert_multiply_fusion", "cc.3", "gte.9",
                                 "loop_convert_multiply_fusion.1", "loop_add_fusion"});
        QCOMPARE(f.align({"loop_convert_multiply_fusion", "Memset 0", "nvjet_a",
                          "loop_convert_multiply_fusion", "loop_add_fusion"}),
                 (Names{"loop_convert_multiply_fusion", "cc.3", "cc.3",
                        "loop_convert_multiply_fusion.1", "loop_add_fusion"}));
        // Library kernels do not move the anchors: the reused kernel takes the next fusion like
        // it, and the GEMM after it, out of the schedule's order, finds no custom-call between
        // that fusion and the next one: it stays unattributed rather than guessed.
        QCOMPARE(
            f.align({"loop_convert_multiply_fusion", "loop_convert_multiply_fusion", "nvjet_a"}),
            (Names{"loop_convert_multiply_fusion", "loop_convert_multiply_fusion.1", "-"}));
        // At the cursor is a fusion unlike the one the kernel was compiled for.
        const ScheduleFixture g({"loop_a_fusion", "loop_b_fusion"});
        QCOMPARE(g.align({"loop_a_fusion", "loop_a_fusion"}), (Names{"loop_a_fusion", "-"}));
        QVERIFY(fusedSignature(*g.decoded, *g.decoded->instructionNamed("loop_a_fusion")) !=
                fusedSignature(*g.decoded, *g.decoded->instructionNamed("loop_b_fusion")));
        QCOMPARE(fusedSignature(*g.decoded, *g.decoded->instructionNamed("loop_b_fusion")),
                 std::string("negate f32,4;parameter f32,4;"));
    }

    void libraryKernelsTakeCustomCallsWithTheirMemsets() {
        const ScheduleFixture f({"p0", "wrapped_convert", "cc.4", "gte.1", "loop_fusion", "cc.0",
                                 "all-reduce-start.1", "all-reduce-done.1", "loop_fusion.1"});
        QCOMPARE(f.align({"wrapped_convert", "Memset 0", "nvjet_sm90_a", "loop_fusion", "Memset 0",
                          "Memset 0", "nvjet_sm90_b", "ncclDevKernel_AllReduce", "loop_fusion_1"}),
                 (Names{"wrapped_convert", "cc.4", "cc.4", "loop_fusion", "cc.0", "cc.0", "cc.0",
                        "all-reduce-start.1", "loop_fusion.1"}));
        // A memset before a fusion kernel, or at the end, is nobody's.
        QCOMPARE(f.align({"Memset 0", "wrapped_convert", "Memset 0"}),
                 (Names{"-", "wrapped_convert", "-"}));
    }

    void consecutiveCustomCallsTakeOneLibraryKernelEach() {
        const ScheduleFixture f({"p0", "cc.0", "gte.0", "cc.1", "gte.1", "loop_fusion"});
        QCOMPARE(f.align({"Memset 0", "nvjet_a", "Memset 0", "nvjet_b", "loop_fusion"}),
                 (Names{"cc.0", "cc.0", "cc.1", "cc.1", "loop_fusion"}));
        // The same kernel twice (two GEMMs of one shape) still moves on.
        QCOMPARE(f.align({"nvjet_a", "nvjet_a"}), (Names{"cc.0", "cc.1"}));
    }

    // One call that runs two kernels (cuBLAS's split-K GEMM and its reduction) must not push the
    // fusions after it out of reach: every later kernel still aligns (the review's fixture,
    // where a moving cursor lost loop_add_fusion and shifted every later GEMM by one call).
    void aCallsSecondKernelShiftsNothing() {
        const ScheduleFixture f({"cc.1", "loop_add_fusion", "cc.2", "loop_multiply_fusion", "cc.3",
                                 "loop_subtract_fusion"});
        QCOMPARE(f.align({"nvjet_a", "splitKreduce_kernel", "loop_add_fusion", "nvjet_b",
                          "loop_multiply_fusion", "nvjet_c", "loop_subtract_fusion"}),
                 (Names{"cc.1", "cc.1", "loop_add_fusion", "cc.2", "loop_multiply_fusion", "cc.3",
                        "loop_subtract_fusion"}));
        // An unknown second kernel between two fusions with one call between them: one call, so
        // the first takes it and the extra main kernel stays unattributed; the rest align.
        QCOMPARE(f.align({"nvjet_a", "loop_add_fusion", "nvjet_b", "mystery_kernel",
                          "loop_multiply_fusion", "nvjet_c"}),
                 (Names{"cc.1", "loop_add_fusion", "cc.2", "-", "loop_multiply_fusion", "cc.3"}));
    }

    void eventsPastTheScheduleStayUnattributed() {
        const ScheduleFixture f({"p0", "loop_fusion", "cc.0"});
        QCOMPARE(f.align({"loop_fusion", "nvjet_a", "nvjet_b", "loop_fusion", "other_kernel"}),
                 (Names{"loop_fusion", "cc.0", "-", "-", "-"}));
        QCOMPARE(f.align({}), Names());
    }

    void aLaterCommandBufferStartsMidSchedule() {
        // Command buffer 1 ran cc.0 and loop_a_fusion, command buffer 2 the rest: its launch
        // begins with a library kernel before the first kernel that names an instruction.
        const ScheduleFixture f({"cc.0", "loop_a_fusion", "cc.1", "loop_b_fusion", "cc.2"});
        QCOMPARE(f.align({"Memset 0", "nvjet_b", "loop_b_fusion", "nvjet_c"}),
                 (Names{"cc.1", "cc.1", "loop_b_fusion", "cc.2"}));
        QCOMPARE(f.align({"nvjet_a", "loop_a_fusion", "nvjet_b"}),
                 (Names{"cc.0", "loop_a_fusion", "cc.1"}));
        // More library kernels before the anchor than custom-calls before it: the first takes the
        // call, the one beyond stays unattributed; the anchor holds.
        QCOMPARE(f.align({"nvjet_x", "nvjet_y", "loop_a_fusion"}),
                 (Names{"cc.0", "-", "loop_a_fusion"}));
        // A reused kernel before the anchor moves the start back over a fusion like it (the
        // kernel's own fusion is not in this schedule).
        const ScheduleFixture g({"cc.0", "cc.1", "loop_a_fusion.1", "loop_b_fusion"},
                                {"loop_a_fusion"});
        QCOMPARE(g.align({"nvjet_b", "loop_a_fusion", "loop_b_fusion"}),
                 (Names{"cc.1", "loop_a_fusion.1", "loop_b_fusion"}));
        // The documented limit: when the anchor itself is a reused kernel whose fusion is in
        // the schedule, it anchors at that fusion, too early.
        const ScheduleFixture h(
            {"cc.0", "loop_a_fusion", "cc.1", "loop_a_fusion.1", "loop_b_fusion"});
        QCOMPARE(h.align({"nvjet_b", "loop_a_fusion", "loop_b_fusion"}),
                 (Names{"cc.0", "loop_a_fusion", "loop_b_fusion"}));
    }

    // ---- the catalog

    void catalogFindsModulesByProgramIdAndName() {
        HloModuleFixture a("jit__normal", 11), b("jit__normal", 12), c("jit_step", 13);
        for (HloModuleFixture* m : {&a, &b, &c}) {
            m->computation("main");
            m->add("p", "parameter", testhlo::F32, {2});
            m->fusion("loop_multiply_fusion", testhlo::F32, "main", {"p"});
            m->add("while.1", "while", testhlo::F32, {2});
        }
        b.add("only_in_b.1", "fusion", testhlo::F32, {2});
        FixtureSpace space;
        addHloMetadataPlane(
            space, 0,
            {{a.name(), 11, a.bytes()}, {b.name(), 12, b.bytes()}, {c.name(), 13, c.bytes()}});
        FixtureLine& host = space.addPlane(1, "/host:CPU").addLine(1, "main", 1000);
        host.add("loop_multiply_fusion", 0, us,
                 xlaEventStats("loop_multiply_fusion", "jit_step", 13, 1));
        FixtureLine& s = space.addPlane(2, "/device:GPU:0").addLine(7, "Stream #7(Compute)", 1000);
        s.add("k_by_program", 0, us, xlaEventStats("only_in_b.1", "jit__normal", 12, 2));
        s.add("k_wrong_program", 2 * us, us, xlaEventStats("only_in_b.1", "jit__normal", 11, 3));
        s.add("k_shared_name", 4 * us, us, xlaEventStats("only_in_b.1", "jit__normal", -1, 4));
        s.add("k_by_name", 6 * us, us, xlaEventStats("loop_multiply_fusion", "jit_step", -1, 5));
        s.add("k_unknown_program", 8 * us, us,
              xlaEventStats("loop_multiply_fusion", "jit_step", 99, 6));
        s.add("k_nested", 10 * us, us,
              xlaEventStats("while.1::loop_multiply_fusion", "jit_step", 13, 7));
        s.add("k_no_such_op", 12 * us, us, xlaEventStats("fusion.404", "jit_step", 13, 8));
        s.add("k_no_hlo_op", 14 * us, us, {FixtureStat::int64("program_id", 13)});
        const LoadResult r = load(space);
        QVERIFY2(r.ok(), r.error.c_str());
        const HloCatalog catalog(*r.profile);
        QVERIFY(!catalog.empty());
        QVERIFY(catalog.errors().empty());
        QCOMPARE(catalog.modules().size(), size_t(3));
        QCOMPARE(catalog.module(0, 12)->id, int64_t(12));
        QCOMPARE(catalog.module(0, 11)->instructionNamed("only_in_b.1"), nullptr);
        QVERIFY(!catalog.module(1, 12)); // another host
        QVERIFY(!catalog.module(0, 99));
        QCOMPARE(attributed(*r.profile, catalog),
                 (Names{"only_in_b.1", "-", "-", "loop_multiply_fusion", "loop_multiply_fusion",
                        "loop_multiply_fusion", "-", "-"}));
        // The module an event resolves to is the one named by its program id.
        const EventIndex first = r.profile->tracks()[r.profile->planes()[2].firstTrack].firstEvent;
        QCOMPARE(catalog.instructionOf(first).module, catalog.module(0, 12));
        QCOMPARE(catalog.instructionOf(first + 3).module, catalog.module(0, 13));
        // Host events are not device ops.
        const EventIndex hostEvent = r.profile->eventsByName("loop_multiply_fusion").at(0);
        QVERIFY(!catalog.instructionOf(hostEvent));
        QVERIFY(!catalog.instructionOf(EventIndex(r.profile->eventCount() + 5)));
    }

    void catalogAlignsCommandBufferLaunches() {
        FixtureSpace space = commandBufferFixture();
        // A replay of the same graph (correlation id 11) and one of a module without an HLO
        // proto (correlation id 12).
        FixtureLine& stream = space.planes[2].lines[0];
        int64_t t = 50 * us;
        for (const char* k : {"loop_convert_fusion", "Memset 0", "nvjet_sm90_tst_fixture",
                              "loop_add_fusion", "loop_add_fusion"}) {
            stream.add(k, t, us, xlaEventStats("command_buffer_1", "jit_step", 7, 11, 3));
            t += us;
        }
        stream.add("loop_add_fusion", 60 * us, us,
                   xlaEventStats("command_buffer_1", "jit_other", 8, 12, 4));
        const LoadResult r = load(space);
        QVERIFY2(r.ok(), r.error.c_str());
        const HloCatalog catalog(*r.profile);
        const Names launch{"loop_convert_fusion", "custom-call.0", "custom-call.0",
                           "loop_add_fusion", "loop_add_fusion.1"};
        Names expected = launch;
        expected.push_back("direct"); // the kernel outside the graph, named by its hlo_op
        expected += launch;
        expected.push_back("-");
        QCOMPARE(attributed(*r.profile, catalog, true), expected);
        const EventIndex gemm = r.profile->eventsByName("nvjet_sm90_tst_fixture").at(0);
        const HloOpRef ref = catalog.instructionOf(gemm);
        QVERIFY(ref.viaCommandBuffer);
        QCOMPARE(ref.module->name, std::string("jit_step"));
        QCOMPARE(catalog.opPath(ref), std::string_view("jit(step)/dot_general"));
        QCOMPARE(ref.precision, Precision::BF16);
        QVERIFY(ref.matrix);
        QCOMPARE(catalog.opPath({}), std::string_view());
        QCOMPARE(HloOpRef{}.precision, Precision::Unknown);
    }

    void launchesAreSplitByCorrelationAndTrack() {
        FixtureSpace space = commandBufferFixture();
        // Two launches whose kernels interleave on two streams: each stream's run is aligned
        // on its own (kernels of one correlation id on another track are another launch).
        FixturePlane& gpu = space.planes[2];
        FixtureLine& other = gpu.addLine(15, "Stream #15(Compute)", 1000);
        other.add("nvjet_sm90_tst_fixture", 10 * us, us,
                  xlaEventStats("command_buffer_1", "jit_step", 7, 9, 3));
        const LoadResult r = load(space);
        QVERIFY2(r.ok(), r.error.c_str());
        const HloCatalog catalog(*r.profile);
        QCOMPARE(attributed(*r.profile, catalog),
                 (Names{"loop_convert_fusion", "custom-call.0", "custom-call.0", "loop_add_fusion",
                        "loop_add_fusion.1", "loop_convert_fusion", "custom-call.0"}));
    }

    void catalogPicksTheComputationThatAligns() {
        HloModuleFixture m("jit_loop", 5);
        m.computation("fused_body");
        m.add("param_0", "parameter", testhlo::F32, {4});
        m.computation("fused_main");
        m.add("param_0.1", "parameter", testhlo::BF16, {4});
        m.computation("body");
        m.add("param", "parameter", testhlo::F32, {4});
        m.fusion("loop_body_fusion", testhlo::F32, "fused_body", {"param"});
        m.customCall("custom-call.9", "__cublas$gemm", testhlo::F32, {"loop_body_fusion"});
        m.computation("main");
        m.entry("main");
        m.add("p", "parameter", testhlo::F32, {4});
        m.fusion("loop_main_fusion", testhlo::F32, "fused_main", {"p"});
        m.add("while.1", "while", testhlo::F32, {4}, {"loop_main_fusion"}, {"body"});
        m.schedule("main", {"p", "loop_main_fusion", "while.1"});
        m.schedule("body", {"param", "loop_body_fusion", "custom-call.9"});
        FixtureSpace space;
        addHloMetadataPlane(space, 0, {{m.name(), 5, m.bytes()}});
        FixtureLine& s = space.addPlane(1, "/device:GPU:0").addLine(7, "Stream #7", 1000);
        s.add("loop_body_fusion", 0, us, xlaEventStats("command_buffer_2", "jit_loop", 5, 1, 2));
        s.add("gemm_kernel", us, us, xlaEventStats("command_buffer_2", "jit_loop", 5, 1, 2));
        s.add("loop_main_fusion", 4 * us, us,
              xlaEventStats("command_buffer_1", "jit_loop", 5, 2, 1));
        s.add("gemm_kernel", 5 * us, us, xlaEventStats("command_buffer_1", "jit_loop", 5, 2, 1));
        const LoadResult r = load(space);
        QVERIFY2(r.ok(), r.error.c_str());
        const HloCatalog catalog(*r.profile);
        // The body's schedule explains both events of the first launch; the entry's explains
        // the second launch (its library kernel takes the while, the entry's only non-fusion).
        QCOMPARE(attributed(*r.profile, catalog),
                 (Names{"loop_body_fusion", "custom-call.9", "loop_main_fusion", "while.1"}));
    }

    void catalogReportsModulesThatFailToDecode() {
        HloModuleFixture good("jit_good", 1);
        good.computation("main");
        good.add("p", "parameter", testhlo::F32);
        FixtureSpace space;
        const std::string bad = good.bytes().substr(0, good.bytes().size() - 2);
        addHloMetadataPlane(space, 0, {{"jit_good", 1, good.bytes()}, {"jit_bad", 2, bad}});
        space.addPlane(1, "/device:GPU:0").addLine(7, "Stream #7", 1000).add("k", 0, us, {});
        const LoadResult r = load(space);
        QVERIFY2(r.ok(), r.error.c_str());
        const HloCatalog catalog(*r.profile);
        QCOMPARE(catalog.modules().size(), size_t(1));
        QCOMPARE(catalog.errors().size(), size_t(1));
        const std::string& e = catalog.errors()[0];
        QVERIFY2(e.starts_with("HLO module jit_bad(2): at byte "), e.c_str());
        QVERIFY2(e.find("runs past the end") != std::string::npos, e.c_str());
        // The overview says so among what makes the data incomplete.
        const Overview o = computeOverview(*r.profile);
        QVERIFY(std::any_of(o.completeness.begin(), o.completeness.end(), [&](const auto& c) {
            return c.starts_with(e) && c.ends_with("(its kernels are named by hlo_op alone)");
        }));
    }

    void profileWithoutHloIsEmpty() {
        FixtureSpace space = trainingHostFixture();
        const LoadResult r = load(space);
        QVERIFY2(r.ok(), r.error.c_str());
        const HloCatalog catalog(*r.profile);
        QVERIFY(catalog.empty());
        QVERIFY(catalog.errors().empty());
        for (EventIndex e = 0; e < r.profile->eventCount(); ++e) QVERIFY(!catalog.instructionOf(e));
    }

    // ---- precision

    void precisionOfElementTypes() {
        using T = HloElementType;
        const std::pair<T, Precision> floats[] = {
            {T::F16, Precision::FP16},       {T::BF16, Precision::BF16},
            {T::F32, Precision::FP32},       {T::F64, Precision::FP64},
            {T::F8E5M2, Precision::FP8},     {T::F8E4M3, Precision::FP8},
            {T::F8E4M3FN, Precision::FP8},   {T::F8E4M3B11FNUZ, Precision::FP8},
            {T::F8E3M4, Precision::FP8},     {T::F8E5M2FNUZ, Precision::FP8},
            {T::F8E4M3FNUZ, Precision::FP8}, {T::F8E8M0FNU, Precision::FP8},
            {T::F4E2M1FN, Precision::FP4},   {T::C64, Precision::FP32},
            {T::C128, Precision::FP64}};
        for (const auto& [type, precision] : floats)
            for (bool matrix : {false, true})
                QCOMPARE(precisionOfElementType(type, matrix), std::optional(precision));
        for (T t : {T::S8, T::U8}) {
            QCOMPARE(precisionOfElementType(t, true), std::optional(Precision::INT8));
            QCOMPARE(precisionOfElementType(t, false), std::nullopt);
        }
        for (T t : {T::Pred, T::S4, T::S16, T::S32, T::S64, T::U32, T::U64, T::Tuple, T::Token,
                    T::OpaqueType, T::Invalid, T(99)})
            for (bool matrix : {false, true})
                QCOMPARE(precisionOfElementType(t, matrix), std::nullopt);
    }

    void matrixOps() {
        for (const char* t : {"__cublas$gemm", "__cublas$lt$matmul", "__cublas$lt$matmul$f8",
                              "__cudnn$convForward", "__cudnn$convBackwardInput",
                              "__cudnn$convBackwardFilter", "__cudnn$convBiasActivationForward",
                              "__cudnn$fmhaSoftmax", "__cudnn$fhmaScaleBiasMaskSoftmax"})
            QVERIFY2(isMatrixLibraryCall(t), t);
        for (const char* t : {"__cudnn$convReorderFilter", "__cudnn$convReorderFilterAndBias",
                              "__cublas$triangularSolve", "__cub$DeviceRadixSort", "", "Sharding"})
            QVERIFY2(!isMatrixLibraryCall(t), t);
    }

    // A crafted module nesting fusions 200,000 deep (each computation holds one fusion calling
    // the next; the last holds a dot) overflowed the stack of a recursive search.
    void deepFusionChainsAreSearchedWithoutRecursion() {
        constexpr int kDepth = 200000;
        HloModule m;
        m.computations.resize(kDepth + 1);
        for (int c = 0; c <= kDepth; ++c) {
            HloComputation& comp = m.computations[size_t(c)];
            comp.id = c + 1;
            comp.name = "c" + std::to_string(c);
            HloInstruction i;
            i.id = int64_t(c) + 1000000;
            i.name = "i" + std::to_string(c);
            i.opcode = c < kDepth ? "fusion" : "dot";
            if (c < kDepth) i.calledComputationIds = {c + 2};
            comp.instructions.push_back(std::move(i));
        }
        m.index();
        QVERIFY(isMatrixInstruction(m, m.computations[0].instructions[0]));
        m.computations[kDepth].instructions[0].opcode = "add";
        QVERIFY(!isMatrixInstruction(m, m.computations[0].instructions[0]));
    }

    void precisionRules() {
        using testhlo::BF16;
        using testhlo::F32;
        HloModuleFixture m("jit_p", 1);
        m.computation("fused_gemm");
        m.add("a", "parameter", testhlo::F8E4M3FN, {4, 4});
        m.add("a.cvt", "convert", BF16, {4, 4}, {"a"});
        m.add("b", "parameter", BF16, {4, 4});
        m.add("dot.0", "dot", F32, {4, 4}, {"a.cvt", "b"});
        m.computation("fused_outer"); // a fusion whose dot sits one fusion deeper
        m.add("o", "parameter", F32, {4, 4});
        m.fusion("inner_fusion", F32, "fused_gemm", {"o"});
        m.computation("fused_add");
        m.add("x", "parameter", F32, {4, 4});
        m.add("add.0", "add", F32, {4, 4}, {"x", "x"});
        m.computation("main");
        m.entry("main");
        m.add("f32", "parameter", F32, {4, 4});
        m.add("bf16", "parameter", BF16, {4, 4});
        m.add("s8", "parameter", testhlo::S8, {4, 4});
        m.add("s32", "parameter", testhlo::S32, {4, 4});
        m.add("f8", "parameter", testhlo::F8E5M2, {4, 4});
        m.add("f4", "parameter", testhlo::F4E2M1FN, {4, 4});
        m.add("f64", "parameter", testhlo::F64, {4, 4});
        m.add("scale", "parameter", F32, {});
        m.add("dot_bf16", "dot", F32, {4, 4}, {"bf16", "bf16"});
        m.add("dot_int8", "dot", testhlo::S32, {4, 4}, {"s8", "s8"});
        m.add("dot_s32", "dot", testhlo::S32, {4, 4}, {"s32", "s32"});
        m.add("dot_f64", "dot", testhlo::F64, {4, 4}, {"f64", "f64"});
        m.add("dot_to_bf16", "dot", BF16, {4, 4}, {"f32", "f32"});
        m.add("conv", "convolution", F32, {4, 4}, {"f32", "f32"});
        m.fusion("gemm_fusion", F32, "fused_gemm", {"f8", "bf16"}, "kCustom");
        m.fusion("outer_fusion", F32, "fused_outer", {"f32"});
        m.fusion("loop_add_fusion", F32, "fused_add", {"f32"});
        m.customCall("cublas_bf16", "__cublas$lt$matmul", F32, {"bf16", "bf16"});
        m.customCall("cublas_f8", "__cublas$lt$matmul$f8", BF16, {"f8", "f8", "scale", "scale"});
        m.customCall("cublas_f4", "__cublas$lt$matmul", BF16, {"f4", "f4"});
        m.customCall("sort", "__cub$DeviceRadixSort", F32, {"s32"});
        m.add("convert_down", "convert", BF16, {4, 4}, {"f32"});
        m.add("compare", "compare", testhlo::PRED, {4, 4}, {"f32", "f32"});
        m.add("int_add", "add", testhlo::S32, {4, 4}, {"s32", "s32"});
        m.add("int8_add", "add", testhlo::S8, {4, 4}, {"s8", "s8"});
        testhlo::ShapeProto* out =
            m.add("tuple_out", "fusion", testhlo::TUPLE, {}, {"f32"}).mutable_shape();
        out->add_tuple_shapes()->set_element_type(testhlo::F16);
        out->add_tuple_shapes()->set_element_type(testhlo::PRED);
        const std::optional<HloModule> d = decode(m.bytes());
        QVERIFY(d);
        const auto check = [&](const char* name, Precision p, bool matrix) {
            const HloInstruction* h = d->instructionNamed(name);
            QVERIFY2(h, name);
            QCOMPARE(instructionPrecision(*d, *h), p);
            QCOMPARE(isMatrixInstruction(*d, *h), matrix);
        };
        check("dot_bf16", Precision::BF16, true); // the f32 result does not count
        check("dot_int8", Precision::INT8, true);
        check("dot_s32", Precision::Unknown, true); // wide integers never count
        check("dot_f64", Precision::FP64, true);
        check("dot_to_bf16", Precision::FP32, true); // nor does a bf16 result of f32 inputs
        check("conv", Precision::FP32, true);        // f32 stays FP32: the HLO cannot tell TF32
        check("gemm_fusion", Precision::BF16, true); // the dot's operands, inside the fusion
        check("outer_fusion", Precision::BF16, true);
        check("loop_add_fusion", Precision::FP32, false);
        check("cublas_bf16", Precision::BF16, true);
        check("cublas_f8", Precision::FP8, true); // f32 scales do not widen it
        check("cublas_f4", Precision::FP4, true);
        check("sort", Precision::FP32, false); // not a matrix op: its f32 result counts
        check("convert_down", Precision::BF16, false);
        check("compare", Precision::FP32, false); // pred never counts
        check("int_add", Precision::Unknown, false);
        check("int8_add", Precision::Unknown, false); // int8 counts for matrix ops only
        check("tuple_out", Precision::FP16, false);   // tuple leaves count
        check("a", Precision::FP8, false);
    }
};

QTEST_GUILESS_MAIN(TestHlo)
#include "test_hlo.moc"
