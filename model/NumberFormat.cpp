#include "model/NumberFormat.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace stepscope {

std::string shortestNumber(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    char buf[32];
    // Without a format or precision, to_chars writes the shortest text that round-trips.
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string formatBytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double a = std::fabs(bytes);
    while (a >= 1024 && u < 4) {
        a /= 1024;
        bytes /= 1024;
        ++u;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
    return buf;
}

std::string formatSi(double v) {
    const char* prefixes[] = {"", " k", " M", " G", " T", " P", " E"};
    int p = 0;
    double a = std::fabs(v);
    // Round to 3 significant digits first, so 999.7 reads "1.00 k", not "1000".
    while (p < 6 && a >= 999.5) {
        a /= 1000;
        v /= 1000;
        ++p;
    }
    char buf[64];
    if (p == 0 && v == std::floor(v)) {
        std::snprintf(buf, sizeof buf, "%.0f", v);
    } else {
        const int decimals = a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2;
        std::snprintf(buf, sizeof buf, "%.*f%s", decimals, v, prefixes[p]);
    }
    return buf;
}

std::string fixedDecimals(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

} // namespace stepscope
