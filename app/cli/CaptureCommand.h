#pragma once

// The parts of `stepscope-cli capture` (CaptureCommand.cpp dispatches): local capture of a program
// or of record files brought from another machine (CaptureLocal.cpp), and, in the GUI build,
// remote capture from profiler servers (CaptureRemote.cpp, gRPC).

#include <string>
#include <vector>

#include "model/Progress.h"

namespace stepscope::cli {

// Prints the message and the capture usage on stderr; returns 2 (a usage error).
int captureUsage(const std::string& message);

// What a capture wrote, as the command reports it: warnings and, unless `ok`, the error on stderr,
// the written files on stdout; returns the exit status (1 unless `ok`).
int reportCapture(const std::vector<std::string>& warnings, bool ok, const std::string& error,
                  const std::vector<std::string>& files);

// A progress callback that prints each new stage on its own line on stderr (what a capture has
// recorded so far, at most as often as the stage text changes).
Progress::Callback stagesOnStderr();

// Ctrl+C cancels `progress` while this lives (the previous SIGINT disposition comes back after).
class CancelOnInterrupt {
public:
    explicit CancelOnInterrupt(Progress& progress);
    ~CancelOnInterrupt();
    CancelOnInterrupt(const CancelOnInterrupt&) = delete;
    CancelOnInterrupt& operator=(const CancelOnInterrupt&) = delete;
};

// `capture [OPTIONS] -- PROGRAM ARGS...`: `programAt` is the index of PROGRAM in `args`.
int runProgramCapture(const std::vector<std::string>& args, size_t programAt);
// `capture --records FILE.rec... --logdir DIR [--run NAME]`.
int runRecordsCapture(const std::vector<std::string>& args);
#ifdef STEPSCOPE_REMOTE_CAPTURE
// `capture --service ADDR[,ADDR...] --logdir DIR [...]`.
int runRemoteCapture(const std::vector<std::string>& args);
#endif

} // namespace stepscope::cli
