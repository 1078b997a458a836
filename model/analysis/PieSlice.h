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
    size_t items = 1;   // how many items (ops, kernels) the slice folds together
};

using PieData = std::vector<PieSlice>;

// Makes the legends of the first `count` slices tell apart slices whose legends read the same:
// op paths ("…/GatherV2/Cast" twice) show the component that sets each apart, then their last
// two ("replica_4/…/GatherV2/Cast"; the full path where that still reads the same); other
// names (six "EigenMetaKernel<…>") keep their short form followed by up to `extraChars` of the
// full name from where it first differs from the others ("EigenMetaKernel<…> · …sum_op<float>…").
// Legends already distinct are left alone.
void distinguishLegends(PieData& slices, size_t count, size_t extraChars = 24);

} // namespace stepscope
