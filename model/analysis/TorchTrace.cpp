#include "model/analysis/TorchTrace.h"

#include "model/analysis/KernelFacts.h"
#include "model/pytorch/ExternalIdJoin.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace stepscope {

namespace {

constexpr int64_t kMinTime = std::numeric_limits<int64_t>::min();
constexpr int64_t kMaxTime = std::numeric_limits<int64_t>::max();

// tb_plugin/torch_tb_profiler/profiler/trace.py: NcclOpNameSet, GlooOpNameSet.
bool isCommunicationOp(std::string_view name) {
    static constexpr std::string_view kNames[] = {
        "nccl:broadcast",      "nccl:reduce",        "nccl:all_reduce", "nccl:all_gather",
        "nccl:reduce_scatter", "gloo:broadcast",     "gloo:reduce",     "gloo:all_reduce",
        "gloo:all_gather",     "gloo:reduce_scatter"};
    return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

bool isDataLoader(std::string_view name) {
    return (name.starts_with("enumerate(DataLoader)#") && name.ends_with(".__next__")) ||
           name.starts_with("enumerate(DataPipe)#");
}

struct Keys {
    StringId category, externalId, externalIdLower, inputDims, inputDimsLower, moduleId, device,
        blocksPerSm, occupancy, grid, block, registers, sharedMemory;
    explicit Keys(const StringPool& s)
        : category(s.find("category"))
        , externalId(s.find("External id"))
        , externalIdLower(s.find("external id"))
        , inputDims(s.find("Input Dims"))
        , inputDimsLower(s.find("Input dims"))
        , moduleId(s.find("Python module id"))
        , device(s.find("device"))
        , blocksPerSm(s.find("blocks per SM"))
        , occupancy(s.find("est. achieved occupancy %"))
        , grid(s.find("grid"))
        , block(s.find("block"))
        , registers(s.find("registers per thread"))
        , sharedMemory(s.find("shared memory")) {}
};

struct EventArgs {
    int64_t externalId = kTorchNoExternalId;
    StringId inputDims = 0;
    bool module = false;
    int64_t device = -1;
    double blocksPerSm = std::numeric_limits<double>::quiet_NaN();
    double occupancy = std::numeric_limits<double>::quiet_NaN();
    StringId grid = 0, block = 0;
    int64_t registers = -1, sharedMemory = -1;
};

EventArgs readArgs(const Profile& p, const Keys& k, EventIndex e) {
    EventArgs a;
    bool haveUpper = false, haveDims = false;
    for (const StatValue& s : p.eventStats(e)) {
        if (s.key == k.externalId && s.isNumber()) {
            a.externalId = s.asInt();
            haveUpper = true;
        } else if (s.key == k.externalIdLower && s.isNumber() && !haveUpper) {
            a.externalId = s.asInt();
        } else if (s.key == k.inputDims && s.isText()) {
            a.inputDims = s.asString();
            haveDims = true;
        } else if (s.key == k.inputDimsLower && s.isText() && !haveDims) {
            a.inputDims = s.asString();
        } else if (s.key == k.moduleId) {
            a.module = true;
        } else if (s.key == k.device && s.isNumber()) {
            a.device = s.asInt();
        } else if (s.key == k.blocksPerSm && s.isNumber()) {
            a.blocksPerSm = s.asDouble();
        } else if (s.key == k.occupancy && s.isNumber()) {
            a.occupancy = s.asDouble();
        } else if (s.key == k.grid && s.isText()) {
            a.grid = s.asString();
        } else if (s.key == k.block && s.isText()) {
            a.block = s.asString();
        } else if (s.key == k.registers && s.isNumber()) {
            a.registers = s.asInt();
        } else if (s.key == k.sharedMemory && s.isNumber()) {
            a.sharedMemory = s.asInt();
        }
    }
    return a;
}

TorchEventType typeOf(const Profile& p, const Keys& k, EventIndex e) {
    if (k.category == StringPool::kNotFound) return TorchEventType::Other;
    for (const StatValue& s : p.metadataStats(p.metadataOf(e)))
        if (s.key == k.category && s.isText()) return torchEventTypeOfCategory(p.str(s.asString()));
    return TorchEventType::Other;
}

// One host event headed for an operator tree, with the thread it belongs to.
struct Pending {
    uint32_t node;
    uint32_t track;
};

class Builder {
public:
    Builder(const Profile& p, uint32_t host, TorchTrace& t)
        : p_(p)
        , hlo_(p)
        , facts_(p, hlo_)
        , keys_(p.strings())
        , t_(t) {
        t_.host = host;
    }

    void run();

private:
    void readHost(uint32_t track);
    void readDevice(uint32_t track);
    uint32_t addNode(TorchNodeKind kind, TorchEventType type, EventIndex e, const EventArgs& a,
                     uint32_t track);
    uint32_t buildTree(uint32_t track, std::vector<uint32_t>& ops,
                       const std::vector<uint32_t>& zeroRuntimes, bool withStale);
    void removeDuplicates(uint32_t node);
    void fillStats(uint32_t node);
    void fillRuntime(uint32_t runtime, uint32_t node);
    void collect(uint32_t node);
    void parseSteps();
    void updateDeviceSteps();

    const Profile& p_;
    const HloCatalog hlo_;
    KernelFacts facts_;
    Keys keys_;
    TorchTrace& t_;
    std::vector<uint32_t> trackOrder_;                        // threads in the order first met
    std::unordered_map<uint32_t, std::vector<uint32_t>> ops_; // track -> tree nodes
    std::unordered_map<uint32_t, std::vector<uint32_t>> zeroRuntimes_; // External id 0
    std::unordered_map<uint64_t, uint32_t> runtimeOfCorrelation_;
    std::unordered_map<uint64_t, std::vector<uint32_t>> devicesOfCorrelation_;
    std::vector<uint32_t> uncorrelatedDevices_;
    std::vector<int64_t> communicationExternalIds_;
    // Host events for the step breakdown: (type, name, start, end, is a communication op).
    struct HostSpan {
        TorchEventType type;
        StringId name;
        int64_t start, end;
    };
    std::vector<HostSpan> hostSpans_;
    std::vector<std::pair<TorchRange, std::string>> rawSteps_;
};

uint32_t Builder::addNode(TorchNodeKind kind, TorchEventType type, EventIndex e, const EventArgs& a,
                          uint32_t track) {
    TorchNode n;
    n.kind = kind;
    n.type = type;
    n.event = e;
    n.name = p_.nameId(e);
    n.start = p_.start(e);
    n.end = p_.end(e);
    n.track = track;
    // node.py ModuleNode.create: modules carry no External id.
    n.externalId = kind == TorchNodeKind::Module ? kTorchNoExternalId : a.externalId;
    n.inputDims = a.inputDims;
    n.tensorCoreEligible = opIsTensorCoreEligible(p_.str(n.name));
    const std::string_view name = p_.str(n.name);
    n.isOperator = kind == TorchNodeKind::Operator && type == TorchEventType::Operator &&
                   name != "DataParallel.forward" && name != "DistributedDataParallel.forward" &&
                   !name.starts_with("Optimizer.");
    t_.nodes.push_back(std::move(n));
    return uint32_t(t_.nodes.size() - 1);
}

void Builder::readHost(uint32_t track) {
    const Track& tr = p_.tracks()[track];
    for (EventIndex e = tr.firstEvent; e < tr.firstEvent + tr.eventCount; ++e) {
        TorchEventType type = typeOf(p_, keys_, e);
        const std::string_view name = p_.name(e);
        if ((type == TorchEventType::Operator || type == TorchEventType::UserAnnotation) &&
            name.starts_with("ProfilerStep#"))
            type = TorchEventType::ProfilerStep;
        if (type == TorchEventType::Other) continue;
        t_.hasHostEvents = true;
        const EventArgs a = readArgs(p_, keys_, e);
        if (type == TorchEventType::PythonFunction && a.module) type = TorchEventType::Module;
        hostSpans_.push_back({type, p_.nameId(e), p_.start(e), p_.end(e)});
        if (type == TorchEventType::ProfilerStep) {
            const size_t hash = name.find('#');
            rawSteps_.push_back({{p_.start(e), p_.end(e)}, std::string(name.substr(hash + 1))});
        }
        if (type == TorchEventType::Runtime) {
            TorchRuntime r;
            r.start = p_.start(e);
            r.end = p_.end(e);
            r.track = track;
            r.externalId = a.externalId;
            const uint32_t index = uint32_t(t_.runtimes.size());
            if (const std::optional<uint64_t> c = p_.correlationIds().find(e)) {
                auto pending = devicesOfCorrelation_.find(*c);
                if (pending != devicesOfCorrelation_.end()) {
                    r.devices = std::move(pending->second);
                    devicesOfCorrelation_.erase(pending);
                }
                runtimeOfCorrelation_[*c] = index;
            }
            t_.runtimes.push_back(std::move(r));
            if (a.externalId == 0) zeroRuntimes_[track].push_back(index);
            continue;
        }
        if (type == TorchEventType::PythonFunction) continue;
        uint32_t node = kTorchNone;
        if (type == TorchEventType::ProfilerStep) {
            node = addNode(TorchNodeKind::ProfilerStep, type, e, a, track);
        } else if (type == TorchEventType::Module) {
            node = addNode(TorchNodeKind::Module, type, e, a, track);
        } else if (type == TorchEventType::Operator || type == TorchEventType::Python ||
                   type == TorchEventType::UserAnnotation) {
            // node.py create_operator_node.
            if (isDataLoader(name))
                node = addNode(TorchNodeKind::DataLoader, type, e, a, track);
            else if (name.starts_with("Optimizer.step"))
                node = addNode(TorchNodeKind::Optimizer, type, e, a, track);
            else if (type != TorchEventType::UserAnnotation || isCommunicationOp(name))
                node = addNode(TorchNodeKind::Operator, type, e, a, track);
        }
        if (isCommunicationOp(name) && a.externalId != kTorchNoExternalId)
            communicationExternalIds_.push_back(a.externalId);
        if (node != kTorchNone) {
            auto [it, inserted] = ops_.try_emplace(track);
            if (inserted) trackOrder_.push_back(track);
            it->second.push_back(node);
        }
    }
}

void Builder::readDevice(uint32_t track) {
    const Track& tr = p_.tracks()[track];
    for (EventIndex e = tr.firstEvent; e < tr.firstEvent + tr.eventCount; ++e) {
        const TorchEventType type = typeOf(p_, keys_, e);
        if (type != TorchEventType::Kernel && type != TorchEventType::Memcpy &&
            type != TorchEventType::Memset)
            continue;
        const EventArgs a = readArgs(p_, keys_, e);
        TorchDeviceNode d;
        d.event = e;
        d.start = p_.start(e);
        d.end = p_.end(e);
        d.name = p_.nameId(e);
        d.type = type;
        d.deviceId = a.device;
        d.externalId = a.externalId;
        if (type == TorchEventType::Kernel) d.tensorCore = facts_.of(e).tensorCore;
        if (type == TorchEventType::Kernel) {
            d.blocksPerSm = a.blocksPerSm;
            d.occupancy = a.occupancy;
            if (a.grid) d.grid = std::string(p_.str(a.grid));
            if (a.block) d.block = std::string(p_.str(a.block));
            d.registers = a.registers;
            d.sharedMemory = a.sharedMemory;
        }
        const uint32_t index = uint32_t(t_.devices.size());
        t_.devices.push_back(std::move(d));
        if (const std::optional<uint64_t> c = p_.correlationIds().find(e)) {
            auto rt = runtimeOfCorrelation_.find(*c);
            if (rt != runtimeOfCorrelation_.end())
                t_.runtimes[rt->second].devices.push_back(index);
            else
                devicesOfCorrelation_[*c].push_back(index);
        } else {
            uncorrelatedDevices_.push_back(index);
        }
    }
}

// op_tree.py _build_tree_internal: containment by time, a root spanning all time.
uint32_t Builder::buildTree(uint32_t track, std::vector<uint32_t>& ops,
                            const std::vector<uint32_t>& zeroRuntimes, bool withStale) {
    std::stable_sort(ops.begin(), ops.end(), [&](uint32_t a, uint32_t b) {
        const TorchNode& x = t_.nodes[a];
        const TorchNode& y = t_.nodes[b];
        return x.start != y.start ? x.start < y.start : x.end > y.end;
    });
    TorchNode root;
    root.kind = TorchNodeKind::Root;
    root.type = TorchEventType::Python;
    root.start = kMinTime;
    root.end = kMaxTime;
    root.track = track;
    root.runtimes = zeroRuntimes;
    if (withStale) {
        // The plugin's "dummy" runtime: kernels that no runtime launched.
        TorchRuntime dummy;
        dummy.timed = false;
        dummy.track = track;
        for (uint32_t d : uncorrelatedDevices_)
            if (t_.devices[d].type == TorchEventType::Kernel) dummy.devices.push_back(d);
        for (const auto& [c, devices] : devicesOfCorrelation_)
            for (uint32_t d : devices)
                if (t_.devices[d].type == TorchEventType::Kernel) dummy.devices.push_back(d);
        std::sort(dummy.devices.begin(), dummy.devices.end());
        if (!dummy.devices.empty()) {
            t_.runtimes.push_back(std::move(dummy));
            root.runtimes.push_back(uint32_t(t_.runtimes.size() - 1));
        }
    }
    t_.nodes.push_back(std::move(root));
    const uint32_t rootIndex = uint32_t(t_.nodes.size() - 1);
    std::vector<uint32_t> stack{rootIndex};
    for (uint32_t n : ops) {
        while (true) {
            const uint32_t tail = stack.back();
            if (t_.nodes[n].start < t_.nodes[tail].end) {
                if (t_.nodes[n].end <= t_.nodes[tail].end) {
                    t_.nodes[tail].children.push_back(n);
                    stack.push_back(n);
                }
                // else: overlaps without nesting; the plugin logs it and drops the op.
                break;
            }
            stack.pop_back();
        }
    }
    return rootIndex;
}

void Builder::removeDuplicates(uint32_t node) {
    while (true) {
        TorchNode& n = t_.nodes[node];
        if (n.children.size() != 1) break;
        const TorchNode& child = t_.nodes[n.children[0]];
        if (n.name != child.name || n.type != TorchEventType::Operator ||
            child.type != TorchEventType::Operator)
            break;
        std::vector<uint32_t> children = child.children;
        std::vector<uint32_t> runtimes = child.runtimes;
        n.children = std::move(children);
        n.runtimes = std::move(runtimes);
    }
    const std::vector<uint32_t> children = t_.nodes[node].children;
    for (uint32_t c : children) removeDuplicates(c);
}

void Builder::fillRuntime(uint32_t runtime, uint32_t node) {
    TorchRuntime& r = t_.runtimes[runtime];
    r.devicePs = 0;
    r.tensorCorePs = 0;
    std::stable_sort(r.devices.begin(), r.devices.end(), [&](uint32_t a, uint32_t b) {
        const TorchDeviceNode& x = t_.devices[a];
        const TorchDeviceNode& y = t_.devices[b];
        return x.start != y.start ? x.start < y.start : x.end > y.end;
    });
    for (uint32_t d : r.devices) {
        TorchDeviceNode& dev = t_.devices[d];
        dev.node = node;
        dev.opTensorCoreEligible = t_.nodes[node].tensorCoreEligible;
        const int64_t dur = dev.end - dev.start;
        r.devicePs += dur;
        if (dev.tensorCore == TensorCoreUse::Uses) r.tensorCorePs += dur;
    }
}

// node.py OperatorNode.fill_stats (and ModuleNode's addition).
void Builder::fillStats(uint32_t node) {
    auto byTime = [](int64_t s1, int64_t e1, int64_t s2, int64_t e2) {
        return s1 != s2 ? s1 < s2 : e1 > e2;
    };
    {
        TorchNode& n = t_.nodes[node];
        std::stable_sort(n.children.begin(), n.children.end(), [&](uint32_t a, uint32_t b) {
            return byTime(t_.nodes[a].start, t_.nodes[a].end, t_.nodes[b].start, t_.nodes[b].end);
        });
        std::stable_sort(n.runtimes.begin(), n.runtimes.end(), [&](uint32_t a, uint32_t b) {
            const TorchRuntime& x = t_.runtimes[a];
            const TorchRuntime& y = t_.runtimes[b];
            if (x.timed != y.timed) return x.timed;
            return byTime(x.start, x.end, y.start, y.end);
        });
    }
    const std::vector<uint32_t> children = t_.nodes[node].children;
    const std::vector<uint32_t> runtimes = t_.nodes[node].runtimes;
    for (uint32_t c : children) fillStats(c);
    for (uint32_t r : runtimes) fillRuntime(r, node);
    TorchNode& n = t_.nodes[node];
    n.devicePs = 0;
    n.selfDevicePs = 0;
    n.tensorCoreSelfPs = 0;
    n.tensorCoreTotalPs = 0;
    n.selfHostPs = n.kind == TorchNodeKind::Root ? 0 : n.end - n.start;
    for (uint32_t c : children) {
        const TorchNode& child = t_.nodes[c];
        n.devicePs += child.devicePs;
        n.tensorCoreTotalPs += child.tensorCoreTotalPs;
        if (n.type == TorchEventType::Operator && !n.tensorCoreEligible && child.tensorCoreEligible)
            n.tensorCoreEligible = true;
    }
    // Host self time: the op's time that neither a child op nor one of its runtimes covers.
    // The plugin subtracts every child's and every runtime's duration; on one thread, where they
    // never overlap, that is the same. Departure: a runtime inside a child op (already part of
    // the child's time) or overlapping another runtime (launches joined by External id from
    // other threads) is not taken twice, so self time is never negative. The plugin takes it
    // twice: on alexnet_a100_small, an aten::_to_copy whose cudaMalloc (with the _to_copy's
    // External id) runs inside its aten::empty_strided reads -1.9 ms there.
    if (n.kind != TorchNodeKind::Root) {
        std::vector<TorchRange> busy;
        auto add = [&](int64_t s, int64_t e) {
            s = std::max(s, n.start);
            e = std::min(e, n.end);
            if (e > s) busy.push_back({s, e});
        };
        for (uint32_t c : children) add(t_.nodes[c].start, t_.nodes[c].end);
        for (uint32_t r : runtimes)
            if (t_.runtimes[r].timed) add(t_.runtimes[r].start, t_.runtimes[r].end);
        std::sort(busy.begin(), busy.end(),
                  [](const TorchRange& x, const TorchRange& y) { return x.start < y.start; });
        int64_t covered = 0, reach = n.start;
        for (const TorchRange& r : busy) {
            if (r.end <= reach) continue;
            covered += r.end - std::max(r.start, reach);
            reach = r.end;
        }
        n.selfHostPs -= covered;
    }
    for (uint32_t r : runtimes) {
        const TorchRuntime& rt = t_.runtimes[r];
        n.devicePs += rt.devicePs;
        n.selfDevicePs += rt.devicePs;
        n.tensorCoreSelfPs += rt.tensorCorePs;
        n.tensorCoreTotalPs += rt.tensorCorePs;
        if (n.type == TorchEventType::Operator && !n.tensorCoreEligible && rt.tensorCorePs > 0)
            n.tensorCoreEligible = true;
    }
    if (n.kind == TorchNodeKind::Module)
        for (uint32_t c : children)
            if (t_.nodes[c].isOperator) n.selfDevicePs += t_.nodes[c].devicePs;
}

// op_agg.py / node.py get_operator_and_kernels: children first, then the node itself.
void Builder::collect(uint32_t node) {
    const TorchNode& n = t_.nodes[node];
    for (uint32_t c : n.children) collect(c);
    for (uint32_t r : n.runtimes)
        for (uint32_t d : t_.runtimes[r].devices)
            if (t_.devices[d].type == TorchEventType::Kernel) t_.treeKernels.push_back(d);
    if (n.isOperator) t_.operators.push_back(node);
}

// event_parser.py StepParser._parse_step.
void Builder::parseSteps() {
    std::vector<std::vector<TorchRange>> roles(kTorchRoleCount - 1);
    auto add = [&](TorchRole r, int64_t s, int64_t e) { roles[size_t(r)].push_back({s, e}); };
    std::sort(communicationExternalIds_.begin(), communicationExternalIds_.end());
    for (const TorchDeviceNode& d : t_.devices) {
        if (d.type == TorchEventType::Kernel) {
            const bool communication =
                d.externalId != kTorchNoExternalId &&
                std::binary_search(communicationExternalIds_.begin(),
                                   communicationExternalIds_.end(), d.externalId);
            add(communication ? TorchRole::Communication : TorchRole::Kernel, d.start, d.end);
        } else {
            add(d.type == TorchEventType::Memcpy ? TorchRole::Memcpy : TorchRole::Memset, d.start,
                d.end);
        }
    }
    int64_t cpuMin = kMaxTime, cpuMax = kMinTime;
    for (const HostSpan& h : hostSpans_) {
        const std::string_view name = p_.str(h.name);
        if (h.type == TorchEventType::Runtime) {
            add(TorchRole::Runtime, h.start, h.end);
        } else if ((h.type == TorchEventType::Operator ||
                    h.type == TorchEventType::UserAnnotation) &&
                   isDataLoader(name)) {
            add(TorchRole::DataLoader, h.start, h.end);
        } else if (h.type == TorchEventType::Python || h.type == TorchEventType::Operator ||
                   h.type == TorchEventType::UserAnnotation) {
            add(isCommunicationOp(name) ? TorchRole::Communication : TorchRole::CpuOp, h.start,
                h.end);
        }
        if (h.type == TorchEventType::Python || h.type == TorchEventType::Operator ||
            h.type == TorchEventType::ProfilerStep) {
            cpuMin = std::min(cpuMin, h.start);
            cpuMax = std::max(cpuMax, h.end);
        }
    }
    std::stable_sort(rawSteps_.begin(), rawSteps_.end(),
                     [](const auto& a, const auto& b) { return a.first.start < b.first.start; });
    for (auto& [range, name] : rawSteps_) {
        t_.steps.push_back(range);
        t_.stepNames.push_back(name);
    }
    if (t_.steps.empty() && cpuMin <= cpuMax) {
        t_.steps.push_back({cpuMin, cpuMax});
        t_.stepNames.push_back("0");
    }
    for (size_t r = 0; r < roles.size(); ++r) t_.roleRanges[r] = mergeRanges(std::move(roles[r]));
}

void Builder::updateDeviceSteps() {
    std::vector<TorchLaunch> launches;
    std::vector<uint32_t> launchWork;
    for (const TorchRuntime& r : t_.runtimes) {
        if (!r.timed) continue;
        const uint32_t begin = uint32_t(launchWork.size());
        launchWork.insert(launchWork.end(), r.devices.begin(), r.devices.end());
        launches.push_back({r.start, r.end, begin, uint32_t(launchWork.size())});
    }
    std::vector<TorchRange> work;
    work.reserve(t_.devices.size());
    for (const TorchDeviceNode& d : t_.devices) work.push_back({d.start, d.end});
    std::vector<bool> tied;
    const size_t keep =
        extendStepsToDeviceWork(t_.steps, std::move(launches), launchWork, work, &tied);
    t_.steps.resize(keep);
    t_.stepNames.resize(keep);
    for (size_t i = 0; i < tied.size(); ++i) t_.devices[i].matchedToStep = tied[i];
}

void Builder::run() {
    const Profile& p = p_;
    // Host threads first (runtimes), then devices, as their order does not matter to the joins.
    for (const Plane& plane : p.planes()) {
        if (plane.host != t_.host || plane.kind != PlaneKind::Host) continue;
        for (uint32_t ti = plane.firstTrack; ti < plane.firstTrack + plane.trackCount; ++ti)
            if (!p.tracks()[ti].derived) readHost(ti);
    }
    for (const Plane& plane : p.planes()) {
        if (plane.host != t_.host || plane.kind != PlaneKind::Gpu) continue;
        for (uint32_t ti = plane.firstTrack; ti < plane.firstTrack + plane.trackCount; ++ti)
            if (p.tracks()[ti].deviceOps && !p.tracks()[ti].derived) readDevice(ti);
    }
    // event_parser.py parse_nodes: runtimes join the first op (threads in order) with their
    // External id. Departure: only an op that encloses the runtime in time takes it. The plugin
    // takes every runtime of the id, and an id can be reused: on alexnet_a100_small the 29.9 s
    // cudaDeviceGetStreamPriorityRange of CUDA's start-up, inside an aten::empty_strided (id 68),
    // carries External id 5 (its own correlation id), which is also that of a 5 us aten::empty
    // 0.5 s earlier, so the plugin's rule gives that aten::empty a host self time of -29.9 s
    // (its parsers print -29922888 us for the 21 calls). A runtime no op of its id encloses stays
    // unattached, as the plugin's runtimes of an id no op has; its time stays in the self time
    // of the op around it.
    // (The join is the Kineto importer's too: model/pytorch/ExternalIdJoin.h.) Ops take runtimes
    // threads in order, each thread's ops in order.
    std::vector<IdSpan> ops;
    std::vector<uint32_t> opNodes;
    for (uint32_t track : trackOrder_)
        for (uint32_t node : ops_[track]) {
            const TorchNode& op = t_.nodes[node];
            ops.push_back({uint64_t(op.externalId), op.start, op.end});
            opNodes.push_back(node);
        }
    std::vector<IdSpan> runtimes;
    runtimes.reserve(t_.runtimes.size());
    for (const TorchRuntime& rt : t_.runtimes)
        runtimes.push_back({uint64_t(rt.externalId), rt.start, rt.end});
    const std::vector<uint32_t> joined = joinByExternalId(ops, runtimes);
    for (uint32_t r = 0; r < joined.size(); ++r)
        if (joined[r] != kNoJoinedOp) t_.nodes[opNodes[joined[r]]].runtimes.push_back(r);
    // As the plugin, only threads with tree nodes get a tree: runtimes of External id 0 on other
    // threads are not counted.
    // The stale kernels go under the first thread that has a ProfilerStep#.
    uint32_t mainTrack = kTorchNone;
    for (uint32_t track : trackOrder_) {
        for (uint32_t node : ops_[track])
            if (t_.nodes[node].kind == TorchNodeKind::ProfilerStep) mainTrack = track;
        if (mainTrack != kTorchNone) break;
    }
    for (uint32_t track : trackOrder_) {
        const auto zero = zeroRuntimes_.find(track);
        const uint32_t root =
            buildTree(track, ops_[track],
                      zero == zeroRuntimes_.end() ? std::vector<uint32_t>{} : zero->second,
                      track == mainTrack);
        removeDuplicates(root);
        fillStats(root);
        t_.roots.push_back(root);
    }
    for (uint32_t root : t_.roots) collect(root);
    parseSteps();
    if (!t_.steps.empty()) updateDeviceSteps();
}

} // namespace

TorchEventType torchEventTypeOfCategory(std::string_view cat) {
    std::string lower(cat);
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "cpu_op" || lower == "operator") return TorchEventType::Operator;
    if (lower == "runtime" || lower == "cuda_runtime" || lower == "mtia_runtime" ||
        lower == "glow_runtime" || lower == "xpu_runtime" || lower == "privateuse1_runtime" ||
        lower == "cuda_driver")
        return TorchEventType::Runtime;
    if (lower == "kernel") return TorchEventType::Kernel;
    if (lower == "memcpy" || lower == "gpu_memcpy") return TorchEventType::Memcpy;
    if (lower == "memset" || lower == "gpu_memset") return TorchEventType::Memset;
    if (lower == "python") return TorchEventType::Python;
    if (lower == "python_function") return TorchEventType::PythonFunction;
    if (lower == "user_annotation") return TorchEventType::UserAnnotation;
    return TorchEventType::Other;
}

bool isTorchProfile(const Profile& profile) {
    const StringId categoryKey = profile.strings().find("category");
    if (categoryKey == StringPool::kNotFound) return false;
    const StringId cpuOp = profile.strings().find("cpu_op");
    const StringId operatorCat = profile.strings().find("Operator");
    for (uint32_t m = 0; m < profile.metadata().size(); ++m)
        for (const StatValue& s : profile.metadataStats(m))
            if (s.key == categoryKey && s.isText() &&
                (s.asString() == cpuOp || s.asString() == operatorCat))
                return true;
    return false;
}

TorchTrace buildTorchTrace(const Profile& profile, uint32_t host) {
    TorchTrace t;
    Builder(profile, host, t).run();
    return t;
}

} // namespace stepscope
