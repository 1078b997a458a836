// `stepscope-cli bench kineto`: Kineto (PyTorch profiler) JSON load speed and memory on synthetic
// traces, beside a bare simdjson On-Demand pass over the same file in the same run. One JSON line
// per size.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <limits>
#include <string>

#include <simdjson.h>

#include "bench/BenchRepeat.h"
#include "bench/Benches.h"
#include "bench/HugePageReport.h"
#include "bench/TempDir.h"
#include "model/CountText.h"
#include "model/ProfileLoader.h"

namespace stepscope::bench {

namespace {

constexpr int kRepeats = 3; // best of

constexpr const char* kUsage =
    "usage: stepscope-cli bench kineto [--events-list N,N,..] [--write-trace OUT.json --events N]\n"
    "  --events-list  trace sizes in JSON events (default 1000000,5000000)\n"
    "  --write-trace  only write the synthetic trace of --events N events (default 1000000) to\n"
    "                 OUT.json, e.g. to profile `stepscope-cli info OUT.json --no-cache`\n";

int64_t residentBytes() {
    std::ifstream statm("/proc/self/statm");
    int64_t size = 0, resident = 0;
    if (!(statm >> size >> resident)) return 0;
    return resident * int64_t(::sysconf(_SC_PAGESIZE));
}

// A synthetic trace in the current Kineto schema, `events` JSON events in blocks of a realistic
// training mix: per block a python_function around a cpu_op around a cpu_op (nesting 3 deep), a
// cudaLaunchKernel with its kernel (grid, block, registers, shared memory, occupancy args) and
// the ac2g flow pair; every 8th block a cudaMemcpyAsync and its copy; every 4th a [memory]
// event; a ProfilerStep#N range every 2000 blocks. Times are fractional µs relative to
// baseTimeNanoseconds, as Kineto writes them. Returns how many events it wrote, 0 if the file
// could not be written.
uint64_t writeTrace(const std::string& path, uint64_t events) {
    std::ofstream out(path, std::ios::binary);
    out << "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA "
           "H100 80GB HBM3\", \"totalGlobalMem\": 85029158912, \"computeMajor\": 9, "
           "\"computeMinor\": 0, \"numSms\": 132}],\n  \"traceEvents\": [\n";
    uint64_t written = 0;
    bool first = true;
    char line[1024];
    auto put = [&](int n) {
        if (!first) out << ",\n";
        first = false;
        out.write(line, n);
        ++written;
    };
    const int pid = 4242, tid = 4243;
    double t = 1000.125;
    uint64_t corr = 1, ext = 1, step = 0;
    const char* kernels[] = {"ampere_sgemm_128x64_tn",
                             "void at::native::vectorized_elementwise_kernel<4, "
                             "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >"
                             "(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, "
                             "3>)",
                             "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64",
                             "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, "
                             "1>(cudnnTensorStruct, float const*, cudnnTensorStruct, float*)"};
    const char* ops[] = {"aten::addmm", "aten::add", "aten::mm", "aten::native_batch_norm"};
    for (uint64_t block = 0; written < events; ++block) {
        if (block % 2000 == 0) {
            put(std::snprintf(line, sizeof line,
                              "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
                              "\"ProfilerStep#%llu\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, "
                              "\"dur\": %.3f, \"args\": {\"External id\": %llu}}",
                              (unsigned long long)step++, pid, tid, t, 2000 * 60.0 - 1,
                              (unsigned long long)ext++));
        }
        const int k = int(block % 4);
        put(std::snprintf(line, sizeof line,
                          "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: "
                          "Linear_%d\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"dur\": 50.5, "
                          "\"args\": {\"Python id\": %llu, \"Python parent id\": 1}}",
                          k, pid, tid, t + 0.5, (unsigned long long)block + 2));
        put(std::snprintf(line, sizeof line,
                          "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", "
                          "\"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"dur\": 40.25, \"args\": "
                          "{\"External id\": %llu, \"Ev Idx\": %llu, \"Sequence number\": "
                          "%llu, \"Fwd thread id\": 0}}",
                          pid, tid, t + 1, (unsigned long long)ext, (unsigned long long)ext,
                          (unsigned long long)block));
        ++ext;
        put(std::snprintf(line, sizeof line,
                          "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": %d, "
                          "\"tid\": %d, \"ts\": %.3f, \"dur\": 30.125, \"args\": {\"External "
                          "id\": %llu, \"Ev Idx\": %llu, \"Sequence number\": %llu, \"Fwd "
                          "thread id\": 0}}",
                          ops[k], pid, tid, t + 3, (unsigned long long)ext, (unsigned long long)ext,
                          (unsigned long long)block));
        ++ext;
        put(std::snprintf(line, sizeof line,
                          "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
                          "\"cudaLaunchKernel\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"dur\": "
                          "7.5, \"args\": {\"External id\": %llu, \"cbid\": 211, \"correlation\": "
                          "%llu}}",
                          pid, tid, t + 5, (unsigned long long)ext - 1, (unsigned long long)corr));
        put(std::snprintf(line, sizeof line,
                          "{\"ph\": \"s\", \"id\": %llu, \"pid\": %d, \"tid\": %d, \"ts\": %.3f, "
                          "\"cat\": \"ac2g\", \"name\": \"ac2g\"}",
                          (unsigned long long)corr, pid, tid, t + 5));
        put(std::snprintf(line, sizeof line,
                          "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, "
                          "\"tid\": 7, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": "
                          "%llu, \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, "
                          "\"correlation\": %llu, \"registers per thread\": %d, \"shared "
                          "memory\": %d, \"blocks per SM\": 3.878788, \"warps per SM\": "
                          "31.030302, \"grid\": [%d, 1, 1], \"block\": [256, 1, 1], \"est. "
                          "achieved occupancy %%\": %d}}",
                          kernels[k], t + 20.001, 12.5 + k, (unsigned long long)ext - 1,
                          (unsigned long long)corr, 64 + 32 * k, 1024 * k, 512 * (k + 1), 25 + k));
        put(std::snprintf(line, sizeof line,
                          "{\"ph\": \"f\", \"id\": %llu, \"pid\": 0, \"tid\": 7, \"ts\": %.3f, "
                          "\"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}",
                          (unsigned long long)corr, t + 20.001));
        ++corr;
        if (block % 8 == 0) {
            put(std::snprintf(line, sizeof line,
                              "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
                              "\"cudaMemcpyAsync\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, "
                              "\"dur\": 4.5, \"args\": {\"External id\": %llu, \"cbid\": 41, "
                              "\"correlation\": %llu}}",
                              pid, tid, t + 45, (unsigned long long)ext - 1,
                              (unsigned long long)corr));
            put(std::snprintf(line, sizeof line,
                              "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD "
                              "(Pinned -> Device)\", \"pid\": 0, \"tid\": 7, \"ts\": %.3f, "
                              "\"dur\": 3.25, \"args\": {\"External id\": %llu, \"device\": 0, "
                              "\"context\": 1, \"stream\": 7, \"correlation\": %llu, \"bytes\": "
                              "1048576, \"memory bandwidth (GB/s)\": 322.638}}",
                              t + 50, (unsigned long long)ext - 1, (unsigned long long)corr));
            ++corr;
        }
        if (block % 4 == 0) {
            put(std::snprintf(line, sizeof line,
                              "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", "
                              "\"name\": \"[memory]\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, "
                              "\"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Addr\": %llu, "
                              "\"Bytes\": %d, \"Total Allocated\": %llu, \"Total Reserved\": "
                              "2097152000}}",
                              pid, tid, t + 4, 140000000000ull + block * 4096,
                              block % 8 == 0 ? 4096 : -4096,
                              (unsigned long long)(1048576000 + (block % 8 == 0 ? 4096 : 0))));
        }
        t += 60;
    }
    out << "\n  ],\n  \"traceName\": \"bench.pt.trace.json\",\n  \"baseTimeNanoseconds\": "
           "1700000000000000000\n}\n";
    out.flush();
    return out ? written : 0; // 0: the file could not be written
}

// The baseline: simdjson On-Demand over the same file, reading every field of every event as a
// raw token (what any importer must at least do), no model.
bool bareParse(const simdjson::padded_string& json, uint64_t& events) {
    simdjson::ondemand::parser parser;
    events = 0;
    auto doc = parser.iterate(json);
    simdjson::ondemand::object top;
    if (doc.get_object().get(top)) return false;
    for (auto field : top) {
        simdjson::ondemand::raw_json_string key;
        if (field.key().get(key)) return false;
        if (key != "traceEvents") continue; // unread values are skipped
        simdjson::ondemand::array arr;
        if (field.value().get_array().get(arr)) return false;
        for (auto element : arr) {
            simdjson::ondemand::object ev;
            if (element.get_object().get(ev)) return false;
            for (auto f : ev) {
                simdjson::ondemand::value v;
                if (f.value().get(v)) return false;
                if (v.type() == simdjson::ondemand::json_type::object) {
                    for (auto a : v.get_object()) {
                        std::string_view tok;
                        if (a.value().raw_json_token().get(tok)) return false;
                    }
                } else if (v.raw_json_token().empty()) {
                    return false;
                }
            }
            ++events;
        }
    }
    return true;
}

int benchOne(uint64_t requested) {
    const TempDir dir;
    if (!dir.ok()) {
        std::fprintf(stderr, "stepscope-cli bench kineto: %s\n", dir.error().c_str());
        return 1;
    }
    const std::string path = dir.filePath("bench.pt.trace.json");
    const uint64_t jsonEvents = writeTrace(path, requested);
    if (jsonEvents == 0) {
        std::fprintf(stderr, "stepscope-cli bench kineto: cannot write %s\n", path.c_str());
        return 1;
    }

    double loadBest = std::numeric_limits<double>::infinity();
    double loadCpuBest = loadBest;
    uint64_t modelEvents = 0;
    size_t profileBytes = 0;
    int64_t rssGrowth = 0;
    for (int i = 0; i < kRepeats; ++i) {
        const int64_t rssBefore = residentBytes();
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = processCpuSeconds();
        LoadResult r = loadHosts({{"bench", path}});
        loadCpuBest = std::min(loadCpuBest, processCpuSeconds() - c0);
        const double t = seconds(std::chrono::steady_clock::now() - t0);
        if (!r.ok()) {
            std::fprintf(stderr, "stepscope-cli bench kineto: %s\n", r.error.c_str());
            return 1;
        }
        if (i == 0) rssGrowth = residentBytes() - rssBefore;
        loadBest = std::min(loadBest, t);
        modelEvents = r.profile->eventCount();
        profileBytes = r.profile->memoryBytes();
    }

    simdjson::padded_string json;
    if (simdjson::padded_string::load(path).get(json)) {
        std::fprintf(stderr, "stepscope-cli bench kineto: cannot read %s\n", path.c_str());
        return 1;
    }
    double parseBest = std::numeric_limits<double>::infinity();
    double parseCpuBest = parseBest;
    for (int i = 0; i < kRepeats; ++i) {
        uint64_t n = 0;
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = processCpuSeconds();
        const bool ok = bareParse(json, n);
        parseCpuBest = std::min(parseCpuBest, processCpuSeconds() - c0);
        const double t = seconds(std::chrono::steady_clock::now() - t0);
        if (!ok || n != jsonEvents) {
            std::fprintf(stderr, "stepscope-cli bench kineto: the bare parse failed\n");
            return 1;
        }
        parseBest = std::min(parseBest, t);
    }
    const double perEvent = 1.0 / double(jsonEvents);
    std::printf("{\"bench\":\"kineto\",\"events\":%llu,\"model_events\":%llu,\"file_bytes\":%zu,"
                "\"load_seconds\":%.4f,\"events_per_second\":%.0f,\"megabytes_per_second\":%.1f,"
                "\"bytes_per_event\":%.1f,\"rss_bytes_per_event\":%.1f,"
                "\"simdjson_parse_seconds\":%.4f,\"ratio_vs_simdjson\":%.3f,"
                "\"load_cpu_seconds\":%.4f,\"events_per_cpu_second\":%.0f,"
                "\"simdjson_parse_cpu_seconds\":%.4f,\"cpu_ratio_vs_simdjson\":%.3f,"
                "\"huge_pages\":%s}\n",
                (unsigned long long)jsonEvents, (unsigned long long)modelEvents, json.size(),
                loadBest, double(jsonEvents) / loadBest, double(json.size()) / 1e6 / loadBest,
                double(profileBytes) * perEvent, double(rssGrowth) * perEvent, parseBest,
                loadBest / parseBest, loadCpuBest, double(jsonEvents) / loadCpuBest, parseCpuBest,
                loadCpuBest / parseCpuBest, hugePageReport().c_str());
    std::fflush(stdout);
    return 0;
}

} // namespace

int runBenchKineto(const std::vector<std::string>& args) {
    std::vector<uint64_t> sizes{1000000, 5000000};
    std::string writeOnly;
    uint64_t writeEvents = 1000000;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (a == "--events-list" && i + 1 < args.size()) {
            const auto list = parseCountList(args[++i], 1, 50000000);
            if (!list) {
                std::fprintf(stderr,
                             "stepscope-cli bench kineto: --events-list takes whole numbers from "
                             "1 to 50000000, comma separated\n%s",
                             kUsage);
                return 2;
            }
            sizes = *list;
        } else if (a == "--write-trace" && i + 1 < args.size()) {
            writeOnly = args[++i];
        } else if (a == "--events" && i + 1 < args.size()) {
            const auto list = parseCountList(args[++i], 1, 50000000);
            if (!list || list->size() != 1) {
                std::fprintf(stderr,
                             "stepscope-cli bench kineto: --events takes one whole number from 1 "
                             "to 50000000\n%s",
                             kUsage);
                return 2;
            }
            writeEvents = list->front();
        } else {
            std::fprintf(stderr, "stepscope-cli bench kineto: unexpected argument '%s'\n%s",
                         a.c_str(), kUsage);
            return 2;
        }
    }
    if (!writeOnly.empty()) {
        const uint64_t written = writeTrace(writeOnly, writeEvents);
        if (written == 0) {
            std::fprintf(stderr, "stepscope-cli bench kineto: cannot write %s\n",
                         writeOnly.c_str());
            return 1;
        }
        std::printf("wrote %llu events to %s\n", (unsigned long long)written, writeOnly.c_str());
        return 0;
    }
    for (uint64_t n : sizes)
        if (const int rc = benchOne(n); rc != 0) return rc;
    return 0;
}

} // namespace stepscope::bench
