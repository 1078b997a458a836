// FLOPs and bytes of PyTorch operator calls from their recorded args (model/analysis/TorchOpCost),
// on args written as the profiler writes them. Expected values are worked out in the comments by
// TraceLens's perf-model formulas (AMD-AGI/TraceLens TraceLens/PerfModel/perf_model.py).
#include <QtTest>
#include <cmath>

#include "model/analysis/TorchOpCost.h"

using namespace stepscope;

namespace {

OpCost cost(std::string_view name, std::string_view dims, std::string_view types,
            std::string_view concrete = {}, std::optional<double> flops = std::nullopt) {
    return torchOpCost(TorchOpArgs{name, dims, types, concrete, flops});
}

using Flops = std::optional<int64_t>;

} // namespace

class TestTorchOpCost : public QObject {
    Q_OBJECT

private slots:
    void elementSizes() {
        QCOMPARE(torchElementBytes("float"), 4);
        QCOMPARE(torchElementBytes("c10::BFloat16"), 2);
        QCOMPARE(torchElementBytes("c10::Half"), 2);
        QCOMPARE(torchElementBytes("c10::Float8_e4m3fn"), 1);
        QCOMPARE(torchElementBytes("long int"), 8);
        QCOMPARE(torchElementBytes("double"), 8);
        QCOMPARE(torchElementBytes("Scalar"), 0);
        QCOMPARE(torchElementBytes(""), 0);
        QCOMPARE(torchElementBytes("TensorList"), 0);
    }

    void gemms() {
        // aten::mm A[4096, 1024] x B[1024, 3072], bf16: 2 · 4096 · 3072 · 1024 = 25,769,803,776;
        // bytes (4096·1024 + 1024·3072 + 4096·3072) x 2 = (4,194,304 + 3,145,728 + 12,582,912)
        // x 2 = 39,845,888.
        OpCost c = cost("aten::mm", "[[4096, 1024], [1024, 3072]]",
                        R"(["c10::BFloat16", "c10::BFloat16"])");
        QCOMPARE(c.flops, Flops(25769803776));
        QCOMPARE(c.bytes, Flops(39845888));
        // aten::addmm C[1024] + A[4096, 4096] x B[4096, 1024]: 2·4096·1024·4096 = 34,359,738,368
        // plus the bias add 4096·1024 = 4,194,304 -> 34,363,932,672. Bytes (4096·4096 +
        // 4096·1024 + 4096·1024 + C's 1024) x 2 = (16,777,216 + 8,388,608 + 1,024) x 2.
        c = cost("aten::addmm", "[[1024], [4096, 4096], [4096, 1024], [], []]",
                 R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])",
                 R"(["", "", "", "1", "1"])");
        QCOMPARE(c.flops, Flops(34363932672));
        QCOMPARE(c.bytes, Flops((16777216 + 8388608 + 1024) * 2));
        // aten::bmm [16, 128, 64] x [16, 64, 32], fp32: 16 · 2 · 128 · 32 · 64 = 8,388,608;
        // bytes 16 · (128·64 + 64·32 + 128·32) · 4 = 16 · 14,336 · 4 = 917,504.
        c = cost("aten::bmm", "[[16, 128, 64], [16, 64, 32]]", R"(["float", "float"])");
        QCOMPARE(c.flops, Flops(8388608));
        QCOMPARE(c.bytes, Flops(917504));
        // aten::matmul [512, 8, 1024] @ [1024, 3072]: a 2-d rhs folds the 512·8 = 4,096 rows
        // into one GEMM, 2 · 4096 · 3072 · 1024 = 25,769,803,776.
        c = cost("aten::matmul", "[[512, 8, 1024], [1024, 3072]]",
                 R"(["c10::BFloat16", "c10::BFloat16"])");
        QCOMPARE(c.flops, Flops(25769803776));
        // aten::linear input [8, 512, 1024], weight [4096, 1024], bias [4096]: rows 4,096,
        // 2 · 4096 · 4096 · 1024 + 4096 · 4096 = 34,359,738,368 + 16,777,216.
        c = cost("aten::linear", "[[8, 512, 1024], [4096, 1024], [4096]]",
                 R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])");
        QCOMPARE(c.flops, Flops(34359738368 + 16777216));
    }

    void convolution() {
        // aten::convolution input [2, 3, 32, 32], weight [16, 3, 3, 3], bias [16], stride 2,
        // padding 1, dilation 1: output side (32 + 2 - 2 - 1) / 2 + 1 = 16, output
        // [2, 16, 16, 16] = 8,192 elements. FLOPs 2 x 8,192 x (3·3·3 = 27) + bias 8,192 =
        // 442,368 + 8,192 = 450,560. Bytes (6,144 + 432 + 16 + 8,192) x 4 = 59,136.
        const OpCost c = cost(
            "aten::convolution", "[[2, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], [], [], []]",
            R"(["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"])",
            R"(["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"])");
        QCOMPARE(c.flops, Flops(450560));
        QCOMPARE(c.bytes, Flops(59136));
    }

    // Zero-sized dimensions, as an expert of a mixture of experts that got no tokens records
    // them, and a stride of 0: no crash (these divided by zero: SIGFPE), the GEMMs' FLOPs 0.
    void zeroSizedDimensionsAndZeroStrides() {
        // aten::matmul [2, 0, 3] @ [2, 3, 4], float: batch 2, M 0, N 4, K 3: 2 · 2·0·4·3 = 0
        // FLOPs; bytes 2 x (0·3 + 3·4 + 0·4) x 4 = 96.
        const OpCost bmm = cost("aten::matmul", "[[2, 0, 3], [2, 3, 4]]", R"(["float", "float"])");
        QCOMPARE(bmm.flops, Flops(0));
        QCOMPARE(bmm.bytes, Flops(96));
        // aten::linear input [4, 0], weight [8, 0]: M 4, N 8, K 0: 0 FLOPs; bytes
        // (4·0 + 0·8 + 4·8) x 4 = 128.
        const OpCost linear = cost("aten::linear", "[[4, 0], [8, 0]]", R"(["float", "float"])");
        QCOMPARE(linear.flops, Flops(0));
        QCOMPARE(linear.bytes, Flops(128));
        const OpCost conv = cost(
            "aten::convolution", "[[2, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], [], [], []]",
            R"(["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"])",
            R"(["", "", "", "[0, 0]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"])");
        QVERIFY(!conv.flops);
        QVERIFY(!conv.bytes);
    }

    void attention() {
        // The GPT trace's cuDNN attention: q, k, v [8, 16, 512, 64] bf16 (B, H, N, d), not
        // causal. Forward 2·B·H·N·N·d (Q·Kᵀ) + 2·B·H·N·N·d (P·V) = 4 · 8 · 16 · 512² · 64 =
        // 8,589,934,592. Bytes (q + k + v + o) = 4 x 4,194,304 elements x 2 B = 33,554,432.
        const std::string qkv = "[[8, 16, 512, 64], [8, 16, 512, 64], [8, 16, 512, 64], [], [], "
                                "[], [], [], [], [], [], [], []]";
        const std::string types = R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])";
        OpCost c =
            cost("aten::_cudnn_attention_forward", qkv, types,
                 R"(["", "", "", "", "", "", "512", "512", "True", "0.1", "False", "False", ""])");
        QCOMPARE(c.flops, Flops(8589934592));
        QCOMPARE(c.bytes, Flops(33554432));
        // is_causal True halves it.
        c = cost("aten::_cudnn_attention_forward", qkv, types,
                 R"(["", "", "", "", "", "", "512", "512", "True", "0.1", "True", "False", ""])");
        QCOMPARE(c.flops, Flops(4294967296));
        // Backward (grad_out, q, k, v, out, lse, ...): dV, dP, dQ, dK, four GEMMs of
        // 2·B·H·N·N·d each = 4 x 4,294,967,296 = 17,179,869,184; no recompute for cuDNN.
        // Bytes 2 x (q + k + v) + dO = 7 x 4,194,304 x 2 B = 58,720,256.
        c = cost(
            "aten::_cudnn_attention_backward",
            "[[8, 16, 512, 64], [8, 16, 512, 64], [8, 16, 512, 64], [8, 16, 512, 64], "
            "[8, 16, 512, 64], [8, 16, 512, 1], [], [], [], [], [], [], [], [], [], []]",
            R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])",
            R"(["", "", "", "", "", "", "", "", "", "", "", "512", "512", "0.1", "False", ""])");
        QCOMPARE(c.flops, Flops(17179869184));
        QCOMPARE(c.bytes, Flops(58720256));
        // FlashAttention's backward recomputes Q·Kᵀ: + 4,294,967,296.
        c = cost("aten::_scaled_dot_product_flash_attention_backward",
                 "[[8, 16, 512, 64], [8, 16, 512, 64], [8, 16, 512, 64], [8, 16, 512, 64]]",
                 R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])");
        QCOMPARE(c.flops, Flops(17179869184 + 4294967296));
        QCOMPARE(torchOpKind("aten::_cudnn_attention_backward"), TorchOpKind::Attention);
    }

    void elementwiseAndReductions() {
        // aten::add float [8, 512, 1024] + bf16 [8, 512, 1024] (alpha a Scalar): 4,194,304
        // FLOPs; bytes 4,194,304 x (4 + 2 + 4: the wider type out) = 41,943,040.
        OpCost c = cost("aten::add", "[[8, 512, 1024], [8, 512, 1024], []]",
                        R"(["float", "c10::BFloat16", "Scalar"])");
        QCOMPARE(c.flops, Flops(4194304));
        QCOMPARE(c.bytes, Flops(41943040));
        // A broadcast: [512, 8, 3072] + [3072]: 12,582,912 out; bytes (12,582,912 + 3,072 +
        // 12,582,912) x 2.
        c = cost("aten::add_", "[[512, 8, 3072], [3072], []]",
                 R"(["c10::BFloat16", "c10::BFloat16", "Scalar"])");
        QCOMPARE(c.flops, Flops(12582912));
        QCOMPARE(c.bytes, Flops((12582912 + 3072 + 12582912) * 2));
        // Shapes that do not broadcast: unknown.
        QVERIFY(!cost("aten::mul", "[[3, 4], [5]]", R"(["float", "float"])").flops);
        // copy_ bf16 <- float [1024, 4096]: 4,194,304 elements x (2 + 4) B.
        c = cost("aten::copy_", "[[1024, 4096], [1024, 4096], []]",
                 R"(["c10::BFloat16", "float", "Scalar"])");
        QCOMPARE(c.flops, Flops(4194304));
        QCOMPARE(c.bytes, Flops(4194304 * 6));
        // aten::sum [4096, 1024] over dim [0]: 4,194,304 inputs, 1,024 outputs.
        c = cost("aten::sum", "[[4096, 1024], [], [], []]",
                 R"(["c10::BFloat16", "ScalarList", "Scalar", ""])", R"(["", "[0]", "True", ""])");
        QCOMPARE(c.flops, Flops(4194304));
        QCOMPARE(c.bytes, Flops((4194304 + 1024) * 2));
    }

    void flopsArgAndUnknowns() {
        // with_flops=True's "flops" arg replaces the model's FLOPs; bytes stay the model's.
        const OpCost c = cost("aten::mm", "[[2, 3], [3, 4]]", R"(["float", "float"])", {}, 99.0);
        QCOMPARE(c.flops, Flops(99));
        QCOMPARE(c.bytes, Flops((6 + 12 + 8) * 4));
        // ... and gives FLOPs to an op the model has no rule for.
        QCOMPARE(cost("aten::native_layer_norm", "[[8, 1024]]", R"(["float"])", {}, 5.0).flops,
                 Flops(5));
        QVERIFY(!cost("aten::native_layer_norm", "[[8, 1024]]", R"(["float"])").flops);
        QVERIFY(!cost("aten::mm", "not json", "").flops);
        QVERIFY(!cost("aten::mm", "[[2, 3]]", R"(["float"])").flops); // one operand
        QVERIFY(!cost("aten::_foreach_mul_", "[[], []]", R"(["TensorList", "Scalar"])").flops);
    }

    // Shapes no tensor has, as a made-up or corrupt trace can carry them: counts past int64
    // (once undefined behaviour: signed overflow), negative and 30-digit sizes. The cost is
    // unknown, never a wrapped or negative number; a count that fits stays known.
    void impossibleShapesHaveUnknownCosts() {
        const auto unknown = [](const OpCost& c) { return !c.flops && !c.bytes; };
        // aten::mm A[2^32, 2^32] x B[2^32, 4]: 2·M·N·K = 2 · 2^32 · 4 · 2^32 = 2^67 FLOPs and
        // M·K = 2^64 elements: neither fits in int64 (2^63 - 1).
        QVERIFY(unknown(cost("aten::mm", "[[4294967296, 4294967296], [4294967296, 4]]",
                             R"(["float", "float"])")));
        // aten::bmm [2^32, 2^32, 4] x [2^32, 4, 4]: per batch 2 · 2^32 · 4 · 4 = 2^37 FLOPs, times
        // a batch of 2^32 = 2^69; bytes 2^32 x (2^34 + ...) x 4 > 2^66.
        QVERIFY(unknown(cost("aten::bmm", "[[4294967296, 4294967296, 4], [4294967296, 4, 4]]",
                             R"(["float", "float"])")));
        // aten::convolution input [2^32, 2^32, 4, 4] (2^68 elements), weight [4, 2^32, 1, 1],
        // stride, padding, dilation 1: output [2^32, 4, 4, 4] = 2^38 elements, FLOPs
        // 2 · 2^38 · 2^32 = 2^71.
        QVERIFY(unknown(cost(
            "aten::convolution",
            "[[4294967296, 4294967296, 4, 4], [4, 4294967296, 1, 1], [], [], [], [], [], [], []]",
            R"(["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"])",
            R"(["", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1"])")));
        // Scaled dot-product attention on q, k, v [2^32, 2^32, 4, 4]: B·H = 2^64.
        QVERIFY(unknown(cost("aten::_scaled_dot_product_flash_attention",
                             "[[4294967296, 4294967296, 4, 4], [4294967296, 4294967296, 4, 4], "
                             "[4294967296, 4294967296, 4, 4]]",
                             R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])")));
        // Element-wise and reduction ops over [2^32, 2^32, 4]: 2^66 elements.
        const std::string huge = "[[4294967296, 4294967296, 4], [4294967296, 4294967296, 4]]";
        QVERIFY(unknown(cost("aten::add", huge, R"(["float", "float"])")));
        QVERIFY(unknown(cost("aten::relu", "[[4294967296, 4294967296, 4]]", R"(["float"])")));
        QVERIFY(unknown(cost("aten::sum", "[[4294967296, 4294967296, 4]]", R"(["float"])")));
        // aten::add [2^31, 2^31] float: 2^62 elements, one FLOP each, fits; the bytes,
        // 3 x 2^62 x 4 B, do not.
        const OpCost add = cost("aten::add", "[[2147483648, 2147483648], [2147483648, 2147483648]]",
                                R"(["float", "float"])");
        QCOMPARE(add.flops, Flops(4611686018427387904));
        QVERIFY(!add.bytes);
        // Negative sizes (the mm once gave 2 · -2 · 4 · 3 = -48 FLOPs).
        QVERIFY(unknown(cost("aten::mm", "[[-2, 3], [3, 4]]", R"(["float", "float"])")));
        QVERIFY(unknown(cost("aten::add", "[[-4, 8], [-4, 8]]", R"(["float", "float"])")));
        QVERIFY(unknown(cost("aten::sum", "[[4, -8]]", R"(["float"])")));
        // A 30-digit size, one past uint64, and a fractional one: not sizes of any tensor. (The
        // add once took its second operand for a non-tensor and costed the first alone.)
        QVERIFY(unknown(cost("aten::add", "[[2, 3], [123456789012345678901234567890, 3]]",
                             R"(["float", "float"])")));
        QVERIFY(unknown(
            cost("aten::mm", "[[18446744073709551615, 2], [2, 2]]", R"(["float", "float"])")));
        QVERIFY(unknown(cost("aten::mm", "[[2.5, 2], [2, 2]]", R"(["float", "float"])")));
        // A 30-digit stride in Concrete Inputs (the digit parser once overflowed on it).
        const std::string convDims =
            "[[2, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], [], [], []]";
        const std::string convTypes =
            R"(["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"])";
        QVERIFY(unknown(cost(
            "aten::convolution", convDims, convTypes,
            R"(["", "", "", "[123456789012345678901234567890, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"])")));
        // A kernel wider than the padded input (5 > 2 + 2·1), a dilation of 0, a negative
        // padding: PyTorch refuses each; unknown.
        QVERIFY(unknown(cost(
            "aten::convolution", "[[1, 1, 2, 2], [1, 1, 5, 5], [], [], [], [], [], [], []]",
            convTypes, R"(["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"])")));
        QVERIFY(
            unknown(cost("aten::convolution", convDims, convTypes,
                         R"(["", "", "", "[1, 1]", "[1, 1]", "[0, 0]", "False", "[0, 0]", "1"])")));
        QVERIFY(unknown(
            cost("aten::convolution", convDims, convTypes,
                 R"(["", "", "", "[1, 1]", "[-1, -1]", "[1, 1]", "False", "[0, 0]", "1"])")));
        // A reduction over a 30-digit dimension index.
        QVERIFY(unknown(cost("aten::sum", "[[4, 8], [], [], []]",
                             R"(["float", "ScalarList", "Scalar", ""])",
                             R"(["", "[123456789012345678901234567890]", "False", ""])")));
    }

    // A "flops" arg that no count can be: 1e300 (converting it to int64 was undefined), negative,
    // not a number. The FLOPs are unknown, not the model's (the record is corrupt); the bytes
    // are still the model's. 2^62 is kept as it is.
    void impossibleFlopsArgs() {
        const std::string dims = "[[2, 3], [3, 4]]", types = R"(["float", "float"])";
        for (const double bad : {1e300, 0x1p63, -1.0, std::nan(""), HUGE_VAL}) {
            const OpCost c = cost("aten::mm", dims, types, {}, bad);
            QVERIFY2(!c.flops, QByteArray::number(bad));
            QCOMPARE(c.bytes, Flops((6 + 12 + 8) * 4));
        }
        QCOMPARE(cost("aten::mm", dims, types, {}, 0x1p62).flops, Flops(4611686018427387904));
    }

    // Reduced dimensions counted from the last, as PyTorch writes them: aten::sum [8, 512, 1024]
    // bf16 over dim [-1] (the 1,024): 4,194,304 inputs, 8 · 512 = 4,096 outputs; bytes
    // (4,194,304 + 4,096) x 2 = 8,396,800. [-4] names no dimension of a 3-d tensor: ignored.
    void negativeReducedDimensions() {
        const std::string dims = "[[8, 512, 1024], [], [], []]";
        const std::string types = R"(["c10::BFloat16", "ScalarList", "Scalar", ""])";
        OpCost c = cost("aten::sum", dims, types, R"(["", "[-1]", "False", ""])");
        QCOMPARE(c.flops, Flops(4194304));
        QCOMPARE(c.bytes, Flops(8396800));
        // dims [-1, 0]: 512 outputs; bytes (4,194,304 + 512) x 2 = 8,389,632.
        c = cost("aten::sum", dims, types, R"(["", "[-1, 0]", "False", ""])");
        QCOMPARE(c.bytes, Flops(8389632));
        // [-4]: out of range, nothing reduced by it: 4,194,304 outputs, bytes 2 x 4,194,304 x 2.
        c = cost("aten::sum", dims, types, R"(["", "[-4]", "False", ""])");
        QCOMPARE(c.bytes, Flops(16777216));
    }
};

QTEST_GUILESS_MAIN(TestTorchOpCost)
#include "test_torch_op_cost.moc"
