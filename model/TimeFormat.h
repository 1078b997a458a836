#pragma once

#include <cstdint>
#include <string>

namespace stepscope {

// A duration or time offset in picoseconds as people read it, in the largest unit below it:
// "850 ps", "12.300 ns", "4.562 µs", "1.200 ms", "3.510 s" (three decimals above ps).
std::string formatDuration(int64_t ps);

// A point in time (ps from the profile start) in the same units, with at least three decimals
// and as many more as tell apart times `resolutionPs` apart (at most to the picosecond): a 53 µs
// kernel's start reads "1.805974 s", not "1.806 s". Use a tenth of an event's duration.
std::string formatTimePoint(int64_t ps, int64_t resolutionPs);

} // namespace stepscope
