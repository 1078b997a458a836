#pragma once

// What the parts of libstepscope_cupti.so share: the record file writer and what conversion
// remembers between buffers, behind one lock, and its messages.

#include <cupti.h>

#include <signal.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "capture/RecordFile.h"

namespace stepscope::capture::injection {

// Looks strings up by std::string_view, with no std::string made for the key.
struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct State {
    std::mutex mutex;
    std::unique_ptr<RecordFileWriter> writer;
    std::set<uint32_t> threadsNamed;
    std::map<uint32_t, CUpti_ActivityMarker2> openMarkers; // NVTX start markers by id
    // Kernel names as CUPTI gives them (mangled) -> demangled: a program launches few kernels
    // many times, and demangling was most of a kernel record's cost.
    std::unordered_map<std::string, std::string, TextHash, std::equal_to<>> kernelNames;
    std::atomic<bool> stopped{false}; // flushed at exit; nothing follows
};

// Never destroyed: exit handlers and signals may still use it.
State& state();

// The state, locked, with SIGTERM held back on this thread: a SIGTERM's flush runs on the flusher
// thread and takes this lock, so it must never wait on a lock its own handler's thread holds.
class LockedState {
public:
    LockedState();
    ~LockedState();
    LockedState(const LockedState&) = delete;
    LockedState& operator=(const LockedState&) = delete;
    State* operator->() const { return &state_; }
    State& operator*() const { return state_; }

private:
    State& state_;
    sigset_t saved_;
};

// One line on stderr, "stepscope-cupti: <text>".
void say(const std::string& text);
// CUPTI's text for a result, with the fix for missing profiling permission.
std::string cuptiError(CUptiResult result);

} // namespace stepscope::capture::injection
