#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/ProfileBuilder.h"
#include "model/kineto/KinetoEvent.h"
#include "model/kineto/KinetoStrings.h"

namespace stepscope::kineto {

class LaunchOpJoin;
class StepTracker;

// The host side of a Chrome trace: a plane per process, a track per thread, an event per slice
// ("X", or a "B" and its "E"), process and thread names from "M" events. A slice's ops, launches
// and ProfilerStep#N ranges go on to the launch-to-op join and the step tracker.
class HostSliceTracker {
public:
    HostSliceTracker(ProfileBuilder& b, uint32_t host, StringId categoryKey, Categories& categories,
                     LaunchOpJoin& join, StepTracker& steps)
        : b_(b)
        , host_(host)
        , catKey_(categoryKey)
        , categories_(categories)
        , join_(join)
        , steps_(steps) {}

    // The thread's index, its process's plane and its track made on first sight.
    uint32_t thread(const Id& pid, const Id& tid);
    uint32_t track(uint32_t thread) const { return threads_[thread].track; }
    uint32_t plane(uint32_t thread) const { return threads_[thread].plane; }
    // The track of a thread already seen, if any.
    std::optional<uint32_t> trackOf(int64_t pid, int64_t tid) const;

    // A complete slice.
    void slice(uint32_t thread, int64_t start, int64_t duration, StringId name, StringId cat,
               const std::vector<Arg>& args);
    // A "B" event, and an "E" event that ends the latest open one (with its args added).
    void begin(uint32_t thread, int64_t start, StringId name, StringId cat,
               const std::vector<Arg>& args);
    void end(uint32_t thread, int64_t start, const std::vector<Arg>& args);
    // Ends the slices still open at `lastPs` (the trace's last time), with a warning per thread.
    void closeOpen(int64_t lastPs);
    uint64_t unmatchedEnds() const { return unmatchedEnds_; }

    // An "M" event: process_name, thread_name, process_sort_index.
    void metadata(std::string_view name, const Id& pid, const Id& tid,
                  const std::vector<Arg>& args);
    // A stat every process plane gets (the trace's own fields, distributedInfo).
    void addHostStat(const StatValue& s) { hostStats_.push_back(s); }
    const std::string* threadName(int64_t pid, int64_t tid) const;
    // Names the planes and tracks; `textIds`: the numbers given to pids and tids that are text.
    void finishNames(
        const std::unordered_map<std::string, int64_t, StringHash, std::equal_to<>>& textIds);

private:
    struct Thread {
        uint32_t track = 0;
        uint32_t plane = 0;
        struct Open {
            int64_t start;
            StringId name, cat;
            std::vector<Arg> args;
        };
        std::vector<Open> open; // B events waiting for their E
    };
    struct Process {
        uint32_t plane = 0;
        int64_t pid = 0;
        std::unordered_map<int64_t, uint32_t> threads; // tid -> index into threads_
    };
    struct MetaKey {
        uint32_t plane;
        StringId name, cat;
        bool operator==(const MetaKey&) const = default;
    };
    struct MetaKeyHash {
        size_t operator()(const MetaKey& k) const {
            return std::hash<uint64_t>()((uint64_t(k.plane) << 32 | k.name) * 31 + k.cat);
        }
    };
    struct PairHash {
        size_t operator()(const std::pair<int64_t, int64_t>& k) const {
            return std::hash<int64_t>()(k.first * 1000003 ^ k.second);
        }
    };
    uint32_t threadOf(const Id& pid, const Id& tid);
    uint32_t metadataOf(uint32_t plane, StringId name, StringId cat);

    ProfileBuilder& b_;
    uint32_t host_;
    StringId catKey_;
    Categories& categories_;
    LaunchOpJoin& join_;
    StepTracker& steps_;
    std::unordered_map<int64_t, uint32_t> processIndex_;
    std::vector<Process> processes_;
    std::vector<Thread> threads_;
    // The last event's thread: a thread's events mostly come one after another.
    static constexpr uint32_t kNoThread = 0xFFFFFFFFu;
    struct LastThread {
        int64_t pid = 0, tid = 0;
        uint32_t index = kNoThread;
    } lastThread_;
    std::unordered_map<MetaKey, uint32_t, MetaKeyHash> meta_; // one metadata per name and cat
    static constexpr uint32_t kNoMetadata = 0xFFFFFFFFu;
    struct MetaSlot {
        MetaKey key{0, 0, 0};
        uint32_t metadata = kNoMetadata;
    };
    static constexpr size_t kMetaCacheSize = 1024;
    std::vector<MetaSlot> metaCache_ = std::vector<MetaSlot>(kMetaCacheSize);
    std::vector<statcodec::Entry> stats_; // a slice's stats, added to the builder at once
    uint64_t unmatchedEnds_ = 0;
    std::unordered_map<int64_t, std::string> processNames_;
    std::unordered_map<int64_t, int64_t> processSort_;
    std::unordered_map<std::pair<int64_t, int64_t>, std::string, PairHash> threadNames_;
    std::vector<StatValue> hostStats_;
};

} // namespace stepscope::kineto
