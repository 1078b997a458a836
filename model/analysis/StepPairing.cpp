#include "model/analysis/StepPairing.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <unordered_map>

#include "model/analysis/DiffWording.h"
#include "model/analysis/ShiftTest.h"

namespace stepscope {

namespace {

// Auto alignment shifts only when the unshifted pairs holding the steps the shift leaves out are
// more than this many times the unshifted pairing's median pair distance (the step-to-step noise)
// apart: a warm-up step is, a lucky match of jitter is not.
constexpr double kAutoShiftNoiseFactor = 3;

constexpr double kPsPerUs = 1e6;

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
                      const StepPairingOptions& options) {
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
                                 diffDurationText(bestDistance / kPsPerUs) + " instead of " +
                                 diffDurationText(unshifted / kPsPerUs) + " unshifted.";
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

} // namespace stepscope
