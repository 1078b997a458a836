#pragma once

// When the injection library's records reach the disk: CUPTI's completed records once a second
// (so a SIGKILL, an OOM kill or a power cut loses at most the last second), everything at exit
// and on SIGSEGV, SIGABRT and SIGTERM. A child forked without exec writes nothing (Flusher.cpp).

namespace stepscope::capture::injection {

// Starts the flusher thread and installs the exit, signal and fork handlers. Call once, after
// the record file is open and CUPTI's buffer callbacks are registered.
void startFlushing();

} // namespace stepscope::capture::injection
