#include "model/analysis/TorchOverview.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "model/Json.h"

namespace stepscope {

namespace {

// tensor_cores_parser.py _get_bottom_tc_eligible_operators: eligible nodes with no eligible node
// below them.
void bottomEligible(const TorchTrace& t, uint32_t node, std::vector<uint32_t>& out) {
    const size_t before = out.size();
    for (uint32_t c : t.nodes[node].children) bottomEligible(t, c, out);
    if (t.nodes[node].tensorCoreEligible && out.size() == before) out.push_back(node);
}

int64_t ownKernelPs(const TorchTrace& t, uint32_t node) {
    int64_t sum = 0;
    for (uint32_t r : t.nodes[node].runtimes)
        for (uint32_t d : t.runtimes[r].devices)
            if (t.devices[d].type == TorchEventType::Kernel)
                sum += t.devices[d].end - t.devices[d].start;
    return sum;
}

} // namespace

std::string_view torchRoleName(TorchRole role) {
    static constexpr std::string_view kNames[kTorchRoleCount] = {
        "Kernel",  "Memcpy",     "Memset",   "Communication",
        "Runtime", "DataLoader", "CPU Exec", "Other"};
    return kNames[size_t(role)];
}

TorchOverview computeTorchOverview(const TorchTrace& t) {
    TorchOverview o;
    o.host = t.host;
    if (t.steps.empty()) return o;

    // overall_parser.py Statistics.create_from_range.
    std::array<std::vector<TorchRange>, kTorchRoleCount> cost;
    std::vector<TorchRange> slots = mergeRanges(t.steps);
    for (size_t r = 0; r + 1 < kTorchRoleCount; ++r) {
        cost[r] = r == 0 ? t.roleRanges[r] : intersectRanges(slots, t.roleRanges[r]);
        slots = subtractRanges(slots, cost[r]);
    }
    cost[kTorchRoleCount - 1] = slots;
    int64_t totalPs = 0;
    for (size_t i = 0; i < t.steps.size(); ++i) {
        TorchStepCosts s;
        s.name = t.stepNames[i];
        s.range = t.steps[i];
        for (size_t r = 0; r < kTorchRoleCount; ++r) {
            s.ps[r] = rangesLength(intersectRanges({s.range}, cost[r]));
            o.averagePs[r] += double(s.ps[r]);
        }
        totalPs += s.range.end - s.range.start;
        o.steps.push_back(std::move(s));
    }
    for (double& a : o.averagePs) a /= double(o.steps.size());
    o.averageStepPs = double(totalPs) / double(o.steps.size());

    // gpu_metrics_parser.py over [first step start, last step end].
    const TorchRange span{t.steps.front().start, t.steps.back().end};
    const int64_t spanPs = span.end - span.start;
    std::map<int64_t, std::vector<TorchRange>> kernels;
    std::map<int64_t, std::vector<TorchValuedRange>> blocks;
    std::map<int64_t, std::pair<double, int64_t>> occupancy; // weighted sum, time
    for (const TorchDeviceNode& d : t.devices) {
        if (d.type != TorchEventType::Kernel || d.deviceId < 0) continue;
        kernels[d.deviceId].push_back({d.start, d.end});
        if (!std::isnan(d.blocksPerSm) && d.blocksPerSm > 0)
            blocks[d.deviceId].push_back({d.start, d.end, d.blocksPerSm});
        if (!std::isnan(d.occupancy) && d.occupancy >= 0) {
            auto& [sum, time] = occupancy[d.deviceId];
            const int64_t lo = std::max(d.start, span.start);
            const int64_t hi = std::min(d.end, span.end);
            if (lo < hi) {
                sum += d.occupancy * double(hi - lo);
                time += hi - lo;
            }
        }
    }
    // tensor_cores_parser.py _calculate_tc_ratio: kernels of the operators' own launches.
    std::map<int64_t, std::pair<int64_t, int64_t>> tensorCore; // device -> (tc, all)
    bool anyOpKernel = false;
    int64_t opKernelPs = 0;
    for (uint32_t op : t.operators) {
        for (uint32_t r : t.nodes[op].runtimes)
            for (uint32_t d : t.runtimes[r].devices) {
                const TorchDeviceNode& k = t.devices[d];
                if (k.type != TorchEventType::Kernel) continue;
                anyOpKernel = true;
                auto& [tc, all] = tensorCore[k.deviceId];
                if (k.tensorCore == TensorCoreUse::Uses) tc += k.end - k.start;
                all += k.end - k.start;
            }
        opKernelPs += ownKernelPs(t, op);
    }
    for (auto& [device, ranges] : kernels) {
        TorchGpuMetrics g;
        g.device = device;
        const std::vector<TorchRange> merged = mergeRanges(std::move(ranges));
        g.utilization = spanPs > 0
                            ? double(rangesLength(intersectRanges(merged, {span}))) / double(spanPs)
                            : Table::missing();
        g.smEfficiency = Table::missing();
        if (auto b = blocks.find(device); b != blocks.end() && spanPs > 0) {
            double weighted = 0;
            bool any = false;
            for (const TorchValuedRange& v : mergeValuedRanges(b->second)) {
                const int64_t lo = std::max(v.start, span.start);
                const int64_t hi = std::min(v.end, span.end);
                if (lo < hi || (lo == hi && v.start >= span.start && v.end <= span.end)) {
                    weighted += v.value * double(std::max<int64_t>(0, hi - lo));
                    any = true;
                }
            }
            if (any) g.smEfficiency = weighted / double(spanPs);
        }
        const auto occ = occupancy.find(device);
        g.occupancyPercent = occ != occupancy.end() && occ->second.second > 0
                                 ? occ->second.first / double(occ->second.second)
                                 : Table::missing();
        if (!anyOpKernel) {
            g.tensorCoreKernelRatio = Table::missing();
        } else {
            const auto tc = tensorCore.find(device);
            g.tensorCoreKernelRatio = tc != tensorCore.end() && tc->second.second > 0
                                          ? double(tc->second.first) / double(tc->second.second)
                                          : 0.0;
        }
        o.gpus.push_back(g);
    }
    // tensor_cores_parser.py _get_tc_eligible_ops_kernel_ratio.
    std::vector<uint32_t> bottom;
    for (uint32_t root : t.roots) bottomEligible(t, root, bottom);
    int64_t bottomPs = 0;
    for (uint32_t n : bottom) bottomPs += ownKernelPs(t, n);
    o.tensorCoreEligibleOpsKernelRatio =
        opKernelPs > 0 ? double(bottomPs) / double(opKernelPs) : 0.0;
    return o;
}

std::vector<TorchOverview> computeTorchOverviews(const Profile& profile, const Progress* progress) {
    std::vector<TorchOverview> out;
    for (uint32_t h = 0; h < profile.hosts().size(); ++h) {
        if (progress && progress->cancelled()) return {};
        const TorchTrace t = buildTorchTrace(profile, h);
        if (!t.hasHostEvents) continue;
        out.push_back(computeTorchOverview(t));
    }
    return out;
}

TorchAnalysis computeTorchAnalysis(const Profile& profile, const Progress* progress) {
    TorchAnalysis a;
    std::vector<TorchTrace> traces;
    const size_t hosts = profile.hosts().size();
    for (uint32_t h = 0; h < hosts; ++h) {
        if (progress) {
            if (progress->cancelled()) return {};
            progress->report("Reading PyTorch events", double(h) / double(hosts));
        }
        TorchTrace t = buildTorchTrace(profile, h);
        if (!t.hasHostEvents) continue;
        a.overviews.push_back(computeTorchOverview(t));
        traces.push_back(std::move(t));
    }
    if (progress && progress->cancelled()) return {};
    a.stats = computeTorchStats(traces, profile);
    return a;
}

Table torchStepTable(const std::vector<TorchOverview>& overviews, const Profile& profile) {
    using T = Table::Type;
    Table t;
    t.addColumn("Host", T::Text);
    t.addColumn("Step", T::Text, ColumnFormat::Plain,
                "N of ProfilerStep#N, extended to the device work it launched");
    for (size_t r = 0; r < kTorchRoleCount; ++r)
        t.addColumn(std::string(torchRoleName(TorchRole(r))) + " (µs)", T::Double,
                    ColumnFormat::Microseconds);
    t.addColumn("Total (µs)", T::Double, ColumnFormat::Microseconds);
    for (const TorchOverview& o : overviews) {
        const std::string host = profile.hosts()[o.host].name;
        for (const TorchStepCosts& s : o.steps) {
            std::vector<Table::Cell> cells{host, s.name};
            for (int64_t ps : s.ps) cells.emplace_back(double(ps) / 1e6);
            cells.emplace_back(double(s.range.end - s.range.start) / 1e6);
            t.addRow(std::move(cells));
        }
        if (o.steps.empty()) continue;
        std::vector<Table::Cell> cells{host, std::string("Average")};
        for (double ps : o.averagePs) cells.emplace_back(ps / 1e6);
        cells.emplace_back(o.averageStepPs / 1e6);
        t.addRow(std::move(cells));
    }
    return t;
}

Table torchGpuTable(const std::vector<TorchOverview>& overviews, const Profile& profile) {
    using T = Table::Type;
    Table t;
    t.addColumn("Host", T::Text);
    t.addColumn("Device", T::Int, ColumnFormat::Plain, "The kernels' \"device\" arg");
    t.addColumn("GPU Utilization (%)", T::Double, ColumnFormat::Percent,
                "Time some kernel runs, within the steps");
    t.addColumn("Est. SM Efficiency (%)", T::Double, ColumnFormat::Percent,
                "Blocks per SM summed over running kernels, capped at 1, time-averaged");
    t.addColumn("Est. Achieved Occupancy (%)", T::Double, ColumnFormat::Percent,
                "Kernel-duration-weighted mean of est. achieved occupancy");
    t.addColumn("Kernel Time using Tensor Cores (%)", T::Double, ColumnFormat::Percent,
                "Of the kernel time that operators launched");
    auto pct = [](double v) { return std::isnan(v) ? v : 100.0 * v; };
    for (const TorchOverview& o : overviews)
        for (const TorchGpuMetrics& g : o.gpus)
            t.addRow({profile.hosts()[o.host].name, g.device, pct(g.utilization),
                      pct(g.smEfficiency), g.occupancyPercent, pct(g.tensorCoreKernelRatio)});
    return t;
}

std::string torchOverviewJson(const std::vector<TorchOverview>& overviews, const Profile& profile,
                              double tensorCoreKernelRatio) {
    JsonWriter json;
    json.beginObject().field("tool", std::string("pytorch_overview"));
    json.key("steps").table(torchStepTable(overviews, profile));
    json.key("gpus").table(torchGpuTable(overviews, profile));
    json.key("hosts").beginArray();
    for (const TorchOverview& o : overviews) {
        json.beginObject().field("host", profile.hosts()[o.host].name);
        json.field("tc_eligible_ops_kernel_percent", 100.0 * o.tensorCoreEligibleOpsKernelRatio);
        json.endObject();
    }
    json.endArray();
    json.key("tc_kernel_percent");
    if (std::isnan(tensorCoreKernelRatio))
        json.null();
    else
        json.value(100.0 * tensorCoreKernelRatio);
    json.endObject();
    return json.take();
}

} // namespace stepscope
