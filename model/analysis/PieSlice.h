#pragma once

#include <string>
#include <vector>

namespace stepscope {

// One slice of a pie chart an analysis asks for: a label and a non-negative value (any unit; the
// chart shows shares). Analyses return them largest first; the chart folds the tail into "Other".
struct PieSlice {
    std::string label;
    double value = 0;
    std::string legend; // a shorter label for the legend; the full label shows on hover
};

using PieData = std::vector<PieSlice>;

} // namespace stepscope
