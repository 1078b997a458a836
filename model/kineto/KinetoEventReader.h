#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/ProfileBuilder.h"
#include "model/Progress.h"
#include "model/kineto/DeviceStreamTracker.h"
#include "model/kineto/FlowTracker.h"
#include "model/kineto/HostSliceTracker.h"
#include "model/kineto/KinetoEvent.h"
#include "model/kineto/KinetoStrings.h"
#include "model/kineto/KinetoTokenizer.h"
#include "model/kineto/LaunchOpJoin.h"
#include "model/kineto/MemoryTracker.h"
#include "model/kineto/StepTracker.h"

// The second stage of the Kineto importer (as Perfetto's json_trace_parser): reads each event's
// fields, switches on its phase and hands it to the tracker that owns it (host slices, device
// streams, flows, memory); the launch-to-op join and the steps are resolved in finish().
namespace stepscope::kineto {

class KinetoEventReader final : public EventSink {
public:
    KinetoEventReader(ProfileBuilder& b, uint32_t host, const KinetoTokenizer& tokenizer,
                      const Progress* progress);

    void expectBytes(size_t bytes) override;
    std::optional<SkippedEvent> event(od::object obj, const char* at) override;
    void rootField(std::string_view key, od::value& v, const char* at) override;

    // After the events: ends open slices, joins launches to ops, adds the device planes and the
    // memory events. Returns the builder's error, if any.
    std::string finish();
    // The trace's origin as an absolute time in ns (or a message where it is out of range).
    std::string timeBase(int64_t& originNs) const;
    // The warnings the events gave (unmatched ends, flows without ids, unsupported phases).
    std::vector<std::string> warnings() const;
    // Binds the flows once the trace's events are shifted by `deltaPs`.
    void bindFlows(int64_t deltaPs) { flows_.bind(b_, hosts_, deltaPs); }

private:
    bool readEvent(od::object obj, const char* at);
    bool skip(std::string reason, const char* at) {
        skip_ = SkippedEvent{std::move(reason), at};
        return false;
    }
    void memoryEvent(uint32_t thread, int64_t start);
    [[gnu::noinline]] void flowField(std::string_view key, od::value& v, std::string_view& id,
                                     bool& local, std::string_view& bindPoint);
    void deviceProperties(od::array devices);
    void distributedInfo(od::object info);
    void readArgs(od::object args, std::vector<Arg>& out);
    void readValue(od::value& v, uint32_t key, Role role, Arg& a);
    bool readId(od::value& v, Id& id);
    bool time(std::string_view text, const char* at, const char* field, int64_t& ps);

    ProfileBuilder& b_;
    const KinetoTokenizer& tokenizer_;
    const Progress* progress_;
    StringId catKey_;
    KinetoStrings strings_;
    Categories categories_;
    LaunchOpJoin join_;
    StepTracker steps_;
    HostSliceTracker hosts_;
    DeviceStreamTracker devices_;
    MemoryTracker memory_;
    FlowTracker flows_;

    std::optional<SkippedEvent> skip_; // why the event being read cannot be shown
    std::vector<Arg> args_;
    std::unordered_map<std::string, int64_t, StringHash, std::equal_to<>> textIds_;
    bool haveOrigin_ = false;
    int64_t originUs_ = 0;
    std::optional<int64_t> baseTimeNs_;
    int64_t lastPs_ = std::numeric_limits<int64_t>::min(); // the latest start or end read
    std::map<std::string, uint64_t> skippedPhases_;
    uint32_t sinceReport_ = 0;
};

} // namespace stepscope::kineto
