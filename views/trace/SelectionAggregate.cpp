#include "views/trace/SelectionAggregate.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace stepscope {

Table aggregateSelection(const Profile& profile, const std::vector<Lane>& lanes, TimeRange range,
                         const Progress* progress) {
    struct Sum {
        uint64_t count = 0;
        int64_t total = 0;
        int64_t inside = 0;
    };
    // Summed per metadata entry (far fewer than strings in the pool, and a 4-byte column to
    // index by), then merged by name: planes repeat a name under different metadata entries.
    const auto& meta = profile.metadata();
    std::vector<Sum> byMeta(meta.size());
    std::vector<uint32_t> seenMeta;
    for (size_t li = 0; li < lanes.size(); ++li) {
        if (progress) {
            if (progress->cancelled()) return {};
            progress->report("Aggregating selection", double(li) / double(lanes.size()));
        }
        const EventRange r =
            profile.eventsInWindow(lanes[li].track, lanes[li].depth, range.start, range.end);
        for (EventIndex e = r.begin; e < r.end; ++e) {
            const uint32_t m = profile.metadataOf(e);
            Sum& s = byMeta[m];
            if (s.count == 0) seenMeta.push_back(m);
            ++s.count;
            const int64_t start = profile.start(e), end = profile.end(e);
            s.total += end - start;
            s.inside +=
                std::max<int64_t>(0, std::min(end, range.end) - std::max(start, range.start));
        }
    }
    std::unordered_map<StringId, Sum> byName;
    byName.reserve(seenMeta.size());
    for (uint32_t m : seenMeta) {
        Sum& s = byName[meta[m].name];
        s.count += byMeta[m].count;
        s.total += byMeta[m].total;
        s.inside += byMeta[m].inside;
    }
    std::vector<std::pair<StringId, Sum>> rows(byName.begin(), byName.end());
    std::sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
        if (a.second.total != b.second.total) return a.second.total > b.second.total;
        return profile.str(a.first) < profile.str(b.first);
    });

    Table t;
    t.addColumn("Name", Table::Type::Text);
    t.addColumn("Count", Table::Type::Int);
    t.addColumn("Total", Table::Type::Double, ColumnFormat::Microseconds,
                "Sum of the whole durations of the selected events with this name");
    t.addColumn("Average", Table::Type::Double, ColumnFormat::Microseconds);
    t.addColumn("Share of range", Table::Type::Double, ColumnFormat::Percent,
                "Their time inside the selected range over the range's length");
    const double span = double(std::max<int64_t>(1, range.span()));
    for (const auto& [name, s] : rows) {
        t.addRow({std::string(profile.str(name)), int64_t(s.count), double(s.total) / 1e6,
                  double(s.total) / 1e6 / double(s.count), 100.0 * double(s.inside) / span});
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
