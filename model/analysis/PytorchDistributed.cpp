#include "model/analysis/PytorchDistributed.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "model/analysis/TorchTrace.h"
#include "model/pytorch/TorchRanges.h"

namespace stepscope {

namespace {

// trace.py NcclOpNameSet and GlooOpNameSet.
constexpr std::string_view kCommunicationOps[] = {
    "nccl:broadcast", "nccl:reduce", "nccl:all_reduce", "nccl:all_gather", "nccl:reduce_scatter",
    "gloo:broadcast", "gloo:reduce", "gloo:all_reduce", "gloo:all_gather", "gloo:reduce_scatter"};

using Ranges = std::vector<TorchRange>;

int64_t lengthWithin(const TorchRange& step, const Ranges& merged) {
    return rangesLength(intersectRanges({step}, merged));
}

// "Input Dims" as Kineto writes it, e.g. [[53120], [1000, 3], []]: the inner lists' numbers.
std::vector<std::vector<int64_t>> parseDims(std::string_view text) {
    std::vector<std::vector<int64_t>> out;
    int depth = 0;
    bool inNumber = false, negative = false;
    int64_t x = 0;
    auto flush = [&] {
        if (inNumber && depth == 2 && !out.empty()) out.back().push_back(negative ? -x : x);
        inNumber = negative = false;
        x = 0;
    };
    for (char c : text) {
        if (c >= '0' && c <= '9') {
            inNumber = true;
            if (x < std::numeric_limits<int64_t>::max() / 10) x = x * 10 + (c - '0');
            continue;
        }
        if (c == '-') {
            negative = true;
            continue;
        }
        flush();
        if (c == '[') {
            ++depth;
            if (depth == 2) out.emplace_back();
        } else if (c == ']') {
            --depth;
        }
    }
    return out;
}

// "Input type", e.g. ["float", "Int"]: the strings (escapes are not expected in type names).
std::vector<std::string> parseStrings(std::string_view text) {
    std::vector<std::string> out;
    size_t i = 0;
    while ((i = text.find('"', i)) != std::string_view::npos) {
        const size_t j = text.find('"', i + 1);
        if (j == std::string_view::npos) break;
        out.emplace_back(text.substr(i + 1, j - i - 1));
        i = j + 1;
    }
    return out;
}

// communication.py: bytes per element of an input type.
int64_t elementBytes(std::string_view type) {
    if (type == "long int") return 8;
    if (type == "float" || type == "int") return 4;
    if (type == "c10::Half" || type == "c10::BFloat16") return 2;
    if (type == "unsigned char") return 1;
    return 0;
}

struct CommNode {
    StringId name = 0;
    int64_t start = 0, end = 0;
    int64_t bytes = 0;
    Ranges ranges; // its host range, then its kernels (sorted by (start, -end) later)
    Ranges real;   // transfer ranges, one per range
    int step = -1; // the step that holds it
};

struct WorkerData {
    DistributedWorker out;
    std::vector<CommNode> nodes; // sorted by (start, -end)
    bool hasCommunication = false;
};

std::optional<int64_t> intStat(const Profile& p, EventIndex e, std::string_view key) {
    const std::optional<StatValue> s = p.findStat(e, key);
    if (!s || !s->isNumber()) return std::nullopt;
    return s->asInt();
}

std::string_view textStat(const Profile& p, EventIndex e, std::string_view key) {
    const std::optional<StatValue> s = p.findStat(e, key);
    if (!s || !s->isText()) return {};
    return p.str(s->asString());
}

WorkerData analyzeWorker(const Profile& p, uint32_t host) {
    WorkerData w;
    // Steps (extended to their device work) and role ranges as the plugin reads the trace.
    const TorchTrace trace = buildTorchTrace(p, host);

    // Communication nodes (event_parser.py _parse_node): events of the host named exactly as a
    // collective, keyed by external id (a later one with the same id replaces the earlier).
    std::map<int64_t, CommNode> byExternal;
    for (std::string_view name : kCommunicationOps) {
        for (EventIndex e : p.eventsByName(name)) {
            const Track& t = p.tracks()[p.trackOf(e)];
            if (t.derived || p.planes()[t.plane].host != host) continue;
            (name.starts_with("nccl:") ? w.out.nccl : w.out.gloo) = true;
            std::optional<int64_t> id = intStat(p, e, "external id");
            if (!id) id = intStat(p, e, "External id");
            CommNode node;
            node.name = p.nameId(e);
            node.start = p.start(e);
            node.end = p.end(e);
            node.ranges.push_back({node.start, node.end});
            std::string_view dimsText = textStat(p, e, "Input Dims");
            if (dimsText.empty()) dimsText = textStat(p, e, "Input dims");
            const auto dims = parseDims(dimsText);
            const auto types = parseStrings(textStat(p, e, "Input type"));
            for (size_t i = 0; i < dims.size(); ++i) {
                // A corrupt shape cannot overflow: such an input counts 0 bytes.
                int64_t bytes = i < types.size() ? elementBytes(types[i]) : 0;
                for (int64_t d : dims[i])
                    if (__builtin_mul_overflow(bytes, d, &bytes)) bytes = 0;
                if (__builtin_add_overflow(node.bytes, bytes, &node.bytes)) node.bytes = 0;
            }
            byExternal[id.value_or(kTorchNoExternalId)] = std::move(node);
        }
    }
    // NCCL: the kernels with a node's external id are part of it (_update_communication_node).
    if (w.out.nccl)
        for (const TorchDeviceNode& d : trace.devices) {
            if (d.type != TorchEventType::Kernel || d.externalId == kTorchNoExternalId) continue;
            auto it = byExternal.find(d.externalId);
            if (it != byExternal.end()) it->second.ranges.push_back({d.start, d.end});
        }

    const Ranges& kernel = trace.roleRanges[size_t(TorchRole::Kernel)];
    const Ranges& communication = trace.roleRanges[size_t(TorchRole::Communication)];
    const Ranges& cpuOp = trace.roleRanges[size_t(TorchRole::CpuOp)];
    w.hasCommunication = !communication.empty();

    // Per step (overall_parser.py aggregate).
    const Ranges& compute = kernel.empty() ? cpuOp : kernel;
    const Ranges overlap = intersectRanges(compute, communication);
    for (size_t i = 0; i < trace.steps.size(); ++i) {
        const TorchRange& range = trace.steps[i];
        DistributedStep s;
        s.name = trace.stepNames[i];
        s.beginPs = range.start;
        s.endPs = range.end;
        s.overlapPs = lengthWithin(range, overlap);
        s.computationPs = lengthWithin(range, compute);
        s.communicationPs = lengthWithin(range, communication);
        s.otherPs = (range.end - range.start) + s.overlapPs - s.computationPs - s.communicationPs;
        w.out.steps.push_back(std::move(s));
    }

    // Nodes in time order, each in the step that holds it (communication.py); none when both
    // libraries are used (the plugin clears them).
    if (!(w.out.nccl && w.out.gloo)) {
        for (auto& [id, node] : byExternal) w.nodes.push_back(std::move(node));
        std::sort(w.nodes.begin(), w.nodes.end(), [](const CommNode& a, const CommNode& b) {
            return a.start != b.start ? a.start < b.start : a.end > b.end;
        });
        for (CommNode& node : w.nodes) {
            std::sort(node.ranges.begin(), node.ranges.end(),
                      [](const TorchRange& a, const TorchRange& b) {
                          return a.start != b.start ? a.start < b.start : a.end > b.end;
                      });
            for (size_t s = 0; s < w.out.steps.size(); ++s)
                if (node.start >= w.out.steps[s].beginPs && node.end <= w.out.steps[s].endPs) {
                    node.step = int(s);
                    break;
                }
        }
    }
    w.out.nodes = w.nodes.size();
    return w;
}

} // namespace

DistributedView analyzeDistributed(const std::vector<DistributedInput>& inputs) {
    DistributedView view;
    std::vector<WorkerData> data;
    for (const DistributedInput& in : inputs)
        data.push_back(in.profile ? analyzeWorker(*in.profile, in.host) : WorkerData{});

    // Transfer ranges across workers (loader.py _process_distributed_profiles).
    for (size_t w = 0; w < data.size() && view.problem.empty(); ++w) {
        if (data[w].out.nccl && data[w].out.gloo)
            view.problem = "worker " + std::to_string(w) +
                           " has both NCCL and Gloo collectives (the PyTorch plugin then shows no "
                           "distributed view)";
        else if (!data[w].hasCommunication || data[w].nodes.empty())
            view.problem = "worker " + std::to_string(w) +
                           " has no communication op (nccl:… or "
                           "gloo:… host op)";
        else if (data[w].nodes.size() != data[0].nodes.size())
            view.problem = "the workers have different numbers of communication ops (" +
                           std::to_string(data[0].nodes.size()) + " and " +
                           std::to_string(data[w].nodes.size()) + ")";
    }
    if (data.empty()) view.problem = "no workers";
    for (size_t i = 0; view.problem.empty() && i < data[0].nodes.size(); ++i) {
        const size_t ranges = data[0].nodes[i].ranges.size();
        for (size_t w = 0; w < data.size(); ++w)
            if (data[w].nodes[i].ranges.size() != ranges) {
                view.problem = "communication op " + std::to_string(i + 1) +
                               " has different numbers of kernels on the workers";
                break;
            }
    }
    view.transferKnown = view.problem.empty();
    if (view.transferKnown)
        for (size_t i = 0; i < data[0].nodes.size(); ++i)
            for (size_t j = 0; j < data[0].nodes[i].ranges.size(); ++j) {
                int64_t shortest = std::numeric_limits<int64_t>::max();
                for (const WorkerData& d : data) {
                    const TorchRange& r = d.nodes[i].ranges[j];
                    shortest = std::min(shortest, r.end - r.start);
                }
                for (WorkerData& d : data) {
                    const TorchRange& r = d.nodes[i].ranges[j];
                    d.nodes[i].real.push_back({r.end - shortest, r.end});
                }
            }

    // Per step and per op (communication.py analyze_communication_nodes).
    for (WorkerData& d : data) {
        const Profile* profile = inputs[size_t(&d - data.data())].profile;
        if (!profile) {
            view.workers.push_back(std::move(d.out));
            continue;
        }
        std::vector<Ranges> stepRanges(d.out.steps.size()), stepReal(d.out.steps.size());
        std::vector<bool> stepHasNode(d.out.steps.size(), false);
        std::map<StringId, size_t> opIndex;
        std::vector<Ranges> opRanges, opReal;
        for (const CommNode& node : d.nodes) {
            if (node.step >= 0) {
                const size_t s = size_t(node.step);
                stepHasNode[s] = true;
                stepRanges[s].insert(stepRanges[s].end(), node.ranges.begin(), node.ranges.end());
                stepReal[s].insert(stepReal[s].end(), node.real.begin(), node.real.end());
            }
            auto [it, added] = opIndex.emplace(node.name, d.out.ops.size());
            if (added) {
                DistributedOp op;
                op.name = std::string(profile->str(node.name));
                d.out.ops.push_back(std::move(op));
                opRanges.emplace_back();
                opReal.emplace_back();
            }
            DistributedOp& op = d.out.ops[it->second];
            ++op.calls;
            op.bytes += node.bytes;
            opRanges[it->second].insert(opRanges[it->second].end(), node.ranges.begin(),
                                        node.ranges.end());
            opReal[it->second].insert(opReal[it->second].end(), node.real.begin(), node.real.end());
        }
        for (size_t s = 0; s < d.out.steps.size(); ++s) {
            if (!stepHasNode[s]) continue;
            d.out.steps[s].commLatencyPs = rangesLength(mergeRanges(stepRanges[s]));
            if (view.transferKnown)
                d.out.steps[s].commTransferPs = rangesLength(mergeRanges(stepReal[s]));
        }
        for (size_t o = 0; o < d.out.ops.size(); ++o) {
            d.out.ops[o].latencyPs = rangesLength(mergeRanges(opRanges[o]));
            if (view.transferKnown) d.out.ops[o].transferPs = rangesLength(mergeRanges(opReal[o]));
        }
        view.workers.push_back(std::move(d.out));
    }
    return view;
}

namespace {
constexpr double kPsPerUs = 1e6;
Table::Cell us(int64_t ps) {
    return double(ps) / kPsPerUs;
}
Table::Cell usOrMissing(int64_t ps) {
    return ps < 0 ? Table::missing() : us(ps);
}
} // namespace

Table distributedStepTable(const DistributedView& view, const std::vector<std::string>& names,
                           std::string_view only) {
    Table t;
    t.addColumn("Step", Table::Type::Text);
    t.addColumn("Worker", Table::Type::Text);
    t.addColumn("Computation (µs)", Table::Type::Double, ColumnFormat::Plain,
                "Kernel time not overlapped by communication");
    t.addColumn("Overlapping (µs)", Table::Type::Double, ColumnFormat::Plain,
                "Kernel time that overlaps communication");
    t.addColumn("Communication (µs)", Table::Type::Double, ColumnFormat::Plain,
                "Communication time not overlapped by kernels");
    t.addColumn("Other (µs)", Table::Type::Double, ColumnFormat::Plain,
                "Step time with neither kernels nor communication");
    t.addColumn("Data transfer (µs)", Table::Type::Double, ColumnFormat::Plain,
                "Communication time all workers spend (the shortest duration of each collective "
                "among the workers)");
    t.addColumn("Synchronizing (µs)", Table::Type::Double, ColumnFormat::Plain,
                "Communication time spent waiting for the other workers (latency - data transfer)");
    for (size_t w = 0; w < view.workers.size(); ++w) {
        const DistributedWorker& worker = view.workers[w];
        const std::string& name = w < names.size() ? names[w] : std::to_string(w);
        double sums[6] = {};
        size_t withComm = 0;
        for (const DistributedStep& s : worker.steps) {
            const bool known = s.commTransferPs >= 0;
            if (only.empty() || s.name == only)
                t.addRow({s.name, name, us(s.computationOnlyPs()), us(s.overlapPs),
                          us(s.communicationOnlyPs()), us(s.otherPs), usOrMissing(s.commTransferPs),
                          known ? us(s.commLatencyPs - s.commTransferPs) : Table::missing()});
            sums[0] += double(s.computationOnlyPs());
            sums[1] += double(s.overlapPs);
            sums[2] += double(s.communicationOnlyPs());
            sums[3] += double(s.otherPs);
            if (known) {
                sums[4] += double(s.commTransferPs);
                sums[5] += double(s.commLatencyPs - s.commTransferPs);
                ++withComm;
            }
        }
        if (worker.steps.empty()) continue;
        const double steps = double(worker.steps.size());
        auto mean = [](double sum, double count) { return Table::Cell(sum / count / kPsPerUs); };
        t.addRow({std::string("all"), name, mean(sums[0], steps), mean(sums[1], steps),
                  mean(sums[2], steps), mean(sums[3], steps),
                  withComm ? mean(sums[4], double(withComm)) : Table::missing(),
                  withComm ? mean(sums[5], double(withComm)) : Table::missing()});
    }
    return t;
}

Table distributedOpTable(const DistributedView& view, const std::vector<std::string>& names) {
    Table t;
    t.addColumn("Worker", Table::Type::Text);
    t.addColumn("Name", Table::Type::Text);
    t.addColumn("Calls", Table::Type::Int);
    t.addColumn("Total size (bytes)", Table::Type::Int);
    t.addColumn("Average size (bytes)", Table::Type::Double);
    t.addColumn("Total latency (µs)", Table::Type::Double);
    t.addColumn("Average latency (µs)", Table::Type::Double);
    t.addColumn("Data transfer time (µs)", Table::Type::Double);
    t.addColumn("Average data transfer time (µs)", Table::Type::Double);
    for (size_t w = 0; w < view.workers.size(); ++w)
        for (const DistributedOp& op : view.workers[w].ops) {
            const double calls = double(op.calls);
            t.addRow({w < names.size() ? names[w] : std::to_string(w), op.name, op.calls, op.bytes,
                      double(op.bytes) / calls, us(op.latencyPs),
                      double(op.latencyPs) / calls / kPsPerUs, usOrMissing(op.transferPs),
                      op.transferPs < 0 ? Table::missing()
                                        : Table::Cell(double(op.transferPs) / calls / kPsPerUs)});
        }
    return t;
}

} // namespace stepscope
