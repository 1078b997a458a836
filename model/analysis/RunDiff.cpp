#include "model/analysis/RunDiff.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>

#include "model/NumberFormat.h"
#include "model/analysis/DiffWording.h"
#include "model/analysis/KernelFacts.h"
#include "model/analysis/OpName.h"
#include "model/analysis/TorchOverview.h"

namespace stepscope {

namespace {

// A change of Tensor Core share or of 16-bit precision share smaller than this many percentage
// points is not called out.
constexpr double kCalloutPoints = 10;

constexpr double kPsPerUs = 1e6;
constexpr uint32_t kNoRow = 0xFFFFFFFFu;

// Rows of one table, keyed by their identity, accumulated from both runs.
class RowSet {
public:
    // A row of the host pair `host` (its label) with `pairs` step pairs.
    DiffRow& at(const std::string& host, size_t pairs, std::string_view type,
                std::string_view name) {
        std::string key(host);
        key += '\0';
        key += type;
        key += '\0';
        key += name;
        const auto [it, fresh] = index_.emplace(std::move(key), rows_.size());
        if (fresh) {
            DiffRow row;
            row.host = host;
            row.type = std::string(type);
            row.name = std::string(name);
            row.base.perStepUs.assign(pairs, 0.0);
            row.candidate.perStepUs.assign(pairs, 0.0);
            row.baseTensorCorePercent = row.candidateTensorCorePercent = Table::missing();
            rows_.push_back(std::move(row));
            kernelPs_.emplace_back();
            tensorCorePs_.emplace_back();
        }
        return rows_[it->second];
    }
    size_t indexOf(const DiffRow& row) const { return size_t(&row - rows_.data()); }
    std::vector<DiffRow>& rows() { return rows_; }
    // Kernel time and Tensor Core kernel time per row and side (ops).
    std::vector<std::array<int64_t, 2>> kernelPs_, tensorCorePs_;

private:
    std::vector<DiffRow> rows_;
    std::unordered_map<std::string, size_t> index_;
};

std::string launchConfiguration(const KernelDetails& k) {
    auto dims = [](const std::array<uint32_t, 3>& d) {
        return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
    };
    std::string s = "grid:" + dims(k.grid) + " block:" + dims(k.block);
    if (k.hasRegisters) s += " regs:" + std::to_string(k.registersPerThread);
    s += " shm:" + std::to_string(k.sharedBytes());
    return s;
}

// Adds one run's GPU stream events on the host pair's GPUs launched (else started) inside its
// aligned steps to the op and kernel rows.
bool collect(const Profile& p, const HostPair& hosts, const std::vector<StepSpan>& windows,
             bool isBase, RowSet& ops, RowSet& kernels, const Progress* progress) {
    const uint32_t host = isBase ? hosts.base : hosts.candidate;
    const HloCatalog hlo(p, progress);
    OpCatalog catalog(p, &hlo);
    KernelFacts facts(p, hlo);
    // Row of each catalog op and of each (kernel name, launch configuration) met: the string key
    // is built once per op or kernel, not per event.
    std::vector<uint32_t> opRowOf;
    std::unordered_map<uint64_t, uint32_t> kernelRowOf;
    const size_t side = isBase ? 0 : 1;
    // Events are visited in index order (tracks in order, each track's events in a block), so one
    // forward cursor per side table serves the whole pass.
    SideCursor<StringId> frameworkOps(p.frameworkOps());
    SideCursor<StringId> hloOps(p.hloOps());
    SideCursor<uint32_t> kernelIds(p.kernels());
    // Launch of each device event, by target; events are visited in increasing index order, so a
    // forward cursor finds them.
    std::vector<Flow> byTarget(p.flows().begin(), p.flows().end());
    std::sort(byTarget.begin(), byTarget.end(), [](const Flow& a, const Flow& b) {
        return a.target != b.target ? a.target < b.target : a.launch < b.launch;
    });
    size_t flowCursor = 0;
    for (const Plane& plane : p.planes()) {
        if (plane.kind != PlaneKind::Gpu || plane.host != host) continue;
        if (progress && progress->cancelled()) return false;
        for (uint32_t ti = plane.firstTrack; ti < plane.firstTrack + plane.trackCount; ++ti) {
            const Track& t = p.tracks()[ti];
            if (!t.deviceOps || t.eventCount == 0) continue;
            for (EventIndex e = t.firstEvent; e < t.firstEvent + t.eventCount; ++e) {
                while (flowCursor < byTarget.size() && byTarget[flowCursor].target < e)
                    ++flowCursor;
                const bool launched =
                    flowCursor < byTarget.size() && byTarget[flowCursor].target == e;
                // The step holding the launch, else (no launch, or a launch outside every step:
                // steps spanned by device markers) the one holding the event's start.
                const StepSpan* w = stepSpanAt(windows, p.start(e));
                if (launched) {
                    if (const StepSpan* byLaunch =
                            stepSpanAt(windows, p.start(byTarget[flowCursor].launch)))
                        w = byLaunch;
                }
                const StringId* fw = frameworkOps.at(e);
                const StringId* hlo = hloOps.at(e);
                const uint32_t* kernel = kernelIds.at(e);
                if (!w || w->pair == kNotCompared) continue;
                const int64_t dur = p.duration(e);
                const double us = double(dur) / kPsPerUs;
                uint32_t op = fw || hlo ? catalog.deviceOp(e, fw ? *fw : 0, hlo ? *hlo : 0)
                                        : OpCatalog::kNoOp;
                if (op == OpCatalog::kNoOp) op = catalog.unclaimedOp(e);
                if (op >= opRowOf.size()) opRowOf.resize(op + 1, kNoRow);
                if (opRowOf[op] == kNoRow) {
                    const OpIdentity& id = catalog.op(op);
                    // PyTorch ops have no type apart from their name (the catalog repeats
                    // it): the Type column stays empty rather than saying it twice.
                    opRowOf[op] = uint32_t(ops.indexOf(
                        ops.at(hosts.label, hosts.pairCount,
                               id.type == id.name ? std::string_view() : id.type, id.name)));
                }
                DiffRow& opRow = ops.rows()[opRowOf[op]];
                DiffSide& opSide = isBase ? opRow.base : opRow.candidate;
                ++opSide.count;
                opSide.totalPs += dur;
                opSide.perStepUs[w->pair] += us;
                if (!kernel) continue;
                const bool tc = facts.of(e).tensorCore == TensorCoreUse::Uses;
                const size_t r = ops.indexOf(opRow);
                ops.kernelPs_[r][side] += dur;
                if (tc) ops.tensorCorePs_[r][side] += dur;
                const auto [k, fresh] =
                    kernelRowOf.emplace(uint64_t(p.nameId(e)) << 32 | *kernel, 0);
                if (fresh)
                    k->second = uint32_t(kernels.indexOf(kernels.at(
                        hosts.label, hosts.pairCount,
                        launchConfiguration(p.kernelDetailsTable()[*kernel]), p.name(e))));
                DiffRow& kRow = kernels.rows()[k->second];
                DiffSide& kSide = isBase ? kRow.base : kRow.candidate;
                ++kSide.count;
                kSide.totalPs += dur;
                kSide.perStepUs[w->pair] += us;
                kRow.usesTensorCore = kRow.usesTensorCore || tc;
            }
        }
    }
    return true;
}

// The PyTorch TensorBoard plugin's steps of a profile (TorchOverview), by host and the N of
// ProfilerStep#N (the step number StepAnalysis gives a ProfilerStep#N step).
class TorchSteps {
public:
    const TorchStepCosts* find(const StepRecord& s) const {
        const auto it = steps_.find({s.host, s.number});
        return it == steps_.end() ? nullptr : &it->second;
    }
    void add(uint32_t host, TorchStepCosts costs) {
        int64_t n = 0;
        const char* end = costs.name.data() + costs.name.size();
        const auto [ptr, ec] = std::from_chars(costs.name.data(), end, n);
        if (ec == std::errc{} && ptr == end)
            steps_.emplace(std::make_pair(host, n), std::move(costs));
    }

private:
    std::map<std::pair<uint32_t, int64_t>, TorchStepCosts> steps_;
};

TorchSteps torchStepsOf(const Profile& p, const Progress* progress) {
    TorchSteps steps;
    for (TorchOverview& o : computeTorchOverviews(p, progress))
        for (TorchStepCosts& s : o.steps) steps.add(o.host, std::move(s));
    return steps;
}

// The steps of one run's host of a host pair as time windows: the compared ones numbered by their
// pair within the host pair, the others (left out by the pairing or the step range) marked not
// compared, so that work launched in them is not counted by its start in a compared step.
std::vector<StepSpan> windowsOf(const StepAnalysis& steps, const StepPairing& pairing,
                                const HostPair& hosts, bool isBase, bool wholeProfiles) {
    std::vector<StepSpan> windows;
    if (wholeProfiles) {
        windows.push_back(
            {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 0});
        return windows;
    }
    std::vector<size_t> pairOf(steps.steps.size(), kNotCompared);
    for (size_t i = 0; i < hosts.pairCount; ++i) {
        const auto& pair = pairing.pairs[hosts.firstPair + i];
        pairOf[isBase ? pair.first : pair.second] = i;
    }
    const uint32_t host = isBase ? hosts.base : hosts.candidate;
    for (size_t i = 0; i < steps.steps.size(); ++i) {
        const StepRecord& s = steps.steps[i];
        if (s.host == host) windows.push_back({s.beginPs, s.beginPs + s.durationPs, pairOf[i]});
    }
    std::sort(windows.begin(), windows.end(),
              [](const StepSpan& a, const StepSpan& b) { return a.begin < b.begin; });
    return windows;
}

} // namespace

RunDiff diffRuns(const Profile& base, const Profile& candidate, const RunDiffOptions& options,
                 const Progress* progress) {
    RunDiff diff;
    diff.confidence = options.confidence;
    diff.minChangePercent = options.minChangePercent;
    if (progress) progress->report("Steps of the baseline", 0);
    diff.baseSteps = analyzeSteps(base, {}, progress);
    if (progress && progress->cancelled()) return {};
    if (progress) progress->report("Steps of the candidate", 0.3);
    diff.candidateSteps = analyzeSteps(candidate, {}, progress);
    if (progress && progress->cancelled()) return {};

    diff.wholeProfiles = diff.baseSteps.steps.empty() || diff.candidateSteps.steps.empty();
    diff.hostPairs = pairHosts(base, candidate, options.hosts, &diff.hostMatching);
    const bool manyHosts = base.hosts().size() > 1 || candidate.hosts().size() > 1;
    if (manyHosts) {
        diff.hostExplanation = std::string("Hosts paired by ") +
                               (diff.hostMatching == HostMatching::ByName ? "name" : "order") +
                               ": " + std::to_string(diff.hostPairs.size()) + " of " +
                               std::to_string(base.hosts().size()) + " baseline and " +
                               std::to_string(candidate.hosts().size()) + " candidate hosts.";
    } else {
        for (HostPair& h : diff.hostPairs) h.label.clear();
    }
    if (diff.hostPairs.empty()) {
        diff.pairing.explanation = "No host of the baseline has a partner in the candidate.";
        return diff;
    }
    if (diff.wholeProfiles) {
        for (HostPair& h : diff.hostPairs) {
            h.firstPair = diff.pairing.pairs.size();
            h.pairCount = 1;
            diff.pairing.pairs.emplace_back(0, 0);
        }
        diff.pairing.explanation =
            std::string(diff.baseSteps.steps.empty() ? "The baseline" : "The candidate") +
            " has no steps: the whole profiles are compared as one step each" +
            (options.firstStep || options.lastStep ? " (the step range does not apply)." : ".");
    } else {
        // Steps are paired within each host pair: each host's steps are its own.
        auto stepsOf = [](const StepAnalysis& all, uint32_t host, std::vector<size_t>& index) {
            StepAnalysis one;
            one.source = all.source;
            one.hasDevice = all.hasDevice;
            for (size_t i = 0; i < all.steps.size(); ++i) {
                if (all.steps[i].host != host) continue;
                one.steps.push_back(all.steps[i]);
                index.push_back(i);
            }
            return one;
        };
        std::vector<std::string> explanations;
        for (HostPair& h : diff.hostPairs) {
            std::vector<size_t> bi, ci;
            const StepAnalysis b = stepsOf(diff.baseSteps, h.base, bi);
            const StepAnalysis c = stepsOf(diff.candidateSteps, h.candidate, ci);
            StepPairing one = pairSteps(b, c, options);
            h.firstPair = diff.pairing.pairs.size();
            h.pairCount = one.pairs.size();
            for (auto [x, y] : one.pairs) diff.pairing.pairs.emplace_back(bi[x], ci[y]);
            diff.pairing.alignment = one.alignment;
            if (&h == &diff.hostPairs.front()) diff.pairing.shift = one.shift;
            explanations.push_back((h.label.empty() ? "" : h.label + ": ") + one.explanation);
        }
        for (const std::string& e : explanations) {
            if (!diff.pairing.explanation.empty()) diff.pairing.explanation += " ";
            diff.pairing.explanation += e;
        }
        if (diff.pairing.pairs.empty()) {
            if (diff.pairing.explanation.find("in that range") == std::string::npos)
                diff.pairing.explanation +=
                    " No step of the baseline has a partner in the candidate.";
            return diff;
        }
    }

    // Categories: the step time and its breakdown, per aligned step, host pair by host pair.
    if (!diff.wholeProfiles) {
        // PyTorch profiles: the plugin's steps, as their overview shows them.
        TorchSteps torchBase, torchCandidate;
        if (isTorchProfile(base) && isTorchProfile(candidate)) {
            torchBase = torchStepsOf(base, progress);
            torchCandidate = torchStepsOf(candidate, progress);
            if (progress && progress->cancelled()) return {};
            for (auto [b, c] : diff.pairing.pairs)
                diff.torchCategories =
                    diff.torchCategories || (torchBase.find(diff.baseSteps.steps[b]) &&
                                             torchCandidate.find(diff.candidateSteps.steps[c]));
        }
        for (const HostPair& h : diff.hostPairs) {
            std::vector<DiffRow> rows;
            // `value(step, isBase)`: the row's time in that step, or none; a pair counts when
            // both of its steps have one.
            auto add = [&](std::string name, auto value) {
                DiffRow row;
                row.host = h.label;
                row.name = std::move(name);
                row.baseTensorCorePercent = row.candidateTensorCorePercent = Table::missing();
                for (size_t i = h.firstPair; i < h.firstPair + h.pairCount; ++i) {
                    const auto [b, c] = diff.pairing.pairs[i];
                    const std::optional<int64_t> vb = value(diff.baseSteps.steps[b], true);
                    const std::optional<int64_t> vc = value(diff.candidateSteps.steps[c], false);
                    if (!vb || !vc) continue;
                    row.base.perStepUs.push_back(double(*vb) / kPsPerUs);
                    row.candidate.perStepUs.push_back(double(*vc) / kPsPerUs);
                    row.base.totalPs += *vb;
                    row.candidate.totalPs += *vc;
                    ++row.base.count;
                }
                row.candidate.count = row.base.count;
                // A category neither run has (compilation, always 0 as in XProf) is no row.
                if (row.base.totalPs == 0 && row.candidate.totalPs == 0) return;
                rows.push_back(std::move(row));
            };
            if (h.pairCount == 0) continue;
            if (diff.torchCategories) {
                auto torch = [&](const StepRecord& s, bool isBase) {
                    return (isBase ? torchBase : torchCandidate).find(s);
                };
                add("Step time", [&](const StepRecord& s, bool isBase) -> std::optional<int64_t> {
                    const TorchStepCosts* t = torch(s, isBase);
                    if (!t) return std::nullopt;
                    return t->range.end - t->range.start;
                });
                for (size_t r = 0; r < kTorchRoleCount; ++r)
                    add(std::string(torchRoleName(TorchRole(r))),
                        [&, r](const StepRecord& s, bool isBase) -> std::optional<int64_t> {
                            const TorchStepCosts* t = torch(s, isBase);
                            if (!t) return std::nullopt;
                            return t->ps[r];
                        });
            } else {
                add("Step time", [](const StepRecord& s, bool) -> std::optional<int64_t> {
                    return s.durationPs;
                });
                for (size_t k = 0; k < kStepCategoryCount; ++k)
                    add(std::string(stepCategoryName(StepCategory(k))),
                        [k](const StepRecord& s, bool) -> std::optional<int64_t> {
                            return s.categoryPs[k];
                        });
            }
            for (DiffRow& r : rows) diff.categories.push_back(std::move(r));
        }
        classifyDiffRows(diff.categories, diff.confidence, diff.minChangePercent);
        // Per host pair: the step time first, then the categories by |delta|.
        std::vector<DiffRow> ordered;
        for (size_t i = 0; i < diff.categories.size();) {
            size_t j = i + 1;
            while (j < diff.categories.size() && diff.categories[j].host == diff.categories[i].host)
                ++j;
            std::vector<DiffRow> rest(std::make_move_iterator(diff.categories.begin() + i + 1),
                                      std::make_move_iterator(diff.categories.begin() + j));
            sortDiffRows(rest);
            ordered.push_back(std::move(diff.categories[i]));
            for (DiffRow& r : rest) ordered.push_back(std::move(r));
            i = j;
        }
        diff.categories = std::move(ordered);
    }
    if (progress) progress->report("Ops and kernels", 0.6);

    RowSet ops, kernels;
    for (const HostPair& h : diff.hostPairs) {
        if (h.pairCount == 0) continue;
        if (!collect(base, h, windowsOf(diff.baseSteps, diff.pairing, h, true, diff.wholeProfiles),
                     true, ops, kernels, progress) ||
            !collect(candidate, h,
                     windowsOf(diff.candidateSteps, diff.pairing, h, false, diff.wholeProfiles),
                     false, ops, kernels, progress))
            return {};
    }
    for (size_t r = 0; r < ops.rows().size(); ++r) {
        DiffRow& row = ops.rows()[r];
        if (ops.kernelPs_[r][0] > 0)
            row.baseTensorCorePercent =
                100.0 * double(ops.tensorCorePs_[r][0]) / double(ops.kernelPs_[r][0]);
        if (ops.kernelPs_[r][1] > 0)
            row.candidateTensorCorePercent =
                100.0 * double(ops.tensorCorePs_[r][1]) / double(ops.kernelPs_[r][1]);
    }
    diff.ops = std::move(ops.rows());
    diff.kernels = std::move(kernels.rows());
    if (progress) progress->report("Host ops", 0.8);
    HostOpTally hostOps(options.pythonFunctions);
    for (const HostPair& h : diff.hostPairs) {
        if (h.pairCount == 0) continue;
        if (!hostOps.add(base, h.base, h.label, h.pairCount,
                         windowsOf(diff.baseSteps, diff.pairing, h, true, diff.wholeProfiles), true,
                         progress) ||
            !hostOps.add(candidate, h.candidate, h.label, h.pairCount,
                         windowsOf(diff.candidateSteps, diff.pairing, h, false, diff.wholeProfiles),
                         false, progress))
            return {};
    }
    diff.hostOps = hostOps.finish(diff.confidence, diff.minChangePercent);
    if (progress) progress->report("Tests", 0.9);
    classifyDiffRows(diff.ops, diff.confidence, diff.minChangePercent);
    if (progress && progress->cancelled()) return {};
    classifyDiffRows(diff.kernels, diff.confidence, diff.minChangePercent);
    if (progress && progress->cancelled()) return {};
    sortDiffRows(diff.ops);
    sortDiffRows(diff.kernels);

    // Callouts: precision and Tensor Core use.
    if (!diff.wholeProfiles) {
        double b16 = 0, b32 = 0, c16 = 0, c32 = 0;
        for (auto [b, c] : diff.pairing.pairs) {
            b16 += double(diff.baseSteps.steps[b].ps(StepCategory::DeviceCompute16));
            b32 += double(diff.baseSteps.steps[b].ps(StepCategory::DeviceCompute32));
            c16 += double(diff.candidateSteps.steps[c].ps(StepCategory::DeviceCompute16));
            c32 += double(diff.candidateSteps.steps[c].ps(StepCategory::DeviceCompute32));
        }
        if (b16 + b32 > 0 && c16 + c32 > 0) {
            const double bShare = 100 * b16 / (b16 + b32), cShare = 100 * c16 / (c16 + c32);
            if (std::fabs(cShare - bShare) >= kCalloutPoints)
                diff.callouts.push_back(
                    {"diff_precision", cShare - bShare,
                     std::string("16-bit precision ") + (cShare > bShare ? "rose" : "dropped") +
                         ": device compute in 16-bit went from " + diffPercentText(bShare) +
                         " to " + diffPercentText(cShare) + " of device compute time."});
        }
    }
    for (const DiffRow& row : diff.ops) {
        const double b = row.baseTensorCorePercent, c = row.candidateTensorCorePercent;
        if (std::isnan(b) || std::isnan(c)) continue;
        if ((b == 0) != (c == 0) || std::fabs(c - b) >= kCalloutPoints)
            diff.callouts.push_back({"diff_tensor_core", c - b,
                                     std::string("Tensor Core use ") +
                                         (c > b ? "rose" : "dropped") + ": " + row.name + " ran " +
                                         diffPercentText(b) +
                                         " of its kernel time on Tensor Cores in the baseline, " +
                                         diffPercentText(c) + " in the candidate."});
    }
    if (progress) progress->report("Ops and kernels", 1);
    return diff;
}

} // namespace stepscope
