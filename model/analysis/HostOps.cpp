#include "model/analysis/HostOps.h"

#include <algorithm>
#include <cctype>

#include "model/analysis/TorchTrace.h"

namespace stepscope {

namespace {

// byMetadata_ markers: not looked at yet; no category (an XSpace event: OpCatalog decides).
constexpr uint32_t kUnread = 0xFFFFFFFEu;
constexpr uint32_t kNoCategory = 0xFFFFFFFDu;

// The one row of every step marker ProfilerStep#N.
constexpr std::string_view kStepMarkerOpName = "ProfilerStep#*";

bool isStepMarker(std::string_view name) {
    constexpr std::string_view prefix = "ProfilerStep#";
    if (!name.starts_with(prefix) || name.size() == prefix.size()) return false;
    return std::all_of(name.begin() + prefix.size(), name.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

} // namespace

HostOpCatalog::HostOpCatalog(const Profile& profile, bool pythonFunctions)
    : profile_(profile)
    , pythonFunctions_(pythonFunctions)
    , categoryKey_(profile.strings().find("category"))
    , catalog_(profile, nullptr)
    , byMetadata_(profile.metadata().size(), kUnread) {}

uint32_t HostOpCatalog::intern(std::string_view kind, std::string_view name) {
    std::string key(kind);
    key += '\0';
    key += name;
    const auto [it, fresh] = index_.emplace(std::move(key), uint32_t(ops_.size()));
    if (fresh) ops_.push_back({std::string(kind), std::string(name)});
    return it->second;
}

uint32_t HostOpCatalog::fromCategory(uint32_t metadata) {
    if (categoryKey_ == StringPool::kNotFound) return kNoCategory;
    for (const StatValue& s : profile_.metadataStats(metadata)) {
        if (s.key != categoryKey_ || !s.isText()) continue;
        const std::string_view name = profile_.str(profile_.metadata()[metadata].name);
        const TorchEventType type = torchEventTypeOfCategory(profile_.str(s.asString()));
        // The 2021 schema writes the step marker as an Operator, later ones as a user_annotation.
        if ((type == TorchEventType::Operator || type == TorchEventType::UserAnnotation) &&
            isStepMarker(name))
            return intern("user_annotation", kStepMarkerOpName);
        switch (type) {
        case TorchEventType::Operator:
            return intern("cpu_op", name);
        case TorchEventType::UserAnnotation:
            return intern("user_annotation", name);
        case TorchEventType::Runtime:
            return intern("runtime", name);
        case TorchEventType::Python:
        case TorchEventType::PythonFunction:
            return pythonFunctions_ ? intern("python_function", name) : kNone;
        default:
            return kNone;
        }
    }
    return kNoCategory;
}

uint32_t HostOpCatalog::of(EventIndex event, StringId tfOp, bool runtime) {
    const uint32_t metadata = profile_.metadataOf(event);
    uint32_t& slot = byMetadata_[metadata];
    if (slot == kUnread) slot = fromCategory(metadata);
    if (slot != kNoCategory) return slot;
    const uint32_t op = catalog_.hostOp(event, tfOp, runtime);
    if (op == OpCatalog::kNoOp) return kNone;
    if (op >= fromCatalog_.size()) fromCatalog_.resize(op + 1, kNone);
    if (fromCatalog_[op] == kNone) {
        const OpIdentity& id = catalog_.op(op);
        fromCatalog_[op] = intern(id.type, id.name);
    }
    return fromCatalog_[op];
}

} // namespace stepscope
