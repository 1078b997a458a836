#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
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

    void reserve(size_t events) { events_.reserve(events); }
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
    struct Event {
        int64_t start = 0, duration = 0;
        StringId name = 0, cat = 0;
        int64_t device = 0, stream = 0;
        Kind kind = Kind::Kernel;
        bool hasCorrelation = false;
        bool hasTfOp = false;
        uint64_t correlation = 0;
        uint32_t argBegin = 0, argEnd = 0;
        StringId details = 0;    // kernel_details or memcpy_details made from the args
        bool hasDetails = false; // (a kernel without launch geometry has an empty kernel_details)
    };
    // The events' stats: in chunks, so that growing never copies what is already there.
    class ArgStore {
    public:
        void push_back(const statcodec::Entry& a) {
            if (size_ % kChunk == 0) chunks_.emplace_back(new statcodec::Entry[kChunk]);
            chunks_.back()[size_ % kChunk] = a;
            ++size_;
        }
        const statcodec::Entry& operator[](size_t i) const {
            return chunks_[i / kChunk][i % kChunk];
        }
        size_t size() const { return size_; }
        void clear() {
            chunks_.clear();
            size_ = 0;
        }

    private:
        static constexpr size_t kChunk = size_t(1) << 16;
        std::vector<std::unique_ptr<statcodec::Entry[]>> chunks_;
        size_t size_ = 0;
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
    void extendSteps(StepTracker& steps) const;
    bool details(const Event& d, const std::vector<Arg>& args, bool hasKernelDetails,
                 bool hasMemcpyDetails, StringId& details);

    ProfileBuilder& b_;
    uint32_t host_;
    StringId catKey_;
    std::vector<Event> events_;
    ArgStore args_;
    std::unordered_map<DetailsKey, StringId, DetailsKeyHash> details_;
    std::map<int64_t, std::vector<StatValue>> props_;
    std::vector<statcodec::Entry> stats_; // an event's stats, added to the builder at once
};

} // namespace stepscope::kineto
