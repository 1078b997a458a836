#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::cli {

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

} // namespace stepscope::cli
