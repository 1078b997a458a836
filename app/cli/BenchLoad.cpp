// `stepscope-cli bench load`: XSpace load speed and memory on synthetic profiles, beside
// protobuf's generic parser on the same bytes, measured in the same run. One JSON line per size.

#include <QTemporaryDir>

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>

#include "app/cli/Arguments.h"
#include "app/cli/Commands.h"
#include "model/ProfileLoader.h"
#include "model/SyntheticProfile.h"
#include "xplane.pb.h"

namespace stepscope::cli {

namespace {

constexpr int kRepeats = 3; // best of
constexpr uint64_t kHundredMillion = 100000000;

constexpr const char* kUsage =
    "usage: stepscope-cli bench load [--events-list N,N,..] [--with-100m] [--gpus G]\n"
    "  --events-list  profile sizes in events (default 1000000,10000000)\n"
    "  --with-100m    add a 100M event profile (several GB of memory and disk)\n"
    "  --gpus G       GPUs per synthetic host (default 2)\n";

double seconds(std::chrono::steady_clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

// Resident set size now, from /proc/self/statm (0 where that is not available).
int64_t residentBytes() {
    std::ifstream statm("/proc/self/statm");
    int64_t size = 0, resident = 0;
    if (!(statm >> size >> resident)) return 0;
    return resident * int64_t(::sysconf(_SC_PAGESIZE));
}

int benchOne(uint64_t requested, int gpus) {
    QTemporaryDir dir;
    if (!dir.isValid()) {
        std::fprintf(stderr, "stepscope-cli bench load: cannot create a temporary folder: %s\n",
                     qPrintable(dir.errorString()));
        return 1;
    }
    SyntheticOptions options;
    options.events = requested;
    options.gpus = gpus;
    const std::string logDir = dir.path().toStdString();
    const std::string error = writeSyntheticLogDir(options, 1, logDir, "bench");
    if (!error.empty()) {
        std::fprintf(stderr, "stepscope-cli bench load: %s\n", error.c_str());
        return 1;
    }
    const HostFile file{"worker0", logDir + "/plugins/profile/bench/worker0.xplane.pb"};

    // Our loader, from the file (in the page cache: it was just written).
    double loadBest = std::numeric_limits<double>::infinity();
    uint64_t events = 0;
    size_t profileBytes = 0;
    int64_t rssGrowth = 0;
    for (int i = 0; i < kRepeats; ++i) {
        const int64_t rssBefore = residentBytes();
        const auto t0 = std::chrono::steady_clock::now();
        LoadResult r = loadHosts({file});
        const double t = seconds(std::chrono::steady_clock::now() - t0);
        if (!r.ok()) {
            std::fprintf(stderr, "stepscope-cli bench load: %s\n", r.error.c_str());
            return 1;
        }
        // Measured on the first run only: later runs reuse memory the allocator kept.
        if (i == 0) rssGrowth = residentBytes() - rssBefore;
        loadBest = std::min(loadBest, t);
        events = r.profile->eventCount();
        profileBytes = r.profile->memoryBytes();
    }

    // The baseline: protobuf's generic parser on the same bytes, already in memory.
    std::string bytes;
    {
        std::ifstream in(file.path, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    std::optional<double> protobufBest;
    // ParseFromString takes an int size: protobuf cannot parse a message of 2 GiB or more.
    if (bytes.size() < (size_t(1) << 31)) {
        for (int i = 0; i < kRepeats; ++i) {
            tensorflow::profiler::XSpace space;
            const auto t0 = std::chrono::steady_clock::now();
            const bool ok = space.ParseFromString(bytes);
            const double t = seconds(std::chrono::steady_clock::now() - t0);
            if (!ok) {
                std::fprintf(stderr, "stepscope-cli bench load: protobuf could not parse %s\n",
                             file.path.c_str());
                return 1;
            }
            protobufBest = std::min(protobufBest.value_or(t), t);
        }
    }

    const double perEvent = events ? 1.0 / double(events) : 0.0;
    std::printf("{\"bench\":\"load\",\"events\":%llu,\"requested_events\":%llu,"
                "\"file_bytes\":%zu,\"load_seconds\":%.4f,\"events_per_second\":%.0f,"
                "\"bytes_per_event\":%.1f,\"rss_bytes_per_event\":%.1f,",
                static_cast<unsigned long long>(events), static_cast<unsigned long long>(requested),
                bytes.size(), loadBest, double(events) / loadBest, double(profileBytes) * perEvent,
                double(rssGrowth) * perEvent);
    if (protobufBest)
        std::printf("\"protobuf_parse_seconds\":%.4f,\"ratio_vs_protobuf\":%.3f}\n", *protobufBest,
                    loadBest / *protobufBest);
    else
        std::printf("\"protobuf_parse_seconds\":null,\"ratio_vs_protobuf\":null,"
                    "\"protobuf_note\":\"over protobuf's 2 GiB message limit\"}\n");
    std::fflush(stdout);
    return 0;
}

} // namespace

int runBenchLoad(const std::vector<std::string>& args) {
    std::vector<uint64_t> sizes{1000000, 10000000};
    int gpus = 2;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (a == "--with-100m") {
            sizes.push_back(kHundredMillion);
        } else if (a == "--events-list" && i + 1 < args.size()) {
            const auto list = parseCountList(args[++i], 1, kMaxSyntheticEvents);
            if (!list) {
                std::fprintf(stderr,
                             "stepscope-cli bench load: --events-list takes whole "
                             "numbers from 1 to 200000000, comma separated\n%s",
                             kUsage);
                return 2;
            }
            sizes = *list;
        } else if (a == "--gpus" && i + 1 < args.size()) {
            const auto g = parseCount(args[++i], 1, 64);
            if (!g) {
                std::fprintf(stderr, "stepscope-cli bench load: --gpus must be 1 to 64\n%s",
                             kUsage);
                return 2;
            }
            gpus = int(*g);
        } else {
            std::fprintf(stderr, "stepscope-cli bench load: unexpected argument '%s'\n%s",
                         a.c_str(), kUsage);
            return 2;
        }
    }
    for (uint64_t n : sizes)
        if (const int rc = benchOne(n, gpus); rc != 0) return rc;
    return 0;
}

} // namespace stepscope::cli
