#include "model/analysis/StackedRuns.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/ProfileBuilder.h"
#include "model/SideTable.h"
#include "model/analysis/HostOps.h"
#include "model/analysis/OpName.h"

namespace stepscope {

namespace {

// The events of `p` taken for the step [begin, end): a mask over the event columns.
std::vector<uint8_t> takenEvents(const Profile& p, int64_t begin, int64_t end) {
    std::vector<uint8_t> taken(p.eventCount(), 0);
    for (uint32_t t = 0; t < p.tracks().size(); ++t)
        for (uint32_t depth = 0; depth < p.tracks()[t].depthCount; ++depth) {
            const EventRange r = p.eventsInWindow(t, depth, begin, end);
            std::fill(taken.begin() + r.begin, taken.begin() + r.end, uint8_t(1));
        }
    for (const Flow& f : p.flows())
        if (taken[f.launch]) taken[f.target] = 1;
    return taken;
}

// Copies one run's taken events (and the hosts, planes, tracks and metadata they need) into the
// builder, re-interning every string of the source profile into the stacked one.
class RunCopier {
public:
    RunCopier(ProfileBuilder& builder, const Profile& src)
        : b_(builder)
        , src_(src)
        , strings_(src.strings().size(), StringPool::kNotFound)
        , metadata_(src.metadata().size(), kNoIndex) {}

    size_t copy(const std::string& hostPrefix, const std::vector<uint8_t>& taken, int64_t shiftPs,
                const Progress* progress) {
        std::vector<uint32_t> hostOf(src_.hosts().size());
        for (size_t h = 0; h < src_.hosts().size(); ++h) {
            const Host& from = src_.hosts()[h];
            hostOf[h] = b_.addHost(hostPrefix + " · " + from.name, from.sourcePath);
            Host& to = b_.host(hostOf[h]);
            to.errors = from.errors;
            to.warnings = from.warnings;
            to.hostnames = from.hostnames;
        }
        planeOf_.assign(src_.planes().size(), 0);
        size_t copied = 0;
        const size_t total = std::max<size_t>(1, src_.eventCount());
        for (size_t pi = 0; pi < src_.planes().size(); ++pi) {
            const Plane& plane = src_.planes()[pi];
            const uint32_t to =
                b_.addPlane(hostOf[plane.host], plane.xplaneId, src_.str(plane.name));
            planeOf_[pi] = to;
            for (const StatValue& s : src_.planeStats(plane)) b_.addPlaneStat(to, stat(s));
            // The HLO modules (event metadata of /host:metadata, which no event uses): without
            // them the stacked run could not name command-buffer kernels as the run diff does.
            if (src_.str(plane.name) == "/host:metadata")
                for (uint32_t m = 0; m < src_.metadata().size(); ++m)
                    if (src_.metadata()[m].plane == pi) metadata(m);
            for (uint32_t t = plane.firstTrack; t < plane.firstTrack + plane.trackCount; ++t) {
                if (progress && progress->cancelled()) return copied;
                const Track& track = src_.tracks()[t];
                const uint32_t toTrack = b_.addTrack(to, track.lineId, src_.str(track.name),
                                                     src_.str(track.displayName), track.displayId);
                const EventIndex first = track.firstEvent, last = first + track.eventCount;
                for (EventIndex e = first; e < last; ++e) {
                    if (!taken[e]) continue;
                    b_.addEvent(toTrack, src_.start(e) + shiftPs, src_.duration(e),
                                metadata(src_.metadataOf(e)));
                    for (const StatValue& s : src_.eventStats(e)) b_.addEventStat(stat(s));
                    ++copied;
                }
                if (progress) progress->report("Stacking the runs", double(last) / double(total));
            }
        }
        return copied;
    }

private:
    StringId str(StringId id) {
        StringId& to = strings_[id];
        if (to == StringPool::kNotFound) to = b_.intern(src_.str(id));
        return to;
    }
    StatValue stat(const StatValue& s) {
        StatValue out;
        out.key = str(s.key);
        out.type = s.type;
        out.raw = s.isText() ? uint64_t(str(s.asString())) : s.rawBits();
        return out;
    }
    uint32_t metadata(uint32_t m) {
        uint32_t& to = metadata_[m];
        if (to != kNoIndex) return to;
        const EventMetadata& md = src_.metadata()[m];
        to =
            b_.addMetadata(planeOf_[md.plane], md.xId, src_.str(md.name), src_.str(md.displayName));
        for (const StatValue& s : src_.metadataStats(m)) b_.addMetadataStat(to, stat(s));
        return to;
    }

    ProfileBuilder& b_;
    const Profile& src_;
    std::vector<StringId> strings_;  // source string id -> stacked
    std::vector<uint32_t> metadata_; // source metadata -> stacked, kNoIndex until used
    std::vector<uint32_t> planeOf_;  // source plane -> stacked
};

// The earliest start among the taken events, or `fallback` when none is taken.
int64_t earliestStart(const Profile& p, const std::vector<uint8_t>& taken, int64_t fallback) {
    int64_t earliest = fallback;
    for (size_t e = 0; e < taken.size(); ++e)
        if (taken[e]) earliest = std::min(earliest, p.start(EventIndex(e)));
    return earliest;
}

} // namespace

StackedRuns stackRuns(const Profile& base, const StepRecord& baseStep, const Profile& candidate,
                      const StepRecord& candidateStep, const Progress* progress) {
    StackedRuns out;
    out.baseDurationPs = baseStep.durationPs;
    out.candidateDurationPs = candidateStep.durationPs;
    const std::vector<uint8_t> baseTaken =
        takenEvents(base, baseStep.beginPs, baseStep.beginPs + baseStep.durationPs);
    const std::vector<uint8_t> candidateTaken = takenEvents(
        candidate, candidateStep.beginPs, candidateStep.beginPs + candidateStep.durationPs);
    // How far before its step's start each run's earliest taken event lies; the larger lead puts
    // both steps' starts at one instant with no event before 0.
    const int64_t lead = std::max(
        baseStep.beginPs - earliestStart(base, baseTaken, baseStep.beginPs),
        candidateStep.beginPs - earliestStart(candidate, candidateTaken, candidateStep.beginPs));
    out.stepBeginPs = lead;

    ProfileBuilder builder;
    // Stacked time 0 is `lead` before the baseline step's start, in the baseline's clock.
    builder.setTimeBase(base.startNs() + (baseStep.beginPs - lead) / 1000);
    {
        RunCopier copier(builder, base);
        out.baseEvents = copier.copy("Baseline", baseTaken, lead - baseStep.beginPs, progress);
    }
    out.candidateFirstHost = uint32_t(base.hosts().size());
    {
        RunCopier copier(builder, candidate);
        out.candidateEvents =
            copier.copy("Candidate", candidateTaken, lead - candidateStep.beginPs, progress);
    }
    if (progress && progress->cancelled()) return out;
    std::unique_ptr<Profile> profile = builder.finish(progress);
    if (!profile && !builder.error().empty()) throw std::runtime_error(builder.error());
    out.profile = std::move(profile);
    return out;
}

StackedOpIndex::StackedOpIndex(const Profile& p) {
    const HloCatalog hlo(p);
    OpCatalog catalog(p, &hlo);
    HostOpCatalog hostOps(p, true);
    // Events are visited in index order: forward cursors serve.
    SideCursor<StringId> frameworkOps(p.frameworkOps());
    CorrelationIds::Cursor correlations(p.correlationIds());
    SideCursor<StringId> memoryEvents(p.memoryEvents());
    for (uint32_t ti = 0; ti < p.tracks().size(); ++ti) {
        const Track& t = p.tracks()[ti];
        const PlaneKind kind = p.planes()[t.plane].kind;
        const bool device = t.deviceOps && kind == PlaneKind::Gpu; // what RunDiff counts
        if (!device && kind != PlaneKind::Host) continue;
        const EventIndex first = t.firstEvent, last = first + t.eventCount;
        for (EventIndex e = first; e < last; ++e) {
            if (!device) {
                ops_[std::string(p.name(e))].push_back(e);
                if (t.derived) continue;
                const StringId* fw = frameworkOps.at(e);
                const uint32_t op =
                    hostOps.of(e, fw ? *fw : 0, correlations.at(e) || memoryEvents.at(e));
                if (op == HostOpCatalog::kNone) continue;
                const HostOpIdentity& id = hostOps.op(op);
                hostOps_[id.kind + '\0' + id.name].push_back(e);
                continue;
            }
            const StringId* fw = p.frameworkOps().find(e);
            const StringId* hlo = p.hloOps().find(e);
            uint32_t op =
                fw || hlo ? catalog.deviceOp(e, fw ? *fw : 0, hlo ? *hlo : 0) : OpCatalog::kNoOp;
            if (op == OpCatalog::kNoOp) op = catalog.unclaimedOp(e);
            ops_[catalog.op(op).name].push_back(e);
            kernels_[std::string(p.name(e))].push_back(e);
        }
    }
    for (auto& entry : ops_) std::sort(entry.second.begin(), entry.second.end());
}

const std::vector<EventIndex>& StackedOpIndex::opEvents(const std::string& name) const {
    static const std::vector<EventIndex> none;
    const auto it = ops_.find(name);
    return it == ops_.end() ? none : it->second;
}

const std::vector<EventIndex>& StackedOpIndex::kernelEvents(const std::string& name) const {
    static const std::vector<EventIndex> none;
    const auto it = kernels_.find(name);
    return it == kernels_.end() ? none : it->second;
}

const std::vector<EventIndex>& StackedOpIndex::hostOpEvents(const std::string& kind,
                                                            const std::string& name) const {
    static const std::vector<EventIndex> none;
    const auto it = hostOps_.find(kind + '\0' + name);
    return it == hostOps_.end() ? none : it->second;
}

std::vector<EventIndex> slowerEvents(const StackedRuns& runs, const StackedOpIndex& index,
                                     const RunDiff& diff) {
    std::vector<EventIndex> slower;
    if (!runs.profile) return slower;
    const Profile& p = *runs.profile;
    // The stacked hosts of a row's host pair (its label; one pair with an empty label: all).
    auto take = [&](const DiffRow& row, const std::vector<EventIndex>& events) {
        const HostPair* pair = nullptr;
        for (const HostPair& h : diff.hostPairs)
            if (h.label == row.host) pair = &h;
        if (!pair) return;
        for (EventIndex e : events) {
            const uint32_t host = p.planes()[p.tracks()[p.trackOf(e)].plane].host;
            if (host == pair->base || host == runs.candidateFirstHost + pair->candidate)
                slower.push_back(e);
        }
    };
    for (const DiffRow& r : diff.ops)
        if (r.diffClass == DiffClass::Slower) take(r, index.opEvents(r.name));
    for (const DiffRow& r : diff.kernels)
        if (r.diffClass == DiffClass::Slower) take(r, index.kernelEvents(r.name));
    for (const HostOpRow& h : diff.hostOps)
        if (h.self.diffClass == DiffClass::Slower)
            take(h.self, index.hostOpEvents(h.self.type, h.self.name));
    std::sort(slower.begin(), slower.end());
    slower.erase(std::unique(slower.begin(), slower.end()), slower.end());
    return slower;
}

} // namespace stepscope
