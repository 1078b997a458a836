#include "model/TimeFormat.h"

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

} // namespace stepscope
