#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/Profile.h"
#include "model/analysis/StepAnalysis.h"

namespace stepscope {

// Which step of the candidate run goes with which step of the baseline, and which host with which
// host: the pairing a run diff (RunDiff.h) compares.
enum class StepAlignment : uint8_t {
    Auto,     // by order; shifted by up to kMaxAutoShift steps when that pairs far closer steps
              // than the step-to-step noise explains (see pairSteps)
    ByOrder,  // the i-th baseline step with the (i + shift)-th candidate step
    ByNumber, // baseline step number s with candidate step number s + shift
};
inline constexpr int kMaxAutoShift = 2;

// Hosts (ranks) of the two runs, paired and compared pair by pair, never summed: each host pair
// has its own steps (StepRecord::host), its own step pairing and its own rows.
enum class HostMatching : uint8_t {
    Auto,    // by name when the runs share a host name, else by order
    ByName,  // hosts of the same name (Host::name); a host without a namesake is left out
    ByOrder, // the i-th host of the baseline with the i-th of the candidate (Profile::hosts())
};

struct StepPairingOptions {
    StepAlignment alignment = StepAlignment::Auto;
    int shift = 0; // ByOrder / ByNumber
    // Baseline step numbers to compare, inclusive; unset = no bound.
    std::optional<int64_t> firstStep, lastStep;
};

struct StepPairing {
    StepAlignment alignment = StepAlignment::ByOrder; // what was used (Auto resolves to ByOrder)
    int shift = 0;
    std::vector<std::pair<size_t, size_t>> pairs; // indices into base / candidate steps
    std::string explanation;                      // one sentence for the user
};

// One pair of hosts compared; its step pairs are pairing.pairs[firstPair, firstPair + pairCount).
struct HostPair {
    uint32_t base = 0, candidate = 0; // Profile::hosts() indices
    std::string label; // "name", or "baseline name / candidate name" when they differ
    size_t firstPair = 0, pairCount = 0;
};

// The pairing of two runs' steps (options: alignment, shift, step range). Auto: by order, with the
// shift k in [-kMaxAutoShift, kMaxAutoShift] (at least half of the shorter run paired) whose
// pairs have the smallest mean L1 distance of their step breakdowns, taken only when that is
// below the unshifted mean and each of the |k| unshifted pairs that hold the steps it leaves out
// (the first |k|) is more than 3 times the median unshifted pair distance (the step-to-step
// noise) apart: a warm-up step is far from every other step, a lucky match of jitter is not.
StepPairing pairSteps(const StepAnalysis& base, const StepAnalysis& candidate,
                      const StepPairingOptions& options);

// The hosts of the two runs paired (options.hosts); labels set, step pairs not yet.
std::vector<HostPair> pairHosts(const Profile& base, const Profile& candidate, HostMatching how,
                                HostMatching* used = nullptr);

} // namespace stepscope
