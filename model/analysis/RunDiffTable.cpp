#include "model/analysis/RunDiffTable.h"

#include <cmath>

#include "model/NumberFormat.h"
#include "model/analysis/DiffWording.h"

namespace stepscope {

namespace {

constexpr double kPsPerUs = 1e6;

} // namespace

Table runDiffTable(const RunDiff& diff, DiffBy by) {
    const bool hosts = diff.hostPairs.size() > 1 || !diff.hostExplanation.empty();
    if (by == DiffBy::HostOp) return hostOpTable(diff.hostOps, hosts, diff.confidence);
    Table t;
    const std::vector<DiffRow>& rows = by == DiffBy::Category ? diff.categories
                                       : by == DiffBy::Op     ? diff.ops
                                                              : diff.kernels;
    const std::string level = diffPercentText(100 * diff.confidence);
    using T = Table::Type;
    using F = ColumnFormat;
    if (hosts)
        t.addColumn("Host", T::Text, F::Plain,
                    "the host pair compared: its name, or baseline / candidate names");
    if (by == DiffBy::Op) t.addColumn("Type", T::Text);
    t.addColumn(by == DiffBy::Category ? "Category"
                : by == DiffBy::Op     ? "Operation"
                                       : "Kernel",
                T::Text);
    if (by == DiffBy::Kernel) t.addColumn("Launch configuration", T::Text);
    t.addColumn("Class", T::Text, F::Plain,
                "added, removed, slower, faster or unchanged (the verdict of the per-step test); "
                "inconclusive: the totals moved but too few steps to tell that from noise");
    t.addColumn("Evidence", T::Text, F::Plain,
                "significant: the " + level +
                    " interval of the per-step shift excludes 0 (and Benjamini-Hochberg over the "
                    "table passes); within noise: it includes 0; noise across rows: it excludes 0, "
                    "but with this many rows such a p-value is expected from noise; too few "
                    "steps: no interval reaches the confidence; one step each: no noise estimate "
                    "is possible");
    const char* countName = by == DiffBy::Category ? "steps" : "count";
    t.addColumn(std::string("Baseline ") + countName, T::Int);
    t.addColumn(std::string("Candidate ") + countName, T::Int);
    t.addColumn("Baseline total (µs)", T::Double, F::Microseconds);
    t.addColumn("Candidate total (µs)", T::Double, F::Microseconds);
    t.addColumn("Delta total (µs)", T::Double, F::Microseconds, "candidate total - baseline total");
    t.addColumn("Ratio", T::Double, F::Plain, "candidate total / baseline total");
    t.addColumn("Baseline avg (µs)", T::Double, F::Microseconds,
                by == DiffBy::Category ? "per step" : "per event");
    t.addColumn("Candidate avg (µs)", T::Double, F::Microseconds,
                by == DiffBy::Category ? "per step" : "per event");
    t.addColumn("Shift per step (µs)", T::Double, F::Microseconds,
                "Hodges-Lehmann estimate: the median of all candidate - baseline per-step "
                "differences");
    t.addColumn("Shift low (µs)", T::Double, F::Microseconds, level + " interval, lower end");
    t.addColumn("Shift high (µs)", T::Double, F::Microseconds, level + " interval, upper end");
    t.addColumn("Change (%)", T::Double, F::Percent,
                "shift per step / baseline mean per-step time (without a test: of the totals)");
    t.addColumn("p-value", T::Double, F::Plain, "two-sided Mann-Whitney U test");
    t.addColumn(
        "Adjusted p", T::Double, F::Plain,
        "Benjamini-Hochberg over this table's tested rows; significant needs this at most " +
            shortestNumber(1 - diff.confidence) + " and an interval that excludes 0");
    if (by == DiffBy::Op) {
        t.addColumn("Baseline TensorCore (%)", T::Double, F::Percent,
                    "share of the op's kernel time in kernels that use Tensor Cores");
        t.addColumn("Candidate TensorCore (%)", T::Double, F::Percent,
                    "share of the op's kernel time in kernels that use Tensor Cores");
    }
    if (by == DiffBy::Kernel) t.addColumn("Kernel uses TensorCore", T::Int, F::Bool);

    const double none = Table::missing();
    for (const DiffRow& r : rows) {
        std::vector<Table::Cell> cells;
        if (hosts) cells.emplace_back(r.host);
        if (by == DiffBy::Op) cells.emplace_back(r.type);
        cells.emplace_back(r.name);
        if (by == DiffBy::Kernel) cells.emplace_back(r.type);
        cells.emplace_back(std::string(diffClassName(r.diffClass)));
        cells.emplace_back(std::string(diffEvidenceText(r.evidence)));
        cells.emplace_back(int64_t(r.base.count));
        cells.emplace_back(int64_t(r.candidate.count));
        const double bt = double(r.base.totalPs) / kPsPerUs;
        const double ct = double(r.candidate.totalPs) / kPsPerUs;
        cells.emplace_back(bt);
        cells.emplace_back(ct);
        cells.emplace_back(double(r.candidate.totalPs - r.base.totalPs) / kPsPerUs);
        cells.emplace_back(r.base.totalPs > 0 ? ct / bt : none);
        cells.emplace_back(r.base.count ? bt / double(r.base.count) : none);
        cells.emplace_back(r.candidate.count ? ct / double(r.candidate.count) : none);
        appendTestCells(cells, r);
        if (by == DiffBy::Op) {
            cells.emplace_back(r.baseTensorCorePercent);
            cells.emplace_back(r.candidateTensorCorePercent);
        }
        if (by == DiffBy::Kernel) cells.emplace_back(int64_t(r.usesTensorCore ? 1 : 0));
        t.addRow(std::move(cells));
    }
    return t;
}

} // namespace stepscope
