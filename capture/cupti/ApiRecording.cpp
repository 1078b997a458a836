#include "capture/cupti/ApiRecording.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "capture/ApiCallFilter.h"
#include "capture/cupti/InjectionState.h"

namespace stepscope::capture::injection {

namespace {

// Once per thread, at its first recorded call; later calls cost one thread-local test.
void CUPTIAPI onApiCall(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {
    static thread_local bool named = false;
    if (named) return;
    named = true;
    char name[17] = {}; // the kernel's limit: 16 bytes with the terminating zero
    ::prctl(PR_GET_NAME, name);
    const uint32_t tid = uint32_t(::gettid());
    const LockedState s;
    if (s->writer && s->threadsNamed.insert(tid).second) s->writer->add(ThreadRecord{tid, name});
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
