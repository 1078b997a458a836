// HLO protos of real profiles: every module decodes as protobuf's own classes read it, and every
// truncation fails cleanly.
#include <QtTest>
#include <filesystem>
#include <functional>

#include "model/xspace/HloProto.h"
#include "tests/fixtures/HloFixtures.h"

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
            const auto& dd = b.dot_dimension_numbers();
            std::vector<int32_t> precision(b.precision_config().operand_precision().begin(),
                                           b.precision_config().operand_precision().end());
            if (a.name != b.name() || a.opcode != b.opcode() || a.id != b.id() ||
                a.operandIds != ints(b.operand_ids()) ||
                a.calledComputationIds != ints(b.called_computation_ids()) ||
                a.fusionKind != b.fusion_kind() || a.customCallTarget != b.custom_call_target() ||
                a.metadata.opType != b.metadata().op_type() ||
                a.metadata.opName != b.metadata().op_name() ||
                a.metadata.sourceFile != b.metadata().source_file() ||
                a.metadata.sourceLine != b.metadata().source_line() ||
                a.operandPrecision != precision ||
                a.dotDimensions.lhsContracting != ints(dd.lhs_contracting_dimensions()) ||
                a.dotDimensions.rhsContracting != ints(dd.rhs_contracting_dimensions()) ||
                a.dotDimensions.lhsBatch != ints(dd.lhs_batch_dimensions()) ||
                a.dotDimensions.rhsBatch != ints(dd.rhs_batch_dimensions()) ||
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
};

QTEST_GUILESS_MAIN(TestHloReal)
#include "test_hlo_real.moc"