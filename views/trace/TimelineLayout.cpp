#include "views/trace/TimelineLayout.h"

#include <algorithm>
#include <tuple>

namespace stepscope {

namespace {

// Devices read first, as in XProf and Nsight Systems; host threads after them.
int planeRank(PlaneKind kind) {
    switch (kind) {
    case PlaneKind::Gpu:
        return 0;
    case PlaneKind::Tpu:
        return 1;
    case PlaneKind::Custom:
        return 2;
    case PlaneKind::Host:
        return 3;
    case PlaneKind::Other:
        break;
    }
    return 4;
}

// Within a device: the derived summary lines from coarse to fine, then the streams.
int trackRank(TrackKind kind) {
    switch (kind) {
    case TrackKind::Steps:
        return 0;
    case TrackKind::XlaModules:
        return 1;
    case TrackKind::XlaOps:
        return 2;
    case TrackKind::FrameworkOps:
        return 3;
    case TrackKind::NameScope:
        return 4;
    case TrackKind::SourceCode:
        return 5;
    case TrackKind::LaunchStats:
        return 6;
    case TrackKind::GpuStream:
        return 7;
    case TrackKind::HostThread:
        return 8;
    case TrackKind::Other:
        break;
    }
    return 9;
}

std::string deviceSummary(const DeviceInfo& d, PlaneKind kind) {
    std::string s;
    auto add = [&](const std::string& part) {
        if (part.empty()) return;
        s += s.empty() ? "" : " · ";
        s += part;
    };
    add(d.vendor);
    if (d.computeCapMajor > 0)
        add("cc " + std::to_string(d.computeCapMajor) + "." + std::to_string(d.computeCapMinor));
    if (d.coreCount > 0) {
        const bool amd = d.vendor.find("AMD") != std::string::npos;
        add(std::to_string(d.coreCount) + (amd                      ? " CUs"
                                           : kind == PlaneKind::Gpu ? " SMs"
                                                                    : " cores"));
    }
    if (d.memoryBytes > 0) {
        const double gib = double(d.memoryBytes) / double(1ull << 30);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f GiB", gib);
        add(buf);
    }
    return s;
}

} // namespace

std::string trackDisplayName(const Profile& p, const Track& t) {
    if (t.kind == TrackKind::GpuStream && t.streamId >= 0) {
        std::string s = "Stream #" + std::to_string(t.streamId);
        const std::string kinds = streamFlagsName(t.streamFlags);
        if (!kinds.empty()) s += " (" + kinds + ")";
        return s;
    }
    std::string_view name = p.str(t.displayName);
    if (name.empty()) name = p.str(t.name);
    if (name.empty()) return "Thread " + std::to_string(t.lineId);
    return std::string(name);
}

TimelineLayout::TimelineLayout(const Profile& profile)
    : profile_(profile) {
    const auto& planes = profile.planes();
    const auto& tracks = profile.tracks();
    trackLabels_.reserve(tracks.size());
    for (const Track& t : tracks) trackLabels_.push_back(trackDisplayName(profile, t));

    std::vector<uint32_t> order(planes.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const Plane &pa = planes[a], &pb = planes[b];
        return std::make_tuple(pa.host, planeRank(pa.kind), pa.deviceOrdinal) <
               std::make_tuple(pb.host, planeRank(pb.kind), pb.deviceOrdinal);
    });
    const bool manyHosts = profile.hosts().size() > 1;
    for (uint32_t pi : order) {
        const Plane& plane = planes[pi];
        TimelineSection s;
        s.plane = pi;
        for (uint32_t t = plane.firstTrack; t < plane.firstTrack + plane.trackCount; ++t)
            if (tracks[t].eventCount > 0) s.tracks.push_back(t);
        if (s.tracks.empty()) continue;
        std::stable_sort(s.tracks.begin(), s.tracks.end(), [&](uint32_t a, uint32_t b) {
            const Track &ta = tracks[a], &tb = tracks[b];
            return std::make_tuple(trackRank(ta.kind), ta.streamId) <
                   std::make_tuple(trackRank(tb.kind), tb.streamId);
        });
        if (plane.kind == PlaneKind::Host) {
            // One plane per process (Kineto traces): the process after "/host:CPU " tells the
            // sections apart.
            constexpr std::string_view kHostPlane = "/host:CPU ";
            const std::string_view name = profile.str(plane.name);
            s.label = "Host Threads";
            if (name.starts_with(kHostPlane) && name.size() > kHostPlane.size())
                s.label += " · " + std::string(name.substr(kHostPlane.size()));
        } else {
            s.label = std::string(profile.str(plane.name));
            const std::string device = deviceSummary(plane.device, plane.kind);
            if (!device.empty()) s.label += " · " + device;
        }
        if (manyHosts && plane.host < profile.hosts().size())
            s.label = profile.hosts()[plane.host].name + " · " + s.label;
        sections_.push_back(std::move(s));
    }
    hidden_.assign(tracks.size(), false);
    buildRows();
}

void TimelineLayout::buildRows() {
    const auto& tracks = profile_.tracks();
    rows_.clear();
    rowOfTrack_.assign(tracks.size(), -1);
    sectionOfTrack_.assign(tracks.size(), -1);
    sectionRow_.assign(sections_.size(), -1);
    int y = 0;
    for (uint32_t si = 0; si < sections_.size(); ++si) {
        const TimelineSection& s = sections_[si];
        TimelineRow header;
        header.kind = TimelineRow::Kind::Section;
        header.section = si;
        header.y = y;
        header.height = kSectionHeight;
        sectionRow_[si] = int(rows_.size());
        header.label = s.label;
        size_t hiddenHere = 0;
        for (uint32_t t : s.tracks) hiddenHere += hidden_[t] ? 1 : 0;
        if (hiddenHere > 0) header.label += " · " + std::to_string(hiddenHere) + " hidden";
        rows_.push_back(std::move(header));
        y += kSectionHeight;
        for (uint32_t t : s.tracks) sectionOfTrack_[t] = int(si);
        if (s.collapsed) continue;
        for (uint32_t t : s.tracks) {
            if (hidden_[t]) continue;
            TimelineRow r;
            r.kind = TimelineRow::Kind::Track;
            r.section = si;
            r.track = t;
            r.depthCount = tracks[t].depthCount;
            r.y = y;
            r.height = int(r.depthCount) * kLaneHeight + kTrackPadding;
            r.label = trackLabels_[t];
            rowOfTrack_[t] = int(rows_.size());
            y += r.height;
            rows_.push_back(std::move(r));
        }
    }
    totalHeight_ = y;
}

void TimelineLayout::setCollapsed(uint32_t section, bool collapsed) {
    if (section >= sections_.size() || sections_[section].collapsed == collapsed) return;
    sections_[section].collapsed = collapsed;
    buildRows();
}

void TimelineLayout::setAllCollapsed(bool collapsed) {
    for (TimelineSection& s : sections_) s.collapsed = collapsed;
    buildRows();
}

void TimelineLayout::collapseAllBut(uint32_t section) {
    for (uint32_t i = 0; i < sections_.size(); ++i) sections_[i].collapsed = i != section;
    buildRows();
}

void TimelineLayout::setTrackHidden(uint32_t track, bool hidden) {
    if (track >= hidden_.size() || hidden_[track] == hidden) return;
    hidden_[track] = hidden;
    hiddenCount_ = hidden ? hiddenCount_ + 1 : hiddenCount_ - 1;
    buildRows();
}

void TimelineLayout::showAllTracks() {
    hidden_.assign(hidden_.size(), false);
    hiddenCount_ = 0;
    buildRows();
}

size_t TimelineLayout::firstRowBelow(int y) const {
    const auto it =
        std::upper_bound(rows_.begin(), rows_.end(), y,
                         [](int v, const TimelineRow& r) { return v < r.y + r.height; });
    return size_t(it - rows_.begin());
}

LayoutHit TimelineLayout::hitTest(int y) const {
    LayoutHit hit;
    if (y < 0) return hit;
    const size_t i = firstRowBelow(y);
    if (i >= rows_.size()) return hit;
    const TimelineRow& r = rows_[i];
    hit.row = int(i);
    if (r.kind == TimelineRow::Kind::Section) {
        hit.section = true;
        return hit;
    }
    hit.track = r.track;
    const int depth = (y - r.y) / kLaneHeight;
    hit.inLane = depth < int(r.depthCount);
    hit.depth = uint32_t(std::min<int>(depth, int(r.depthCount) - 1));
    return hit;
}

int TimelineLayout::laneY(uint32_t track, uint32_t depth) const {
    const int row = rowOfTrack(track);
    if (row < 0) return -1;
    return rows_[size_t(row)].y + int(depth) * kLaneHeight;
}

EventIndex TimelineLayout::eventAt(const Profile& profile, uint32_t track, uint32_t depth,
                                   int64_t t, int64_t tolerancePs) {
    // Within a lane both starts and ends are sorted, so the candidates are the first event that
    // ends after t (it contains t, or is the next one) and the one before it.
    const EventRange all = profile.eventsAt(track, depth);
    if (all.empty()) return kNoIndex;
    EventIndex lo = all.begin, hi = all.end;
    while (lo < hi) {
        const EventIndex mid = lo + (hi - lo) / 2;
        if (profile.end(mid) <= t && !(profile.duration(mid) == 0 && profile.start(mid) == t))
            lo = mid + 1;
        else
            hi = mid;
    }
    EventIndex best = kNoIndex;
    int64_t bestDistance = tolerancePs + 1;
    if (lo < all.end) {
        const int64_t d = std::max<int64_t>(0, profile.start(lo) - t);
        if (d < bestDistance) best = lo, bestDistance = d;
    }
    if (lo > all.begin) {
        const int64_t d = t - profile.end(lo - 1);
        if (d < bestDistance) best = lo - 1, bestDistance = d;
    }
    return best;
}

} // namespace stepscope
