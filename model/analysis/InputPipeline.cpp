#include "model/analysis/InputPipeline.h"

#include <algorithm>

#include "model/Json.h"
#include "model/ToolId.h"
#include "model/analysis/TfOpStats.h"

namespace stepscope {

namespace {
constexpr double kPsPerMs = 1e9;

bool endsWith(std::string_view s, std::string_view p) {
    return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}
bool contains(std::string_view s, std::string_view p) {
    return s.find(p) != std::string_view::npos;
}
std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(std::tolower(uint8_t(c)));
    return out;
}
// XProf's IsInputOpNew: the category of an input-pipeline stage.
bool isStageCategory(std::string_view type) {
    const std::string l = lower(type);
    return l == "enqueue" || l == "read" || l == "preprocessing" || l == "unknown";
}
double share(double part, double whole) {
    return whole > 0 ? 100.0 * part / whole : 0.0;
}
} // namespace

bool isInputOpType(std::string_view type) {
    return type == "Dataset" || type == "MemcpyHToD" || type.substr(0, 13) == "InfeedEnqueue" ||
           isStageCategory(type);
}

std::string_view inputOpCategoryName(InputOpCategory c) {
    switch (c) {
    case InputOpCategory::Enqueue:
        return "Enqueue";
    case InputOpCategory::DemandedFileRead:
        return "Demanded file read";
    case InputOpCategory::AdvancedFileRead:
        return "Advanced file read";
    case InputOpCategory::Preprocessing:
        return "Preprocessing";
    case InputOpCategory::Unknown:
        return "Unknown";
    }
    return "";
}

InputOpCategory categorizeInputOp(std::string_view name, std::string_view type) {
    if (isStageCategory(type)) { // CategorizeInputOpNew
        const std::string l = lower(type);
        if (l == "enqueue") return InputOpCategory::Enqueue;
        if (l == "read") return InputOpCategory::DemandedFileRead;
        if (l == "preprocessing") return InputOpCategory::Preprocessing;
        return InputOpCategory::Unknown;
    }
    if (type == "MemcpyHToD" || type.substr(0, 13) == "InfeedEnqueue")
        return InputOpCategory::Enqueue;
    for (std::string_view reader : {"::TFRecord", "::TextLine", "::FixedLengthRecord", "::SSTable",
                                    "::RecordIO", "::ArrayRecord"}) {
        if (!endsWith(name, reader)) continue;
        for (std::string_view advanced :
             {"::MemoryReader", "::MemoryWriter", "::Interleave", "::Prefetch", "::ParallelMap"})
            if (contains(name, advanced)) return InputOpCategory::AdvancedFileRead;
        return InputOpCategory::DemandedFileRead;
    }
    return InputOpCategory::Preprocessing;
}

InputPipeline computeInputPipeline(const Profile& profile, std::string_view stepPattern,
                                   const Progress* progress) {
    InputPipeline ip;
    ip.steps = analyzeSteps(profile, stepPattern, progress);
    if (progress && progress->cancelled()) return {};
    for (const Host& h : profile.hosts()) ip.hosts.push_back(h.name);
    ip.bottleneck = classifyBottleneck(ip.steps);
    std::vector<double> times, inputs;
    double hostToDevice = 0;
    for (const StepRecord& s : ip.steps.steps) {
        times.push_back(double(s.durationPs) / kPsPerMs);
        inputs.push_back(share(double(s.ps(StepCategory::Input)), double(s.durationPs)));
        hostToDevice += double(s.hostToDevicePs) / kPsPerMs;
    }
    ip.stepTimeMs = summarize(times);
    ip.inputPercent = summarize(inputs);

    const TfOpStats stats = computeTfOpStats(profile, progress);
    if (progress && progress->cancelled()) return {};
    for (const TfOpStatsRow& r : stats.rows) {
        if (r.side != OpSide::Host) continue;
        const OpIdentity& op = stats.ops[r.op];
        if (!isInputOpType(op.type)) continue;
        ip.ops.push_back(
            {op.name, categorizeInputOp(op.name, op.type), r.occurrences, r.totalPs, r.selfPs});
        ip.inputOpSelfPs += r.selfPs;
    }
    std::sort(ip.ops.begin(), ip.ops.end(), [](const InputOpRow& a, const InputOpRow& b) {
        if (a.selfPs != b.selfPs) return a.selfPs > b.selfPs;
        return a.name < b.name;
    });
    if (ip.ops.empty()) return ip;
    double byCategory[5] = {};
    for (const InputOpRow& r : ip.ops) byCategory[size_t(r.category)] += double(r.selfPs) / 1e6;
    const double enqueue = byCategory[size_t(InputOpCategory::Enqueue)];
    const double demanded = byCategory[size_t(InputOpCategory::DemandedFileRead)];
    const double advanced = byCategory[size_t(InputOpCategory::AdvancedFileRead)];
    const double preprocessing = byCategory[size_t(InputOpCategory::Preprocessing)];
    const double fileAndPre = demanded + advanced + preprocessing;
    // RatioOfHostToDeviceTimeToStepTime: average host-to-device time over average step time.
    const double n = double(ip.steps.steps.size());
    const double ratio =
        ip.stepTimeMs.average > 0 ? std::min(1.0, (hostToDevice / n) / ip.stepTimeMs.average) : 0.0;
    // Departure (InputPipeline.h): the scaling only where there is enqueue time to scale.
    const double nonEnqueue =
        ratio != 0.0 && enqueue > 0 ? enqueue * (1.0 - ratio) / ratio : fileAndPre;
    auto scaled = [&](double v) { return fileAndPre > 0 ? nonEnqueue * v / fileAndPre : 0.0; };
    ip.enqueueUs = enqueue;
    ip.demandedFileReadUs = scaled(demanded);
    ip.advancedFileReadUs = scaled(advanced);
    ip.preprocessingUs = scaled(preprocessing);
    // What is left, with the rounding residue of the split (1e-12 µs and the like) taken as 0.
    const double other =
        nonEnqueue - ip.demandedFileReadUs - ip.advancedFileReadUs - ip.preprocessingUs;
    ip.otherUs = other > 1e-9 * nonEnqueue ? other : 0.0;
    ip.tfDataUsed =
        ip.demandedFileReadUs > 0 || ip.advancedFileReadUs > 0 || ip.preprocessingUs > 0;
    return ip;
}

Table inputOpTable(const InputPipeline& ip) {
    Table t;
    t.addColumn("Input op", Table::Type::Text);
    t.addColumn("Count", Table::Type::Int);
    t.addColumn("Total time (ms)", Table::Type::Double);
    t.addColumn("Total time (%)", Table::Type::Double, ColumnFormat::Percent,
                "Of the input ops' summed self time, as XProf");
    t.addColumn("Self time (ms)", Table::Type::Double);
    t.addColumn("Self time (%)", Table::Type::Double, ColumnFormat::Percent);
    t.addColumn("Category", Table::Type::Text);
    const double base = double(ip.inputOpSelfPs);
    for (const InputOpRow& r : ip.ops)
        t.addRow({r.name, int64_t(r.count), double(r.totalPs) / kPsPerMs,
                  share(double(r.totalPs), base), double(r.selfPs) / kPsPerMs,
                  share(double(r.selfPs), base), std::string(inputOpCategoryName(r.category))});
    return t;
}

Table inputStepTable(const InputPipeline& ip) {
    Table t;
    t.addColumn("Step", Table::Type::Int);
    const bool hosts = ip.hosts.size() > 1; // each host has its own steps
    if (hosts) t.addColumn("Host", Table::Type::Text);
    t.addColumn("Step time (ms)", Table::Type::Double);
    t.addColumn("Input (ms)", Table::Type::Double);
    t.addColumn("Waiting for input (ms)", Table::Type::Double);
    t.addColumn("Host to device (ms)", Table::Type::Double);
    t.addColumn("Other (ms)", Table::Type::Double);
    t.addColumn("Input (%)", Table::Type::Double, ColumnFormat::Percent);
    for (const StepRecord& s : ip.steps.steps) {
        const int64_t input = s.ps(StepCategory::Input);
        std::vector<Table::Cell> row{s.number};
        if (hosts) row.push_back(s.host < ip.hosts.size() ? ip.hosts[s.host] : std::string());
        for (double v : {double(s.durationPs) / kPsPerMs, double(input) / kPsPerMs,
                         double(s.hostWaitInputPs) / kPsPerMs, double(s.hostToDevicePs) / kPsPerMs,
                         double(s.durationPs - input) / kPsPerMs})
            row.push_back(v);
        row.push_back(share(double(input), double(s.durationPs)));
        t.addRow(std::move(row));
    }
    return t;
}

Table inputBreakdownTable(const InputPipeline& ip) {
    Table t;
    t.addColumn("Host input time", Table::Type::Text);
    t.addColumn("Time (µs)", Table::Type::Double, ColumnFormat::Microseconds);
    if (ip.ops.empty()) return t; // no input op: nothing to break down
    t.addRow({std::string("Enqueue"), ip.enqueueUs});
    t.addRow({std::string("Demanded file read"), ip.demandedFileReadUs});
    t.addRow({std::string("Advanced file read"), ip.advancedFileReadUs});
    t.addRow({std::string("Preprocessing"), ip.preprocessingUs});
    t.addRow({std::string("Other"), ip.otherUs});
    return t;
}

std::string inputPipelineJson(const InputPipeline& ip) {
    JsonWriter j;
    j.beginObject().field("tool", toolKey(ToolId::InputPipeline));
    // No steps: every step statistic is "not recorded" (null), not 0.
    auto orNull = [&](double v) { return ip.steps.steps.empty() ? Table::missing() : v; };
    j.key("summary")
        .beginObject()
        .field("steps", uint64_t(ip.steps.steps.size()))
        .field("step_source", stepSourceName(ip.steps.source))
        .field("input_classification", ip.bottleneck.input)
        .field("input_percent", orNull(ip.bottleneck.inputPercent))
        .field("statement", ip.bottleneck.inputStatement)
        .field("tf_data_used", ip.tfDataUsed);
    auto summary = [&](const char* key, const SampleSummary& s) {
        j.key(key)
            .beginObject()
            .field("average", orNull(s.average))
            // One step has no spread: not recorded, not 0.
            .field("stddev", s.count < 2 ? Table::missing() : s.stddev)
            .field("min", orNull(s.minimum))
            .field("max", orNull(s.maximum))
            .endObject();
    };
    summary("step_time_ms", ip.stepTimeMs);
    summary("input_percent_per_step", ip.inputPercent);
    j.endObject();
    j.key("steps").table(inputStepTable(ip));
    j.key("host_breakdown").table(inputBreakdownTable(ip));
    j.key("input_ops").table(inputOpTable(ip));
    j.endObject();
    return j.take();
}

} // namespace stepscope
