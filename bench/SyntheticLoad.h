#pragma once

#include <string>

#include "model/ProfileLoader.h"
#include "model/synthetic/SyntheticProfile.h"

namespace stepscope::bench {

// A synthetic profile loaded the way a user's file is: written (streaming) to a temporary folder,
// opened from there, and the file deleted. The XSpace bytes never sit in memory beside the
// profile, so benchmarks reach 100M events within this machine's memory.
LoadResult loadSyntheticProfile(const SyntheticOptions& options, const std::string& hostName);

} // namespace stepscope::bench
