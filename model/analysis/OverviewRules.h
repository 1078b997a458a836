#pragma once

#include <vector>

#include "model/Profile.h"
#include "model/analysis/Overview.h"
#include "model/analysis/TfOpStats.h"

namespace stepscope {

// The overview's recommendations, in the order the page lists them. Each is a rule of its own in
// OverviewRules.cpp that tests one threshold (Overview.h) and returns its finding, or none, with
// the number it tested and its evidence (the tool and time range that show it): the PyTorch
// plugin's DataLoader rule, XProf's
// bottleneck verdicts (input, output, kernel launch, all others, collectives), mixed precision,
// gaps between steps, per GPU exposed copies, starvation and low utilization, replica imbalance,
// Tensor Core misses, and Nsight Systems' synchronous copy, synchronization and pageable copy
// rules. `o` is the overview without its recommendations.
std::vector<Recommendation> overviewRecommendations(const Profile& p, const Overview& o,
                                                    const TfOpStats& ops);

} // namespace stepscope
