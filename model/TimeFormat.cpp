#include "model/TimeFormat.h"

#include <algorithm>
#include <cstdio>

namespace stepscope {

std::string formatDuration(int64_t ps) {
    const int64_t a = ps < 0 ? -ps : ps;
    char buf[64];
    if (a < 1000)
        std::snprintf(buf, sizeof buf, "%lld ps", static_cast<long long>(ps));
    else if (a < 1000000)
        std::snprintf(buf, sizeof buf, "%.3f ns", double(ps) / 1e3);
    else if (a < 1000000000)
        std::snprintf(buf, sizeof buf, "%.3f µs", double(ps) / 1e6);
    else if (a < 1000000000000)
        std::snprintf(buf, sizeof buf, "%.3f ms", double(ps) / 1e9);
    else
        std::snprintf(buf, sizeof buf, "%.3f s", double(ps) / 1e12);
    return buf;
}

std::string formatTimePoint(int64_t ps, int64_t resolutionPs) {
    const int64_t a = ps < 0 ? -ps : ps;
    struct Unit {
        int64_t ps;
        int maxDecimals;
        const char* name;
    };
    static constexpr Unit kUnits[] = {
        {1000000000000, 12, "s"}, {1000000000, 9, "ms"}, {1000000, 6, "µs"}, {1000, 3, "ns"}};
    for (const Unit& u : kUnits) {
        if (a < u.ps) continue;
        int decimals = 0;
        for (int64_t q = u.ps; q > std::max<int64_t>(1, resolutionPs) && decimals < u.maxDecimals;
             q /= 10)
            ++decimals;
        decimals = std::max(decimals, 3);
        // Whole units and the remainder apart: a double holds no 15-digit picosecond count.
        const int64_t whole = a / u.ps, rest = a % u.ps;
        int64_t scale = 1;
        for (int i = decimals; i < u.maxDecimals; ++i) scale *= 10;
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s%lld.%0*lld %s", ps < 0 ? "-" : "",
                      static_cast<long long>(whole), decimals, static_cast<long long>(rest / scale),
                      u.name);
        return buf;
    }
    return formatDuration(ps);
}

} // namespace stepscope
