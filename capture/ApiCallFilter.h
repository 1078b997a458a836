#pragma once

// Which CUDA API calls the capture records by default (the injection library asks CUPTI for
// these records only, unless the user asks for every call). On an H200 transformer the API
// records were all of the capture's overhead, and most of them were queries made thousands of
// times per step (cuGetProcAddress, cuCtxGetCurrent, cudaGetDevice, cuDevicePrimaryCtxGetState;
// ../shared/gpu-workloads/README.md). Kept:
//   - every runtime call but the queries: names with "Get" after "cuda" (cudaGetDevice,
//     cudaDeviceGetAttribute, cudaGetLastError, cudaStreamGetCaptureInfo, ...), cudaOccupancy*,
//     cudaPeekAtLastError, cudaStreamIsCapturing, cudaThreadExchangeStreamCaptureMode;
//   - the driver calls that launch, copy, set, allocate, free or map memory, load code, or
//     synchronise: cuLaunch*, cuGraphLaunch, cuGraphInstantiate*, cuGraphUpload, cuMemcpy*,
//     cuMemset*, cuMemAlloc*, cuMemFree*, cuMemHostAlloc, cuMemCreate, cuMemRelease, cuMemMap,
//     cuMemUnmap, cuMemPrefetch*, cuModuleLoad*, cuLibraryLoad*, cuCtxSynchronize,
//     cuStreamSynchronize, cuEventSynchronize, cuEventRecord*, cuStreamWaitEvent,
//     cuStreamWaitValue*, cuStreamWriteValue*, cuStreamBatchMemOp*.
// Names are CUPTI's callback names (cuptiGetCallbackName): a version suffix ("_v3020",
// "_v2") and per-thread-stream variants ("_ptsz", "_ptds") do not change the answer.

#include <string_view>

#include "capture/CuptiRecords.h"

namespace stepscope::capture {

bool recordedByDefault(ApiRecord::Domain domain, std::string_view callbackName);

} // namespace stepscope::capture
