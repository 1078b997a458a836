// libFuzzer target for the Kineto / Chrome trace JSON importer: any bytes (JSON or gzip) must
// give either a profile that satisfies the model's invariants or an error message, never a crash;
// on valid JSON, the same outcome read whole, by the default windows and by windows of 1 to 61
// bytes. Profiles are built on one thread (see fuzz_xspace_importer.cpp). `bash .ci/fuzz` builds,
// seeds and runs it with tests/fuzz/kineto.dict.
#include <cstdint>
#include <cstdlib>

#include <simdjson.h>

#include "model/ProfileBuilder.h"
#include "model/kineto/KinetoImporter.h"
#include "tests/fuzz/ProfileInvariants.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace stepscope;
    ProfileBuilder builder;
    const uint32_t host = builder.addHost("fuzz", {});
    const std::string error = importChromeTrace(std::span(data, size), builder, host);
    // Differential: traceEvents read by small windows, cut anywhere, and the whole text as one
    // document. On valid JSON (simdjson's DOM parser, which checks everything, is the judge) they
    // must give the same message, or profiles of the same size. On invalid JSON they may differ:
    // simdjson's On-Demand reader skips unread values by counting brackets of either kind, so
    // where a text's brackets do not match, where reading resumes decides what is read next.
    simdjson::dom::parser judge;
    const bool valid = !judge.parse(reinterpret_cast<const char*>(data), size, true).error();
    ProfileBuilder whole;
    const uint32_t wholeHost = whole.addHost("fuzz", {});
    const std::string wholeError =
        importChromeTrace(std::span(data, size), whole, wholeHost, nullptr, 0, 0);
    ProfileBuilder windows;
    const uint32_t windowsHost = windows.addHost("fuzz", {});
    const size_t window = size == 0 ? 1 : 1 + data[size / 2] % 61;
    const std::string windowsError =
        importChromeTrace(std::span(data, size), windows, windowsHost, nullptr, 0, window);
    if (valid && (wholeError != error || windowsError != error)) std::abort();
    std::unique_ptr<Profile> a, b;
    if (wholeError.empty()) a = whole.finish(nullptr, 1);
    if (windowsError.empty()) b = windows.finish(nullptr, 1);
    if (valid && a && b &&
        (a->eventCount() != b->eventCount() || a->strings().size() != b->strings().size() ||
         a->flows().size() != b->flows().size()))
        std::abort();
    if (!error.empty()) return 0;
    const std::unique_ptr<Profile> profile = builder.finish(nullptr, 1);
    if (!profile) {
        if (builder.error().empty()) std::abort();
        return 0;
    }
    fuzz::requireProfileInvariants(*profile);
    return 0;
}
