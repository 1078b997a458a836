#include "capture/cupti/ApiRecording.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "capture/ApiCallFilter.h"
#include "capture/cupti/InjectionState.h"

namespace stepscope::capture::injection {

namespace {

// Names read on the program's threads, handed to the writer without a lock: the callback runs
// inside a CUDA call, where waiting for the state's lock (held by a buffer's conversion inside
// CUPTI) could deadlock. Threads past the last slot are named late (ActivityConversion).
struct NameSlot {
    std::atomic<bool> ready{false};
    uint32_t tid = 0;
    char name[16] = {}; // the kernel's limit, with the terminating zero
};
constexpr size_t kNameSlots = 4096;
NameSlot nameSlots[kNameSlots];
std::atomic<size_t> slotsTaken{0};
size_t slotsWritten = 0; // with the state locked

// Once per thread, at its first recorded call; later calls cost one thread-local test.
void CUPTIAPI onApiCall(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {
    static thread_local bool named = false;
    if (named) return;
    named = true;
    const size_t i = slotsTaken.fetch_add(1, std::memory_order_relaxed);
    if (i >= kNameSlots) return;
    NameSlot& slot = nameSlots[i];
    ::prctl(PR_GET_NAME, slot.name);
    slot.name[sizeof slot.name - 1] = 0;
    slot.tid = uint32_t(::gettid());
    slot.ready.store(true, std::memory_order_release);
}

struct ApiDomain {
    CUpti_CallbackDomain domain;
    CUpti_ActivityKind kind;
    ApiRecord::Domain recordDomain;
    CUpti_CallbackId size; // the ids are 1 .. size - 1 (cupti_*_cbid.h)
};

constexpr ApiDomain kDomains[] = {{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_ACTIVITY_KIND_RUNTIME,
                                   ApiRecord::Domain::Runtime, CUPTI_RUNTIME_TRACE_CBID_SIZE},
                                  {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_ACTIVITY_KIND_DRIVER,
                                   ApiRecord::Domain::Driver, CUPTI_DRIVER_TRACE_CBID_SIZE}};

} // namespace

void writeThreadNames(State& s) {
    const size_t taken = std::min(slotsTaken.load(std::memory_order_relaxed), kNameSlots);
    for (; slotsWritten < taken; ++slotsWritten) {
        const NameSlot& slot = nameSlots[slotsWritten];
        if (!slot.ready.load(std::memory_order_acquire)) break; // its thread is filling it
        if (s.writer && s.threadsNamed.insert(slot.tid).second)
            s.writer->add(ThreadRecord{slot.tid, slot.name});
    }
}

CUptiResult enableApiRecords(bool everyCall) {
    CUpti_SubscriberHandle subscriber = nullptr;
    if (const CUptiResult r = cuptiSubscribe(&subscriber, onApiCall, nullptr); r != CUPTI_SUCCESS) {
        // Another CUPTI tool in the program holds the one subscription CUPTI allows.
        say("cannot subscribe to CUDA API callbacks (" + cuptiError(r) +
            "); threads are named when their records are written, if they still run then");
        subscriber = nullptr;
    }
    CUptiResult first = CUPTI_SUCCESS;
    const auto note = [&first](CUptiResult r) {
        if (first == CUPTI_SUCCESS) first = r;
    };
    for (const ApiDomain& d : kDomains) {
        if (everyCall) {
            note(cuptiActivityEnable(d.kind));
            if (subscriber) cuptiEnableDomain(1, subscriber, d.domain);
            continue;
        }
        // The runtime's calls are kept but for a few queries: enable the kind, then turn those
        // off (a kind enabled later would override per-call settings made before it). Of the
        // driver's, few are kept: enable them one by one.
        const bool runtime = d.domain == CUPTI_CB_DOMAIN_RUNTIME_API;
        if (runtime) note(cuptiActivityEnable(d.kind));
        for (CUpti_CallbackId cbid = 1; cbid < d.size; ++cbid) {
            const char* name = nullptr;
            if (cuptiGetCallbackName(d.domain, cbid, &name) != CUPTI_SUCCESS || !name) continue;
            const bool recorded = recordedByDefault(d.recordDomain, name);
            if (runtime && !recorded) cuptiActivityEnableRuntimeApi(cbid, 0);
            if (!runtime && recorded) note(cuptiActivityEnableDriverApi(cbid, 1));
            if (recorded && subscriber) cuptiEnableCallback(1, subscriber, d.domain, cbid);
        }
    }
    return first;
}

} // namespace stepscope::capture::injection
