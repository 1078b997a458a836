#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "model/Table.h"
#include "model/analysis/ShiftTest.h"

namespace stepscope {

// One row of a run diff table (model/analysis/RunDiff.h: step breakdown, ops, kernels;
// HostOpDiff.h: host ops): both runs' values per aligned step pair, and the noise-aware verdict on
// them.
// Inconclusive: the totals moved by at least the practical floor, but there is no interval to
// tell that from noise (too few steps, or one step each); never named in the summary.
// MoreCalls / FewerCalls: host ops (HostOpDiff.h) whose calls per step changed.
enum class DiffClass : uint8_t {
    Added,
    Removed,
    Slower,
    Faster,
    Unchanged,
    Inconclusive,
    MoreCalls,
    FewerCalls
};
enum class DiffEvidence : uint8_t {
    Significant,    // the interval of the per-step shift excludes 0, and the row's p-value
                    // passes Benjamini-Hochberg over the table's tested rows
    NotSignificant, // the interval includes 0
    NotSignificantAcrossRows, // the interval excludes 0, but with this many rows compared such a
                              // p-value is expected from noise (Benjamini-Hochberg fails)
    TooFewSteps,              // steps on both sides, too few for an interval at the confidence
    NoNoiseEstimate // one step each (or a run without steps): nothing to estimate noise from
};
std::string_view diffClassName(DiffClass c);
std::string_view diffEvidenceText(DiffEvidence e);

// One run's side of a row, over the aligned steps.
struct DiffSide {
    uint64_t count = 0;            // events (categories: steps)
    int64_t totalPs = 0;           // summed time (the tested value: host ops, self time)
    std::vector<double> perStepUs; // one value per aligned pair, µs
};

struct DiffRow {
    std::string host; // the host pair's label (HostPair::label); empty with one host each
    std::string type; // op type; kernel: launch configuration; category: empty
    std::string name; // op / kernel / category name
    DiffSide base, candidate;
    DiffClass diffClass = DiffClass::Unchanged;
    DiffEvidence evidence = DiffEvidence::NoNoiseEstimate;
    ShiftTest test; // per-step shift, when there are >= 2 pairs
    // Benjamini-Hochberg adjusted p-value over the table's tested rows (NaN when not tested).
    double adjustedPValue = std::numeric_limits<double>::quiet_NaN();
    double relativeShiftPercent = 0; // shift / baseline median per-step (or total) time
    bool relativeKnown = false;      // false when the baseline has no time (added rows)
    // Tensor Core: kernel rows, the kernel uses them; op rows, % of the op's kernel time in
    // kernels that use them (NaN when the op ran no kernel in that run).
    bool usesTensorCore = false;
    double baseTensorCorePercent = 0, candidateTensorCorePercent = 0;
};

// Tests and classes the rows of one table (all with the same number of per-step values):
// 1. per row with >= 2 steps, shiftTest at `confidence`;
// 2. over the rows that were tested with an interval and ran in both runs (the family), the
//    Benjamini-Hochberg step-up adjustment of their p-values (Benjamini & Hochberg, JRSS B 57,
//    1995), so that a table of hundreds of ops with no real change does not show the ~5% of
//    them that a per-row test at 95% flags by chance: a row is significant when its interval
//    excludes 0 AND its adjusted p-value is at most 1 - confidence;
// 3. class: added / removed by presence; slower / faster when significant and the shift is at
//    least `minChangePercent` of the baseline's mean per-step time; inconclusive when there is no
//    interval and the totals moved by at least that; else unchanged.
void classifyDiffRows(std::vector<DiffRow>& rows, double confidence, double minChangePercent);

// The tables' order: by the size of the change of their totals, then by their larger total, then
// by name and type.
bool diffRowBefore(const DiffRow& a, const DiffRow& b);
void sortDiffRows(std::vector<DiffRow>& rows);

// A row's test as table cells, in the run diff tables' order: shift per step, its interval's
// lower and upper ends, the shift in %, the p-value and the adjusted p-value; empty (not
// recorded) where there is no test (fewer than two step pairs), interval or adjusted value.
void appendTestCells(std::vector<Table::Cell>& cells, const DiffRow& r);

} // namespace stepscope
