#pragma once

// Which CUDA API calls the injection library asks CUPTI to record, and the names of the threads
// that make them: each thread's name is read at its first recorded call, while it runs (a
// thread that ended before its records were written would otherwise stay "Thread <tid>").

#include <cupti.h>

namespace stepscope::capture::injection {

// Runtime and driver API records: every call (`everyCall`), or those capture/ApiCallFilter.h
// keeps (the runtime kind enabled and its queries turned off; the driver calls that do work
// turned on one by one). CUPTI's callbacks are enabled for the same calls, and the first one on a
// thread records its name. Returns the first CUPTI error, or CUPTI_SUCCESS.
CUptiResult enableApiRecords(bool everyCall);

struct State;
// Adds the thread names read since the last call to the record file; called with the state
// locked, before the records of a buffer are converted (so a thread's name precedes them).
void writeThreadNames(State& s);

} // namespace stepscope::capture::injection
