#include "model/analysis/Roofline.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "model/analysis/HloCatalog.h"
#include "model/analysis/HloCostModel.h"
#include "model/analysis/HloPrecision.h"
#include "model/analysis/KernelFacts.h"
#include "model/analysis/StepAnalysis.h"
#include "model/analysis/TorchOpCost.h"
#include "model/analysis/TorchTrace.h"

namespace stepscope {

std::string_view boundByName(BoundBy b) {
    switch (b) {
    case BoundBy::Compute:
        return "Compute";
    case BoundBy::Memory:
        return "Memory";
    case BoundBy::Latency:
        return "Latency";
    case BoundBy::Unknown:
        break;
    }
    return "Unknown";
}

BoundBy boundBy(std::optional<double> computeShare, std::optional<double> memoryShare) {
    if (!computeShare && !memoryShare) return BoundBy::Unknown;
    const double c = computeShare.value_or(0), m = memoryShare.value_or(0);
    if (std::max(c, m) < kLatencyBoundShare) return BoundBy::Latency;
    return c > m ? BoundBy::Compute : BoundBy::Memory;
}

std::string programOf(const RooflineOp& op) {
    if (!op.program.empty()) return op.program;
    return op.attributed ? "PyTorch" : "Not attributed";
}

std::vector<const RooflineCell*> Roofline::cellsOf(int32_t step) const {
    std::vector<const RooflineCell*> out;
    for (const RooflineCell& c : cells)
        if (c.step == step) out.push_back(&c);
    return out;
}

namespace {

std::string shapeText(const HloShape& s) {
    if (s.elementType == HloElementType::Tuple) {
        std::string out = "(";
        for (size_t i = 0; i < s.tupleShapes.size(); ++i)
            out += (i ? ", " : "") + shapeText(s.tupleShapes[i]);
        return out + ")";
    }
    std::string out(elementTypeName(s.elementType));
    out += '[';
    for (size_t i = 0; i < s.dimensions.size(); ++i)
        out += (i ? "," : "") + std::to_string(s.dimensions[i]);
    return out + ']';
}

// The op's kind as the op profile groups it.
std::string hloCategory(const HloModule& m, const HloInstruction& i) {
    if (i.opcode == "custom-call") {
        if (isCublasGemmTarget(i.customCallTarget)) return "GEMM (cuBLAS)";
        if (isCudnnConvolutionTarget(i.customCallTarget)) return "convolution (cuDNN)";
        if (isMatrixLibraryCall(i.customCallTarget)) return "attention (cuDNN)";
        return "custom-call";
    }
    if (i.opcode == "fusion") {
        if (isMatrixInstruction(m, i)) return "GEMM fusion";
        if (i.fusionKind == "kLoop") return "loop fusion";
        if (i.fusionKind == "kInput") return "input fusion";
        if (i.fusionKind == "kOutput") return "output fusion";
        if (i.fusionKind == "kCustom") return "custom fusion";
        return "fusion";
    }
    return i.opcode;
}

// Kernel time by precision and Tensor Core use, to pick an op's precision and roof.
struct KernelMix {
    std::array<int64_t, kPrecisionCount> precisionPs{};
    int64_t tensorCorePs = 0, knownNoTensorCorePs = 0;
    void add(const KernelFact& f, int64_t ps) {
        precisionPs[size_t(f.precision)] += ps;
        if (f.tensorCore == TensorCoreUse::Uses) tensorCorePs += ps;
        if (f.tensorCore == TensorCoreUse::DoesNot) knownNoTensorCorePs += ps;
    }
    Precision precision() const {
        size_t best = size_t(Precision::Unknown);
        for (size_t p = 0; p < kPrecisionCount; ++p)
            if (p != size_t(Precision::Unknown) &&
                precisionPs[p] > (best == size_t(Precision::Unknown) ? 0 : precisionPs[best]))
                best = p;
        return Precision(best);
    }
    bool matrixUnits(bool matrixOp) const {
        if (tensorCorePs > 0 || knownNoTensorCorePs > 0) return tensorCorePs >= knownNoTensorCorePs;
        return matrixOp;
    }
};

struct CellAcc {
    uint64_t occurrences = 0; // PyTorch: calls
    int64_t timePs = 0;
    double flops = 0, bytes = 0, transcendentals = 0;
    bool flopsUnknown = false, bytesUnknown = false;
    EventIndex longest = kNoIndex;
    int64_t longestPs = -1;
    std::unordered_map<StringId, uint64_t> eventsByName; // HLO: executions per kernel name
    void addEvent(EventIndex e, int64_t ps) {
        timePs += ps;
        if (ps > longestPs) {
            longestPs = ps;
            longest = e;
        }
    }
};

struct OpAcc {
    std::optional<OpCost> perExecution; // HLO ops: the instruction's cost
    bool matrixOp = false;
    KernelMix mix;
};

class Builder {
public:
    Builder(const Profile& p, const Progress* progress)
        : p_(p)
        , progress_(progress)
        , hlo_(p, progress)
        , facts_(p, hlo_)
        , cursor_(hlo_) {}

    Roofline run();

private:
    void findSteps();
    int32_t stepOf(uint32_t host, int64_t startPs) const;
    uint32_t deviceOf(uint32_t plane);
    uint32_t addOp(const std::string& key, RooflineOp&& op);
    void forCells(uint32_t op, int32_t step, const std::function<void(CellAcc&)>& fn);
    CellAcc& cell(uint32_t op, int32_t step) {
        return cells_[(uint64_t(op) << 32) | uint32_t(step + 1)];
    }
    void addHloEvent(EventIndex e, const HloOpRef& ref, uint32_t plane, int32_t step);
    void addBareEvent(EventIndex e, uint32_t plane, int32_t step);
    void collectTorchCalls();
    std::string torchPath(uint32_t trace, uint32_t node);
    void addTorchEvent(EventIndex e, uint32_t trace, uint32_t node, uint32_t plane, int32_t step);
    void addKernelFact(uint32_t op, EventIndex e);

    const Profile& p_;
    const Progress* progress_;
    HloCatalog hlo_;
    KernelFacts facts_;
    HloCatalog::Cursor cursor_;
    Roofline r_;
    std::vector<std::vector<RooflineStep>> stepsByHost_; // with their index into r_.steps
    std::vector<std::vector<int32_t>> stepIndexByHost_;
    std::unordered_map<uint32_t, uint32_t> deviceOfPlane_;
    std::unordered_map<std::string, uint32_t> opIndex_;
    std::vector<OpAcc> opAcc_;
    std::map<uint64_t, CellAcc> cells_; // op << 32 | step + 1
    std::unordered_map<const HloModule*, HloCostModel> costModels_;
    // PyTorch: per device event, the operator call that launched it (host, node), if any.
    std::unordered_map<EventIndex, std::pair<uint32_t, uint32_t>> torchCallOf_;
    std::vector<TorchTrace> torchTraces_;
    std::vector<std::vector<uint32_t>> torchParents_;   // per trace: node -> parent node
    std::unordered_map<uint64_t, uint32_t> torchCalls_; // trace << 32 | node -> op
};

void Builder::findSteps() {
    const StepAnalysis a = analyzeSteps(p_, {}, progress_, &hlo_);
    stepsByHost_.assign(p_.hosts().size(), {});
    stepIndexByHost_.assign(p_.hosts().size(), {});
    for (const StepRecord& s : a.steps) {
        r_.steps.push_back({s.number, s.host, s.beginPs, s.durationPs});
        if (s.host < stepsByHost_.size()) {
            stepsByHost_[s.host].push_back(r_.steps.back());
            stepIndexByHost_[s.host].push_back(int32_t(r_.steps.size() - 1));
        }
    }
    for (size_t h = 0; h < stepsByHost_.size(); ++h) {
        std::vector<size_t> order(stepsByHost_[h].size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return stepsByHost_[h][a].beginPs < stepsByHost_[h][b].beginPs;
        });
        std::vector<RooflineStep> steps;
        std::vector<int32_t> index;
        for (size_t i : order) {
            steps.push_back(stepsByHost_[h][i]);
            index.push_back(stepIndexByHost_[h][i]);
        }
        stepsByHost_[h] = std::move(steps);
        stepIndexByHost_[h] = std::move(index);
    }
}

int32_t Builder::stepOf(uint32_t host, int64_t start) const {
    if (host >= stepsByHost_.size()) return -1;
    const std::vector<RooflineStep>& steps = stepsByHost_[host];
    auto it = std::upper_bound(steps.begin(), steps.end(), start,
                               [](int64_t t, const RooflineStep& s) { return t < s.beginPs; });
    if (it == steps.begin()) return -1;
    --it;
    if (start >= it->beginPs + it->durationPs) return -1;
    return stepIndexByHost_[host][size_t(it - steps.begin())];
}

uint32_t Builder::deviceOf(uint32_t plane) {
    const auto [it, inserted] = deviceOfPlane_.emplace(plane, uint32_t(r_.devices.size()));
    if (inserted) {
        r_.devices.push_back(devicePeaks(p_, plane));
        r_.devicePlane.push_back(plane);
    }
    return it->second;
}

uint32_t Builder::addOp(const std::string& key, RooflineOp&& op) {
    const uint32_t index = uint32_t(r_.ops.size());
    opIndex_.emplace(key, index);
    r_.ops.push_back(std::move(op));
    opAcc_.emplace_back();
    return index;
}

void Builder::addKernelFact(uint32_t op, EventIndex e) {
    if (!p_.kernels().find(e)) return; // copies and memsets have no precision
    opAcc_[op].mix.add(facts_.of(e), p_.duration(e));
}

void Builder::forCells(uint32_t op, int32_t step, const std::function<void(CellAcc&)>& fn) {
    fn(cell(op, -1));
    if (step >= 0) fn(cell(op, step));
}

void Builder::addHloEvent(EventIndex e, const HloOpRef& ref, uint32_t plane, int32_t step) {
    const uint32_t device = deviceOf(plane);
    const HloInstruction& i = *ref.instruction;
    std::string key = "h" + std::to_string(device) + '\0' + std::to_string(uintptr_t(&i));
    auto it = opIndex_.find(key);
    if (it == opIndex_.end()) {
        const HloModule& m = *ref.module;
        const auto module =
            std::find_if(hlo_.modules().begin(), hlo_.modules().end(),
                         [&](const HloCatalog::Entry& x) { return x.module.get() == &m; });
        RooflineOp op;
        op.device = device;
        op.program = m.name + "(" +
                     std::to_string(module != hlo_.modules().end() ? module->programId : m.id) +
                     ")";
        op.name = i.name;
        op.category = hloCategory(m, i);
        op.shape = shapeText(i.shape);
        op.frameworkOp = i.metadata.opName;
        if (!i.metadata.sourceFile.empty())
            op.source = i.metadata.sourceFile + ":" + std::to_string(i.metadata.sourceLine);
        op.attributed = true;
        const uint32_t index = addOp(key, std::move(op));
        OpAcc& acc = opAcc_[index];
        acc.perExecution = costModels_.try_emplace(&m, m).first->second.cost(i);
        acc.matrixOp = ref.matrix;
        it = opIndex_.find(key);
    }
    const uint32_t index = it->second;
    addKernelFact(index, e);
    const int64_t ps = p_.duration(e);
    forCells(index, step, [&](CellAcc& c) {
        c.addEvent(e, ps);
        ++c.eventsByName[p_.nameId(e)];
    });
}

void Builder::addBareEvent(EventIndex e, uint32_t plane, int32_t step) {
    const uint32_t device = deviceOf(plane);
    const std::string_view name = p_.name(e);
    std::string key = "e" + std::to_string(device) + '\0' + std::string(name);
    auto it = opIndex_.find(key);
    if (it == opIndex_.end()) {
        RooflineOp op;
        op.device = device;
        op.name = std::string(name);
        const CopyKind copy = copyKindFromName(name);
        op.category = p_.kernels().find(e)                                ? "kernel (no op)"
                      : copy == CopyKind::Memset                          ? "memset"
                      : p_.memcpys().find(e) || copy != CopyKind::Unknown ? "copy"
                                                                          : "other";
        addOp(key, std::move(op));
        it = opIndex_.find(key);
    }
    const uint32_t index = it->second;
    addKernelFact(index, e);
    const int64_t ps = p_.duration(e);
    forCells(index, step, [&](CellAcc& c) {
        c.addEvent(e, ps);
        ++c.occurrences;
        c.flopsUnknown = c.bytesUnknown = true;
    });
}

void Builder::collectTorchCalls() {
    if (!isTorchProfile(p_)) return;
    for (uint32_t h = 0; h < p_.hosts().size(); ++h) {
        torchTraces_.push_back(buildTorchTrace(p_, h));
        const TorchTrace& t = torchTraces_.back();
        const uint32_t trace = uint32_t(torchTraces_.size() - 1);
        for (const TorchDeviceNode& d : t.devices)
            if (d.node != kTorchNone && t.nodes[d.node].kind == TorchNodeKind::Operator &&
                t.nodes[d.node].event != kNoIndex)
                torchCallOf_[d.event] = {trace, d.node};
    }
}

std::string Builder::torchPath(uint32_t trace, uint32_t node) {
    std::vector<uint32_t>& parent = torchParents_[trace];
    const TorchTrace& t = torchTraces_[trace];
    if (parent.empty()) {
        parent.assign(t.nodes.size(), kTorchNone);
        for (uint32_t n = 0; n < t.nodes.size(); ++n)
            for (uint32_t c : t.nodes[n].children) parent[c] = n;
    }
    std::vector<std::string_view> names;
    for (uint32_t n = node; n != kTorchNone && t.nodes[n].kind == TorchNodeKind::Operator;
         n = parent[n])
        names.push_back(p_.str(t.nodes[n].name));
    std::string path;
    for (auto it = names.rbegin(); it != names.rend(); ++it)
        path += (path.empty() ? "" : "/") + std::string(*it);
    return path;
}

void Builder::addTorchEvent(EventIndex e, uint32_t trace, uint32_t node, uint32_t plane,
                            int32_t step) {
    const uint32_t device = deviceOf(plane);
    const uint64_t callKey = (uint64_t(trace) << 32) | node;
    auto call = torchCalls_.find(callKey);
    if (call == torchCalls_.end()) {
        const TorchNode& n = torchTraces_[trace].nodes[node];
        TorchOpArgs args;
        args.name = p_.str(n.name);
        for (const StatValue& s : p_.eventStats(n.event)) {
            const std::string_view k = p_.str(s.key);
            if (k == "Input Dims" && s.isText())
                args.inputDims = p_.str(s.asString());
            else if (k == "Input type" && s.isText())
                args.inputTypes = p_.str(s.asString());
            else if (k == "Concrete Inputs" && s.isText())
                args.concreteInputs = p_.str(s.asString());
            else if (k == "flops" && s.isNumber())
                args.flops = s.asDouble();
        }
        const TorchOpKind kind = torchOpKind(args.name);
        std::string key = "t" + std::to_string(device) + '\0' + std::string(args.name) + '\0' +
                          std::string(args.inputDims);
        auto it = opIndex_.find(key);
        if (it == opIndex_.end()) {
            RooflineOp op;
            op.device = device;
            op.name = std::string(args.name);
            op.category = std::string(torchOpKindName(kind));
            op.shape = std::string(args.inputDims);
            op.frameworkOp = torchPath(trace, node);
            op.attributed = true;
            const uint32_t index = addOp(key, std::move(op));
            opAcc_[index].matrixOp = kind == TorchOpKind::Gemm ||
                                     kind == TorchOpKind::Convolution ||
                                     kind == TorchOpKind::Attention;
            it = opIndex_.find(key);
        }
        const uint32_t index = it->second;
        const OpCost cost = torchOpCost(args);
        forCells(index, step, [&](CellAcc& c) {
            ++c.occurrences;
            if (cost.flops)
                c.flops += double(*cost.flops);
            else
                c.flopsUnknown = true;
            if (cost.bytes)
                c.bytes += double(*cost.bytes);
            else
                c.bytesUnknown = true;
        });
        call = torchCalls_.emplace(callKey, index).first;
    }
    const uint32_t index = call->second;
    addKernelFact(index, e);
    const int64_t ps = p_.duration(e);
    forCells(index, step, [&](CellAcc& c) { c.addEvent(e, ps); });
}

Roofline Builder::run() {
    r_.notes = hlo_.errors();
    findSteps();
    collectTorchCalls();
    torchParents_.assign(torchTraces_.size(), {});
    if (progress_) progress_->report("Costing device ops", 0.6);
    for (uint32_t plane = 0; plane < p_.planes().size(); ++plane) {
        const Plane& pl = p_.planes()[plane];
        if (pl.kind != PlaneKind::Gpu) continue;
        for (uint32_t t = pl.firstTrack; t < pl.firstTrack + pl.trackCount; ++t) {
            const Track& track = p_.tracks()[t];
            if (!track.deviceOps) continue;
            if (progress_ && progress_->cancelled()) return {};
            for (EventIndex e = track.firstEvent; e < track.firstEvent + track.eventCount; ++e) {
                const int32_t step = stepOf(pl.host, p_.start(e));
                if (!torchCallOf_.empty()) {
                    if (const auto it = torchCallOf_.find(e); it != torchCallOf_.end()) {
                        addTorchEvent(e, it->second.first, it->second.second, plane, step);
                        continue;
                    }
                }
                if (const HloOpRef ref = cursor_.at(e))
                    addHloEvent(e, ref, plane, step);
                else
                    addBareEvent(e, plane, step);
            }
        }
    }
    for (size_t o = 0; o < r_.ops.size(); ++o) {
        r_.ops[o].precision = opAcc_[o].mix.precision();
        r_.ops[o].matrixUnits = opAcc_[o].mix.matrixUnits(opAcc_[o].matrixOp);
    }
    for (auto& [key, acc] : cells_) {
        RooflineCell c;
        c.op = uint32_t(key >> 32);
        c.step = int32_t(uint32_t(key)) - 1;
        c.timePs = acc.timePs;
        c.longest = acc.longest;
        const OpAcc& op = opAcc_[c.op];
        if (op.perExecution) {
            uint64_t executions = 0;
            for (const auto& [name, n] : acc.eventsByName) executions = std::max(executions, n);
            c.occurrences = executions;
            const OpCost& cost = *op.perExecution;
            if (cost.flops) c.flops = double(*cost.flops) * double(executions);
            if (cost.bytes) c.bytes = double(*cost.bytes) * double(executions);
            c.transcendentals = double(cost.transcendentals) * double(executions);
        } else {
            c.occurrences = acc.occurrences;
            if (!acc.flopsUnknown) c.flops = acc.flops;
            if (!acc.bytesUnknown) c.bytes = acc.bytes;
        }
        r_.cells.push_back(c);
    }
    std::stable_sort(r_.cells.begin(), r_.cells.end(),
                     [](const RooflineCell& a, const RooflineCell& b) {
                         return a.step != b.step ? a.step < b.step : a.op < b.op;
                     });
    if (progress_) progress_->report("Costing device ops", 1);
    return std::move(r_);
}

} // namespace

void RooflineSum::add(const Roofline& r, const RooflineCell& c) {
    const RooflineOp& op = r.ops[c.op];
    const DevicePeaks& d = r.devices[op.device];
    ++cells;
    occurrences += c.occurrences;
    timePs += c.timePs;
    transcendentals += c.transcendentals;
    if (c.longest != kNoIndex && c.timePs > 0 &&
        (longest == kNoIndex || c.timePs > longestCellPs)) {
        longest = c.longest;
        longestCellPs = c.timePs;
    }
    const double computeRoof = d.flopsRoof(op.precision, op.matrixUnits);
    if (c.flops) {
        ++flopsKnown;
        flops += *c.flops;
        if (computeRoof > 0) {
            computeRoofSeconds += *c.flops / computeRoof;
            roofedFlops += *c.flops;
            mixedComputeRoofs |= computeRoofed > 0 && computeRoof != lastComputeRoof;
            ++computeRoofed;
            lastComputeRoof = computeRoof;
        }
    }
    if (c.bytes) {
        ++bytesKnown;
        bytes += *c.bytes;
        if (d.memoryBytesPerSecond > 0) {
            memoryRoofSeconds += *c.bytes / d.memoryBytesPerSecond;
            roofedBytes += *c.bytes;
            mixedMemoryRoofs |= memoryRoofed > 0 && d.memoryBytesPerSecond != lastMemoryRoof;
            ++memoryRoofed;
            lastMemoryRoof = d.memoryBytesPerSecond;
        }
    }
}

RooflineMetrics rooflineMetrics(const RooflineSum& s) {
    RooflineMetrics m;
    const double seconds = double(s.timePs) * 1e-12;
    if (s.flopsKnown > 0 && seconds > 0) m.flopsPerSecond = s.flops / seconds;
    if (s.bytesKnown > 0 && seconds > 0) m.bytesPerSecond = s.bytes / seconds;
    if (s.flopsKnown > 0 && s.bytesKnown > 0 && s.bytes > 0) m.intensity = s.flops / s.bytes;
    if (s.computeRoofed > 0) {
        m.computeRoof = s.mixedComputeRoofs && s.computeRoofSeconds > 0
                            ? s.roofedFlops / s.computeRoofSeconds
                            : s.lastComputeRoof;
        if (seconds > 0) m.computeShare = s.computeRoofSeconds / seconds;
    }
    if (s.memoryRoofed > 0) {
        m.memoryRoof = s.mixedMemoryRoofs && s.memoryRoofSeconds > 0
                           ? s.roofedBytes / s.memoryRoofSeconds
                           : s.lastMemoryRoof;
        if (seconds > 0) m.memoryShare = s.memoryRoofSeconds / seconds;
    }
    m.bound = boundBy(m.computeShare, m.memoryShare);
    return m;
}

RooflineMetrics rooflineMetrics(const Roofline& r, const RooflineCell& cell) {
    RooflineSum s;
    s.add(r, cell);
    return rooflineMetrics(s);
}

Roofline computeRoofline(const Profile& profile, const Progress* progress) {
    Builder b(profile, progress);
    Roofline r = b.run();
    if (progress && progress->cancelled()) return {};
    return r;
}

bool hasRoofline(const Profile& profile) {
    bool gpuOps = false;
    for (const Track& t : profile.tracks())
        if (t.deviceOps && t.eventCount > 0 && profile.planes()[t.plane].kind == PlaneKind::Gpu) {
            gpuOps = true;
            break;
        }
    if (!gpuOps) return false;
    return profile.strings().find("Hlo Proto") != StringPool::kNotFound || isTorchProfile(profile);
}

} // namespace stepscope
