#pragma once

#include <string>
#include <vector>

namespace stepscope {

// One slice of a pie chart an analysis asks for: a label and a non-negative value (any unit; the
// chart shows shares). Analyses return them largest first; the chart folds the tail into "Other".
struct PieSlice {
    std::string label;
    double value = 0;
};

using PieData = std::vector<PieSlice>;

} // namespace stepscope
