#include "views/trace/SelectionAggregate.h"

#include "views/trace/TimelineLayout.h"

#include <algorithm>
#include <limits>
#include <string>
#include <unordered_map>

namespace stepscope {

Table aggregateSelection(const Profile& profile, const std::vector<Lane>& lanes, TimeRange range,
                         const Progress* progress) {
    struct Group {
        uint32_t track = 0;
        StringId name = 0;
        uint64_t count = 0;
        int64_t total = 0;
        std::vector<std::pair<int64_t, int64_t>> inside; // clipped intervals, for the union
    };
    std::vector<Group> groups;
    std::unordered_map<uint64_t, size_t> groupOf; // track << 32 | name -> groups index
    std::vector<uint32_t> trackOrder;             // tracks in the order lanes name them
    for (size_t li = 0; li < lanes.size(); ++li) {
        if (progress) {
            if (progress->cancelled()) return {};
            progress->report("Aggregating selection", double(li) / double(lanes.size()));
        }
        const uint32_t track = lanes[li].track;
        if (std::find(trackOrder.begin(), trackOrder.end(), track) == trackOrder.end())
            trackOrder.push_back(track);
        const EventRange r = profile.eventsInWindow(track, lanes[li].depth, range.start, range.end);
        for (EventIndex e = r.begin; e < r.end; ++e) {
            const StringId name = profile.nameId(e);
            auto [it, added] = groupOf.try_emplace(uint64_t(track) << 32 | name, groups.size());
            if (added) groups.push_back(Group{track, name, 0, 0, {}});
            Group& g = groups[it->second];
            ++g.count;
            const int64_t start = profile.start(e), end = profile.end(e);
            g.total += end - start;
            const int64_t a = std::max(start, range.start), b = std::min(end, range.end);
            if (b > a) g.inside.emplace_back(a, b);
        }
    }
    std::unordered_map<uint32_t, size_t> trackRank;
    for (size_t i = 0; i < trackOrder.size(); ++i) trackRank[trackOrder[i]] = i;
    std::vector<size_t> order(groups.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        const Group &a = groups[x], &b = groups[y];
        if (a.track != b.track) return trackRank[a.track] < trackRank[b.track];
        if (a.total != b.total) return a.total > b.total;
        return profile.str(a.name) < profile.str(b.name);
    });

    Table t;
    t.addColumn("Side", Table::Type::Text, ColumnFormat::Plain, "Device or host");
    t.addColumn("Track", Table::Type::Text, ColumnFormat::Plain, "Plane and track");
    t.addColumn("Name", Table::Type::Text);
    t.addColumn("Count", Table::Type::Int);
    t.addColumn("Total (µs)", Table::Type::Double, ColumnFormat::Microseconds,
                "Sum of the whole durations of the selected events with this name on this track");
    t.addColumn("Average (µs)", Table::Type::Double, ColumnFormat::Microseconds);
    t.addColumn("Share of range (%)", Table::Type::Double, ColumnFormat::Percent,
                "The part of the selected range during which an event of this name runs on this "
                "track (overlapping events count once)");
    const double span = double(std::max<int64_t>(1, range.span()));
    std::vector<std::string> trackNames(profile.tracks().size());
    for (size_t i : order) {
        Group& g = groups[i];
        // The union of the clipped intervals.
        std::sort(g.inside.begin(), g.inside.end());
        int64_t covered = 0, reach = std::numeric_limits<int64_t>::min();
        for (const auto& [a, b] : g.inside) {
            const int64_t from = std::max(a, reach);
            if (b > from) covered += b - from;
            reach = std::max(reach, b);
        }
        const Track& track = profile.tracks()[g.track];
        const Plane& plane = profile.planes()[track.plane];
        std::string& trackName = trackNames[g.track];
        if (trackName.empty())
            trackName =
                std::string(profile.str(plane.name)) + " · " + trackDisplayName(profile, track);
        t.addRow({std::string(plane.kind == PlaneKind::Host ? "Host" : "Device"), trackName,
                  std::string(profile.str(g.name)), int64_t(g.count), double(g.total) / 1e6,
                  double(g.total) / 1e6 / double(g.count), 100.0 * double(covered) / span});
    }
    return t;
}

uint64_t countSelection(const Profile& profile, const std::vector<Lane>& lanes, TimeRange range) {
    uint64_t n = 0;
    for (const Lane& l : lanes)
        n += profile.eventsInWindow(l.track, l.depth, range.start, range.end).size();
    return n;
}

} // namespace stepscope
