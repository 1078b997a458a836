#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/ProfileBuilder.h"
#include "model/kineto/KinetoStrings.h"

namespace stepscope::kineto {

class HostSliceTracker;

// Flow events other than Kineto's ac2g (whose arrows repeat the correlation ids the events
// carry), kept until the profile's time base is known and then bound to slices.
class FlowTracker {
public:
    // A flow event of phase 's', 't' or 'f' at `ps`: its flow is named by its id (an "id2"
    // "local" id within its process), category and name, as Perfetto's JSON importer names v1
    // flows (FlowTracker::GetFlowIdForV1Event). `bindPoint` is its "bp".
    void add(char phase, std::string_view id, bool local, std::string_view bindPoint,
             std::string_view cat, std::string_view name, int64_t pid, int64_t tid, int64_t ps);
    // A flow event with no "id" or "id2": counted and ignored.
    void addWithoutId() { ++withoutId_; }
    uint64_t withoutId() const { return withoutId_; }
    // The flow points, on the tracks of their threads (a thread with no slices binds nothing),
    // in the order of their times, shifted by `deltaPs`.
    void bind(ProfileBuilder& b, const HostSliceTracker& hosts, int64_t deltaPs);

private:
    struct Record {
        uint64_t flow; // by id, category and name
        int64_t ps;
        int64_t pid, tid;
        ProfileBuilder::FlowPhase phase;
        bool enclosing;
    };
    std::vector<Record> records_;
    std::unordered_map<std::string, uint64_t, StringHash, std::equal_to<>> ids_;
    uint64_t withoutId_ = 0;
};

} // namespace stepscope::kineto
