#pragma once

// Local capture: starts a program with libstepscope_cupti.so injected (CUDA_INJECTION64_PATH),
// waits for it (or stops it on cancel), reporting what its processes have recorded so far once a
// second (capture/LiveRecordCounts.h), and converts the record files they wrote into one run of
// a TensorBoard log directory (capture/CuptiConverter.h). Qt-free.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "capture/CuptiConverter.h"
#include "model/Progress.h"

namespace stepscope::capture {

struct LaunchOptions {
    std::vector<std::string> argv; // the program and its arguments
    std::string logDir;
    std::string runName;          // empty: the local time, YYYY_MM_DD_HH_MM_SS
    std::string workingDirectory; // empty: the current one
    std::vector<std::pair<std::string, std::string>> environment; // added to the program's
    // STEPSCOPE_CUPTI_KINDS: kernels, memcpy, memory, api (capture/ApiCallFilter.h's calls),
    // api-all (every API call), nvtx; "" = all but api-all
    std::string kinds;
    // libstepscope_cupti.so: CUDA's injection, and NVTX's (it forwards NVTX to the libcupti it
    // records with, see capture/cupti/NvtxForwarding.cpp)
    std::string injectionLibrary;
    // Record from this long after the program starts (STEPSCOPE_CUPTI_START_NS, a wall-clock time
    // its processes share), as nsys --delay.
    uint64_t delayMs = 0;
    // Stop the program (SIGTERM) after recording this long; 0: wait for its exit.
    uint64_t stopAfterMs = 0;
    // Check for the CUDA driver before starting (tests of the other paths turn it off).
    bool requireDriver = true;
};

struct LaunchResult {
    std::string error;              // nothing was captured; says why
    std::vector<std::string> notes; // how the program ended, when not plainly
    int exitCode = -1;              // the program's, when it exited
    int signal = 0;                 // the signal that killed it, when one did
    std::string runName;
    CaptureRunResult run; // files written and their warnings
    bool cancelled = false;
    bool ok() const { return error.empty() && run.ok(); }
};

// The CUDA driver's absence in words ("" when libcuda.so.1 loads).
std::string cudaDriverProblem();

LaunchResult launchAndCapture(const LaunchOptions& options, const Progress& progress);

} // namespace stepscope::capture
