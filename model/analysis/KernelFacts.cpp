#include "model/analysis/KernelFacts.h"

namespace stepscope {

KernelFacts::KernelFacts(const Profile& p)
    : profile_(p)
    , inputTypesKey_(p.strings().find("op_input_types"))
    , shapeKey_(p.strings().find("shape"))
    , namePrecision_(p.metadata().size(), 0)
    , nameTensorCore_(p.metadata().size() * kPrecisionCount, 0) {
    vendor_.reserve(p.tracks().size());
    for (const Track& t : p.tracks()) vendor_.push_back(p.planes()[t.plane].device.vendor);
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

KernelFact KernelFacts::of(EventIndex e) {
    KernelFact f;
    StringId types = 0, shape = 0;
    if (inputTypesKey_ != StringPool::kNotFound || shapeKey_ != StringPool::kNotFound) {
        for (const StatValue& s : profile_.eventStats(e)) {
            if (!s.isText()) continue;
            if (s.key == inputTypesKey_) types = s.asString();
            if (s.key == shapeKey_) shape = s.asString();
        }
    }
    if (types != 0) {
        f.precision = fromInputTypes(types, e);
        if (f.precision != Precision::Unknown) f.source = PrecisionSource::OpInputTypes;
    }
    const uint32_t meta = profile_.metadataOf(e);
    if (f.source == PrecisionSource::None) {
        uint8_t& cached = namePrecision_[meta];
        if (cached == 0)
            cached =
                uint8_t(precisionOfKernelName(profile_.str(profile_.metadata()[meta].name))) + 1;
        f.precision = Precision(cached - 1);
        if (f.precision != Precision::Unknown) f.source = PrecisionSource::KernelName;
    }
    if (f.source == PrecisionSource::None && shape != 0) {
        auto it = shapes_.find(shape);
        if (it == shapes_.end())
            it = shapes_.emplace(shape, precisionOfTensorShapes(profile_.str(shape))).first;
        f.precision = it->second;
        if (f.precision != Precision::Unknown) f.source = PrecisionSource::TensorShapes;
    }
    uint8_t& tc = nameTensorCore_[size_t(meta) * kPrecisionCount + size_t(f.precision)];
    if (tc == 0)
        tc = uint8_t(kernelTensorCoreUse(profile_.str(profile_.metadata()[meta].name),
                                         vendor_[profile_.trackOf(e)], f.precision)) +
             1;
    f.tensorCore = TensorCoreUse(tc - 1);
    return f;
}

} // namespace stepscope
