// libstepscope_cupti.so: loaded into a CUDA program through CUDA_INJECTION64_PATH (the driver
// calls InitializeInjection), it enables CUPTI activity records and streams each completed
// buffer to STEPSCOPE_CUPTI_DIR/<pid>.rec as one zstd frame (capture/RecordFile.h), so a crash
// of the program loses at most the buffers in flight. Flushed at exit and on SIGSEGV, SIGABRT and
// SIGTERM. NVTX ranges arrive as CUPTI markers when NVTX_INJECTION64_PATH names libcupti (the
// launcher sets it). Without STEPSCOPE_CUPTI_DIR, or where CUPTI cannot start (no driver, no
// permission), it says why on stderr once and leaves the program alone.
//
// STEPSCOPE_CUPTI_KINDS (comma-separated; default all): kernels, memcpy, memory, api, nvtx.

#include <cupti.h>

#include <cxxabi.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "capture/RecordFile.h"

namespace {

using namespace stepscope::capture;

constexpr size_t kBufferBytes = 8 << 20;

struct State {
    std::mutex mutex;
    std::unique_ptr<RecordFileWriter> writer;
    std::set<uint32_t> threadsNamed;
    std::map<uint32_t, CUpti_ActivityMarker2> openMarkers; // NVTX start markers by id
    bool stopped = false;
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
}

void flushAll() {
    State& s = state();
    if (s.stopped) return;
    s.stopped = true;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    const std::lock_guard lock(s.mutex);
    if (s.writer) s.writer->flush();
}

extern "C" void onFatalSignal(int sig) {
    // Best effort: the program is dying anyway; keep what CUPTI still holds, then die as it would.
    flushAll();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
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
    for (const int sig : {SIGSEGV, SIGABRT, SIGTERM}) std::signal(sig, onFatalSignal);
    return 1;
}
    // Thread ids as the OS numbers them (gettid), not CUPTI's default pthread_self() values
    // (cupti_activity.h, CUpti_ActivityThreadIdType): host lines then carry the ids that top,
    // py-spy and Kineto show, and /proc/self/task/<tid>/comm gives their names.
    if (const CUptiResult r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
        r != CUPTI_SUCCESS)
        say("CUPTI cannot report OS thread ids (" + cuptiError(r) +
            "); host lines will be numbered by pthread id and unnamed");
