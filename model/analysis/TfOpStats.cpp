#include "model/analysis/TfOpStats.h"

#include "model/analysis/KernelFacts.h"
#include "model/analysis/TrackChildren.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string_view>
#include <unordered_map>

namespace stepscope {

namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;

// Accumulates one side's rows: (op) -> row.
class RowSink {
public:
    RowSink(OpSide side, std::vector<TfOpStatsRow>& rows)
        : side_(side)
        , rows_(rows) {}
    TfOpStatsRow& add(uint32_t op, EventIndex event, int64_t totalPs, int64_t selfPs) {
        if (op >= rowOf_.size()) rowOf_.resize(op + 1, kNone);
        uint32_t& r = rowOf_[op];
        if (r == kNone) {
            r = uint32_t(rows_.size());
            rows_.push_back(TfOpStatsRow{side_, op, 0, 0, 0, 0, 0});
        }
        TfOpStatsRow& row = rows_[r];
        ++row.occurrences;
        // Events arrive in time order per line: strictly longer replaces, so ties keep the first
        // of a line.
        if (row.longest == kNoIndex || totalPs > longestPs_[r]) {
            if (longestPs_.size() <= r) longestPs_.resize(r + 1, -1);
            row.longest = event;
            longestPs_[r] = totalPs;
        }
        row.totalPs += totalPs;
        row.selfPs += selfPs;
        return row;
    }

private:
    OpSide side_;
    std::vector<TfOpStatsRow>& rows_;
    std::vector<uint32_t> rowOf_;
    std::vector<int64_t> longestPs_; // by row of rows_
};

} // namespace

TfOpStats computeTfOpStats(const Profile& p, const Progress* progress, const HloCatalog* given) {
    TfOpStats result;
    const std::optional<HloCatalog> own =
        given ? std::nullopt : std::optional<HloCatalog>(std::in_place, p, progress);
    const HloCatalog& hlo = given ? *given : *own;
    OpCatalog catalog(p, &hlo);
    RowSink hostRows(OpSide::Host, result.rows);
    RowSink deviceRows(OpSide::Device, result.rows);
    static_assert(TrackChildren::kNotAnOp == OpCatalog::kNoOp);
    TrackChildren children;
    KernelFacts facts(p, hlo);
    std::vector<uint32_t> opOf;
    SideCursor<StringId> frameworkOps(p.frameworkOps());
    SideCursor<StringId> hloOps(p.hloOps());
    CorrelationIds::Cursor correlations(p.correlationIds());
    SideCursor<StringId> memoryEvents(p.memoryEvents());
    SideCursor<uint32_t> kernels(p.kernels());
    // Device op = (op, kernel or copy name): its event count, summed over devices. An op's
    // occurrences are the largest count among its device ops. Per op, its few names in a list
    // (a hash lookup per device event was a fifth of this function's time at 10M events).
    std::vector<std::vector<std::pair<StringId, uint64_t>>> deviceOpCount;

    const size_t planeCount = p.planes().size();
    for (size_t pi = 0; pi < planeCount; ++pi) {
        const Plane& plane = p.planes()[pi];
        const bool host = plane.kind == PlaneKind::Host;
        if (!host && plane.kind != PlaneKind::Gpu && plane.kind != PlaneKind::Tpu) continue;
        if (progress) {
            if (progress->cancelled()) return {};
            progress->report("Op stats", double(pi) / double(planeCount));
        }
        int64_t planeFirst = std::numeric_limits<int64_t>::max();
        int64_t planeLast = std::numeric_limits<int64_t>::min();
        int64_t planeSelfPs = 0;
        for (uint32_t ti = plane.firstTrack; ti < plane.firstTrack + plane.trackCount; ++ti) {
            const Track& t = p.tracks()[ti];
            if (t.eventCount == 0) continue;
            // XProf's TPU idle spans the "Steps" line too, though its steps are no ops.
            if (plane.kind == PlaneKind::Tpu && t.kind == TrackKind::Steps) {
                planeFirst = std::min(planeFirst, t.minStartPs);
                planeLast = std::max(planeLast, t.maxEndPs);
            }
            if (host ? t.derived : !t.deviceOps) continue;
            opOf.assign(t.eventCount, OpCatalog::kNoOp);
            bool any = false;
            int64_t first = std::numeric_limits<int64_t>::max();
            int64_t last = std::numeric_limits<int64_t>::min();
            for (uint32_t i = 0; i < t.eventCount; ++i) {
                const EventIndex e = t.firstEvent + i;
                const StringId* fw = frameworkOps.at(e);
                uint32_t op;
                if (host) {
                    const bool runtime = correlations.at(e) || memoryEvents.at(e);
                    op = catalog.hostOp(e, fw ? *fw : 0, runtime);
                } else {
                    const StringId* hlo = hloOps.at(e);
                    op = fw || hlo ? catalog.deviceOp(e, fw ? *fw : 0, hlo ? *hlo : 0)
                                   : OpCatalog::kNoOp;
                    if (op == OpCatalog::kNoOp) op = catalog.unclaimedOp(e);
                }
                if (op == OpCatalog::kNoOp) continue;
                opOf[i] = op;
                any = true;
                first = std::min(first, p.start(e));
                last = std::max(last, p.end(e));
            }
            if (!any) continue;
            // GPU device ops have no children (XProf); host and TPU op lines nest.
            const bool nests = plane.kind != PlaneKind::Gpu;
            if (nests) children.run(p, ti, opOf);
            int64_t lineSelfPs = 0;
            for (uint32_t i = 0; i < t.eventCount; ++i) {
                if (opOf[i] == OpCatalog::kNoOp) continue;
                const EventIndex e = t.firstEvent + i;
                const int64_t dur = p.duration(e);
                const int64_t self = nests ? std::max<int64_t>(0, dur - children.childPs(i)) : dur;
                lineSelfPs += self;
                TfOpStatsRow& row = (host ? hostRows : deviceRows).add(opOf[i], e, dur, self);
                if (host) continue;
                if (opOf[i] >= deviceOpCount.size()) deviceOpCount.resize(opOf[i] + 1);
                auto& names = deviceOpCount[opOf[i]];
                const StringId name = p.nameId(e);
                auto it = std::find_if(names.begin(), names.end(),
                                       [name](const auto& n) { return n.first == name; });
                if (it == names.end())
                    names.emplace_back(name, 1);
                else
                    ++it->second;
                if (kernels.at(e)) {
                    const KernelFact f = facts.of(e);
                    row.kernelPs += dur;
                    row.precisionPs[size_t(f.precision)] += dur;
                    if (f.tensorCore == TensorCoreUse::Uses) row.tensorCoreKernelPs += dur;
                    if (f.tensorCore == TensorCoreUse::DoesNot) row.noTensorCoreKernelPs += dur;
                }
            }
            if (host) {
                result.hasHost = true;
                result.hostIdlePs += std::max<int64_t>(0, (last - first) - lineSelfPs);
            } else {
                planeSelfPs += lineSelfPs;
                planeFirst = std::min(planeFirst, first);
                planeLast = std::max(planeLast, last);
                result.hasDevice = true;
                result.hasGpu |= plane.kind == PlaneKind::Gpu;
            }
        }
        if (!host && planeLast > planeFirst)
            result.deviceIdlePs += std::max<int64_t>(0, (planeLast - planeFirst) - planeSelfPs);
    }
    // Device occurrences: calls, not events (see the header).
    std::vector<uint64_t> calls(catalog.size(), 0);
    for (size_t op = 0; op < deviceOpCount.size(); ++op)
        for (const auto& named : deviceOpCount[op]) calls[op] = std::max(calls[op], named.second);
    for (TfOpStatsRow& row : result.rows)
        if (row.side == OpSide::Device) row.occurrences = calls[row.op];
    result.ops = catalog.ops();
    result.hloErrors = hlo.errors();
    if (progress) progress->report("Op stats", 1);
    return result;
}

namespace {
constexpr std::string_view kIdle = "IDLE";

std::string precisionText(const TfOpStatsRow& r) {
    if (r.kernelPs <= 0) return {};
    size_t top = 0;
    for (size_t i = 1; i < kPrecisionCount; ++i)
        if (r.precisionPs[i] > r.precisionPs[top]) top = i;
    std::string text(precisionName(Precision(top)));
    const double share = 100.0 * double(r.precisionPs[top]) / double(r.kernelPs);
    if (share < 99) text += " (" + std::to_string(int(share + 0.5)) + "%)";
    return text;
}

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
                    "Host: executions. Device: calls, the largest count among the op's kernels "
                    "and copies");
    table.addColumn("Total time (µs)", T::Double, ColumnFormat::Microseconds);
    table.addColumn("Avg. time (µs)", T::Double, ColumnFormat::Microseconds);
    table.addColumn("Total self-time (µs)", T::Double, ColumnFormat::Microseconds,
                    "Total time minus the time of ops nested inside it");
    table.addColumn("Avg. self-time (µs)", T::Double, ColumnFormat::Microseconds);
    table.addColumn("Total self-time (%)", T::Double, ColumnFormat::Percent,
                    "Share of the total self-time on the same side (host or device)");
    table.addColumn("Cumulative total self-time (%)", T::Double, ColumnFormat::Percent,
                    "Running sum of the self-time share, within one side, in this order");
    if (stats.hasGpu) {
        table.addColumn("TensorCore utilization (%)", T::Double, ColumnFormat::Percent,
                        "Share of the op's kernel time in kernels that use Tensor Cores");
        table.addColumn("Precision", T::Text, ColumnFormat::Plain,
                        "The precision of most of the op's kernel time, with its share when "
                        "others hold more than 1%");
    }

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
        const TfOpStatsRow idleRow{side, OpCatalog::kNoOp, 0, idle, idle, 0, 0};
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
            std::vector<Table::Cell> cells{
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
            };
            if (stats.hasGpu) {
                cells.emplace_back(r->kernelPs > 0
                                       ? 100.0 * double(r->tensorCoreKernelPs) / double(r->kernelPs)
                                       : nan);
                cells.emplace_back(precisionText(*r));
            }
            table.addRow(std::move(cells));
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

PieData tfOpStatsTopOpsPie(const TfOpStats& stats, OpSide side, bool includeIdle, size_t topOps,
                           size_t topTypes) {
    struct Op {
        std::string_view name, type;
        int64_t selfPs = 0;
    };
    std::vector<Op> ops;
    std::unordered_map<std::string_view, size_t> opOf;
    for (const TfOpStatsRow& r : stats.rows) {
        if (r.side != side) continue;
        const OpIdentity& op = stats.ops[r.op];
        auto [it, inserted] = opOf.try_emplace(op.name, ops.size());
        if (inserted) ops.push_back({op.name, op.type, 0});
        ops[it->second].selfPs += r.selfPs;
    }
    PieData slices;
    if (ops.empty()) return slices;
    auto byTime = [](const auto& a, const auto& b) {
        return a.selfPs != b.selfPs ? a.selfPs > b.selfPs : a.name < b.name;
    };
    std::sort(ops.begin(), ops.end(), byTime);
    auto opSlice = [](const Op& op) {
        const std::string label(op.name);
        // Op names are scope paths: the legend shows their last two components.
        const size_t last = label.rfind('/');
        const size_t prev =
            last == std::string::npos || last == 0 ? std::string::npos : label.rfind('/', last - 1);
        return PieSlice{label, double(op.selfPs) / 1e6,
                        prev == std::string::npos ? std::string() : "…" + label.substr(prev), 1};
    };
    const size_t shownOps = std::min(topOps, ops.size());
    for (size_t i = 0; i < shownOps; ++i) slices.push_back(opSlice(ops[i]));

    // The rest, by type.
    struct Fold {
        std::string_view name; // the type
        int64_t selfPs = 0;
        size_t first = 0; // index of its largest op
        size_t count = 0;
    };
    std::vector<Fold> folds;
    std::unordered_map<std::string_view, size_t> foldOf;
    for (size_t i = shownOps; i < ops.size(); ++i) {
        auto [it, inserted] = foldOf.try_emplace(ops[i].type, folds.size());
        if (inserted) folds.push_back({ops[i].type, 0, i, 0});
        folds[it->second].selfPs += ops[i].selfPs;
        ++folds[it->second].count;
    }
    std::sort(folds.begin(), folds.end(), byTime);
    const size_t shownFolds = std::min(topTypes, folds.size());
    for (size_t f = 0; f < shownFolds; ++f) {
        const Fold& fold = folds[f];
        if (fold.count == 1) {
            slices.push_back(opSlice(ops[fold.first]));
            continue;
        }
        // The legend leads with the count, so that it survives the legend's elision.
        const std::string type(fold.name), count = std::to_string(fold.count);
        slices.push_back({type + " (" + count + " more ops of this type)",
                          double(fold.selfPs) / 1e6, count + " " + type + " ops", fold.count});
    }
    if (shownFolds < folds.size()) {
        int64_t restPs = 0;
        size_t restOps = 0;
        for (size_t f = shownFolds; f < folds.size(); ++f) {
            restPs += folds[f].selfPs;
            restOps += folds[f].count;
        }
        const size_t restTypes = folds.size() - shownFolds;
        if (restOps == 1) {
            slices.push_back(opSlice(ops[folds[shownFolds].first]));
        } else {
            const std::string label = "Other (" + std::to_string(restOps) + " ops of " +
                                      std::to_string(restTypes) +
                                      (restTypes == 1 ? " type)" : " types)");
            slices.push_back(
                {label, double(restPs) / 1e6, std::to_string(restOps) + " other ops", restOps});
        }
    }
    if (includeIdle) {
        const int64_t idle = side == OpSide::Device ? stats.deviceIdlePs : stats.hostIdlePs;
        if (idle > 0) slices.push_back({std::string(kIdle), double(idle) / 1e6, {}, 0});
    }
    std::stable_sort(slices.begin(), slices.end(), [](const PieSlice& a, const PieSlice& b) {
        return a.value != b.value ? a.value > b.value : a.label < b.label;
    });
    return slices;
}

const TfOpStatsRow* findTfOpStatsRow(const TfOpStats& stats, OpSide side, std::string_view type,
                                     std::string_view name) {
    for (const TfOpStatsRow& r : stats.rows)
        if (r.side == side && stats.ops[r.op].name == name && stats.ops[r.op].type == type)
            return &r;
    return nullptr;
}

std::optional<OpIdentity> tfOpOfEvent(const Profile& p, EventIndex e, const HloCatalog* hlo) {
    if (e >= p.eventCount()) return std::nullopt;
    const Track& t = p.tracks()[p.trackOf(e)];
    const Plane& plane = p.planes()[t.plane];
    const bool host = plane.kind == PlaneKind::Host;
    if (!host && plane.kind != PlaneKind::Gpu && plane.kind != PlaneKind::Tpu) return std::nullopt;
    if (host ? t.derived : !t.deviceOps) return std::nullopt;
    // The same rules as computeTfOpStats, for one event.
    OpCatalog catalog(p, hlo);
    const StringId* fw = p.frameworkOps().find(e);
    uint32_t op;
    if (host) {
        const bool runtime = p.correlationIds().find(e) || p.memoryEvents().find(e);
        op = catalog.hostOp(e, fw ? *fw : 0, runtime);
    } else {
        const StringId* hlo = p.hloOps().find(e);
        op = fw || hlo ? catalog.deviceOp(e, fw ? *fw : 0, hlo ? *hlo : 0) : OpCatalog::kNoOp;
        if (op == OpCatalog::kNoOp) op = catalog.unclaimedOp(e);
    }
    if (op == OpCatalog::kNoOp) return std::nullopt;
    return catalog.op(op);
}

bool hasTfOpStats(const Profile& p) {
    // Called on the UI thread for every profile shown: no pass over events. Every event of a
    // device op line is in some row; on hosts, an op name among the metadata, or a `tf_op` stat
    // anywhere on a host (an XLA CPU op, unless only launches and allocations carry it).
    for (const Track& t : p.tracks())
        if (t.deviceOps && t.eventCount > 0) return true;
    for (const EventMetadata& md : p.metadata())
        if (p.planes()[md.plane].kind == PlaneKind::Host && isHostOpName(p.str(md.name)))
            return true;
    if (p.strings().find("input_pipeline_stage_id") != StringPool::kNotFound) return true;
    // Walked in slices so that it stops soon after the first such op; cursors, not a search per
    // entry, follow the walk through the other tables.
    const SideTable<StringId>& ops = p.frameworkOps();
    CorrelationIds::Cursor corr(p.correlationIds());
    SideCursor<StringId> memory(p.memoryEvents());
    bool found = false;
    constexpr size_t kSlice = 4096;
    for (size_t from = 0; from < ops.size() && !found; from += kSlice) {
        ops.forEachIn(from, std::min(ops.size(), from + kSlice), [&](EventIndex e, StringId op) {
            if (found) return;
            const Track& t = p.tracks()[p.trackOf(e)];
            if (p.planes()[t.plane].kind != PlaneKind::Host || t.derived) return;
            found = !corr.at(e) && !memory.at(e) && !p.str(op).empty();
        });
    }
    return found;
}

} // namespace stepscope
