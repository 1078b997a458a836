// libFuzzer target for the Kineto / Chrome trace JSON importer: any bytes (JSON or gzip) must
// give either a profile that satisfies the model's invariants or an error message, never a crash;
// on valid JSON, the same outcome read whole, by the default windows and by windows of 1 to 61
// bytes.
// Built with clang only:
//   cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DSTEPSCOPE_FUZZ=ON
//   ninja -C build-fuzz fuzz_kineto_importer && build-fuzz/tests/fuzz_kineto_importer
//   -max_total_time=1800 -dict=tests/fuzz/kineto.dict CORPUS_DIR
#include <cstdint>
#include <cstdlib>

#include <simdjson.h>

#include "model/ProfileBuilder.h"
#include "model/kineto/KinetoImporter.h"

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
    if (wholeError.empty()) a = whole.finish();
    if (windowsError.empty()) b = windows.finish();
    if (valid && a && b &&
        (a->eventCount() != b->eventCount() || a->strings().size() != b->strings().size() ||
         a->flows().size() != b->flows().size()))
        std::abort();
    if (!error.empty()) return 0;
    const std::unique_ptr<Profile> profile = builder.finish();
    if (!profile) {
        if (builder.error().empty()) std::abort();
        return 0;
    }
    const Profile& p = *profile;
    for (size_t t = 0; t < p.tracks().size(); ++t)
        for (uint32_t d = 0; d < p.tracks()[t].depthCount; ++d) {
            const EventRange er = p.eventsAt(uint32_t(t), d);
            for (EventIndex e = er.begin; e < er.end; ++e) {
                if (p.end(e) < p.start(e) || p.start(e) < 0 || p.end(e) > p.durationPs())
                    std::abort();
                if (e > er.begin && p.start(e) < p.end(e - 1)) std::abort();
                for (const StatValue& s : p.eventStats(e)) (void)s.format(p.strings());
                (void)p.name(e);
                if (p.memoryEvents().find(e)) (void)p.memoryEvent(e);
            }
        }
    for (const Flow& f : p.flows())
        if (f.launch >= p.eventCount() || f.target >= p.eventCount()) std::abort();
    return 0;
}
