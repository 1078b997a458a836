#include "model/analysis/KernelStats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "model/analysis/KernelFacts.h"
#include "model/analysis/OpName.h"

namespace stepscope {

namespace {

struct RowKey {
    StringId kernel = 0;
    uint32_t op = OpCatalog::kNoOp;
    uint32_t details = 0;
    bool eligible = false;
    TensorCoreUse tensorCore = TensorCoreUse::Unknown;
    Precision precision = Precision::Unknown;
    PrecisionSource source = PrecisionSource::None;
    bool operator==(const RowKey&) const = default;
};

struct RowKeyHash {
    size_t operator()(const RowKey& k) const {
        uint64_t h = (uint64_t(k.kernel) << 32) ^ k.op;
        const uint64_t facts = uint64_t(k.eligible) | uint64_t(k.tensorCore) << 1 |
                               uint64_t(k.precision) << 3 | uint64_t(k.source) << 7;
        h ^= (uint64_t(k.details) << 10 | facts) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ull;
        return size_t(h ^ (h >> 32));
    }
};

struct RowValue {
    uint64_t occurrences = 0;
    int64_t totalPs = 0;
    int64_t minPs = std::numeric_limits<int64_t>::max();
    int64_t maxPs = -1;
    EventIndex longest = 0;
};

std::string dims(const std::array<uint32_t, 3>& d) {
    return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
}

} // namespace

KernelStats computeKernelStats(const Profile& p, const Progress* progress) {
    KernelStats result;
    const HloCatalog hlo(p, progress);
    OpCatalog catalog(p, &hlo);
    KernelFacts facts(p, hlo);
    const StringId equationKey = p.strings().find("equation");
    const SideTable<uint32_t>& kernelEvents = p.kernels();

    std::vector<int8_t> eligibleOfOp;
    std::unordered_map<RowKey, uint32_t, RowKeyHash> rowOf;
    std::vector<RowKey> keys;
    std::vector<RowValue> values;

    SideCursor<StringId> frameworkOps(p.frameworkOps());
    SideCursor<StringId> hloOps(p.hloOps());
    const size_t trackCount = p.tracks().size();
    for (size_t t = 0; t < trackCount; ++t) {
        const Track& track = p.tracks()[t];
        if (!track.deviceOps || track.eventCount == 0) continue;
        if (progress) {
            if (progress->cancelled()) return {};
            progress->report("Kernel stats", double(t) / double(trackCount));
        }
        const EventIndex end = track.firstEvent + track.eventCount;
        kernelEvents.forEachIn(
            kernelEvents.lowerBound(track.firstEvent), kernelEvents.lowerBound(end),
            [&](EventIndex e, uint32_t details) {
                // As XProf (ConvertDeviceTraceXPlaneToKernelReports): kernels shorter than a whole
                // nanosecond (its DurationNs() == 0) are not counted.
                if (p.duration(e) < 1000) return;
                const uint32_t meta = p.metadataOf(e);
                const KernelFact fact = facts.of(e);
                const bool tc = fact.tensorCore == TensorCoreUse::Uses;

                const StringId* fw = frameworkOps.at(e);
                const StringId* hlo = hloOps.at(e);
                uint32_t op = OpCatalog::kNoOp;
                if (fw || hlo) op = catalog.deviceOp(e, fw ? *fw : 0, hlo ? *hlo : 0);
                bool eligible = false;
                if (op != OpCatalog::kNoOp) {
                    if (op >= eligibleOfOp.size()) eligibleOfOp.resize(catalog.size(), -1);
                    int8_t& known = eligibleOfOp[op];
                    if (known < 0) known = opIsTensorCoreEligible(catalog.op(op).name) ? 1 : 0;
                    eligible = known || tc;
                    if (!eligible && equationKey != StringPool::kNotFound) {
                        for (const StatValue& s : p.eventStats(e))
                            if (s.key == equationKey && s.isText())
                                eligible = einsumIsTensorCoreEligible(p.str(s.asString()));
                    }
                }

                const RowKey key{
                    p.metadata()[meta].name, op,         details, eligible, fact.tensorCore,
                    fact.precision,          fact.source};
                auto [it, inserted] = rowOf.try_emplace(key, uint32_t(values.size()));
                if (inserted) {
                    keys.push_back(key);
                    values.emplace_back();
                }
                RowValue& v = values[it->second];
                const int64_t d = p.duration(e);
                ++v.occurrences;
                v.totalPs += d;
                v.minPs = std::min(v.minPs, d);
                if (d > v.maxPs) {
                    v.maxPs = d;
                    v.longest = e;
                }
            });
    }

    auto opName = [&](uint32_t op) -> std::string_view {
        return op == OpCatalog::kNoOp ? std::string_view() : catalog.op(op).name;
    };
    std::vector<uint32_t> order(values.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        if (values[a].totalPs != values[b].totalPs) return values[a].totalPs > values[b].totalPs;
        const std::string_view ka = p.str(keys[a].kernel), kb = p.str(keys[b].kernel);
        if (ka != kb) return ka < kb;
        if (opName(keys[a].op) != opName(keys[b].op))
            return opName(keys[a].op) < opName(keys[b].op);
        return keys[a].details < keys[b].details;
    });

    const std::vector<KernelDetails>& details = p.kernelDetailsTable();
    bool anyOccupancy = false;
    // occ_pct:0 is "not recorded": ROCm writes 0 for every kernel, and no kernel that ran has a
    // theoretical occupancy of 0. (XProf shows the 0.)
    for (const RowKey& key : keys) anyOccupancy |= details[key.details].occupancyPct > 0;

    Table& table = result.table;
    using T = Table::Type;
    table.addColumn("Rank", T::Int, ColumnFormat::Plain, "Rank by total duration");
    table.addColumn("Kernel name", T::Text);
    table.addColumn("Registers per thread", T::Double, ColumnFormat::Plain,
                    "Empty where the profile does not record it (ROCm)");
    table.addColumn("Shared memory (bytes)", T::Double, ColumnFormat::Plain,
                    "Static plus dynamic shared memory per block (ROCm: group segment); empty "
                    "where the profile does not record it");
    table.addColumn("Block dim", T::Text, ColumnFormat::Plain,
                    "Threads per block: x,y,z; empty where the profile does not record the "
                    "launch geometry (ROCm Kineto traces)");
    table.addColumn("Grid dim", T::Text, ColumnFormat::Plain,
                    "Blocks per grid: x,y,z; empty where not recorded");
    if (anyOccupancy)
        table.addColumn("Theoretical occupancy %", T::Double, ColumnFormat::Percent,
                        "As the profiler recorded it (occ_pct); empty where not recorded (or "
                        "recorded as 0, as ROCm does for every kernel)");
    table.addColumn("Op is TensorCore eligible", T::Int, ColumnFormat::Bool,
                    "The op is a matmul/convolution kind that could run on Tensor Cores "
                    "(TensorFlow Profiler rule)");
    table.addColumn(kKernelUsesTensorCoreColumn, T::Double, ColumnFormat::Bool,
                    "Yes / No from Stepscope's table of kernel families (TensorFlow Profiler's "
                    "patterns plus Hopper, Blackwell and AMD families); Unknown (empty in CSV) "
                    "where nothing tells");
    table.addColumn(kPrecisionColumn, T::Text, ColumnFormat::Plain,
                    "fp64, fp32, tf32, bf16, fp16, fp8, int8, fp4 or unknown: the narrowest "
                    "floating-point type the kernel reads or writes");
    table.addColumn(kPrecisionSourceColumn, T::Text, ColumnFormat::Plain,
                    "The evidence the precision comes from: HLO element types, the launching "
                    "op's input types, the kernel name, or tensor shapes");
    table.addColumn("Op name", T::Text, ColumnFormat::Plain,
                    "Framework op that launched the kernel (tf_op; for JAX the op path)");
    table.addColumn("Occurrences", T::Int);
    table.addColumn("Total duration (µs)", T::Double, ColumnFormat::Microseconds);
    table.addColumn("Avg duration (µs)", T::Double, ColumnFormat::Microseconds);
    table.addColumn("Min duration (µs)", T::Double, ColumnFormat::Microseconds);
    table.addColumn("Max duration (µs)", T::Double, ColumnFormat::Microseconds);

    result.longestInstance.reserve(order.size());
    int64_t rank = 0;
    for (uint32_t r : order) {
        const RowKey& key = keys[r];
        const RowValue& v = values[r];
        const KernelDetails& kd = details[key.details];
        std::vector<Table::Cell> cells;
        cells.reserve(table.columnCount());
        cells.emplace_back(++rank);
        cells.emplace_back(std::string(p.str(key.kernel)));
        // What the profile does not record is empty, not 0: ROCm records no registers per
        // thread, ROCm Kineto traces no launch geometry at all.
        cells.emplace_back(kd.hasRegisters ? double(kd.registersPerThread) : Table::missing());
        cells.emplace_back(kd.hasSharedMemory ? double(kd.sharedBytes()) : Table::missing());
        cells.emplace_back(kd.valid ? dims(kd.block) : std::string());
        cells.emplace_back(kd.valid ? dims(kd.grid) : std::string());
        if (anyOccupancy)
            cells.emplace_back(kd.occupancyPct > 0 ? kd.occupancyPct : Table::missing());
        cells.emplace_back(int64_t(key.eligible ? 1 : 0));
        cells.emplace_back(tensorCoreCell(key.tensorCore));
        cells.emplace_back(std::string(precisionName(key.precision)));
        cells.emplace_back(key.source == PrecisionSource::None
                               ? std::string()
                               : std::string(precisionSourceName(key.source)));
        cells.emplace_back(std::string(opName(key.op)));
        cells.emplace_back(int64_t(v.occurrences));
        cells.emplace_back(double(v.totalPs) / 1e6);
        cells.emplace_back(double(v.totalPs) / 1e6 / double(v.occurrences));
        cells.emplace_back(double(v.minPs) / 1e6);
        cells.emplace_back(double(v.maxPs) / 1e6);
        table.addRow(std::move(cells));
        result.longestInstance.push_back(v.longest);
        result.kernelEvents += v.occurrences;
    }
    if (progress) progress->report("Kernel stats", 1);
    return result;
}

KernelStats groupKernelStats(const KernelStats& stats, KernelGrouping grouping) {
    if (grouping == KernelGrouping::KernelOpConfiguration) return stats;
    const Table& full = stats.table;
    const int kernelCol = full.columnIndex("Kernel name"), opCol = full.columnIndex("Op name"),
              usesCol = full.columnIndex(kKernelUsesTensorCoreColumn),
              precisionCol = full.columnIndex(kPrecisionColumn),
              eligibleCol = full.columnIndex("Op is TensorCore eligible"),
              countCol = full.columnIndex("Occurrences"),
              totalCol = full.columnIndex("Total duration (µs)"),
              minCol = full.columnIndex("Min duration (µs)"),
              maxCol = full.columnIndex("Max duration (µs)");
    KernelStats out;
    if (kernelCol < 0 || opCol < 0 || usesCol < 0 || precisionCol < 0 || eligibleCol < 0 ||
        countCol < 0 || totalCol < 0 || minCol < 0 || maxCol < 0)
        return out;
    const bool byOp = grouping == KernelGrouping::KernelOp;
    // The table holds µs as doubles made from whole picoseconds (< 2^53): rounding back is exact.
    auto ps = [&](size_t r, int c) {
        return int64_t(std::llround(full.number(r, size_t(c)) * 1e6));
    };
    struct Group {
        size_t firstRow;
        uint64_t configurations = 0, occurrences = 0;
        int64_t total = 0, min = std::numeric_limits<int64_t>::max(), max = -1;
        EventIndex longest = kNoIndex;
        bool mixedPrecision = false, mixedTensorCore = false;
    };
    std::vector<Group> groups;
    std::unordered_map<std::string, size_t> groupOf;
    for (size_t r = 0; r < full.rowCount(); ++r) {
        std::string key = full.text(r, size_t(kernelCol));
        if (byOp) key += '\0' + full.text(r, size_t(opCol));
        auto [it, added] = groupOf.try_emplace(std::move(key), groups.size());
        if (added) groups.push_back(Group{r});
        Group& g = groups[it->second];
        g.mixedPrecision |=
            full.text(r, size_t(precisionCol)) != full.text(g.firstRow, size_t(precisionCol));
        g.mixedTensorCore |=
            full.exactText(r, size_t(usesCol)) != full.exactText(g.firstRow, size_t(usesCol));
        ++g.configurations;
        g.occurrences += uint64_t(full.number(r, size_t(countCol)));
        g.total += ps(r, totalCol);
        g.min = std::min(g.min, ps(r, minCol));
        if (ps(r, maxCol) > g.max) {
            g.max = ps(r, maxCol);
            g.longest = r < stats.longestInstance.size() ? stats.longestInstance[r] : kNoIndex;
        }
    }
    std::vector<size_t> order(groups.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const Group &ga = groups[a], &gb = groups[b];
        if (ga.total != gb.total) return ga.total > gb.total;
        const std::string &ka = full.text(ga.firstRow, size_t(kernelCol)),
                          &kb = full.text(gb.firstRow, size_t(kernelCol));
        if (ka != kb) return ka < kb;
        return full.text(ga.firstRow, size_t(opCol)) < full.text(gb.firstRow, size_t(opCol));
    });

    Table& t = out.table;
    using T = Table::Type;
    t.addColumn("Rank", T::Int, ColumnFormat::Plain, "Rank by total duration");
    t.addColumn("Kernel name", T::Text);
    if (byOp)
        t.addColumn("Op name", T::Text, ColumnFormat::Plain, full.column(size_t(opCol)).tooltip);
    t.addColumn(kKernelUsesTensorCoreColumn, T::Double, ColumnFormat::Bool,
                full.column(size_t(usesCol)).tooltip);
    t.addColumn(kPrecisionColumn, T::Text, ColumnFormat::Plain,
                full.column(size_t(precisionCol)).tooltip + "; \"mixed\" where the merged rows "
                                                            "differ");
    if (byOp)
        t.addColumn("Op is TensorCore eligible", T::Int, ColumnFormat::Bool,
                    full.column(size_t(eligibleCol)).tooltip);
    t.addColumn("Launch configurations", T::Int, ColumnFormat::Plain,
                "Distinct (grid, block, registers, shared memory) rows merged here");
    t.addColumn("Occurrences", T::Int);
    t.addColumn("Total duration (µs)", T::Double, ColumnFormat::Microseconds);
    t.addColumn("Avg duration (µs)", T::Double, ColumnFormat::Microseconds);
    t.addColumn("Min duration (µs)", T::Double, ColumnFormat::Microseconds);
    t.addColumn("Max duration (µs)", T::Double, ColumnFormat::Microseconds);
    int64_t rank = 0;
    for (size_t gi : order) {
        const Group& g = groups[gi];
        std::vector<Table::Cell> cells;
        cells.emplace_back(++rank);
        cells.emplace_back(full.text(g.firstRow, size_t(kernelCol)));
        if (byOp) cells.emplace_back(full.text(g.firstRow, size_t(opCol)));
        cells.emplace_back(g.mixedTensorCore ? Table::missing()
                                             : full.number(g.firstRow, size_t(usesCol)));
        cells.emplace_back(g.mixedPrecision ? std::string("mixed")
                                            : full.text(g.firstRow, size_t(precisionCol)));
        if (byOp) cells.emplace_back(int64_t(full.number(g.firstRow, size_t(eligibleCol))));
        cells.emplace_back(int64_t(g.configurations));
        cells.emplace_back(int64_t(g.occurrences));
        cells.emplace_back(double(g.total) / 1e6);
        cells.emplace_back(double(g.total) / 1e6 / double(g.occurrences));
        cells.emplace_back(double(g.min) / 1e6);
        cells.emplace_back(double(g.max) / 1e6);
        t.addRow(std::move(cells));
        out.longestInstance.push_back(g.longest);
        out.kernelEvents += g.occurrences;
    }
    return out;
}

PieData kernelTimeByName(const KernelStats& stats) {
    const Table& t = stats.table;
    const int nameCol = t.columnIndex("Kernel name");
    const int totalCol = t.columnIndex("Total duration (µs)");
    PieData slices;
    if (nameCol < 0 || totalCol < 0) return slices;
    std::unordered_map<std::string_view, size_t> sliceOf;
    for (size_t r = 0; r < t.rowCount(); ++r) {
        const std::string& name = t.text(r, size_t(nameCol));
        auto [it, inserted] = sliceOf.try_emplace(name, slices.size());
        if (inserted) slices.push_back({name, 0, shortKernelName(name)});
        slices[it->second].value += t.number(r, size_t(totalCol));
    }
    std::stable_sort(slices.begin(), slices.end(),
                     [](const PieSlice& a, const PieSlice& b) { return a.value > b.value; });
    return slices;
}

std::string shortKernelName(std::string_view name) {
    if (name.starts_with("void ")) name.remove_prefix(5);
    // Drop the parameter list: the last top-level "(...)".
    std::string folded;
    int angle = 0, paren = 0;
    for (char c : name) {
        if (c == '(' && angle == 0) ++paren;
        if (paren == 0) {
            if (c == '<') {
                if (angle++ == 0) folded += "<…>";
            } else if (c == '>' && angle > 0) {
                --angle;
            } else if (angle == 0) {
                folded += c;
            }
        }
        if (c == ')' && angle == 0 && paren > 0) --paren;
    }
    // Keep the last namespace component.
    const size_t scope = folded.rfind("::");
    if (scope != std::string::npos && scope + 2 < folded.size()) folded.erase(0, scope + 2);
    return folded.empty() ? std::string(name) : folded;
}

// The profile keeps kernel details for device stream events only (Profile::kernels()).
bool hasKernelStats(const Profile& p) {
    return !p.kernels().empty();
}

} // namespace stepscope
