#include "model/analysis/DiffWording.h"

#include <cmath>
#include <cstdio>

namespace stepscope {

std::string diffPercentText(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", v);
    return buf;
}

std::string diffSignedPercentText(double v) {
    return (v > 0 ? "+" : "") + diffPercentText(v);
}

std::string diffDurationText(double us) {
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

} // namespace stepscope
