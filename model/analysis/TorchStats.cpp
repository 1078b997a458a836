#include "model/analysis/TorchStats.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

namespace stepscope {

namespace {

double us(int64_t ps) {
    return double(ps) / 1e6;
}

std::string nodeName(const Profile& p, const TorchNode& n) {
    return n.kind == TorchNodeKind::Root ? std::string("CallTreeRoot") : std::string(p.str(n.name));
}

void addOp(std::vector<TorchOpRow>& rows, std::unordered_map<std::string, size_t>& index,
           const std::string& key, const TorchOpRow& proto, const TorchNode& n) {
    auto [it, inserted] = index.try_emplace(key, rows.size());
    if (inserted) {
        rows.push_back(proto);
        rows.back().tensorCoreEligible = n.tensorCoreEligible;
    }
    TorchOpRow& r = rows[it->second];
    ++r.calls;
    r.hostPs += n.end - n.start;
    r.selfHostPs += n.selfHostPs;
    r.devicePs += n.devicePs;
    r.selfDevicePs += n.selfDevicePs;
    r.tensorCoreSelfPs += n.tensorCoreSelfPs;
    r.tensorCoreTotalPs += n.tensorCoreTotalPs;
}

// Largest device self time first, then host self time, then name (the plugin leaves the order
// to its UI, which sorts by device self time).
void sortOps(std::vector<TorchOpRow>& rows) {
    std::stable_sort(rows.begin(), rows.end(), [](const TorchOpRow& a, const TorchOpRow& b) {
        return std::tie(b.selfDevicePs, b.selfHostPs, a.name, a.inputShape) <
               std::tie(a.selfDevicePs, a.selfHostPs, b.name, b.inputShape);
    });
}

} // namespace

TorchStats computeTorchStats(const Profile& profile) {
    std::vector<TorchTrace> traces;
    for (uint32_t h = 0; h < profile.hosts().size(); ++h)
        traces.push_back(buildTorchTrace(profile, h));
    return computeTorchStats(traces, profile);
}

TorchStats computeTorchStats(const std::vector<TorchTrace>& traces, const Profile& p) {
    TorchStats s;
    std::unordered_map<std::string, size_t> byName, byInput, byKernelOp;
    std::unordered_map<StringId, size_t> byKernel;
    int64_t kernelPs = 0, tensorCorePs = 0;
    for (const TorchTrace& t : traces) {
        for (uint32_t o : t.operators) {
            const TorchNode& n = t.nodes[o];
            TorchOpRow proto;
            proto.name = std::string(p.str(n.name));
            addOp(s.ops, byName, proto.name, proto, n);
            proto.inputShape = n.inputDims ? std::string(p.str(n.inputDims)) : std::string();
            addOp(s.opsByInput, byInput, proto.name + '\0' + proto.inputShape, proto, n);
        }
        for (uint32_t k : t.treeKernels) {
            const TorchDeviceNode& d = t.devices[k];
            const std::string op =
                d.node == kTorchNone ? std::string("N/A") : nodeName(p, t.nodes[d.node]);
            const std::string name(p.str(d.name));
            const std::string key = name + '\0' + op + '\0' + d.grid + '\0' + d.block + '\0' +
                                    std::to_string(d.registers) + '\0' +
                                    std::to_string(d.sharedMemory);
            auto [it, inserted] = byKernelOp.try_emplace(key, s.kernelsByOp.size());
            const int64_t dur = d.end - d.start;
            if (inserted) {
                TorchKernelOpRow r;
                r.name = name;
                r.op = op;
                r.grid = d.grid;
                r.block = d.block;
                r.registers = d.registers;
                r.sharedMemory = d.sharedMemory;
                r.minPs = dur;
                r.maxPs = dur;
                r.tensorCore = d.tensorCore;
                r.opTensorCoreEligible = d.opTensorCoreEligible;
                s.kernelsByOp.push_back(std::move(r));
            }
            TorchKernelOpRow& r = s.kernelsByOp[it->second];
            ++r.calls;
            r.totalPs += dur;
            r.minPs = std::min(r.minPs, dur);
            r.maxPs = std::max(r.maxPs, dur);
            // Sums of value x duration (µs); divided by the total below.
            if (!std::isnan(d.blocksPerSm)) {
                r.blocksPerSm += d.blocksPerSm * double(dur);
                r.anyBlocksPerSm = true;
            }
            if (!std::isnan(d.occupancy)) {
                r.occupancyPercent += d.occupancy * double(dur);
                r.anyOccupancy = true;
            }
        }
        for (const TorchDeviceNode& d : t.devices) {
            if (d.type != TorchEventType::Kernel) continue;
            auto [it, inserted] = byKernel.try_emplace(d.name, s.kernels.size());
            const int64_t dur = d.end - d.start;
            if (inserted) {
                TorchKernelRow r;
                r.name = std::string(p.str(d.name));
                r.minPs = dur;
                r.maxPs = dur;
                r.tensorCore = d.tensorCore;
                s.kernels.push_back(std::move(r));
            }
            TorchKernelRow& r = s.kernels[it->second];
            ++r.calls;
            r.totalPs += dur;
            r.minPs = std::min(r.minPs, dur);
            r.maxPs = std::max(r.maxPs, dur);
            if (!std::isnan(d.blocksPerSm)) r.blocksPerSm += d.blocksPerSm * double(dur);
            if (!std::isnan(d.occupancy)) r.occupancyPercent += d.occupancy * double(dur);
            kernelPs += dur;
            if (d.tensorCore == TensorCoreUse::Uses) tensorCorePs += dur;
        }
    }
    for (TorchKernelOpRow& r : s.kernelsByOp) {
        r.blocksPerSm = r.totalPs > 0 ? r.blocksPerSm / double(r.totalPs) : 0;
        r.occupancyPercent = r.totalPs > 0 ? r.occupancyPercent / double(r.totalPs) : 0;
    }
    for (TorchKernelRow& r : s.kernels) {
        r.blocksPerSm = r.totalPs > 0 ? r.blocksPerSm / double(r.totalPs) : 0;
        r.occupancyPercent = r.totalPs > 0 ? r.occupancyPercent / double(r.totalPs) : 0;
    }
    s.tensorCoreKernelRatio =
        kernelPs > 0 ? double(tensorCorePs) / double(kernelPs) : Table::missing();
    sortOps(s.ops);
    sortOps(s.opsByInput);
    std::stable_sort(s.kernelsByOp.begin(), s.kernelsByOp.end(),
                     [](const TorchKernelOpRow& a, const TorchKernelOpRow& b) {
                         return std::tie(b.totalPs, a.name, a.op) <
                                std::tie(a.totalPs, b.name, b.op);
                     });
    std::stable_sort(s.kernels.begin(), s.kernels.end(),
                     [](const TorchKernelRow& a, const TorchKernelRow& b) {
                         return std::tie(b.totalPs, a.name) < std::tie(a.totalPs, b.name);
                     });
    return s;
}

Table torchOpTable(const std::vector<TorchOpRow>& rows, bool withInputShape) {
    using T = Table::Type;
    Table t;
    t.addColumn("Name", T::Text);
    if (withInputShape)
        t.addColumn("Input Shape", T::Text, ColumnFormat::Plain, "The op's \"Input Dims\" arg");
    t.addColumn("Calls", T::Int);
    t.addColumn("Device Self Duration (µs)", T::Double, ColumnFormat::Microseconds,
                "Kernels, copies and memsets the op's own launches caused");
    t.addColumn("Device Total Duration (µs)", T::Double, ColumnFormat::Microseconds,
                "Device time of the op's launches and its children's");
    t.addColumn("Host Self Duration (µs)", T::Double, ColumnFormat::Microseconds,
                "Duration minus child ops and the op's own runtime calls");
    t.addColumn("Host Total Duration (µs)", T::Double, ColumnFormat::Microseconds);
    t.addColumn("Tensor Cores Eligible", T::Int, ColumnFormat::Bool,
                "In the plugin's list of eligible ops, or a child op or own kernel is");
    t.addColumn("Tensor Cores Self (%)", T::Double, ColumnFormat::Percent,
                "Tensor Core kernels' share of device self time");
    t.addColumn("Tensor Cores Total (%)", T::Double, ColumnFormat::Percent,
                "Tensor Core kernels' share of device total time");
    for (const TorchOpRow& r : rows) {
        std::vector<Table::Cell> cells{r.name};
        if (withInputShape) cells.emplace_back(r.inputShape);
        cells.emplace_back(int64_t(r.calls));
        cells.emplace_back(us(r.selfDevicePs));
        cells.emplace_back(us(r.devicePs));
        cells.emplace_back(us(r.selfHostPs));
        cells.emplace_back(us(r.hostPs));
        cells.emplace_back(int64_t(r.tensorCoreEligible ? 1 : 0));
        // As the plugin (op_agg.py tc_self_ratio): 0 when the op has no device time.
        cells.emplace_back(
            r.selfDevicePs > 0 ? 100.0 * double(r.tensorCoreSelfPs) / double(r.selfDevicePs) : 0.0);
        cells.emplace_back(r.devicePs > 0 ? 100.0 * double(r.tensorCoreTotalPs) / double(r.devicePs)
                                          : 0.0);
        t.addRow(std::move(cells));
    }
    return t;
}

Table torchKernelOpTable(const TorchStats& stats) {
    using T = Table::Type;
    Table t;
    t.addColumn("Name", T::Text);
    t.addColumn("Operator", T::Text, ColumnFormat::Plain,
                "The op whose launch ran it; CallTreeRoot: outside every op");
    t.addColumn("Grid", T::Text);
    t.addColumn("Block", T::Text);
    t.addColumn("Register Per Thread", T::Int);
    t.addColumn("Shared Memory (bytes)", T::Int);
    t.addColumn("Kernel Uses Tensor Cores", T::Double, ColumnFormat::Bool,
                "Stepscope's kernel-family table (the plugin's list stops at Ampere); Unknown "
                "where nothing tells");
    t.addColumn("Op is Tensor Cores eligible", T::Int, ColumnFormat::Bool);
    t.addColumn("Calls", T::Int);
    t.addColumn("Total Duration (µs)", T::Double, ColumnFormat::Microseconds);
    t.addColumn("Mean Duration (µs)", T::Double, ColumnFormat::Microseconds);
    t.addColumn("Max Duration (µs)", T::Double, ColumnFormat::Microseconds);
    t.addColumn("Min Duration (µs)", T::Double, ColumnFormat::Microseconds);
    t.addColumn("Mean Blocks Per SM", T::Double, ColumnFormat::Plain,
                "Duration-weighted mean of the \"blocks per SM\" arg");
    t.addColumn("Mean Est. Achieved Occupancy (%)", T::Double, ColumnFormat::Percent,
                "Duration-weighted mean of the \"est. achieved occupancy %\" arg");
    for (const TorchKernelOpRow& r : stats.kernelsByOp) {
        auto orMissing = [](int64_t v) -> Table::Cell {
            return v < 0 ? Table::Cell(Table::missing()) : Table::Cell(v);
        };
        t.addRow({r.name, r.op, r.grid, r.block, orMissing(r.registers), orMissing(r.sharedMemory),
                  tensorCoreCell(r.tensorCore), int64_t(r.opTensorCoreEligible ? 1 : 0),
                  int64_t(r.calls), us(r.totalPs), us(r.totalPs) / double(r.calls), us(r.maxPs),
                  us(r.minPs), r.anyBlocksPerSm ? r.blocksPerSm : Table::missing(),
                  r.anyOccupancy ? r.occupancyPercent : Table::missing()});
    }
    return t;
}

Table torchKernelTable(const TorchStats& stats) {
    using T = Table::Type;
    Table t;
    t.addColumn("Name", T::Text);
    t.addColumn("Tensor Cores Used", T::Double, ColumnFormat::Bool,
                "Stepscope's kernel-family table (the plugin's list stops at Ampere); Unknown "
                "where nothing tells");
    t.addColumn("Calls", T::Int);
    t.addColumn("Total Duration (µs)", T::Double, ColumnFormat::Microseconds);
    t.addColumn("Mean Duration (µs)", T::Double, ColumnFormat::Microseconds);
    t.addColumn("Max Duration (µs)", T::Double, ColumnFormat::Microseconds);
    t.addColumn("Min Duration (µs)", T::Double, ColumnFormat::Microseconds);
    t.addColumn("Mean Blocks Per SM", T::Double, ColumnFormat::Plain,
                "Duration-weighted; kernels without the arg count as 0 (as the plugin)");
    t.addColumn("Mean Est. Achieved Occupancy (%)", T::Double, ColumnFormat::Percent,
                "Duration-weighted; kernels without the arg count as 0 (as the plugin)");
    for (const TorchKernelRow& r : stats.kernels)
        t.addRow({r.name, tensorCoreCell(r.tensorCore), int64_t(r.calls), us(r.totalPs),
                  us(r.totalPs) / double(r.calls), us(r.maxPs), us(r.minPs), r.blocksPerSm,
                  r.occupancyPercent});
    return t;
}

} // namespace stepscope
