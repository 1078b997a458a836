#include "model/analysis/RunDiffFindings.h"

#include <cmath>
#include <cstdio>

#include "model/NumberFormat.h"
#include "model/analysis/DiffWording.h"

namespace stepscope {

namespace {

constexpr double kPsPerUs = 1e6;

// A name as a finding quotes it: C++ kernel names with their template and argument lists run to
// hundreds of characters; past kFindingNameChars they are cut (the tables keep them whole).
constexpr size_t kFindingNameChars = 80;
std::string findingName(const std::string& name) {
    if (name.size() <= kFindingNameChars) return name;
    size_t cut = kFindingNameChars;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut; // UTF-8
    return name.substr(0, cut) + "…";
}

// Calls per step: "1", "2.5", "0.333".
std::string perStepText(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

// "1 call", "2.5 calls".
std::string callsText(double calls) {
    return perStepText(calls) + (calls == 1 ? " call" : " calls");
}

} // namespace

std::vector<Recommendation> runDiffFindings(const RunDiff& diff, size_t maxRows) {
    std::vector<Recommendation> out;
    if (diff.pairing.pairs.empty()) return out;
    // Each row's own number of step pairs (its host pair's).
    auto pairsOf = [](const DiffRow& r) { return r.base.perStepUs.size(); };
    auto onHost = [](const DiffRow& r) { return r.host.empty() ? "" : " on " + r.host; };
    char levelText[16];
    std::snprintf(levelText, sizeof levelText, "%.3g%%", 100 * diff.confidence);
    const std::string level = levelText;
    auto add = [&](std::string id, Level lvl, std::string text, double value) {
        Recommendation r;
        r.id = std::move(id);
        r.level = lvl;
        r.text = std::move(text);
        r.value = value;
        r.tool = ToolId::RunDiff;
        out.push_back(std::move(r));
    };
    // "in every step" / "in N of M steps": the pairs whose candidate value moved the row's way.
    auto steps = [&](const DiffRow& r) {
        const bool slower = r.diffClass == DiffClass::Slower;
        size_t n = 0;
        for (size_t i = 0; i < r.base.perStepUs.size(); ++i)
            if (slower ? r.candidate.perStepUs[i] > r.base.perStepUs[i]
                       : r.candidate.perStepUs[i] < r.base.perStepUs[i])
                ++n;
        return n == pairsOf(r)
                   ? std::string("in every step")
                   : "in " + std::to_string(n) + " of " + std::to_string(pairsOf(r)) + " steps";
    };
    // A significant shift: its size per step and its interval, both also in % of the baseline's
    // mean per-step time (the unit of relativeShiftPercent).
    auto shifted = [&](const std::string& what, const DiffRow& r) {
        const double baseMeanUs = double(r.base.totalPs) / kPsPerUs / double(pairsOf(r));
        const bool slower = r.diffClass == DiffClass::Slower;
        return what + " " + diffPercentText(std::fabs(r.relativeShiftPercent)) + " " +
               (slower ? "slower" : "faster") + " than the baseline " + steps(r) + " (" +
               (r.test.shift > 0 ? "+" : "") + diffDurationText(r.test.shift) + " per step; " +
               level + " interval " +
               diffSignedPercentText(100 * r.test.interval->first / baseMeanUs) + " to " +
               diffSignedPercentText(100 * r.test.interval->second / baseMeanUs) + ").";
    };
    auto noNoise = [&](const DiffRow& r) {
        const size_t pairs = pairsOf(r);
        return pairs < 2
                   ? std::string("with one step each no noise estimate is possible")
                   : "with " + std::to_string(pairs) + " steps that cannot be told from noise";
    };
    for (const DiffRow& r : diff.categories) {
        if (r.name != "Step time") continue;
        if (r.diffClass == DiffClass::Slower || r.diffClass == DiffClass::Faster)
            add("diff_step_time", r.diffClass == DiffClass::Slower ? Level::High : Level::Info,
                shifted("Step time" + onHost(r), r), r.relativeShiftPercent);
        else if (r.diffClass == DiffClass::Inconclusive)
            add("diff_inconclusive", Level::Info,
                "Step time" + onHost(r) + " " + diffSignedPercentText(r.relativeShiftPercent) +
                    " against the baseline, but " + noNoise(r) + ".",
                r.relativeShiftPercent);
    }
    // Op rows, then kernel rows, each largest change first (the tables' order).
    auto rows = [&](const std::vector<DiffRow>& table, const std::string& what,
                    const std::string& id) {
        size_t told = 0;
        for (const DiffRow& r : table) {
            if (told >= maxRows) break;
            const double perStepUs =
                double(r.candidate.totalPs - r.base.totalPs) / kPsPerUs / double(pairsOf(r));
            const std::string name = what + " " + findingName(r.name) + onHost(r);
            if (r.diffClass == DiffClass::Added)
                add(id + "_added", Level::Moderate,
                    name + " added (" + diffDurationText(perStepUs) + " per step).", perStepUs);
            else if (r.diffClass == DiffClass::Removed)
                add(id + "_removed", Level::Moderate,
                    name + " removed (was " + diffDurationText(-perStepUs) + " per step).",
                    perStepUs);
            else if (r.diffClass == DiffClass::Slower)
                add(id + "_slower", Level::Moderate, shifted(name, r), r.relativeShiftPercent);
            else if (r.diffClass == DiffClass::Faster)
                add(id + "_faster", Level::Info, shifted(name, r), r.relativeShiftPercent);
            else
                continue;
            ++told;
        }
    };
    rows(diff.ops, "Op", "diff_op");
    rows(diff.kernels, "Kernel", "diff_kernel");
    // Host ops: added and removed with their calls and time per step, calls that moved, self time
    // that moved.
    size_t toldHostOps = 0;
    for (const HostOpRow& h : diff.hostOps) {
        if (toldHostOps >= maxRows) break;
        const DiffRow& r = h.self;
        const double pairs = double(pairsOf(r));
        const std::string name = "Host op " + findingName(r.name) + onHost(r);
        auto perStep = [&](uint64_t calls, int64_t totalPs) {
            return callsText(double(calls) / pairs) + " and " +
                   diffDurationText(double(totalPs) / kPsPerUs / pairs) + " per step";
        };
        const bool more = r.diffClass == DiffClass::MoreCalls;
        if (r.diffClass == DiffClass::Added)
            add("diff_host_op_added", Level::Moderate,
                name + " added (" + perStep(r.candidate.count, h.candidateTotalPs) + ").",
                double(h.candidateTotalPs) / kPsPerUs / pairs);
        else if (r.diffClass == DiffClass::Removed)
            add("diff_host_op_removed", Level::Moderate,
                name + " removed (was " + perStep(r.base.count, h.baseTotalPs) + ").",
                -double(h.baseTotalPs) / kPsPerUs / pairs);
        else if (more || r.diffClass == DiffClass::FewerCalls)
            add(more ? "diff_host_op_more_calls" : "diff_host_op_fewer_calls",
                more ? Level::Moderate : Level::Info,
                name + " called " + (more ? "more" : "less") + " often than the baseline " +
                    steps(h.calls) + " (" + perStepText(double(r.base.count) / pairs) + " → " +
                    perStepText(double(r.candidate.count) / pairs) + " calls per step).",
                h.calls.relativeShiftPercent);
        else if (r.diffClass == DiffClass::Slower)
            add("diff_host_op_slower", Level::Moderate, shifted(name + " (self time)", r),
                r.relativeShiftPercent);
        else if (r.diffClass == DiffClass::Faster)
            add("diff_host_op_faster", Level::Info, shifted(name + " (self time)", r),
                r.relativeShiftPercent);
        else
            continue;
        ++toldHostOps;
    }
    // Moves that could not be tested are counted, in every table, never named as changes. The
    // largest by time is named (a host op by its self time; "calls" when its calls moved); of
    // equal moves, the first met in the order ops, kernels, host ops, categories.
    struct Untested {
        const char* one;
        const char* many;
        size_t count = 0;
    };
    std::array<Untested, 4> untested{{{"op", "ops"},
                                      {"kernel", "kernels"},
                                      {"host op", "host ops"},
                                      {"category", "categories"}}};
    const DiffRow* largest = nullptr;
    std::string largestText;
    auto consider = [&](size_t table, const DiffRow& r, const DiffRow& moved, bool calls) {
        if (r.diffClass != DiffClass::Inconclusive) return;
        ++untested[table].count;
        if (largest && std::llabs(r.candidate.totalPs - r.base.totalPs) <=
                           std::llabs(largest->candidate.totalPs - largest->base.totalPs))
            return;
        largest = &r;
        largestText = std::string(untested[table].one) + " " + findingName(r.name) + onHost(r) +
                      ", " + (calls ? "calls " : "") +
                      diffSignedPercentText(moved.relativeShiftPercent);
    };
    for (const DiffRow& r : diff.ops) consider(0, r, r, false);
    for (const DiffRow& r : diff.kernels) consider(1, r, r, false);
    for (const HostOpRow& h : diff.hostOps) {
        const bool calls = h.calls.diffClass == DiffClass::Inconclusive;
        consider(2, h.self, calls ? h.calls : h.self, calls);
    }
    for (const DiffRow& r : diff.categories)
        if (r.name != "Step time") consider(3, r, r, false);
    if (largest) {
        size_t total = 0;
        std::string tables;
        for (const Untested& u : untested) {
            if (u.count == 0) continue;
            total += u.count;
            tables += (tables.empty() ? "" : ", ") + std::to_string(u.count) + " " +
                      (u.count == 1 ? u.one : u.many);
        }
        add("diff_inconclusive", Level::Info,
            std::to_string(total) + (total == 1 ? " row" : " rows") + " moved by " +
                shortestNumber(diff.minChangePercent) + "% or more (" + tables + "), but " +
                noNoise(*largest) + " (largest: " + largestText + ").",
            double(total));
    }
    for (const DiffCallout& c : diff.callouts)
        add(c.id, c.points > 0 ? Level::Info : Level::Moderate, c.text, c.points);
    return out;
}

std::vector<std::string> runDiffSummary(const RunDiff& diff) {
    std::vector<std::string> lines;
    for (Recommendation& r : runDiffFindings(diff)) lines.push_back(std::move(r.text));
    return lines;
}

} // namespace stepscope
