#pragma once

#include <string_view>

namespace stepscope {

// How much a finding (an overview recommendation, a run diff finding) or a bottleneck
// classification weighs: high first.
enum class Level { High, Moderate, Info };

// The level as JSON, CSV and the pages write it: high, moderate, info.
std::string_view levelKey(Level level);

} // namespace stepscope
