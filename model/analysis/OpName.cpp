#include "model/analysis/OpName.h"

#include <algorithm>
#include <cctype>

namespace stepscope {

namespace {
constexpr uint32_t kUnparsed = 0xFFFFFFFEu;
// A framework op that is only JAX's module annotation ("XlaModule:").
constexpr uint32_t kModuleAnnotation = 0xFFFFFFFDu;

bool isUpper(char c) {
    return c >= 'A' && c <= 'Z';
}
bool isLower(char c) {
    return c >= 'a' && c <= 'z';
}
bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

// [A-Za-z0-9.][A-Za-z0-9_./>-]*
bool isTfOpName(std::string_view s) {
    if (s.empty()) return false;
    const char c0 = s[0];
    if (!(isUpper(c0) || isLower(c0) || isDigit(c0) || c0 == '.')) return false;
    return std::all_of(s.begin() + 1, s.end(), [](char c) {
        return isUpper(c) || isLower(c) || isDigit(c) || c == '_' || c == '.' || c == '/' ||
               c == '>' || c == '-';
    });
}

// [A-Z_][a-zA-Z0-9_]*
bool isTfOpType(std::string_view s) {
    if (s.empty() || !(isUpper(s[0]) || s[0] == '_')) return false;
    return std::all_of(s.begin() + 1, s.end(),
                       [](char c) { return isUpper(c) || isLower(c) || isDigit(c) || c == '_'; });
}

// [a-z_][a-z0-9_]*(\[.*\])?
bool isJaxOpType(std::string_view s) {
    if (s.empty() || !(isLower(s[0]) || s[0] == '_')) return false;
    size_t i = 1;
    while (i < s.size() && (isLower(s[i]) || isDigit(s[i]) || s[i] == '_')) ++i;
    return i == s.size() || (s[i] == '[' && s.back() == ']');
}

// A whole decimal integer, as absl::SimpleAtoi accepts it (an optional sign, then digits).
bool isInteger(std::string_view s) {
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
    return !s.empty() && std::all_of(s.begin(), s.end(), isDigit);
}

// The last '/' component without a numeric "_N" suffix: "model/layer/MatMul_1" -> "MatMul".
std::string_view deriveOpType(std::string_view fullOpName) {
    const size_t slash = fullOpName.rfind('/');
    const std::string_view opName =
        slash == std::string_view::npos ? fullOpName : fullOpName.substr(slash + 1);
    const size_t underscore = opName.rfind('_');
    const std::string_view suffix =
        underscore == std::string_view::npos ? opName : opName.substr(underscore + 1);
    if (isInteger(suffix) && underscore != std::string_view::npos)
        return opName.substr(0, underscore);
    return opName;
}

bool startsWithIgnoreCase(std::string_view s, std::string_view prefix) {
    if (s.size() < prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[i])) !=
            std::tolower(static_cast<unsigned char>(prefix[i])))
            return false;
    return true;
}

// "fusion.3" -> "fusion": XLA numbers the instructions of one kind with a dot suffix.
std::string_view stripInstructionNumber(std::string_view s) {
    const size_t dot = s.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == s.size()) return s;
    for (size_t i = dot + 1; i < s.size(); ++i)
        if (!isDigit(s[i])) return s;
    return s.substr(0, dot);
}
} // namespace

ParsedOp parseTfOpFullname(std::string_view full) {
    ParsedOp op{OpCategory::Unknown, full, {}};
    const size_t colon = full.find(':');
    if (colon == std::string_view::npos) {
        static constexpr std::pair<std::string_view, OpCategory> kCopies[] = {
            {"MemcpyHToD", OpCategory::MemcpyHToD},
            {"MemcpyDToH", OpCategory::MemcpyDToH},
            {"MemcpyDToD", OpCategory::MemcpyDToD},
            {"MemcpyHToH", OpCategory::MemcpyHToH},
        };
        for (const auto& [type, category] : kCopies)
            if (startsWithIgnoreCase(full, type)) return {category, full, type};
        return op;
    }
    const std::string_view name = full.substr(0, colon);
    const std::string_view type = full.substr(colon + 1);
    if (name == "Iterator") return {OpCategory::TfData, full, "Dataset"};
    if (isTfOpName(name) && isTfOpType(type)) return {OpCategory::TensorFlow, name, type};
    const std::string_view jaxType = type.empty() ? deriveOpType(name) : type;
    if (isJaxOpType(jaxType)) return {OpCategory::Jax, name, jaxType.substr(0, jaxType.find('['))};
    if (type.empty()) return {OpCategory::TensorFlow, name, jaxType};
    return op;
}

bool isHostOpName(std::string_view eventName) {
    return parseTfOpFullname(eventName).category != OpCategory::Unknown;
}

std::string_view hloOpName(std::string_view hloOp) {
    const size_t sep = hloOp.rfind("::");
    return sep == std::string_view::npos ? hloOp : hloOp.substr(sep + 2);
}

OpCatalog::OpCatalog(const Profile& profile, const HloCatalog* hlo)
    : profile_(profile)
    , hlo_(hlo && !hlo->empty() ? hlo : nullptr)
    , hloCursor_(hlo_ ? std::optional<HloCatalog::Cursor>(std::in_place, *hlo_) : std::nullopt)
    , nameKey_(profile.strings().find("name"))
    , stageIdKey_(profile.strings().find("input_pipeline_stage_id"))
    , stageCategoryKey_(profile.strings().find("input_pipeline_stage_category"))
    , byHostName_(profile.metadata().size(), kUnparsed)
    , unclaimed_(profile.metadata().size(), kUnparsed) {
    // PyTorch operators: host events whose category (the Kineto importer's metadata stat) is
    // cpu_op, or Operator in the 2021 schema.
    const StringId categoryKey = profile.strings().find("category");
    if (categoryKey == StringPool::kNotFound) return;
    const StringId cpuOp = profile.strings().find("cpu_op");
    const StringId operatorCat = profile.strings().find("Operator");
    for (uint32_t m = 0; m < profile.metadata().size(); ++m) {
        for (const StatValue& s : profile.metadataStats(m)) {
            if (s.key != categoryKey || !s.isText()) continue;
            const StringId cat = s.asString();
            if (cat != cpuOp && cat != operatorCat) continue;
            const StringId name = profile.metadata()[m].name;
            if (profile.str(name).starts_with("ProfilerStep#")) continue;
            if (name >= torchOps_.size()) torchOps_.resize(name + 1, false);
            torchOps_[name] = true;
        }
    }
}

uint32_t OpCatalog::intern(std::string_view name, std::string_view type) {
    std::string key;
    key.reserve(name.size() + type.size() + 1);
    key.append(name).push_back('\0');
    key.append(type);
    auto [it, inserted] = index_.try_emplace(std::move(key), uint32_t(ops_.size()));
    if (inserted) ops_.push_back(OpIdentity{std::string(name), std::string(type)});
    return it->second;
}

namespace {
uint32_t& cacheSlot(std::vector<uint32_t>& cache, StringId id, size_t poolSize) {
    if (id >= cache.size()) cache.resize(std::max<size_t>(id + 1, poolSize), kUnparsed);
    return cache[id];
}
} // namespace

uint32_t OpCatalog::fromFrameworkOp(StringId id) {
    uint32_t& slot = cacheSlot(byFrameworkOp_, id, profile_.strings().size());
    if (slot == kUnparsed) {
        const std::string_view text = profile_.str(id);
        if (text == "XlaModule:") {
            slot = kModuleAnnotation;
        } else {
            const ParsedOp p = parseTfOpFullname(text);
            slot = p.category != OpCategory::Unknown ? intern(p.name, p.type)
                   : isTorchOp(id)                   ? intern(text, text)
                                                     : intern(text, kUnknownOpType);
        }
    }
    return slot;
}

uint32_t OpCatalog::fromOpPath(StringId id) {
    uint32_t& slot = cacheSlot(byOpPath_, id, profile_.strings().size());
    if (slot == kUnparsed) slot = opOfPath(profile_.str(id));
    return slot;
}

uint32_t OpCatalog::opOfPath(std::string_view path) {
    const size_t slash = path.rfind('/');
    std::string_view type = slash == std::string_view::npos ? path : path.substr(slash + 1);
    type = type.substr(0, type.find('['));
    return intern(path, type.empty() ? kUnknownOpType : type);
}

uint32_t OpCatalog::fromInstruction(const HloOpRef& ref) {
    const auto [it, fresh] = byInstruction_.try_emplace(ref.instruction, 0);
    if (fresh) {
        const std::string_view path = hlo_->opPath(ref);
        const std::string_view name = ref.instruction->name;
        it->second = !path.empty() ? opOfPath(path) : intern(name, stripInstructionNumber(name));
    }
    return it->second;
}

uint32_t OpCatalog::fromHloOp(StringId id) {
    uint32_t& slot = cacheSlot(byHloOp_, id, profile_.strings().size());
    if (slot == kUnparsed) {
        const std::string_view name = hloOpName(profile_.str(id));
        slot = intern(name, name.empty() ? kUnknownOpType : stripInstructionNumber(name));
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

uint32_t OpCatalog::inputPipelineStage(EventIndex event) {
    if (stageIdKey_ == StringPool::kNotFound || stageCategoryKey_ == StringPool::kNotFound)
        return kNoOp;
    bool hasId = false;
    for (const StatValue& s : profile_.eventStats(event)) hasId |= s.key == stageIdKey_;
    if (!hasId) return kNoOp;
    const StringId category = eventStat(event, stageCategoryKey_);
    if (category == 0) return kNoOp;
    return intern(profile_.name(event), profile_.str(category));
}

uint32_t OpCatalog::hostOp(EventIndex event, StringId tfOp, bool runtime) {
    const uint32_t stage = inputPipelineStage(event);
    if (stage != kNoOp) return stage;
    const uint32_t metadata = profile_.metadataOf(event);
    uint32_t& slot = byHostName_[metadata];
    if (slot == kUnparsed) {
        const StringId name = profile_.metadata()[metadata].name;
        const ParsedOp p = parseTfOpFullname(profile_.str(name));
        if (p.category != OpCategory::Unknown)
            slot = intern(p.name, p.type);
        else
            slot = isTorchOp(name) ? intern(profile_.str(name), profile_.str(name)) : kNoOp;
    }
    if (slot != kNoOp || runtime || tfOp == 0) return slot;
    const std::string_view text = profile_.str(tfOp);
    if (text.empty()) return kNoOp;
    const ParsedOp p = parseTfOpFullname(text);
    return p.category == OpCategory::Unknown ? intern(text, kUnknownOpType)
                                             : intern(p.name, p.type);
}

uint32_t OpCatalog::deviceOp(EventIndex event, StringId frameworkOp, StringId hloOp) {
    if (frameworkOp != 0) {
        const uint32_t op = fromFrameworkOp(frameworkOp);
        if (op != kModuleAnnotation) return op;
    }
    // No framework op, or only JAX's module annotation: name the op by its JAX op path, else by
    // the HLO instruction the catalog attributes it to (command buffers included), else by the
    // instruction its hlo_op names.
    if (const StringId path = eventStat(event, nameKey_); path != 0) return fromOpPath(path);
    if (hlo_ && hloOp != 0)
        if (const HloOpRef ref = hloCursor_->at(event)) return fromInstruction(ref);
    if (hloOp != 0) return fromHloOp(hloOp);
    if (frameworkOp == 0) return kNoOp;
    return intern("XlaModule", "XlaModule");
}

uint32_t OpCatalog::unclaimedOp(EventIndex event) {
    const uint32_t metadata = profile_.metadataOf(event);
    uint32_t& slot = unclaimed_[metadata];
    if (slot == kUnparsed) slot = intern(profile_.name(event), kUnknownOpType);
    return slot;
}

} // namespace stepscope
