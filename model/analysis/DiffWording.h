#pragma once

#include <string>

namespace stepscope {

// Numbers as the run diff's sentences and column tips write them.
std::string diffPercentText(double v);       // one decimal: "12.3%"
std::string diffSignedPercentText(double v); // with a + when above 0: "+12.3%", "-4.0%"
std::string diffDurationText(double us);     // 3 significant digits: "950 µs", "1.25 ms", "2.5 s"

} // namespace stepscope
