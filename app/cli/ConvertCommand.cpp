// `stepscope-cli convert PATH [--to chrome-json] OUT.json[.gz]`: writes a loaded profile (XSpace
// or Kineto) as Chrome trace JSON for Perfetto UI and chrome://tracing.

#include <cstdio>

#include "app/cli/CliCache.h"
#include "app/cli/Commands.h"
#include "model/ProfileLoader.h"
#include "model/kineto/ChromeTraceWriter.h"

namespace stepscope::cli {

namespace {

constexpr const char* kUsage =
    "usage: stepscope-cli convert PATH [--to chrome-json] [--no-cache] OUT.json[.gz]\n"
    "  PATH  a TensorBoard log directory, run folder, .xplane.pb or trace .json[.gz]\n"
    "  OUT   the Chrome trace JSON to write (gzip-compressed when it ends in .gz)\n";

} // namespace

int runConvert(const std::vector<std::string>& args) {
    std::string in, out, format = "chrome-json";
    bool noCache = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (a == "--no-cache") {
            noCache = true;
        } else if (a == "--to" && i + 1 < args.size()) {
            format = args[++i];
        } else if (!a.starts_with("--") && in.empty()) {
            in = a;
        } else if (!a.starts_with("--") && out.empty()) {
            out = a;
        } else {
            std::fprintf(stderr, "stepscope-cli convert: unexpected argument '%s'\n%s", a.c_str(),
                         kUsage);
            return 2;
        }
    }
    if (format != "chrome-json") {
        std::fprintf(stderr, "stepscope-cli convert: unknown format '%s' (known: chrome-json)\n%s",
                     format.c_str(), kUsage);
        return 2;
    }
    if (in.empty() || out.empty()) {
        std::fprintf(stderr, "stepscope-cli convert: needs PATH and OUT\n%s", kUsage);
        return 2;
    }
    const auto cache = noCache ? nullptr : openCliCache("stepscope-cli convert");
    const LoadResult r = loadPathCached(in, cache.get());
    if (!r.ok()) {
        std::fprintf(stderr, "stepscope-cli convert: %s\n", r.error.c_str());
        return 1;
    }
    const std::string error = writeChromeTrace(*r.profile, out);
    if (!error.empty()) {
        std::fprintf(stderr, "stepscope-cli convert: %s\n", error.c_str());
        return 1;
    }
    std::printf("wrote %s: %zu events, %zu flows\n", out.c_str(), r.profile->eventCount(),
                r.profile->flows().size());
    return 0;
}

} // namespace stepscope::cli
