#include "model/analysis/GpuTime.h"

#include <algorithm>
#include <cctype>

namespace stepscope {

namespace {

using Interval = GpuIdleGap;

bool containsIgnoreCase(std::string_view s, std::string_view p) {
    if (p.size() > s.size()) return false;
    for (size_t i = 0; i + p.size() <= s.size(); ++i) {
        size_t k = 0;
        while (k < p.size() && std::tolower(uint8_t(s[i + k])) == std::tolower(uint8_t(p[k]))) ++k;
        if (k == p.size()) return true;
    }
    return false;
}

} // namespace

bool isCollectiveKernelName(std::string_view name) {
    return containsIgnoreCase(name, "nccl") || containsIgnoreCase(name, "rccl");
}

std::vector<GpuIdleGap> uniteIntervals(std::vector<GpuIdleGap> v) {
    std::sort(v.begin(), v.end(),
              [](const Interval& a, const Interval& b) { return a.beginPs < b.beginPs; });
    std::vector<Interval> out;
    for (const Interval& i : v) {
        if (i.endPs <= i.beginPs) continue;
        if (!out.empty() && i.beginPs <= out.back().endPs)
            out.back().endPs = std::max(out.back().endPs, i.endPs);
        else
            out.push_back(i);
    }
    return out;
}

int64_t intervalsLength(const std::vector<GpuIdleGap>& v) {
    int64_t t = 0;
    for (const Interval& i : v) t += i.endPs - i.beginPs;
    return t;
}

namespace {

// Time of `a` (disjoint, sorted) not covered by `b` (disjoint, sorted).
int64_t minus(const std::vector<Interval>& a, const std::vector<Interval>& b) {
    int64_t out = 0;
    size_t j = 0;
    for (const Interval& i : a) {
        int64_t cursor = i.beginPs;
        while (j < b.size() && b[j].endPs <= cursor) ++j;
        for (size_t k = j; k < b.size() && b[k].beginPs < i.endPs; ++k) {
            if (b[k].beginPs > cursor) out += b[k].beginPs - cursor;
            cursor = std::max(cursor, b[k].endPs);
            if (cursor >= i.endPs) break;
        }
        if (cursor < i.endPs) out += i.endPs - cursor;
    }
    return out;
}

} // namespace

GpuTime computeGpuTime(const Profile& p, const Progress* progress) {
    GpuTime result;
    // Kind by event name, decided once per metadata: 0 computation, 1 collective, 2 memory.
    enum : uint8_t { Compute, Collective, Memory, Unknown = 0xFF };
    std::vector<uint8_t> kindOf(p.metadata().size(), Unknown);
    auto nameKind = [&](uint32_t meta) {
        uint8_t& k = kindOf[meta];
        if (k == Unknown) {
            const std::string_view name = p.str(p.metadata()[meta].name);
            k = isCollectiveKernelName(name) ? Collective
                : name.find("Memcpy") != std::string_view::npos ||
                        name.find("Memset") != std::string_view::npos
                    ? Memory
                    : Compute;
        }
        return k;
    };
    for (size_t pi = 0; pi < p.planes().size(); ++pi) {
        const Plane& plane = p.planes()[pi];
        if (plane.kind != PlaneKind::Gpu) continue;
        std::vector<Interval> all, compute, collectives, memory;
        for (const Track& t : p.tracksOf(plane)) {
            if (!t.deviceOps || t.derived) continue;
            const EventIndex end = t.firstEvent + t.eventCount;
            SideCursor<MemcpyDetails> copies(p.memcpys());
            for (EventIndex e = t.firstEvent; e < end; ++e) {
                const Interval i{p.start(e), p.end(e)};
                all.push_back(i);
                const uint8_t k = nameKind(p.metadataOf(e));
                if (k == Collective)
                    collectives.push_back(i);
                else if (k == Memory || copies.at(e))
                    memory.push_back(i);
                else
                    compute.push_back(i);
            }
        }
        if (progress && progress->cancelled()) return {};
        if (all.empty()) continue;
        GpuTimeRow row;
        row.plane = uint32_t(pi);
        row.device = std::string(p.str(plane.name));
        // With several hosts loaded, device names repeat: name the host too.
        if (p.hosts().size() > 1) row.device = p.hosts()[plane.host].name + " " + row.device;
        row.events = all.size();
        // The span runs over every event, zero-length ones too: a plane whose events all last
        // 0 ps has no busy time but still a place in the table.
        row.firstPs = all.front().beginPs;
        row.lastPs = all.front().endPs;
        for (const Interval& i : all) {
            row.firstPs = std::min(row.firstPs, i.beginPs);
            row.lastPs = std::max(row.lastPs, i.endPs);
        }
        const auto busy = uniteIntervals(std::move(all));
        row.busyPs = intervalsLength(busy);
        row.idlePs = row.spanPs() - row.busyPs;
        const auto c = uniteIntervals(std::move(compute));
        const auto k = uniteIntervals(std::move(collectives));
        const auto m = uniteIntervals(std::move(memory));
        row.computePs = intervalsLength(c);
        row.collectivesPs = intervalsLength(k);
        row.collectivesExposedPs = minus(k, c);
        row.memoryPs = intervalsLength(m);
        row.memoryExposedPs = minus(m, c);
        std::vector<Interval> ck = c;
        ck.insert(ck.end(), k.begin(), k.end());
        row.memoryOnlyPs = minus(m, uniteIntervals(std::move(ck)));
        row.busy = busy;
        result.devices.push_back(std::move(row));
    }
    return result;
}

std::vector<GpuIdleGap> idleGaps(const GpuTimeRow& row, int64_t minimumPs) {
    std::vector<GpuIdleGap> gaps;
    for (size_t i = 1; i < row.busy.size(); ++i) {
        const GpuIdleGap g{row.busy[i - 1].endPs, row.busy[i].beginPs};
        if (g.endPs - g.beginPs > minimumPs) gaps.push_back(g);
    }
    return gaps;
}

std::vector<double> utilizationWindows(const GpuTimeRow& row, int64_t beginPs, int64_t endPs,
                                       int chunks) {
    std::vector<double> out;
    if (chunks <= 0 || endPs <= beginPs) return out;
    const int64_t width = endPs - beginPs;
    size_t j = 0;
    for (int c = 0; c < chunks; ++c) {
        const int64_t lo = beginPs + width * c / chunks;
        const int64_t hi = beginPs + width * (c + 1) / chunks;
        int64_t busy = 0;
        while (j < row.busy.size() && row.busy[j].endPs <= lo) ++j;
        for (size_t k = j; k < row.busy.size() && row.busy[k].beginPs < hi; ++k)
            busy += std::min(hi, row.busy[k].endPs) - std::max(lo, row.busy[k].beginPs);
        out.push_back(hi > lo ? 100.0 * double(busy) / double(hi - lo) : 0.0);
    }
    return out;
}

} // namespace stepscope
