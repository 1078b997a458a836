// `stepscope-cli diff BASE CANDIDATE [--steps A:B] [--by op|kernel|category|host_op] [OPTIONS]
// (--json OUT | --csv OUT)`: two runs compared with model/analysis/RunDiff, the same tables and
// verdicts as the GUI's diff page. OUT may be '-' for standard output.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/Commands.h"
#include "model/AtomicFile.h"
#include "model/Csv.h"
#include "model/Json.h"
#include "model/ProfileLoader.h"
#include "model/analysis/RunDiff.h"
#include "model/analysis/RunDiffFindings.h"
#include "model/analysis/RunDiffTable.h"

namespace stepscope::cli {

namespace {

constexpr const char* kUsage =
    "usage: stepscope-cli diff BASE CANDIDATE (--csv OUT | --json OUT) [OPTIONS]\n"
    "  BASE, CANDIDATE   profiles (file, run folder or log directory) of the two runs\n"
    "  --by category|op|kernel|host_op  the table to write (CSV default: op; JSON default:\n"
    "                    all four)\n"
    "  --steps A:B       baseline step numbers A to B, inclusive (A: or :B leave a side open)\n"
    "  --align auto|order|number  pair steps by order (auto: detect extra leading steps) or by\n"
    "                    step number (default auto)\n"
    "  --shift K         with --align order|number: pair baseline step i with candidate i+K\n"
    "  --hosts auto|name|order  pair the runs' hosts (ranks) by name or by order and compare\n"
    "                    each pair (default auto: by name when a name is shared, else order)\n"
    "  --confidence C    confidence of the per-step shift interval, 0 < C < 1 (default 0.95)\n"
    "  --min-change P    smallest change, % of the baseline per-step time, called slower or\n"
    "                    faster (default 1)\n"
    "  --python-functions  host ops: PyTorch's python_function events too\n"
    "  OUT               the file to write ('-' for standard output)\n";

int usageError(const std::string& message) {
    std::fprintf(stderr, "stepscope-cli diff: %s\n%s", message.c_str(), kUsage);
    return 2;
}

std::optional<int64_t> parseInt(std::string_view text) {
    int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
    return v;
}

std::optional<double> parseDouble(const std::string& text) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

std::string_view byName(DiffBy by) {
    switch (by) {
    case DiffBy::Category:
        return "categories";
    case DiffBy::Op:
        return "ops";
    case DiffBy::Kernel:
        return "kernels";
    case DiffBy::HostOp:
        return "host_ops";
    }
    return "";
}

std::string diffJson(const RunDiff& d, const std::string& basePath,
                     const std::string& candidatePath, std::optional<DiffBy> by) {
    JsonWriter w;
    w.beginObject();
    w.field("tool", "diff").field("baseline", basePath).field("candidate", candidatePath);
    w.field("confidence", d.confidence).field("min_change_percent", d.minChangePercent);
    w.key("hosts").beginObject();
    w.field("matching", d.hostMatching == HostMatching::ByName ? "name" : "order");
    w.field("explanation", d.hostExplanation);
    w.key("pairs").beginArray();
    for (const HostPair& h : d.hostPairs) {
        w.beginObject();
        w.field("label", h.label).field("steps", int64_t(h.pairCount));
        w.endObject();
    }
    w.endArray();
    w.endObject();
    w.key("pairing").beginObject();
    w.field("alignment", d.wholeProfiles                                  ? "whole profiles"
                         : d.pairing.alignment == StepAlignment::ByNumber ? "number"
                                                                          : "order");
    w.field("shift", d.pairing.shift);
    w.field("explanation", d.pairing.explanation);
    w.key("steps").beginArray();
    for (auto [b, c] : d.pairing.pairs) {
        w.beginArray();
        if (d.wholeProfiles)
            w.null().null();
        else
            w.value(d.baseSteps.steps[b].number).value(d.candidateSteps.steps[c].number);
        w.endArray();
    }
    w.endArray();
    w.endObject();
    w.field("step_breakdown", d.torchCategories ? "pytorch" : "xprof");
    for (DiffBy t : {DiffBy::Category, DiffBy::Op, DiffBy::Kernel, DiffBy::HostOp})
        if (!by || *by == t) w.key(byName(t)).table(runDiffTable(d, t));
    w.key("callouts").beginArray();
    for (const DiffCallout& c : d.callouts) w.value(c.text);
    w.endArray();
    w.key("summary").beginArray();
    for (const std::string& s : runDiffSummary(d)) w.value(s);
    w.endArray();
    w.endObject();
    return w.take();
}

} // namespace

int runDiff(const std::vector<std::string>& args) {
    std::vector<std::string> paths;
    std::string out, format;
    std::optional<DiffBy> by;
    RunDiffOptions options;
    bool shiftGiven = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> const std::string* {
            return i + 1 < args.size() ? &args[++i] : nullptr;
        };
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (a == "--csv" || a == "--json") {
            if (!format.empty()) return usageError("give one of --csv OUT and --json OUT");
            const std::string* v = value();
            if (!v) return usageError(a + " needs a file name (or '-')");
            format = a.substr(2);
            out = *v;
        } else if (a == "--by") {
            const std::string* v = value();
            if (!v) return usageError("--by needs category, op, kernel or host_op");
            if (*v == "category")
                by = DiffBy::Category;
            else if (*v == "op")
                by = DiffBy::Op;
            else if (*v == "kernel")
                by = DiffBy::Kernel;
            else if (*v == "host_op")
                by = DiffBy::HostOp;
            else
                return usageError("--by must be category, op, kernel or host_op, not '" + *v + "'");
        } else if (a == "--steps") {
            const std::string* v = value();
            const size_t colon = v ? v->find(':') : std::string::npos;
            if (colon == std::string::npos)
                return usageError("--steps needs A:B (baseline step numbers; A: or :B)");
            const std::string_view first = std::string_view(*v).substr(0, colon);
            const std::string_view last = std::string_view(*v).substr(colon + 1);
            if (!first.empty() && !(options.firstStep = parseInt(first)))
                return usageError("--steps: '" + std::string(first) + "' is not a step number");
            if (!last.empty() && !(options.lastStep = parseInt(last)))
                return usageError("--steps: '" + std::string(last) + "' is not a step number");
            if (options.firstStep && options.lastStep && *options.firstStep > *options.lastStep)
                return usageError("--steps: A must not be greater than B");
        } else if (a == "--align") {
            const std::string* v = value();
            if (!v) return usageError("--align needs auto, order or number");
            if (*v == "auto")
                options.alignment = StepAlignment::Auto;
            else if (*v == "order")
                options.alignment = StepAlignment::ByOrder;
            else if (*v == "number")
                options.alignment = StepAlignment::ByNumber;
            else
                return usageError("--align must be auto, order or number, not '" + *v + "'");
        } else if (a == "--hosts") {
            const std::string* v = value();
            if (!v) return usageError("--hosts needs auto, name or order");
            if (*v == "auto")
                options.hosts = HostMatching::Auto;
            else if (*v == "name")
                options.hosts = HostMatching::ByName;
            else if (*v == "order")
                options.hosts = HostMatching::ByOrder;
            else
                return usageError("--hosts must be auto, name or order, not '" + *v + "'");
        } else if (a == "--shift") {
            const std::string* v = value();
            const std::optional<int64_t> k = v ? parseInt(*v) : std::nullopt;
            if (!k || *k < -1000000 || *k > 1000000)
                return usageError("--shift needs a whole number of steps");
            options.shift = int(*k);
            shiftGiven = true;
        } else if (a == "--confidence") {
            const std::string* v = value();
            const std::optional<double> c = v ? parseDouble(*v) : std::nullopt;
            if (!c || *c <= 0 || *c >= 1)
                return usageError("--confidence needs a number between 0 and 1 (e.g. 0.95)");
            options.confidence = *c;
        } else if (a == "--min-change") {
            const std::string* v = value();
            const std::optional<double> c = v ? parseDouble(*v) : std::nullopt;
            if (!c || *c < 0) return usageError("--min-change needs a percentage >= 0");
            options.minChangePercent = *c;
        } else if (a == "--python-functions") {
            options.pythonFunctions = true;
        } else if (a.size() > 1 && a[0] == '-') {
            return usageError("unknown option '" + a + "'");
        } else {
            paths.push_back(a);
        }
    }
    if (paths.size() != 2) return usageError("expected BASE and CANDIDATE");
    if (format.empty()) return usageError("missing --csv OUT or --json OUT");
    if (shiftGiven && options.alignment == StepAlignment::Auto)
        return usageError("--shift needs --align order or --align number");

    std::shared_ptr<const Profile> profiles[2];
    for (int i = 0; i < 2; ++i) {
        LoadResult loaded = loadPath(paths[size_t(i)]);
        if (!loaded.ok()) {
            std::fprintf(stderr, "stepscope-cli diff: cannot load %s %s: %s\n",
                         i == 0 ? "the baseline" : "the candidate", paths[size_t(i)].c_str(),
                         loaded.error.c_str());
            return 1;
        }
        profiles[i] = std::move(loaded.profile);
    }
    const RunDiff diff = diffRuns(*profiles[0], *profiles[1], options);
    if (!diff.hostExplanation.empty())
        std::fprintf(stderr, "stepscope-cli diff: %s\n", diff.hostExplanation.c_str());
    std::fprintf(stderr, "stepscope-cli diff: %s %zu step pair(s).\n",
                 diff.pairing.explanation.c_str(), diff.pairing.pairs.size());
    if (diff.pairing.pairs.empty()) {
        std::fprintf(stderr, "stepscope-cli diff: no steps to compare\n");
        return 1;
    }

    std::string text;
    if (format == "csv") {
        std::ostringstream s;
        writeCsv(runDiffTable(diff, by.value_or(DiffBy::Op)), s);
        text = s.str();
    } else {
        text = diffJson(diff, paths[0], paths[1], by) + "\n";
    }
    if (out == "-") {
        std::cout.write(text.data(), std::streamsize(text.size()));
        std::cout.flush();
        return std::cout ? 0 : 1;
    }
    if (const std::string error = writeFileAtomically(out, text); !error.empty()) {
        std::fprintf(stderr, "stepscope-cli diff: %s\n", error.c_str());
        return 1;
    }
    std::fprintf(stderr, "stepscope-cli diff: wrote %s\n", out.c_str());
    return 0;
}

} // namespace stepscope::cli
