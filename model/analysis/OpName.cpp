#include "model/analysis/OpName.h"

namespace stepscope {

namespace {
constexpr std::string_view kIteratorPrefix = "Iterator::";
constexpr uint32_t kUnparsed = 0xFFFFFFFEu;
constexpr uint32_t kXlaModule = 0xFFFFFFFDu;

bool isTfNameChar(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '/';
}

bool matchesTfName(std::string_view s) {
    if (s.empty() || s[0] == '/') return false;
    for (char c : s)
        if (!isTfNameChar(c)) return false;
    return true;
}

bool matchesTfType(std::string_view s) {
    if (s.empty() || !((s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_')) return false;
    for (char c : s)
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    return true;
}

bool matchesJaxType(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || c == '_')) return false;
    return true;
}

// "fusion.3" -> "fusion": XLA numbers instructions of one kind with a dot suffix.
std::string_view stripInstructionNumber(std::string_view s) {
    const size_t dot = s.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == s.size()) return s;
    for (size_t i = dot + 1; i < s.size(); ++i)
        if (s[i] < '0' || s[i] > '9') return s;
    return s.substr(0, dot);
}
} // namespace

OpNameParts splitOpName(std::string_view fullName) {
    if (fullName.starts_with(kIteratorPrefix)) return {fullName, "Dataset"};
    const size_t colon = fullName.rfind(':');
    if (colon != std::string_view::npos)
        return {fullName.substr(0, colon), fullName.substr(colon + 1)};
    const size_t slash = fullName.rfind('/');
    std::string_view last = slash == std::string_view::npos ? fullName : fullName.substr(slash + 1);
    if (last.empty()) last = fullName;
    return {fullName, stripInstructionNumber(last)};
}

bool isHostOpName(std::string_view eventName) {
    if (eventName.starts_with(kIteratorPrefix)) return true;
    const size_t colon = eventName.rfind(':');
    if (colon == std::string_view::npos) return false;
    const std::string_view name = eventName.substr(0, colon);
    const std::string_view type = eventName.substr(colon + 1);
    return matchesTfName(name) && (matchesTfType(type) || matchesJaxType(type));
}

OpCatalog::OpCatalog(const Profile& profile)
    : profile_(profile)
    , nameKey_(profile.strings().find("name"))
    , byMetadata_(profile.metadata().size(), kUnparsed) {}

uint32_t OpCatalog::intern(std::string_view name, std::string_view type) {
    std::string key;
    key.reserve(name.size() + type.size() + 1);
    key.append(name).push_back('\0');
    key.append(type);
    auto [it, inserted] = index_.try_emplace(std::move(key), uint32_t(ops_.size()));
    if (inserted) ops_.push_back(OpIdentity{std::string(name), std::string(type)});
    return it->second;
}

uint32_t OpCatalog::fromString(StringId id, std::vector<uint32_t>& cache) {
    if (id >= cache.size())
        cache.resize(std::max<size_t>(id + 1, profile_.strings().size()), kUnparsed);
    uint32_t& slot = cache[id];
    if (slot == kUnparsed) {
        const OpNameParts parts = splitOpName(profile_.str(id));
        slot = parts.type.empty() ? kXlaModule : intern(parts.name, parts.type);
    }
    return slot;
}

uint32_t OpCatalog::hostOp(uint32_t metadata) {
    uint32_t& slot = byMetadata_[metadata];
    if (slot == kUnparsed) {
        const std::string_view name = profile_.str(profile_.metadata()[metadata].name);
        if (isHostOpName(name)) {
            const OpNameParts parts = splitOpName(name);
            slot = intern(parts.name, parts.type);
        } else {
            slot = kNoOp;
        }
    }
    return slot;
}

StringId OpCatalog::eventStat(EventIndex event, StringId key) const {
    if (key == StringPool::kNotFound) return 0;
    for (const StatValue& s : profile_.eventStats(event))
        if (s.key == key && s.isText()) return s.asString();
    for (const StatValue& s : profile_.metadataStats(profile_.metadataOf(event)))
        if (s.key == key && s.isText()) return s.asString();
    return 0;
}

uint32_t OpCatalog::deviceOp(EventIndex event, StringId frameworkOp, StringId hloOp) {
    if (frameworkOp != 0) {
        const uint32_t op = fromString(frameworkOp, byFrameworkOp_);
        if (op != kXlaModule) return op;
    }
    // No framework op, or an XLA module annotation: name the op by what JAX recorded, else by
    // the HLO instruction.
    StringId better = eventStat(event, nameKey_);
    if (better == 0) better = hloOp;
    if (better != 0) {
        const uint32_t named = fromString(better, byJaxName_);
        if (named != kXlaModule) return named;
    }
    if (frameworkOp == 0) return kNoOp;
    return intern(splitOpName(profile_.str(frameworkOp)).name, "XlaModule");
}

} // namespace stepscope
