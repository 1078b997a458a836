#include "model/analysis/HloCatalog.h"

#include <algorithm>
#include <optional>
#include <tuple>

#include "model/ParallelFor.h"
#include "model/analysis/CommandBufferAlignment.h"
#include "model/analysis/HloPrecision.h"
#include "model/analysis/OpName.h"

namespace stepscope {

namespace {

constexpr uint32_t kSeveral = 0xFFFFFFFFu;

// The stats of a device event that place it in a module and a command buffer.
struct EventHloStats {
    std::optional<int64_t> programId;
    StringId module = 0;
    bool inGraph = false;
};

// What an alignment is cached by: the module and the launch's event names in start order.
struct NamesKey {
    uint32_t module;
    std::vector<StringId> names;
    bool operator==(const NamesKey&) const = default;
};
struct NamesKeyHash {
    size_t operator()(const NamesKey& k) const {
        uint64_t h = 1469598103934665603ull ^ k.module;
        for (StringId n : k.names) h = (h ^ n) * 1099511628211ull;
        return size_t(h);
    }
};

} // namespace

HloCatalog::HloCatalog(const Profile& profile, const Progress* progress)
    : profile_(&profile) {
    refs_.push_back({});
    decodeModules(progress);
    if (modules_.empty() || (progress && progress->cancelled())) return;
    attributeEvents(progress);
    std::unordered_map<const HloInstruction*, std::pair<Precision, bool>> facts;
    for (HloOpRef& r : refs_) {
        if (!r) continue;
        auto [it, fresh] = facts.try_emplace(r.instruction);
        if (fresh)
            it->second = {instructionPrecision(*r.module, *r.instruction),
                          isMatrixInstruction(*r.module, *r.instruction)};
        r.precision = it->second.first;
        r.matrix = it->second.second;
    }
}

void HloCatalog::decodeModules(const Progress* progress) {
    const Profile& p = *profile_;
    const StringId protoKey = p.strings().find("Hlo Proto");
    const StringId programKey = p.strings().find("program_id");
    if (protoKey == StringPool::kNotFound) return;
    std::vector<bool> metadataPlane(p.planes().size());
    for (size_t i = 0; i < p.planes().size(); ++i)
        metadataPlane[i] = p.str(p.planes()[i].name) == "/host:metadata";

    struct Job {
        uint32_t metadata;
        std::string_view bytes;
        std::optional<int64_t> programId;
        std::optional<HloModule> module;
        std::string error;
    };
    std::vector<Job> jobs;
    for (uint32_t m = 0; m < p.metadata().size(); ++m) {
        if (!metadataPlane[p.metadata()[m].plane]) continue;
        Job job{m, {}, std::nullopt, std::nullopt, {}};
        bool hasProto = false;
        for (const StatValue& s : p.metadataStats(m)) {
            if (s.key == protoKey && s.isText()) {
                job.bytes = p.str(s.asString());
                hasProto = true;
            } else if (s.key == programKey && s.isNumber()) {
                job.programId = s.asInt();
            }
        }
        if (hasProto) jobs.push_back(std::move(job));
    }
    if (progress) progress->report("Decoding HLO modules", 0);
    parallelFor(jobs.size(), 0, [&](size_t i) {
        if (progress && progress->cancelled()) return;
        Job& j = jobs[i];
        j.module = decodeHloProto(
            {reinterpret_cast<const uint8_t*>(j.bytes.data()), j.bytes.size()}, j.error);
    });
    for (Job& j : jobs) {
        const EventMetadata& meta = p.metadata()[j.metadata];
        const uint32_t host = p.planes()[meta.plane].host;
        if (!j.module) {
            if (!(progress && progress->cancelled()))
                errors_.push_back("HLO module " + std::string(p.str(meta.name)) + ": " + j.error);
            continue;
        }
        const uint32_t index = uint32_t(modules_.size());
        const int64_t programId = j.programId.value_or(j.module->id);
        byProgram_.emplace(std::pair{host, programId}, index);
        auto [it, inserted] = byName_.emplace(std::pair{host, j.module->name}, index);
        if (!inserted) it->second = kSeveral;
        modules_.push_back({host, programId, std::make_unique<HloModule>(std::move(*j.module))});
    }
}

const HloModule* HloCatalog::module(uint32_t host, int64_t programId) const {
    const auto it = byProgram_.find({host, programId});
    return it == byProgram_.end() ? nullptr : modules_[it->second].module.get();
}

uint32_t HloCatalog::refIndex(const HloModule* module, const HloInstruction* instruction,
                              bool viaGraph) {
    const uintptr_t key = reinterpret_cast<uintptr_t>(instruction) | uintptr_t(viaGraph);
    const auto [it, inserted] = refIndex_.emplace(key, uint32_t(refs_.size()));
    if (inserted) refs_.push_back({module, instruction, viaGraph});
    return it->second;
}

void HloCatalog::attributeEvents(const Progress* progress) {
    const Profile& p = *profile_;
    const StringPool& pool = p.strings();
    const StringId programKey = pool.find("program_id");
    const StringId moduleKey = pool.find("hlo_module");
    const StringId graphKey = pool.find("cuda_graph_id");
    const auto readStat = [&](const StatValue& s, EventHloStats& out) {
        if (s.key == programKey && s.isNumber())
            out.programId = s.asInt();
        else if (s.key == moduleKey && s.isText())
            out.module = s.asString();
        else if (s.key == graphKey)
            out.inGraph = true;
    };

    const SideTable<StringId>& hlo = p.hloOps();
    refOfHloOp_.assign(hlo.size(), 0);
    // Lookups repeat for every event of a module: cache them by string id.
    std::map<std::pair<uint32_t, int64_t>, uint32_t> moduleOfProgram; // kSeveral: none
    std::map<std::pair<uint32_t, StringId>, uint32_t> moduleOfName;
    std::unordered_map<uint64_t, const HloInstruction*> instructionOf; // module << 32 | hlo_op
    // (track, module, correlation id) -> the launch's events, as indices into hloOps()
    std::map<std::tuple<uint32_t, uint32_t, uint64_t>, std::vector<uint32_t>> launches;

    const auto resolveModule = [&](uint32_t host, const EventHloStats& s) -> uint32_t {
        if (s.programId) {
            const auto [it, inserted] = moduleOfProgram.emplace(std::pair{host, *s.programId}, 0);
            if (inserted) {
                const auto found = byProgram_.find({host, *s.programId});
                it->second = found == byProgram_.end() ? kSeveral : found->second;
            }
            if (it->second != kSeveral) return it->second;
        }
        if (!s.module) return kSeveral;
        const auto [it, inserted] = moduleOfName.emplace(std::pair{host, s.module}, 0);
        if (inserted) {
            const auto found = byName_.find({host, std::string(p.str(s.module))});
            it->second = found == byName_.end() ? kSeveral : found->second;
        }
        return it->second;
    };

    // The entries' events, listed once: the loops below and the sort by start read them by index.
    std::vector<EventIndex> hloEvents;
    hloEvents.reserve(hlo.size());
    hlo.forEach([&hloEvents](EventIndex e, StringId) { hloEvents.push_back(e); });
    const auto hloEvent = [&hloEvents](size_t i) { return hloEvents[i]; };
    for (uint32_t t = 0; t < p.tracks().size(); ++t) {
        const Track& track = p.tracks()[t];
        if (!track.deviceOps || track.eventCount == 0) continue;
        if (progress && progress->cancelled()) return;
        const uint32_t host = p.planes()[track.plane].host;
        const EventIndex end = track.firstEvent + track.eventCount;
        CorrelationIds::Cursor correlation(p.correlationIds());
        for (size_t i = hlo.lowerBound(track.firstEvent); i < hlo.size() && hloEvent(i) < end;
             ++i) {
            const EventIndex e = hloEvent(i);
            EventHloStats s;
            for (const StatValue& v : p.metadataStats(p.metadataOf(e))) readStat(v, s);
            for (const StatValue& v : p.eventStats(e)) readStat(v, s);
            const uint32_t m = resolveModule(host, s);
            if (m == kSeveral) continue;
            const HloModule* module = modules_[m].module.get();
            const StringId op = hlo.valueAt(i);
            const auto [it, inserted] = instructionOf.emplace((uint64_t(m) << 32) | op, nullptr);
            if (inserted) it->second = module->instructionNamed(hloOpName(p.str(op)));
            if (it->second) {
                refOfHloOp_[i] = refIndex(module, it->second, false);
            } else if (s.inGraph) {
                if (const std::optional<uint64_t> corr = correlation.at(e))
                    launches[{t, m, *corr}].push_back(uint32_t(i));
            }
        }
    }
    if (progress) progress->report("Attributing command buffer kernels", 0.5);

    // The scheduled computations of each module that has launches, the entry computation first.
    std::unordered_map<uint32_t, std::vector<CommandBufferSchedule>> schedules;
    const auto schedulesOf = [&](uint32_t m) -> const std::vector<CommandBufferSchedule>& {
        auto [it, inserted] = schedules.try_emplace(m);
        if (inserted) {
            const HloModule& module = *modules_[m].module;
            if (const HloSequence* entry = module.sequence(module.entryComputationId))
                it->second.emplace_back(module, *entry);
            for (const HloSequence& seq : module.schedule)
                if (seq.computationId != module.entryComputationId)
                    it->second.emplace_back(module, seq);
        }
        return it->second;
    };
    std::unordered_map<NamesKey, std::vector<const HloInstruction*>, NamesKeyHash> aligned;
    std::vector<std::string_view> names;
    for (auto& [key, entries] : launches) {
        if (progress && progress->cancelled()) return;
        const uint32_t m = std::get<1>(key);
        std::stable_sort(entries.begin(), entries.end(), [&](uint32_t a, uint32_t b) {
            return p.start(hloEvent(a)) < p.start(hloEvent(b));
        });
        NamesKey k{m, {}};
        for (uint32_t i : entries) k.names.push_back(p.nameId(hloEvent(i)));
        auto [it, inserted] = aligned.try_emplace(std::move(k));
        if (inserted) {
            names.clear();
            for (StringId n : it->first.names) names.push_back(p.str(n));
            size_t bestCount = 0;
            for (const CommandBufferSchedule& schedule : schedulesOf(m)) {
                const std::vector<int32_t> at = schedule.align(names);
                const size_t count =
                    size_t(std::count_if(at.begin(), at.end(), [](int32_t v) { return v >= 0; }));
                if (count <= bestCount) continue;
                bestCount = count;
                it->second.assign(at.size(), nullptr);
                for (size_t j = 0; j < at.size(); ++j)
                    if (at[j] >= 0) it->second[j] = schedule.instruction(size_t(at[j]));
            }
        }
        if (it->second.empty()) continue;
        const HloModule* module = modules_[m].module.get();
        for (size_t j = 0; j < entries.size(); ++j)
            if (it->second[j]) refOfHloOp_[entries[j]] = refIndex(module, it->second[j], true);
    }
    if (progress) progress->report("Attributing command buffer kernels", 1);
}

HloOpRef HloCatalog::refAt(size_t i) const {
    return i < refOfHloOp_.size() ? refs_[refOfHloOp_[i]] : HloOpRef{};
}

HloOpRef HloCatalog::instructionOf(EventIndex event) const {
    const SideTable<StringId>& hlo = profile_->hloOps();
    const size_t i = hlo.lowerBound(event);
    if (i == hlo.size() || hlo.eventAt(i) != event) return {};
    return refAt(i);
}

HloCatalog::Cursor::Cursor(const HloCatalog& catalog)
    : catalog_(catalog)
    , entries_(catalog.profile_->hloOps()) {}

HloOpRef HloCatalog::Cursor::at(EventIndex event) {
    const StringId* op = entries_.at(event);
    return op ? catalog_.refAt(size_t(op - catalog_.profile_->hloOps().values().data()))
              : HloOpRef{};
}

std::string_view HloCatalog::opPath(const HloOpRef& ref) const {
    return ref ? std::string_view(ref.instruction->metadata.opName) : std::string_view();
}

} // namespace stepscope
