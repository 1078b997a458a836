#include "capture/cupti/ActivityConversion.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>

#include "capture/cupti/ApiRecording.h"
#include "capture/cupti/InjectionState.h"

namespace stepscope::capture::injection {

namespace {

constexpr size_t kBufferBytes = 8 << 20;

// Demangled once per name (State::kernelNames).
const std::string& demangle(State& s, const char* name) {
    if (!name) name = "unknown kernel";
    auto it = s.kernelNames.find(std::string_view(name));
    if (it == s.kernelNames.end()) {
        int status = 0;
        char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
        it = s.kernelNames.emplace(name, status == 0 && out ? out : name).first;
        std::free(out);
    }
    return it->second;
}

// A thread that no API callback named (ApiRecording.h): one that only marks NVTX ranges, made its
// first calls before the library subscribed, or came after the callback's last slot. Its name
// now, if it still runs ("" if not).
void nameLate(State& s, uint32_t tid) {
    if (!s.threadsNamed.insert(tid).second) return;
    std::ifstream comm("/proc/self/task/" + std::to_string(tid) + "/comm");
    std::string name;
    std::getline(comm, name);
    s.writer->add(ThreadRecord{tid, name});
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
        r.name = demangle(s, k->name);
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
        nameLate(s, api->threadId);
        w.add(ApiRecord{api->start, api->end, api->threadId, api->correlationId,
                        runtime ? ApiRecord::Domain::Runtime : ApiRecord::Domain::Driver, api->cbid,
                        name ? name : "CUDA API " + std::to_string(api->cbid)});
        break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(a);
        if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
            nameLate(s, m->objectId.pt.threadId);
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

} // namespace

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer, size_t size,
                              size_t validSize) {
    {
        const LockedState s;
        if (s->writer) {
            writeThreadNames(*s);
            CUpti_Activity* record = nullptr;
            while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS)
                convert(*s, record);
            size_t dropped = 0;
            if (cuptiActivityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS &&
                dropped > 0)
                s->writer->add(DroppedRecord{0, dropped});
            s->writer->flush(); // one frame per buffer, on disk now
        }
    }
    std::free(buffer);
}

} // namespace stepscope::capture::injection
