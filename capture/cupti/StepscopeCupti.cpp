// libstepscope_cupti.so: loaded into a CUDA program through CUDA_INJECTION64_PATH (the driver
// calls InitializeInjection), it enables CUPTI activity records and streams each completed
// buffer to STEPSCOPE_CUPTI_DIR/<pid>.rec as one zstd frame (capture/RecordFile.h), so a crash
// of the program loses at most the buffers in flight. Flushed at exit and on SIGSEGV, SIGABRT and
// SIGTERM: the handler only wakes a flusher thread through a pipe and waits for it at most 3 s
// (write, read and poll are async-signal-safe; CUPTI, locks and malloc stay out of the handler),
// then chains to the handler the program had installed (Python's faulthandler, a checkpoint on
// SIGTERM), or dies as it would have; a signal the program ignores stays ignored. NVTX ranges
// arrive as CUPTI markers when NVTX_INJECTION64_PATH names libcupti (the launcher sets it). Without
// STEPSCOPE_CUPTI_DIR, or where CUPTI cannot start (no driver, no permission), it says why on
// stderr once and leaves the program alone.
//
// STEPSCOPE_CUPTI_KINDS (comma-separated; default all): kernels, memcpy, memory, api, nvtx.

#include <cupti.h>

#include <cxxabi.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "capture/RecordFile.h"

namespace {

using namespace stepscope::capture;

constexpr size_t kBufferBytes = 8 << 20;

struct State {
    std::mutex mutex;
    std::unique_ptr<RecordFileWriter> writer;
    std::set<uint32_t> threadsNamed;
    std::map<uint32_t, CUpti_ActivityMarker2> openMarkers; // NVTX start markers by id
    std::atomic<bool> stopped{false};
};

State& state() {
    static State* s = new State; // never destroyed: exit handlers and signals may still use it
    return *s;
}

void say(const std::string& text) {
    std::fprintf(stderr, "stepscope-cupti: %s\n", text.c_str());
}

std::string cuptiError(CUptiResult r) {
    const char* text = nullptr;
    cuptiGetResultString(r, &text);
    std::string s = text ? text : "unknown CUPTI error";
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        s += " (profiling is restricted to admin users: load the driver with "
             "NVreg_RestrictProfilingToAdminUsers=0, or run as root)";
    return s;
}

std::string demangle(const char* name) {
    if (!name) return "unknown kernel";
    int status = 0;
    char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    std::string s = status == 0 && out ? out : name;
    std::free(out);
    return s;
}

std::string threadName(uint32_t tid) {
    std::ifstream comm("/proc/self/task/" + std::to_string(tid) + "/comm");
    std::string name;
    std::getline(comm, name);
    return name;
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxRecords = 0;
}

// Converts one activity record; called with the state locked.
void convert(State& s, const CUpti_Activity* a) {
    RecordFileWriter& w = *s.writer;
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(a);
        KernelRecord r;
        r.startNs = k->start, r.endNs = k->end;
        r.deviceId = k->deviceId, r.contextId = k->contextId, r.streamId = k->streamId;
        r.correlationId = k->correlationId;
        r.grid[0] = uint32_t(k->gridX), r.grid[1] = uint32_t(k->gridY),
        r.grid[2] = uint32_t(k->gridZ);
        r.block[0] = uint32_t(k->blockX), r.block[1] = uint32_t(k->blockY),
        r.block[2] = uint32_t(k->blockZ);
        r.registersPerThread = k->registersPerThread;
        r.staticSharedBytes = uint32_t(k->staticSharedMemory);
        r.dynamicSharedBytes = uint32_t(k->dynamicSharedMemory);
        r.graphId = k->graphId, r.graphNodeId = k->graphNodeId;
        r.name = demangle(k->name);
        w.add(r);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* c = reinterpret_cast<const CUpti_ActivityMemcpy6*>(a);
        MemcpyRecord r;
        r.startNs = c->start, r.endNs = c->end;
        r.deviceId = c->deviceId, r.contextId = c->contextId, r.streamId = c->streamId;
        r.correlationId = c->correlationId;
        r.bytes = c->bytes;
        r.kind = MemcpyKind(c->copyKind);
        r.srcKind = c->srcKind, r.dstKind = c->dstKind;
        r.graphId = c->graphId;
        w.add(r);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(a);
        w.add(MemsetRecord{m->start, m->end, m->deviceId, m->contextId, m->streamId,
                           m->correlationId, m->bytes, m->value});
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* api = reinterpret_cast<const CUpti_ActivityAPI*>(a);
        const bool runtime = a->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
        const char* name = nullptr;
        cuptiGetCallbackName(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
                             api->cbid, &name);
        if (s.threadsNamed.insert(api->threadId).second)
            w.add(ThreadRecord{api->threadId, threadName(api->threadId)});
        w.add(ApiRecord{api->start, api->end, api->threadId, api->correlationId,
                        runtime ? ApiRecord::Domain::Runtime : ApiRecord::Domain::Driver, api->cbid,
                        name ? name : "CUDA API " + std::to_string(api->cbid)});
        break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(a);
        if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
            s.openMarkers[m->id] = *m;
            if (m->name) s.openMarkers[m->id].name = strdup(m->name); // outlives the buffer
        } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
            const auto it = s.openMarkers.find(m->id);
            if (it == s.openMarkers.end()) break;
            const CUpti_ActivityMarker2& start = it->second;
            w.add(NvtxRangeRecord{start.timestamp, m->timestamp, start.objectId.pt.threadId,
                                  start.name ? start.name : "NVTX range"});
            std::free(const_cast<char*>(start.name));
            s.openMarkers.erase(it);
        }
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(a);
        const bool alloc =
            m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
        if (!alloc && m->memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE) break;
        w.add(MemoryRecord{m->timestamp, m->deviceId, m->streamId, m->correlationId, m->address,
                           m->bytes, alloc});
        break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(a);
        const char* kind =
            o->overheadKind == CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH      ? "buffer flush"
            : o->overheadKind == CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION ? "instrumentation"
                                                                               : "driver";
        w.add(OverheadRecord{o->start, o->end, kind});
        break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
        const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(a);
        w.add(DeviceRecord{d->id, d->name ? d->name : "", d->numMultiprocessors, d->coreClockRate,
                           d->globalMemorySize, d->globalMemoryBandwidth * 1000,
                           d->computeCapabilityMajor, d->computeCapabilityMinor});
        break;
    }
    default:
        break;
    }
}

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer, size_t size,
                              size_t validSize) {
    State& s = state();
    // A SIGTERM is held until the state is unlocked, so its flush never waits on this thread.
    sigset_t term, saved;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &term, &saved);
    {
        const std::lock_guard lock(s.mutex);
        if (s.writer) {
            CUpti_Activity* record = nullptr;
            while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS)
                convert(s, record);
            size_t dropped = 0;
            if (cuptiActivityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS &&
                dropped > 0)
                s.writer->add(DroppedRecord{0, dropped});
            s.writer->flush(); // one frame per buffer, on disk now
        }
    }
    std::free(buffer);
    pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

void flushNow() {
    State& s = state();
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    const std::lock_guard lock(s.mutex);
    if (s.writer) s.writer->flush();
}

void flushAll() {
    if (state().stopped.exchange(true)) return;
    flushNow();
}

// ---- signals: the handler asks the flusher thread, waits a bounded time, then chains.
constexpr int kSignals[] = {SIGSEGV, SIGABRT, SIGTERM};
constexpr int kFlushWaitMs = 3000; // below the launcher's grace period before SIGKILL
struct sigaction previousAction[NSIG];
int requestPipe[2] = {-1, -1}; // handler -> flusher
int donePipe[2] = {-1, -1};    // flusher -> handler (non-blocking read end)
pid_t owner = 0;               // a forked child has no flusher thread: it does not ask

void flusherLoop() {
    char c = 0;
    for (;;) {
        const ssize_t n = ::read(requestPipe[0], &c, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        flushNow();
        (void)!::write(donePipe[1], &c, 1);
    }
}

int64_t monotonicMs() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t); // async-signal-safe
    return int64_t(t.tv_sec) * 1000 + t.tv_nsec / 1'000'000;
}

void askFlusherAndWait() {
    if (requestPipe[1] < 0 || getpid() != owner) return;
    char drain[16];
    while (::read(donePipe[0], drain, sizeof drain) > 0) {
    }
    const char c = 1;
    if (::write(requestPipe[1], &c, 1) != 1) return;
    const int64_t deadline = monotonicMs() + kFlushWaitMs;
    for (int64_t left = kFlushWaitMs; left > 0; left = deadline - monotonicMs()) {
        pollfd p{donePipe[0], POLLIN, 0};
        const int r = ::poll(&p, 1, int(left));
        if (r > 0 || (r < 0 && errno != EINTR)) return;
    }
}

extern "C" void onSignal(int sig, siginfo_t* info, void* context) {
    const int savedErrno = errno;
    askFlusherAndWait();
    const struct sigaction& old = previousAction[sig];
    if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction) {
        old.sa_sigaction(sig, info, context);
    } else if (old.sa_handler == SIG_DFL) {
        // Die as the program would have: the signal is blocked here, so it is delivered with
        // the default action as soon as this handler returns.
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, nullptr);
        raise(sig);
    } else if (old.sa_handler != SIG_IGN) {
        old.sa_handler(sig);
    }
    errno = savedErrno;
}

void installSignalHandlers() {
    if (::pipe2(requestPipe, O_CLOEXEC) != 0 || ::pipe2(donePipe, O_CLOEXEC) != 0 ||
        ::fcntl(donePipe[0], F_SETFL, O_NONBLOCK) != 0) {
        say("cannot create the flush pipes; records still in CUPTI are lost on a signal");
        requestPipe[1] = -1;
    } else {
        // The flusher starts with every signal blocked, so no handler ever runs on it.
        sigset_t all, saved;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &saved);
        try {
            std::thread(flusherLoop).detach();
        } catch (const std::exception&) {
            say("cannot start the flusher thread; records still in CUPTI are lost on a signal");
            requestPipe[1] = -1;
        }
        pthread_sigmask(SIG_SETMASK, &saved, nullptr);
    }
    owner = getpid();
    for (const int sig : kSignals) {
        struct sigaction old {};
        if (sigaction(sig, nullptr, &old) != 0) continue;
        if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue; // stays ignored
        previousAction[sig] = old;
        struct sigaction sa {};
        sa.sa_sigaction = onSignal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, nullptr);
    }
}

bool wanted(const std::string& kinds, const char* kind) {
    if (kinds.empty()) return true;
    const std::string list = "," + kinds + ",";
    return list.find(std::string(",") + kind + ",") != std::string::npos;
}

} // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    const char* dir = std::getenv("STEPSCOPE_CUPTI_DIR");
    if (!dir || !*dir) {
        say("STEPSCOPE_CUPTI_DIR is not set; not recording (start the program with "
            "stepscope-cli capture -- PROGRAM)");
        return 1;
    }
    const std::string kinds = std::getenv("STEPSCOPE_CUPTI_KINDS") ?: "";
    State& s = state();
    const pid_t pid = getpid();
    auto writer =
        std::make_unique<RecordFileWriter>(std::string(dir) + "/" + std::to_string(pid) + ".rec");
    if (!writer->ok()) {
        say(writer->error());
        return 1;
    }
    ProcessRecord process;
    process.pid = uint32_t(pid);
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    process.hostname = host;
    {
        std::ifstream cmdline("/proc/self/cmdline");
        std::string arg;
        while (std::getline(cmdline, arg, '\0'))
            process.command += (process.command.empty() ? "" : " ") + arg;
    }
    process.wallStartNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
    uint64_t now = 0;
    if (const CUptiResult r = cuptiGetTimestamp(&now); r != CUPTI_SUCCESS) {
        say("CUPTI cannot start: " + cuptiError(r));
        return 1;
    }
    process.cuptiStartNs = now;
    writer->add(process);
    writer->flush();

    // Thread ids as the OS numbers them (gettid), not CUPTI's default pthread_self() values
    // (cupti_activity.h, CUpti_ActivityThreadIdType): host lines then carry the ids that top,
    // py-spy and Kineto show, and /proc/self/task/<tid>/comm gives their names.
    if (const CUptiResult r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
        r != CUPTI_SUCCESS)
        say("CUPTI cannot report OS thread ids (" + cuptiError(r) +
            "); host lines will be numbered by pthread id and unnamed");
    if (const CUptiResult r = cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
        r != CUPTI_SUCCESS) {
        say("CUPTI cannot start: " + cuptiError(r));
        return 1;
    }
    std::vector<CUpti_ActivityKind> enable = {CUPTI_ACTIVITY_KIND_DEVICE,
                                              CUPTI_ACTIVITY_KIND_OVERHEAD};
    if (wanted(kinds, "kernels")) enable.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (wanted(kinds, "memcpy")) {
        enable.push_back(CUPTI_ACTIVITY_KIND_MEMCPY);
        enable.push_back(CUPTI_ACTIVITY_KIND_MEMSET);
    }
    if (wanted(kinds, "memory")) enable.push_back(CUPTI_ACTIVITY_KIND_MEMORY2);
    if (wanted(kinds, "api")) {
        enable.push_back(CUPTI_ACTIVITY_KIND_RUNTIME);
        enable.push_back(CUPTI_ACTIVITY_KIND_DRIVER);
    }
    if (wanted(kinds, "nvtx")) enable.push_back(CUPTI_ACTIVITY_KIND_MARKER);
    size_t enabled = 0;
    CUptiResult firstError = CUPTI_SUCCESS;
    for (const CUpti_ActivityKind kind : enable) {
        const CUptiResult r = cuptiActivityEnable(kind);
        if (r == CUPTI_SUCCESS)
            ++enabled;
        else if (firstError == CUPTI_SUCCESS)
            firstError = r;
    }
    if (enabled == 0) {
        // Nothing can be recorded (no driver or GPU, no permission): leave no record file, so
        // the launcher says the program recorded nothing and points here.
        say("CUPTI cannot record anything: " + cuptiError(firstError) +
            (firstError == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                 ? ""
                 : " (is there an NVIDIA driver and a GPU this process may use?)"));
        const std::string path = std::string(dir) + "/" + std::to_string(pid) + ".rec";
        writer.reset();
        ::unlink(path.c_str());
        return 1;
    }
    if (enabled < enable.size())
        say("CUPTI refused some record kinds (" + cuptiError(firstError) +
            "); recording the others");
    {
        const std::lock_guard lock(s.mutex);
        s.writer = std::move(writer);
    }
    std::atexit(flushAll);
    installSignalHandlers();
    return 1;
}
