#include "capture/ApiCallFilter.h"

#include <algorithm>
#include <array>

namespace stepscope::capture {

namespace {

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

// "cudaGetDevice_v3020" -> "cudaGetDevice": CUPTI's runtime names end in the version they came
// with.
std::string_view withoutVersion(std::string_view name) {
    const size_t v = name.rfind("_v");
    if (v == std::string_view::npos || v + 2 == name.size()) return name;
    const std::string_view digits = name.substr(v + 2);
    return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })
               ? name.substr(0, v)
               : name;
}

bool runtimeRecorded(std::string_view name) {
    name = withoutVersion(name);
    if (!startsWith(name, "cuda")) return true;
    const std::string_view rest = name.substr(4);
    if (rest.find("Get") != std::string_view::npos) return false;
    static constexpr std::array<std::string_view, 4> kQueries = {
        "Occupancy", "PeekAtLastError", "StreamIsCapturing", "ThreadExchangeStreamCaptureMode"};
    return std::none_of(kQueries.begin(), kQueries.end(),
                        [rest](std::string_view q) { return startsWith(rest, q); });
}

bool driverRecorded(std::string_view name) {
    static constexpr std::array<std::string_view, 24> kWork = {
        "cuLaunch",           "cuGraphLaunch",      "cuGraphInstantiate",
        "cuGraphUpload",      "cuMemcpy",           "cuMemset",
        "cuMemAlloc",         "cuMemFree",          "cuMemHostAlloc",
        "cuMemCreate",        "cuMemRelease",       "cuMemMap",
        "cuMemUnmap",         "cuMemPrefetch",      "cuModuleLoad",
        "cuLibraryLoad",      "cuCtxSynchronize",   "cuStreamSynchronize",
        "cuEventSynchronize", "cuEventRecord",      "cuStreamWaitEvent",
        "cuStreamWaitValue",  "cuStreamWriteValue", "cuStreamBatchMemOp"};
    return std::any_of(kWork.begin(), kWork.end(),
                       [name](std::string_view w) { return startsWith(name, w); });
}

} // namespace

bool recordedByDefault(ApiRecord::Domain domain, std::string_view callbackName) {
    return domain == ApiRecord::Domain::Runtime ? runtimeRecorded(callbackName)
                                                : driverRecorded(callbackName);
}

} // namespace stepscope::capture
