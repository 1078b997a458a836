#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"

namespace stepscope {

// The one format-independent way to make a Profile. Importers (XSpace, and any later format) and
// the synthetic generator add hosts, planes, tracks, metadata and events in any order; finish()
// groups events by track, assigns nesting depth, sorts, decodes the hot stats into typed columns
// and joins launches to device events.
class ProfileBuilder {
public:
    ProfileBuilder() = default;

    StringPool& strings() { return profile_->strings_; }
    StringId intern(std::string_view s) { return profile_->strings_.intern(s); }

    uint32_t addHost(std::string name, std::string sourcePath);
    Host& host(uint32_t index) { return profile_->hosts_[index]; }
    size_t hostCount() const { return profile_->hosts_.size(); }

    uint32_t addPlane(uint32_t host, int64_t xplaneId, std::string_view name);
    void addPlaneStat(uint32_t plane, const StatValue& stat);

    uint32_t addMetadata(uint32_t plane, int64_t xId, std::string_view name,
                         std::string_view displayName);
    void addMetadataStat(uint32_t metadata, const StatValue& stat);

    uint32_t addTrack(uint32_t plane, int64_t lineId, std::string_view name,
                      std::string_view displayName = {}, int64_t displayId = 0);

    // Event times are picoseconds relative to the time base, an absolute time in nanoseconds set
    // once (by the first importer) so that every host of a run shares it.
    bool hasTimeBase() const { return hasTimeBase_; }
    void setTimeBase(int64_t ns) {
        timeBaseNs_ = ns;
        hasTimeBase_ = true;
    }
    int64_t timeBaseNs() const { return timeBaseNs_; }

    void addEvent(uint32_t track, int64_t startPs, int64_t durationPs, uint32_t metadata) {
        track_.push_back(track);
        start_.push_back(startPs);
        duration_.push_back(durationPs < 0 ? 0 : durationPs);
        meta_.push_back(metadata);
        statBegin_.push_back(static_cast<uint32_t>(stats_.size()));
    }
    // Sets the time and metadata of the event added last (for decoders that read them after
    // its stats), or removes it together with its stats.
    void amendLastEvent(int64_t startPs, int64_t durationPs, uint32_t metadata) {
        start_.back() = startPs;
        duration_.back() = durationPs < 0 ? 0 : durationPs;
        meta_.back() = metadata;
    }
    void dropLastEvent() {
        stats_.resize(statBegin_.back());
        track_.pop_back();
        start_.pop_back();
        duration_.pop_back();
        meta_.pop_back();
        statBegin_.pop_back();
    }
    // Adds a stat to the event added last.
    void addEventStat(const StatValue& stat) { stats_.push_back(stat); }
    void reserveEvents(size_t events, size_t stats);
    size_t eventCount() const { return start_.size(); }

    // Builds the profile; the builder is spent afterwards. Returns nullptr if cancelled.
    std::unique_ptr<Profile> finish(const Progress* progress = nullptr);

private:
    struct PendingStat {
        uint32_t owner;
        StatValue stat;
    };
    void groupTracksByPlane();
    std::vector<uint32_t> orderEvents(const Progress* progress, bool& cancelled);
    void decodeHotStats();
    void joinFlows();

    std::unique_ptr<Profile> profile_ = std::make_unique<Profile>();
    bool hasTimeBase_ = false;
    int64_t timeBaseNs_ = 0;

    std::vector<uint32_t> track_;
    std::vector<int64_t> start_;
    std::vector<int64_t> duration_;
    std::vector<uint32_t> meta_;
    std::vector<uint32_t> statBegin_;
    std::vector<StatValue> stats_;
    std::vector<PendingStat> planeStats_;
    std::vector<PendingStat> metadataStats_;
};

} // namespace stepscope
