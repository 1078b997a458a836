#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::bench {

// The options of the benches that time one synthetic profile's analyses: `--events N` (a
// synthetic profile's size) and `--repeat R` (R in [1, maxRepeat]).
struct EventsRepeat {
    uint64_t events = 1'000'000;
    uint64_t repeat = 3;
};

// Parses those options; nullopt (after printing `usage` to stderr) when an argument is bad.
std::optional<EventsRepeat> parseEventsRepeat(const std::vector<std::string>& args,
                                              uint64_t maxRepeat, const char* usage);

// The shortest wall-clock time, in seconds, of `repeat` runs of `work` (the least disturbed by
// other processes on a shared machine).
double bestSeconds(int repeat, const std::function<void()>& work);

// A steady-clock duration in seconds.
inline double seconds(std::chrono::steady_clock::duration d) {
    return std::chrono::duration<double>(d).count();
}
// CPU time so far, in seconds, of the whole process (all threads) or of the calling thread: on a
// shared machine the wall clock also measures the other programs, CPU time the work done.
double processCpuSeconds();
double threadCpuSeconds();

} // namespace stepscope::bench
