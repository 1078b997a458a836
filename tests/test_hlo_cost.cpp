// The HLO cost model (model/analysis/HloCostModel) on hand-built modules: every expected FLOP and
// byte count is worked out in the comment above it from the shapes, by the rules of XLA's
// HloCostAnalysis (xla/service/hlo_cost_analysis.cc) that docs/roofline.md states. Modules are
// written with protobuf's classes (tests/fixtures/hlo_subset.proto) and read by the decoder.
#include <QtTest>

#include "model/analysis/HloCostModel.h"
#include "model/xspace/HloProto.h"
#include "tests/fixtures/HloFixtures.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {

HloModule decoded(const HloModuleFixture& f) {
    const std::string bytes = f.bytes();
    std::string error;
    std::optional<HloModule> m =
        decodeHloProto({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, error);
    if (!m) qFatal("fixture does not decode: %s", error.c_str());
    return std::move(*m);
}

OpCost costOf(const HloModule& m, const std::string& name) {
    HloCostModel model(m);
    const HloInstruction* i = m.instructionNamed(name);
    if (!i) qFatal("no instruction %s", name.c_str());
    return model.cost(*i);
}

void setDot(testhlo::HloInstructionProto& h, std::vector<int64_t> lhsContracting,
            std::vector<int64_t> rhsContracting, std::vector<int64_t> lhsBatch = {},
            std::vector<int64_t> rhsBatch = {}) {
    auto* d = h.mutable_dot_dimension_numbers();
    for (int64_t v : lhsContracting) d->add_lhs_contracting_dimensions(v);
    for (int64_t v : rhsContracting) d->add_rhs_contracting_dimensions(v);
    for (int64_t v : lhsBatch) d->add_lhs_batch_dimensions(v);
    for (int64_t v : rhsBatch) d->add_rhs_batch_dimensions(v);
}

// A computation "add_reducer" (f32 x + y: 1 FLOP), then the entry computation "main" to add to.
void addReducerAndMain(HloModuleFixture& f) {
    f.computation("add_reducer");
    f.add("x", "parameter", testhlo::F32, {});
    f.add("y", "parameter", testhlo::F32, {});
    f.add("sum", "add", testhlo::F32, {}, {"x", "y"});
    f.computation("main");
    f.entry("main");
}

// A 2-d convolution in NHWC (b01f) x HWIO (01io) -> NHWC: every spatial dimension gets `size`,
// `stride` and padding `pad` on both sides.
void setConvolution(testhlo::HloInstructionProto& h, int64_t size, int64_t stride, int64_t pad,
                    int64_t featureGroups = 1) {
    for (int s = 0; s < 2; ++s) {
        auto* w = h.mutable_window()->add_dimensions();
        w->set_size(size);
        w->set_stride(stride);
        w->set_padding_low(pad);
        w->set_padding_high(pad);
        w->set_window_dilation(1);
        w->set_base_dilation(1);
    }
    auto* d = h.mutable_convolution_dimension_numbers();
    d->set_input_batch_dimension(0);
    d->add_input_spatial_dimensions(1);
    d->add_input_spatial_dimensions(2);
    d->set_input_feature_dimension(3);
    d->add_kernel_spatial_dimensions(0);
    d->add_kernel_spatial_dimensions(1);
    d->set_kernel_input_feature_dimension(2);
    d->set_kernel_output_feature_dimension(3);
    d->set_output_batch_dimension(0);
    d->add_output_spatial_dimensions(1);
    d->add_output_spatial_dimensions(2);
    d->set_output_feature_dimension(3);
    h.set_feature_group_count(featureGroups);
    h.set_batch_group_count(1);
}

} // namespace

class TestHloCost : public QObject {
    Q_OBJECT

private slots:
    void shapeSizes() {
        HloShape s{HloElementType::BF16, {4096, 8192}, {}};
        using Count = std::optional<int64_t>;
        QCOMPARE(elementCount(s), Count(int64_t(4096) * 8192));
        QCOMPARE(shapeBytes(s), Count(int64_t(4096) * 8192 * 2));
        // s4 packs two elements a byte: 3 elements are 12 bits, 2 bytes.
        QCOMPARE(shapeBytes(HloShape{HloElementType::S4, {3}, {}}), Count(2));
        QCOMPARE(shapeBytes(HloShape{HloElementType::F32, {}, {}}), Count(4)); // a scalar
        // A tuple counts its array leaves: f32[2] + (pred[3], token) = 8 + 3 + 0.
        HloShape t{HloElementType::Tuple, {}, {}};
        t.tupleShapes.push_back({HloElementType::F32, {2}, {}});
        HloShape inner{HloElementType::Tuple, {}, {}};
        inner.tupleShapes.push_back({HloElementType::Pred, {3}, {}});
        inner.tupleShapes.push_back({HloElementType::Token, {}, {}});
        t.tupleShapes.push_back(inner);
        QCOMPARE(shapeBytes(t), Count(11));
        QCOMPARE(elementCount(t), Count(0));
        QCOMPARE(leafElementCount(t), Count(2 + 3 + 1));
    }

    // Shapes no real module has, as a made-up or damaged HLO proto can hold (fuzz_hlo_proto):
    // a count past int64 is unknown, never undefined behaviour or a wrapped number.
    void madeUpShapeSizesAreUnknown() {
        using Count = std::optional<int64_t>;
        const auto shape = [](HloElementType t, std::vector<int64_t> dims) {
            return HloShape{t, std::move(dims), {}};
        };
        constexpr int64_t k2to31 = int64_t(1) << 31;
        // 2^31 x 2^31 = 2^62 elements fit; as f32 they are 2^62 x 32 = 2^67 bits: unknown bytes.
        QCOMPARE(elementCount(shape(HloElementType::F32, {k2to31, k2to31})),
                 Count(int64_t(1) << 62));
        QCOMPARE(shapeBytes(shape(HloElementType::F32, {k2to31, k2to31})), Count());
        // u8[2^59]: 2^62 bits + 7 fit, 2^59 bytes.
        QCOMPARE(shapeBytes(shape(HloElementType::U8, {int64_t(1) << 59})),
                 Count(int64_t(1) << 59));
        // 2^32 x 2^32 = 2^64 elements: past int64.
        QCOMPARE(elementCount(shape(HloElementType::F32, {k2to31 * 2, k2to31 * 2})), Count());
        // A negative dimension (XLA's mark of an unbounded dynamic one).
        QCOMPARE(elementCount(shape(HloElementType::F32, {-1, 3})), Count());
        QCOMPARE(shapeBytes(shape(HloElementType::F32, {INT64_MIN})), Count());
        // A tuple whose leaves add up past int64: two of 2^62 elements; one alone fits.
        HloShape t{HloElementType::Tuple, {}, {}};
        for (int i = 0; i < 2; ++i)
            t.tupleShapes.push_back(shape(HloElementType::U8, {int64_t(1) << 62}));
        QCOMPARE(leafElementCount(t), Count());
        t.tupleShapes.pop_back();
        QCOMPARE(leafElementCount(t), Count(int64_t(1) << 62));
    }

    void dot() {
        HloModuleFixture f("jit_dot", 1);
        f.computation("main");
        f.add("lhs", "parameter", testhlo::BF16, {64, 128});
        f.add("rhs", "parameter", testhlo::BF16, {128, 256});
        setDot(f.add("dot.1", "dot", testhlo::F32, {64, 256}, {"lhs", "rhs"}), {1}, {0});
        const OpCost c = costOf(decoded(f), "dot.1");
        // M = 64, N = 256, K = 128: 2·M·N·K = 2 · 64 · 256 · 128 = 4,194,304.
        QCOMPARE(c.flops, std::optional<int64_t>(4194304));
        QCOMPARE(c.transcendentals, int64_t(0));
        // lhs 64·128·2 B = 16,384 + rhs 128·256·2 B = 65,536 + result 64·256·4 B = 65,536.
        QCOMPARE(c.bytes, std::optional<int64_t>(16384 + 65536 + 65536));
    }

    void batchedDot() {
        HloModuleFixture f("jit_bmm", 1);
        f.computation("main");
        f.add("lhs", "parameter", testhlo::F32, {8, 32, 64});
        f.add("rhs", "parameter", testhlo::F32, {8, 64, 16});
        setDot(f.add("dot.2", "dot", testhlo::F32, {8, 32, 16}, {"lhs", "rhs"}), {2}, {1}, {0},
               {0});
        const OpCost c = costOf(decoded(f), "dot.2");
        // Batch 8 of M = 32, N = 16, K = 64: 8 · 2 · 32 · 16 · 64 = 524,288 (2 x 4,096 result
        // elements x K 64).
        QCOMPARE(c.flops, std::optional<int64_t>(524288));
        // (8·32·64 + 8·64·16 + 8·32·16) elements x 4 B = (16,384 + 8,192 + 4,096) x 4 = 114,688.
        QCOMPARE(c.bytes, std::optional<int64_t>(114688));
    }

    void convolutionWithStrideAndPadding() {
        HloModuleFixture f("jit_conv", 1);
        f.computation("main");
        f.add("input", "parameter", testhlo::F32, {1, 5, 5, 2});
        f.add("kernel", "parameter", testhlo::F32, {3, 3, 2, 4});
        f.add("kernel_g", "parameter", testhlo::F32, {3, 3, 1, 4});
        // 3x3 window, stride 2, padding 1 on each side: output (5 + 2 - 3) / 2 + 1 = 3 per side.
        setConvolution(
            f.add("conv", "convolution", testhlo::F32, {1, 3, 3, 4}, {"input", "kernel"}), 3, 2, 1);
        setConvolution(
            f.add("conv_g", "convolution", testhlo::F32, {1, 3, 3, 4}, {"input", "kernel_g"}), 3, 2,
            1, 2);
        const HloModule m = decoded(f);
        const OpCost c = costOf(m, "conv");
        // Per spatial dimension, kernel tap k and output o read input o·2 - 1 + k, real only in
        // [0, 5):  k=0: o=0 -> -1 (padding), o=1 -> 1, o=2 -> 3        2 taps
        //          k=1: 0, 2, 4                                         3 taps
        //          k=2: 1, 3, o=2 -> 5 (padding)                        2 taps
        // 7 per dimension, 7 x 7 = 49 over both. FLOPs = 2 x input features 2 x output features
        // 4 x batch 1 x 49 = 784 (counting the padding too would give 2·2·4·81 = 1,296).
        QCOMPARE(c.flops, std::optional<int64_t>(784));
        // input 1·5·5·2 = 50, kernel 3·3·2·4 = 72, output 1·3·3·4 = 36 elements; x 4 B = 632.
        QCOMPARE(c.bytes, std::optional<int64_t>((50 + 72 + 36) * 4));
        // Two feature groups: each output feature sees 2 / 2 = 1 input feature: 2·1·4·1·49 = 392.
        QCOMPARE(costOf(m, "conv_g").flops, std::optional<int64_t>(392));
    }

    void fusionCostsItsComputationAndItsOwnBytes() {
        HloModuleFixture f("jit_fusion", 1);
        f.computation("fused");
        f.add("p0", "parameter", testhlo::F32, {1024});
        f.add("p1", "parameter", testhlo::F32, {1024});
        f.add("multiply.1", "multiply", testhlo::F32, {1024}, {"p0", "p1"});
        f.add("exponential.1", "exponential", testhlo::F32, {1024}, {"multiply.1"});
        f.add("add.1", "add", testhlo::F32, {1024}, {"exponential.1", "p0"});
        f.computation("main");
        f.entry("main");
        f.add("a", "parameter", testhlo::F32, {1024});
        f.add("b", "parameter", testhlo::F32, {1024});
        auto& fusion =
            f.add("loop_add_fusion", "fusion", testhlo::F32, {1024}, {"a", "b"}, {"fused"});
        fusion.set_fusion_kind("kLoop");
        const OpCost c = costOf(decoded(f), "loop_add_fusion");
        // multiply 1,024 + add 1,024 FLOPs; the exponential is 1,024 transcendentals.
        QCOMPARE(c.flops, std::optional<int64_t>(2048));
        QCOMPARE(c.transcendentals, int64_t(1024));
        // The fusion's operands a, b and its result: 3 x 1,024 x 4 B = 12,288. The fused
        // instructions' intermediates (another 3 x 4,096 B and the parameters' reads) do not
        // count: fusion keeps them out of memory.
        QCOMPARE(c.bytes, std::optional<int64_t>(12288));
    }

    void reductionAppliesItsReducer() {
        HloModuleFixture f("jit_reduce", 1);
        addReducerAndMain(f);
        f.add("in", "parameter", testhlo::F32, {32, 64});
        f.add("zero", "constant", testhlo::F32, {});
        f.add("reduce.1", "reduce", testhlo::F32, {32}, {"in", "zero"}, {"add_reducer"});
        const OpCost c = costOf(decoded(f), "reduce.1");
        // 32·64 = 2,048 inputs reduced to 32 results: 2,048 - 32 = 2,016 applications of the
        // reducer, which costs 1 FLOP (its add).
        QCOMPARE(c.flops, std::optional<int64_t>(2016));
        // input 2,048 x 4 B = 8,192 + the init scalar 4 B + result 32 x 4 B = 128: 8,324.
        QCOMPARE(c.bytes, std::optional<int64_t>(8324));
    }

    void cublasCallsTakeTheDotDimensionsOfTheirConfig() {
        HloModuleFixture f("jit_gemm", 1);
        f.computation("main");
        f.add("x", "parameter", testhlo::BF16, {4096, 2048});
        f.add("w", "parameter", testhlo::BF16, {2048, 8192});
        auto& cc = f.add("custom-call.2", "custom-call", testhlo::TUPLE, {}, {"x", "w"});
        cc.set_custom_call_target("__cublas$lt$matmul");
        auto* result = cc.mutable_shape()->add_tuple_shapes();
        result->set_element_type(testhlo::BF16);
        result->add_dimensions(4096);
        result->add_dimensions(8192);
        auto* workspace = cc.mutable_shape()->add_tuple_shapes();
        workspace->set_element_type(testhlo::S8);
        workspace->add_dimensions(33554432);
        // As XLA writes GpuBackendConfig: int64 values as JSON strings.
        cc.set_backend_config(R"({"operation_queue_id":"0","gemm_backend_config":{"alpha_real":1,)"
                              R"("dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],)"
                              R"("rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],)"
                              R"("rhs_batch_dimensions":[]}}})");
        auto& other = f.add("custom-call.3", "custom-call", testhlo::F32, {16}, {"x"});
        other.set_custom_call_target("__cudnn$fmhaSoftmax");
        const HloModule m = decoded(f);
        const OpCost c = costOf(m, "custom-call.2");
        // M 4,096, N 8,192, K 2,048: 2 · 4096 · 8192 · 2048 = 137,438,953,472.
        QCOMPARE(c.flops, std::optional<int64_t>(137438953472));
        // x 4096·2048·2 = 16,777,216 + w 2048·8192·2 = 33,554,432 + result 4096·8192·2 =
        // 67,108,864; the 32 MiB workspace is scratch, not traffic.
        QCOMPARE(c.bytes, std::optional<int64_t>(16777216 + 33554432 + 67108864));
        // A call the model has no rule for: FLOPs unknown, never 0.
        QVERIFY(!costOf(m, "custom-call.3").flops);
        QVERIFY(costOf(m, "custom-call.3").bytes);
    }

    void gemmConfigs() {
        const auto dims = gemmDotDimensions(
            R"({"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":)"
            R"(["2"],"rhs_contracting_dimensions":[1],"lhs_batch_dimensions":["0"],)"
            R"("rhs_batch_dimensions":["0"]}}})");
        QVERIFY(dims);
        QCOMPARE(dims->lhsContracting, std::vector<int64_t>{2});
        QCOMPARE(dims->rhsContracting, std::vector<int64_t>{1});
        QCOMPARE(dims->lhsBatch, std::vector<int64_t>{0});
        QVERIFY(!gemmDotDimensions(""));
        QVERIFY(!gemmDotDimensions("{not json"));
        QVERIFY(!gemmDotDimensions(R"({"gemm_backend_config":{}})"));
        QVERIFY(!gemmDotDimensions(
            R"({"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["x"]}}})"));
    }

    void unknownWorkStaysUnknown() {
        HloModuleFixture f("jit_unknown", 1);
        f.computation("body");
        f.add("p", "parameter", testhlo::F32, {4});
        auto& cc = f.add("cc", "custom-call", testhlo::F32, {4}, {"p"});
        cc.set_custom_call_target("my_pallas_kernel");
        f.computation("main");
        f.entry("main");
        f.add("x", "parameter", testhlo::F32, {4});
        f.add("while.1", "while", testhlo::F32, {4}, {"x"}, {"body"});
        auto& fusion = f.add("fusion.1", "fusion", testhlo::F32, {4}, {"x"}, {"body"});
        fusion.set_fusion_kind("kCustom");
        f.add("copy.1", "copy", testhlo::F32, {4}, {"x"});
        const HloModule m = decoded(f);
        QVERIFY(!costOf(m, "while.1").flops);
        // A fusion holding a call of unknown cost is unknown as a whole; its bytes are known.
        QVERIFY(!costOf(m, "fusion.1").flops);
        QCOMPARE(costOf(m, "fusion.1").bytes, std::optional<int64_t>(32));
        // Moving data is 0 FLOPs, known: 16 B read + 16 B written.
        QCOMPARE(costOf(m, "copy.1").flops, std::optional<int64_t>(0));
        QCOMPARE(costOf(m, "copy.1").bytes, std::optional<int64_t>(32));
    }

    // A scatter needs an input, its indices and an update; one without operands (a made-up
    // module) has unknown cost and is answered at once (it once looped 2^63 times).
    void scatterWithoutOperandsIsUnknown() {
        HloModuleFixture f("jit_scatter", 1);
        f.computation("main");
        f.add("s", "scatter", testhlo::F32, {4});
        const OpCost c = costOf(decoded(f), "s");
        QVERIFY(!c.flops);
        QVERIFY(!c.bytes);
    }

    // Made-up modules whose FLOPs or bytes would pass int64 (run through fuzz_hlo_proto, UBSan
    // reported the products of dimensions; the inputs are in tests/fuzz/corpus/hlo_proto):
    // unknown, and the largest that fit still counted.
    void costsPastInt64AreUnknown() {
        HloModuleFixture f("jit_huge", 1);
        addReducerAndMain(f);
        constexpr int64_t k2to20 = int64_t(1) << 20;
        f.add("a", "parameter", testhlo::F32, {k2to20, k2to20});
        // 2 x result 2^40 elements x contracting 2^20 = 2^61 FLOPs: fits.
        setDot(f.add("dot_fits", "dot", testhlo::F32, {k2to20, k2to20}, {"a", "a"}), {1}, {0});
        // 2 x result 2^42 elements x 2^20 = 2^63: one past INT64_MAX.
        setDot(f.add("dot_past", "dot", testhlo::F32, {2 * k2to20, 2 * k2to20}, {"a", "a"}), {1},
               {0});
        f.add("neg", "add", testhlo::F32, {-1, 3}, {"a", "a"});
        // A reduce to more elements (8) than its input has (4): no such reduce exists.
        f.add("in4", "parameter", testhlo::F32, {4});
        f.add("zero", "constant", testhlo::F32, {});
        f.add("widening_reduce", "reduce", testhlo::F32, {8}, {"in4", "zero"}, {"add_reducer"});
        // A reduce-window whose window has size 0.
        auto& rw = f.add("empty_window", "reduce-window", testhlo::F32, {4}, {"in4", "zero"},
                         {"add_reducer"});
        rw.mutable_window()->add_dimensions()->set_size(0);
        const HloModule m = decoded(f);
        QCOMPARE(costOf(m, "dot_fits").flops, std::optional<int64_t>(int64_t(1) << 61));
        // a twice (2 x 2^40 x 4 B) and the result (2^40 x 4 B): 3 x 2^42 B.
        QCOMPARE(costOf(m, "dot_fits").bytes, std::optional<int64_t>(3 * (int64_t(1) << 42)));
        QVERIFY(!costOf(m, "dot_past").flops);
        QVERIFY(!costOf(m, "neg").flops);
        QVERIFY(!costOf(m, "neg").bytes);
        QVERIFY(!costOf(m, "widening_reduce").flops);
        QVERIFY(!costOf(m, "empty_window").flops);
    }

    // XLA visits every (kernel position, output position) pair of a spatial dimension; past
    // kMaxConvolutionPairs a made-up convolution is unknown instead of a loop of 2^60 steps, and
    // a stride or padding whose positions pass int64 puts them outside the input.
    void convolutionsPastTheLimitsAreUnknown() {
        constexpr int64_t kPairs = kMaxConvolutionPairs;
        HloModuleFixture f("jit_conv_limits", 1);
        f.computation("main");
        f.add("input", "parameter", testhlo::F32, {1, kPairs, 1, 1});
        f.add("input_past", "parameter", testhlo::F32, {1, kPairs + 1, 1, 1});
        f.add("kernel", "parameter", testhlo::F32, {1, 1, 1, 1});
        f.add("small", "parameter", testhlo::F32, {1, 2, 2, 1});
        // 1-wide kernel, stride 1, no padding: kernel 1 x output kPairs pairs in dimension 1 (at
        // the limit), 1 x 1 in dimension 2; each reads a real input element: 2^24 x 1 positions,
        // x 2 x 1 input feature x 1 output feature x batch 1 = 2^25 FLOPs.
        setConvolution(
            f.add("at_limit", "convolution", testhlo::F32, {1, kPairs, 1, 1}, {"input", "kernel"}),
            1, 1, 0);
        setConvolution(f.add("past_limit", "convolution", testhlo::F32, {1, kPairs + 1, 1, 1},
                             {"input_past", "kernel"}),
                       1, 1, 0);
        // Output 2 x 2 over a 2 x 2 input with stride INT64_MAX and padding -1: output 0 reads
        // input 0 - (-1) = 1 (real), output 1 reads INT64_MAX + 1 (past int64: outside). One
        // position per dimension, 1 x 1; 2 x 1 x 1 x 1 x 1 = 2 FLOPs.
        auto& far =
            f.add("far_stride", "convolution", testhlo::F32, {1, 2, 2, 1}, {"small", "kernel"});
        setConvolution(far, 1, INT64_MAX, -1);
        const HloModule m = decoded(f);
        QCOMPARE(costOf(m, "at_limit").flops, std::optional<int64_t>(int64_t(1) << 25));
        QVERIFY(!costOf(m, "past_limit").flops);
        QCOMPARE(costOf(m, "far_stride").flops, std::optional<int64_t>(2));
    }

    void deepFusionNestingIsNotFollowed() {
        // 100 fusions, each calling the next computation: past the depth limit the cost is
        // unknown rather than a stack overflow.
        HloModuleFixture f("jit_deep", 1);
        constexpr int kDepth = 100;
        f.computation("c" + std::to_string(kDepth));
        f.add("leaf", "parameter", testhlo::F32, {4});
        for (int d = kDepth - 1; d >= 0; --d) {
            const std::string inner = "c" + std::to_string(d + 1);
            f.computation("c" + std::to_string(d));
            f.add("q" + std::to_string(d), "parameter", testhlo::F32, {4});
            f.add("f" + std::to_string(d), "fusion", testhlo::F32, {4}, {"q" + std::to_string(d)},
                  {inner});
        }
        f.entry("c0");
        QVERIFY(!costOf(decoded(f), "f0").flops);
    }
};

QTEST_GUILESS_MAIN(TestHloCost)
#include "test_hlo_cost.moc"
