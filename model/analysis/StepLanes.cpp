#include "model/analysis/StepLanes.h"

#include <unordered_map>

#include "model/analysis/OpName.h"

namespace stepscope {

namespace {

// Gives each distinct name one index in `names`, shared by both lanes.
class NameTable {
public:
    explicit NameTable(std::vector<std::string>& names)
        : names_(names) {}
    uint32_t indexOf(std::string_view name) {
        const auto [it, fresh] = index_.emplace(std::string(name), uint32_t(names_.size()));
        if (fresh) names_.push_back(it->first);
        return it->second;
    }

private:
    std::vector<std::string>& names_;
    std::unordered_map<std::string, uint32_t> index_;
};

std::string streamName(const Profile& p, const Plane& plane, const Track& t) {
    const std::string gpu =
        plane.deviceOrdinal >= 0 ? "GPU:" + std::to_string(plane.deviceOrdinal) : "GPU";
    return t.streamId >= 0 ? gpu + " stream " + std::to_string(t.streamId)
                           : gpu + " " + std::string(p.str(t.name));
}

StepLane collectLane(const Profile& p, const StepRecord& step, std::string title, NameTable& ops,
                     NameTable& kernels) {
    StepLane lane;
    lane.title = std::move(title);
    lane.durationPs = step.durationPs;
    const int64_t begin = step.beginPs, end = step.beginPs + step.durationPs;
    const HloCatalog hlo(p);
    OpCatalog catalog(p, &hlo);
    for (const Plane& plane : p.planes()) {
        if (plane.kind != PlaneKind::Gpu) continue;
        for (uint32_t ti = plane.firstTrack; ti < plane.firstTrack + plane.trackCount; ++ti) {
            const Track& t = p.tracks()[ti];
            if (!t.deviceOps || t.eventCount == 0) continue;
            for (uint32_t depth = 0; depth < t.depthCount; ++depth) {
                StepLane::Row row;
                const EventRange r = p.eventsInWindow(ti, depth, begin, end);
                SideCursor<StringId> fwOps(p.frameworkOps()), hloOps(p.hloOps());
                for (EventIndex e = r.begin; e < r.end; ++e) {
                    if (p.start(e) < begin) continue; // only events that start in the step
                    const StringId* fw = fwOps.at(e);
                    const StringId* hloOp = hloOps.at(e);
                    uint32_t op = fw || hloOp
                                      ? catalog.deviceOp(e, fw ? *fw : 0, hloOp ? *hloOp : 0)
                                      : OpCatalog::kNoOp;
                    if (op == OpCatalog::kNoOp) op = catalog.unclaimedOp(e);
                    row.beginPs.push_back(p.start(e) - begin);
                    row.durationPs.push_back(p.duration(e));
                    row.op.push_back(ops.indexOf(catalog.op(op).name));
                    row.kernel.push_back(kernels.indexOf(p.name(e)));
                }
                if (row.size() == 0) continue;
                row.name = streamName(p, plane, t);
                if (depth > 0) row.name += " · level " + std::to_string(depth + 1);
                lane.rows.push_back(std::move(row));
            }
        }
    }
    return lane;
}

} // namespace

StepLanes collectStepLanes(const Profile& base, const StepRecord& baseStep,
                           const Profile& candidate, const StepRecord& candidateStep) {
    StepLanes lanes;
    NameTable ops(lanes.ops), kernels(lanes.kernels);
    lanes.base = collectLane(base, baseStep, "Baseline step " + std::to_string(baseStep.number),
                             ops, kernels);
    lanes.candidate =
        collectLane(candidate, candidateStep,
                    "Candidate step " + std::to_string(candidateStep.number), ops, kernels);
    return lanes;
}

} // namespace stepscope
