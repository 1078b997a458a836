// `stepscope-cli bench load`: XSpace load speed and memory on synthetic profiles, beside
// protobuf's generic parser on the same bytes and beside the load on one thread, measured in the
// same run. One JSON line per size and thread count.

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>

#include "bench/BenchRepeat.h"
#include "bench/Benches.h"
#include "bench/HugePageReport.h"
#include "bench/StageTimes.h"
#include "bench/TempDir.h"
#include "model/CountText.h"
#include "model/ParallelFor.h"
#include "model/ProfileLoader.h"
#include "model/synthetic/SyntheticProfile.h"
#include "xplane.pb.h"

namespace stepscope::bench {

namespace {

constexpr int kRepeats = 3; // best of
// Profiles from this size on (about 50M events of the synthetic mix) are loaded once per thread
// count: a load takes most of a minute there.
constexpr size_t kRepeatOnceFromBytes = size_t(3) << 30;
constexpr uint64_t kHundredMillion = 100000000;

constexpr const char* kUsage =
    "usage: stepscope-cli bench load [--events-list N,N,..] [--with-100m] [--gpus G]\n"
    "                                [--threads-list T,T,..] [--file PATH]\n"
    "  --events-list   profile sizes in events (default 1000000,10000000)\n"
    "  --with-100m     add a 100M event profile (about 7 GB of disk, twice that while it is\n"
    "                  written, and 10 GB of memory)\n"
    "  --gpus G        GPUs per synthetic host (default 2)\n"
    "  --threads-list  threads to load with; the first is the baseline of `speedup`\n"
    "                  (default 1 and every core this process may use, e.g. 1,2)\n"
    "  --file PATH     measure on this .xplane.pb instead of synthetic profiles\n";

// Resident set size now, from /proc/self/statm (0 where that is not available).
int64_t residentBytes() {
    std::ifstream statm("/proc/self/statm");
    int64_t size = 0, resident = 0;
    if (!(statm >> size >> resident)) return 0;
    return resident * int64_t(::sysconf(_SC_PAGESIZE));
}

// The 1-minute load average: on a shared machine, how much else wanted the cores.
double loadAverage() {
    std::ifstream in("/proc/loadavg");
    double load = 0;
    in >> load;
    return load;
}

// The baseline: protobuf's generic parser on the same bytes, already in memory. Null over
// protobuf's 2 GiB message limit (ParseFromString takes an int size).
std::optional<double> protobufParseSeconds(const std::string& path, size_t fileBytes,
                                           bool& failed) {
    failed = false;
    if (fileBytes >= (size_t(1) << 31)) return std::nullopt;
    std::string bytes;
    {
        std::ifstream in(path, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    std::optional<double> best;
    for (int i = 0; i < kRepeats; ++i) {
        tensorflow::profiler::XSpace space;
        const auto t0 = std::chrono::steady_clock::now();
        const bool ok = space.ParseFromString(bytes);
        const double t = seconds(std::chrono::steady_clock::now() - t0);
        if (!ok) {
            failed = true;
            return std::nullopt;
        }
        best = std::min(best.value_or(t), t);
    }
    return best;
}

// Load figures of one XSpace file; `requested` is the synthetic size asked for (0: a given file).
int benchFile(const HostFile& file, uint64_t requested, const std::vector<uint64_t>& threadCounts) {
    std::error_code ec;
    const size_t fileBytes = std::filesystem::file_size(file.path, ec);
    if (ec) {
        std::fprintf(stderr, "stepscope-cli bench load: cannot read %s: %s\n", file.path.c_str(),
                     ec.message().c_str());
        return 1;
    }

    // Our loader, from the file (in the page cache: it was just written), with each thread
    // count; then the baseline (its allocations would otherwise hide our loader's RSS growth).
    struct Measured {
        unsigned threads = 1;
        double loadSeconds = std::numeric_limits<double>::infinity();
        double cpuSeconds = 0; // of the fastest run, all threads
        std::string stages;    // of the fastest run (StageTimes::json)
        uint64_t events = 0;
        ProfileMemory memory;
        int64_t rssGrowth = 0;
    };
    const int repeats = fileBytes >= kRepeatOnceFromBytes ? 1 : kRepeats;
    const int64_t rssBaseline = residentBytes();
    std::vector<Measured> measured;
    for (uint64_t threads : threadCounts) {
        Measured m;
        m.threads = unsigned(threads);
        for (int i = 0; i < repeats; ++i) {
            const double cpu0 = processCpuSeconds();
            const auto t0 = std::chrono::steady_clock::now();
            StageTimes stages(t0, cpu0);
            LoadResult r = loadHosts({file}, &stages.progress(), m.threads);
            const auto t1 = std::chrono::steady_clock::now();
            const double cpu1 = processCpuSeconds();
            stages.finish(t1, cpu1);
            const double t = seconds(t1 - t0);
            const double cpu = cpu1 - cpu0;
            if (!r.ok()) {
                std::fprintf(stderr, "stepscope-cli bench load: %s\n", r.error.c_str());
                return 1;
            }
            // The process's growth since before its first load, holding this profile (the one
            // of the run before is freed): what a process that loaded it keeps, including any
            // memory the allocator kept from earlier loads. First run of each thread count.
            if (i == 0) m.rssGrowth = residentBytes() - rssBaseline;
            if (t < m.loadSeconds) {
                m.loadSeconds = t;
                m.cpuSeconds = cpu;
                m.stages = stages.json();
            }
            m.events = r.profile->eventCount();
            m.memory = r.profile->memoryUsage();
        }
        measured.push_back(m);
    }

    bool protobufFailed = false;
    const std::optional<double> protobufBest =
        protobufParseSeconds(file.path, fileBytes, protobufFailed);
    if (protobufFailed) {
        std::fprintf(stderr, "stepscope-cli bench load: protobuf could not parse %s\n",
                     file.path.c_str());
        return 1;
    }

    for (const Measured& m : measured) {
        const double perEvent = m.events ? 1.0 / double(m.events) : 0.0;
        auto bpe = [&](size_t bytes) { return double(bytes) * perEvent; };
        std::printf("{\"bench\":\"load\",\"events\":%llu,\"requested_events\":%s,"
                    "\"file_bytes\":%zu,\"threads\":%u,\"cores\":%u,\"load_average\":%.2f,"
                    "\"repeats\":%d,\"load_seconds\":%.4f,\"cpu_seconds\":%.4f,"
                    "\"events_per_second\":%.0f,\"baseline_threads\":%u,\"speedup\":%.3f,"
                    "\"bytes_per_event\":%.1f,\"rss_bytes_per_event\":%.1f,"
                    "\"memory_bytes_per_event\":{\"event_columns\":%.2f,\"event_stats\":%.2f,"
                    "\"hot_stats\":%.2f,\"flows\":%.2f,\"strings\":%.2f,\"structure\":%.2f},"
                    "\"stages\":%s,\"huge_pages\":%s,",
                    static_cast<unsigned long long>(m.events),
                    requested ? std::to_string(requested).c_str() : "null", fileBytes, m.threads,
                    availableCores(), loadAverage(), repeats, m.loadSeconds, m.cpuSeconds,
                    double(m.events) / m.loadSeconds, measured.front().threads,
                    measured.front().loadSeconds / m.loadSeconds, bpe(m.memory.total()),
                    double(m.rssGrowth) * perEvent, bpe(m.memory.eventColumns),
                    bpe(m.memory.eventStats), bpe(m.memory.hotStats), bpe(m.memory.flows),
                    bpe(m.memory.strings), bpe(m.memory.structure), m.stages.c_str(),
                    hugePageReport().c_str());
        if (protobufBest)
            std::printf("\"protobuf_parse_seconds\":%.4f,\"ratio_vs_protobuf\":%.3f}\n",
                        *protobufBest, m.loadSeconds / *protobufBest);
        else
            std::printf("\"protobuf_parse_seconds\":null,\"ratio_vs_protobuf\":null,"
                        "\"protobuf_note\":\"over protobuf's 2 GiB message limit\"}\n");
    }
    std::fflush(stdout);
    return 0;
}

int benchSynthetic(uint64_t requested, int gpus, const std::vector<uint64_t>& threadCounts) {
    const TempDir dir;
    if (!dir.ok()) {
        std::fprintf(stderr, "stepscope-cli bench load: %s\n", dir.error().c_str());
        return 1;
    }
    SyntheticOptions options;
    options.events = requested;
    options.gpus = gpus;
    const std::string logDir = dir.path();
    const std::string error = writeSyntheticLogDir(options, 1, logDir, "bench");
    if (!error.empty()) {
        std::fprintf(stderr, "stepscope-cli bench load: %s\n", error.c_str());
        return 1;
    }
    return benchFile({"worker0", logDir + "/plugins/profile/bench/worker0.xplane.pb"}, requested,
                     threadCounts);
}

} // namespace

int runBenchLoad(const std::vector<std::string>& args) {
    std::vector<uint64_t> sizes{1000000, 10000000};
    std::string file;
    std::vector<uint64_t> threadCounts{1};
    if (availableCores() > 1) threadCounts.push_back(availableCores());
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
        } else if (a == "--file" && i + 1 < args.size()) {
            file = args[++i];
        } else if (a == "--threads-list" && i + 1 < args.size()) {
            const auto list = parseCountList(args[++i], 1, 256);
            if (!list) {
                std::fprintf(stderr,
                             "stepscope-cli bench load: --threads-list takes whole numbers from "
                             "1 to 256, comma separated\n%s",
                             kUsage);
                return 2;
            }
            threadCounts = *list;
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
    if (!file.empty()) return benchFile({"host", file}, 0, threadCounts);
    for (uint64_t n : sizes)
        if (const int rc = benchSynthetic(n, gpus, threadCounts); rc != 0) return rc;
    return 0;
}

} // namespace stepscope::bench
