#include "model/analysis/KernelFacts.h"

namespace stepscope {

KernelFacts::KernelFacts(const Profile& p, const HloCatalog& hlo)
    : profile_(p)
    , hlo_(hlo)
    , hloCursor_(hlo)
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

bool opInputTypesDescribeItsKernels(std::string_view op) {
    return op.find("::") != std::string_view::npos && !op.starts_with("autograd::");
}

Precision KernelFacts::fromInputTypes(StringId types, EventIndex kernel) {
    const StringId* framework = profile_.frameworkOps().find(kernel);
    const StringId opName = framework ? *framework : 0;
    const uint64_t key = uint64_t(types) << 32 | opName;
    auto it = inputTypes_.find(key);
    if (it == inputTypes_.end()) {
        const std::string_view op = profile_.str(opName);
        Precision p = Precision::Unknown;
        if (opInputTypesDescribeItsKernels(op))
            p = precisionOfInputTypes(profile_.str(types), opIsTensorCoreEligible(op));
        it = inputTypes_.emplace(key, p).first;
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
    const HloOpRef ref = hlo_.empty() ? HloOpRef{} : hloCursor_.at(e);
    if (ref && ref.precision != Precision::Unknown) {
        f.precision = ref.precision;
        f.source = PrecisionSource::Hlo;
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
    // fp32 data that the kernel's name says it multiplies as tf32 is TF32 work, whatever source
    // said fp32 (an f32 HLO dot, a PyTorch op on float tensors): TF32 is no storage type.
    if (f.precision == Precision::FP32 && namePrecision(meta) == Precision::TF32)
        f.precision = Precision::TF32;
    uint8_t& tc = nameTensorCore_[size_t(meta) * kPrecisionCount + size_t(f.precision)];
    if (tc == 0)
        tc = uint8_t(kernelTensorCoreUse(profile_.str(profile_.metadata()[meta].name),
                                         vendor_[track_], f.precision)) +
             1;
    f.tensorCore = TensorCoreUse(tc - 1);
    if (f.tensorCore == TensorCoreUse::Unknown && ref)
        f.tensorCore = hloTensorCoreUse(ref, track_, f.precision);
    return f;
}

// The HLO rule for kernels whose name says nothing (see the header).
TensorCoreUse KernelFacts::hloTensorCoreUse(const HloOpRef& ref, uint32_t track,
                                            Precision precision) const {
    if (!ref.matrix)
        // A custom-call that is no known GEMM or convolution library call (a Pallas/Triton
        // kernel, a cub sort) may use Tensor Cores or not: only XLA's own emitters say "not".
        return ref.instruction->opcode == "custom-call" ? TensorCoreUse::Unknown
                                                        : TensorCoreUse::DoesNot;
    const GpuVendor vendor = gpuVendorOf(vendor_[track]);
    const int cc = computeCap_[track];
    if (vendor != GpuVendor::Amd && ((cc >= 80 && isTensorCorePrecision(precision)) ||
                                     (cc >= 70 && precision == Precision::FP16)))
        return TensorCoreUse::Uses;
    return TensorCoreUse::Unknown;
}

} // namespace stepscope
