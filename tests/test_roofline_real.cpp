// The roofline on the H200 profiles in ../shared/realdata: the FLOPs of the JAX MLP's GEMMs are
// 2·M·N·K for the shapes of ../shared/gpu-workloads/jax_train.py, and those of the GPT trace's
// linear and attention layers follow from its description (12-layer nn.TransformerEncoder,
// d_model 1024, 16 heads, FFN 4096, batch 8 x 512 tokens). Skipped where the folder is absent.
#include <QtTest>
#include <algorithm>
#include <filesystem>
#include <map>

#include "model/ProfileLoader.h"
#include "model/analysis/Roofline.h"

using namespace stepscope;

namespace {

const std::string kRealData = STEPSCOPE_REALDATA;
const std::string kJax = kRealData + "/h200/jax-remote/localhost_9012.xplane.pb";
const std::string kGpt = kRealData + "/h200/pytorch/gpt12.1795814115139604345.pt.trace.json.gz";

Roofline rooflineOf(const std::string& path) {
    const LoadResult r = loadPath(path);
    if (!r.ok()) qFatal("%s does not load: %s", path.c_str(), r.error.c_str());
    return computeRoofline(*r.profile);
}

// FLOPs of one execution of each whole-profile cell whose op matches, ascending.
template <class Pred> std::vector<double> flopsPerExecution(const Roofline& r, Pred pred) {
    std::vector<double> out;
    for (const RooflineCell* c : r.cellsOf(-1))
        if (pred(r.ops[c->op]) && c->flops && c->occurrences > 0)
            out.push_back(*c->flops / double(c->occurrences));
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

class TestRooflineReal : public QObject {
    Q_OBJECT

private slots:
    void jaxMlpGemmsAre2MNK() {
        if (!std::filesystem::exists(kJax)) QSKIP("../shared/realdata not found");
        const Roofline r = rooflineOf(kJax);
        QCOMPARE(r.devices.size(), size_t(1));
        // The device plane: 132 SMs at 1,980 MHz, 4.814304 TB/s, compute capability 9.0.
        QCOMPARE(r.devices[0].device, std::string("NVIDIA H200"));
        QCOMPARE(r.devices[0].memoryBytesPerSecond, 4814304000000.0);
        QCOMPARE(r.devices[0].flopsRoof(Precision::BF16, true), 4096.0 * 132 * 1.98e9);

        // jax_train.py: x [4096, 2048] (batch 4096), w1 [2048, 8192], w2 [8192, 8192],
        // w3 [8192, 16]. Forward: x·w1 (M 4096, N 8192, K 2048), h·w2 (4096, 8192, 8192),
        // h·w3 (4096, 16, 8192). Backward (w's gradients and the activations' that need them; x
        // is not a parameter): dW3 = hᵀ·d (8192, 16, 4096), dh = d·w3ᵀ (4096, 8192, 16),
        // dW2 = hᵀ·d (8192, 8192, 4096), dh = d·w2ᵀ (4096, 8192, 8192), dW1 = xᵀ·d
        // (2048, 8192, 4096). 2·M·N·K each:
        const double l1 = 2.0 * 4096 * 8192 * 2048; // 137,438,953,472: x·w1 and dW1
        const double l2 = 2.0 * 4096 * 8192 * 8192; // 549,755,813,888: h·w2, dW2, dh1
        const double l3 = 2.0 * 4096 * 16 * 8192;   // 1,073,741,824: h·w3, dW3, dh2
        const std::vector<double> expected{l3, l3, l3, l1, l1, l2, l2, l2};
        // XLA runs them as cuBLAS calls and Triton GEMM fusions (the thin layer-3 GEMMs, which
        // it splits along K into a batched dot: 8 x [4096, 1024]·[1024, 16]).
        const std::vector<double> gemms = flopsPerExecution(r, [](const RooflineOp& op) {
            return op.program.starts_with("jit_train_step(") &&
                   (op.category == "GEMM (cuBLAS)" || op.category == "GEMM fusion");
        });
        QCOMPARE(gemms, expected);

        // No FLOP vanishes into a command buffer: every kernel of the step's CUDA graph counts
        // for its instruction, none for "command_buffer_1".
        for (const RooflineOp& op : r.ops) QVERIFY(!op.name.starts_with("command_buffer"));

        // The figures docs/tools/op-profile-roofline.md quotes: the GEMMs' achieved FLOP/s against
        // the bf16 roof.
        for (const RooflineCell* c : r.cellsOf(-1)) {
            const RooflineOp& op = r.ops[c->op];
            if (op.category != "GEMM (cuBLAS)") continue;
            const RooflineMetrics m = rooflineMetrics(r, *c);
            QCOMPARE(op.precision, Precision::BF16);
            QVERIFY(op.matrixUnits);
            QVERIFY(*m.computeShare > 0.5 && *m.computeShare < 1.0);
            QCOMPARE(m.bound, BoundBy::Compute);
            qInfo("%s %s: %.1f TFLOP/s, %.1f%% of %.1f TFLOP/s", op.name.c_str(), op.shape.c_str(),
                  *m.flopsPerSecond / 1e12, *m.computeShare * 100, m.computeRoof / 1e12);
        }
    }

    void gptLinearAndAttentionLayers() {
        if (!std::filesystem::exists(kGpt)) QSKIP("../shared/realdata not found");
        const Roofline r = rooflineOf(kGpt);
        // d_model 1024, FFN 4096, 16 heads of 64, batch 8 x 512 = 4,096 tokens; 12 layers x 8
        // profiled steps = 96 calls of each layer's ops.
        const double t = 4096, d = 1024, f = 4096;
        std::map<std::string, std::pair<double, uint64_t>> byShape; // name|dims -> flops, calls
        for (const RooflineCell* c : r.cellsOf(-1)) {
            const RooflineOp& op = r.ops[c->op];
            if (c->flops) byShape[op.name + "|" + op.shape] = {*c->flops, c->occurrences};
        }
        const auto perCall = [&](const std::string& key) {
            const auto it = byShape.find(key);
            if (it == byShape.end()) qFatal("no op %s", key.c_str());
            if (it->second.second != 96)
                qFatal("%s: %llu calls", key.c_str(), (unsigned long long)it->second.second);
            return it->second.first / 96;
        };
        // Self-attention's input projection (q, k, v together: N = 3 x 1024), by aten::matmul
        // -> aten::mm: 2 · 4096 · 3072 · 1024.
        QCOMPARE(perCall("aten::mm|[[4096, 1024], [1024, 3072]]"), 2 * t * 3 * d * d);
        // Output projection, aten::addmm with its bias: 2 · 4096 · 1024 · 1024 + 4096 · 1024.
        QCOMPARE(perCall("aten::addmm|[[1024], [4096, 1024], [1024, 1024], [], []]"),
                 2 * t * d * d + t * d);
        // Feed-forward up (1024 -> 4096) and down (4096 -> 1024), with biases.
        QCOMPARE(perCall("aten::addmm|[[4096], [4096, 1024], [1024, 4096], [], []]"),
                 2 * t * f * d + t * f);
        QCOMPARE(perCall("aten::addmm|[[1024], [4096, 4096], [4096, 1024], [], []]"),
                 2 * t * d * f + t * d);
        // Their backward GEMMs: the input gradient of the up projection ([4096, 4096] x
        // [4096, 1024]) and the weight gradient of the down projection ([1024, 4096] x
        // [4096, 4096]).
        QCOMPARE(perCall("aten::mm|[[1024, 4096], [4096, 4096]]"), 2 * d * f * t);
        // Attention, cuDNN's kernels: q, k, v [8, 16, 512, 64], not causal. Forward Q·Kᵀ and
        // P·V: 2 x 2 · 8 · 16 · 512 · 512 · 64; backward four such GEMMs.
        const double qk = 2.0 * 8 * 16 * 512 * 512 * 64;
        QCOMPARE(perCall("aten::_cudnn_attention_forward|[[8, 16, 512, 64], [8, 16, 512, 64], "
                         "[8, 16, 512, 64], [], [], [], [], [], [], [], [], [], []]"),
                 2 * qk);
        QCOMPARE(perCall("aten::_cudnn_attention_backward|[[8, 16, 512, 64], [8, 16, 512, 64], "
                         "[8, 16, 512, 64], [8, 16, 512, 64], [8, 16, 512, 64], [8, 16, 512, 1], "
                         "[], [], [], [], [], [], [], [], [], []]"),
                 4 * qk);
        // Kineto records no clock or bandwidth: the H200's datasheet values.
        QCOMPARE(r.devices.at(0).memoryBytesPerSecond, 4.8e12);
    }
};

QTEST_GUILESS_MAIN(TestRooflineReal)
#include "test_roofline_real.moc"
