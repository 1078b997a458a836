// The roofline analysis (model/analysis/Roofline, DevicePeaks, RooflineTable) on hand-built
// profiles: an XLA GPU host whose device plane, HLO module and kernels are all fixed, and a small
// PyTorch trace. Every expected number is worked out in the comments. Real profiles:
// test_roofline_real.cpp.
#include <QProcess>
#include <QtTest>
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include "model/Csv.h"
#include "model/NumberFormat.h"
#include "model/ProfileLoader.h"
#include "model/analysis/DevicePeaks.h"
#include "model/analysis/OpProfile.h"
#include "model/analysis/Roofline.h"
#include "model/analysis/RooflineTable.h"
#include "tests/fixtures/HloFixtures.h"
#include "tests/fixtures/RooflineFixtures.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {

constexpr int64_t us = 1000000;

std::shared_ptr<const Profile> loadSpace(const FixtureSpace& space) {
    const LoadResult r = loadXSpaceBytes(space.encode(), "fixture-host");
    if (!r.ok()) qFatal("fixture does not load: %s", r.error.c_str());
    return r.profile;
}

const RooflineCell* cellOf(const Roofline& r, const std::string& op, int32_t step) {
    for (const RooflineCell& c : r.cells)
        if (c.step == step && r.ops[c.op].name == op) return &c;
    return nullptr;
}

bool near(double a, double b) {
    return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

} // namespace

class TestRoofline : public QObject {
    Q_OBJECT

private slots:
    void peaksOfKnownGpus() {
        // H200 as XLA records it: 132 SMs, 1,980 MHz, 4.814304 TB/s, compute capability 9.0.
        const DevicePeaks h200 =
            devicePeaksOf("NVIDIA H200", "Nvidia", 9, 0, 132, 1980000, 4814304000000ull);
        QCOMPARE(h200.architecture, std::string("sm_90 (Hopper)"));
        // bf16 on Tensor Cores: 4,096 FLOPs/SM/cycle x 132 x 1.98e9 = 1.07053056e15 (dense).
        QVERIFY(near(h200.flopsRoof(Precision::BF16, true), 4096.0 * 132 * 1.98e9));
        // ... and on CUDA cores 512 x 132 x 1.98e9; fp32 never runs on Tensor Cores (TF32 does):
        // 256 x 132 x 1.98e9 either way; TF32 2,048; FP8 8,192.
        QVERIFY(near(h200.flopsRoof(Precision::BF16, false), 512.0 * 132 * 1.98e9));
        QVERIFY(near(h200.flopsRoof(Precision::FP32, true), 256.0 * 132 * 1.98e9));
        QVERIFY(near(h200.flopsRoof(Precision::TF32, true), 2048.0 * 132 * 1.98e9));
        QVERIFY(near(h200.flopsRoof(Precision::FP8, true), 8192.0 * 132 * 1.98e9));
        QCOMPARE(h200.flopsRoof(Precision::Unknown, true), 0.0);
        QCOMPARE(h200.memoryBytesPerSecond, 4814304000000.0);
        QVERIFY(QString::fromStdString(h200.source).contains("clock from the profile"));

        // A Kineto trace of an H200 gives no clock or bandwidth: the datasheet's.
        const DevicePeaks torch = devicePeaksOf("NVIDIA H200", "NVIDIA", 9, 0, 132, 0, 0);
        QCOMPARE(torch.clockHz, 1.98e9);
        QCOMPARE(torch.memoryBytesPerSecond, 4.8e12);
        QVERIFY(QString::fromStdString(torch.source).contains("datasheet of H200"));

        // MI300X (gfx942 from compute capability 9.4): 2,048 bf16 FLOPs/CU/cycle x 304 CUs x
        // 2.1 GHz = 1.3074432e15, AMD's 1,307.4 dense TFLOPS.
        const DevicePeaks mi300 = devicePeaksOf("AMD Instinct MI300X", "AMD", 9, 4, 304, 0, 0);
        QCOMPARE(mi300.architecture, std::string("gfx942 (CDNA 3)"));
        QVERIFY(near(mi300.flopsRoof(Precision::BF16, true), 2048.0 * 304 * 2.1e9));
        QCOMPARE(mi300.memoryBytesPerSecond, 5.3e12);

        // A capability between rows takes the row below (XProf's fallback); below Volta none.
        const DevicePeaks sm120 = devicePeaksOf("RTX", "Nvidia", 12, 0, 10, 1000000, 0);
        QVERIFY(QString::fromStdString(sm120.architecture).startsWith("sm_100 (Blackwell)"));
        QVERIFY(near(sm120.flopsRoof(Precision::FP4, true), 32768.0 * 10 * 1e9));
        const DevicePeaks pascal = devicePeaksOf("P100", "Nvidia", 6, 0, 56, 1000000, 0);
        QVERIFY(!pascal.hasComputeRoofs());
        QCOMPARE(pascal.memoryBytesPerSecond, 0.0);
    }

    void boundByRules() {
        QCOMPARE(boundBy(0.5, 0.2), BoundBy::Compute);
        QCOMPARE(boundBy(0.2, 0.5), BoundBy::Memory);
        QCOMPARE(boundBy(0.05, 0.09), BoundBy::Latency); // under 10% of both roofs
        QCOMPARE(boundBy(std::nullopt, 0.3), BoundBy::Memory);
        QCOMPARE(boundBy(std::nullopt, std::nullopt), BoundBy::Unknown);
    }

    void siNumbers() {
        QCOMPARE(formatSi(25769803776.0), std::string("25.8 G"));
        QCOMPARE(formatSi(1.07053056e15), std::string("1.07 P"));
        QCOMPARE(formatSi(950), std::string("950"));
        QCOMPARE(formatSi(999.7), std::string("1.00 k"));
        QCOMPARE(formatSi(0.5), std::string("0.50"));
    }

    void xlaOpsAgainstTheirRoofs() {
        const auto p = loadSpace(rooflineStepSpace());
        const Roofline r = computeRoofline(*p);
        QCOMPARE(r.devices.size(), size_t(1));
        QCOMPARE(r.devices[0].device, std::string("Fixture GPU"));
        QCOMPARE(r.steps.size(), size_t(2));

        // The GEMM: 2 executions (2 nvjet kernels, 2 split-K kernels: the most of one name),
        // 2 x (5 + 1) us = 12 us. FLOPs 2 x 2·1024³ = 4,294,967,296; bytes 2 x (x + w + result,
        // 3 x 1024² x 2 B) = 12,582,912 (the workspace is not traffic).
        const RooflineCell* gemm = cellOf(r, "custom-call.0", -1);
        QVERIFY(gemm);
        QCOMPARE(gemm->occurrences, uint64_t(2));
        QCOMPARE(gemm->timePs, 12 * us);
        QCOMPARE(gemm->flops, std::optional<double>(4294967296.0));
        QCOMPARE(gemm->bytes, std::optional<double>(12582912.0));
        const RooflineOp& gemmOp = r.ops[gemm->op];
        QCOMPARE(gemmOp.program, std::string("jit_step(5)"));
        QCOMPARE(gemmOp.category, std::string("GEMM (cuBLAS)"));
        QCOMPARE(gemmOp.frameworkOp, std::string("jit(step)/dot_general"));
        QCOMPARE(gemmOp.source, std::string("step.py:7"));
        QCOMPARE(gemmOp.precision, Precision::BF16);
        QVERIFY(gemmOp.matrixUnits);
        const RooflineMetrics g = rooflineMetrics(r, *gemm);
        // bf16 Tensor Core roof 4,096 x 100 SMs x 1e9 Hz = 4.096e14 FLOP/s; memory 4e12 B/s.
        QCOMPARE(g.computeRoof, 4.096e14);
        QCOMPARE(g.memoryRoof, 4e12);
        QVERIFY(near(*g.flopsPerSecond, 4294967296.0 / 12e-6));
        QVERIFY(near(*g.computeShare, 4294967296.0 / 12e-6 / 4.096e14)); // 87.4%
        QVERIFY(near(*g.memoryShare, 12582912.0 / 12e-6 / 4e12));        // 26.2%
        QVERIFY(near(*g.intensity, 4294967296.0 / 12582912.0));          // 341.3 FLOP/B
        QCOMPARE(g.bound, BoundBy::Compute);
        // Per step: one execution each.
        QCOMPARE(cellOf(r, "custom-call.0", 0)->occurrences, uint64_t(1));
        QCOMPARE(cellOf(r, "custom-call.0", 1)->timePs, 6 * us);

        // The add fusion: 2 x 1024² FLOPs = 2,097,152 in 8 us; bytes 2 x (2 MiB in + 2 MiB out)
        // = 8,388,608 -> 1.048576e12 B/s, 26.2% of 4e12. Not a matrix op: the CUDA cores' bf16
        // roof, 512 x 100 x 1e9 = 5.12e13, of which it reaches 0.5%. Memory-bound.
        const RooflineCell* add = cellOf(r, "loop_add_fusion", -1);
        QCOMPARE(add->flops, std::optional<double>(2097152.0));
        QCOMPARE(add->bytes, std::optional<double>(8388608.0));
        const RooflineMetrics a = rooflineMetrics(r, *add);
        QCOMPARE(a.computeRoof, 5.12e13);
        QVERIFY(near(*a.memoryShare, 8388608.0 / 8e-6 / 4e12));
        QCOMPARE(a.bound, BoundBy::Memory);

        // The convert fusion: 16 FLOPs, 16 x 4 + 16 x 2 = 96 B in 1 us: far under both roofs.
        const RooflineCell* convert = cellOf(r, "loop_convert_fusion", -1);
        QCOMPARE(convert->flops, std::optional<double>(16.0));
        QCOMPARE(convert->bytes, std::optional<double>(96.0));
        QCOMPARE(rooflineMetrics(r, *convert).bound, BoundBy::Latency);

        // The copy no HLO op claims: a row of its own, its work unknown (empty, not 0).
        const RooflineCell* copy = cellOf(r, "MemcpyH2D", -1);
        QVERIFY(copy);
        QVERIFY(!copy->flops);
        QVERIFY(!copy->bytes);
        QCOMPARE(r.ops[copy->op].category, std::string("copy"));
        QCOMPARE(rooflineMetrics(r, *copy).bound, BoundBy::Unknown);
        QCOMPARE(cellOf(r, "MemcpyH2D", 1)->timePs, 2 * us);
    }

    void tableRowsPerProgramAndStep() {
        const auto p = loadSpace(rooflineStepSpace());
        const Roofline r = computeRoofline(*p);
        const RooflineTable t = rooflineTable(r, -1);
        const Table& table = t.table;
        const int op = table.columnIndex("Operation"), time = table.columnIndex("Self time (µs)"),
                  flops = table.columnIndex("FLOPs"), bound = table.columnIndex("Bound by"),
                  program = table.columnIndex("Program"),
                  share = table.columnIndex("Self time (%)");
        QVERIFY(op >= 0 && time >= 0 && flops >= 0 && bound >= 0 && program >= 0);
        for (const char* column : {"Category", "Occurrences", "Bytes accessed", "FLOP/s", "Bytes/s",
                                   "Operational intensity (FLOP/byte)"})
            QVERIFY2(table.columnIndex(column) >= 0, column);
        // jit_step(5): its Program row, then its ops by time: GEMM 12, add 8, convert 1 us; then
        // the copy's group (no program).
        QStringList ops;
        for (size_t row = 0; row < table.rowCount(); ++row)
            ops.push_back(QString::fromStdString(table.text(row, size_t(op))));
        QCOMPARE(ops, (QStringList{"Program", "custom-call.0", "loop_add_fusion",
                                   "loop_convert_fusion", "Program", "MemcpyH2D"}));
        QCOMPARE(t.cellOfRow.front(), int64_t(-1));
        // The program sums its ops: 12 + 8 + 1 = 21 us of 23 us on the device; FLOPs
        // 4,294,967,296 + 2,097,152 + 16.
        QCOMPARE(table.number(0, size_t(time)), 21.0);
        QVERIFY(near(table.number(0, size_t(share)), 100.0 * 21 / 23));
        QCOMPARE(table.number(0, size_t(flops)), 4294967296.0 + 2097152 + 16);
        QCOMPARE(table.text(0, size_t(program)), std::string("jit_step(5)"));
        QCOMPARE(table.text(4, size_t(program)), std::string("Not attributed"));
        QCOMPARE(table.text(1, size_t(bound)), std::string("Compute"));
        // The copy's FLOPs are empty in the table and in CSV.
        QVERIFY(table.isMissing(5, size_t(flops)));
        QCOMPARE(table.exactText(5, size_t(flops)), std::string());
        // Per step: step 1 (index 0) holds the convert, step 2 the copy.
        const Table all = rooflineTableAllSteps(r);
        QCOMPARE(all.rowCount(), size_t(6 + 5 + 4)); // total; step 1: P, gemm, add, convert,
                                                     // none for the copy; step 2: P, gemm, add,
                                                     // P, copy
        const int step = all.columnIndex("Step");
        QCOMPARE(all.text(6, size_t(step)), std::string("1"));
        QCOMPARE(all.text(14, size_t(step)), std::string("2"));
        const std::string json = rooflineJson(r);
        QVERIFY(json.find(R"("tool":"roofline")") != std::string::npos);
        QVERIFY(json.find(R"("device":"Fixture GPU")") != std::string::npos);
        QVERIFY(json.find(R"("bf16":4.096e+14)") != std::string::npos);
    }

    void opProfileTrees() {
        const Roofline r = computeRoofline(*loadSpace(rooflineStepSpace()));
        // A node's name and time (µs), its children's in order, as "name time" lines.
        const auto lines = [](const OpProfile& tree) {
            QStringList out;
            const std::function<void(uint32_t, int)> walk = [&](uint32_t n, int depth) {
                const OpProfileNode& node = tree.nodes[n];
                out.push_back(QString(depth * 2, ' ') + QString::fromStdString(node.name) + " " +
                              QString::number(double(node.sum.timePs) / us));
                for (uint32_t c : node.children) walk(c, depth + 1);
            };
            walk(0, 0);
            return out;
        };
        // By program: jit_step(5) (12 + 8 + 1 = 21 us) before the copy (2 us); the GEMM's
        // category, then the two loop fusions' (8 + 1 = 9 us).
        QCOMPARE(lines(opProfile(r, OpProfileGrouping::ByProgram)),
                 (QStringList{"All ops 23", "  jit_step(5) 21", "    GEMM (cuBLAS) 12",
                              "      custom-call.0 12", "    loop fusion 9",
                              "      loop_add_fusion 8", "      loop_convert_fusion 1",
                              "  Not attributed 2", "    copy 2", "      MemcpyH2D 2"}));
        // By framework op: the GEMM's op_name path; the fusions and the copy have none. Step 2
        // (index 1) only: no convert fusion. Equal times (6 us) go by name.
        QCOMPARE(lines(opProfile(r, OpProfileGrouping::ByFrameworkOp, 1)),
                 (QStringList{"All ops 12", "  (no framework op) 6", "    loop_add_fusion 4",
                              "    MemcpyH2D 2", "  jit(step) 6", "    dot_general 6",
                              "      custom-call.0 6"}));
        // A node's numbers are its leaves' sums: the program's FLOPs.
        const OpProfile tree = opProfile(r, OpProfileGrouping::ByProgram);
        QCOMPARE(tree.nodes[tree.nodes[0].children[0]].sum.flops, 4294967296.0 + 2097152 + 16);
    }

    void cliExportsTheToolsTable() {
        QTemporaryDir dir;
        const QString path = dir.path() + "/fixture-host.xplane.pb";
        QVERIFY(writeFile(path, rooflineStepSpace().encode()));
        const Roofline r = computeRoofline(*loadSpace(rooflineStepSpace()));
        for (const bool perStep : {false, true}) {
            std::ostringstream expected;
            writeCsv(perStep ? rooflineTableAllSteps(r) : rooflineTable(r, -1).table, expected);
            QProcess cli;
            QStringList args{"export", "roofline", path, "--no-cache", "--csv", "-"};
            if (perStep) args << "--per-step";
            cli.start(QStringLiteral(STEPSCOPE_CLI), args);
            QVERIFY(cli.waitForFinished(60000));
            QCOMPARE(cli.exitCode(), 0);
            QCOMPARE(cli.readAllStandardOutput(), QByteArray::fromStdString(expected.str()));
        }
    }

    void pytorchOperatorsAgainstTheirRoofs() {
        // aten::linear -> aten::mm [256, 512] x [512, 128] bf16, launching one 2 us kernel, on an
        // H200 that the trace describes only by name and SM count.
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/w.pt.trace.json";
        std::ofstream out(path);
        out << R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H200",)"
               R"("computeMajor":9,"computeMinor":0,"numSms":132}],"traceEvents":[)"
               R"({"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":20,)"
               R"("args":{"External id":4,"Input Dims":[[256, 512], [128, 512], []],)"
               R"("Input type":["c10::BFloat16", "c10::BFloat16", ""]}},)"
               R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":12,"dur":10,)"
               R"("args":{"External id":5,"Input Dims":[[256, 512], [512, 128]],)"
               R"("Input type":["c10::BFloat16", "c10::BFloat16"]}},)"
               R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,)"
               R"("ts":14,"dur":3,"args":{"correlation":10,"External id":5}},)"
               R"({"ph":"X","cat":"kernel","name":"nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNN",)"
               R"("pid":0,"tid":7,"ts":20,"dur":2,"args":{"correlation":10,"External id":5,)"
               R"("device":0,"stream":7,"grid":[1,1,1],"block":[128,1,1]}}]})";
        out.close();
        const LoadResult loaded = loadPath(path);
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        const Roofline r = computeRoofline(*loaded.profile);
        const RooflineCell* mm = cellOf(r, "aten::mm", -1);
        QVERIFY(mm);
        const RooflineOp& op = r.ops[mm->op];
        QCOMPARE(op.shape, std::string("[[256, 512], [512, 128]]"));
        QCOMPARE(op.category, std::string("GEMM"));
        QCOMPARE(op.frameworkOp, std::string("aten::linear/aten::mm"));
        QCOMPARE(mm->occurrences, uint64_t(1));
        // 2 · 256 · 128 · 512 = 33,554,432 FLOPs; (256·512 + 512·128 + 256·128) x 2 B =
        // 458,752 B; in 2 us.
        QCOMPARE(mm->flops, std::optional<double>(33554432.0));
        QCOMPARE(mm->bytes, std::optional<double>(458752.0));
        QCOMPARE(mm->timePs, 2 * us);
        // The datasheet's H200 clock (1,980 MHz) and bandwidth (4.8 TB/s).
        const RooflineMetrics m = rooflineMetrics(r, *mm);
        QVERIFY(near(m.computeRoof, 4096.0 * 132 * 1.98e9));
        QCOMPARE(m.memoryRoof, 4.8e12);
        QVERIFY(near(*m.flopsPerSecond, 33554432.0 / 2e-6));
        QCOMPARE(m.bound, BoundBy::Latency); // 1.6% and 4.8% of the roofs
    }

    // A fuzz-findings style regression: a Kineto trace whose operators carry shapes no tensor
    // has (a product past int64, a negative size, a 30-digit size) and a "flops" arg of 1e300
    // opens, and the roofline, op profile and table give those operators their time with FLOPs
    // and bytes unknown (empty), never a wrapped number (the products were undefined
    // behaviour).
    void impossibleOperatorShapesAreUnknown() {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/bad.pt.trace.json";
        std::ofstream out(path);
        // Operator i (External id 10 + i) launches one kernel (correlation 20 + i) of i + 1 us.
        const std::vector<std::pair<std::string, std::string>> ops = {
            {"aten::mm",
             R"("Input Dims":[[4294967296, 4294967296], [4294967296, 4]],"Input type":["float", "float"])"},
            {"aten::add",
             R"("Input Dims":[[-4, 8], [-4, 8]],"Input type":["float", "float"],"flops":1e300)"},
            {"aten::relu",
             R"("Input Dims":[[123456789012345678901234567890, 8]],"Input type":["float"])"}};
        out << R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H200",)"
               R"("computeMajor":9,"computeMinor":0,"numSms":132}],"traceEvents":[)";
        // Three events per operator, with OP, ARGS, EXT, CORR, TS, KTS, KDUR, N filled in.
        const std::string events =
            R"({"ph":"X","cat":"cpu_op","name":"OP","pid":1,"tid":1,"ts":TS,"dur":5,)"
            R"("args":{"External id":EXT,ARGS}},)"
            R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,)"
            R"("ts":TS,"dur":1,"args":{"correlation":CORR,"External id":EXT}},)"
            R"({"ph":"X","cat":"kernel","name":"kernelN","pid":0,"tid":7,"ts":KTS,"dur":KDUR,)"
            R"("args":{"correlation":CORR,"External id":EXT,"device":0,"stream":7,)"
            R"("grid":[1,1,1],"block":[128,1,1]}})";
        for (size_t i = 0; i < ops.size(); ++i) {
            std::string text = events;
            for (const auto& [token, value] : std::vector<std::pair<std::string, std::string>>{
                     {"OP", ops[i].first},
                     {"ARGS", ops[i].second},
                     {"EXT", std::to_string(10 + i)},
                     {"CORR", std::to_string(20 + i)},
                     {"KTS", std::to_string(100 + 10 * i)},
                     {"KDUR", std::to_string(i + 1)},
                     {"TS", std::to_string(10 + 10 * i)},
                     {"N", std::to_string(i)}})
                for (size_t at = text.find(token); at != std::string::npos;
                     at = text.find(token, at + value.size()))
                    text.replace(at, token.size(), value);
            out << (i ? "," : "") << text;
        }
        out << "]}";
        out.close();
        const LoadResult loaded = loadPath(path);
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        const Roofline r = computeRoofline(*loaded.profile);
        const RooflineTable table = rooflineTable(r, -1);
        const int flopsColumn = table.table.columnIndex("FLOPs");
        const int bytesColumn = table.table.columnIndex("Bytes accessed");
        QVERIFY(flopsColumn >= 0 && bytesColumn >= 0);
        const OpProfile tree = opProfile(r, OpProfileGrouping::ByProgram);
        for (size_t i = 0; i < ops.size(); ++i) {
            const RooflineCell* cell = cellOf(r, ops[i].first, -1);
            QVERIFY2(cell, ops[i].first.c_str());
            QCOMPARE(cell->occurrences, uint64_t(1));
            QCOMPARE(cell->timePs, int64_t(i + 1) * us);
            QVERIFY2(!cell->flops && !cell->bytes, ops[i].first.c_str());
            const int64_t index = cell - r.cells.data();
            // The table's row: FLOPs and bytes empty.
            const auto row = std::find(table.cellOfRow.begin(), table.cellOfRow.end(), index);
            QVERIFY(row != table.cellOfRow.end());
            const size_t rowIndex = size_t(row - table.cellOfRow.begin());
            QVERIFY(table.table.isMissing(rowIndex, size_t(flopsColumn)));
            QVERIFY(table.table.isMissing(rowIndex, size_t(bytesColumn)));
            // The op profile's leaf: its time, no known FLOPs or bytes.
            const auto leaf = std::find_if(tree.nodes.begin(), tree.nodes.end(),
                                           [&](const OpProfileNode& n) { return n.cell == index; });
            QVERIFY(leaf != tree.nodes.end());
            QCOMPARE(leaf->sum.timePs, int64_t(i + 1) * us);
            QCOMPARE(leaf->sum.flopsKnown, size_t(0));
            QCOMPARE(leaf->sum.bytesKnown, size_t(0));
        }
    }
};

QTEST_GUILESS_MAIN(TestRoofline)
#include "test_roofline.moc"
