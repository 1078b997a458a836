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
#include "model/analysis/KernelFacts.h"
#include "model/analysis/OpName.h"
#include "model/analysis/TorchOverview.h"

namespace stepscope {

namespace {

// A change of Tensor Core share or of 16-bit precision share smaller than this many percentage
// points is not called out.
constexpr double kCalloutPoints = 10;
// Auto alignment shifts only when the unshifted pairs holding the steps the shift leaves out are
// more than this many times the unshifted pairing's median pair distance (the step-to-step noise)
// apart: a warm-up step is, a lucky match of jitter is not.
constexpr double kAutoShiftNoiseFactor = 3;

constexpr double kPsPerUs = 1e6;
constexpr uint32_t kNoRow = 0xFFFFFFFFu;

std::string percentText(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", v);
    return buf;
}

std::string signedPercentText(double v) {
    return (v > 0 ? "+" : "") + percentText(v);
}

std::string durationText(double us) {
    char buf[48];
    const double a = std::fabs(us);
    if (a >= 1e6)
        std::snprintf(buf, sizeof buf, "%.3g s", us / 1e6);
    else if (a >= 1e3)
        std::snprintf(buf, sizeof buf, "%.3g ms", us / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.3g µs", us);
    return buf;
}

// L1 distances between paired steps' breakdowns (which sum to their durations), in ps.
std::vector<double> pairDistances(const StepAnalysis& base, const StepAnalysis& candidate,
                                  const std::vector<std::pair<size_t, size_t>>& pairs) {
    std::vector<double> distances;
    for (auto [b, c] : pairs) {
        double sum = 0;
        for (size_t k = 0; k < kStepCategoryCount; ++k)
            sum += std::fabs(double(base.steps[b].categoryPs[k]) -
                             double(candidate.steps[c].categoryPs[k]));
        distances.push_back(sum);
    }
    return distances;
}

double mean(const std::vector<double>& v) {
    if (v.empty()) return std::numeric_limits<double>::infinity();
    double sum = 0;
    for (double x : v) sum += x;
    return sum / double(v.size());
}

std::vector<std::pair<size_t, size_t>> orderPairs(size_t nb, size_t nc, int shift) {
    std::vector<std::pair<size_t, size_t>> pairs;
    for (size_t i = 0; i < nb; ++i) {
        const long long j = (long long)i + shift;
        if (j >= 0 && j < (long long)nc) pairs.emplace_back(i, size_t(j));
    }
    return pairs;
}

std::string shiftPhrase(int shift) {
    if (shift == 0) return "unshifted";
    const int a = std::abs(shift);
    return std::string(shift > 0 ? "the candidate's" : "the baseline's") + " first " +
           (a == 1 ? std::string("step") : std::to_string(a) + " steps") + " left out";
}

} // namespace

StepPairing pairSteps(const StepAnalysis& base, const StepAnalysis& candidate,
                      const RunDiffOptions& options) {
    StepPairing result;
    const size_t nb = base.steps.size(), nc = candidate.steps.size();
    result.shift = options.shift;
    if (options.alignment == StepAlignment::ByNumber) {
        result.alignment = StepAlignment::ByNumber;
        std::unordered_map<int64_t, size_t> byNumber;
        for (size_t j = 0; j < nc; ++j) byNumber.emplace(candidate.steps[j].number, j);
        for (size_t i = 0; i < nb; ++i) {
            const auto it = byNumber.find(base.steps[i].number + options.shift);
            if (it != byNumber.end()) result.pairs.emplace_back(i, it->second);
        }
        result.explanation = "Steps paired by step number" +
                             (options.shift ? ", candidate number = baseline number " +
                                                  std::string(options.shift > 0 ? "+ " : "- ") +
                                                  std::to_string(std::abs(options.shift))
                                            : std::string()) +
                             ".";
    } else if (options.alignment == StepAlignment::ByOrder) {
        result.alignment = StepAlignment::ByOrder;
        result.pairs = orderPairs(nb, nc, options.shift);
        result.explanation = "Steps paired by order (" + shiftPhrase(options.shift) + ").";
    } else {
        result.alignment = StepAlignment::ByOrder;
        const size_t needed = (std::min(nb, nc) + 1) / 2;
        const std::vector<double> zero = pairDistances(base, candidate, orderPairs(nb, nc, 0));
        const double unshifted = mean(zero);
        const double noise = median(zero);
        int best = 0;
        double bestDistance = unshifted;
        for (int k = -kMaxAutoShift; k <= kMaxAutoShift; ++k) {
            const auto pairs = orderPairs(nb, nc, k);
            if (k == 0 || pairs.size() < std::max<size_t>(needed, 1)) continue;
            const double d = mean(pairDistances(base, candidate, pairs));
            if (d < bestDistance) {
                bestDistance = d;
                best = k;
            }
        }
        if (best != 0) {
            for (size_t i = 0; i < size_t(std::abs(best)); ++i)
                if (!(i < zero.size() && zero[i] > kAutoShiftNoiseFactor * noise)) best = 0;
        }
        result.shift = best;
        result.pairs = orderPairs(nb, nc, best);
        if (best == 0) {
            result.explanation = "Steps paired by order.";
        } else {
            result.explanation = "Steps paired by order with " + shiftPhrase(best) +
                                 ": that pairs steps of a mean breakdown distance of " +
                                 durationText(bestDistance / kPsPerUs) + " instead of " +
                                 durationText(unshifted / kPsPerUs) + " unshifted.";
        }
    }
    if (options.firstStep || options.lastStep) {
        const bool hadPairs = !result.pairs.empty();
        std::erase_if(result.pairs, [&](const std::pair<size_t, size_t>& p) {
            const int64_t s = base.steps[p.first].number;
            return (options.firstStep && s < *options.firstStep) ||
                   (options.lastStep && s > *options.lastStep);
        });
        result.explanation +=
            " Baseline steps " + (options.firstStep ? std::to_string(*options.firstStep) : "") +
            ":" + (options.lastStep ? std::to_string(*options.lastStep) : "") + " only.";
        if (hadPairs && result.pairs.empty())
            result.explanation += " No paired baseline step lies in that range.";
    }
    return result;
}

namespace {

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

std::vector<HostPair> pairHosts(const Profile& base, const Profile& candidate, HostMatching how,
                                HostMatching* used) {
    const std::vector<Host>& bh = base.hosts();
    const std::vector<Host>& ch = candidate.hosts();
    std::unordered_map<std::string, uint32_t> candidateByName;
    for (uint32_t j = 0; j < ch.size(); ++j) candidateByName.emplace(ch[j].name, j);
    if (how == HostMatching::Auto) {
        how = HostMatching::ByOrder;
        for (const Host& h : bh)
            if (candidateByName.count(h.name)) how = HostMatching::ByName;
    }
    if (used) *used = how;
    std::vector<HostPair> pairs;
    for (uint32_t i = 0; i < bh.size(); ++i) {
        HostPair p;
        p.base = i;
        if (how == HostMatching::ByName) {
            const auto it = candidateByName.find(bh[i].name);
            if (it == candidateByName.end()) continue;
            p.candidate = it->second;
        } else {
            if (i >= ch.size()) break;
            p.candidate = i;
        }
        p.label = bh[i].name == ch[p.candidate].name ? bh[i].name
                                                     : bh[i].name + " / " + ch[p.candidate].name;
        pairs.push_back(std::move(p));
    }
    return pairs;
}

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
                         ": device compute in 16-bit went from " + percentText(bShare) + " to " +
                         percentText(cShare) + " of device compute time."});
        }
    }
    for (const DiffRow& row : diff.ops) {
        const double b = row.baseTensorCorePercent, c = row.candidateTensorCorePercent;
        if (std::isnan(b) || std::isnan(c)) continue;
        if ((b == 0) != (c == 0) || std::fabs(c - b) >= kCalloutPoints)
            diff.callouts.push_back({"diff_tensor_core", c - b,
                                     std::string("Tensor Core use ") +
                                         (c > b ? "rose" : "dropped") + ": " + row.name + " ran " +
                                         percentText(b) +
                                         " of its kernel time on Tensor Cores in the baseline, " +
                                         percentText(c) + " in the candidate."});
    }
    if (progress) progress->report("Ops and kernels", 1);
    return diff;
}

Table runDiffTable(const RunDiff& diff, DiffBy by) {
    const bool hosts = diff.hostPairs.size() > 1 || !diff.hostExplanation.empty();
    if (by == DiffBy::HostOp) return hostOpTable(diff.hostOps, hosts, diff.confidence);
    Table t;
    const std::vector<DiffRow>& rows = by == DiffBy::Category ? diff.categories
                                       : by == DiffBy::Op     ? diff.ops
                                                              : diff.kernels;
    const std::string level = percentText(100 * diff.confidence);
    using T = Table::Type;
    using F = ColumnFormat;
    if (hosts)
        t.addColumn("Host", T::Text, F::Plain,
                    "the host pair compared: its name, or baseline / candidate names");
    if (by == DiffBy::Op) t.addColumn("Type", T::Text);
    t.addColumn(by == DiffBy::Category ? "Category"
                : by == DiffBy::Op     ? "Operation"
                                       : "Kernel",
                T::Text);
    if (by == DiffBy::Kernel) t.addColumn("Launch configuration", T::Text);
    t.addColumn("Class", T::Text, F::Plain,
                "added, removed, slower, faster or unchanged (the verdict of the per-step test); "
                "inconclusive: the totals moved but too few steps to tell that from noise");
    t.addColumn("Evidence", T::Text, F::Plain,
                "significant: the " + level +
                    " interval of the per-step shift excludes 0 (and Benjamini-Hochberg over the "
                    "table passes); within noise: it includes 0; noise across rows: it excludes 0, "
                    "but with this many rows such a p-value is expected from noise; too few "
                    "steps: no interval reaches the confidence; one step each: no noise estimate "
                    "is possible");
    const char* countName = by == DiffBy::Category ? "steps" : "count";
    t.addColumn(std::string("Baseline ") + countName, T::Int);
    t.addColumn(std::string("Candidate ") + countName, T::Int);
    t.addColumn("Baseline total (µs)", T::Double, F::Microseconds);
    t.addColumn("Candidate total (µs)", T::Double, F::Microseconds);
    t.addColumn("Delta total (µs)", T::Double, F::Microseconds, "candidate total - baseline total");
    t.addColumn("Ratio", T::Double, F::Plain, "candidate total / baseline total");
    t.addColumn("Baseline avg (µs)", T::Double, F::Microseconds,
                by == DiffBy::Category ? "per step" : "per event");
    t.addColumn("Candidate avg (µs)", T::Double, F::Microseconds,
                by == DiffBy::Category ? "per step" : "per event");
    t.addColumn("Shift per step (µs)", T::Double, F::Microseconds,
                "Hodges-Lehmann estimate: the median of all candidate - baseline per-step "
                "differences");
    t.addColumn("Shift low (µs)", T::Double, F::Microseconds, level + " interval, lower end");
    t.addColumn("Shift high (µs)", T::Double, F::Microseconds, level + " interval, upper end");
    t.addColumn("Change (%)", T::Double, F::Percent,
                "shift per step / baseline mean per-step time (without a test: of the totals)");
    t.addColumn("p-value", T::Double, F::Plain, "two-sided Mann-Whitney U test");
    t.addColumn(
        "Adjusted p", T::Double, F::Plain,
        "Benjamini-Hochberg over this table's tested rows; significant needs this at most " +
            shortestNumber(1 - diff.confidence) + " and an interval that excludes 0");
    if (by == DiffBy::Op) {
        t.addColumn("Baseline TensorCore (%)", T::Double, F::Percent,
                    "share of the op's kernel time in kernels that use Tensor Cores");
        t.addColumn("Candidate TensorCore (%)", T::Double, F::Percent,
                    "share of the op's kernel time in kernels that use Tensor Cores");
    }
    if (by == DiffBy::Kernel) t.addColumn("Kernel uses TensorCore", T::Int, F::Bool);

    const double none = Table::missing();
    for (const DiffRow& r : rows) {
        std::vector<Table::Cell> cells;
        if (hosts) cells.emplace_back(r.host);
        if (by == DiffBy::Op) cells.emplace_back(r.type);
        cells.emplace_back(r.name);
        if (by == DiffBy::Kernel) cells.emplace_back(r.type);
        cells.emplace_back(std::string(diffClassName(r.diffClass)));
        cells.emplace_back(std::string(diffEvidenceText(r.evidence)));
        cells.emplace_back(int64_t(r.base.count));
        cells.emplace_back(int64_t(r.candidate.count));
        const double bt = double(r.base.totalPs) / kPsPerUs;
        const double ct = double(r.candidate.totalPs) / kPsPerUs;
        cells.emplace_back(bt);
        cells.emplace_back(ct);
        cells.emplace_back(double(r.candidate.totalPs - r.base.totalPs) / kPsPerUs);
        cells.emplace_back(r.base.totalPs > 0 ? ct / bt : none);
        cells.emplace_back(r.base.count ? bt / double(r.base.count) : none);
        cells.emplace_back(r.candidate.count ? ct / double(r.candidate.count) : none);
        const bool tested = r.base.perStepUs.size() >= 2;
        cells.emplace_back(tested ? r.test.shift : none);
        cells.emplace_back(r.test.interval ? r.test.interval->first : none);
        cells.emplace_back(r.test.interval ? r.test.interval->second : none);
        cells.emplace_back(r.relativeKnown ? r.relativeShiftPercent : none);
        cells.emplace_back(tested ? r.test.pValue : none);
        cells.emplace_back(std::isnan(r.adjustedPValue) ? none : r.adjustedPValue);
        if (by == DiffBy::Op) {
            cells.emplace_back(r.baseTensorCorePercent);
            cells.emplace_back(r.candidateTensorCorePercent);
        }
        if (by == DiffBy::Kernel) cells.emplace_back(int64_t(r.usesTensorCore ? 1 : 0));
        t.addRow(std::move(cells));
    }
    return t;
}

namespace {

// A name as a finding quotes it: C++ kernel names with their template and argument lists run to
// hundreds of characters; past kFindingNameChars they are cut (the tables keep them whole).
constexpr size_t kFindingNameChars = 80;
std::string findingName(const std::string& name) {
    if (name.size() <= kFindingNameChars) return name;
    size_t cut = kFindingNameChars;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut; // UTF-8
    return name.substr(0, cut) + "…";
}

// Calls per step: "1", "2.5", "0.333".
std::string perStepText(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

// "1 call", "2.5 calls".
std::string callsText(double calls) {
    return perStepText(calls) + (calls == 1 ? " call" : " calls");
}

} // namespace

std::vector<Recommendation> runDiffFindings(const RunDiff& diff, size_t maxRows) {
    std::vector<Recommendation> out;
    if (diff.pairing.pairs.empty()) return out;
    // Each row's own number of step pairs (its host pair's).
    auto pairsOf = [](const DiffRow& r) { return r.base.perStepUs.size(); };
    auto onHost = [](const DiffRow& r) { return r.host.empty() ? "" : " on " + r.host; };
    char levelText[16];
    std::snprintf(levelText, sizeof levelText, "%.3g%%", 100 * diff.confidence);
    const std::string level = levelText;
    auto add = [&](std::string id, std::string lvl, std::string text, double value) {
        Recommendation r;
        r.id = std::move(id);
        r.level = std::move(lvl);
        r.text = std::move(text);
        r.value = value;
        r.tool = "run_diff";
        out.push_back(std::move(r));
    };
    // "in every step" / "in N of M steps": the pairs whose candidate value moved the row's way.
    auto steps = [&](const DiffRow& r) {
        const bool slower = r.diffClass == DiffClass::Slower;
        size_t n = 0;
        for (size_t i = 0; i < r.base.perStepUs.size(); ++i)
            if (slower ? r.candidate.perStepUs[i] > r.base.perStepUs[i]
                       : r.candidate.perStepUs[i] < r.base.perStepUs[i])
                ++n;
        return n == pairsOf(r)
                   ? std::string("in every step")
                   : "in " + std::to_string(n) + " of " + std::to_string(pairsOf(r)) + " steps";
    };
    // A significant shift: its size per step and its interval, both also in % of the baseline's
    // mean per-step time (the unit of relativeShiftPercent).
    auto shifted = [&](const std::string& what, const DiffRow& r) {
        const double baseMeanUs = double(r.base.totalPs) / kPsPerUs / double(pairsOf(r));
        const bool slower = r.diffClass == DiffClass::Slower;
        return what + " " + percentText(std::fabs(r.relativeShiftPercent)) + " " +
               (slower ? "slower" : "faster") + " than the baseline " + steps(r) + " (" +
               (r.test.shift > 0 ? "+" : "") + durationText(r.test.shift) + " per step; " + level +
               " interval " + signedPercentText(100 * r.test.interval->first / baseMeanUs) +
               " to " + signedPercentText(100 * r.test.interval->second / baseMeanUs) + ").";
    };
    auto noNoise = [&](const DiffRow& r) {
        const size_t pairs = pairsOf(r);
        return pairs < 2
                   ? std::string("with one step each no noise estimate is possible")
                   : "with " + std::to_string(pairs) + " steps that cannot be told from noise";
    };
    for (const DiffRow& r : diff.categories) {
        if (r.name != "Step time") continue;
        if (r.diffClass == DiffClass::Slower || r.diffClass == DiffClass::Faster)
            add("diff_step_time", r.diffClass == DiffClass::Slower ? "high" : "info",
                shifted("Step time" + onHost(r), r), r.relativeShiftPercent);
        else if (r.diffClass == DiffClass::Inconclusive)
            add("diff_inconclusive", "info",
                "Step time" + onHost(r) + " " + signedPercentText(r.relativeShiftPercent) +
                    " against the baseline, but " + noNoise(r) + ".",
                r.relativeShiftPercent);
    }
    // Op rows, then kernel rows, each largest change first (the tables' order).
    auto rows = [&](const std::vector<DiffRow>& table, const std::string& what,
                    const std::string& id) {
        size_t told = 0;
        for (const DiffRow& r : table) {
            if (told >= maxRows) break;
            const double perStepUs =
                double(r.candidate.totalPs - r.base.totalPs) / kPsPerUs / double(pairsOf(r));
            const std::string name = what + " " + findingName(r.name) + onHost(r);
            if (r.diffClass == DiffClass::Added)
                add(id + "_added", "moderate",
                    name + " added (" + durationText(perStepUs) + " per step).", perStepUs);
            else if (r.diffClass == DiffClass::Removed)
                add(id + "_removed", "moderate",
                    name + " removed (was " + durationText(-perStepUs) + " per step).", perStepUs);
            else if (r.diffClass == DiffClass::Slower)
                add(id + "_slower", "moderate", shifted(name, r), r.relativeShiftPercent);
            else if (r.diffClass == DiffClass::Faster)
                add(id + "_faster", "info", shifted(name, r), r.relativeShiftPercent);
            else
                continue;
            ++told;
        }
    };
    rows(diff.ops, "Op", "diff_op");
    rows(diff.kernels, "Kernel", "diff_kernel");
    // Host ops: added and removed with their calls and time per step, calls that moved, self time
    // that moved.
    size_t toldHostOps = 0;
    for (const HostOpRow& h : diff.hostOps) {
        if (toldHostOps >= maxRows) break;
        const DiffRow& r = h.self;
        const double pairs = double(pairsOf(r));
        const std::string name = "Host op " + findingName(r.name) + onHost(r);
        auto perStep = [&](uint64_t calls, int64_t totalPs) {
            return callsText(double(calls) / pairs) + " and " +
                   durationText(double(totalPs) / kPsPerUs / pairs) + " per step";
        };
        const bool more = r.diffClass == DiffClass::MoreCalls;
        if (r.diffClass == DiffClass::Added)
            add("diff_host_op_added", "moderate",
                name + " added (" + perStep(r.candidate.count, h.candidateTotalPs) + ").",
                double(h.candidateTotalPs) / kPsPerUs / pairs);
        else if (r.diffClass == DiffClass::Removed)
            add("diff_host_op_removed", "moderate",
                name + " removed (was " + perStep(r.base.count, h.baseTotalPs) + ").",
                -double(h.baseTotalPs) / kPsPerUs / pairs);
        else if (more || r.diffClass == DiffClass::FewerCalls)
            add(more ? "diff_host_op_more_calls" : "diff_host_op_fewer_calls",
                more ? "moderate" : "info",
                name + " called " + (more ? "more" : "less") + " often than the baseline " +
                    steps(h.calls) + " (" + perStepText(double(r.base.count) / pairs) + " → " +
                    perStepText(double(r.candidate.count) / pairs) + " calls per step).",
                h.calls.relativeShiftPercent);
        else if (r.diffClass == DiffClass::Slower)
            add("diff_host_op_slower", "moderate", shifted(name + " (self time)", r),
                r.relativeShiftPercent);
        else if (r.diffClass == DiffClass::Faster)
            add("diff_host_op_faster", "info", shifted(name + " (self time)", r),
                r.relativeShiftPercent);
        else
            continue;
        ++toldHostOps;
    }
    // Moves that could not be tested are counted, in every table, never named as changes. The
    // largest by time is named (a host op by its self time; "calls" when its calls moved); of
    // equal moves, the first met in the order ops, kernels, host ops, categories.
    struct Untested {
        const char* one;
        const char* many;
        size_t count = 0;
    };
    std::array<Untested, 4> untested{{{"op", "ops"},
                                      {"kernel", "kernels"},
                                      {"host op", "host ops"},
                                      {"category", "categories"}}};
    const DiffRow* largest = nullptr;
    std::string largestText;
    auto consider = [&](size_t table, const DiffRow& r, const DiffRow& moved, bool calls) {
        if (r.diffClass != DiffClass::Inconclusive) return;
        ++untested[table].count;
        if (largest && std::llabs(r.candidate.totalPs - r.base.totalPs) <=
                           std::llabs(largest->candidate.totalPs - largest->base.totalPs))
            return;
        largest = &r;
        largestText = std::string(untested[table].one) + " " + findingName(r.name) + onHost(r) +
                      ", " + (calls ? "calls " : "") +
                      signedPercentText(moved.relativeShiftPercent);
    };
    for (const DiffRow& r : diff.ops) consider(0, r, r, false);
    for (const DiffRow& r : diff.kernels) consider(1, r, r, false);
    for (const HostOpRow& h : diff.hostOps) {
        const bool calls = h.calls.diffClass == DiffClass::Inconclusive;
        consider(2, h.self, calls ? h.calls : h.self, calls);
    }
    for (const DiffRow& r : diff.categories)
        if (r.name != "Step time") consider(3, r, r, false);
    if (largest) {
        size_t total = 0;
        std::string tables;
        for (const Untested& u : untested) {
            if (u.count == 0) continue;
            total += u.count;
            tables += (tables.empty() ? "" : ", ") + std::to_string(u.count) + " " +
                      (u.count == 1 ? u.one : u.many);
        }
        add("diff_inconclusive", "info",
            std::to_string(total) + (total == 1 ? " row" : " rows") + " moved by " +
                shortestNumber(diff.minChangePercent) + "% or more (" + tables + "), but " +
                noNoise(*largest) + " (largest: " + largestText + ").",
            double(total));
    }
    for (const DiffCallout& c : diff.callouts)
        add(c.id, c.points > 0 ? "info" : "moderate", c.text, c.points);
    return out;
}

std::vector<std::string> runDiffSummary(const RunDiff& diff) {
    std::vector<std::string> lines;
    for (Recommendation& r : runDiffFindings(diff)) lines.push_back(std::move(r.text));
    return lines;
}

} // namespace stepscope
