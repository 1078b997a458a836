#include "model/xspace/XSpaceImporter.h"

#include <unordered_map>
#include <vector>

#include "model/xspace/WireReader.h"

namespace stepscope {

namespace {

// int64 ids -> uint32 values. XSpace ids are small and dense in practice, so a vector serves them;
// anything else (negative, huge) falls back to a hash map.
class IdMap {
public:
    void set(int64_t id, uint32_t value) {
        if (id >= 0 && id < kDenseLimit) {
            if (size_t(id) >= dense_.size()) dense_.resize(size_t(id) + 1, kNoIndex);
            dense_[size_t(id)] = value;
        } else {
            sparse_[id] = value;
        }
    }
    uint32_t get(int64_t id) const {
        if (id >= 0 && id < kDenseLimit)
            return size_t(id) < dense_.size() ? dense_[size_t(id)] : kNoIndex;
        const auto it = sparse_.find(id);
        return it == sparse_.end() ? kNoIndex : it->second;
    }
    void clear() {
        dense_.clear();
        sparse_.clear();
    }

private:
    static constexpr int64_t kDenseLimit = 1 << 22;
    std::vector<uint32_t> dense_;
    std::unordered_map<int64_t, uint32_t> sparse_;
};

struct Span {
    const uint8_t* begin;
    const uint8_t* end;
};

class Importer {
public:
    Importer(std::span<const uint8_t> bytes, ProfileBuilder& builder, uint32_t host,
             const Progress* progress)
        : file_(bytes.data())
        , size_(bytes.size())
        , b_(builder)
        , host_(host)
        , progress_(progress) {}

    std::string run();

private:
    bool plane(Span span);
    bool statMetadata(Span span);
    bool eventMetadata(Span span, uint32_t plane);
    bool line(Span span, uint32_t plane);
    bool events(Span lineSpan, uint32_t track, int64_t baseNs);
    bool stat(WireReader& r, StatValue& out, const char* what);
    bool fail(const WireReader& r) {
        if (error_.empty()) error_ = r.error();
        return false;
    }
    bool fail(std::string message) {
        if (error_.empty()) error_ = std::move(message);
        return false;
    }
    StringId statKey(int64_t id) {
        const uint32_t k = statNames_.get(id);
        if (k != kNoIndex) return k;
        const StringId s = b_.intern("stat#" + std::to_string(id));
        statNames_.set(id, s);
        return s;
    }
    bool checkCancel(const uint8_t* at) {
        if (!progress_) return true;
        if (progress_->cancelled()) return fail("cancelled");
        progress_->report("Reading events", double(at - file_) / double(size_ ? size_ : 1));
        return true;
    }

    const uint8_t* file_;
    size_t size_;
    ProfileBuilder& b_;
    uint32_t host_;
    const Progress* progress_;
    std::string error_;
    IdMap statNames_; // stat metadata id -> interned name, per plane
    IdMap metadata_;  // event metadata id -> builder metadata index, per plane
    uint32_t currentPlane_ = 0;
    uint64_t aggregatedEvents_ = 0;
    uint64_t eventsSinceReport_ = 0;
};

std::string Importer::run() {
    if (size_ == 0) return "the file is empty";
    WireReader r(file_, file_ + size_, file_);
    std::vector<Span> planes;
    uint32_t field, wt;
    Host& host = b_.host(host_);
    while (r.next(field, wt)) {
        std::string_view s;
        const uint8_t *pb, *pe;
        switch (field) {
        case 1:
            if (!r.expect(wt, WireReader::Len, "XSpace.planes") ||
                !r.bytes(pb, pe, "XSpace.planes"))
                return "not an XSpace profile: " + r.error();
            planes.push_back({pb, pe});
            break;
        case 2:
        case 3:
        case 4:
            if (!r.expect(wt, WireReader::Len, "XSpace string field") ||
                !r.string(s, "XSpace string field"))
                return "not an XSpace profile: " + r.error();
            if (field == 2)
                host.errors.emplace_back(s);
            else if (field == 3)
                host.warnings.emplace_back(s);
            else
                host.hostnames.emplace_back(s);
            break;
        default:
            if (!r.skip(wt, "XSpace")) return "not an XSpace profile: " + r.error();
        }
    }
    if (r.failed()) return "not an XSpace profile: " + r.error();
    if (planes.empty())
        return "not an XSpace profile: no planes found (the file holds no "
               "tensorflow.profiler.XSpace)";
    for (const Span& p : planes) {
        if (!plane(p)) return error_;
    }
    if (aggregatedEvents_)
        host.warnings.push_back(std::to_string(aggregatedEvents_) +
                                " aggregated events (num_occurrences) have no time and are not "
                                "shown on the timeline");
    return {};
}

bool Importer::plane(Span span) {
    // Lines come before the metadata maps on the wire, and decoding an event needs both maps, so
    // the plane is read twice: once for its scalar fields and the spans of its parts, then again
    // for the lines.
    WireReader r(span.begin, span.end, file_);
    int64_t id = 0;
    std::string_view name;
    std::vector<Span> lines, eventMeta, statMeta, stats;
    uint32_t field, wt;
    while (r.next(field, wt)) {
        uint64_t v;
        const uint8_t *b, *e;
        switch (field) {
        case 1:
            if (!r.expect(wt, WireReader::Varint, "XPlane.id") || !r.varint(v, "XPlane.id"))
                return fail(r);
            id = int64_t(v);
            break;
        case 2:
            if (!r.expect(wt, WireReader::Len, "XPlane.name") || !r.string(name, "XPlane.name"))
                return fail(r);
            break;
        case 3:
        case 4:
        case 5:
        case 6:
            if (!r.expect(wt, WireReader::Len, "XPlane field") || !r.bytes(b, e, "XPlane field"))
                return fail(r);
            (field == 3   ? lines
             : field == 4 ? eventMeta
             : field == 5 ? statMeta
                          : stats)
                .push_back({b, e});
            break;
        default:
            if (!r.skip(wt, "XPlane")) return fail(r);
        }
    }
    if (r.failed()) return fail(r);

    currentPlane_ = b_.addPlane(host_, id, name);
    statNames_.clear();
    metadata_.clear();
    for (const Span& s : statMeta)
        if (!statMetadata(s)) return false;
    for (const Span& s : eventMeta)
        if (!eventMetadata(s, currentPlane_)) return false;
    for (const Span& s : stats) {
        WireReader sr(s.begin, s.end, file_);
        StatValue v;
        if (!stat(sr, v, "XPlane.stats")) return false;
        b_.addPlaneStat(currentPlane_, v);
    }
    for (const Span& s : lines)
        if (!line(s, currentPlane_)) return false;
    return true;
}

// map<int64, XStatMetadata> entry: key = 1, value = 2 { id = 1, name = 2, description = 3 }.
bool Importer::statMetadata(Span span) {
    WireReader r(span.begin, span.end, file_);
    int64_t key = 0, id = 0;
    bool hasKey = false;
    std::string_view name;
    uint32_t field, wt;
    while (r.next(field, wt)) {
        uint64_t v;
        const uint8_t *b, *e;
        if (field == 1 && wt == WireReader::Varint) {
            if (!r.varint(v, "XPlane.stat_metadata key")) return fail(r);
            key = int64_t(v);
            hasKey = true;
        } else if (field == 2 && wt == WireReader::Len) {
            if (!r.bytes(b, e, "XStatMetadata")) return fail(r);
            WireReader m(b, e, file_);
            uint32_t f2, wt2;
            while (m.next(f2, wt2)) {
                if (f2 == 1 && wt2 == WireReader::Varint) {
                    if (!m.varint(v, "XStatMetadata.id")) return fail(m);
                    id = int64_t(v);
                } else if (f2 == 2 && wt2 == WireReader::Len) {
                    if (!m.string(name, "XStatMetadata.name")) return fail(m);
                } else if (!m.skip(wt2, "XStatMetadata")) {
                    return fail(m);
                }
            }
            if (m.failed()) return fail(m);
        } else if (!r.skip(wt, "XPlane.stat_metadata")) {
            return fail(r);
        }
    }
    if (r.failed()) return fail(r);
    statNames_.set(hasKey ? key : id, b_.intern(name));
    return true;
}

// map<int64, XEventMetadata> entry: key = 1, value = 2 { id = 1, name = 2, metadata = 3,
// display_name = 4, stats = 5, child_id = 6 }.
bool Importer::eventMetadata(Span span, uint32_t plane) {
    WireReader r(span.begin, span.end, file_);
    int64_t key = 0, id = 0;
    bool hasKey = false;
    std::string_view name, displayName;
    std::vector<Span> stats;
    uint32_t field, wt;
    while (r.next(field, wt)) {
        uint64_t v;
        const uint8_t *b, *e;
        if (field == 1 && wt == WireReader::Varint) {
            if (!r.varint(v, "XPlane.event_metadata key")) return fail(r);
            key = int64_t(v);
            hasKey = true;
        } else if (field == 2 && wt == WireReader::Len) {
            if (!r.bytes(b, e, "XEventMetadata")) return fail(r);
            WireReader m(b, e, file_);
            uint32_t f2, wt2;
            while (m.next(f2, wt2)) {
                const uint8_t *sb, *se;
                if (f2 == 1 && wt2 == WireReader::Varint) {
                    if (!m.varint(v, "XEventMetadata.id")) return fail(m);
                    id = int64_t(v);
                } else if (f2 == 2 && wt2 == WireReader::Len) {
                    if (!m.string(name, "XEventMetadata.name")) return fail(m);
                } else if (f2 == 4 && wt2 == WireReader::Len) {
                    if (!m.string(displayName, "XEventMetadata.display_name")) return fail(m);
                } else if (f2 == 5 && wt2 == WireReader::Len) {
                    if (!m.bytes(sb, se, "XEventMetadata.stats")) return fail(m);
                    stats.push_back({sb, se});
                } else if (!m.skip(wt2, "XEventMetadata")) {
                    return fail(m);
                }
            }
            if (m.failed()) return fail(m);
        } else if (!r.skip(wt, "XPlane.event_metadata")) {
            return fail(r);
        }
    }
    if (r.failed()) return fail(r);
    const uint32_t index = b_.addMetadata(plane, hasKey ? key : id, name, displayName);
    metadata_.set(hasKey ? key : id, index);
    for (const Span& s : stats) {
        WireReader sr(s.begin, s.end, file_);
        StatValue v;
        if (!stat(sr, v, "XEventMetadata.stats")) return false;
        b_.addMetadataStat(index, v);
    }
    return true;
}

// XStat { metadata_id = 1; oneof value { double = 2; uint64 = 3; int64 = 4; str = 5;
// bytes = 6; ref_value = 7 } }. A ref_value names an XStatMetadata whose name is the string.
bool Importer::stat(WireReader& r, StatValue& out, const char* what) {
    uint32_t field, wt;
    int64_t key = 0;
    out = StatValue{};
    while (r.next(field, wt)) {
        uint64_t v = 0;
        std::string_view s;
        switch (field) {
        case 1:
            if (!r.expect(wt, WireReader::Varint, "XStat.metadata_id") ||
                !r.varint(v, "XStat.metadata_id"))
                return fail(r);
            key = int64_t(v);
            break;
        case 2:
            if (!r.expect(wt, WireReader::Fixed64, "XStat.double_value") ||
                !r.fixed64(v, "XStat.double_value"))
                return fail(r);
            out.type = StatType::Double;
            out.raw = v;
            break;
        case 3:
        case 4:
        case 7:
            if (!r.expect(wt, WireReader::Varint, "XStat value") || !r.varint(v, "XStat value"))
                return fail(r);
            if (field == 7) {
                out.type = StatType::Ref;
                out.raw = statKey(int64_t(v));
            } else {
                out.type = field == 3 ? StatType::Uint64 : StatType::Int64;
                out.raw = v;
            }
            break;
        case 5:
        case 6:
            if (!r.expect(wt, WireReader::Len, "XStat string value") ||
                !r.string(s, "XStat string value"))
                return fail(r);
            out.type = field == 5 ? StatType::Str : StatType::Bytes;
            out.raw = b_.intern(s);
            break;
        default:
            if (!r.skip(wt, what)) return fail(r);
        }
    }
    if (r.failed()) return fail(r);
    out.key = statKey(key);
    return true;
}

// XLine { id = 1; name = 2; timestamp_ns = 3; events = 4; duration_ps = 9; display_id = 10;
// display_name = 11 }. Scalars are read first (display_name follows the events on the wire).
bool Importer::line(Span span, uint32_t plane) {
    WireReader r(span.begin, span.end, file_);
    int64_t id = 0, displayId = 0, timestampNs = 0;
    std::string_view name, displayName;
    uint32_t field, wt;
    uint64_t eventCount = 0;
    while (r.next(field, wt)) {
        uint64_t v;
        switch (field) {
        case 1:
        case 3:
        case 10:
            if (!r.expect(wt, WireReader::Varint, "XLine integer field") ||
                !r.varint(v, "XLine integer field"))
                return fail(r);
            (field == 1 ? id : field == 3 ? timestampNs : displayId) = int64_t(v);
            break;
        case 2:
            if (!r.expect(wt, WireReader::Len, "XLine.name") || !r.string(name, "XLine.name"))
                return fail(r);
            break;
        case 11:
            if (!r.expect(wt, WireReader::Len, "XLine.display_name") ||
                !r.string(displayName, "XLine.display_name"))
                return fail(r);
            break;
        case 4:
            if (!r.expect(wt, WireReader::Len, "XLine.events") || !r.skip(wt, "XLine.events"))
                return fail(r);
            ++eventCount;
            break;
        default:
            if (!r.skip(wt, "XLine")) return fail(r);
        }
    }
    if (r.failed()) return fail(r);
    if (!b_.hasTimeBase()) b_.setTimeBase(timestampNs);
    const uint32_t track = b_.addTrack(plane, id, name, displayName, displayId);
    b_.reserveEvents(b_.eventCount() + eventCount, 0);
    return events(span, track, timestampNs);
}

bool Importer::events(Span lineSpan, uint32_t track, int64_t lineNs) {
    int64_t basePs;
    if (__builtin_mul_overflow(lineNs - b_.timeBaseNs(), int64_t(1000), &basePs))
        return fail("XLine.timestamp_ns " + std::to_string(lineNs) + " is out of range");
    WireReader r(lineSpan.begin, lineSpan.end, file_);
    uint32_t field, wt;
    while (r.next(field, wt)) {
        if (field != 4) {
            if (!r.skip(wt, "XLine")) return fail(r);
            continue;
        }
        const uint8_t *eb, *ee;
        if (!r.bytes(eb, ee, "XLine.events")) return fail(r);
        WireReader ev(eb, ee, file_);
        int64_t metadataId = 0, offset = 0, duration = 0;
        bool aggregated = false;
        // The event goes in first so that its stats stream straight into the stat column; its
        // time and metadata are filled in once all of its fields are read.
        b_.addEvent(track, 0, 0, 0);
        uint32_t f, w;
        while (ev.next(f, w)) {
            uint64_t v;
            const uint8_t *sb, *se;
            switch (f) {
            case 1:
            case 2:
            case 3:
            case 5:
                if (!ev.expect(w, WireReader::Varint, "XEvent integer field") ||
                    !ev.varint(v, "XEvent integer field"))
                    return fail(ev);
                if (f == 1)
                    metadataId = int64_t(v);
                else if (f == 2)
                    offset = int64_t(v);
                else if (f == 3)
                    duration = int64_t(v);
                else
                    aggregated = true;
                break;
            case 4: {
                if (!ev.expect(w, WireReader::Len, "XEvent.stats") ||
                    !ev.bytes(sb, se, "XEvent.stats"))
                    return fail(ev);
                WireReader sr(sb, se, file_);
                StatValue s;
                if (!stat(sr, s, "XEvent.stats")) return false;
                b_.addEventStat(s);
                break;
            }
            default:
                if (!ev.skip(w, "XEvent")) return fail(ev);
            }
        }
        if (ev.failed()) return fail(ev);
        if (aggregated) {
            b_.dropLastEvent();
            ++aggregatedEvents_;
            continue;
        }
        uint32_t meta = metadata_.get(metadataId);
        if (meta == kNoIndex) {
            meta =
                b_.addMetadata(currentPlane_, metadataId,
                               "(unknown event metadata " + std::to_string(metadataId) + ")", {});
            metadata_.set(metadataId, meta);
        }
        int64_t start;
        if (__builtin_add_overflow(basePs, offset, &start))
            return fail("XEvent.offset_ps " + std::to_string(offset) + " is out of range");
        b_.amendLastEvent(start, duration, meta);
        if (++eventsSinceReport_ == 65536) {
            eventsSinceReport_ = 0;
            if (!checkCancel(ee)) return false;
        }
    }
    if (r.failed()) return fail(r);
    return true;
}

} // namespace

std::string importXSpace(std::span<const uint8_t> bytes, ProfileBuilder& builder, uint32_t host,
                         const Progress* progress) {
    Importer importer(bytes, builder, host, progress);
    return importer.run();
}

} // namespace stepscope
