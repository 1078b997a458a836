// HLO protos of real profiles: every module decodes as protobuf's own classes read it, every
// truncation fails cleanly, and the facts of the H200 JAX profile's command buffer (read
// independently with the classes of tests/fixtures/hlo_subset.proto) hold.
#include <QtTest>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "model/ProfileLoader.h"
#include "model/analysis/HloCatalog.h"
#include "model/xspace/HloProto.h"
#include "tests/fixtures/HloFixtures.h"
#include "tests/fixtures/ProtoXSpace.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {

std::span<const uint8_t> span(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

const std::string kRealData = STEPSCOPE_REALDATA;
const std::string kJaxH200 = kRealData + "/h200/jax-remote/localhost_9012.xplane.pb";

std::vector<std::string> realXSpaces() {
    std::vector<std::string> out;
    if (!std::filesystem::exists(kRealData)) return out;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(kRealData))
        if (entry.path().string().ends_with(".xplane.pb")) out.push_back(entry.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

template <class Repeated> std::vector<int64_t> ints(const Repeated& r) {
    return std::vector<int64_t>(r.begin(), r.end());
}

// The first difference between a decoded module and protobuf's reading of the same bytes, or
// "" when they agree on every field the decoder reads.
std::string differences(const HloModule& m, const testhlo::HloModuleProto& p) {
    const std::function<bool(const HloShape&, const testhlo::ShapeProto&)> sameShape =
        [&](const HloShape& a, const testhlo::ShapeProto& b) {
            if (int(a.elementType) != int(b.element_type()) ||
                a.dimensions != ints(b.dimensions()) ||
                a.tupleShapes.size() != size_t(b.tuple_shapes_size()))
                return false;
            for (size_t i = 0; i < a.tupleShapes.size(); ++i)
                if (!sameShape(a.tupleShapes[i], b.tuple_shapes(int(i)))) return false;
            return true;
        };
    if (m.name != p.name() || m.id != p.id() ||
        m.entryComputationName != p.entry_computation_name() ||
        m.entryComputationId != p.entry_computation_id())
        return "module header";
    if (m.computations.size() != size_t(p.computations_size())) return "computation count";
    for (size_t c = 0; c < m.computations.size(); ++c) {
        const HloComputation& mc = m.computations[c];
        const testhlo::HloComputationProto& pc = p.computations(int(c));
        if (mc.name != pc.name() || mc.id != pc.id() || mc.rootId != pc.root_id() ||
            mc.instructions.size() != size_t(pc.instructions_size()))
            return "computation " + pc.name();
        for (size_t i = 0; i < mc.instructions.size(); ++i) {
            const HloInstruction& a = mc.instructions[i];
            const testhlo::HloInstructionProto& b = pc.instructions(int(i));
            if (a.name != b.name() || a.opcode != b.opcode() || a.id != b.id() ||
                a.operandIds != ints(b.operand_ids()) ||
                a.calledComputationIds != ints(b.called_computation_ids()) ||
                a.fusionKind != b.fusion_kind() || a.customCallTarget != b.custom_call_target() ||
                a.metadata.opType != b.metadata().op_type() ||
                a.metadata.opName != b.metadata().op_name() ||
                a.metadata.sourceFile != b.metadata().source_file() ||
                a.metadata.sourceLine != b.metadata().source_line() ||
                a.dotAlgorithm != b.precision_config().algorithm() ||
                !sameShape(a.shape, b.shape()))
                return "instruction " + b.name();
        }
    }
    if (m.schedule.size() != p.schedule().sequences().size()) return "schedule size";
    for (const auto& [id, seq] : p.schedule().sequences())
        if (!m.sequence(id) || m.sequence(id)->instructionIds != ints(seq.instruction_ids()))
            return "schedule of computation " + std::to_string(id);
    return "";
}

// The share of device-op time whose events have an instruction, and the events without one.
struct Coverage {
    double attributedShare = 0;
    double viaGraphShare = 0;
    std::map<std::string, size_t> unattributed; // event name -> count
};
Coverage coverage(const Profile& p, const HloCatalog& c) {
    Coverage out;
    int64_t total = 0, attributed = 0, viaGraph = 0;
    for (const Track& t : p.tracks()) {
        if (!t.deviceOps) continue;
        for (EventIndex e = t.firstEvent; e < t.firstEvent + t.eventCount; ++e) {
            total += p.duration(e);
            const HloOpRef r = c.instructionOf(e);
            if (!r) ++out.unattributed[std::string(p.name(e))];
            attributed += r ? p.duration(e) : 0;
            viaGraph += r.viaCommandBuffer ? p.duration(e) : 0;
        }
    }
    out.attributedShare = double(attributed) / double(total);
    out.viaGraphShare = double(viaGraph) / double(total);
    return out;
}

} // namespace

class TestHloReal : public QObject {
    Q_OBJECT
private slots:
    void realModulesDecodeAsProtobufReadsThem() {
        const std::vector<std::string> files = realXSpaces();
        if (files.empty()) QSKIP("../shared/realdata not found; real HLO protos skipped");
        size_t modules = 0, instructions = 0, bytes = 0;
        qint64 decodeNs = 0;
        for (const std::string& path : files) {
            for (const HloBlob& blob : readHloBlobs(path)) {
                QElapsedTimer timer;
                timer.start();
                std::string error;
                const std::optional<HloModule> m = decodeHloProto(span(blob.bytes), error);
                decodeNs += timer.nsecsElapsed();
                QVERIFY2(m, (path + " " + blob.name + ": " + error).c_str());
                testhlo::HloProto proto;
                QVERIFY(proto.ParseFromString(blob.bytes));
                const std::string diff = differences(*m, proto.hlo_module());
                QVERIFY2(diff.empty(), (path + " " + blob.name + ": " + diff).c_str());
                if (blob.programId >= 0) QCOMPARE(m->id, blob.programId); // ROCm files: none
                ++modules;
                bytes += blob.bytes.size();
                for (const HloComputation& c : m->computations)
                    instructions += c.instructions.size();
            }
        }
        QVERIFY(modules >= 13 + 16); // the H200 JAX profile's 13 and the ROCm ones
        qInfo("%zu real HLO modules, %zu instructions, %zu bytes decoded in %.2f ms", modules,
              instructions, bytes, double(decodeNs) / 1e6);
    }

    void realProtoPrefixesFailCleanly() {
        if (!std::filesystem::exists(kJaxH200)) QSKIP("../shared/realdata not found");
        const std::vector<HloBlob> blobs = readHloBlobs(kJaxH200);
        QCOMPARE(blobs.size(), size_t(13));
        // A prefix decodes exactly when protobuf's own parser takes it as a whole message (a cut
        // between HloProto's top-level fields, after hlo_module); otherwise the error names a
        // byte.
        const auto check = [](const std::string& bytes, size_t n) {
            const std::string prefix = bytes.substr(0, n);
            testhlo::HloProto proto;
            const bool whole = n > 0 && proto.ParseFromString(prefix) && proto.has_hlo_module();
            std::string error;
            const bool ok = decodeHloProto(span(prefix), error).has_value();
            QVERIFY2(ok == whole, (std::to_string(n) + ": " + error).c_str());
            if (!ok && n > 0) QVERIFY2(error.starts_with("at byte "), error.c_str());
        };
        size_t smallest = 0, largest = 0;
        for (size_t i = 0; i < blobs.size(); ++i) {
            if (blobs[i].bytes.size() < blobs[smallest].bytes.size()) smallest = i;
            if (blobs[i].bytes.size() > blobs[largest].bytes.size()) largest = i;
        }
        const std::string& small = blobs[smallest].bytes;
        for (size_t n = 0; n <= small.size(); ++n) check(small, n);
        const std::string& big = blobs[largest].bytes;
        for (size_t k = 0; k <= 400; ++k) check(big, big.size() * k / 400);
    }

    void realJaxCommandBufferKernels() {
        if (!std::filesystem::exists(kJaxH200)) QSKIP("../shared/realdata not found");
        const LoadResult r = loadPath(kJaxH200);
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        QElapsedTimer timer;
        timer.start();
        const HloCatalog catalog(p);
        qInfo("HloCatalog of the H200 JAX profile: %.2f ms", double(timer.nsecsElapsed()) / 1e6);
        QVERIFY(catalog.errors().empty());
        QCOMPARE(catalog.modules().size(), size_t(13));

        // Read independently with protobuf's classes: jit_train_step's entry computation, its
        // instructions that run something, in schedule order.
        testhlo::HloModuleProto trainStep;
        for (const HloBlob& b : readHloBlobs(kJaxH200))
            if (b.name == "jit_train_step(7961)") {
                testhlo::HloProto proto;
                QVERIFY(proto.ParseFromString(b.bytes));
                trainStep = proto.hlo_module();
            }
        QCOMPARE(trainStep.id(), int64_t(7961));
        std::map<int64_t, const testhlo::HloInstructionProto*> byId;
        for (const auto& c : trainStep.computations())
            for (const auto& h : c.instructions()) byId[h.id()] = &h;
        std::vector<std::string> runs, customCalls;
        for (int64_t id : trainStep.schedule()
                              .sequences()
                              .at(trainStep.entry_computation_id())
                              .instruction_ids()) {
            const std::string& op = byId.at(id)->opcode();
            if (op == "parameter" || op == "get-tuple-element" || op == "bitcast" ||
                op == "tuple" || op == "constant")
                continue;
            runs.push_back(byId.at(id)->name());
            if (op == "custom-call") customCalls.push_back(byId.at(id)->name());
        }
        QCOMPARE(runs.size(), size_t(23));
        QCOMPARE(customCalls.size(), size_t(5));

        // In this profile a graph node index below 23 is the position in `runs` of the fusion
        // that ran; the k-th custom-call ran as nodes 23 + 2k (its memset) and 24 + 2k (cuBLAS).
        uint64_t graphKernels = 0;
        // launch -> its loop_convert_multiply_fusion kernels
        std::map<uint64_t, std::vector<EventIndex>> reused;
        for (const Track& t : p.tracks()) {
            if (!t.deviceOps) continue;
            for (EventIndex e = t.firstEvent; e < t.firstEvent + t.eventCount; ++e) {
                const std::optional<StatValue> node = p.findStat(e, "cuda_graph_node_id");
                if (!node) continue;
                ++graphKernels;
                const HloOpRef ref = catalog.instructionOf(e);
                QVERIFY2(ref && ref.viaCommandBuffer, std::string(p.name(e)).c_str());
                QCOMPARE(ref.module->name, std::string("jit_train_step"));
                const uint64_t index = node->asInt() & 0xFFFFFFFFu;
                const std::string expected =
                    index < runs.size() ? runs[index] : customCalls.at((index - 23) / 2);
                QCOMPARE(ref.instruction->name, expected);
                if (p.name(e) == "loop_convert_multiply_fusion")
                    reused[*p.correlationIds().find(e)].push_back(e);
            }
        }
        uint64_t expectedGraphKernels = 0;
        for (const fixtures::ProtoEvent& e : fixtures::readProtoEvents(kJaxH200))
            expectedGraphKernels +=
                e.plane.starts_with("/device:GPU:") && e.ints.count("cuda_graph_id");
        QCOMPARE(graphKernels, expectedGraphKernels);
        QCOMPARE(graphKernels, uint64_t(417 * 28 + 24)); // 417 whole launches, one cut short

        // Each launch runs the kernel loop_convert_multiply_fusion twice, the second time for
        // the identical fusion loop_convert_multiply_fusion.1.
        QCOMPARE(reused.size(), size_t(418));
        for (auto& [launch, events] : reused) {
            // Kernels of one stream overlap (programmatic dependent launch), so event order,
            // which is by nesting depth first, is not start order.
            std::sort(events.begin(), events.end(),
                      [&](EventIndex a, EventIndex b) { return p.start(a) < p.start(b); });
            QCOMPARE(events.size(), size_t(2));
            QCOMPARE(catalog.instructionOf(events[0]).instruction->name,
                     std::string("loop_convert_multiply_fusion"));
            QCOMPARE(catalog.instructionOf(events[1]).instruction->name,
                     std::string("loop_convert_multiply_fusion.1"));
        }
        const std::vector<EventIndex> gemms =
            p.eventsByName("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
        QCOMPARE(gemms.size(), size_t(418));
        for (EventIndex e : gemms) {
            const HloOpRef ref = catalog.instructionOf(e);
            QCOMPARE(ref.instruction->name, std::string("custom-call.3"));
            QCOMPARE(ref.instruction->customCallTarget, std::string("__cublas$lt$matmul"));
            QCOMPARE(catalog.opPath(ref), std::string_view("jit(train_step)/jvp()/dot_general"));
            QCOMPARE(ref.precision, Precision::BF16);
            QVERIFY(ref.matrix);
        }

        // Every device event but the 417 host-to-device copies (which carry no hlo_op) has its
        // instruction; the command buffer holds 98% of device time.
        const Coverage c = coverage(p, catalog);
        QCOMPARE(c.unattributed, (std::map<std::string, size_t>{{"MemcpyH2D", 417}}));
        QVERIFY(c.attributedShare > 0.999);
        QVERIFY(c.viaGraphShare > 0.98);
        qInfo("H200 JAX: %.4f%% of device time attributed to HLO instructions (%.4f%% through "
              "command buffer alignment), %.4f%% not",
              100 * c.attributedShare, 100 * c.viaGraphShare, 100 * (1 - c.attributedShare));
    }

    void realDirectAttributionMatchesTheHlo() {
        const std::vector<std::string> files = realXSpaces();
        if (files.empty()) QSKIP("../shared/realdata not found");
        for (const std::string& path : files) {
            const std::vector<HloBlob> blobs = readHloBlobs(path);
            if (blobs.empty()) continue;
            // Counted with protobuf's classes: device events whose hlo_op (innermost of a "::"
            // nest) names an instruction of the module their program_id names.
            // A module's program id is its program_id stat, or its id where there is none.
            std::map<int64_t, std::set<std::string>> names;
            for (const HloBlob& b : blobs) {
                testhlo::HloProto proto;
                QVERIFY(proto.ParseFromString(b.bytes));
                const int64_t id = b.programId >= 0 ? b.programId : proto.hlo_module().id();
                for (const auto& c : proto.hlo_module().computations())
                    for (const auto& h : c.instructions()) names[id].insert(h.name());
            }
            size_t expected = 0;
            for (const fixtures::ProtoEvent& e : fixtures::readProtoEvents(path)) {
                const auto id = int32_t(uint32_t(uint64_t(e.lineId)));
                const bool derived = id >= int32_t(0xdeadbeefu) && id <= int32_t(0xdeadbeefu) + 289;
                if (!e.plane.starts_with("/device:GPU:") || derived || !e.text.count("hlo_op") ||
                    !e.ints.count("program_id"))
                    continue;
                std::string op = e.text.at("hlo_op");
                if (const size_t at = op.rfind("::"); at != std::string::npos)
                    op = op.substr(at + 2);
                expected += names[e.ints.at("program_id")].count(op);
            }
            const LoadResult r = loadPath(path);
            QVERIFY2(r.ok(), r.error.c_str());
            const HloCatalog catalog(*r.profile);
            QVERIFY2(catalog.errors().empty(), path.c_str());
            QCOMPARE(catalog.modules().size(), blobs.size());
            size_t direct = 0;
            for (EventIndex e = 0; e < r.profile->eventCount(); ++e) {
                const HloOpRef ref = catalog.instructionOf(e);
                direct += ref && !ref.viaCommandBuffer;
            }
            QVERIFY2(expected > 0, path.c_str());
            QCOMPARE(direct, expected);
            qInfo("%s: %.2f%% of device time attributed", path.c_str(),
                  100 * coverage(*r.profile, catalog).attributedShare);
        }
    }
};

QTEST_GUILESS_MAIN(TestHloReal)
#include "test_hlo_real.moc"
