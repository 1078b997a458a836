// ProfileCache::checkProfile: the structural checks of a profile read from the cache (its
// columns agree with each other and every index is in range), so that a file crafted to pass the
// checksums cannot make a reader index out of bounds. The checks that read one column row by row
// ran as its frames were read (ProfileCache.cpp, ScannedRows); the rest run here.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "model/ParallelFor.h"
#include "model/ProfileCache.h"

namespace stepscope {

std::string ProfileCache::checkProfile(const Profile& p, const ScannedRows& scanned,
                                       const Progress* progress) {
    const StringPool& s = p.strings_;
    const size_t strings = s.offsets_.size() - (s.offsets_.empty() ? 0 : 1);
    if (s.offsets_.empty() || s.offsets_.front() != 0 || s.offsets_.back() != s.bytes_.size() ||
        !std::is_sorted(s.offsets_.begin(), s.offsets_.end()))
        return "string offsets";
    if (s.hashes_.size() != strings || s.slots_.size() < 2 * strings ||
        (s.slots_.size() & (s.slots_.size() - 1)) != 0)
        return "string table";
    for (uint32_t slot : s.slots_)
        if (slot > strings) return "string slots";
    const auto str = [strings](StringId id) { return id < strings; };

    const size_t n = p.start_.size();
    if (p.duration_.size() != n || p.meta_.size() != n || p.statBegin_.size() != n)
        return "event column lengths";
    if (!p.groupIds_.consistent(n)) return "step id runs";
    // Offset 0 holds the empty list that events without stats share.
    if (p.statBlob_.empty() || p.statBlob_[0] != 0) return "stat lists";
    if (p.statKeys_.empty() || !std::all_of(p.statKeys_.begin(), p.statKeys_.end(), str))
        return "stat keys";
    // Shapes tile their tags in order, shape 0 has none, and each tag names a key of the key
    // table and a StatType: a list's values are then read within bounds (StatList.h).
    const std::vector<uint32_t>& shapes = p.shapeBegin_;
    if (shapes.size() < 2 || shapes[0] != 0 || shapes[1] != 0 ||
        shapes.back() != p.shapeTags_.size() || !std::is_sorted(shapes.begin(), shapes.end()))
        return "stat list shapes";
    for (uint32_t tag : p.shapeTags_)
        if (statcodec::keyOfTag(tag) == 0 || statcodec::keyOfTag(tag) >= p.statKeys_.size() ||
            uint8_t(statcodec::typeOfTag(tag)) > uint8_t(StatType::Ref))
            return "stat list shapes";
    for (const StatValue& v : p.stats_)
        if (!str(v.key) || uint8_t(v.type) > uint8_t(StatType::Ref) ||
            (v.isText() && !str(v.asString())))
            return "stats";
    const auto statRange = [&p](uint32_t b, uint32_t e) { return b <= e && e <= p.stats_.size(); };
    for (const Plane& pl : p.planes_)
        if (!str(pl.name) || pl.host >= p.hosts_.size() ||
            uint64_t(pl.firstTrack) + pl.trackCount > p.tracks_.size() ||
            !statRange(pl.statBegin, pl.statEnd))
            return "planes";
    if (p.trackStarts_.size() != p.tracks_.size()) return "track starts";
    for (size_t t = 0; t < p.tracks_.size(); ++t) {
        const Track& tr = p.tracks_[t];
        if (tr.plane >= p.planes_.size() || !str(tr.name) || !str(tr.displayName) ||
            uint64_t(tr.firstEvent) + tr.eventCount > n || p.trackStarts_[t] > n ||
            uint64_t(tr.firstDepth) + tr.depthCount + 1 > p.depthOffsets_.size())
            return "track " + std::to_string(t);
    }
    for (uint32_t d : p.depthOffsets_)
        if (d > n) return "depth offsets";
    // Tracks tile the events in order (trackOf searches their starts), and each track's depth
    // offsets run from its first event to its end without going back (eventsAt's ranges).
    EventIndex next = 0;
    for (size_t t = 0; t < p.tracks_.size(); ++t) {
        const Track& tr = p.tracks_[t];
        if (tr.firstEvent != next || p.trackStarts_[t] != tr.firstEvent) return "track order";
        next = tr.firstEvent + tr.eventCount;
        const auto first = p.depthOffsets_.begin() + tr.firstDepth;
        if (tr.depthCount > 0 && (*first != tr.firstEvent || first[tr.depthCount] != next ||
                                  !std::is_sorted(first, first + tr.depthCount + 1)))
            return "depth offsets of track " + std::to_string(t);
    }
    if (next != n) return "track order";
    for (const EventMetadata& m : p.metadata_)
        if (!str(m.name) || !str(m.displayName) || m.plane >= p.planes_.size() ||
            !statRange(m.statBegin, m.statEnd))
            return "event metadata";
    if (p.flows_.size() != p.flowsByTarget_.size()) return "flows";

    // The checks that read every side-table entry or flow are independent: they run on every
    // core after the checks above, and the first failure in this order is the one reported. What
    // they would read of the narrow durations and starts, the events' metadata and stat offsets
    // and the flows' order was counted as the frames were read (`scanned`).
    using Check = std::function<std::string()>;
    std::vector<Check> checks;
    checks.push_back([&p, &scanned]() -> std::string {
        return p.duration_.consistent(scanned.longDurations) ? "" : "long durations";
    });
    checks.push_back([&p, &scanned]() -> std::string {
        return p.start_.consistent(scanned.longStarts) ? "" : "start blocks";
    });
    // The stat lists themselves are read within bounds (StatList.h), not checked here.
    checks.push_back([&scanned]() -> std::string {
        return scanned.firstBadEvent == SIZE_MAX ? ""
                                                 : "event " + std::to_string(scanned.firstBadEvent);
    });
    const auto side = [&checks, n](const auto& t, const char* name) {
        checks.push_back([&t, n, name]() -> std::string {
            return t.consistent(n) ? "" : std::string("side table of ") + name;
        });
    };
    side(p.correlation_, "correlation ids");
    side(p.kernels_, "kernels");
    side(p.memcpys_, "memcpys");
    side(p.memory_, "allocator events");
    side(p.tfOps_, "framework ops");
    side(p.hloOps_, "HLO ops");
    checks.push_back([&p, str]() -> std::string {
        for (uint32_t k : p.kernels_.values_)
            if (k >= p.kernelDetails_.size()) return "kernel details";
        for (const auto* t : {&p.memory_, &p.tfOps_, &p.hloOps_})
            if (!std::all_of(t->values_.begin(), t->values_.end(), str))
                return "side table strings";
        return {};
    });
    const size_t flowCheck = checks.size();
    checks.push_back([&p, &scanned]() -> std::string {
        // Flows run by launch; flowsByTarget_ lists each once, by target (launchesOf searches it).
        if (!scanned.flowsInRange) return "flows";
        if (!scanned.flowsByLaunch) return "flow order";
        std::vector<uint8_t> listed(p.flows_.size(), 0);
        const Flow* previous = nullptr;
        for (uint32_t f : p.flowsByTarget_) {
            if (f >= p.flows_.size() || listed[f]) return "flow order";
            listed[f] = 1;
            const Flow& flow = p.flows_[f];
            if (previous && flowByTarget(flow, *previous)) return "flow order";
            previous = &flow;
        }
        return {};
    });
    // The longest check starts first (the flows'), so that the threads finish together; failures
    // are still reported in the order above.
    std::vector<size_t> schedule{flowCheck};
    for (size_t i = 0; i < checks.size(); ++i)
        if (i != flowCheck) schedule.push_back(i);
    std::vector<std::string> failures(checks.size());
    parallelFor(schedule.size(), 0, [&](size_t i) {
        const size_t k = schedule[i];
        failures[k] = checks[k]();
    });
    for (std::string& why : failures)
        if (!why.empty()) return std::move(why);
    return {};
}

} // namespace stepscope
