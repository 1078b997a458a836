// `stepscope-cli bench reopen`: opening a profile again from the profile cache beside loading its
// source, measured in the same run on the same synthetic profile. One JSON line per size.

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>

#include "bench/BenchRepeat.h"
#include "bench/Benches.h"
#include "bench/HugePageReport.h"
#include "bench/TempDir.h"
#include "model/CountText.h"
#include "model/ProfileCache.h"
#include "model/ProfileLoader.h"
#include "model/synthetic/SyntheticProfile.h"

namespace stepscope::bench {

namespace {

constexpr int kRepeats = 3; // best of

constexpr const char* kUsage =
    "usage: stepscope-cli bench reopen [--events-list N,N,..] [--gpus G]\n"
    "  --events-list  profile sizes in events (default 1000000,10000000)\n"
    "  --gpus G       GPUs per synthetic host (default 2)\n";

int fail(const std::string& message) {
    std::fprintf(stderr, "stepscope-cli bench reopen: %s\n", message.c_str());
    return 1;
}

int benchOne(uint64_t requested, int gpus) {
    const TempDir dir;
    if (!dir.ok()) return fail(dir.error());
    SyntheticOptions options;
    options.events = requested;
    options.gpus = gpus;
    const std::string root = dir.path();
    if (const std::string e = writeSyntheticLogDir(options, 1, root + "/logs", "bench"); !e.empty())
        return fail(e);
    const std::vector<HostFile> hosts{
        {"worker0", root + "/logs/plugins/profile/bench/worker0.xplane.pb"}};
    // The cache does not trust a file modified in the last seconds (ProfileCache::kSettleSeconds);
    // the profile was written just now, so date it an hour back, as a profile opened a second
    // time usually is.
    std::error_code ec;
    std::filesystem::last_write_time(
        hosts[0].path, std::filesystem::file_time_type::clock::now() - std::chrono::hours(1), ec);
    if (ec) return fail("cannot set the time of " + hosts[0].path + ": " + ec.message());
    const ProfileCache cache(root + "/cache", STEPSCOPE_VERSION,
                             std::numeric_limits<uint64_t>::max());

    // The source load, as a first open does it (file in the page cache: it was just written).
    double loadBest = std::numeric_limits<double>::infinity(), loadCpuBest = loadBest;
    std::shared_ptr<const Profile> source;
    for (int i = 0; i < kRepeats; ++i) {
        source.reset();
        const double c0 = processCpuSeconds();
        const auto t0 = std::chrono::steady_clock::now();
        LoadResult r = loadHosts(hosts);
        const double t = seconds(std::chrono::steady_clock::now() - t0);
        loadCpuBest = std::min(loadCpuBest, processCpuSeconds() - c0);
        if (!r.ok()) return fail(r.error);
        loadBest = std::min(loadBest, t);
        source = std::move(r.profile);
    }

    const auto w0 = std::chrono::steady_clock::now();
    const CacheKey key = cache.keyOf(hosts);
    if (const std::string e = cache.store(key, *source); !e.empty()) return fail(e);
    const double writeSeconds = seconds(std::chrono::steady_clock::now() - w0);
    const uint64_t events = source->eventCount();
    source.reset();
    const uint64_t cacheBytes = cache.info().bytes;

    // The reopen, as a second open does it: key the sources, read the cache entry.
    double reopenBest = std::numeric_limits<double>::infinity(), reopenCpuBest = reopenBest;
    for (int i = 0; i < kRepeats; ++i) {
        const double c0 = processCpuSeconds();
        const auto t0 = std::chrono::steady_clock::now();
        CachedLoad r = loadHostsCached(hosts, &cache);
        const double t = seconds(std::chrono::steady_clock::now() - t0);
        reopenCpuBest = std::min(reopenCpuBest, processCpuSeconds() - c0);
        if (!r.result.ok()) return fail(r.result.error);
        if (!r.fromCache) return fail("the reopen did not come from the cache");
        if (r.result.profile->eventCount() != events)
            return fail("the cached profile has another number of events");
        reopenBest = std::min(reopenBest, t);
    }

    std::error_code sizeError;
    const uintmax_t sourceBytes = std::filesystem::file_size(hosts[0].path, sizeError);
    std::printf("{\"bench\":\"reopen\",\"events\":%llu,\"requested_events\":%llu,"
                "\"source_bytes\":%llu,\"cache_bytes\":%llu,\"load_seconds\":%.4f,"
                "\"reopen_seconds\":%.4f,\"speedup\":%.2f,\"load_cpu_seconds\":%.4f,"
                "\"reopen_cpu_seconds\":%.4f,\"cpu_speedup\":%.2f,\"cache_write_seconds\":%.4f,"
                "\"huge_pages\":%s}\n",
                static_cast<unsigned long long>(events), static_cast<unsigned long long>(requested),
                static_cast<unsigned long long>(sizeError ? 0 : sourceBytes),
                static_cast<unsigned long long>(cacheBytes), loadBest, reopenBest,
                loadBest / reopenBest, loadCpuBest, reopenCpuBest, loadCpuBest / reopenCpuBest,
                writeSeconds, hugePageReport().c_str());
    std::fflush(stdout);
    return 0;
}

} // namespace

int runBenchReopen(const std::vector<std::string>& args) {
    std::vector<uint64_t> sizes{1000000, 10000000};
    int gpus = 2;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (a == "--events-list" && i + 1 < args.size()) {
            const auto list = parseCountList(args[++i], 1, kMaxSyntheticEvents);
            if (!list) {
                std::fprintf(stderr,
                             "stepscope-cli bench reopen: --events-list takes whole numbers "
                             "from 1 to %llu, comma separated\n%s",
                             static_cast<unsigned long long>(kMaxSyntheticEvents), kUsage);
                return 2;
            }
            sizes = *list;
        } else if (a == "--gpus" && i + 1 < args.size()) {
            const auto g = parseCount(args[++i], 1, 64);
            if (!g) {
                std::fprintf(stderr, "stepscope-cli bench reopen: --gpus takes 1 to 64\n%s",
                             kUsage);
                return 2;
            }
            gpus = int(*g);
        } else {
            std::fprintf(stderr, "stepscope-cli bench reopen: unexpected argument '%s'\n%s",
                         a.c_str(), kUsage);
            return 2;
        }
    }
    for (uint64_t n : sizes)
        if (const int rc = benchOne(n, gpus); rc != 0) return rc;
    return 0;
}

} // namespace stepscope::bench
