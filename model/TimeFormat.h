#pragma once

#include <cstdint>
#include <string>

namespace stepscope {

// A duration or time offset in picoseconds as people read it, in the largest unit below it:
// "850 ps", "12.300 ns", "4.562 µs", "1.200 ms", "3.510 s" (three decimals above ps).
std::string formatDuration(int64_t ps);

} // namespace stepscope
