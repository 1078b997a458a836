// `stepscope-cli bench capture [--records N] [--repeat R]`: what the CUPTI injection library
// costs per record, without a GPU. A child process loads the stand-in libcupti of the tests
// (tests/fixtures/cupti) and libstepscope_cupti.so, runs InitializeInjection as the driver would,
// and hands it records in CUPTI's layout; CUPTI's own cost (instrumenting the calls, filling the
// buffers) is not in these figures, only the library's: converting, encoding, compressing and
// writing the records (on CUPTI's delivery thread), and the thread-name callback (on the
// program's threads, at every recorded API call). One JSON line per figure:
//   - per record: N records of one kind, or of a step's mix in the H200 gemmsteps capture (10
//     kernels, 2 copies, 23 API calls, 1 NVTX range), delivered in CUPTI's 8 MiB buffers; the
//     baseline is zstd compressing the same raw CUPTI bytes (what a collector that keeps CUPTI's
//     records as they are would pay at least);
//   - the periodic flush: the mix written in frames of 2,000 and 20,000 records (a flush a
//     second at those record rates) beside the mix in whole buffers;
//   - the callback: a recorded API call on a thread already named, beside a call whose callback
//     is not enabled (the stand-in's own dispatch).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/BenchRepeat.h"
#include "bench/Benches.h"
#include "bench/TempDir.h"
#include "model/CountText.h"

#ifdef STEPSCOPE_FAKE_CUPTI
#include <cupti.h>
#include <dlfcn.h>
#include <zstd.h>
#endif

namespace stepscope::bench {

#ifdef STEPSCOPE_FAKE_CUPTI
namespace {

constexpr const char* kUsage = "stepscope-cli bench capture [--records N] [--repeat R]";

// Kernel names as CUPTI gives them (mangled), from the H200 gemmsteps capture.
constexpr const char* kKernelNames[] = {
    "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT",
    "_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_256x128_8x4_nn_align1EEvNT_6ParamsE",
    "_Z12scale_kernelPfmf"};

// The stand-in's hooks (tests/fixtures/cupti/FakeCupti.cpp).
struct Fake {
    void (*queueKernel)(const char*, uint64_t, uint64_t, uint32_t, uint32_t);
    void (*queueApi)(int, uint32_t, uint32_t, uint64_t, uint64_t, uint32_t);
    void (*queueMemcpy)(uint64_t, uint64_t, uint64_t, uint32_t, uint32_t);
    void (*queueRange)(const char*, uint32_t, uint32_t, uint64_t, uint64_t);
    size_t (*deliver)();
    size_t (*queuedBytes)(uint8_t*, size_t);
    void (*apiCall)(CUpti_CallbackDomain, CUpti_CallbackId);
};

enum class Mix { Kernels, Api, Step };
const char* mixName(Mix m) {
    return m == Mix::Kernels ? "kernels" : m == Mix::Api ? "api" : "gemmsteps_mix";
}

// Queues `n` records of the mix; times grow by 1 µs a record.
void queue(const Fake& f, Mix mix, uint64_t n) {
    const uint32_t tid = uint32_t(::gettid());
    uint64_t t = 1'000'000'000;
    for (uint64_t i = 0; i < n;) {
        const auto next = [&] {
            t += 1000;
            return uint32_t(++i);
        };
        if (mix == Mix::Kernels) {
            const uint32_t c = next();
            f.queueKernel(kKernelNames[c % 3], t, t + 500, 7, c);
        } else if (mix == Mix::Api) {
            const uint32_t c = next();
            f.queueApi(0, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, tid, t, t + 500, c);
        } else {
            // One step of gemmsteps: 23 API calls, 10 kernels, 2 copies, an NVTX range (two
            // markers), 37 records.
            for (int k = 0; k < 23 && i < n; ++k) {
                const uint32_t c = next();
                f.queueApi(0, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, tid, t, t + 500, c);
            }
            for (int k = 0; k < 10 && i < n; ++k) {
                const uint32_t c = next();
                f.queueKernel(kKernelNames[k % 3], t, t + 500, 7, c);
            }
            for (int k = 0; k < 2 && i < n; ++k) {
                const uint32_t c = next();
                f.queueMemcpy(t, t + 500, 64 << 20, 7, c);
            }
            if (i + 2 <= n) {
                const uint32_t id = next();
                next();
                f.queueRange("step", id, tid, t - 30'000, t);
            }
        }
    }
}

off_t fileSize(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? st.st_size : 0;
}

int measure(const Fake& f, uint64_t records, int repeat, const std::string& file) {
    const auto print = [](const char* figure, const char* mix, uint64_t n, double ns,
                          double baselineNs, const char* baseline, double bytes) {
        std::printf("{\"bench\":\"capture\",\"figure\":\"%s\",\"records\":\"%s\",\"count\":%llu,"
                    "\"ns_per_record\":%.1f,\"baseline\":\"%s\",\"baseline_ns_per_record\":%.1f,"
                    "\"bytes_per_record\":%.2f}\n",
                    figure, mix, static_cast<unsigned long long>(n), ns, baseline, baselineNs,
                    bytes);
        std::fflush(stdout);
    };
    // The shortest time per record of a delivery of what is queued.
    const auto timedDeliver = [&](double& best) {
        const auto start = std::chrono::steady_clock::now();
        const size_t n = f.deliver();
        const double s = seconds(std::chrono::steady_clock::now() - start);
        if (n > 0) best = std::min(best, s / double(n));
    };
    std::vector<uint8_t> raw, compressed;
    double wholeBuffers = 0; // the step mix in whole buffers: the frames' baseline
    for (const Mix mix : {Mix::Kernels, Mix::Api, Mix::Step}) {
        double best = 1e9, rawBest = 1e9;
        const off_t before = fileSize(file);
        for (int r = 0; r < repeat; ++r) {
            queue(f, mix, records);
            // Baseline: the same records' raw bytes through zstd (level 3, as the record file).
            raw.resize(f.queuedBytes(nullptr, 0));
            f.queuedBytes(raw.data(), raw.size());
            compressed.resize(ZSTD_compressBound(raw.size()));
            const auto start = std::chrono::steady_clock::now();
            ZSTD_compress(compressed.data(), compressed.size(), raw.data(), raw.size(), 3);
            rawBest = std::min(rawBest,
                               seconds(std::chrono::steady_clock::now() - start) / double(records));
            timedDeliver(best);
        }
        const double bytes = double(fileSize(file) - before) / double(records * uint64_t(repeat));
        if (mix == Mix::Step) wholeBuffers = best;
        print("per_record", mixName(mix), records, best * 1e9, rawBest * 1e9,
              "zstd of the raw CUPTI records", bytes);
    }
    // The periodic flush: frames of `perFrame` records, beside whole buffers (the last figure).
    for (const uint64_t perFrame : {uint64_t(2000), uint64_t(20000)}) {
        double best = 1e9;
        const off_t before = fileSize(file);
        for (int r = 0; r < repeat; ++r) {
            double total = 0;
            uint64_t delivered = 0;
            for (uint64_t done = 0; done < records; done += perFrame) {
                queue(f, Mix::Step, std::min(perFrame, records - done));
                const auto start = std::chrono::steady_clock::now();
                delivered += f.deliver();
                total += seconds(std::chrono::steady_clock::now() - start);
            }
            if (delivered > 0) best = std::min(best, total / double(delivered));
        }
        const double bytes = double(fileSize(file) - before) / double(records * uint64_t(repeat));
        const std::string figure = "frame_every_" + std::to_string(perFrame) + "_records";
        print(figure.c_str(), mixName(Mix::Step), records, best * 1e9, wholeBuffers * 1e9,
              "whole 8 MiB buffers", bytes);
    }
    // The callback on a named thread, beside a call with no callback enabled.
    const uint64_t calls = records * 10;
    const auto timeCalls = [&](CUpti_CallbackId cbid) {
        return bestSeconds(repeat,
                           [&] {
                               for (uint64_t i = 0; i < calls; ++i)
                                   f.apiCall(CUPTI_CB_DOMAIN_RUNTIME_API, cbid);
                           }) /
               double(calls);
    };
    f.apiCall(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    const double named = timeCalls(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    const double off = timeCalls(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020);
    std::printf("{\"bench\":\"capture\",\"figure\":\"api_callback\",\"calls\":%llu,"
                "\"ns_per_call\":%.2f,\"baseline\":\"callback not enabled\","
                "\"baseline_ns_per_call\":%.2f}\n",
                static_cast<unsigned long long>(calls), named * 1e9, off * 1e9);
    std::fflush(stdout);
    return 0;
}

} // namespace
#endif

int runBenchCapture(const std::vector<std::string>& args) {
#ifndef STEPSCOPE_FAKE_CUPTI
    (void)args;
    std::fputs("stepscope-cli bench capture: this build has no CUPTI (no CUDA toolkit found), so "
               "neither the injection library nor its stand-in libcupti\n",
               stderr);
    return 1;
#else
    uint64_t records = 1'000'000;
    int repeat = 3;
    for (size_t i = 0; i < args.size(); ++i) {
        const bool hasValue = i + 1 < args.size();
        if (args[i] == "--records" && hasValue && parseCount(args[i + 1], 1000, 100'000'000)) {
            records = *parseCount(args[++i], 1000, 100'000'000);
        } else if (args[i] == "--repeat" && hasValue && parseCount(args[i + 1], 1, 100)) {
            repeat = int(*parseCount(args[++i], 1, 100));
        } else {
            std::fprintf(stderr, "usage: %s\n", kUsage);
            return 2;
        }
    }
    const TempDir dir;
    if (!dir.ok()) {
        std::fprintf(stderr, "stepscope-cli bench capture: %s\n", dir.error().c_str());
        return 1;
    }
    // In a child: the library installs exit and signal handlers and a flusher thread.
    std::fflush(stdout);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::setenv("STEPSCOPE_CUPTI_DIR", dir.path().c_str(), 1);
        ::unsetenv("STEPSCOPE_CUPTI_KINDS");
        void* fake = ::dlopen(STEPSCOPE_FAKE_CUPTI, RTLD_NOW | RTLD_GLOBAL);
        void* lib = fake ? ::dlopen(STEPSCOPE_CUPTI_LIBRARY, RTLD_NOW | RTLD_LOCAL) : nullptr;
        auto* init =
            lib ? reinterpret_cast<int (*)()>(::dlsym(lib, "InitializeInjection")) : nullptr;
        if (!init || init() != 1) {
            std::fprintf(stderr, "stepscope-cli bench capture: cannot load %s with %s: %s\n",
                         STEPSCOPE_CUPTI_LIBRARY, STEPSCOPE_FAKE_CUPTI, ::dlerror());
            ::_exit(1);
        }
        const auto hook = [fake](const char* name) { return ::dlsym(fake, name); };
        Fake f;
        f.queueKernel = reinterpret_cast<decltype(f.queueKernel)>(hook("fakeCuptiQueueKernel"));
        f.queueApi = reinterpret_cast<decltype(f.queueApi)>(hook("fakeCuptiQueueApi"));
        f.queueMemcpy = reinterpret_cast<decltype(f.queueMemcpy)>(hook("fakeCuptiQueueMemcpy"));
        f.queueRange = reinterpret_cast<decltype(f.queueRange)>(hook("fakeCuptiQueueRange"));
        f.deliver = reinterpret_cast<decltype(f.deliver)>(hook("fakeCuptiDeliver"));
        f.queuedBytes = reinterpret_cast<decltype(f.queuedBytes)>(hook("fakeCuptiQueuedBytes"));
        f.apiCall = reinterpret_cast<decltype(f.apiCall)>(hook("fakeCuptiApiCall"));
        // The periodic flush must not take the queued records from under the timed deliveries.
        reinterpret_cast<void (*)(int)>(hook("fakeCuptiHold"))(1);
        const std::string file = dir.filePath(std::to_string(::getpid()) + ".rec");
        ::_exit(measure(f, records, repeat, file));
    }
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
#endif
}

} // namespace stepscope::bench
