#include "model/analysis/DiffRow.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <unordered_map>

namespace stepscope {

namespace {

constexpr double kPsPerUs = 1e6;

// Step 1 of classifyDiffRows for one row: presence, the per-step test and its interval, the
// relative change.
void testRow(DiffRow& row, double confidence, const RankSumNull* null) {
    const size_t pairs = row.base.perStepUs.size();
    if (row.base.totalPs == 0 && row.candidate.totalPs > 0) row.diffClass = DiffClass::Added;
    if (row.candidate.totalPs == 0 && row.base.totalPs > 0) row.diffClass = DiffClass::Removed;
    if (pairs >= 2) {
        row.test = shiftTest(row.base.perStepUs, row.candidate.perStepUs, confidence, null);
        row.evidence = !row.test.interval ? DiffEvidence::TooFewSteps
                       : row.test.interval->first > 0 || row.test.interval->second < 0
                           ? DiffEvidence::Significant
                           : DiffEvidence::NotSignificant;
    } else {
        row.evidence = DiffEvidence::NoNoiseEstimate;
    }
    row.relativeKnown = row.base.totalPs > 0;
    if (!row.relativeKnown) return;
    if (row.candidate.totalPs == 0) {
        row.relativeShiftPercent = -100;
    } else if (row.test.interval) {
        const double baseMeanUs = double(row.base.totalPs) / kPsPerUs / double(pairs);
        row.relativeShiftPercent = 100.0 * row.test.shift / baseMeanUs;
    } else {
        row.relativeShiftPercent =
            100.0 * double(row.candidate.totalPs - row.base.totalPs) / double(row.base.totalPs);
    }
}

} // namespace

std::string_view diffClassName(DiffClass c) {
    switch (c) {
    case DiffClass::Added:
        return "added";
    case DiffClass::Removed:
        return "removed";
    case DiffClass::Slower:
        return "slower";
    case DiffClass::Faster:
        return "faster";
    case DiffClass::Unchanged:
        return "unchanged";
    case DiffClass::Inconclusive:
        return "inconclusive";
    case DiffClass::MoreCalls:
        return "more calls";
    case DiffClass::FewerCalls:
        return "fewer calls";
    }
    return "unchanged";
}

std::string_view diffEvidenceText(DiffEvidence e) {
    switch (e) {
    case DiffEvidence::Significant:
        return "significant";
    case DiffEvidence::NotSignificant:
        return "within noise";
    case DiffEvidence::NotSignificantAcrossRows:
        return "noise across rows";
    case DiffEvidence::TooFewSteps:
        return "too few steps";
    case DiffEvidence::NoNoiseEstimate:
        return "one step each";
    }
    return "";
}

void classifyDiffRows(std::vector<DiffRow>& rows, double confidence, double minChangePercent) {
    if (rows.empty()) return;
    // One exact null per number of step pairs (host pairs may have different numbers).
    std::unordered_map<size_t, std::unique_ptr<RankSumNull>> nulls;
    std::vector<size_t> family; // rows in both runs with an interval
    for (size_t i = 0; i < rows.size(); ++i) {
        DiffRow& row = rows[i];
        const size_t pairs = row.base.perStepUs.size();
        std::unique_ptr<RankSumNull>& null = nulls[pairs];
        if (!null && pairs >= 2 && pairs <= kExactLimit)
            null = std::make_unique<RankSumNull>(pairs, pairs);
        testRow(row, confidence, null.get());
        const bool comparable = row.base.totalPs > 0 && row.candidate.totalPs > 0;
        if (comparable && row.test.interval) family.push_back(i);
    }
    // Benjamini-Hochberg step-up: the i-th smallest of m p-values, adjusted, is the smallest
    // m/j · p_(j) over j >= i, capped at 1.
    std::sort(family.begin(), family.end(),
              [&](size_t a, size_t b) { return rows[a].test.pValue < rows[b].test.pValue; });
    const double m = double(family.size());
    double running = 1;
    for (size_t j = family.size(); j-- > 0;) {
        running = std::min(running, m / double(j + 1) * rows[family[j]].test.pValue);
        rows[family[j]].adjustedPValue = running;
    }
    const double alpha = 1 - confidence;
    for (DiffRow& row : rows) {
        if (row.evidence == DiffEvidence::Significant && !(row.adjustedPValue <= alpha))
            row.evidence = DiffEvidence::NotSignificantAcrossRows;
        if (row.diffClass == DiffClass::Added || row.diffClass == DiffClass::Removed) continue;
        if (row.base.totalPs == 0 || row.candidate.totalPs == 0) continue; // neither run has it
        const double rel = row.relativeShiftPercent;
        if (row.evidence == DiffEvidence::Significant && rel >= minChangePercent &&
            row.test.interval->first > 0)
            row.diffClass = DiffClass::Slower;
        else if (row.evidence == DiffEvidence::Significant && rel <= -minChangePercent &&
                 row.test.interval->second < 0)
            row.diffClass = DiffClass::Faster;
        else if (!row.test.interval && std::fabs(rel) >= minChangePercent)
            row.diffClass = DiffClass::Inconclusive;
        else
            row.diffClass = DiffClass::Unchanged;
    }
}

bool diffRowBefore(const DiffRow& a, const DiffRow& b) {
    const int64_t da = std::llabs(a.candidate.totalPs - a.base.totalPs);
    const int64_t db = std::llabs(b.candidate.totalPs - b.base.totalPs);
    if (da != db) return da > db;
    const int64_t ta = std::max(a.base.totalPs, a.candidate.totalPs);
    const int64_t tb = std::max(b.base.totalPs, b.candidate.totalPs);
    if (ta != tb) return ta > tb;
    if (a.name != b.name) return a.name < b.name;
    return a.type < b.type;
}

void sortDiffRows(std::vector<DiffRow>& rows) {
    std::sort(rows.begin(), rows.end(), diffRowBefore);
}

void appendTestCells(std::vector<Table::Cell>& cells, const DiffRow& r) {
    const double none = Table::missing();
    const bool tested = r.base.perStepUs.size() >= 2;
    cells.emplace_back(tested ? r.test.shift : none);
    cells.emplace_back(r.test.interval ? r.test.interval->first : none);
    cells.emplace_back(r.test.interval ? r.test.interval->second : none);
    cells.emplace_back(r.relativeKnown ? r.relativeShiftPercent : none);
    cells.emplace_back(tested ? r.test.pValue : none);
    cells.emplace_back(std::isnan(r.adjustedPValue) ? none : r.adjustedPValue);
}

} // namespace stepscope
