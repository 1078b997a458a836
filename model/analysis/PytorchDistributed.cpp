#include "model/analysis/PytorchDistributed.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace stepscope {

namespace {

// torch_tb_profiler's event types (trace.py EventTypeMap), by the lower-cased "cat".
enum class Type : uint8_t {
    None,
    Operator,
    Python,
    UserAnnotation,
    Runtime,
    Kernel,
    Memcpy,
    Memset
};

Type typeOfCategory(std::string_view cat) {
    std::string c(cat);
    std::transform(c.begin(), c.end(), c.begin(),
                   [](unsigned char ch) { return char(std::tolower(ch)); });
    if (c == "cpu_op" || c == "operator") return Type::Operator;
    if (c == "python") return Type::Python;
    if (c == "user_annotation" || c == "gpu_user_annotation") return Type::UserAnnotation;
    if (c == "runtime" || c == "cuda_runtime" || c == "mtia_runtime" || c == "glow_runtime" ||
        c == "xpu_runtime" || c == "privateuse1_runtime")
        return Type::Runtime;
    if (c == "kernel") return Type::Kernel;
    if (c == "memcpy" || c == "gpu_memcpy") return Type::Memcpy;
    if (c == "memset" || c == "gpu_memset") return Type::Memset;
    return Type::None;
}

bool isHostOp(Type t) {
    return t == Type::Operator || t == Type::Python || t == Type::UserAnnotation;
}
bool isDevice(Type t) {
    return t == Type::Kernel || t == Type::Memcpy || t == Type::Memset;
}

enum class Lib : uint8_t { None, Nccl, Gloo };

// trace.py NcclOpNameSet and GlooOpNameSet.
Lib commLibOf(std::string_view name) {
    static constexpr std::string_view kOps[] = {"broadcast", "reduce", "all_reduce", "all_gather",
                                                "reduce_scatter"};
    Lib lib = Lib::None;
    if (name.starts_with("nccl:"))
        lib = Lib::Nccl;
    else if (name.starts_with("gloo:"))
        lib = Lib::Gloo;
    else
        return Lib::None;
    const std::string_view op = name.substr(5);
    for (std::string_view k : kOps)
        if (op == k) return lib;
    return Lib::None;
}

using Range = std::pair<int64_t, int64_t>;
using Ranges = std::vector<Range>;

// range_utils.py merge_ranges: sorted by start, touching ranges joined.
Ranges merged(Ranges v) {
    std::sort(v.begin(), v.end());
    Ranges out;
    for (const Range& r : v) {
        if (!out.empty() && r.first <= out.back().second)
            out.back().second = std::max(out.back().second, r.second);
        else
            out.push_back(r);
    }
    return out;
}

// The common part of two merged lists.
Ranges intersect(const Ranges& a, const Ranges& b) {
    Ranges out;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const int64_t lo = std::max(a[i].first, b[j].first),
                      hi = std::min(a[i].second, b[j].second);
        if (hi > lo) out.push_back({lo, hi});
        if (a[i].second < b[j].second)
            ++i;
        else
            ++j;
    }
    return out;
}

int64_t length(const Ranges& v) {
    int64_t s = 0;
    for (const Range& r : v) s += r.second - r.first;
    return s;
}

int64_t lengthWithin(const Range& step, const Ranges& v) {
    return length(intersect({step}, v));
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
    // Event type per metadata, from its "category" stat.
    const StringId catKey = p.strings().find("category");
    std::vector<Type> typeOf(p.metadata().size(), Type::None);
    if (catKey != StringPool::kNotFound)
        for (size_t m = 0; m < typeOf.size(); ++m)
            for (const StatValue& s : p.metadataStats(uint32_t(m)))
                if (s.key == catKey && s.isText()) typeOf[m] = typeOfCategory(p.str(s.asString()));

    struct Ev {
        EventIndex e;
        Type type;
    };
    std::vector<Ev> events;
    for (const Plane& plane : p.planes()) {
        if (plane.host != host) continue;
        for (const Track& t : p.tracksOf(plane)) {
            if (t.derived) continue;
            for (EventIndex e = t.firstEvent; e < t.firstEvent + t.eventCount; ++e) {
                const Type type = typeOf[p.metadataOf(e)];
                if (type != Type::None) events.push_back({e, type});
            }
        }
    }
    auto externalId = [&](EventIndex e) {
        std::optional<int64_t> id = intStat(p, e, "external id");
        return id ? id : intStat(p, e, "External id");
    };

    // Communication nodes (event_parser.py _parse_node), keyed by external id.
    std::map<int64_t, CommNode> byExternal;
    for (const Ev& ev : events) {
        if (!isHostOp(ev.type)) continue;
        const Lib lib = commLibOf(p.name(ev.e));
        if (lib == Lib::None) continue;
        (lib == Lib::Nccl ? w.out.nccl : w.out.gloo) = true;
        const std::optional<int64_t> id = externalId(ev.e);
        CommNode node;
        node.name = p.nameId(ev.e);
        node.start = p.start(ev.e);
        node.end = p.end(ev.e);
        node.ranges.push_back({node.start, node.end});
        const auto dims =
            parseDims(textStat(p, ev.e, "Input Dims").empty() ? textStat(p, ev.e, "Input dims")
                                                              : textStat(p, ev.e, "Input Dims"));
        const auto types = parseStrings(textStat(p, ev.e, "Input type"));
        for (size_t i = 0; i < dims.size(); ++i) {
            int64_t elements = 1;
            for (int64_t d : dims[i]) elements *= d;
            node.bytes += elements * (i < types.size() ? elementBytes(types[i]) : 0);
        }
        byExternal[id.value_or(-1)] = std::move(node);
    }
    const bool bothLibs = w.out.nccl && w.out.gloo;

    // Roles (event_parser.py _parse_step), steps and the host extent.
    Ranges kernel, communication, cpuOp;
    std::vector<std::pair<Range, std::string>> steps;
    int64_t cpuMin = std::numeric_limits<int64_t>::max(),
            cpuMax = std::numeric_limits<int64_t>::min();
    struct Runtime {
        int64_t start, end;
        uint64_t correlation;
    };
    std::vector<Runtime> runtimes;
    std::unordered_map<uint64_t, std::vector<EventIndex>> deviceOf; // correlation -> device events
    std::vector<EventIndex> device;
    for (const Ev& ev : events) {
        const Range r{p.start(ev.e), p.end(ev.e)};
        const std::string_view name = p.name(ev.e);
        const bool step = (ev.type == Type::Operator || ev.type == Type::UserAnnotation) &&
                          name.starts_with("ProfilerStep#");
        if (ev.type == Type::Kernel) {
            const std::optional<int64_t> id = externalId(ev.e);
            (id && byExternal.count(*id) ? communication : kernel).push_back(r);
            if (w.out.nccl && id) {
                auto it = byExternal.find(*id);
                if (it != byExternal.end()) it->second.ranges.push_back(r);
            }
        } else if (ev.type == Type::Runtime) {
            if (const uint64_t* c = p.correlationIds().find(ev.e))
                runtimes.push_back({r.first, r.second, *c});
        } else if (step) {
            steps.push_back({r, std::string(name.substr(13))});
        } else if ((ev.type == Type::Operator || ev.type == Type::UserAnnotation) &&
                   ((name.starts_with("enumerate(DataLoader)#") && name.ends_with(".__next__")) ||
                    name.starts_with("enumerate(DataPipe)#"))) {
            // DataLoader: a role of its own, neither computation nor communication.
        } else if (isHostOp(ev.type)) {
            (commLibOf(name) != Lib::None ? communication : cpuOp).push_back(r);
        }
        if (isDevice(ev.type)) {
            device.push_back(ev.e);
            if (const uint64_t* c = p.correlationIds().find(ev.e)) deviceOf[*c].push_back(ev.e);
        }
        if (ev.type == Type::Operator || ev.type == Type::Python || step) {
            cpuMin = std::min(cpuMin, r.first);
            cpuMax = std::max(cpuMax, r.second);
        }
    }
    std::stable_sort(steps.begin(), steps.end());
    if (steps.empty()) {
        if (cpuMin > cpuMax) return w; // no host op at all: nothing to break down
        steps.push_back({{cpuMin, cpuMax}, "0"});
    }
    kernel = merged(std::move(kernel));
    communication = merged(std::move(communication));
    cpuOp = merged(std::move(cpuOp));
    w.hasCommunication = !communication.empty();

    // Device extent of each step (event_parser.py _find_device_steps, _update_steps_duration).
    std::sort(runtimes.begin(), runtimes.end(),
              [](const Runtime& a, const Runtime& b) { return a.start < b.start; });
    const int64_t kMax = std::numeric_limits<int64_t>::max(),
                  kMin = std::numeric_limits<int64_t>::min();
    const size_t n = steps.size();
    std::vector<Range> stepDevice(n, {kMax, kMin});
    std::vector<int64_t> matchedCount(n, 0);
    std::unordered_set<EventIndex> matched;
    {
        size_t s = 0, i = 0;
        int64_t lo = kMax, hi = kMin;
        while (s < n && i < runtimes.size()) {
            const Runtime& rt = runtimes[i];
            if (rt.start < steps[s].first.first) {
                ++i;
            } else if (rt.end <= steps[s].first.second) {
                auto it = deviceOf.find(rt.correlation);
                if (it != deviceOf.end())
                    for (EventIndex d : it->second) {
                        lo = std::min(lo, p.start(d));
                        hi = std::max(hi, p.end(d));
                        matched.insert(d);
                        ++matchedCount[s];
                    }
                ++i;
            } else if (rt.start < steps[s].first.second) {
                ++i;
            } else {
                stepDevice[s++] = {lo, hi};
                lo = kMax;
                hi = kMin;
            }
        }
        for (; s < n; ++s) {
            stepDevice[s] = {lo, hi};
            lo = kMax;
            hi = kMin;
        }
    }
    if (!matched.empty()) {
        int64_t prevEnd = steps[0].first.first;
        if (stepDevice[0].first != kMax)
            for (EventIndex d : device)
                if (!matched.count(d) && p.end(d) < stepDevice[0].first)
                    prevEnd = std::max(prevEnd, p.end(d));
        for (size_t s = 0; s < n; ++s) {
            const int64_t begin = std::max(prevEnd, steps[s].first.first);
            int64_t end = steps[s].first.second;
            if (stepDevice[s].first == kMax)
                end = std::max(end, begin);
            else
                end = std::max(std::max(end, stepDevice[s].second), begin);
            steps[s].first = {begin, end};
            prevEnd = end;
        }
        if (n > 1) {
            size_t keep = n;
            int64_t last = int64_t(n) - 1;
            while (last >= 0 && matchedCount[size_t(last)] == 0) --last;
            if (last >= 0) {
                keep = size_t(last) + 1;
                if (last > 0 && double(matchedCount[size_t(last) - 1]) * 0.8 >
                                    double(matchedCount[size_t(last)]))
                    keep = size_t(last);
            }
            steps.resize(keep);
        }
    }

    // Per step (overall_parser.py aggregate).
    const Ranges& compute = kernel.empty() ? cpuOp : kernel;
    const Ranges overlap = intersect(compute, communication);
    for (const auto& [range, name] : steps) {
        DistributedStep s;
        s.name = name;
        s.beginPs = range.first;
        s.endPs = range.second;
        s.overlapPs = lengthWithin(range, overlap);
        s.computationPs = lengthWithin(range, compute);
        s.communicationPs = lengthWithin(range, communication);
        s.otherPs =
            (range.second - range.first) + s.overlapPs - s.computationPs - s.communicationPs;
        w.out.steps.push_back(std::move(s));
    }

    // Nodes in time order, each in the step that holds it (communication.py).
    if (!bothLibs) {
        for (auto& [id, node] : byExternal) w.nodes.push_back(std::move(node));
        std::sort(w.nodes.begin(), w.nodes.end(), [](const CommNode& a, const CommNode& b) {
            return a.start != b.start ? a.start < b.start : a.end > b.end;
        });
        for (CommNode& node : w.nodes) {
            std::sort(node.ranges.begin(), node.ranges.end(), [](const Range& a, const Range& b) {
                return a.first != b.first ? a.first < b.first : a.second > b.second;
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
                    const Range& r = d.nodes[i].ranges[j];
                    shortest = std::min(shortest, r.second - r.first);
                }
                for (WorkerData& d : data) {
                    const Range& r = d.nodes[i].ranges[j];
                    d.nodes[i].real.push_back({r.second - shortest, r.second});
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
            d.out.steps[s].commLatencyPs = length(merged(stepRanges[s]));
            if (view.transferKnown) d.out.steps[s].commTransferPs = length(merged(stepReal[s]));
        }
        for (size_t o = 0; o < d.out.ops.size(); ++o) {
            d.out.ops[o].latencyPs = length(merged(opRanges[o]));
            if (view.transferKnown) d.out.ops[o].transferPs = length(merged(opReal[o]));
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
