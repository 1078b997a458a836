#include "model/analysis/HostOpDiff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/NumberFormat.h"
#include "model/SideTable.h"
#include "model/analysis/HostOps.h"
#include "model/analysis/TrackChildren.h"

namespace stepscope {

namespace {

constexpr double kPsPerUs = 1e6;

// The row's class from its two verdicts (the header's rules).
void decide(HostOpRow& r) {
    DiffRow& self = r.self;
    const DiffRow& calls = r.calls;
    auto fromCalls = [&](DiffClass c) {
        self.diffClass = c;
        self.evidence = calls.evidence;
    };
    switch (calls.diffClass) {
    case DiffClass::Added:
    case DiffClass::Removed:
    case DiffClass::Inconclusive:
        fromCalls(calls.diffClass);
        return;
    case DiffClass::Slower:
        fromCalls(DiffClass::MoreCalls);
        return;
    case DiffClass::Faster:
        fromCalls(DiffClass::FewerCalls);
        return;
    default:
        break;
    }
    // Called in both runs: the self-time verdict, unless one run has no self time at all.
    if (self.base.totalPs > 0 && self.candidate.totalPs > 0) return;
    const bool moved = self.base.totalPs != self.candidate.totalPs;
    self.diffClass = moved && !self.test.interval ? DiffClass::Inconclusive : DiffClass::Unchanged;
}

} // namespace

const StepSpan* stepSpanAt(const std::vector<StepSpan>& spans, int64_t t) {
    auto s = std::upper_bound(spans.begin(), spans.end(), t,
                              [](int64_t v, const StepSpan& x) { return v < x.begin; });
    if (s == spans.begin()) return nullptr;
    --s;
    return t < s->end ? &*s : nullptr;
}

size_t HostOpTally::row(const std::string& host, size_t pairs, const std::string& kind,
                        const std::string& name) {
    std::string key = host;
    key += '\0';
    key += kind;
    key += '\0';
    key += name;
    const auto [it, fresh] = index_.emplace(std::move(key), rows_.size());
    if (fresh) {
        HostOpRow r;
        for (DiffRow* d : {&r.self, &r.calls}) {
            d->host = host;
            d->type = kind;
            d->name = name;
            d->base.perStepUs.assign(pairs, 0.0);
            d->candidate.perStepUs.assign(pairs, 0.0);
            d->baseTensorCorePercent = d->candidateTensorCorePercent = Table::missing();
        }
        rows_.push_back(std::move(r));
    }
    return it->second;
}

bool HostOpTally::add(const Profile& p, uint32_t host, const std::string& hostLabel, size_t pairs,
                      const std::vector<StepSpan>& spans, bool isBase, const Progress* progress) {
    HostOpCatalog catalog(p, pythonFunctions_);
    std::vector<uint32_t> rowOf; // catalog op -> row
    TrackChildren children;
    std::vector<uint32_t> opOf;
    // Tracks are visited in index order, each track's events in a block: forward cursors serve.
    SideCursor<StringId> frameworkOps(p.frameworkOps());
    CorrelationIds::Cursor correlations(p.correlationIds());
    SideCursor<StringId> memoryEvents(p.memoryEvents());
    for (const Plane& plane : p.planes()) {
        if (plane.kind != PlaneKind::Host || plane.host != host) continue;
        if (progress && progress->cancelled()) return false;
        for (uint32_t ti = plane.firstTrack; ti < plane.firstTrack + plane.trackCount; ++ti) {
            const Track& t = p.tracks()[ti];
            if (t.derived || t.eventCount == 0) continue;
            opOf.assign(t.eventCount, HostOpCatalog::kNone);
            bool any = false;
            for (uint32_t i = 0; i < t.eventCount; ++i) {
                const EventIndex e = t.firstEvent + i;
                const StringId* fw = frameworkOps.at(e);
                const bool runtime = correlations.at(e) || memoryEvents.at(e);
                opOf[i] = catalog.of(e, fw ? *fw : 0, runtime);
                any = any || opOf[i] != HostOpCatalog::kNone;
            }
            if (!any) continue;
            static_assert(TrackChildren::kNotAnOp == HostOpCatalog::kNone);
            children.run(p, ti, opOf);
            for (uint32_t i = 0; i < t.eventCount; ++i) {
                if (opOf[i] == HostOpCatalog::kNone) continue;
                const EventIndex e = t.firstEvent + i;
                const StepSpan* span = stepSpanAt(spans, p.start(e));
                if (!span || span->pair == kNotCompared) continue;
                if (opOf[i] >= rowOf.size()) rowOf.resize(opOf[i] + 1, HostOpCatalog::kNone);
                if (rowOf[opOf[i]] == HostOpCatalog::kNone) {
                    const HostOpIdentity& id = catalog.op(opOf[i]);
                    rowOf[opOf[i]] = uint32_t(row(hostLabel, pairs, id.kind, id.name));
                }
                HostOpRow& r = rows_[rowOf[opOf[i]]];
                const int64_t dur = p.duration(e);
                const int64_t self = std::max<int64_t>(0, dur - children.childPs(i));
                DiffSide& s = isBase ? r.self.base : r.self.candidate;
                DiffSide& c = isBase ? r.calls.base : r.calls.candidate;
                (isBase ? r.baseTotalPs : r.candidateTotalPs) += dur;
                ++s.count;
                s.totalPs += self;
                s.perStepUs[span->pair] += double(self) / kPsPerUs;
                ++c.count;
                c.totalPs += int64_t(kPsPerUs);
                c.perStepUs[span->pair] += 1;
            }
        }
    }
    return true;
}

std::vector<HostOpRow> HostOpTally::finish(double confidence, double minChangePercent) {
    // One family for Benjamini-Hochberg: every self-time test and every calls test of the table.
    std::vector<DiffRow> tested;
    tested.reserve(2 * rows_.size());
    for (HostOpRow& r : rows_) tested.push_back(std::move(r.self));
    for (HostOpRow& r : rows_) tested.push_back(std::move(r.calls));
    classifyDiffRows(tested, confidence, minChangePercent);
    const size_t n = rows_.size();
    for (size_t i = 0; i < n; ++i) {
        rows_[i].self = std::move(tested[i]);
        rows_[i].calls = std::move(tested[n + i]);
        decide(rows_[i]);
    }
    std::sort(rows_.begin(), rows_.end(),
              [](const HostOpRow& a, const HostOpRow& b) { return diffRowBefore(a.self, b.self); });
    index_.clear();
    return std::move(rows_);
}

Table hostOpTable(const std::vector<HostOpRow>& rows, bool withHost, double confidence) {
    Table t;
    char levelText[16];
    std::snprintf(levelText, sizeof levelText, "%.3g%%", 100 * confidence);
    const std::string level = levelText;
    using T = Table::Type;
    using F = ColumnFormat;
    if (withHost)
        t.addColumn("Host", T::Text, F::Plain,
                    "the host pair compared: its name, or baseline / candidate names");
    t.addColumn("Kind", T::Text, F::Plain,
                "PyTorch: cpu_op, user_annotation, runtime (CUDA runtime and driver calls) or "
                "python_function; TensorFlow / JAX: the op type");
    t.addColumn("Operation", T::Text);
    t.addColumn("Class", T::Text, F::Plain,
                "added or removed (calls in one run only); more or fewer calls (the calls per "
                "step moved); slower or faster (the self time per step moved); unchanged; "
                "inconclusive: calls or self time moved but too few steps to tell that from "
                "noise");
    t.addColumn("Evidence", T::Text, F::Plain,
                "of the calls test when the class is about calls, else of the self-time test: "
                "significant: the " +
                    level +
                    " interval excludes 0 (and Benjamini-Hochberg over the table passes); within "
                    "noise: it includes 0; noise across rows: such a p-value is expected from "
                    "noise with this many tests; too few steps; one step each");
    t.addColumn("Baseline calls", T::Int);
    t.addColumn("Candidate calls", T::Int);
    t.addColumn("Baseline total (µs)", T::Double, F::Microseconds, "the calls' summed durations");
    t.addColumn("Candidate total (µs)", T::Double, F::Microseconds, "the calls' summed durations");
    t.addColumn("Baseline self (µs)", T::Double, F::Microseconds,
                "total minus the time of child host ops on the same thread");
    t.addColumn("Candidate self (µs)", T::Double, F::Microseconds,
                "total minus the time of child host ops on the same thread");
    t.addColumn("Delta self (µs)", T::Double, F::Microseconds, "candidate self - baseline self");
    t.addColumn("Ratio", T::Double, F::Plain, "candidate self / baseline self");
    t.addColumn("Shift per step (µs)", T::Double, F::Microseconds,
                "self time: Hodges-Lehmann estimate, the median of all candidate - baseline "
                "per-step differences");
    t.addColumn("Shift low (µs)", T::Double, F::Microseconds, level + " interval, lower end");
    t.addColumn("Shift high (µs)", T::Double, F::Microseconds, level + " interval, upper end");
    t.addColumn("Change (%)", T::Double, F::Percent,
                "self-time shift per step / baseline mean per-step self time (without a test: "
                "of the totals)");
    t.addColumn("p-value", T::Double, F::Plain, "self time: two-sided Mann-Whitney U test");
    t.addColumn("Adjusted p", T::Double, F::Plain,
                "Benjamini-Hochberg over this table's tests (self time and calls); significant "
                "needs this at most " +
                    shortestNumber(1 - confidence) + " and an interval that excludes 0");
    t.addColumn("Calls shift per step", T::Double, F::Plain,
                "Hodges-Lehmann estimate of the change of calls per step");
    t.addColumn("Calls adjusted p", T::Double, F::Plain,
                "Benjamini-Hochberg adjusted p-value of the calls test");
    const double none = Table::missing();
    for (const HostOpRow& r : rows) {
        const DiffRow& s = r.self;
        std::vector<Table::Cell> cells;
        if (withHost) cells.emplace_back(s.host);
        cells.emplace_back(s.type);
        cells.emplace_back(s.name);
        cells.emplace_back(std::string(diffClassName(s.diffClass)));
        cells.emplace_back(std::string(diffEvidenceText(s.evidence)));
        cells.emplace_back(int64_t(s.base.count));
        cells.emplace_back(int64_t(s.candidate.count));
        cells.emplace_back(double(r.baseTotalPs) / kPsPerUs);
        cells.emplace_back(double(r.candidateTotalPs) / kPsPerUs);
        const double bs = double(s.base.totalPs) / kPsPerUs;
        const double cs = double(s.candidate.totalPs) / kPsPerUs;
        cells.emplace_back(bs);
        cells.emplace_back(cs);
        cells.emplace_back(double(s.candidate.totalPs - s.base.totalPs) / kPsPerUs);
        cells.emplace_back(s.base.totalPs > 0 ? cs / bs : none);
        appendTestCells(cells, s);
        const bool tested = s.base.perStepUs.size() >= 2;
        cells.emplace_back(tested ? r.calls.test.shift : none);
        cells.emplace_back(std::isnan(r.calls.adjustedPValue) ? none : r.calls.adjustedPValue);
        t.addRow(std::move(cells));
    }
    return t;
}

} // namespace stepscope
