#include "model/xspace/HloProto.h"

#include <algorithm>

#include "model/xspace/WireReader.h"

namespace stepscope {

std::string_view elementTypeName(HloElementType t) {
    using T = HloElementType;
    switch (t) {
    case T::Invalid:
        return "invalid";
    case T::Pred:
        return "pred";
    case T::S1:
        return "s1";
    case T::S2:
        return "s2";
    case T::S4:
        return "s4";
    case T::S8:
        return "s8";
    case T::S16:
        return "s16";
    case T::S32:
        return "s32";
    case T::S64:
        return "s64";
    case T::U1:
        return "u1";
    case T::U2:
        return "u2";
    case T::U4:
        return "u4";
    case T::U8:
        return "u8";
    case T::U16:
        return "u16";
    case T::U32:
        return "u32";
    case T::U64:
        return "u64";
    case T::F16:
        return "f16";
    case T::F32:
        return "f32";
    case T::BF16:
        return "bf16";
    case T::F64:
        return "f64";
    case T::F8E5M2:
        return "f8e5m2";
    case T::F8E4M3:
        return "f8e4m3";
    case T::F8E4M3FN:
        return "f8e4m3fn";
    case T::F8E4M3B11FNUZ:
        return "f8e4m3b11fnuz";
    case T::F8E3M4:
        return "f8e3m4";
    case T::F8E5M2FNUZ:
        return "f8e5m2fnuz";
    case T::F8E4M3FNUZ:
        return "f8e4m3fnuz";
    case T::F4E2M1FN:
        return "f4e2m1fn";
    case T::F8E8M0FNU:
        return "f8e8m0fnu";
    case T::C64:
        return "c64";
    case T::C128:
        return "c128";
    case T::Tuple:
        return "tuple";
    case T::OpaqueType:
        return "opaque";
    case T::Token:
        return "token";
    case T::Buffer:
        return "buffer";
    }
    return "unknown";
}

// ---- lookups

const HloComputation* HloModule::computation(int64_t id) const {
    const auto it = std::lower_bound(computation_.begin(), computation_.end(), id,
                                     [](const auto& entry, int64_t v) { return entry.first < v; });
    return it != computation_.end() && it->first == id ? &computations[it->second] : nullptr;
}

const HloInstruction* HloModule::instruction(int64_t id) const {
    const auto it = std::lower_bound(byId_.begin(), byId_.end(), id,
                                     [](const auto& entry, int64_t v) { return entry.first < v; });
    return it != byId_.end() && it->first == id ? &at(it->second) : nullptr;
}

const HloInstruction* HloModule::instructionNamed(std::string_view name) const {
    const auto it = std::lower_bound(
        byName_.begin(), byName_.end(), name,
        [this](const Slot& s, std::string_view v) { return std::string_view(at(s).name) < v; });
    return it != byName_.end() && at(*it).name == name ? &at(*it) : nullptr;
}

const HloSequence* HloModule::sequence(int64_t computationId) const {
    for (const HloSequence& s : schedule)
        if (s.computationId == computationId) return &s;
    return nullptr;
}

const HloComputation* HloModule::computationOf(const HloInstruction& instruction) const {
    for (const HloComputation& c : computations)
        if (!c.instructions.empty() && &instruction >= c.instructions.data() &&
            &instruction < c.instructions.data() + c.instructions.size())
            return &c;
    return nullptr;
}

void HloModule::index() {
    byId_.clear();
    byName_.clear();
    computation_.clear();
    for (uint32_t c = 0; c < computations.size(); ++c) {
        computation_.push_back({computations[c].id, c});
        for (uint32_t i = 0; i < computations[c].instructions.size(); ++i) {
            byId_.push_back({computations[c].instructions[i].id, Slot{c, i}});
            byName_.push_back(Slot{c, i});
        }
    }
    std::stable_sort(computation_.begin(), computation_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::stable_sort(byId_.begin(), byId_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::stable_sort(byName_.begin(), byName_.end(),
                     [this](Slot a, Slot b) { return at(a).name < at(b).name; });
}

// ---- decoding

namespace {

// Reads the messages of one HloProto. Every reader shares the error string and counts offsets
// from the start of the HloProto's bytes.
class Decoder {
public:
    Decoder(std::span<const uint8_t> bytes, std::string& error)
        : bytes_(bytes)
        , error_(error) {}

    WireReader reader(const uint8_t* b, const uint8_t* e) const {
        return WireReader(b, e, bytes_, &error_);
    }

    bool hloProto(WireReader in, std::optional<HloModule>& out) {
        uint32_t f, wt;
        while (in.next(f, wt)) {
            if (f == 1) {
                if (!out) out.emplace();
                if (!message(in, wt, "HloProto.hlo_module",
                             [&](WireReader m) { return module(m, *out); }))
                    return false;
            } else if (!in.skip(wt, "HloProto")) {
                return false;
            }
        }
        return !in.failed();
    }

private:
    // A length-delimited field holding a message, decoded by fn(WireReader over its bytes).
    template <class Fn> bool message(WireReader& in, uint32_t wt, const char* what, Fn&& fn) {
        const uint8_t *b = nullptr, *e = nullptr;
        if (!in.expect(wt, WireReader::Len, what) || !in.bytes(b, e, what)) return false;
        return fn(reader(b, e));
    }

    static bool text(WireReader& in, uint32_t wt, std::string& out, const char* what) {
        std::string_view v;
        if (!in.expect(wt, WireReader::Len, what) || !in.string(v, what)) return false;
        out.assign(v);
        return true;
    }

    static bool int64(WireReader& in, uint32_t wt, int64_t& out, const char* what) {
        uint64_t v;
        if (!in.expect(wt, WireReader::Varint, what) || !in.varint(v, what)) return false;
        out = int64_t(v);
        return true;
    }

    static bool int32(WireReader& in, uint32_t wt, int32_t& out, const char* what) {
        int64_t v;
        if (!int64(in, wt, v, what)) return false;
        out = int32_t(v); // proto3 int32 and enums: the low 32 bits of a sign-extended varint
        return true;
    }

    // A repeated int64 (or enum) field, which protobuf writes packed (one length-delimited run of
    // varints) or, from older writers, one varint per element. Either form may appear, even
    // mixed, and both append.
    template <class T>
    bool repeated(WireReader& in, uint32_t wt, std::vector<T>& out, const char* what) {
        if (wt == WireReader::Varint) {
            uint64_t v;
            if (!in.varint(v, what)) return false;
            out.push_back(T(int64_t(v)));
            return true;
        }
        const uint8_t *b = nullptr, *e = nullptr;
        if (!in.expect(wt, WireReader::Len, what) || !in.bytes(b, e, what)) return false;
        WireReader packed = reader(b, e);
        const size_t end = size_t(e - bytes_.data());
        while (packed.offset() < end) {
            uint64_t v;
            if (!packed.varint(v, what)) return false;
            out.push_back(T(int64_t(v)));
        }
        return !packed.failed();
    }

    bool shape(WireReader in, HloShape& s, int depth) {
        if (depth > kMaxShapeDepth)
            return in.fail("shape nested too deeply (over 64 tuple levels) in ",
                           "ShapeProto.tuple_shapes");
        uint32_t f, wt;
        while (in.next(f, wt)) {
            bool ok = true;
            switch (f) {
            case 2: {
                int32_t t = 0;
                ok = int32(in, wt, t, "ShapeProto.element_type");
                s.elementType = HloElementType(t);
                break;
            }
            case 3:
                ok = repeated(in, wt, s.dimensions, "ShapeProto.dimensions");
                break;
            case 4:
                ok = message(in, wt, "ShapeProto.tuple_shapes", [&](WireReader m) {
                    s.tupleShapes.emplace_back();
                    return shape(m, s.tupleShapes.back(), depth + 1);
                });
                break;
            default:
                ok = in.skip(wt, "ShapeProto");
            }
            if (!ok) return false;
        }
        return !in.failed();
    }

    bool metadata(WireReader in, HloOpMetadata& m) {
        uint32_t f, wt;
        while (in.next(f, wt)) {
            bool ok = true;
            switch (f) {
            case 1:
                ok = text(in, wt, m.opType, "OpMetadata.op_type");
                break;
            case 2:
                ok = text(in, wt, m.opName, "OpMetadata.op_name");
                break;
            case 3:
                ok = text(in, wt, m.sourceFile, "OpMetadata.source_file");
                break;
            case 4:
                ok = int32(in, wt, m.sourceLine, "OpMetadata.source_line");
                break;
            default:
                ok = in.skip(wt, "OpMetadata");
            }
            if (!ok) return false;
        }
        return !in.failed();
    }

    bool precisionConfig(WireReader in, int32_t& algorithm) {
        uint32_t f, wt;
        while (in.next(f, wt)) {
            bool ok = true;
            if (f == 2) {
                int64_t v = 0;
                ok = int64(in, wt, v, "PrecisionConfig.algorithm");
                algorithm = int32_t(v);
            } else {
                ok = in.skip(wt, "PrecisionConfig");
            }
            if (!ok) return false;
        }
        return !in.failed();
    }

    bool dotDimensions(WireReader in, HloDotDimensions& d) {
        uint32_t f, wt;
        while (in.next(f, wt)) {
            bool ok = true;
            switch (f) {
            case 1:
                ok = repeated(in, wt, d.lhsContracting,
                              "DotDimensionNumbers.lhs_contracting_dimensions");
                break;
            case 2:
                ok = repeated(in, wt, d.rhsContracting,
                              "DotDimensionNumbers.rhs_contracting_dimensions");
                break;
            case 3:
                ok = repeated(in, wt, d.lhsBatch, "DotDimensionNumbers.lhs_batch_dimensions");
                break;
            case 4:
                ok = repeated(in, wt, d.rhsBatch, "DotDimensionNumbers.rhs_batch_dimensions");
                break;
            default:
                ok = in.skip(wt, "DotDimensionNumbers");
            }
            if (!ok) return false;
        }
        return !in.failed();
    }

    bool windowDimension(WireReader in, HloWindowDimension& d) {
        uint32_t f, wt;
        while (in.next(f, wt)) {
            int64_t* field = nullptr;
            switch (f) {
            case 1:
                field = &d.size;
                break;
            case 2:
                field = &d.stride;
                break;
            case 3:
                field = &d.paddingLow;
                break;
            case 4:
                field = &d.paddingHigh;
                break;
            case 5:
                field = &d.windowDilation;
                break;
            case 6:
                field = &d.baseDilation;
                break;
            }
            const bool ok =
                field ? int64(in, wt, *field, "WindowDimension") : in.skip(wt, "WindowDimension");
            if (!ok) return false;
        }
        return !in.failed();
    }

    bool window(WireReader in, std::vector<HloWindowDimension>& out) {
        uint32_t f, wt;
        while (in.next(f, wt)) {
            const bool ok = f == 1 ? message(in, wt, "Window.dimensions",
                                             [&](WireReader m) {
                                                 out.emplace_back();
                                                 return windowDimension(m, out.back());
                                             })
                                   : in.skip(wt, "Window");
            if (!ok) return false;
        }
        return !in.failed();
    }

    bool convolutionDimensions(WireReader in, HloConvolutionDimensions& d) {
        const char* what = "ConvolutionDimensionNumbers";
        uint32_t f, wt;
        while (in.next(f, wt)) {
            bool ok = true;
            switch (f) {
            case 3:
                ok = int64(in, wt, d.kernelInputFeature, what);
                break;
            case 4:
                ok = int64(in, wt, d.kernelOutputFeature, what);
                break;
            case 6:
                ok = repeated(in, wt, d.kernelSpatial, what);
                break;
            case 7:
                ok = int64(in, wt, d.inputBatch, what);
                break;
            case 8:
                ok = int64(in, wt, d.inputFeature, what);
                break;
            case 9:
                ok = int64(in, wt, d.outputBatch, what);
                break;
            case 10:
                ok = int64(in, wt, d.outputFeature, what);
                break;
            case 11:
                ok = repeated(in, wt, d.inputSpatial, what);
                break;
            case 12:
                ok = repeated(in, wt, d.outputSpatial, what);
                break;
            default:
                ok = in.skip(wt, what);
            }
            if (!ok) return false;
        }
        return !in.failed();
    }

    bool instruction(WireReader in, HloInstruction& h) {
        uint32_t f, wt;
        while (in.next(f, wt)) {
            bool ok = true;
            switch (f) {
            case 1:
                ok = text(in, wt, h.name, "HloInstructionProto.name");
                break;
            case 2:
                ok = text(in, wt, h.opcode, "HloInstructionProto.opcode");
                break;
            case 3:
                ok = message(in, wt, "HloInstructionProto.shape",
                             [&](WireReader m) { return shape(m, h.shape, 0); });
                break;
            case 7:
                ok = message(in, wt, "HloInstructionProto.metadata",
                             [&](WireReader m) { return metadata(m, h.metadata); });
                break;
            case 11:
                ok = text(in, wt, h.fusionKind, "HloInstructionProto.fusion_kind");
                break;
            case 15:
                ok = message(in, wt, "HloInstructionProto.window",
                             [&](WireReader m) { return window(m, h.window); });
                break;
            case 16:
                ok = message(in, wt, "HloInstructionProto.convolution_dimension_numbers",
                             [&](WireReader m) { return convolutionDimensions(m, h.convolution); });
                break;
            case 28:
                ok = text(in, wt, h.customCallTarget, "HloInstructionProto.custom_call_target");
                break;
            case 30:
                ok = message(in, wt, "HloInstructionProto.dot_dimension_numbers",
                             [&](WireReader m) { return dotDimensions(m, h.dot); });
                break;
            case 35:
                ok = int64(in, wt, h.id, "HloInstructionProto.id");
                break;
            case 36:
                ok = repeated(in, wt, h.operandIds, "HloInstructionProto.operand_ids");
                break;
            case 38:
                ok = repeated(in, wt, h.calledComputationIds,
                              "HloInstructionProto.called_computation_ids");
                break;
            case 43:
                ok = text(in, wt, h.backendConfig, "HloInstructionProto.backend_config");
                break;
            case 50:
                ok = int64(in, wt, h.featureGroupCount, "HloInstructionProto.feature_group_count");
                break;
            case 51:
                ok = message(in, wt, "HloInstructionProto.precision_config",
                             [&](WireReader m) { return precisionConfig(m, h.dotAlgorithm); });
                break;
            case 58:
                ok = int64(in, wt, h.batchGroupCount, "HloInstructionProto.batch_group_count");
                break;
            default:
                ok = in.skip(wt, "HloInstructionProto");
            }
            if (!ok) return false;
        }
        // Only custom-calls keep their backend config (see HloInstruction::backendConfig); the
        // opcode may come after it on the wire.
        if (h.opcode != "custom-call") std::string().swap(h.backendConfig);
        return !in.failed();
    }

    bool computation(WireReader in, HloComputation& c) {
        uint32_t f, wt;
        while (in.next(f, wt)) {
            bool ok = true;
            switch (f) {
            case 1:
                ok = text(in, wt, c.name, "HloComputationProto.name");
                break;
            case 2:
                ok = message(in, wt, "HloComputationProto.instructions", [&](WireReader m) {
                    c.instructions.emplace_back();
                    return instruction(m, c.instructions.back());
                });
                break;
            case 5:
                ok = int64(in, wt, c.id, "HloComputationProto.id");
                break;
            case 6:
                ok = int64(in, wt, c.rootId, "HloComputationProto.root_id");
                break;
            default:
                ok = in.skip(wt, "HloComputationProto");
            }
            if (!ok) return false;
        }
        return !in.failed();
    }

    bool sequenceEntry(WireReader in, HloSequence& s) {
        uint32_t f, wt;
        while (in.next(f, wt)) {
            bool ok = true;
            if (f == 1) {
                ok = int64(in, wt, s.computationId, "HloScheduleProto.sequences key");
            } else if (f == 2) {
                ok = message(in, wt, "HloScheduleProto.sequences value", [&](WireReader m) {
                    uint32_t g, wt2;
                    while (m.next(g, wt2)) {
                        const bool good = g == 1 ? repeated(m, wt2, s.instructionIds,
                                                            "InstructionSequence.instruction_ids")
                                                 : m.skip(wt2, "InstructionSequence");
                        if (!good) return false;
                    }
                    return !m.failed();
                });
            } else {
                ok = in.skip(wt, "HloScheduleProto.sequences");
            }
            if (!ok) return false;
        }
        return !in.failed();
    }

    bool schedule(WireReader in, std::vector<HloSequence>& out) {
        uint32_t f, wt;
        while (in.next(f, wt)) {
            bool ok = true;
            if (f == 1)
                ok = message(in, wt, "HloScheduleProto.sequences", [&](WireReader m) {
                    out.emplace_back();
                    return sequenceEntry(m, out.back());
                });
            else
                ok = in.skip(wt, "HloScheduleProto");
            if (!ok) return false;
        }
        return !in.failed();
    }

    bool module(WireReader in, HloModule& m) {
        uint32_t f, wt;
        while (in.next(f, wt)) {
            bool ok = true;
            switch (f) {
            case 1:
                ok = text(in, wt, m.name, "HloModuleProto.name");
                break;
            case 2:
                ok = text(in, wt, m.entryComputationName, "HloModuleProto.entry_computation_name");
                break;
            case 3:
                ok = message(in, wt, "HloModuleProto.computations", [&](WireReader r) {
                    m.computations.emplace_back();
                    return computation(r, m.computations.back());
                });
                break;
            case 5:
                ok = int64(in, wt, m.id, "HloModuleProto.id");
                break;
            case 6:
                ok = int64(in, wt, m.entryComputationId, "HloModuleProto.entry_computation_id");
                break;
            case 7:
                ok = message(in, wt, "HloModuleProto.schedule",
                             [&](WireReader r) { return schedule(r, m.schedule); });
                break;
            default:
                ok = in.skip(wt, "HloModuleProto");
            }
            if (!ok) return false;
        }
        return !in.failed();
    }

    std::span<const uint8_t> bytes_;
    std::string& error_;
};

} // namespace

std::optional<HloModule> decodeHloProto(std::span<const uint8_t> bytes, std::string& error) {
    error.clear();
    std::optional<HloModule> out;
    Decoder d(bytes, error);
    if (!d.hloProto(d.reader(bytes.data(), bytes.data() + bytes.size()), out)) {
        if (error.empty()) error = "the HloProto could not be decoded";
        return std::nullopt;
    }
    if (!out) {
        error = "the HloProto holds no hlo_module (field 1)";
        return std::nullopt;
    }
    out->index();
    return out;
}

} // namespace stepscope
