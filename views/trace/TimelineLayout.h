#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/Profile.h"

namespace stepscope {

// One collapsible group of rows: a plane (a device, or a host's threads).
struct TimelineSection {
    uint32_t plane = 0;
    std::string label;            // "/device:GPU:0 · NVIDIA · cc 7.0 · 80 SMs", "Host Threads"
    std::vector<uint32_t> tracks; // non-empty tracks in display order
    bool collapsed = false;
};

// One horizontal row on the canvas: a section header, or a track with one lane per depth.
struct TimelineRow {
    enum class Kind : uint8_t { Section, Track };
    Kind kind = Kind::Track;
    uint32_t section = 0;
    uint32_t track = kNoIndex; // Track rows only
    uint32_t depthCount = 0;   // Track rows only
    int y = 0, height = 0;     // in layout coordinates (0 = top of the first row)
    std::string label;
};

// Where a y coordinate falls.
struct LayoutHit {
    int row = -1;              // -1: below the last row
    bool section = false;      // on a section header
    uint32_t track = kNoIndex; // on a track row
    uint32_t depth = 0;        // lane within the track; valid when track != kNoIndex
    bool inLane = false;       // false in the padding below the last lane
};

// The rows of the timeline for one profile: a section per plane that has events (device planes
// first, then the host's threads, grouped by host when several are loaded), in each a row per
// non-empty track, each row as tall as its nesting depth. Pure geometry: no Qt, no painting.
class TimelineLayout {
public:
    static constexpr int kSectionHeight = 24;
    static constexpr int kLaneHeight = 18;
    static constexpr int kTrackPadding = 4; // free pixels below a track's last lane

    explicit TimelineLayout(const Profile& profile);

    const std::vector<TimelineSection>& sections() const { return sections_; }
    const std::vector<TimelineRow>& rows() const { return rows_; }
    int totalHeight() const { return totalHeight_; }

    void setCollapsed(uint32_t section, bool collapsed);
    void toggleCollapsed(uint32_t section) { setCollapsed(section, !sections_[section].collapsed); }
    void setAllCollapsed(bool collapsed);
    // Collapses every section but `section`, which is expanded.
    void collapseAllBut(uint32_t section);
    // A hidden track has no row until shown again; its section stays (its header counts them).
    void setTrackHidden(uint32_t track, bool hidden);
    void showAllTracks();
    size_t hiddenTrackCount() const { return hiddenCount_; }

    // The first row whose bottom lies below y (rows are sorted by y); rows().size() if none.
    size_t firstRowBelow(int y) const;
    LayoutHit hitTest(int y) const;
    // Top of the lane (track, depth) when its track is shown; -1 when hidden or collapsed.
    int laneY(uint32_t track, uint32_t depth) const;
    // The row of a track, or -1 when the track is hidden.
    int rowOfTrack(uint32_t track) const {
        return track < rowOfTrack_.size() ? rowOfTrack_[track] : -1;
    }
    // The row of a section's header.
    int sectionRow(uint32_t section) const { return sectionRow_[section]; }
    // The section showing a track, or -1.
    int sectionOfTrack(uint32_t track) const {
        return track < sectionOfTrack_.size() ? sectionOfTrack_[track] : -1;
    }
    // A track's label as rows show it ("Stream #134 (Compute)").
    const std::string& trackLabel(uint32_t track) const { return trackLabels_[track]; }

    // The event of lane (track, depth) under time t: the one containing t, else the nearest one
    // no farther than `tolerancePs` (so that sub-pixel events can be clicked). kNoIndex if none.
    static EventIndex eventAt(const Profile& profile, uint32_t track, uint32_t depth, int64_t t,
                              int64_t tolerancePs);

private:
    void buildRows();

    const Profile& profile_;
    std::vector<TimelineSection> sections_;
    std::vector<TimelineRow> rows_;
    std::vector<int> rowOfTrack_;
    std::vector<int> sectionOfTrack_;
    std::vector<int> sectionRow_; // by section
    std::vector<std::string> trackLabels_;
    std::vector<bool> hidden_; // by track
    size_t hiddenCount_ = 0;
    int totalHeight_ = 0;
};

} // namespace stepscope
