#include "model/ProfileBuilder.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <unordered_map>

#include "model/ParallelFor.h"

namespace stepscope {

namespace {

// Row-parallel passes work on blocks of this many events.
constexpr size_t kBlock = size_t(1) << 18;
size_t blockCount(size_t n) {
    return (n + kBlock - 1) / kBlock;
}
std::pair<size_t, size_t> block(size_t n, size_t k) {
    return {k * kBlock, std::min(n, (k + 1) * kBlock)};
}

// Where each part begins when the parts are laid one after another; the last entry is the total.
template <class T> std::vector<size_t> partOffsets(const std::vector<std::vector<T>>& parts) {
    std::vector<size_t> at(parts.size() + 1, 0);
    for (size_t k = 0; k < parts.size(); ++k) at[k + 1] = at[k] + parts[k].size();
    return at;
}

// The first element of sorted `a` not less than `key`, searched from `hint`: forward by doubling
// steps when the answer lies after it, which costs little when keys come nearly in order; by a
// binary search of [0, hint) when it lies before.
template <class V, class T> size_t lowerBoundFrom(const V& a, size_t hint, const T& key) {
    const size_t n = a.size();
    if (hint >= n || !(a[hint] < key)) {
        if (hint >= n) hint = n;
        if (hint == 0 || a[hint - 1] < key) return hint;
        return size_t(std::lower_bound(a.begin(), a.begin() + ptrdiff_t(hint), key) - a.begin());
    }
    size_t step = 1; // a[hint + step / 2] < key
    while (hint + step < n && a[hint + step] < key) step *= 2;
    return size_t(std::lower_bound(a.begin() + ptrdiff_t(hint + step / 2 + 1),
                                   a.begin() + ptrdiff_t(std::min(hint + step, n)), key) -
                  a.begin());
}

} // namespace

uint32_t ProfileBuilder::addHost(std::string name, std::string sourcePath) {
    profile_->hosts_.push_back(Host{std::move(name), std::move(sourcePath), {}, {}, {}});
    return static_cast<uint32_t>(profile_->hosts_.size() - 1);
}

uint32_t ProfileBuilder::addPlane(uint32_t host, int64_t xplaneId, std::string_view name) {
    Plane p;
    p.xplaneId = xplaneId;
    p.name = intern(name);
    const PlaneClass c = classifyPlane(name);
    p.kind = c.kind;
    p.deviceOrdinal = c.deviceOrdinal;
    p.host = host;
    profile_->planes_.push_back(p);
    return static_cast<uint32_t>(profile_->planes_.size() - 1);
}

void ProfileBuilder::addPlaneStat(uint32_t plane, const StatValue& stat) {
    planeStats_.push_back({plane, stat});
}

uint32_t ProfileBuilder::addMetadata(uint32_t plane, int64_t xId, std::string_view name,
                                     std::string_view displayName) {
    EventMetadata m;
    m.name = intern(name);
    m.displayName = intern(displayName);
    m.plane = plane;
    m.xId = xId;
    profile_->metadata_.push_back(m);
    return static_cast<uint32_t>(profile_->metadata_.size() - 1);
}

void ProfileBuilder::addMetadataStat(uint32_t metadata, const StatValue& stat) {
    metadataStats_.push_back({metadata, stat});
}

uint32_t ProfileBuilder::addTrack(uint32_t plane, int64_t lineId, std::string_view name,
                                  std::string_view displayName, int64_t displayId) {
    Track t;
    t.plane = plane;
    t.lineId = lineId;
    t.displayId = displayId;
    t.name = intern(name);
    t.displayName = intern(displayName);
    const PlaneKind planeKind = profile_->planes_[plane].kind;
    const TrackClass c = classifyTrack(planeKind, name, lineId);
    t.kind = c.kind;
    t.derived = c.derived;
    t.deviceOps = isDeviceOpLine(planeKind, c, name);
    t.streamFlags = c.streamFlags;
    t.streamId = c.streamId;
    profile_->tracks_.push_back(t);
    return static_cast<uint32_t>(profile_->tracks_.size() - 1);
}

void ProfileBuilder::setPlaneName(uint32_t plane, std::string_view name) {
    Plane& p = profile_->planes_[plane];
    p.name = intern(name);
    const PlaneClass c = classifyPlane(name);
    p.kind = c.kind;
    p.deviceOrdinal = c.deviceOrdinal;
}

void ProfileBuilder::setTrackName(uint32_t track, std::string_view name) {
    profile_->tracks_[track].name = intern(name);
}

bool ProfileBuilder::shiftEvents(size_t firstEvent, int64_t deltaPs) {
    for (size_t i = firstEvent; i < start_.size(); ++i) {
        int64_t s, e;
        if (__builtin_add_overflow(start_[i], deltaPs, &s) ||
            __builtin_add_overflow(s, duration_[i], &e))
            return false;
    }
    for (size_t i = firstEvent; i < start_.size(); ++i) start_[i] += deltaPs;
    return true;
}

void ProfileBuilder::reserveEvents(size_t events) {
    if (events >= kMaxEvents && error_.empty())
        error_ = "the profile is too large: more than " + std::to_string(kMaxEvents) + " events";
    if (events <= start_.capacity()) return;
    // Geometric growth: importers call this once per line with the running total.
    events = std::max(events, start_.capacity() * 2);
    track_.reserve(events);
    start_.reserve(events);
    duration_.reserve(events);
    meta_.reserve(events);
    statBegin_.reserve(events);
}

size_t ProfileBuilder::appendEvents(size_t events) {
    closeStatList();
    const size_t first = start_.size();
    reserveEvents(first + events);
    if (!error_.empty()) return first;
    resizeEvents(first + events);
    return first;
}

void ProfileBuilder::resizeEvents(size_t events) {
    track_.resize(events);
    start_.resize(events);
    duration_.resize(events);
    meta_.resize(events);
    statBegin_.resize(events);
}

size_t ProfileBuilder::appendStatBytes(size_t bytes) {
    closeStatList();
    const size_t first = statBlob_.size();
    if (first + bytes >= 0xFFFFFFF0u && error_.empty())
        error_ = "the profile is too large: its event stats exceed 4 GiB";
    if (!error_.empty()) return first;
    statBlob_.reserve(first + bytes); // exactly: finish() would copy a spare tail away
    statBlob_.resize(first + bytes);
    return first;
}

void ProfileBuilder::encodePendingStats() {
    pendingTags_.clear();
    for (const statcodec::Entry& s : pending_)
        pendingTags_.push_back(statcodec::tagOf(s.keyIndex, s.type));
    const uint32_t shape = shapes_.intern(pendingTags_);
    statBegin_.back() = blobOffset();
    // Written in room made for the longest list, then given back: a Column grows without
    // zero-filling, geometrically.
    const size_t at = statBlob_.size();
    statBlob_.resize(at + 5 + pending_.size() * statcodec::kMaxValueBytes);
    uint8_t* p = statcodec::putVarint(statBlob_.data() + at, shape);
    for (const statcodec::Entry& s : pending_) p = statcodec::putValue(p, s.type, s.raw);
    statBlob_.resize(size_t(p - statBlob_.data()));
    pending_.clear();
}

void ProfileBuilder::dropLastEvent() {
    pending_.clear();
    track_.pop_back();
    start_.pop_back();
    duration_.pop_back();
    meta_.pop_back();
    statBegin_.pop_back();
}

uint32_t ProfileBuilder::statKey(StringId name) {
    auto [it, inserted] = statKeyIndex_.try_emplace(name, uint32_t(statKeys_.size()));
    if (inserted) statKeys_.push_back(name);
    return it->second;
}

// Event stat offsets are 32-bit: past 4 GiB of stats the builder refuses to go on.
uint32_t ProfileBuilder::blobOffset() {
    if (statBlob_.size() >= 0xFFFFFFF0u) {
        if (error_.empty()) error_ = "the profile is too large: its event stats exceed 4 GiB";
        statBlob_.resize(1);
        std::fill(statBegin_.begin(), statBegin_.end(), 0u);
    }
    return uint32_t(statBlob_.size());
}

// Planes list their tracks as one contiguous range. Importers add tracks plane by plane; should
// a builder user interleave them, reorder the tracks (stably) and renumber the events' tracks.
void ProfileBuilder::groupTracksByPlane() {
    Profile& p = *profile_;
    auto byPlane = [](const Track& a, const Track& b) { return a.plane < b.plane; };
    if (std::is_sorted(p.tracks_.begin(), p.tracks_.end(), byPlane)) return;
    std::vector<uint32_t> order(p.tracks_.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return p.tracks_[a].plane < p.tracks_[b].plane;
    });
    std::vector<uint32_t> newIndex(order.size());
    std::vector<Track> tracks(order.size());
    for (uint32_t i = 0; i < order.size(); ++i) {
        newIndex[order[i]] = i;
        tracks[i] = p.tracks_[order[i]];
    }
    p.tracks_ = std::move(tracks);
    for (uint32_t& t : track_) t = newIndex[t];
}

// Returns the final order of events (new row -> raw row) and fills in each track's event range
// and depth offsets. Within a track, events are sorted by start (longer first on ties, so a
// parent precedes its children), then given a depth with a stack: an event's depth is the number
// of open events that contain its start. An event that overlaps the open one without nesting in
// it still goes one level deeper, so no two events of a (track, depth) ever overlap.
Column<uint32_t> ProfileBuilder::orderEvents(const Progress* progress, bool& cancelled,
                                             unsigned threads) {
    Profile& p = *profile_;
    const size_t n = start_.size();
    const size_t trackCount = p.tracks_.size();
    if (progress) progress->report("Sorting events", 0);

    // Group by track: a stable counting sort, skipped when events arrive grouped already. The
    // rows are cut into one part per thread; each part counts its tracks, and, where the rows are
    // not grouped, places its rows from where the parts before it left each track.
    Column<uint32_t> order(n); // every row is written below
    const size_t parts =
        std::max<size_t>(1, std::min(blockCount(n), size_t(threads ? threads : availableCores())));
    const auto partRows = [n, parts](size_t k) {
        return std::pair{n * k / parts, n * (k + 1) / parts};
    };
    std::vector<std::vector<uint32_t>> partCount(parts);
    std::vector<uint8_t> partSorted(parts, 1);
    parallelFor(parts, threads, [&](size_t k) {
        const auto [b, e] = partRows(k);
        std::vector<uint32_t> count(trackCount, 0);
        bool sorted = true; // a local: the parts' flags share a cache line
        for (size_t i = b; i < e; ++i) {
            ++count[track_[i]];
            if (i > b && track_[i] < track_[i - 1]) sorted = false;
        }
        partSorted[k] = sorted;
        partCount[k] = std::move(count);
    });
    bool grouped = true;
    for (size_t k = 0; k < parts; ++k) {
        const size_t b = partRows(k).first;
        grouped = grouped && partSorted[k] && (b == 0 || b == n || track_[b - 1] <= track_[b]);
    }
    std::vector<uint32_t> trackBegin(trackCount + 1, 0);
    for (const std::vector<uint32_t>& count : partCount)
        for (size_t t = 0; t < trackCount; ++t) trackBegin[t + 1] += count[t];
    std::partial_sum(trackBegin.begin(), trackBegin.end(), trackBegin.begin());
    if (grouped) {
        parallelFor(blockCount(n), threads, [&](size_t k) {
            const auto [b, e] = block(n, k);
            std::iota(order.begin() + ptrdiff_t(b), order.begin() + ptrdiff_t(e), uint32_t(b));
        });
    } else {
        // Part k's rows of track t go after those of parts 0..k-1.
        for (size_t t = 0; t < trackCount; ++t) {
            uint32_t at = trackBegin[t];
            for (std::vector<uint32_t>& count : partCount) {
                const uint32_t rows = count[t];
                count[t] = at;
                at += rows;
            }
        }
        parallelFor(parts, threads, [&](size_t k) {
            const auto [b, e] = partRows(k);
            std::vector<uint32_t>& fill = partCount[k];
            for (size_t i = b; i < e; ++i) order[fill[track_[i]]++] = uint32_t(i);
        });
    }

    // Tracks are independent: each is sorted and given depths on its own, the largest first so
    // that the threads finish together. Each track's depth offsets are kept apart and joined in
    // track order afterwards.
    std::vector<uint32_t> byWork(trackCount);
    std::iota(byWork.begin(), byWork.end(), 0u);
    std::stable_sort(byWork.begin(), byWork.end(), [&](uint32_t a, uint32_t b) {
        return trackBegin[a + 1] - trackBegin[a] > trackBegin[b + 1] - trackBegin[b];
    });
    std::vector<std::vector<uint32_t>> depthOffsets(trackCount);
    std::atomic<bool> stop{false};
    std::atomic<size_t> sorted{0};
    std::mutex reportMutex;
    parallelFor(trackCount, threads, [&](size_t k) {
        if (stop.load(std::memory_order_relaxed)) return;
        if (progress && progress->cancelled()) {
            stop = true;
            return;
        }
        const size_t t = byWork[k];
        Track& track = p.tracks_[t];
        const uint32_t b = trackBegin[t], e = trackBegin[t + 1];
        track.firstEvent = b;
        track.eventCount = e - b;
        auto before = [&](uint32_t x, uint32_t y) {
            if (start_[x] != start_[y]) return start_[x] < start_[y];
            if (duration_[x] != duration_[y]) return duration_[x] > duration_[y];
            return x < y;
        };
        // Importers that write a thread's events as they end, or stream by stream, leave a
        // track a few ascending runs: merged run by run.
        sortRuns(order.begin() + b, order.begin() + e, before);

        // An event's depth is the number of open events that contain its start, kept on a stack.
        // A first walk counts the events at each depth; a nested track is walked again to place
        // each event by its depth (a stable counting sort), so no depth is stored per event.
        auto walk = [&](const uint32_t* rows, auto&& visit) {
            std::vector<int64_t> openEnds;
            for (uint32_t k2 = 0; k2 < e - b; ++k2) {
                const int64_t s = start_[rows[k2]], end = s + duration_[rows[k2]];
                while (!openEnds.empty() && openEnds.back() <= s) openEnds.pop_back();
                visit(rows[k2], uint32_t(openEnds.size()), s, end);
                openEnds.push_back(end);
            }
        };
        // Events at depth d - 1; once summed, where depth d begins.
        std::vector<uint32_t> depthCount(2, 0);
        int64_t minStart = std::numeric_limits<int64_t>::max();
        int64_t maxEnd = std::numeric_limits<int64_t>::min();
        walk(order.data() + b, [&](uint32_t, uint32_t d, int64_t s, int64_t end) {
            if (d + 2 > depthCount.size()) depthCount.resize(d + 2, 0);
            ++depthCount[d + 1];
            minStart = std::min(minStart, s);
            maxEnd = std::max(maxEnd, end);
        });
        track.minStartPs = e > b ? minStart : 0;
        track.maxEndPs = e > b ? maxEnd : 0;
        track.depthCount = e > b ? uint32_t(depthCount.size() - 1) : 0;
        std::partial_sum(depthCount.begin(), depthCount.end(), depthCount.begin());
        std::vector<uint32_t>& offsets = depthOffsets[t];
        for (uint32_t d = 0; d <= track.depthCount; ++d) offsets.push_back(b + depthCount[d]);
        if (track.depthCount > 1) {
            const std::vector<uint32_t> scratch(order.begin() + b, order.begin() + e);
            walk(scratch.data(), [&](uint32_t row, uint32_t d, int64_t, int64_t) {
                order[b + depthCount[d]++] = row;
            });
        }
        const size_t done = ++sorted;
        if (progress) {
            const std::lock_guard lock(reportMutex);
            progress->report("Sorting events", double(done) / double(trackCount));
        }
    });
    if (stop) {
        cancelled = true;
        return {};
    }
    p.depthOffsets_.clear();
    for (size_t t = 0; t < trackCount; ++t) {
        p.tracks_[t].firstDepth = static_cast<uint32_t>(p.depthOffsets_.size());
        p.depthOffsets_.insert(p.depthOffsets_.end(), depthOffsets[t].begin(),
                               depthOffsets[t].end());
    }
    return order;
}

std::unique_ptr<Profile> ProfileBuilder::finish(const Progress* progress, unsigned threads) {
    Profile& p = *profile_;
    closeStatList();
    if (!error_.empty()) return nullptr;
    const size_t n = start_.size();
    groupTracksByPlane();
    bool cancelled = false;
    Column<uint32_t> order = orderEvents(progress, cancelled, threads);
    if (cancelled) return nullptr;
    if (progress) progress->report("Building columns", 0);

    // Each block's flag is set once, from a local: the flags share a cache line, and a store per
    // row from both threads would pass that line back and forth between their cores.
    std::vector<uint8_t> moved(blockCount(n), 0);
    parallelFor(moved.size(), threads, [&](size_t k) {
        const auto [b, e] = block(n, k);
        bool any = false;
        for (size_t i = b; i < e && !any; ++i) any = order[i] != i;
        moved[k] = any;
    });
    const bool reordered = std::find(moved.begin(), moved.end(), 1) != moved.end();

    // Durations narrow into the profile's column (DurationColumn) in whichever pass reads them
    // in profile order: the scan below when no event moved, the reordering copy otherwise. Each
    // block lists its long durations apart; the lists are joined in block order, so the side
    // table comes out in event order.
    DurationColumn& durations = p.duration_;
    durations.narrow_.resize(n);
    std::vector<std::vector<std::pair<uint32_t, int64_t>>> longDurations(blockCount(n));
    const auto narrow = [&](size_t k, size_t i, int64_t d) {
        if (uint64_t(d) < DurationColumn::kLong) {
            durations.narrow_[i] = uint32_t(d);
        } else {
            durations.narrow_[i] = DurationColumn::kLong;
            longDurations[k].emplace_back(uint32_t(i), d);
        }
    };

    // Shift time so the profile starts within the first nanosecond; keep the absolute start.
    // Blocks of events are scanned in parallel; the first event (in row order) whose end
    // overflows is the one reported.
    struct Extent {
        int64_t minStart = std::numeric_limits<int64_t>::max();
        int64_t maxEnd = std::numeric_limits<int64_t>::min();
        size_t overflowAt = SIZE_MAX;
    };
    // Kept in a local while the block is scanned, for the same reason as the flags above.
    std::vector<Extent> extents(blockCount(n));
    parallelFor(extents.size(), threads, [&](size_t k) {
        const auto [b, e] = block(n, k);
        Extent x;
        for (size_t i = b; i < e; ++i) {
            int64_t end;
            if (__builtin_add_overflow(start_[i], duration_[i], &end)) {
                x.overflowAt = i;
                break;
            }
            x.minStart = std::min(x.minStart, start_[i]);
            x.maxEnd = std::max(x.maxEnd, end);
            if (!reordered) narrow(k, i, duration_[i]);
        }
        extents[k] = x;
    });
    int64_t minStart = 0, maxEnd = 0;
    for (size_t k = 0; k < extents.size(); ++k) {
        if (extents[k].overflowAt != SIZE_MAX) {
            const size_t i = extents[k].overflowAt;
            error_ = "an event ends past the largest time a profile can hold (start " +
                     std::to_string(start_[i]) + " ps, duration " + std::to_string(duration_[i]) +
                     " ps)";
            return nullptr;
        }
        minStart = k == 0 ? extents[k].minStart : std::min(minStart, extents[k].minStart);
        maxEnd = k == 0 ? extents[k].maxEnd : std::max(maxEnd, extents[k].maxEnd);
    }
    const int64_t shiftNs = minStart >= 0 ? minStart / 1000 : -((-minStart + 999) / 1000);
    const int64_t shift = shiftNs * 1000;
    // Times are rebased to the earliest start; the spread from there to the latest end must fit
    // in an int64 (2^63 ps, about 106 days), or every rebased time would wrap. Importers that
    // can name the offending field check it themselves; this guards every source.
    int64_t spread = 0;
    if (n && __builtin_sub_overflow(maxEnd, shift, &spread)) {
        error_ = "event times are too far apart: the earliest starts at " +
                 std::to_string(minStart) + " ps and the latest ends at " + std::to_string(maxEnd) +
                 " ps from the time base, more than 2^63 ps (about 106 days) apart";
        return nullptr;
    }
    p.startNs_ = timeBaseNs_ + shiftNs;
    p.durationPs_ = spread;
    for (Track& t : p.tracks_) {
        if (t.eventCount == 0) {
            t.minStartPs = t.maxEndPs = 0;
            continue;
        }
        t.minStartPs -= shift;
        t.maxEndPs -= shift;
    }

    // Starts narrow into the profile's column (StartColumn) a block of rows at a time, from the
    // block's rebased starts gathered in row order; like the long durations, each builder block
    // lists its long starts apart and the lists are joined in block order. rawRow(i) names the
    // builder row of profile row i, once per row and in order, and copies its other columns.
    StartColumn& starts = p.start_;
    starts.resize(n);
    std::vector<std::vector<std::pair<uint32_t, int64_t>>> longStarts(blockCount(n));
    const auto narrowStarts = [&](size_t k, auto&& rawRow) {
        const auto [b, e] = block(n, k);
        int64_t rows[StartColumn::kBlockRows];
        for (size_t first = b; first < e; first += StartColumn::kBlockRows) {
            const size_t count = std::min(StartColumn::kBlockRows, e - first);
            for (size_t i = 0; i < count; ++i) rows[i] = start_[rawRow(first + i)] - shift;
            starts.writeBlock(uint32_t(first), rows, count, longStarts[k]);
        }
    };
    if (!reordered) {
        p.meta_ = std::move(meta_);
        p.statBegin_ = std::move(statBegin_);
        parallelFor(blockCount(n), threads,
                    [&](size_t k) { narrowStarts(k, [](size_t i) { return i; }); });
    } else {
        p.meta_.resize(n);
        p.statBegin_.resize(n);
        parallelFor(blockCount(n), threads, [&](size_t k) {
            narrowStarts(k, [&](size_t i) {
                const uint32_t r = order[i];
                narrow(k, i, duration_[r]);
                p.meta_[i] = meta_[r];
                p.statBegin_[i] = statBegin_[r];
                return r;
            });
        });
        Column<uint32_t>().swap(meta_);
        Column<uint32_t>().swap(statBegin_);
    }
    Column<int64_t>().swap(start_);
    for (const auto& part : longStarts) starts.addLongRows(part);
    starts.shrink();
    Column<int64_t>().swap(duration_);
    for (const auto& part : longDurations)
        for (const auto& [e, d] : part) durations.long_.append(e, d);
    durations.long_.shrink();
    statBlob_.shrink_to_fit();
    p.statBlob_ = std::move(statBlob_);
    p.statKeys_ = std::move(statKeys_);
    shapes_.release(p.shapeBegin_, p.shapeTags_);
    Column<uint32_t>().swap(order);
    Column<uint32_t>().swap(track_);

    // Metadata and plane stats go after the event stats, in one column.
    std::stable_sort(metadataStats_.begin(), metadataStats_.end(),
                     [](const PendingStat& a, const PendingStat& b) { return a.owner < b.owner; });
    std::stable_sort(planeStats_.begin(), planeStats_.end(),
                     [](const PendingStat& a, const PendingStat& b) { return a.owner < b.owner; });
    std::vector<StatValue>& stats = p.stats_;
    stats.reserve(metadataStats_.size() + planeStats_.size());
    for (size_t i = 0; i < metadataStats_.size();) {
        EventMetadata& m = p.metadata_[metadataStats_[i].owner];
        m.statBegin = static_cast<uint32_t>(stats.size());
        const uint32_t owner = metadataStats_[i].owner;
        for (; i < metadataStats_.size() && metadataStats_[i].owner == owner; ++i)
            stats.push_back(metadataStats_[i].stat);
        m.statEnd = static_cast<uint32_t>(stats.size());
    }
    for (size_t i = 0; i < planeStats_.size();) {
        Plane& pl = p.planes_[planeStats_[i].owner];
        pl.statBegin = static_cast<uint32_t>(stats.size());
        const uint32_t owner = planeStats_[i].owner;
        for (; i < planeStats_.size() && planeStats_[i].owner == owner; ++i)
            stats.push_back(planeStats_[i].stat);
        pl.statEnd = static_cast<uint32_t>(stats.size());
    }

    for (Plane& pl : p.planes_) pl.trackCount = 0;
    for (size_t t = 0; t < p.tracks_.size(); ++t) {
        Plane& pl = p.planes_[p.tracks_[t].plane];
        if (pl.trackCount == 0) pl.firstTrack = static_cast<uint32_t>(t);
        ++pl.trackCount;
    }
    p.trackStarts_.resize(p.tracks_.size());
    for (size_t t = 0; t < p.tracks_.size(); ++t) p.trackStarts_[t] = p.tracks_[t].firstEvent;

    // Device properties from plane stats.
    for (Plane& pl : p.planes_) {
        for (const StatValue& s : p.planeStats(pl)) {
            const std::string_view key = p.str(s.key);
            if (key == "device_vendor" && s.isText())
                pl.device.vendor = p.str(s.asString());
            else if (key == "compute_cap_major")
                pl.device.computeCapMajor = int(s.asInt());
            else if (key == "compute_cap_minor")
                pl.device.computeCapMinor = int(s.asInt());
            else if (key == "core_count")
                pl.device.coreCount = s.asInt();
            else if (key == "clock_rate")
                pl.device.clockRateKHz = s.asInt();
            else if (key == "memory_size")
                pl.device.memoryBytes = uint64_t(s.asInt());
            else if (key == "memory_bandwidth")
                pl.device.bandwidthBps = uint64_t(s.asInt());
        }
    }

    if (progress) progress->report("Decoding stats", 0);
    decodeHotStats(threads);
    if (progress) progress->report("Joining launches to kernels", 0);
    joinFlows(threads);
    bindFlowPoints(shift);
    if (progress) progress->report("Done", 1);
    return std::move(profile_);
}

// Reads the stats every analysis needs into typed columns, once. Stats on the event override
// those of its metadata. Text stats such as kernel_details repeat across events, so each distinct
// string is parsed once. Memory events are indexed with their allocator; their other allocator
// fields are decoded from the binary stat list when asked for (Profile::memoryEvent).
void ProfileBuilder::decodeHotStats(unsigned threads) {
    Profile& p = *profile_;
    const StringPool& pool = p.strings_;
    enum Key : uint8_t { None, Group, Corr, Kernel, Memcpy, TfOp, Level0, HloOp, Allocator };
    const std::pair<std::string_view, Key> names[] = {
        {"group_id", Group},
        {"correlation_id", Corr},
        {"kernel_details", Kernel},
        {"memcpy_details", Memcpy},
        {"tf_op", TfOp},
        {"level 0", Level0},
        {"hlo_op", HloOp},
        {"allocator_name", Allocator},
    };
    std::unordered_map<StringId, Key> keyOf;
    for (const auto& [name, key] : names) {
        const StringId id = pool.find(name);
        if (id != StringPool::kNotFound) keyOf[id] = key;
    }
    auto classify = [&](StringId id) {
        const auto it = keyOf.find(id);
        return it == keyOf.end() ? None : it->second;
    };
    // Event stats name their key by index into the profile's stat key table.
    std::vector<Key> keyOfIndex(p.statKeys_.size(), None);
    for (size_t i = 1; i < p.statKeys_.size(); ++i) keyOfIndex[i] = classify(p.statKeys_[i]);

    // Of each list shape, how many of its values to read: up to its last hot stat.
    std::vector<uint32_t> hotLength(p.shapeBegin_.size() - 1, 0);
    for (size_t shape = 0; shape < hotLength.size(); ++shape)
        for (uint32_t i = p.shapeBegin_[shape]; i < p.shapeBegin_[shape + 1]; ++i)
            if (keyOfIndex[statcodec::keyOfTag(p.shapeTags_[i])] != None)
                hotLength[shape] = i + 1 - p.shapeBegin_[shape];

    const StringId allocName = pool.find("MemoryAllocation");
    const StringId deallocName = pool.find("MemoryDeallocation");
    std::vector<uint8_t> isMemory(p.metadata_.size(), 0);
    for (size_t m = 0; m < p.metadata_.size(); ++m)
        isMemory[m] = p.metadata_[m].name == allocName || p.metadata_[m].name == deallocName;

    struct Hot {
        int64_t group = -1;
        bool hasCorr = false;
        bool hasKernel = false; // a kernel_details stat, possibly empty (geometry not recorded)
        uint64_t corr = 0;
        StringId kernel = 0, memcpy = 0, tfOp = 0, level0 = 0, hloOp = 0, allocator = 0;
    };
    auto apply = [](Key key, const StatValue& s, Hot& h) {
        if (key == Group) {
            h.group = s.asInt();
        } else if (key == Corr) {
            h.hasCorr = true;
            h.corr = s.raw;
        } else if (s.isText()) {
            const StringId v = s.asString();
            switch (key) {
            case Kernel:
                h.kernel = v;
                h.hasKernel = true;
                break;
            case Memcpy:
                h.memcpy = v;
                break;
            case TfOp:
                h.tfOp = v;
                break;
            case Level0:
                h.level0 = v;
                break;
            case HloOp:
                h.hloOp = v;
                break;
            case Allocator:
                h.allocator = v;
                break;
            default:
                break;
            }
        }
    };

    std::vector<Hot> metaHot(p.metadata_.size());
    for (size_t m = 0; m < p.metadata_.size(); ++m)
        for (const StatValue& s : p.metadataStats(uint32_t(m)))
            apply(classify(s.key), s, metaHot[m]);

    // Tracks decode on their own, into side tables of their own; kernels are numbered there by
    // first appearance in the track, and renumbered below, in track order, into the profile's
    // table, so the numbering is that of one pass over all events.
    struct TrackHot {
        CorrelationIds correlation;
        SideTable<uint32_t> kernels; // into `kernelTexts`
        std::vector<StringId> kernelTexts;
        SideTable<MemcpyDetails> memcpys;
        SideTable<StringId> memory, tfOps, hloOps;
        // Event numbers as in the profile, so the runs join up as they are.
        RunColumn<int32_t> groups;
    };
    std::vector<TrackHot> perTrack(p.tracks_.size());
    parallelFor(p.tracks_.size(), threads, [&](size_t t) {
        const Track& track = p.tracks_[t];
        TrackHot out; // moved into perTrack at the end: neighbours share no cache line meanwhile
        std::unordered_map<StringId, uint32_t> kernelIndex;
        std::unordered_map<StringId, MemcpyDetails> memcpyCache;
        // Kernel geometry is a property of device work. TF 2020 also wrote `kernel_details` on
        // host executor events, with uninitialised values, so only device stream events count.
        const bool deviceWork = track.deviceOps;
        for (EventIndex e = track.firstEvent; e < track.firstEvent + track.eventCount; ++e) {
            const uint32_t m = p.meta_[e];
            Hot h = metaHot[m];
            // The stat list is read in place (see StatList.h), up to its last hot stat.
            const uint8_t* q = p.statBlob_.data() + p.statBegin_[e];
            const uint32_t shape = uint32_t(statcodec::getVarint(q));
            const uint32_t* tag = p.shapeTags_.data() + p.shapeBegin_[shape];
            for (const uint32_t* const last = tag + hotLength[shape]; tag != last; ++tag) {
                StatValue s;
                s.type = statcodec::typeOfTag(*tag);
                s.raw = statcodec::readValue(q, s.type);
                const Key key = keyOfIndex[statcodec::keyOfTag(*tag)];
                if (key != None) apply(key, s, h);
            }
            out.groups.append(e,
                              h.group >= INT32_MIN && h.group <= INT32_MAX ? int32_t(h.group) : -1);
            if (h.hasCorr) out.correlation.append(e, h.corr);
            if (h.hasKernel && deviceWork) {
                auto [it, inserted] =
                    kernelIndex.try_emplace(h.kernel, uint32_t(out.kernelTexts.size()));
                if (inserted) out.kernelTexts.push_back(h.kernel);
                out.kernels.append(e, it->second);
            }
            if (h.memcpy) {
                auto it = memcpyCache.find(h.memcpy);
                if (it == memcpyCache.end())
                    it = memcpyCache.emplace(h.memcpy, MemcpyDetails::parse(pool.get(h.memcpy)))
                             .first;
                out.memcpys.append(e, it->second);
            }
            if (h.tfOp || h.level0) out.tfOps.append(e, h.tfOp ? h.tfOp : h.level0);
            if (h.hloOp) out.hloOps.append(e, h.hloOp);
            if (isMemory[m]) out.memory.append(e, h.allocator);
        }
        perTrack[t] = std::move(out);
    });

    // Kernels are renumbered in track order here; then the tracks' tables join into the
    // profile's, each table on a core of its own (they are independent).
    std::vector<std::vector<uint32_t>> renumber(perTrack.size());
    std::unordered_map<StringId, uint32_t> kernelIndex;
    for (size_t t = 0; t < perTrack.size(); ++t) {
        for (const StringId text : perTrack[t].kernelTexts) {
            auto [it, inserted] = kernelIndex.try_emplace(text, uint32_t(p.kernelDetails_.size()));
            if (inserted) p.kernelDetails_.push_back(KernelDetails::parse(pool.get(text)));
            renumber[t].push_back(it->second);
        }
        perTrack[t].kernelTexts = {};
    }
    auto join = [&](auto& table, auto member) {
        size_t total = 0;
        for (const TrackHot& t : perTrack) total += (t.*member).size();
        table.reserve(total);
        for (TrackHot& t : perTrack) {
            table.append(t.*member);
            t.*member = {};
        }
        table.shrink();
    };
    const std::function<void()> joins[] = {
        [&] {
            p.kernels_.reserve(
                std::accumulate(perTrack.begin(), perTrack.end(), size_t(0),
                                [](size_t n, const TrackHot& t) { return n + t.kernels.size(); }));
            for (size_t t = 0; t < perTrack.size(); ++t) {
                perTrack[t].kernels.forEach(
                    [&](uint32_t e, uint32_t k) { p.kernels_.append(e, renumber[t][k]); });
                perTrack[t].kernels = {};
            }
            p.kernels_.shrink();
        },
        [&] { join(p.correlation_, &TrackHot::correlation); },
        [&] { join(p.memcpys_, &TrackHot::memcpys); },
        [&] { join(p.memory_, &TrackHot::memory); },
        [&] { join(p.tfOps_, &TrackHot::tfOps); },
        [&] { join(p.hloOps_, &TrackHot::hloOps); },
        [&] {
            for (TrackHot& t : perTrack) {
                p.groupIds_.append(t.groups);
                t.groups = {};
            }
            p.groupIds_.shrink();
        },
    };
    // The tables with the most entries start first, so that the threads finish together.
    const auto entries = [&perTrack](auto member) {
        size_t total = 0;
        for (const TrackHot& t : perTrack) total += (t.*member).size();
        return total;
    };
    const size_t work[std::size(joins)] = {
        entries(&TrackHot::kernels),
        entries(&TrackHot::correlation),
        entries(&TrackHot::memcpys),
        entries(&TrackHot::memory),
        entries(&TrackHot::tfOps),
        entries(&TrackHot::hloOps),
        0, // step ids: runs, few
    };
    std::vector<size_t> byWork(std::size(joins));
    std::iota(byWork.begin(), byWork.end(), size_t(0));
    std::stable_sort(byWork.begin(), byWork.end(),
                     [&work](size_t a, size_t b) { return work[a] > work[b]; });
    parallelFor(byWork.size(), threads, [&](size_t i) { joins[byWork[i]](); });
}

// Joins host launches to device events by correlation id, within each host. A launch is an
// event with a correlation id on a host plane; a target is one on a device op line
// (Track::deviceOps: a GPU stream, a TPU op line), never on a derived line, which repeats them.
// Launches are sorted by (id, host) and each target looks its launch up, visiting targets in event
// order, so the by-target list comes out sorted as it is built.
void ProfileBuilder::joinFlows(unsigned threads) {
    Profile& p = *profile_;
    // `at` is gathered as the launch's event, then replaced by its place among the launches in
    // event order, so that ordering the flows by launch is a counting sort.
    struct Launch {
        uint64_t corr;
        uint32_t host;
        uint32_t at;
        bool operator<(const Launch& o) const {
            return corr != o.corr ? corr < o.corr : host != o.host ? host < o.host : at < o.at;
        }
    };
    enum Role : uint8_t { None, IsLaunch, IsTarget };
    std::vector<Role> trackRole(p.tracks_.size(), None);
    for (size_t t = 0; t < p.tracks_.size(); ++t) {
        const Plane& pl = p.planes_[p.tracks_[t].plane];
        if (pl.kind == PlaneKind::Host)
            trackRole[t] = IsLaunch;
        else if (p.tracks_[t].deviceOps)
            trackRole[t] = IsTarget;
    }
    // Correlated events are visited in event order, which is track order, in blocks on all
    // cores: the track of a block's first event is searched, the others found by walking forward.
    // Each block gathers into a vector of its own (blocks share no cache line while they run),
    // and the blocks' results are joined in block order, so every list comes out as one pass in
    // event order would make it.
    const size_t m = p.correlation_.size();
    auto forEachCorrelated = [&](size_t k, auto&& fn) {
        const auto [b, e] = block(m, k);
        uint32_t t = p.trackOf(p.correlation_.eventAt(b));
        p.correlation_.forEachIn(b, e, [&](EventIndex ev, uint64_t corr) {
            while (ev >= p.tracks_[t].firstEvent + p.tracks_[t].eventCount) ++t;
            fn(ev, corr, trackRole[t], p.planes_[p.tracks_[t].plane].host);
        });
    };
    std::vector<std::vector<Launch>> launchParts(blockCount(m));
    parallelFor(blockCount(m), threads, [&](size_t k) {
        std::vector<Launch> part;
        forEachCorrelated(k, [&](EventIndex e, uint64_t corr, Role role, uint32_t host) {
            if (role == IsLaunch) part.push_back({corr, host, e});
        });
        launchParts[k] = std::move(part);
    });
    // The parts laid one after another on all cores (both columns are written whole here).
    const std::vector<size_t> launchAt = partOffsets(launchParts);
    Column<Launch> launches(launchAt.back());
    Column<EventIndex> launchEvents(launchAt.back());
    parallelFor(launchParts.size(), threads, [&](size_t k) {
        for (size_t i = 0, j = launchAt[k]; i < launchParts[k].size(); ++i, ++j) {
            const Launch& l = launchParts[k][i];
            launchEvents[j] = l.at;
            launches[j] = {l.corr, l.host, uint32_t(j)};
        }
        std::vector<Launch>().swap(launchParts[k]);
    });
    // Gathered track by track in time order, the launches are a few ascending runs of ids.
    parallelSort(launches.begin(), launches.end(), threads, std::less<Launch>());
    // Targets of one stream come in launch order too, so each search starts where the last one
    // ended and gallops forward. A flow's launch is its place in event order here.
    std::vector<std::vector<Flow>> flowParts(blockCount(m));
    parallelFor(blockCount(m), threads, [&](size_t k) {
        std::vector<Flow> part;
        size_t hint = 0;
        forEachCorrelated(k, [&](EventIndex e, uint64_t corr, Role role, uint32_t host) {
            if (role != IsTarget) return;
            size_t i = hint = lowerBoundFrom(launches, hint, Launch{corr, host, 0});
            for (; i < launches.size() && launches[i].corr == corr && launches[i].host == host; ++i)
                part.push_back({launches[i].at, e});
        });
        flowParts[k] = std::move(part);
    });
    // The flows come out in target order, block after block; a stable counting sort on the
    // launch's position, reading the blocks' parts in order as one list, gives them in (launch,
    // target) order, and the position each one lands at.
    size_t flowCount = 0;
    for (const auto& part : flowParts) flowCount += part.size();
    std::vector<uint32_t> slot(launchEvents.size() + 1, 0);
    for (const auto& part : flowParts)
        for (const Flow& f : part) ++slot[f.launch + 1];
    std::partial_sum(slot.begin(), slot.end(), slot.begin());
    p.flows_.resize(flowCount);
    p.flowsByTarget_.resize(flowCount);
    size_t i = 0;
    for (auto& part : flowParts) {
        for (const Flow& f : part) {
            const uint32_t j = slot[f.launch]++;
            p.flows_[j] = {launchEvents[f.launch], f.target};
            p.flowsByTarget_[i++] = j;
        }
        std::vector<Flow>().swap(part);
    }
}

// Flow points bound as Perfetto's JSON importer binds them (trace_processor json_trace_parser:
// 's' and 't' to the topmost open slice of the thread, 'f' with "bp":"e" likewise, other 'f' to
// the next slice that begins on the thread; FlowTracker joins each point to the one before).
void ProfileBuilder::bindFlowPoints(int64_t shift) {
    if (flowPoints_.empty()) return;
    Profile& p = *profile_;
    constexpr EventIndex kNone = std::numeric_limits<EventIndex>::max();
    auto bind = [&](const FlowPoint& f) {
        if (f.track >= p.tracks_.size()) return kNone;
        const Track& t = p.tracks_[f.track];
        const int64_t ps = f.ps - shift;
        if (f.phase != FlowPhase::End || f.enclosing) {
            // The innermost slice holding ps: start <= ps < end (an instant at ps holds it).
            for (uint32_t d = t.depthCount; d-- > 0;) {
                const EventRange r = p.eventsAt(f.track, d);
                const EventIndex after = firstStartingAfter(p.startColumn(), r.begin, r.end, ps);
                if (after == r.begin) continue;
                const EventIndex e = after - 1;
                if (p.end(e) > ps || p.start(e) == ps) return e;
            }
            return kNone;
        }
        // The next slice to begin: the earliest start at or after ps, the outermost of a tie.
        EventIndex best = kNone;
        for (uint32_t d = 0; d < t.depthCount; ++d) {
            const EventRange r = p.eventsAt(f.track, d);
            const EventIndex e = firstStartingAt(p.startColumn(), r.begin, r.end, ps);
            if (e == r.end) continue;
            if (best == kNone || p.start(e) < p.start(best)) best = e;
        }
        return best;
    };
    // (host, flow) -> the slice its last point bound: each importer numbers its own flows.
    std::map<std::pair<uint32_t, uint64_t>, EventIndex> open;
    std::vector<Flow> added;
    for (const FlowPoint& f : flowPoints_) {
        const EventIndex e = bind(f);
        if (e == kNone) continue;
        const std::pair<uint32_t, uint64_t> key{p.planes_[p.tracks_[f.track].plane].host, f.flow};
        if (f.phase == FlowPhase::Begin) {
            open[key] = e;
            continue;
        }
        const auto it = open.find(key);
        if (it == open.end()) continue;
        if (it->second != e) added.push_back({it->second, e});
        if (f.phase == FlowPhase::Step) it->second = e;
    }
    std::vector<FlowPoint>().swap(flowPoints_);
    if (added.empty()) return;
    auto same = [](const Flow& a, const Flow& b) {
        return a.launch == b.launch && a.target == b.target;
    };
    p.flows_.insert(p.flows_.end(), added.begin(), added.end());
    std::sort(p.flows_.begin(), p.flows_.end(), flowByLaunch);
    p.flows_.erase(std::unique(p.flows_.begin(), p.flows_.end(), same), p.flows_.end());
    p.flowsByTarget_.resize(p.flows_.size());
    std::iota(p.flowsByTarget_.begin(), p.flowsByTarget_.end(), 0u);
    std::sort(p.flowsByTarget_.begin(), p.flowsByTarget_.end(),
              [&p](uint32_t x, uint32_t y) { return flowByTarget(p.flows_[x], p.flows_[y]); });
}

} // namespace stepscope
