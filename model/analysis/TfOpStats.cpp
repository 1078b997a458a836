#include "model/analysis/TfOpStats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string_view>
#include <unordered_map>

namespace stepscope {

namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;

struct Interval {
    int64_t start, end;
};

// Total length covered by intervals given as runs each sorted by start (runStarts: the index
// where each run begins). Runs are merged pairwise, so n intervals in k runs cost n log k.
int64_t unionLength(std::vector<Interval>& v, std::vector<size_t>& runStarts) {
    if (v.empty()) return 0;
    auto byStart = [](const Interval& a, const Interval& b) { return a.start < b.start; };
    runStarts.push_back(v.size());
    while (runStarts.size() > 2) {
        std::vector<size_t> merged;
        for (size_t r = 0; r + 1 < runStarts.size(); r += 2) {
            merged.push_back(runStarts[r]);
            if (r + 2 < runStarts.size())
                std::inplace_merge(v.begin() + runStarts[r], v.begin() + runStarts[r + 1],
                                   v.begin() + runStarts[r + 2], byStart);
        }
        merged.push_back(v.size());
        runStarts = std::move(merged);
    }
    int64_t total = 0;
    int64_t curStart = v[0].start, curEnd = v[0].end;
    for (size_t i = 1; i < v.size(); ++i) {
        if (v[i].start > curEnd) {
            total += curEnd - curStart;
            curStart = v[i].start;
            curEnd = v[i].end;
        } else {
            curEnd = std::max(curEnd, v[i].end);
        }
    }
    return total + (curEnd - curStart);
}

// Accumulates one side's rows: (op) -> row.
class RowSink {
public:
    RowSink(OpSide side, std::vector<TfOpStatsRow>& rows)
        : side_(side)
        , rows_(rows) {}
    void add(uint32_t op, int64_t totalPs, int64_t selfPs) {
        if (op >= rowOf_.size()) rowOf_.resize(op + 1, kNone);
        uint32_t& r = rowOf_[op];
        if (r == kNone) {
            r = uint32_t(rows_.size());
            rows_.push_back(TfOpStatsRow{side_, op, 0, 0, 0});
        }
        TfOpStatsRow& row = rows_[r];
        ++row.occurrences;
        row.totalPs += totalPs;
        row.selfPs += selfPs;
    }

private:
    OpSide side_;
    std::vector<TfOpStatsRow>& rows_;
    std::vector<uint32_t> rowOf_;
};

// Self time of the ops of one track. `opOf[i]` is the op of the track's i-th event (kNoOp for
// non-ops). An event's parent is the event open at the depth above when it started; its nearest
// op ancestor is found through non-op parents. Root ops (no op ancestor) are appended to
// `roots`, one sorted run per depth.
class TrackSelfTime {
public:
    void run(const Profile& p, uint32_t trackIndex, const std::vector<uint32_t>& opOf,
             RowSink& sink, std::vector<Interval>& roots, std::vector<size_t>& runStarts) {
        const Track& t = p.tracks()[trackIndex];
        const EventIndex base = t.firstEvent;
        const uint32_t n = t.eventCount;
        ancestor_.assign(n, kNone);
        childPs_.assign(n, 0);
        auto isOp = [&](uint32_t local) { return opOf[local] != OpCatalog::kNoOp; };
        for (uint32_t d = 1; d < t.depthCount; ++d) {
            const EventRange up = p.eventsAt(trackIndex, d - 1);
            const EventRange here = p.eventsAt(trackIndex, d);
            EventIndex j = up.begin;
            for (EventIndex e = here.begin; e < here.end; ++e) {
                const int64_t s = p.start(e), dur = p.duration(e);
                // The parent is the last event above that the builder placed before this one:
                // ordered by start, longer first.
                while (j + 1 < up.end &&
                       (p.start(j + 1) < s || (p.start(j + 1) == s && p.duration(j + 1) >= dur)))
                    ++j;
                const uint32_t parent = j - base;
                const uint32_t anc = isOp(parent) ? parent : ancestor_[parent];
                ancestor_[e - base] = anc;
                if (anc != kNone && isOp(e - base)) {
                    const EventIndex a = base + anc;
                    const int64_t overlap = std::min(p.end(e), p.end(a)) - std::max(s, p.start(a));
                    if (overlap > 0) childPs_[anc] += overlap;
                }
            }
        }
        for (uint32_t d = 0; d < t.depthCount; ++d) {
            const EventRange r = p.eventsAt(trackIndex, d);
            bool runOpen = false;
            for (EventIndex e = r.begin; e < r.end; ++e) {
                const uint32_t local = e - base;
                if (!isOp(local)) continue;
                const int64_t dur = p.duration(e);
                sink.add(opOf[local], dur, std::max<int64_t>(0, dur - childPs_[local]));
                if (ancestor_[local] != kNone) continue;
                if (!runOpen) {
                    runStarts.push_back(roots.size());
                    runOpen = true;
                }
                roots.push_back({p.start(e), p.end(e)});
            }
        }
    }

private:
    std::vector<uint32_t> ancestor_; // nearest op ancestor (track-local index) or kNone
    std::vector<int64_t> childPs_;   // time of child ops, per op event
};

} // namespace

TfOpStats computeTfOpStats(const Profile& p, const Progress* progress) {
    TfOpStats result;
    OpCatalog catalog(p);
    RowSink hostRows(OpSide::Host, result.rows);
    RowSink deviceRows(OpSide::Device, result.rows);
    TrackSelfTime selfTime;
    std::vector<uint32_t> opOf;
    std::vector<Interval> roots;
    std::vector<size_t> runStarts;
    std::vector<Interval> busy; // a device plane's stream events, for its idle time
    std::vector<size_t> busyRuns;
    SideCursor<StringId> frameworkOps(p.frameworkOps());
    SideCursor<StringId> hloOps(p.hloOps());

    const size_t planeCount = p.planes().size();
    for (size_t pi = 0; pi < planeCount; ++pi) {
        const Plane& plane = p.planes()[pi];
        const bool host = plane.kind == PlaneKind::Host;
        if (!host && plane.kind != PlaneKind::Gpu && plane.kind != PlaneKind::Tpu) continue;
        if (progress) {
            if (progress->cancelled()) return {};
            progress->report("Op stats", double(pi) / double(planeCount));
        }
        int64_t planeFirst = std::numeric_limits<int64_t>::max(), planeLast = 0;
        roots.clear();
        runStarts.clear();
        busy.clear();
        busyRuns.clear();
        bool planeHasOps = false;
        for (uint32_t ti = plane.firstTrack; ti < plane.firstTrack + plane.trackCount; ++ti) {
            const Track& t = p.tracks()[ti];
            if (t.eventCount == 0) continue;
            if (host ? t.kind != TrackKind::HostThread : isDerived(t.kind)) continue;
            opOf.assign(t.eventCount, OpCatalog::kNoOp);
            bool any = false;
            int64_t first = std::numeric_limits<int64_t>::max(), last = 0;
            for (uint32_t i = 0; i < t.eventCount; ++i) {
                const EventIndex e = t.firstEvent + i;
                uint32_t op = OpCatalog::kNoOp;
                if (host) {
                    op = catalog.hostOp(p.metadataOf(e));
                } else {
                    const StringId* fw = frameworkOps.at(e);
                    const StringId* hlo = hloOps.at(e);
                    if (fw || hlo) op = catalog.deviceOp(e, fw ? *fw : 0, hlo ? *hlo : 0);
                }
                if (op == OpCatalog::kNoOp) continue;
                opOf[i] = op;
                any = true;
                first = std::min(first, p.start(e));
                last = std::max(last, p.end(e));
            }
            if (!host) {
                planeFirst = std::min(planeFirst, t.minStartPs);
                planeLast = std::max(planeLast, t.maxEndPs);
                // Busy time counts every stream event, with or without an op: a kernel that
                // no op claims is still not idle time. One sorted run per lane.
                for (uint32_t d = 0; d < t.depthCount; ++d) {
                    const EventRange lane = p.eventsAt(ti, d);
                    busyRuns.push_back(busy.size());
                    for (EventIndex e = lane.begin; e < lane.end; ++e)
                        busy.push_back({p.start(e), p.end(e)});
                }
            }
            if (!any) continue;
            planeHasOps = true;
            if (host) {
                roots.clear();
                runStarts.clear();
            }
            selfTime.run(p, ti, opOf, host ? hostRows : deviceRows, roots, runStarts);
            if (host) result.hostIdlePs += (last - first) - unionLength(roots, runStarts);
        }
        if (!planeHasOps) continue;
        if (host) {
            result.hasHost = true;
        } else {
            result.hasDevice = true;
            result.deviceIdlePs += (planeLast - planeFirst) - unionLength(busy, busyRuns);
        }
    }
    result.ops = catalog.ops();
    if (progress) progress->report("Op stats", 1);
    return result;
}

namespace {
constexpr std::string_view kIdle = "IDLE";

std::string_view sideName(OpSide side) {
    return side == OpSide::Device ? "Device" : "Host";
}
} // namespace

Table tfOpStatsTable(const TfOpStats& stats, bool includeIdle) {
    Table table;
    using T = Table::Type;
    table.addColumn("Host/device", T::Text, ColumnFormat::Plain, "Where the op ran");
    table.addColumn("Type", T::Text, ColumnFormat::Plain, "Op type (the part after ':')");
    table.addColumn("Operation", T::Text, ColumnFormat::Plain, "Op name");
    table.addColumn("#Occurrences", T::Int, ColumnFormat::Plain,
                    "Host: executions. Device: kernels and copies the op ran");
    table.addColumn("Total time (µs)", T::Double, ColumnFormat::Microseconds);
    table.addColumn("Avg. time (µs)", T::Double, ColumnFormat::Microseconds);
    table.addColumn("Total self-time (µs)", T::Double, ColumnFormat::Microseconds,
                    "Total time minus the time of ops nested inside it");
    table.addColumn("Avg. self-time (µs)", T::Double, ColumnFormat::Microseconds);
    table.addColumn("Total self-time (%)", T::Double, ColumnFormat::Percent,
                    "Share of the total self-time on the same side (host or device)");
    table.addColumn("Cumulative total self-time (%)", T::Double, ColumnFormat::Percent,
                    "Running sum of the self-time share, within one side, in this order");

    const double nan = Table::missing();
    for (OpSide side : {OpSide::Device, OpSide::Host}) {
        std::vector<const TfOpStatsRow*> rows;
        int64_t totalSelf = 0;
        for (const TfOpStatsRow& r : stats.rows)
            if (r.side == side) {
                rows.push_back(&r);
                totalSelf += r.selfPs;
            }
        if (rows.empty()) continue;
        const int64_t idle = side == OpSide::Device ? stats.deviceIdlePs : stats.hostIdlePs;
        const TfOpStatsRow idleRow{side, OpCatalog::kNoOp, 0, idle, idle};
        if (includeIdle) {
            rows.push_back(&idleRow);
            totalSelf += idle;
        }
        auto name = [&](const TfOpStatsRow* r) -> std::string_view {
            return r->op == OpCatalog::kNoOp ? kIdle : std::string_view(stats.ops[r->op].name);
        };
        std::sort(rows.begin(), rows.end(), [&](const TfOpStatsRow* a, const TfOpStatsRow* b) {
            if (a->selfPs != b->selfPs) return a->selfPs > b->selfPs;
            if (a->totalPs != b->totalPs) return a->totalPs > b->totalPs;
            return name(a) < name(b);
        });
        int64_t cumulative = 0;
        for (const TfOpStatsRow* r : rows) {
            const bool isIdle = r->op == OpCatalog::kNoOp;
            cumulative += r->selfPs;
            const double n = double(r->occurrences);
            table.addRow({
                std::string(sideName(side)),
                std::string(isIdle ? kIdle : std::string_view(stats.ops[r->op].type)),
                std::string(name(r)),
                int64_t(r->occurrences),
                double(r->totalPs) / 1e6,
                isIdle ? nan : double(r->totalPs) / 1e6 / n,
                double(r->selfPs) / 1e6,
                isIdle ? nan : double(r->selfPs) / 1e6 / n,
                totalSelf ? 100.0 * double(r->selfPs) / double(totalSelf) : 0.0,
                totalSelf ? 100.0 * double(cumulative) / double(totalSelf) : 0.0,
            });
        }
    }
    return table;
}

PieData tfOpStatsPie(const TfOpStats& stats, OpSide side, OpGrouping grouping, bool includeIdle) {
    PieData slices;
    std::unordered_map<std::string_view, size_t> sliceOf;
    for (const TfOpStatsRow& r : stats.rows) {
        if (r.side != side) continue;
        const OpIdentity& op = stats.ops[r.op];
        const std::string& label = grouping == OpGrouping::ByOp ? op.name : op.type;
        auto [it, inserted] = sliceOf.try_emplace(label, slices.size());
        if (inserted) {
            // Op names are scope paths: the legend shows their last two components.
            const size_t last = label.rfind('/');
            const size_t prev = last == std::string::npos || last == 0 ? std::string::npos
                                                                       : label.rfind('/', last - 1);
            slices.push_back(
                {label, 0, prev == std::string::npos ? std::string() : "…" + label.substr(prev)});
        }
        slices[it->second].value += double(r.selfPs) / 1e6;
    }
    if (slices.empty()) return slices;
    if (includeIdle) {
        const int64_t idle = side == OpSide::Device ? stats.deviceIdlePs : stats.hostIdlePs;
        if (idle > 0) slices.push_back({std::string(kIdle), double(idle) / 1e6, {}});
    }
    std::stable_sort(slices.begin(), slices.end(),
                     [](const PieSlice& a, const PieSlice& b) { return a.value > b.value; });
    return slices;
}

bool hasTfOpStats(const Profile& p) {
    // Called on the UI thread for every profile shown: one search per device stream, not per
    // event.
    auto hasEventIn = [](const std::vector<uint32_t>& events, const Track& t) {
        const auto it = std::lower_bound(events.begin(), events.end(), t.firstEvent);
        return it != events.end() && *it < t.firstEvent + t.eventCount;
    };
    for (const Track& t : p.tracks()) {
        if (!isDeviceStream(p.planes()[t.plane].kind, t.kind)) continue;
        if (hasEventIn(p.frameworkOps().events(), t) || hasEventIn(p.hloOps().events(), t))
            return true;
    }
    for (const EventMetadata& md : p.metadata())
        if (p.planes()[md.plane].kind == PlaneKind::Host && isHostOpName(p.str(md.name)))
            return true;
    return false;
}

} // namespace stepscope
