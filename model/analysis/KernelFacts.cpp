#include "model/analysis/KernelFacts.h"

namespace stepscope {

KernelFacts::KernelFacts(const Profile& p, const HloCatalog& hlo)
    : profile_(p)
    , hlo_(hlo)
    , inputTypesKey_(p.strings().find("op_input_types"))
    , shapeKey_(p.strings().find("shape"))
    , namePrecision_(p.metadata().size(), 0)
    , nameTensorCore_(p.metadata().size() * kPrecisionCount, 0)
    , answerOfMetadata_(p.metadata().size(), 0) {
    vendor_.reserve(p.tracks().size());
    computeCap_.reserve(p.tracks().size());
    for (const Track& t : p.tracks()) {
        const DeviceInfo& d = p.planes()[t.plane].device;
        vendor_.push_back(d.vendor);
        computeCap_.push_back(d.computeCapMajor * 10 + d.computeCapMinor);
    }
}

Precision KernelFacts::fromInputTypes(StringId types, EventIndex kernel) {
    const StringId* framework = profile_.frameworkOps().find(kernel);
    const StringId opName = framework ? *framework : 0;
    const uint64_t key = uint64_t(types) << 32 | opName;
    auto it = inputTypes_.find(key);
    if (it == inputTypes_.end()) {
        const bool matrixOp = opName != 0 && opIsTensorCoreEligible(profile_.str(opName));
        it = inputTypes_.emplace(key, precisionOfInputTypes(profile_.str(types), matrixOp)).first;
    }
    return it->second;
}

StringId KernelFacts::textStat(EventIndex e, StringId key) const {
    for (const StatValue& s : profile_.eventStats(e))
        if (s.key == key && s.isText()) return s.asString();
    return 0;
}

Precision KernelFacts::namePrecision(uint32_t meta) {
    uint8_t& cached = namePrecision_[meta];
    if (cached == 0)
        cached = uint8_t(precisionOfKernelName(profile_.str(profile_.metadata()[meta].name))) + 1;
    return Precision(cached - 1);
}

KernelFact KernelFacts::of(EventIndex e) {
    const uint32_t meta = profile_.metadataOf(e);
    const uint32_t cached = answerOfMetadata_[meta];
    if (cached & kAnswered)
        return {Precision(cached & 0xFF), PrecisionSource((cached >> 8) & 0xFF),
                TensorCoreUse((cached >> 16) & 0xFF)};
    const KernelFact f = evidenceOf(e, meta);
    // Without HLO or op input types in the profile, a kernel whose name decides (or whose events
    // carry no tensor shapes either) gets the same answer for every event: keep it.
    if (hlo_.empty() && inputTypesKey_ == StringPool::kNotFound &&
        (f.source == PrecisionSource::KernelName || shapeKey_ == StringPool::kNotFound))
        answerOfMetadata_[meta] = kAnswered | uint32_t(f.precision) | uint32_t(f.source) << 8 |
                                  uint32_t(f.tensorCore) << 16;
    return f;
}

KernelFact KernelFacts::evidenceOf(EventIndex e, uint32_t meta) {
    KernelFact f;
    // Callers walk events track by track: the track found last is usually the event's.
    if (e < trackBegin_ || e >= trackEnd_) {
        track_ = profile_.trackOf(e);
        trackBegin_ = profile_.tracks()[track_].firstEvent;
        trackEnd_ = trackBegin_ + profile_.tracks()[track_].eventCount;
    }
    const uint32_t track = track_;
    const HloOpRef ref = hlo_.empty() ? HloOpRef{} : hlo_.instructionOf(e);
    if (ref) {
        f.precision = hlo_.precision(ref);
        if (f.precision == Precision::FP32 && hlo_.isMatrixOp(ref) &&
            namePrecision(meta) == Precision::TF32)
            f.precision = Precision::TF32;
        if (f.precision != Precision::Unknown) f.source = PrecisionSource::Hlo;
    }
    if (f.source == PrecisionSource::None && inputTypesKey_ != StringPool::kNotFound)
        if (const StringId types = textStat(e, inputTypesKey_); types != 0) {
            f.precision = fromInputTypes(types, e);
            if (f.precision != Precision::Unknown) f.source = PrecisionSource::OpInputTypes;
        }
    if (f.source == PrecisionSource::None) {
        f.precision = namePrecision(meta);
        if (f.precision != Precision::Unknown) f.source = PrecisionSource::KernelName;
    }
    if (f.source == PrecisionSource::None && shapeKey_ != StringPool::kNotFound)
        if (const StringId shape = textStat(e, shapeKey_); shape != 0) {
            auto it = shapes_.find(shape);
            if (it == shapes_.end())
                it = shapes_.emplace(shape, precisionOfTensorShapes(profile_.str(shape))).first;
            f.precision = it->second;
            if (f.precision != Precision::Unknown) f.source = PrecisionSource::TensorShapes;
        }
    uint8_t& tc = nameTensorCore_[size_t(meta) * kPrecisionCount + size_t(f.precision)];
    if (tc == 0)
        tc = uint8_t(kernelTensorCoreUse(profile_.str(profile_.metadata()[meta].name),
                                         vendor_[track], f.precision)) +
             1;
    f.tensorCore = TensorCoreUse(tc - 1);
    if (f.tensorCore == TensorCoreUse::Unknown && ref)
        f.tensorCore = hloTensorCoreUse(ref, track, f.precision);
    return f;
}

// The HLO rule for kernels whose name says nothing (see the header).
TensorCoreUse KernelFacts::hloTensorCoreUse(const HloOpRef& ref, uint32_t track,
                                            Precision precision) const {
    if (!hlo_.isMatrixOp(ref))
        // A custom-call that is no known GEMM or convolution library call (a Pallas/Triton
        // kernel, a cub sort) may use Tensor Cores or not: only XLA's own emitters say "not".
        return ref.instruction->opcode == "custom-call" ? TensorCoreUse::Unknown
                                                        : TensorCoreUse::DoesNot;
    const std::string_view vendor = vendor_[track];
    const bool nvidia = vendor.empty() || vendor == "Nvidia" || vendor == "NVIDIA";
    const int cc = computeCap_[track];
    const bool low = isBelow32Bit(precision) || precision == Precision::TF32;
    if (nvidia && ((cc >= 80 && low) || (cc >= 70 && precision == Precision::FP16)))
        return TensorCoreUse::Uses;
    return TensorCoreUse::Unknown;
}

} // namespace stepscope
