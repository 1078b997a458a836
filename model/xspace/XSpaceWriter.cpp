#include "model/xspace/XSpaceWriter.h"

#include <algorithm>
#include <new>
#include <stdexcept>

#include "model/StatList.h"
#include "model/xspace/SpillFile.h"

namespace stepscope {

namespace {

// Protobuf wire types.
constexpr uint32_t kVarint = 0;
constexpr uint32_t kFixed64 = 1;
constexpr uint32_t kLen = 2;

// Every field number in xplane.proto is below 16, so every tag is one byte.
constexpr uint8_t tag(uint32_t field, uint32_t wireType) {
    return static_cast<uint8_t>((field << 3) | wireType);
}

// Protobuf's varints, which the stat codec writes too.
using statcodec::putVarint;
using statcodec::varintSize;

inline uint8_t* putBytes(uint8_t* p, const void* data, size_t n) {
    if (n) std::memcpy(p, data, n);
    return p + n;
}

// proto3 scalars: skipped when zero.
inline size_t intFieldSize(int64_t v) {
    return v ? 1 + varintSize(static_cast<uint64_t>(v)) : 0;
}
inline uint8_t* putIntField(uint8_t* p, uint32_t field, int64_t v) {
    if (!v) return p;
    *p++ = tag(field, kVarint);
    return putVarint(p, static_cast<uint64_t>(v));
}
inline size_t lenFieldSize(size_t n) {
    return 1 + varintSize(n) + n;
}
inline size_t stringFieldSize(std::string_view s) {
    return s.empty() ? 0 : lenFieldSize(s.size());
}
inline uint8_t* putLenHeader(uint8_t* p, uint32_t field, size_t n) {
    *p++ = tag(field, kLen);
    return putVarint(p, n);
}
inline uint8_t* putStringField(uint8_t* p, uint32_t field, std::string_view s) {
    if (s.empty()) return p;
    p = putLenHeader(p, field, s.size());
    return putBytes(p, s.data(), s.size());
}

// XStat: metadata_id = 1, then one member of the `value` oneof (always written: it is set).
constexpr uint32_t kStatFieldOf[] = {2 /*Double*/, 3 /*Uint64*/, 4 /*Int64*/,
                                     5 /*Str*/,    6 /*Bytes*/,  7 /*Ref*/};

size_t statBodySize(const WireStat& s) {
    size_t n = intFieldSize(s.metadataId);
    switch (s.kind) {
    case WireStat::Kind::Double:
        return n + 1 + 8;
    case WireStat::Kind::Str:
    case WireStat::Kind::Bytes:
        return n + lenFieldSize(s.text.size());
    default:
        return n + 1 + varintSize(s.bits);
    }
}

uint8_t* putStatBody(uint8_t* p, const WireStat& s) {
    p = putIntField(p, 1, s.metadataId);
    const uint32_t field = kStatFieldOf[static_cast<int>(s.kind)];
    switch (s.kind) {
    case WireStat::Kind::Double:
        *p++ = tag(field, kFixed64);
        for (int i = 0; i < 8; ++i) *p++ = static_cast<uint8_t>(s.bits >> (8 * i));
        return p;
    case WireStat::Kind::Str:
    case WireStat::Kind::Bytes:
        p = putLenHeader(p, field, s.text.size());
        return putBytes(p, s.text.data(), s.text.size());
    default:
        *p++ = tag(field, kVarint);
        return putVarint(p, s.bits);
    }
}

// Repeated XStat fields: each as tag, length, body.
size_t statsFieldSize(std::span<const WireStat> stats) {
    size_t n = 0;
    for (const WireStat& s : stats) n += lenFieldSize(statBodySize(s));
    return n;
}
uint8_t* putStatsField(uint8_t* p, uint32_t field, std::span<const WireStat> stats) {
    for (const WireStat& s : stats) {
        p = putLenHeader(p, field, statBodySize(s));
        p = putStatBody(p, s);
    }
    return p;
}

} // namespace

// ---- WireBuffer

void WireBuffer::grow(size_t n) {
    const size_t wanted = std::max({size_ + n, capacity_ * 2, size_t(4096)});
    auto* grown = static_cast<uint8_t*>(std::realloc(data_, wanted));
    if (!grown) throw std::bad_alloc();
    data_ = grown;
    capacity_ = wanted;
}

// ---- XLineWriter

void XLineWriter::addEvent(int64_t metadataId, int64_t offsetPs, int64_t durationPs,
                           std::span<const WireStat> stats) {
    addEventWithOneof(metadataId, 2, offsetPs, durationPs, stats);
}

void XLineWriter::addAggregatedEvent(int64_t metadataId, int64_t numOccurrences, int64_t durationPs,
                                     std::span<const WireStat> stats) {
    addEventWithOneof(metadataId, 5, numOccurrences, durationPs, stats);
}

void XLineWriter::addEventWithOneof(int64_t metadataId, uint32_t oneofField, int64_t oneofValue,
                                    int64_t durationPs, std::span<const WireStat> stats) {
    // XEvent: metadata_id = 1, offset_ps = 2 | num_occurrences = 5, duration_ps = 3, stats = 4.
    // Protobuf writes fields in number order, so num_occurrences follows the stats.
    const size_t oneofSize = 1 + varintSize(static_cast<uint64_t>(oneofValue));
    const size_t body =
        intFieldSize(metadataId) + oneofSize + intFieldSize(durationPs) + statsFieldSize(stats);
    uint8_t* p = events_.claim(lenFieldSize(body));
    p = putLenHeader(p, 4, body);
    p = putIntField(p, 1, metadataId);
    auto putOneof = [&](uint8_t* q) {
        *q++ = tag(oneofField, kVarint);
        return putVarint(q, static_cast<uint64_t>(oneofValue));
    };
    if (oneofField == 2) p = putOneof(p);
    p = putIntField(p, 3, durationPs);
    p = putStatsField(p, 4, stats);
    if (oneofField == 5) p = putOneof(p);
    events_.commit(p);
    if (spill_ && events_.size() >= kSpillBytes) spillEvents();
}

// On a failed write the events stay in memory; XSpaceWriter::finish reports the spill's error.
void XLineWriter::spillEvents() {
    uint64_t offset;
    if (!spill_->append(events_.data(), events_.size(), offset)) return;
    spilled_.push_back({offset, events_.size()});
    spilledBytes_ += events_.size();
    events_.clear();
}

size_t XLineWriter::bodySize() const {
    return intFieldSize(id_) + stringFieldSize(name_) + intFieldSize(timestampNs_) + eventBytes() +
           intFieldSize(durationPs_) + intFieldSize(displayId_) + stringFieldSize(displayName_);
}

// XLine: id = 1, name = 2, timestamp_ns = 3, events = 4, duration_ps = 9, display_id = 10,
// display_name = 11.
uint8_t* XLineWriter::encodeHead(uint8_t* p) const {
    p = putIntField(p, 1, id_);
    p = putStringField(p, 2, name_);
    return putIntField(p, 3, timestampNs_);
}

uint8_t* XLineWriter::encodeTail(uint8_t* p) const {
    p = putIntField(p, 9, durationPs_);
    p = putIntField(p, 10, displayId_);
    return putStringField(p, 11, displayName_);
}

uint8_t* XLineWriter::encodeBody(uint8_t* p) const {
    p = encodeHead(p);
    p = putBytes(p, events_.data(), events_.size());
    return encodeTail(p);
}

// ---- XPlaneWriter

XLineWriter& XPlaneWriter::addLine(int64_t id, std::string_view name, int64_t timestampNs) {
    lines_.push_back(XLineWriter(id, name, timestampNs, spill_));
    return lines_.back();
}

void XPlaneWriter::addEventMetadata(int64_t id, std::string_view name, std::string_view displayName,
                                    std::span<const WireStat> stats, std::string_view metadata,
                                    std::span<const int64_t> childIds) {
    // XEventMetadata: id = 1, name = 2, metadata = 3, display_name = 4, stats = 5,
    // child_id = 6 (packed, as proto3 writes repeated scalars).
    size_t packed = 0;
    for (int64_t c : childIds) packed += varintSize(static_cast<uint64_t>(c));
    const size_t value = intFieldSize(id) + stringFieldSize(name) + stringFieldSize(metadata) +
                         stringFieldSize(displayName) + statsFieldSize(stats) +
                         (childIds.empty() ? 0 : lenFieldSize(packed));
    // Map entry: key = 1 and value = 2, both always written.
    const size_t entry = 1 + varintSize(static_cast<uint64_t>(id)) + lenFieldSize(value);
    uint8_t* p = eventMetadata_.claim(lenFieldSize(entry));
    p = putLenHeader(p, 4, entry);
    *p++ = tag(1, kVarint);
    p = putVarint(p, static_cast<uint64_t>(id));
    p = putLenHeader(p, 2, value);
    p = putIntField(p, 1, id);
    p = putStringField(p, 2, name);
    p = putStringField(p, 3, metadata);
    p = putStringField(p, 4, displayName);
    p = putStatsField(p, 5, stats);
    if (!childIds.empty()) {
        p = putLenHeader(p, 6, packed);
        for (int64_t c : childIds) p = putVarint(p, static_cast<uint64_t>(c));
    }
    eventMetadata_.commit(p);
}

void XPlaneWriter::addStatMetadata(int64_t id, std::string_view name,
                                   std::string_view description) {
    // XStatMetadata: id = 1, name = 2, description = 3.
    const size_t value = intFieldSize(id) + stringFieldSize(name) + stringFieldSize(description);
    const size_t entry = 1 + varintSize(static_cast<uint64_t>(id)) + lenFieldSize(value);
    uint8_t* p = statMetadata_.claim(lenFieldSize(entry));
    p = putLenHeader(p, 5, entry);
    *p++ = tag(1, kVarint);
    p = putVarint(p, static_cast<uint64_t>(id));
    p = putLenHeader(p, 2, value);
    p = putIntField(p, 1, id);
    p = putStringField(p, 2, name);
    p = putStringField(p, 3, description);
    statMetadata_.commit(p);
}

void XPlaneWriter::addStat(const WireStat& stat) {
    uint8_t* p = stats_.claim(lenFieldSize(statBodySize(stat)));
    stats_.commit(putStatsField(p, 6, {&stat, 1}));
}

size_t XPlaneWriter::encodedSize() const {
    size_t n = intFieldSize(id_) + stringFieldSize(name_);
    for (const XLineWriter& line : lines_) n += lenFieldSize(line.bodySize());
    return n + eventMetadata_.size() + statMetadata_.size() + stats_.size();
}

uint8_t* XPlaneWriter::encodeBody(uint8_t* p) const {
    // XPlane: id = 1, name = 2, lines = 3, event_metadata = 4, stat_metadata = 5, stats = 6.
    p = putIntField(p, 1, id_);
    p = putStringField(p, 2, name_);
    for (const XLineWriter& line : lines_) {
        p = putLenHeader(p, 3, line.bodySize());
        p = line.encodeBody(p);
    }
    p = putBytes(p, eventMetadata_.data(), eventMetadata_.size());
    p = putBytes(p, statMetadata_.data(), statMetadata_.size());
    return putBytes(p, stats_.data(), stats_.size());
}

void XPlaneWriter::release() {
    lines_.clear();
    eventMetadata_.release();
    statMetadata_.release();
    stats_.release();
}

// ---- XSpaceWriter

XPlaneWriter& XSpaceWriter::addPlane(int64_t id, std::string_view name) {
    planes_.push_back(XPlaneWriter(id, name, spill_));
    return planes_.back();
}

size_t XSpaceWriter::encodedSize() const {
    // XSpace: planes = 1, errors = 2, warnings = 3, hostnames = 4. Repeated strings are written
    // even when empty.
    size_t n = 0;
    for (const XPlaneWriter& plane : planes_) n += lenFieldSize(plane.encodedSize());
    for (const auto* list : {&errors_, &warnings_, &hostnames_})
        for (const std::string& s : *list) n += lenFieldSize(s.size());
    return n;
}

namespace {
uint8_t* putStrings(uint8_t* p, uint32_t field, const std::vector<std::string>& list) {
    for (const std::string& s : list) {
        p = putLenHeader(p, field, s.size());
        p = putBytes(p, s.data(), s.size());
    }
    return p;
}
size_t stringsSize(const std::vector<std::string>& list) {
    size_t n = 0;
    for (const std::string& s : list) n += lenFieldSize(s.size());
    return n;
}
} // namespace

std::vector<uint8_t> XSpaceWriter::finish() {
    if (spill_) throw std::logic_error("an XSpaceWriter with a spill file finishes to a sink");
    // Encoded in place: one pass over the output instead of a copy through a plane buffer.
    std::vector<uint8_t> out(encodedSize());
    uint8_t* p = out.data();
    for (XPlaneWriter& plane : planes_) {
        p = putLenHeader(p, 1, plane.encodedSize());
        p = plane.encodeBody(p);
        plane.release();
    }
    p = putStrings(p, 2, errors_);
    p = putStrings(p, 3, warnings_);
    putStrings(p, 4, hostnames_);
    return out;
}

bool XSpaceWriter::finish(const std::function<bool(const uint8_t* data, size_t size)>& sink) {
    // Small pieces (headers, metadata) gather in `chunk`; a line's events go to the sink straight
    // from its buffer or, block by block, from the spill file.
    WireBuffer chunk;
    auto flush = [&] {
        const bool ok = chunk.empty() || sink(chunk.data(), chunk.size());
        chunk.clear();
        return ok;
    };
    if (spill_ && !spill_->error().empty()) return false;
    for (XPlaneWriter& plane : planes_) {
        const size_t body = plane.encodedSize();
        uint8_t* p = chunk.claim(lenFieldSize(body));
        p = putLenHeader(p, 1, body);
        // XPlane: id = 1, name = 2, lines = 3, event_metadata = 4, stat_metadata = 5, stats = 6.
        p = putIntField(p, 1, plane.id_);
        chunk.commit(putStringField(p, 2, plane.name_));
        for (const XLineWriter& line : plane.lines_) {
            const size_t lineBody = line.bodySize();
            p = chunk.claim(lenFieldSize(lineBody) - line.eventBytes());
            p = putLenHeader(p, 3, lineBody);
            chunk.commit(line.encodeHead(p));
            if (!line.spilled_.empty()) {
                if (!flush()) return false;
                for (const XLineWriter::SpilledRange& r : line.spilled_) {
                    if (!spill_->read(r.offset, chunk.claim(r.size), r.size)) return false;
                    chunk.commit(chunk.data() + r.size);
                    if (!flush()) return false;
                }
            }
            if (line.events_.size() > XLineWriter::kSpillBytes) {
                if (!flush() || !sink(line.events_.data(), line.events_.size())) return false;
            } else {
                chunk.append(line.events_.data(), line.events_.size());
            }
            p = chunk.claim(line.headTailSize());
            chunk.commit(line.encodeTail(p));
        }
        chunk.append(plane.eventMetadata_.data(), plane.eventMetadata_.size());
        chunk.append(plane.statMetadata_.data(), plane.statMetadata_.size());
        chunk.append(plane.stats_.data(), plane.stats_.size());
        plane.release();
        if (!flush()) return false;
    }
    chunk.release();
    const size_t tail = stringsSize(errors_) + stringsSize(warnings_) + stringsSize(hostnames_);
    uint8_t* p = chunk.claim(tail);
    p = putStrings(p, 2, errors_);
    p = putStrings(p, 3, warnings_);
    p = putStrings(p, 4, hostnames_);
    chunk.commit(p);
    return flush();
}

} // namespace stepscope
