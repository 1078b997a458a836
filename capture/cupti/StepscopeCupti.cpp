// libstepscope_cupti.so: loaded into a CUDA program through CUDA_INJECTION64_PATH (the driver
// calls InitializeInjection), it enables CUPTI activity records and streams them to
// STEPSCOPE_CUPTI_DIR/<pid>.rec as zstd frames (capture/RecordFile.h): each completed buffer at
// once, what CUPTI has completed once a second, everything at exit and on SIGSEGV, SIGABRT and
// SIGTERM (Flusher.h). A process the program starts records as its own <pid>.rec when it execs
// (the environment carries the settings); one forked without exec writes nothing. NVTX ranges
// arrive as CUPTI markers through this library's InitializeInjectionNvtx2 when
// NVTX_INJECTION64_PATH names it (NvtxForwarding.cpp; the launcher sets both). Without
// STEPSCOPE_CUPTI_DIR, or where CUPTI cannot start (no driver, no permission), it says why on
// stderr once and leaves the program alone.
//
// STEPSCOPE_CUPTI_KINDS (comma-separated; default all but api-all): kernels, memcpy, memory, api
// (the API calls capture/ApiCallFilter.h keeps), api-all (every API call), nvtx.
// STEPSCOPE_CUPTI_START_NS (Unix time, ns): record from then on (the launcher's --delay); the
// process record and the flushing start at once.

#include <cupti.h>

#include <unistd.h>

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "capture/cupti/ActivityConversion.h"
#include "capture/cupti/ApiRecording.h"
#include "capture/cupti/Flusher.h"
#include "capture/cupti/InjectionState.h"

namespace {

using namespace stepscope::capture;
using namespace stepscope::capture::injection;

bool wanted(const std::string& kinds, const char* kind) {
    const std::string list = "," + kinds + ",";
    return list.find(std::string(",") + kind + ",") != std::string::npos;
}

int64_t wallNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

ProcessRecord thisProcess(uint64_t cuptiNow) {
    ProcessRecord process;
    process.pid = uint32_t(getpid());
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    process.hostname = host;
    std::ifstream cmdline("/proc/self/cmdline");
    std::string arg;
    while (std::getline(cmdline, arg, '\0'))
        process.command += (process.command.empty() ? "" : " ") + arg;
    process.wallStartNs = wallNs();
    process.cuptiStartNs = cuptiNow;
    return process;
}

// Enables the record kinds; false (and no record file left) when CUPTI could enable none.
bool startRecording(const std::string& kinds, const std::string& path) {
    std::vector<CUpti_ActivityKind> enable = {CUPTI_ACTIVITY_KIND_DEVICE,
                                              CUPTI_ACTIVITY_KIND_OVERHEAD};
    if (wanted(kinds, "kernels")) enable.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (wanted(kinds, "memcpy")) {
        enable.push_back(CUPTI_ACTIVITY_KIND_MEMCPY);
        enable.push_back(CUPTI_ACTIVITY_KIND_MEMSET);
    }
    if (wanted(kinds, "memory")) enable.push_back(CUPTI_ACTIVITY_KIND_MEMORY2);
    if (wanted(kinds, "nvtx")) enable.push_back(CUPTI_ACTIVITY_KIND_MARKER);
    size_t enabled = 0, asked = enable.size();
    CUptiResult firstError = CUPTI_SUCCESS;
    const auto count = [&](CUptiResult r) {
        if (r == CUPTI_SUCCESS)
            ++enabled;
        else if (firstError == CUPTI_SUCCESS)
            firstError = r;
    };
    for (const CUpti_ActivityKind kind : enable) count(cuptiActivityEnable(kind));
    if (wanted(kinds, "api") || wanted(kinds, "api-all")) {
        ++asked;
        count(enableApiRecords(wanted(kinds, "api-all")));
    }
    if (enabled == 0) {
        // Nothing can be recorded (no driver or GPU, no permission): leave no record file, so
        // the launcher says the program recorded nothing and points here.
        say("CUPTI cannot record anything: " + cuptiError(firstError) +
            (firstError == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                 ? ""
                 : " (is there an NVIDIA driver and a GPU this process may use?)"));
        {
            const LockedState s;
            s->writer.reset();
        }
        ::unlink(path.c_str());
        return false;
    }
    if (enabled < asked)
        say("CUPTI refused some record kinds (" + cuptiError(firstError) +
            "); recording the others");
    return true;
}

// Runs `start` on a thread of its own after `delayNs` (STEPSCOPE_CUPTI_START_NS: the launcher's
// --delay), with every signal blocked on that thread.
void startLater(int64_t delayNs, std::function<void()> start) {
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    try {
        std::thread([delayNs, start = std::move(start)] {
            std::this_thread::sleep_for(std::chrono::nanoseconds(delayNs));
            start();
        }).detach();
    } catch (const std::exception&) {
        say("cannot start the thread that starts recording after the delay; recording now");
        pthread_sigmask(SIG_SETMASK, &saved, nullptr);
        start();
        return;
    }
    pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

} // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    const char* dir = std::getenv("STEPSCOPE_CUPTI_DIR");
    if (!dir || !*dir) {
        say("STEPSCOPE_CUPTI_DIR is not set; not recording (start the program with "
            "stepscope-cli capture -- PROGRAM)");
        return 1;
    }
    const std::string setting = std::getenv("STEPSCOPE_CUPTI_KINDS") ?: "";
    const std::string kinds = setting.empty() ? "kernels,memcpy,memory,api,nvtx" : setting;
    const std::string path = std::string(dir) + "/" + std::to_string(getpid()) + ".rec";
    auto writer = std::make_unique<RecordFileWriter>(path);
    if (!writer->ok()) {
        say(writer->error());
        return 1;
    }
    uint64_t now = 0;
    if (const CUptiResult r = cuptiGetTimestamp(&now); r != CUPTI_SUCCESS) {
        say("CUPTI cannot start: " + cuptiError(r));
        return 1;
    }
    writer->add(thisProcess(now));
    writer->flush();

    // Thread ids as the OS numbers them (gettid), not CUPTI's default pthread_self() values
    // (cupti_activity.h, CUpti_ActivityThreadIdType): host lines then carry the ids that top,
    // py-spy and Kineto show. Records made before this call keep the default: it comes first.
    if (const CUptiResult r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
        r != CUPTI_SUCCESS)
        say("CUPTI cannot report OS thread ids (" + cuptiError(r) +
            "); host lines will be numbered by pthread id and unnamed");
    if (const CUptiResult r = cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
        r != CUPTI_SUCCESS) {
        say("CUPTI cannot start: " + cuptiError(r));
        return 1;
    }
    {
        const LockedState s;
        s->writer = std::move(writer); // before any record kind: buffers may complete at once
    }
    const char* startAt = std::getenv("STEPSCOPE_CUPTI_START_NS");
    const int64_t delayNs = startAt ? std::atoll(startAt) - wallNs() : 0;
    if (delayNs > 0)
        startLater(delayNs, [kinds, path] { startRecording(kinds, path); });
    else if (!startRecording(kinds, path))
        return 1;
    startFlushing();
    return 1;
}
