#include "model/analysis/Overview.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "model/Json.h"
#include "model/NumberFormat.h"
#include "model/analysis/InputPipeline.h"
#include "model/analysis/OverviewRules.h"
#include "model/analysis/TensorCore.h"
#include "model/analysis/TfOpStats.h"

namespace stepscope {

namespace {

constexpr double kPsPerMs = 1e9;
constexpr double kPsPerUs = 1e6;

std::string oneDigit(double v) {
    return fixedDecimals(v, 1);
}

double share(double part, double whole) {
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

// XProf's thresholds (op_stats_to_input_pipeline_analysis.cc).
constexpr double kHighlyInputBound = 20; // kModeratelyInputBound: Overview.h
constexpr double kModeratelyOutputBound = 5, kHighlyOutputBound = 20;
constexpr double kModeratelyLaunchBound = 3, kHighlyLaunchBound = 15;
constexpr double kModeratelyAllOther = 3, kHighlyAllOther = 15;
constexpr double kModeratelyCollectives = 3, kHighlyCollectives = 15;

std::optional<Level> level(double percent, double moderate, double high) {
    if (percent >= high) return Level::High;
    if (percent >= moderate) return Level::Moderate;
    return std::nullopt;
}

// A bottleneck level as the JSON writes it: levelKey's, or "no" below the thresholds.
std::string_view bottleneckLevelKey(std::optional<Level> level) {
    return level ? levelKey(*level) : "no";
}

} // namespace

Bottleneck classifyBottleneck(const StepAnalysis& steps) {
    Bottleneck b;
    double total = 0;
    std::array<double, kStepCategoryCount> sum{};
    for (const StepRecord& s : steps.steps) {
        total += double(s.durationPs);
        for (size_t c = 0; c < kStepCategoryCount; ++c) sum[c] += double(s.categoryPs[c]);
    }
    if (total <= 0) {
        b.input = "unknown";
        b.inputStatement = "No step time measured, so the bottleneck cannot be told.";
        return b;
    }
    auto pct = [&](StepCategory c) { return share(sum[size_t(c)], total); };
    b.inputPercent = pct(StepCategory::Input);
    b.outputPercent = pct(StepCategory::Output);
    b.computePercent = pct(StepCategory::DeviceCompute16) + pct(StepCategory::DeviceCompute32);
    b.collectivesPercent = pct(StepCategory::DeviceCollectives);
    b.idlePercent = std::max(0.0, 100.0 - b.inputPercent - b.outputPercent - b.computePercent -
                                      b.collectivesPercent);
    b.kernelLaunchPercent = pct(StepCategory::KernelLaunch);
    // XProf's all-other share is UNKNOWN_TIME alone; Stepscope's All others also holds
    // HOST_TO_HOST, which XProf leaves out of every category.
    b.allOtherPercent = pct(StepCategory::AllOthers);
    bool allOtherReported = false;
    if (b.inputPercent >= kHighlyInputBound) {
        b.input = "host";
        b.inputStatement = "Your program is HIGHLY input-bound because " +
                           oneDigit(b.inputPercent) +
                           "% of the total step time is waiting for input.";
    } else if (b.inputPercent >= kModeratelyInputBound) {
        b.input = "both";
        b.inputStatement = "Your program is MODERATELY input-bound because " +
                           oneDigit(b.inputPercent) +
                           "% of the total step time is waiting for input.";
    } else if (b.allOtherPercent >= kModeratelyAllOther) {
        b.input = "both";
        b.inputStatement = "Your program is POTENTIALLY input-bound because " +
                           oneDigit(b.allOtherPercent) +
                           "% of the total step time is 'All others' time (I/O, Python or both).";
        allOtherReported = true;
    } else {
        b.input = "device";
        b.inputStatement = "Your program is NOT input-bound because only " +
                           oneDigit(b.inputPercent) +
                           "% of the total step time is waiting for input.";
    }
    b.output = level(b.outputPercent, kModeratelyOutputBound, kHighlyOutputBound);
    b.kernelLaunch = level(b.kernelLaunchPercent, kModeratelyLaunchBound, kHighlyLaunchBound);
    b.allOther = allOtherReported ? std::nullopt
                                  : level(b.allOtherPercent, kModeratelyAllOther, kHighlyAllOther);
    b.collectives = level(b.collectivesPercent, kModeratelyCollectives, kHighlyCollectives);
    return b;
}

namespace {

// Eager share (see Overview::hostEagerPercent).
void eagerShares(const Profile& p, Overview& o) {
    const StringId key = p.strings().find("is_eager");
    int64_t carried[2] = {}, eager[2] = {}; // host, device
    if (key != StringPool::kNotFound) {
        for (const Track& t : p.tracks()) {
            const PlaneKind kind = p.planes()[t.plane].kind;
            if (t.derived || (kind != PlaneKind::Host && kind != PlaneKind::Gpu)) continue;
            const int side = kind == PlaneKind::Host ? 0 : 1;
            const EventIndex end = t.firstEvent + t.eventCount;
            for (EventIndex e = t.firstEvent; e < end; ++e)
                for (const StatValue& st : p.eventStats(e)) {
                    if (st.key != key || !st.isNumber()) continue;
                    carried[side] += p.duration(e);
                    if (st.asInt() != 0) eager[side] += p.duration(e);
                }
        }
    }
    o.hostEagerPercent =
        carried[0] > 0 ? share(double(eager[0]), double(carried[0])) : Table::missing();
    o.deviceEagerPercent =
        carried[1] > 0 ? share(double(eager[1]), double(carried[1])) : Table::missing();
}

Table topOpsTable(const TfOpStats& stats) {
    std::vector<const TfOpStatsRow*> device;
    int64_t deviceSelfPs = 0;
    for (const TfOpStatsRow& r : stats.rows) {
        if (r.side == OpSide::Device) {
            device.push_back(&r);
            deviceSelfPs += r.selfPs;
        }
    }
    std::sort(device.begin(), device.end(), [&](const TfOpStatsRow* a, const TfOpStatsRow* b) {
        if (a->selfPs != b->selfPs) return a->selfPs > b->selfPs;
        return stats.ops[a->op].name < stats.ops[b->op].name;
    });
    Table t;
    t.addColumn("Rank", Table::Type::Int);
    t.addColumn("Time (%)", Table::Type::Double, ColumnFormat::Percent,
                "Self time of the op, of all device op self time (idle excluded)");
    t.addColumn("Cumulative time (%)", Table::Type::Double, ColumnFormat::Percent);
    t.addColumn("Category", Table::Type::Text);
    t.addColumn("Operation", Table::Type::Text);
    t.addColumn("Self time (µs)", Table::Type::Double, ColumnFormat::Microseconds);
    t.addColumn("TensorCore eligible", Table::Type::Int, ColumnFormat::Bool);
    t.addColumn("Uses TensorCore", Table::Type::Double, ColumnFormat::Bool,
                "Yes when some of its kernels use Tensor Cores, No when its kernels are known "
                "not to, Unknown when nothing tells (empty in CSV)");
    double cumulative = 0;
    for (size_t i = 0; i < device.size() && i < 10; ++i) {
        const TfOpStatsRow& r = *device[i];
        const OpIdentity& op = stats.ops[r.op];
        const double pct = share(double(r.selfPs), double(deviceSelfPs));
        cumulative += pct;
        // Yes when some kernel uses Tensor Cores; No when kernels known not to hold at least as
        // much of its time as kernels of unknown use; else Unknown (unknown is never read as no).
        const int64_t unknownPs = r.kernelPs - r.tensorCoreKernelPs - r.noTensorCoreKernelPs;
        const double uses = r.tensorCoreKernelPs > 0 ? 1.0
                            : r.noTensorCoreKernelPs > 0 && r.noTensorCoreKernelPs >= unknownPs
                                ? 0.0
                                : Table::missing();
        t.addRow({int64_t(i + 1), pct, cumulative, op.type, op.name, double(r.selfPs) / kPsPerUs,
                  int64_t(opIsTensorCoreEligible(op.name) || r.tensorCoreKernelPs > 0 ? 1 : 0),
                  uses});
    }
    return t;
}

// The PyTorch TensorBoard plugin's step breakdown (Overview::torch) and its summaries.
void torchBreakdown(const Profile& p, Overview& o, const Progress* progress) {
    std::vector<double> times;
    std::array<std::vector<double>, kTorchRoleCount> roles;
    for (TorchOverview& t : computeTorchOverviews(p, progress)) {
        if (t.steps.empty()) continue;
        for (const TorchStepCosts& s : t.steps) {
            times.push_back(double(s.range.end - s.range.start) / kPsPerMs);
            for (size_t r = 0; r < kTorchRoleCount; ++r)
                roles[r].push_back(double(s.ps[r]) / kPsPerMs);
        }
        o.torch.push_back(std::move(t));
    }
    o.torchStepTimeMs = summarize(times);
    for (size_t r = 0; r < kTorchRoleCount; ++r) o.torchRoleMs[r] = summarize(roles[r]);
}

Table torchOverviewStepTable(const Overview& o) {
    Table t;
    t.addColumn("Step", Table::Type::Text, ColumnFormat::Plain,
                "N of ProfilerStep#N, extended to the device work it launched (the PyTorch "
                "TensorBoard plugin's steps)");
    const bool hosts = o.torch.size() > 1;
    if (hosts) t.addColumn("Host", Table::Type::Text);
    t.addColumn("Begin (ms)", Table::Type::Double, ColumnFormat::Plain, "From the profile start");
    t.addColumn("Step time (ms)", Table::Type::Double);
    for (size_t r = 0; r < kTorchRoleCount; ++r)
        t.addColumn(std::string(torchRoleName(TorchRole(r))) + " (ms)", Table::Type::Double);
    for (const TorchOverview& h : o.torch)
        for (const TorchStepCosts& s : h.steps) {
            std::vector<Table::Cell> row{s.name};
            if (hosts)
                row.push_back(h.host < o.hostNames.size() ? o.hostNames[h.host] : std::string());
            row.push_back(double(s.range.start) / kPsPerMs);
            row.push_back(double(s.range.end - s.range.start) / kPsPerMs);
            for (int64_t ps : s.ps) row.push_back(double(ps) / kPsPerMs);
            t.addRow(std::move(row));
        }
    return t;
}

} // namespace

Overview computeOverview(const Profile& p, std::string_view stepPattern, const Progress* progress) {
    Overview o;
    // One HLO catalog for the steps and the op statistics.
    const HloCatalog hlo(p, progress);
    o.steps = analyzeSteps(p, stepPattern, progress, &hlo);
    if (progress && progress->cancelled()) return {};
    std::vector<double> times;
    std::array<std::vector<double>, kStepCategoryCount> cats;
    double compute16 = 0, compute = 0;
    for (const StepRecord& s : o.steps.steps) {
        times.push_back(double(s.durationPs) / kPsPerMs);
        for (size_t c = 0; c < kStepCategoryCount; ++c)
            cats[c].push_back(double(s.categoryPs[c]) / kPsPerMs);
        compute16 += double(s.ps(StepCategory::DeviceCompute16));
        compute += double(s.deviceComputePs());
    }
    o.stepTimeMs = summarize(times);
    for (size_t c = 0; c < kStepCategoryCount; ++c) o.categoryMs[c] = summarize(cats[c]);
    if (stepPattern.empty() && isTorchProfile(p)) {
        if (progress) progress->report("PyTorch step breakdown", 0.5);
        torchBreakdown(p, o, progress);
        if (progress && progress->cancelled()) return {};
    }
    o.bottleneck = classifyBottleneck(o.steps);
    o.compute16Percent = compute > 0 ? share(compute16, compute) : Table::missing();
    if (progress) progress->report("GPU time", 0.6);
    o.gpu = computeGpuTime(p, progress);
    if (progress && progress->cancelled()) return {};
    if (progress) progress->report("Op statistics", 0.7);
    const TfOpStats ops = computeTfOpStats(p, progress, &hlo);
    if (progress && progress->cancelled()) return {};
    o.topOps = topOpsTable(ops);
    for (const TfOpStatsRow& r : ops.rows)
        if (r.side == OpSide::Device)
            for (size_t i = 0; i < kPrecisionCount; ++i) o.kernelPrecisionPs[i] += r.precisionPs[i];
    // Op placement (ConvertOpStatsToOverviewPageAnalysis, op_stats_to_overview_page.cc): host and
    // device shares of op occurrences.
    uint64_t hostOps = 0, deviceOps = 0;
    for (const TfOpStatsRow& r : ops.rows)
        (r.side == OpSide::Device ? deviceOps : hostOps) += r.occurrences;
    const double opTotal = double(hostOps + deviceOps);
    o.hostOpPercent = opTotal > 0 ? share(double(hostOps), opTotal) : Table::missing();
    o.deviceOpPercent = opTotal > 0 ? share(double(deviceOps), opTotal) : Table::missing();
    eagerShares(p, o);
    for (const Host& h : p.hosts()) {
        o.hosts.push_back(h.hostnames.empty() ? h.name : h.hostnames.front());
        o.hostNames.push_back(h.name);
        for (const std::string& e : h.errors) o.completeness.push_back(h.name + ": error: " + e);
        for (const std::string& w : h.warnings)
            o.completeness.push_back(h.name + ": warning: " + w);
    }
    for (const std::string& e : ops.hloErrors)
        o.completeness.push_back(e + " (its kernels are named by hlo_op alone)");
    for (const Plane& pl : p.planes())
        if (pl.kind == PlaneKind::Gpu || pl.kind == PlaneKind::Tpu)
            o.devices.push_back({std::string(p.str(pl.name)), p.hosts()[pl.host].name, pl.device});
    o.recommendations = overviewRecommendations(p, o, ops);
    return o;
}

Table overviewStepTable(const Overview& o) {
    if (!o.torch.empty()) return torchOverviewStepTable(o);
    Table t;
    t.addColumn("Step", Table::Type::Int);
    // With several hosts each host has its own steps.
    const bool hosts = o.hostNames.size() > 1;
    if (hosts) t.addColumn("Host", Table::Type::Text);
    t.addColumn("Name", Table::Type::Text);
    t.addColumn("Begin (ms)", Table::Type::Double, ColumnFormat::Plain, "From the profile start");
    t.addColumn("Step time (ms)", Table::Type::Double);
    for (size_t c = 0; c < kStepCategoryCount; ++c)
        t.addColumn(std::string(stepCategoryName(StepCategory(c))) + " (ms)", Table::Type::Double);
    t.addColumn("Input (%)", Table::Type::Double, ColumnFormat::Percent,
                "Input time of the step time");
    for (const StepRecord& s : o.steps.steps) {
        std::vector<Table::Cell> row{s.number};
        if (hosts) row.push_back(s.host < o.hostNames.size() ? o.hostNames[s.host] : std::string());
        row.push_back(s.name);
        row.push_back(double(s.beginPs) / kPsPerMs);
        row.push_back(double(s.durationPs) / kPsPerMs);
        for (size_t c = 0; c < kStepCategoryCount; ++c)
            row.push_back(double(s.categoryPs[c]) / kPsPerMs);
        row.push_back(share(double(s.ps(StepCategory::Input)), double(s.durationPs)));
        t.addRow(std::move(row));
    }
    return t;
}

Table gpuTimeTable(const GpuTime& gpu) {
    Table t;
    t.addColumn("Device", Table::Type::Text);
    t.addColumn("Events", Table::Type::Int);
    t.addColumn("Span (ms)", Table::Type::Double, ColumnFormat::Plain,
                "From its first event's start to its last event's end");
    t.addColumn("Busy (ms)", Table::Type::Double, ColumnFormat::Plain,
                "Union of all its stream events");
    t.addColumn("Idle (ms)", Table::Type::Double, ColumnFormat::Plain, "Span minus busy");
    t.addColumn("Busy (%)", Table::Type::Double, ColumnFormat::Percent);
    t.addColumn("Computation (ms)", Table::Type::Double);
    t.addColumn("Collectives (ms)", Table::Type::Double);
    t.addColumn("Collectives exposed (ms)", Table::Type::Double, ColumnFormat::Plain,
                "Not overlapped by computation");
    t.addColumn("Memcpy/memset (ms)", Table::Type::Double);
    t.addColumn("Memcpy/memset exposed (ms)", Table::Type::Double, ColumnFormat::Plain,
                "Not overlapped by computation");
    t.addColumn("Memcpy/memset only (ms)", Table::Type::Double, ColumnFormat::Plain,
                "Overlapped by neither computation nor collectives (TraceLens' exposed memcpy)");
    for (const GpuTimeRow& d : gpu.devices)
        t.addRow({d.device, int64_t(d.events), double(d.spanPs()) / kPsPerMs,
                  double(d.busyPs) / kPsPerMs, double(d.idlePs) / kPsPerMs,
                  share(double(d.busyPs), double(d.spanPs())), double(d.computePs) / kPsPerMs,
                  double(d.collectivesPs) / kPsPerMs, double(d.collectivesExposedPs) / kPsPerMs,
                  double(d.memoryPs) / kPsPerMs, double(d.memoryExposedPs) / kPsPerMs,
                  double(d.memoryOnlyPs) / kPsPerMs});
    return t;
}

Table precisionTable(const Overview& o) {
    Table t;
    t.addColumn("Precision", Table::Type::Text, ColumnFormat::Plain,
                "The narrowest floating-point type a kernel reads or writes, from the best "
                "evidence the profile holds (HLO, the launching op's input types, the kernel name, "
                "tensor shapes)");
    t.addColumn("Kernel time (ms)", Table::Type::Double);
    t.addColumn("Kernel time (%)", Table::Type::Double, ColumnFormat::Percent,
                "Of all kernel time in the profile");
    int64_t total = 0;
    for (int64_t ps : o.kernelPrecisionPs) total += ps;
    // Widest first, as a user reads "fp32 ... bf16 ... fp8"; unknown last.
    for (size_t k = 0; k < kPrecisionCount; ++k) {
        const size_t i = k + 1 < kPrecisionCount ? kPrecisionCount - 2 - k : kPrecisionCount - 1;
        const int64_t ps = o.kernelPrecisionPs[i];
        if (ps <= 0) continue;
        t.addRow({std::string(precisionName(Precision(i))), double(ps) / kPsPerMs,
                  share(double(ps), double(total))});
    }
    return t;
}

std::string overviewJson(const Overview& o) {
    JsonWriter j;
    j.beginObject().field("tool", toolKey(ToolId::Overview));
    j.key("steps").beginObject();
    j.field("source", stepSourceName(o.steps.source));
    if (!o.steps.pattern.empty()) j.field("pattern", o.steps.pattern);
    j.field("count", uint64_t(o.steps.steps.size()));
    j.field("not_well_formed", uint64_t(o.steps.notWellFormed));
    j.endObject();
    // No steps: every step statistic is "not recorded" (null), not 0.
    const bool noSteps = o.steps.steps.empty();
    auto orNull = [&](double v) { return noSteps ? Table::missing() : v; };
    auto summary = [&](const SampleSummary& s) {
        auto recorded = [&](double v) { return s.count == 0 ? Table::missing() : v; };
        j.beginObject()
            .field("average", recorded(s.average))
            // One step has no spread: not recorded, not 0.
            .field("stddev", s.count < 2 ? Table::missing() : s.stddev)
            .field("min", recorded(s.minimum))
            .field("max", recorded(s.maximum))
            .endObject();
    };
    j.key("summary").beginObject();
    j.key("step_time_ms");
    summary(o.stepTimeMs);
    j.key("breakdown_ms").beginObject();
    for (size_t c = 0; c < kStepCategoryCount; ++c) {
        j.key(stepCategoryName(StepCategory(c)));
        summary(o.categoryMs[c]);
    }
    j.endObject();
    const Bottleneck& b = o.bottleneck;
    j.key("bottleneck")
        .beginObject()
        .field("input_percent", orNull(b.inputPercent))
        .field("output_percent", orNull(b.outputPercent))
        .field("compute_percent", orNull(b.computePercent))
        .field("idle_percent", orNull(b.idlePercent))
        .field("kernel_launch_percent", orNull(b.kernelLaunchPercent))
        .field("all_other_percent", orNull(b.allOtherPercent))
        .field("collectives_percent", orNull(b.collectivesPercent))
        .field("input", b.input)
        .field("kernel_launch", bottleneckLevelKey(b.kernelLaunch))
        .field("all_other", bottleneckLevelKey(b.allOther))
        .field("collectives", bottleneckLevelKey(b.collectives))
        .field("output", bottleneckLevelKey(b.output))
        .field("input_statement", b.inputStatement)
        .endObject();
    if (!o.torch.empty()) {
        // The PyTorch TensorBoard plugin's step breakdown (step_breakdown holds its steps).
        j.key("pytorch_step_time_ms");
        summary(o.torchStepTimeMs);
        j.key("pytorch_breakdown_ms").beginObject();
        for (size_t r = 0; r < kTorchRoleCount; ++r) {
            j.key(torchRoleName(TorchRole(r)));
            summary(o.torchRoleMs[r]);
        }
        j.endObject();
    }
    j.field("device_compute_16bit_percent", o.compute16Percent);
    j.field("host_op_percent", o.hostOpPercent);
    j.field("device_op_percent", o.deviceOpPercent);
    j.field("host_eager_percent", o.hostEagerPercent);
    j.field("device_eager_percent", o.deviceEagerPercent);
    j.endObject();
    j.key("step_breakdown").table(overviewStepTable(o));
    j.key("gpu_time").table(gpuTimeTable(o.gpu));
    j.key("top_ops").table(o.topOps);
    j.key("kernel_time_by_precision").table(precisionTable(o));
    j.key("environment").beginObject();
    j.key("hosts").beginArray();
    for (const std::string& h : o.hosts) j.value(h);
    j.endArray();
    j.key("devices").beginArray();
    for (const DeviceEnvironment& d : o.devices) {
        j.beginObject().field("name", d.name).field("host", d.host).field("vendor", d.info.vendor);
        if (d.info.computeCapMajor > 0)
            j.field("compute_capability", std::to_string(d.info.computeCapMajor) + "." +
                                              std::to_string(d.info.computeCapMinor));
        if (d.info.coreCount > 0) j.field("cores", d.info.coreCount);
        if (d.info.memoryBytes > 0) j.field("memory_bytes", d.info.memoryBytes);
        j.endObject();
    }
    j.endArray();
    j.endObject();
    j.key("completeness").beginArray();
    for (const std::string& c : o.completeness) j.value(c);
    j.endArray();
    j.key("recommendations").beginArray();
    for (const Recommendation& r : o.recommendations)
        j.beginObject()
            .field("id", r.id)
            .field("level", levelKey(r.level))
            .field("text", r.text)
            .field("value", r.value)
            .field("tool", toolKey(r.tool))
            .field("begin_ms", double(r.beginPs) / kPsPerMs)
            .field("end_ms", double(r.endPs) / kPsPerMs)
            .endObject();
    j.endArray();
    j.endObject();
    return j.take();
}

} // namespace stepscope
