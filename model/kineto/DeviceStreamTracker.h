#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "model/ProfileBuilder.h"
#include "model/kineto/KinetoEvent.h"

namespace stepscope::kineto {

class HostSliceTracker;
class KinetoStrings;
class LaunchOpJoin;
class StepTracker;

// The device side of a Chrome trace: kernels, copies, memsets, GPU annotations and syncs, kept
// until the host is read (their ops come from the launch-to-op join), then added as a plane
// "/device:GPU:<device>" per device with a line per stream, and a "Steps" line.
class DeviceStreamTracker {
public:
    DeviceStreamTracker(ProfileBuilder& b, uint32_t host, StringId categoryKey)
        : b_(b)
        , host_(host)
        , catKey_(categoryKey) {}

    // An "X" event of a device category (kind other than Host).
    void add(int64_t start, int64_t duration, StringId name, StringId cat, Kind kind, const Id& pid,
             const Id& tid, const std::vector<Arg>& args);
    // A device's deviceProperties entry, as plane stats.
    void setProperties(int64_t device, std::vector<StatValue> stats) {
        props_[device] = std::move(stats);
    }
    // Moves the steps to the device work (StepTracker::extend), then adds the planes, lines
    // and events, and a "Steps" line per device; `hosts` names the derived lines of an export.
    void finish(KinetoStrings& strings, const LaunchOpJoin& join, StepTracker& steps,
                const HostSliceTracker& hosts);

private:
    // A line of a device plane: a stream's work, its GPU annotations, its syncs, or a derived
    // line of an export.
    struct LineKey {
        int64_t device, stream;
        int kind; // lineKindOf
        bool operator<(const LineKey& o) const {
            return std::tie(device, kind, stream) < std::tie(o.device, o.kind, o.stream);
        }
    };
    // A device event kept until the host is read: its line by index, its stats encoded (as
    // StatList.h encodes them) in the shared byte chunks.
    struct Event {
        int64_t start = 0, duration = 0;
        uint64_t correlation = 0;
        StringId name = 0, cat = 0;
        StringId details = 0; // kernel_details or memcpy_details made from the args
        uint32_t line = 0;    // index into lines_
        uint32_t statCount = 0;
        Kind kind = Kind::Kernel;
        bool hasCorrelation = false;
        bool hasTfOp = false;
        bool hasDetails = false;       // (a kernel without launch geometry: an empty text)
        bool statsInNextChunk = false; // its stats begin the next byte chunk
    };
    // The events' encoded stats, in chunks: growing never copies what is already there, and
    // finish() frees each chunk once its events are in the builder.
    class StatBytes {
    public:
        // Where `n` more bytes go: the end of the last chunk, or a fresh chunk (`fresh`) where
        // the last has less room.
        uint8_t* room(size_t n, bool& fresh) {
            fresh = chunks_.empty() || used_ + n > capacity_;
            if (fresh) {
                capacity_ = std::max(n, kChunk);
                chunks_.emplace_back(new uint8_t[capacity_]);
                used_ = 0;
            }
            return chunks_.back().get() + used_;
        }
        void grow(size_t n) { used_ += n; }
        const uint8_t* chunk(size_t i) const { return chunks_[i].get(); }
        void release(size_t i) { chunks_[i].reset(); }
        void clear() {
            chunks_.clear();
            used_ = capacity_ = 0;
        }

    private:
        static constexpr size_t kChunk = size_t(1) << 20;
        std::vector<std::unique_ptr<uint8_t[]>> chunks_;
        size_t used_ = 0, capacity_ = 0;
    };
    // kernel_details and memcpy_details texts by what they are made of, each made once.
    struct DetailsKey {
        std::array<int64_t, 8> v;
        bool operator==(const DetailsKey&) const = default;
    };
    struct DetailsKeyHash {
        size_t operator()(const DetailsKey& k) const {
            uint64_t h = 0;
            for (int64_t x : k.v) h = (h ^ uint64_t(x)) * 0x9E3779B97F4A7C15ull;
            return size_t(h ^ (h >> 29));
        }
    };
    uint32_t lineOf(const LineKey& line);
    void extendSteps(StepTracker& steps) const;
    bool details(const Event& d, int64_t device, const std::vector<Arg>& args,
                 bool hasKernelDetails, bool hasMemcpyDetails, StringId& details);

    ProfileBuilder& b_;
    uint32_t host_;
    StringId catKey_;
    std::deque<Event> events_; // a deque: no copies as it grows, freed from the front
    std::vector<LineKey> lines_;
    std::map<LineKey, uint32_t> lineIndex_;
    uint32_t lastLine_ = 0xFFFFFFFFu; // the line of the event added last (events come in runs)
    StatBytes statBytes_;
    std::unordered_map<DetailsKey, StringId, DetailsKeyHash> details_;
    std::map<int64_t, std::vector<StatValue>> props_;
    std::vector<statcodec::Entry> stats_; // an event's stats, added to the builder at once
};

} // namespace stepscope::kineto
