#include "model/xspace/XSpaceImporter.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <deque>
#include <limits>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "model/HugePages.h"
#include "model/ParallelFor.h"
#include "model/StatShapes.h"
#include "model/StatWriter.h"
#include "model/xspace/WireReader.h"
#include "model/xspace/XStatReader.h"

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

// Events are decoded in tasks of this many events of one line, so that one large line keeps
// every core busy as well as many small ones do.
constexpr size_t kChunkEvents = 32768;

// A metadata column entry that names a chunk's own list of unknown event metadata ids.
constexpr uint32_t kLocalMetadata = 0x80000000u;

// The tables a plane's lines decode with, filled before its events are read. `statNames` gains
// the names of unknown stat ids while chunks are merged, in file order.
struct PlaneTables {
    uint32_t plane = 0;
    IdMap statNames; // stat metadata id -> interned name
    IdMap metadata;  // event metadata id -> builder metadata index
};

// One XLine: its scalars, read in a first pass that also finds where its chunks begin.
struct LineScan {
    PlaneTables* tables = nullptr;
    Span span{};
    int64_t id = 0, displayId = 0, timestampNs = 0;
    std::string_view name, displayName;
    size_t eventCount = 0;
    std::vector<const uint8_t*> cuts; // chunk boundaries: span.begin, ..., span.end
    std::string error;
    uint32_t track = 0;
    int64_t basePs = 0; // (timestamp_ns - time base) in picoseconds
};

// The events of one chunk, decoded on a worker straight into the builder's rows from `firstRow`
// on (room for `expectedEvents`; aggregated events leave rows unused at the end). Its stat lists
// go first into the stat bytes of the worker that decodes it (`blob`, shared by the chunks that
// worker decodes, one after another: no allocation per chunk, and large enough for huge pages):
// stats name their key by a chunk-local index into `keyIds` (stat metadata ids), Str and Bytes
// values by a local index into `strings`, Ref values by the stat metadata id itself; the merge maps
// them to the builder's ids, in file order, so the result does not depend on how many threads
// decoded, nor on which decoded what.
struct Chunk {
    LineScan* line = nullptr;
    Span span{};
    size_t expectedEvents = 0;
    size_t firstRow = 0;
    ProfileBuilder::EventRows rows{};
    size_t events = 0; // rows written

    Column<uint8_t>* blob = nullptr; // the decoding worker's stat bytes
    size_t blobAt = 0; // where the chunk's lists begin in them: a 0, the chunk's empty list
    std::vector<int64_t> keyIds; // local key index - 1 -> stat metadata id
    std::vector<std::string_view> strings;
    std::vector<int64_t> unknownRefs; // Ref values whose stat metadata is missing
    std::vector<int64_t> unknownMeta; // event metadata ids with no metadata
    int64_t minStart = std::numeric_limits<int64_t>::max();
    int64_t maxEnd = std::numeric_limits<int64_t>::min();
    uint64_t aggregated = 0;
    std::string error;

    // Counted once the chunk is decoded (ChunkDecoder::tally), so that the merge knows the size
    // of its lists in the builder's ids before they are written. A list's shape (StatList.h) is
    // first numbered in the chunk, in its local key indices.
    StatShapes shapes;
    Column<uint16_t> listShape;           // per event with stats: its local shape
    std::vector<uint32_t> shapeUses;      // lists per local shape
    std::vector<uint32_t> stringUses;     // Str and Bytes entries per local string
    std::vector<uint32_t> unknownRefUses; // Ref entries per element of unknownRefs
    size_t fixedBytes = 0;                // bytes that no id mapping changes: the other values

    // Filled by the merge.
    std::vector<uint32_t> keyMap;    // local key index - 1 -> builder key index
    std::vector<uint32_t> shapeMap;  // local shape -> builder shape
    std::vector<StringId> stringMap; // local string index -> StringId
    std::vector<uint32_t> unknownMetaMap;
    size_t statBytes = 0; // its stat lists in the builder's ids
};

// Decodes one chunk. Reads the plane's tables, never writes anything shared.
class ChunkDecoder {
public:
    ChunkDecoder(std::span<const uint8_t> file, Chunk& c)
        : file_(file)
        , c_(c) {}

    void run();
    void tally();

private:
    WireReader reader(Span s) { return WireReader(s.begin, s.end, file_, &c_.error); }
    bool fail(std::string message) {
        if (c_.error.empty()) c_.error = std::move(message);
        return false;
    }
    uint32_t localString(std::string_view text) {
        const auto [it, added] = stringOf_.try_emplace(text, uint32_t(c_.strings.size()));
        if (added) c_.strings.push_back(text);
        return it->second;
    }
    uint32_t localKey(int64_t id) {
        uint32_t k = keyOf_.get(id);
        if (k == kNoIndex) {
            c_.keyIds.push_back(id);
            k = uint32_t(c_.keyIds.size());
            keyOf_.set(id, k);
        }
        return k;
    }

    std::span<const uint8_t> file_;
    Chunk& c_;
    IdMap keyOf_;
    std::unordered_map<std::string_view, uint32_t> stringOf_;
};

// XEvent { metadata_id = 1; oneof { offset_ps = 2; num_occurrences = 5 }; duration_ps = 3;
// stats = 4 }.
void ChunkDecoder::run() {
    const LineScan& line = *c_.line;
    const IdMap& metadata = line.tables->metadata;
    const IdMap& statNames = line.tables->statNames;
    const ProfileBuilder::EventRows& out = c_.rows;
    // Rows' stat offsets are from blobAt, so that 0 names the empty list.
    c_.blobAt = c_.blob->size();
    c_.blob->push_back(0);
    statcodec::Writer blob(*c_.blob);
    IdMap unknownMetaOf;
    WireReader r = reader(c_.span);
    uint32_t field, wt;
    while (r.next(field, wt)) {
        if (field != 4) {
            if (!r.skip(wt, "XLine")) return;
            continue;
        }
        const uint8_t *eb = nullptr, *ee = nullptr;
        if (!r.bytes(eb, ee, "XLine.events")) return;
        WireReader ev = reader({eb, ee});
        int64_t metadataId = 0, offset = 0, duration = 0;
        bool aggregated = false;
        const size_t blobMark = blob.size();
        bool hasStats = false;
        uint32_t f, w;
        while (ev.next(f, w)) {
            uint64_t v;
            const uint8_t *sb = nullptr, *se = nullptr;
            if (f == 4) {
                if (!ev.expect(w, WireReader::Len, "XEvent.stats") ||
                    !ev.bytes(sb, se, "XEvent.stats"))
                    return;
                RawStat s;
                if (!readStat(sb, se, file_, &c_.error, s,
                              [this](std::string_view text) { return localString(text); }))
                    return;
                if (s.type == StatType::Ref && statNames.get(int64_t(s.raw)) == kNoIndex &&
                    std::find(c_.unknownRefs.begin(), c_.unknownRefs.end(), int64_t(s.raw)) ==
                        c_.unknownRefs.end())
                    c_.unknownRefs.push_back(int64_t(s.raw));
                blob.entry(localKey(s.metadataId), s.type, s.raw);
                hasStats = true;
            } else if (f <= 3 || f == 5) {
                if (!ev.expect(w, WireReader::Varint, "XEvent integer field") ||
                    !ev.varint(v, "XEvent integer field"))
                    return;
                if (f == 1)
                    metadataId = int64_t(v);
                else if (f == 2)
                    offset = int64_t(v);
                else if (f == 3)
                    duration = int64_t(v);
                else
                    aggregated = true;
            } else if (!ev.skip(w, "XEvent")) {
                return;
            }
        }
        if (ev.failed()) return;
        if (aggregated) {
            blob.cut(blobMark);
            ++c_.aggregated;
            continue;
        }
        uint32_t meta = metadata.get(metadataId);
        if (meta == kNoIndex) {
            meta = unknownMetaOf.get(metadataId);
            if (meta == kNoIndex) {
                meta = kLocalMetadata | uint32_t(c_.unknownMeta.size());
                c_.unknownMeta.push_back(metadataId);
                unknownMetaOf.set(metadataId, meta);
            }
        }
        int64_t start, end;
        if (__builtin_add_overflow(line.basePs, offset, &start)) {
            fail("XEvent.offset_ps " + std::to_string(offset) + " is out of range");
            return;
        }
        if (__builtin_add_overflow(start, duration, &end)) {
            fail("XEvent.duration_ps " + std::to_string(duration) + " is out of range");
            return;
        }
        if (duration < 0) {
            duration = 0;
            end = start;
        }
        // The line's first pass counted the events of this span and made a row for each; should
        // the second pass read more, the file is not what the first saw.
        if (c_.events == c_.expectedEvents) {
            fail("XLine holds more events than its first reading found");
            return;
        }
        const size_t i = c_.events++;
        c_.minStart = std::min(c_.minStart, start);
        c_.maxEnd = std::max(c_.maxEnd, end);
        out.track[i] = line.track;
        out.start[i] = start;
        out.duration[i] = duration;
        out.meta[i] = meta;
        if (hasStats) {
            out.statBegin[i] = uint32_t(blobMark - c_.blobAt);
            blob.end();
        } else {
            out.statBegin[i] = 0;
        }
    }
}

// Counts what the merge needs to size the chunk's stat lists in the builder's ids: the lists of
// each shape, the entries of each string, the Ref entries of each unknown stat id, and every other
// byte. Numbers each list's shape in the chunk.
void ChunkDecoder::tally() {
    // A chunk has fewer distinct shapes than events: its shapes fit listShape.
    static_assert(kChunkEvents < 0xFFFF);
    const IdMap& statNames = c_.line->tables->statNames;
    c_.stringUses.assign(c_.strings.size(), 0);
    c_.unknownRefUses.assign(c_.unknownRefs.size(), 0);
    c_.listShape.resize(c_.events);
    c_.shapeUses.assign(1, 0);
    std::vector<uint32_t> tags;
    // Events of one metadata mostly carry the same stats: the shape last seen on events whose
    // metadata index has the same low bits is compared with each list as it is read, and only a
    // list that differs is gathered again and looked up.
    std::array<uint32_t, 64> shapeOfMeta{};
    size_t fixed = 0;
    for (size_t e = 0; e < c_.events; ++e) {
        if (c_.rows.statBegin[e] == 0) continue;
        uint32_t& guess = shapeOfMeta[c_.rows.meta[e] % shapeOfMeta.size()];
        const std::span<const uint32_t> expected = c_.shapes.tags(guess);
        bool same = true;
        size_t n = 0;
        const uint8_t* const list = c_.blob->data() + c_.blobAt + c_.rows.statBegin[e];
        // Numeric values keep their bytes; only text and Ref values are looked at.
        for (const uint8_t* q = list; *q; ++n) {
            const uint32_t tag = uint32_t(statcodec::getVarint(q));
            same = same && n < expected.size() && expected[n] == tag;
            const StatType type = statcodec::typeOfTag(tag);
            if (type == StatType::Double) {
                q += 8;
                fixed += 8;
                continue;
            }
            const uint8_t* value = q;
            const uint64_t raw = statcodec::getVarint(q);
            if (type == StatType::Str || type == StatType::Bytes) {
                ++c_.stringUses[raw];
            } else if (type == StatType::Ref) {
                const uint32_t name = statNames.get(int64_t(raw));
                if (name != kNoIndex)
                    fixed += statcodec::varintSize(name);
                else
                    ++c_.unknownRefUses[size_t(
                        std::find(c_.unknownRefs.begin(), c_.unknownRefs.end(), int64_t(raw)) -
                        c_.unknownRefs.begin())];
            } else {
                fixed += size_t(q - value);
            }
        }
        if (!same || n != expected.size()) {
            tags.clear();
            for (const uint8_t* q = list; *q;) {
                uint32_t key;
                StatType type;
                uint64_t raw;
                statcodec::readEntry(q, key, type, raw);
                tags.push_back(statcodec::tagOf(key, type));
            }
            guess = c_.shapes.intern(tags);
            if (guess == c_.shapeUses.size()) c_.shapeUses.push_back(0);
        }
        ++c_.shapeUses[guess];
        c_.listShape[e] = uint16_t(guess);
    }
    c_.fixedBytes = fixed;
}

class Importer {
public:
    Importer(std::span<const uint8_t> bytes, ProfileBuilder& builder, uint32_t host,
             const Progress* progress, unsigned threads)
        : file_(bytes.data())
        , size_(bytes.size())
        , b_(builder)
        , host_(host)
        , progress_(progress)
        , threads_(threads) {}

    std::string run();

private:
    WireReader reader(Span s) { return WireReader(s.begin, s.end, {file_, size_}, &error_); }
    bool plane(Span span);
    bool statMetadata(Span span, PlaneTables& t);
    bool eventMetadata(Span span, PlaneTables& t);
    bool stat(Span span, PlaneTables& t, StatValue& out);
    void scanLine(LineScan& line);
    bool readEvents();
    bool merge(Chunk& c, int64_t& earliest, int64_t& latest);
    void encode(Chunk& c, uint8_t* out, size_t at);
    bool fail(std::string message) {
        if (error_.empty()) error_ = std::move(message);
        return false;
    }
    // The name a stat metadata id stands for (as the key of a stat, or the string of a
    // ref_value). Ids without metadata get a name that says so.
    StringId statName(PlaneTables& t, int64_t id) {
        const uint32_t k = t.statNames.get(id);
        if (k != kNoIndex) return k;
        const StringId s = b_.intern("(unknown stat " + std::to_string(id) + ")");
        t.statNames.set(id, s);
        return s;
    }
    bool cancelled() const { return progress_ && progress_->cancelled(); }

    const uint8_t* file_;
    size_t size_;
    ProfileBuilder& b_;
    uint32_t host_;
    const Progress* progress_;
    unsigned threads_;
    std::string error_;
    std::deque<PlaneTables> planes_;
    std::deque<LineScan> lines_; // in file order
};

std::string Importer::run() {
    if (size_ == 0) return "the file is empty";
    WireReader r = reader({file_, file_ + size_});
    std::vector<Span> planes;
    uint32_t field, wt;
    Host& host = b_.host(host_);
    while (r.next(field, wt)) {
        std::string_view s;
        const uint8_t *pb = nullptr, *pe = nullptr;
        if (field == 1) {
            if (!r.expect(wt, WireReader::Len, "XSpace.planes") ||
                !r.bytes(pb, pe, "XSpace.planes"))
                break;
            planes.push_back({pb, pe});
        } else if (field >= 2 && field <= 4) {
            if (!r.expect(wt, WireReader::Len, "XSpace string field") ||
                !r.string(s, "XSpace string field"))
                break;
            (field == 2   ? host.errors
             : field == 3 ? host.warnings
                          : host.hostnames)
                .emplace_back(s);
        } else if (!r.skip(wt, "XSpace")) {
            break;
        }
    }
    if (r.failed()) return "not an XSpace profile: " + error_;
    if (planes.empty())
        return "not an XSpace profile: no planes found (the file holds no "
               "tensorflow.profiler.XSpace)";
    // Planes (metadata and line spans) are read in order up to the first that fails; the events
    // of those before it are still read, since the first error in file order is the one to tell.
    std::string planeError;
    for (const Span& p : planes) {
        if (!plane(p)) {
            planeError = std::move(error_);
            error_.clear();
            break;
        }
    }
    if (!readEvents()) return error_;
    if (!planeError.empty()) return planeError;
    if (!b_.error().empty()) return b_.error();
    return {};
}

// XPlane { id = 1; name = 2; lines = 3; event_metadata = 4; stat_metadata = 5; stats = 6 }.
// Lines come before the metadata maps on the wire and decoding an event needs both maps, so the
// plane is read for its scalars and the spans of its parts first; its lines are read later.
bool Importer::plane(Span span) {
    WireReader r = reader(span);
    int64_t id = 0;
    std::string_view name;
    std::vector<Span> lines, eventMeta, statMeta, stats;
    uint32_t field, wt;
    while (r.next(field, wt)) {
        uint64_t v;
        const uint8_t *b = nullptr, *e = nullptr;
        if (field == 1) {
            if (!r.expect(wt, WireReader::Varint, "XPlane.id") || !r.varint(v, "XPlane.id"))
                return false;
            id = int64_t(v);
        } else if (field == 2) {
            if (!r.expect(wt, WireReader::Len, "XPlane.name") || !r.string(name, "XPlane.name"))
                return false;
        } else if (field >= 3 && field <= 6) {
            if (!r.expect(wt, WireReader::Len, "XPlane field") || !r.bytes(b, e, "XPlane field"))
                return false;
            (field == 3   ? lines
             : field == 4 ? eventMeta
             : field == 5 ? statMeta
                          : stats)
                .push_back({b, e});
        } else if (!r.skip(wt, "XPlane")) {
            return false;
        }
    }
    if (r.failed()) return false;

    PlaneTables& t = planes_.emplace_back();
    t.plane = b_.addPlane(host_, id, name);
    for (const Span& s : statMeta)
        if (!statMetadata(s, t)) return false;
    for (const Span& s : eventMeta)
        if (!eventMetadata(s, t)) return false;
    for (const Span& s : stats) {
        StatValue v;
        if (!stat(s, t, v)) return false;
        b_.addPlaneStat(t.plane, v);
    }
    for (const Span& s : lines) {
        LineScan& line = lines_.emplace_back();
        line.tables = &t;
        line.span = s;
    }
    return true;
}

// map<int64, XStatMetadata> entry: key = 1, value = 2 { id = 1, name = 2, description = 3 }.
bool Importer::statMetadata(Span span, PlaneTables& t) {
    WireReader r = reader(span);
    int64_t key = 0, id = 0;
    bool hasKey = false;
    std::string_view name;
    uint32_t field, wt;
    while (r.next(field, wt)) {
        uint64_t v;
        const uint8_t *b = nullptr, *e = nullptr;
        if (field == 1 && wt == WireReader::Varint) {
            if (!r.varint(v, "XPlane.stat_metadata key")) return false;
            key = int64_t(v);
            hasKey = true;
        } else if (field == 2 && wt == WireReader::Len) {
            if (!r.bytes(b, e, "XStatMetadata")) return false;
            WireReader m = reader({b, e});
            uint32_t f2, wt2;
            while (m.next(f2, wt2)) {
                if (f2 == 1 && wt2 == WireReader::Varint) {
                    if (!m.varint(v, "XStatMetadata.id")) return false;
                    id = int64_t(v);
                } else if (f2 == 2 && wt2 == WireReader::Len) {
                    if (!m.string(name, "XStatMetadata.name")) return false;
                } else if (!m.skip(wt2, "XStatMetadata")) {
                    return false;
                }
            }
            if (m.failed()) return false;
        } else if (!r.skip(wt, "XPlane.stat_metadata")) {
            return false;
        }
    }
    if (r.failed()) return false;
    t.statNames.set(hasKey ? key : id, b_.intern(name));
    return true;
}

// map<int64, XEventMetadata> entry: key = 1, value = 2 { id = 1, name = 2, metadata = 3,
// display_name = 4, stats = 5, child_id = 6 }.
bool Importer::eventMetadata(Span span, PlaneTables& t) {
    WireReader r = reader(span);
    int64_t key = 0, id = 0;
    bool hasKey = false;
    std::string_view name, displayName;
    std::vector<Span> stats;
    uint32_t field, wt;
    while (r.next(field, wt)) {
        uint64_t v;
        const uint8_t *b = nullptr, *e = nullptr;
        if (field == 1 && wt == WireReader::Varint) {
            if (!r.varint(v, "XPlane.event_metadata key")) return false;
            key = int64_t(v);
            hasKey = true;
        } else if (field == 2 && wt == WireReader::Len) {
            if (!r.bytes(b, e, "XEventMetadata")) return false;
            WireReader m = reader({b, e});
            uint32_t f2, wt2;
            while (m.next(f2, wt2)) {
                const uint8_t *sb = nullptr, *se = nullptr;
                if (f2 == 1 && wt2 == WireReader::Varint) {
                    if (!m.varint(v, "XEventMetadata.id")) return false;
                    id = int64_t(v);
                } else if (f2 == 2 && wt2 == WireReader::Len) {
                    if (!m.string(name, "XEventMetadata.name")) return false;
                } else if (f2 == 4 && wt2 == WireReader::Len) {
                    if (!m.string(displayName, "XEventMetadata.display_name")) return false;
                } else if (f2 == 5 && wt2 == WireReader::Len) {
                    if (!m.bytes(sb, se, "XEventMetadata.stats")) return false;
                    stats.push_back({sb, se});
                } else if (!m.skip(wt2, "XEventMetadata")) {
                    return false;
                }
            }
            if (m.failed()) return false;
        } else if (!r.skip(wt, "XPlane.event_metadata")) {
            return false;
        }
    }
    if (r.failed()) return false;
    const uint32_t index = b_.addMetadata(t.plane, hasKey ? key : id, name, displayName);
    t.metadata.set(hasKey ? key : id, index);
    for (const Span& s : stats) {
        StatValue v;
        if (!stat(s, t, v)) return false;
        b_.addMetadataStat(index, v);
    }
    return true;
}

// A metadata or plane stat (few of them): decoded and resolved at once, on the reading thread.
bool Importer::stat(Span span, PlaneTables& t, StatValue& out) {
    RawStat raw;
    if (!readStat(span.begin, span.end, {file_, size_}, &error_, raw,
                  [this](std::string_view text) { return b_.intern(text); }))
        return false;
    out.type = raw.type;
    out.raw = raw.raw;
    out.key = statName(t, raw.metadataId);
    if (out.type == StatType::Ref) out.raw = statName(t, int64_t(out.raw));
    return true;
}

// XLine { id = 1; name = 2; timestamp_ns = 3; events = 4; duration_ps = 9; display_id = 10;
// display_name = 11 }. Reads the scalars (display_name follows the events on the wire), counts
// the events and cuts them into chunks. Touches nothing shared: lines scan in parallel.
void Importer::scanLine(LineScan& line) {
    WireReader r(line.span.begin, line.span.end, {file_, size_}, &line.error);
    line.cuts.push_back(line.span.begin);
    uint32_t field, wt;
    const uint8_t* fieldStart = line.span.begin;
    while (r.next(field, wt)) {
        uint64_t v;
        if (field == 1 || field == 3 || field == 10) {
            if (!r.expect(wt, WireReader::Varint, "XLine integer field") ||
                !r.varint(v, "XLine integer field"))
                return;
            (field == 1 ? line.id : field == 3 ? line.timestampNs : line.displayId) = int64_t(v);
        } else if (field == 2) {
            if (!r.expect(wt, WireReader::Len, "XLine.name") || !r.string(line.name, "XLine.name"))
                return;
        } else if (field == 11) {
            if (!r.expect(wt, WireReader::Len, "XLine.display_name") ||
                !r.string(line.displayName, "XLine.display_name"))
                return;
        } else if (field == 4) {
            if (line.eventCount > 0 && line.eventCount % kChunkEvents == 0)
                line.cuts.push_back(fieldStart);
            if (!r.expect(wt, WireReader::Len, "XLine.events") || !r.skip(wt, "XLine.events"))
                return;
            ++line.eventCount;
        } else if (!r.skip(wt, "XLine")) {
            return;
        }
        fieldStart = file_ + r.offset();
    }
    line.cuts.push_back(line.span.end);
}

// Reads every line's events. Lines are scanned (which counts their events) and the builder gets
// a row for each event at once; the lines are cut into chunks that decode on all cores straight
// into those rows; the chunks are merged in file order (names, keys and strings get their ids
// there, so the result is the same for any number of threads); then each chunk's stat lists are
// re-encoded with those ids and placed in the builder's stat bytes, again on all cores.
bool Importer::readEvents() {
    if (cancelled()) return fail("cancelled");
    if (progress_) progress_->report("Reading lines", 0);
    parallelFor(lines_.size(), threads_, [&](size_t i) { scanLine(lines_[i]); });

    // Tracks and time bases in file order, up to the first line that fails.
    std::string lineError;
    std::deque<Chunk> chunks;
    size_t rows = 0;
    for (LineScan& line : lines_) {
        if (!line.error.empty()) {
            lineError = line.error;
            break;
        }
        // The time base comes from the first line with events: an empty line's timestamp_ns
        // may be unset (0) while the others are epoch times.
        if (!b_.hasTimeBase() && line.eventCount > 0) b_.setTimeBase(line.timestampNs);
        line.track =
            b_.addTrack(line.tables->plane, line.id, line.name, line.displayName, line.displayId);
        if (line.eventCount == 0) continue;
        int64_t sinceBaseNs;
        if (__builtin_sub_overflow(line.timestampNs, b_.timeBaseNs(), &sinceBaseNs) ||
            __builtin_mul_overflow(sinceBaseNs, int64_t(1000), &line.basePs)) {
            lineError = "XLine.timestamp_ns " + std::to_string(line.timestampNs) +
                        " is too far from the profile's other lines";
            break;
        }
        for (size_t k = 0; k + 1 < line.cuts.size(); ++k) {
            Chunk& c = chunks.emplace_back();
            c.line = &line;
            c.span = {line.cuts[k], line.cuts[k + 1]};
            c.expectedEvents = std::min(kChunkEvents, line.eventCount - k * kChunkEvents);
            c.firstRow = rows;
            rows += c.expectedEvents;
        }
    }
    const size_t firstRow = b_.appendEvents(rows);
    if (!b_.error().empty()) return fail(b_.error());
    for (Chunk& c : chunks) {
        c.firstRow += firstRow;
        c.rows = b_.eventRows(c.firstRow);
    }

    // Decode: each worker keeps the stat lists of the chunks it decodes in bytes of its own,
    // reserved at half its share of the chunks' bytes and two of the largest chunks (the items
    // are handed out as workers free up, so shares differ), grown should the lists need more.
    size_t spanBytes = 0, largestSpan = 0;
    for (const Chunk& c : chunks) {
        spanBytes += size_t(c.span.end - c.span.begin);
        largestSpan = std::max(largestSpan, size_t(c.span.end - c.span.begin));
    }
    const size_t workers = parallelWorkers(chunks.size(), threads_);
    std::vector<Column<uint8_t>> blobs(workers);
    std::vector<std::vector<size_t>> decodedBy(workers); // chunks, in the order decoded
    std::atomic<size_t> bytesDone{0};
    std::mutex reportMutex;
    if (progress_) progress_->report("Reading events", 0);
    parallelForWorkers(chunks.size(), unsigned(workers), [&](size_t i, size_t worker) {
        if (cancelled()) return;
        Chunk& c = chunks[i];
        c.blob = &blobs[worker];
        decodedBy[worker].push_back(i);
        if (c.blob->capacity() == 0) c.blob->reserve((spanBytes / workers + 2 * largestSpan) / 2);
        ChunkDecoder decoder({file_, size_}, c);
        decoder.run();
        if (c.error.empty()) decoder.tally();
        const size_t done = bytesDone += size_t(c.span.end - c.span.begin);
        if (progress_) {
            const std::lock_guard lock(reportMutex);
            progress_->report("Reading events", double(done) / double(size_));
        }
    });
    if (cancelled()) return fail("cancelled");

    // Merge in file order: the first error wins, as it would reading the file front to back.
    int64_t earliest = std::numeric_limits<int64_t>::max();
    int64_t latest = std::numeric_limits<int64_t>::min();
    uint64_t aggregated = 0;
    for (Chunk& c : chunks) {
        if (!merge(c, earliest, latest)) return false;
        // Every row the first pass made is written or, for an aggregated event, closed up below;
        // fewer events than counted means the file changed between the passes.
        if (c.events + c.aggregated != c.expectedEvents)
            return fail("XLine holds fewer events than its first reading found");
        aggregated += c.aggregated;
    }
    if (!lineError.empty()) return fail(lineError);

    // Each chunk's stats, re-encoded with the builder's ids, go straight to their place in the
    // builder's stat bytes, one chunk after another: the merge sized them.
    if (progress_) progress_->report("Building columns", 0);
    size_t statBytes = 0;
    for (const Chunk& c : chunks) statBytes += c.statBytes;
    size_t at = b_.appendStatBytes(statBytes);
    if (!b_.error().empty()) return fail(b_.error());
    std::vector<size_t> statAt(chunks.size());
    for (size_t i = 0; i < chunks.size(); ++i) {
        statAt[i] = at;
        at += chunks[i].statBytes;
    }
    // One task per decoding worker takes its chunks in the order it decoded them, reading its
    // stat bytes front to back and giving them back to the system as it goes, so that they and
    // the builder's stat bytes are not both resident in full.
    parallelFor(workers, unsigned(workers), [&](size_t w) {
        const std::vector<size_t>& decoded = decodedBy[w];
        for (size_t k = 0; k < decoded.size(); ++k) {
            const size_t i = decoded[k];
            encode(chunks[i], b_.statBytes(statAt[i]), statAt[i]);
            const size_t read =
                k + 1 < decoded.size() ? chunks[decoded[k + 1]].blobAt : blobs[w].size();
            releaseHugePages(blobs[w].data(), read);
        }
    });
    for (const Chunk& c : chunks)
        if (!c.error.empty()) return fail(c.error);
    if (aggregated) {
        // Aggregated events took no row: close the gaps they left at the ends of their chunks.
        size_t row = firstRow;
        for (const Chunk& c : chunks) {
            if (row != c.firstRow) {
                const ProfileBuilder::EventRows to = b_.eventRows(row);
                const ProfileBuilder::EventRows& from = c.rows;
                std::copy_n(from.track, c.events, to.track);
                std::copy_n(from.start, c.events, to.start);
                std::copy_n(from.duration, c.events, to.duration);
                std::copy_n(from.meta, c.events, to.meta);
                std::copy_n(from.statBegin, c.events, to.statBegin);
            }
            row += c.events;
        }
        b_.resizeEvents(row);
        b_.host(host_).warnings.push_back(std::to_string(aggregated) +
                                          " aggregated events (num_occurrences) have no time and "
                                          "are not shown on the timeline");
    }
    return true;
}

// Gives a chunk's keys, strings and unknown metadata their builder ids, works out the size of its
// stat lists in those ids (c.statBytes, from the decoder's tallies), and checks that its events
// lie within 2^63 ps of every event before them. Runs in file order.
bool Importer::merge(Chunk& c, int64_t& earliest, int64_t& latest) {
    if (!c.error.empty()) return fail(c.error);
    PlaneTables& t = *c.line->tables;
    c.keyMap.resize(c.keyIds.size());
    for (size_t k = 0; k < c.keyIds.size(); ++k) c.keyMap[k] = b_.statKey(statName(t, c.keyIds[k]));
    for (int64_t id : c.unknownRefs) statName(t, id);
    c.stringMap.resize(c.strings.size());
    for (size_t k = 0; k < c.strings.size(); ++k) c.stringMap[k] = b_.intern(c.strings[k]);
    c.unknownMetaMap.resize(c.unknownMeta.size());
    for (size_t k = 0; k < c.unknownMeta.size(); ++k) {
        const int64_t id = c.unknownMeta[k];
        uint32_t meta = t.metadata.get(id);
        if (meta == kNoIndex) {
            meta = b_.addMetadata(t.plane, id,
                                  "(unknown event metadata " + std::to_string(id) + ")", {});
            t.metadata.set(id, meta);
        }
        c.unknownMetaMap[k] = meta;
    }
    // The chunk's shapes in the builder's key indices, numbered among the builder's shapes.
    c.shapeMap.assign(c.shapes.size(), 0);
    std::vector<uint32_t> tags;
    for (uint32_t k = 1; k < c.shapes.size(); ++k) {
        tags.clear();
        for (const uint32_t t : c.shapes.tags(k))
            tags.push_back(
                statcodec::tagOf(c.keyMap[statcodec::keyOfTag(t) - 1], statcodec::typeOfTag(t)));
        c.shapeMap[k] = b_.statShape(tags);
    }
    c.shapes = {};
    c.statBytes = c.fixedBytes;
    for (size_t k = 1; k < c.shapeUses.size(); ++k)
        c.statBytes += c.shapeUses[k] * statcodec::varintSize(c.shapeMap[k]);
    for (size_t k = 0; k < c.stringUses.size(); ++k)
        c.statBytes += c.stringUses[k] * statcodec::varintSize(c.stringMap[k]);
    for (size_t k = 0; k < c.unknownRefUses.size(); ++k)
        c.statBytes +=
            c.unknownRefUses[k] * statcodec::varintSize(t.statNames.get(c.unknownRefs[k]));
    // Every time is later rebased to the earliest start, so the file's events must lie within
    // 2^63 ps of each other, not only each within range. Should this chunk break that, find the
    // first event that does.
    int64_t spread;
    if (c.events == 0 || !__builtin_sub_overflow(std::max(latest, c.maxEnd),
                                                 std::min(earliest, c.minStart), &spread)) {
        if (c.events != 0) {
            earliest = std::min(earliest, c.minStart);
            latest = std::max(latest, c.maxEnd);
        }
        return true;
    }
    const int64_t* start = c.rows.start;
    const int64_t* duration = c.rows.duration;
    for (size_t i = 0; i < c.events; ++i) {
        const int64_t lo = std::min(earliest, start[i]);
        const int64_t hi = std::max(latest, start[i] + duration[i]);
        if (__builtin_sub_overflow(hi, lo, &spread))
            return fail("XEvent.offset_ps " + std::to_string(start[i] - c.line->basePs) +
                        " puts this event more than 2^63 ps (about 106 days) away from another "
                        "event of the profile");
        earliest = lo;
        latest = hi;
    }
    return true;
}

// Writes a chunk's stat lists with builder shapes and string ids at `out`, which is byte `at`
// of the builder's stat bytes, points its rows there, and gives its unknown metadata builder
// metadata indices. Reads shared tables only. The merge sized the lists (c.statBytes); nothing is
// written past that size, and should the lists come out another size, the chunk fails.
void Importer::encode(Chunk& c, uint8_t* out, size_t at) {
    const IdMap& statNames = c.line->tables->statNames;
    uint32_t* meta = c.rows.meta;
    uint32_t* statBegin = c.rows.statBegin;
    if (!c.unknownMeta.empty())
        for (size_t e = 0; e < c.events; ++e)
            if (meta[e] & kLocalMetadata) meta[e] = c.unknownMetaMap[meta[e] & ~kLocalMetadata];
    uint8_t* p = out;
    uint8_t* const end = out + c.statBytes;
    // A value, or a shape as a Uint64 value is written.
    auto put = [&](StatType type, uint64_t raw) {
        if (size_t(end - p) >= statcodec::kMaxValueBytes) [[likely]] {
            p = statcodec::putValue(p, type, raw);
            return true;
        }
        uint8_t value[statcodec::kMaxValueBytes];
        const size_t n = size_t(statcodec::putValue(value, type, raw) - value);
        if (n > size_t(end - p)) return false;
        std::memcpy(p, value, n);
        p += n;
        return true;
    };
    bool fits = true;
    for (size_t e = 0; fits && e < c.events; ++e) {
        if (statBegin[e] == 0) continue;
        const uint8_t* q = c.blob->data() + c.blobAt + statBegin[e];
        statBegin[e] = uint32_t(at + size_t(p - out));
        fits = put(StatType::Uint64, c.shapeMap[c.listShape[e]]);
        while (fits && *q) {
            uint32_t key;
            StatType type;
            uint64_t raw;
            statcodec::readEntry(q, key, type, raw);
            if (type == StatType::Str || type == StatType::Bytes)
                raw = c.stringMap[raw];
            else if (type == StatType::Ref)
                raw = statNames.get(int64_t(raw));
            fits = put(type, raw);
        }
    }
    Column<uint16_t>().swap(c.listShape);
    if (!fits || p != end)
        c.error = "internal error: the stat lists of a chunk of XLine \"" +
                  std::string(c.line->name) + "\" came out another size than counted";
}

} // namespace

std::string importXSpace(std::span<const uint8_t> bytes, ProfileBuilder& builder, uint32_t host,
                         const Progress* progress, unsigned threads) {
    Importer importer(bytes, builder, host, progress, threads);
    return importer.run();
}

} // namespace stepscope
