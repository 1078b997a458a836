#pragma once

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/StatShapes.h"

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

    uint32_t addPlane(uint32_t host, int64_t xplaneId, std::string_view name);
    void addPlaneStat(uint32_t plane, const StatValue& stat);

    uint32_t addMetadata(uint32_t plane, int64_t xId, std::string_view name,
                         std::string_view displayName);
    void addMetadataStat(uint32_t metadata, const StatValue& stat);

    uint32_t addTrack(uint32_t plane, int64_t lineId, std::string_view name,
                      std::string_view displayName = {}, int64_t displayId = 0);
    // Names learned after the plane or track was added (Chrome JSON names processes and threads
    // in metadata events anywhere in the file). The plane is classified again by its new name.
    void setPlaneName(uint32_t plane, std::string_view name);
    void setTrackName(uint32_t track, std::string_view name);

    // Event times are picoseconds relative to the time base, an absolute time in nanoseconds set
    // once (by the first importer) so that every host of a run shares it.
    bool hasTimeBase() const { return hasTimeBase_; }
    void setTimeBase(int64_t ns) {
        timeBaseNs_ = ns;
        hasTimeBase_ = true;
    }
    int64_t timeBaseNs() const { return timeBaseNs_; }

    void addEvent(uint32_t track, int64_t startPs, int64_t durationPs, uint32_t metadata) {
        closeStatList();
        track_.push_back(track);
        start_.push_back(startPs);
        duration_.push_back(durationPs < 0 ? 0 : durationPs);
        meta_.push_back(metadata);
        statBegin_.push_back(0); // the shared empty list until a stat is added
    }
    // Sets the time and metadata of the event added last (for decoders that read them after
    // its stats), or removes it together with its stats.
    void amendLastEvent(int64_t startPs, int64_t durationPs, uint32_t metadata) {
        start_.back() = startPs;
        duration_.back() = durationPs < 0 ? 0 : durationPs;
        meta_.back() = metadata;
    }
    void dropLastEvent();
    // Moves the events from `firstEvent` on by `deltaPs` (an importer that learns its time base
    // only at the end of its file). False, and nothing moved, if a time would overflow.
    bool shiftEvents(size_t firstEvent, int64_t deltaPs);

    // The index under which event stats name their key; one per distinct stat name.
    uint32_t statKey(StringId name);
    StringId statKeyName(uint32_t keyIndex) const { return statKeys_[keyIndex]; }
    // Adds a stat to the event added last. The first form is the fast path for importers that
    // resolved the key once per stat name. The event's list is encoded when the next event is
    // added (its shape is known then).
    void addEventStat(uint32_t keyIndex, StatType type, uint64_t raw) {
        pending_.push_back({raw, keyIndex, type});
    }
    // Adds n stats to the event added last in one step (importers with several per event).
    void addEventStats(const statcodec::Entry* stats, size_t n) {
        pending_.insert(pending_.end(), stats, stats + n);
    }
    void addEventStat(const StatValue& stat) {
        addEventStat(statKey(stat.key), stat.type, stat.raw);
    }
    // Makes room for `events` events in total, growing geometrically. Event indices are 32-bit:
    // asking for kMaxEvents or more sets error() instead, and importers stop.
    void reserveEvents(size_t events);
    static constexpr size_t kMaxEvents = 0xFFFFFFF0u;
    // Makes room for `bytes` more of encoded stats (importers pass the size of what they are
    // about to read, an upper bound), growing geometrically.
    void reserveStatBytes(size_t bytes) {
        const size_t need = statBlob_.size() + bytes;
        if (need > statBlob_.capacity())
            statBlob_.reserve(std::max(need, statBlob_.capacity() * 2));
    }
    size_t eventCount() const { return start_.size(); }

    // The number of a stat list's shape (StatList.h), from its tags in order; for importers that
    // encode lists themselves.
    uint32_t statShape(std::span<const uint32_t> tags) { return shapes_.intern(tags); }

    // The bulk path of importers that decode on several threads. appendEvents() adds `events`
    // rows, left unwritten, and returns the first; eventRows() points at a row of every column,
    // and the importer writes each row once (several threads, each on rows of its own) until the
    // next call that adds anything. appendStatBytes() likewise adds `bytes` unwritten bytes of
    // encoded stat lists (StatList.h) and returns their offset, for statBegin. Past kMaxEvents
    // rows or 4 GiB of stats they set error() instead and add nothing.
    struct EventRows {
        uint32_t* track;
        int64_t* start;
        int64_t* duration; // never negative
        uint32_t* meta;
        uint32_t* statBegin; // into the stat bytes; 0 is the shared empty list
    };
    size_t appendEvents(size_t events);
    EventRows eventRows(size_t row) {
        return {track_.data() + row, start_.data() + row, duration_.data() + row,
                meta_.data() + row, statBegin_.data() + row};
    }
    // Sets the row count to `events`: keeps the first rows (an importer that appended more rows
    // than it filled), or adds unwritten ones.
    void resizeEvents(size_t events);
    size_t appendStatBytes(size_t bytes);
    uint8_t* statBytes(size_t at) { return statBlob_.data() + at; }
    // A flow event of the Chrome trace format (ph s, t, f), bound to a slice of `track` when the
    // profile is built, as Perfetto's JSON importer binds them: a begin or step to the innermost
    // slice open at `ps`, an end to that slice (`enclosing`, "bp":"e") or else to the next slice
    // that begins at or after `ps`. Points of one `flow` (numbered per host) join in the order
    // added: begin then steps and ends, each joined to the slice bound before it. Points that
    // bind no slice, and joins that repeat a flow already there, are dropped.
    enum class FlowPhase : uint8_t { Begin, Step, End };
    void addFlowPoint(uint64_t flow, uint32_t track, int64_t ps, FlowPhase phase, bool enclosing) {
        flowPoints_.push_back({flow, ps, track, phase, enclosing});
    }
    // Set when the profile outgrows what the columns can address; finish() then fails.
    const std::string& error() const { return error_; }

    // Builds the profile on up to `threads` threads (0: every core this process may use); the
    // profile is the same for any count. The builder is spent afterwards. Returns nullptr if
    // cancelled, or with error() set if the profile is too large.
    std::unique_ptr<Profile> finish(const Progress* progress = nullptr, unsigned threads = 0);

private:
    struct PendingStat {
        uint32_t owner;
        StatValue stat;
    };
    void groupTracksByPlane();
    Column<uint32_t> orderEvents(const Progress* progress, bool& cancelled, unsigned threads);
    void decodeHotStats(unsigned threads);
    // Encodes the stats added to the event added last, if any.
    void closeStatList() {
        if (!pending_.empty()) encodePendingStats();
    }
    void encodePendingStats();
    uint32_t blobOffset();
    void joinFlows(unsigned threads);
    void bindFlowPoints(int64_t shift);
    struct FlowPoint {
        uint64_t flow;
        int64_t ps;
        uint32_t track;
        FlowPhase phase;
        bool enclosing;
    };
    std::vector<FlowPoint> flowPoints_;

    std::unique_ptr<Profile> profile_ = std::make_unique<Profile>();
    bool hasTimeBase_ = false;
    int64_t timeBaseNs_ = 0;

    Column<uint32_t> track_;
    Column<int64_t> start_;
    Column<int64_t> duration_;
    Column<uint32_t> meta_;
    Column<uint32_t> statBegin_;
    Column<uint8_t> statBlob_{0}; // offset 0: the empty list shared by stat-less events
    StatShapes shapes_;
    std::vector<statcodec::Entry> pending_; // the stats of the event added last
    std::vector<uint32_t> pendingTags_;     // their tags, while they are encoded
    std::vector<StringId> statKeys_{0};     // index 0 is never used: no entry tag may be 0
    std::unordered_map<StringId, uint32_t> statKeyIndex_;
    std::string error_;
    std::vector<PendingStat> planeStats_;
    std::vector<PendingStat> metadataStats_;
};

} // namespace stepscope
