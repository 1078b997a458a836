#pragma once

#include <string>

namespace stepscope::bench {

// This process's huge page choice (model/HugePages.h) as a JSON object: {"use", "chosen_by"}, the
// first whether huge pages are asked for (the kernel may still not grant them: transparent huge
// pages set to "never"), the second "default", "page_reporting", "STEPSCOPE_HUGE_PAGES" or "none".
// A load's time depends on it as much as on the code, so the load benches print it beside their
// figures.
std::string hugePageReport();

} // namespace stepscope::bench
