#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stepscope {

class SpillFile;

// A growable byte buffer that, unlike std::vector<uint8_t>, does not zero what it reserves:
// the encoder writes every byte it claims.
class WireBuffer {
public:
    WireBuffer() = default;
    WireBuffer(const WireBuffer&) = delete;
    WireBuffer& operator=(const WireBuffer&) = delete;
    WireBuffer(WireBuffer&& other) noexcept { swap(other); }
    WireBuffer& operator=(WireBuffer&& other) noexcept {
        WireBuffer moved(std::move(other));
        swap(moved);
        return *this;
    }
    ~WireBuffer() { std::free(data_); }

    const uint8_t* data() const { return data_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    void clear() { size_ = 0; }
    // Frees the memory too (clear() keeps it for reuse).
    void release() {
        std::free(data_);
        data_ = nullptr;
        size_ = capacity_ = 0;
    }

    // Room for `n` more bytes; returns where they go. Call commit() with the end written.
    uint8_t* claim(size_t n) {
        if (capacity_ - size_ < n) grow(n);
        return data_ + size_;
    }
    void commit(const uint8_t* end) { size_ = static_cast<size_t>(end - data_); }

    void append(const uint8_t* bytes, size_t n) {
        if (n == 0) return;
        std::memcpy(claim(n), bytes, n);
        size_ += n;
    }

private:
    void grow(size_t n);
    void swap(WireBuffer& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
        std::swap(capacity_, other.capacity_);
    }

    uint8_t* data_ = nullptr;
    size_t size_ = 0;
    size_t capacity_ = 0;
};

// One XStat to write: the metadata id of its name and one value of the `value` oneof.
// Str and Bytes point at caller-owned text that must live until the call that takes the stat
// returns. Ref holds the id of the XStatMetadata whose name is the value.
struct WireStat {
    enum class Kind : uint8_t { Double, Uint64, Int64, Str, Bytes, Ref };

    int64_t metadataId = 0;
    Kind kind = Kind::Int64;
    uint64_t bits = 0; // the number (a double's bit pattern for Double)
    std::string_view text;

    static WireStat int64(int64_t id, int64_t v) {
        return {id, Kind::Int64, static_cast<uint64_t>(v), {}};
    }
    static WireStat uint64(int64_t id, uint64_t v) { return {id, Kind::Uint64, v, {}}; }
    static WireStat dbl(int64_t id, double v) {
        uint64_t b;
        std::memcpy(&b, &v, sizeof b);
        return {id, Kind::Double, b, {}};
    }
    static WireStat str(int64_t id, std::string_view v) { return {id, Kind::Str, 0, v}; }
    static WireStat bytes(int64_t id, std::string_view v) { return {id, Kind::Bytes, 0, v}; }
    static WireStat ref(int64_t id, uint64_t statMetadataId) {
        return {id, Kind::Ref, statMetadataId, {}};
    }
};

// One XLine being written. Events are encoded as they are added, in the order added.
class XLineWriter {
public:
    // An XEvent with `offset_ps` set (the oneof is written even when the offset is 0).
    void addEvent(int64_t metadataId, int64_t offsetPs, int64_t durationPs,
                  std::span<const WireStat> stats = {});
    // An aggregated XEvent: `num_occurrences` instead of an offset.
    void addAggregatedEvent(int64_t metadataId, int64_t numOccurrences, int64_t durationPs,
                            std::span<const WireStat> stats = {});
    void setDurationPs(int64_t durationPs) { durationPs_ = durationPs; }
    void setDisplay(int64_t displayId, std::string_view displayName) {
        displayId_ = displayId;
        displayName_ = displayName;
    }

private:
    friend class XPlaneWriter;
    friend class XSpaceWriter;
    // Encoded events past this many bytes go to the spill file, when there is one.
    static constexpr size_t kSpillBytes = size_t(4) << 20;
    struct SpilledRange {
        uint64_t offset;
        size_t size;
    };

    XLineWriter(int64_t id, std::string_view name, int64_t timestampNs, SpillFile* spill)
        : id_(id)
        , name_(name)
        , timestampNs_(timestampNs)
        , spill_(spill) {}
    void addEventWithOneof(int64_t metadataId, uint32_t oneofField, int64_t oneofValue,
                           int64_t durationPs, std::span<const WireStat> stats);
    void spillEvents();
    size_t bodySize() const;
    // The fields before the events, and those after them.
    uint8_t* encodeHead(uint8_t* out) const;
    uint8_t* encodeTail(uint8_t* out) const;
    size_t headTailSize() const { return bodySize() - eventBytes(); }
    size_t eventBytes() const { return spilledBytes_ + events_.size(); }
    uint8_t* encodeBody(uint8_t* out) const;

    int64_t id_;
    std::string name_;
    int64_t timestampNs_;
    int64_t durationPs_ = 0;
    int64_t displayId_ = 0;
    std::string displayName_;
    SpillFile* spill_;                  // null: every event stays in memory
    std::vector<SpilledRange> spilled_; // the line's first events, in order, in the spill file
    size_t spilledBytes_ = 0;
    WireBuffer events_; // encoded `events` fields (tag, length, XEvent) not spilled
};

// One XPlane being written. Lines stay open (and may be appended to in any interleaving) until
// the XSpace is serialized; metadata and plane stats may be added at any time.
//
// Map entries are written in the order added, with key and value always present, as protobuf's
// own serializer does. Adding the same metadata id twice writes two entries; a parser keeps the
// last one.
class XPlaneWriter {
public:
    // The reference stays valid for the life of the writer.
    XLineWriter& addLine(int64_t id, std::string_view name, int64_t timestampNs);
    void addEventMetadata(int64_t id, std::string_view name, std::string_view displayName = {},
                          std::span<const WireStat> stats = {}, std::string_view metadata = {},
                          std::span<const int64_t> childIds = {});
    void addStatMetadata(int64_t id, std::string_view name, std::string_view description = {});
    void addStat(const WireStat& stat);

    // Bytes of the encoded XPlane message (without its own tag and length).
    size_t encodedSize() const;

private:
    friend class XSpaceWriter;
    XPlaneWriter(int64_t id, std::string_view name, SpillFile* spill)
        : id_(id)
        , name_(name)
        , spill_(spill) {}
    uint8_t* encodeBody(uint8_t* out) const;
    void release();

    int64_t id_;
    std::string name_;
    SpillFile* spill_;
    std::deque<XLineWriter> lines_;
    WireBuffer eventMetadata_; // encoded map entries (field 4)
    WireBuffer statMetadata_;  // encoded map entries (field 5)
    WireBuffer stats_;         // encoded stats (field 6)
};

// Encodes a tensorflow.profiler.XSpace (model/xspace/xplane.proto) on the wire, without the
// generated protobuf classes: events are encoded straight into per-line buffers as they are
// added, so writing millions of events costs a few bytes of copying each. Fields are written in
// field-number order and proto3 defaults are skipped, so for the same content (and map entries
// added in key order) the bytes equal protobuf's deterministic serialization.
//
// Used by the synthetic generator, the test fixtures and the CUPTI capture.
//
// A writer given a spill file moves each line's encoded events there in blocks of a few MiB, so
// that writing hundreds of millions of events holds only those blocks in memory; such a writer
// finishes to a sink only.
class XSpaceWriter {
public:
    // Call before adding planes; the file must outlive the writer.
    void spillTo(SpillFile* spill) { spill_ = spill; }
    // The reference stays valid for the life of the writer.
    XPlaneWriter& addPlane(int64_t id, std::string_view name);
    void addError(std::string_view text) { errors_.emplace_back(text); }
    void addWarning(std::string_view text) { warnings_.emplace_back(text); }
    void addHostname(std::string_view text) { hostnames_.emplace_back(text); }

    size_t encodedSize() const;

    // The whole XSpace in one buffer, for a writer without a spill file. Frees each plane's
    // buffers once it is copied, so the writer holds no events afterwards (the planes are then
    // empty).
    std::vector<uint8_t> finish();
    // Streams the XSpace to `sink` in pieces (a line's events in blocks of at most a few MiB),
    // freeing each plane once written. Stops and returns false as soon as the sink returns false
    // or the spill file fails (its error() says why).
    bool finish(const std::function<bool(const uint8_t* data, size_t size)>& sink);

private:
    SpillFile* spill_ = nullptr;
    std::deque<XPlaneWriter> planes_;
    std::vector<std::string> errors_, warnings_, hostnames_;
};

} // namespace stepscope
