#include "model/analysis/OverviewRules.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "model/DeviceDetails.h"
#include "model/NumberFormat.h"
#include "model/analysis/GpuTime.h"
#include "model/analysis/InputPipeline.h"
#include "model/analysis/Precision.h"
#include "model/analysis/TensorCore.h"

namespace stepscope {

namespace {

constexpr double kPsPerMs = 1e9;
constexpr double kPsPerUs = 1e6;

std::string oneDigit(double v) {
    return fixedDecimals(v, 1);
}

std::string threeDigits(double v) {
    return fixedDecimals(v, 3);
}

double share(double part, double whole) {
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

bool startsWith(std::string_view s, std::string_view p) {
    return s.substr(0, p.size()) == p;
}

struct Extent {
    int64_t begin = 0, end = 0;
};
Extent stepsExtent(const StepAnalysis& steps) {
    Extent x;
    if (steps.steps.empty()) return x;
    x.begin = steps.steps.front().beginPs;
    for (const StepRecord& s : steps.steps) {
        x.begin = std::min(x.begin, s.beginPs);
        x.end = std::max(x.end, s.beginPs + s.durationPs);
    }
    return x;
}

// Host time in CUDA/HIP calls that block the host (synchronization, synchronous copies and
// sets), Nsight Systems' "CUDA Synchronous Memcpy/Memset" and "Synchronization APIs" rules.
// syncPs is the union over all host threads of the time in synchronization calls (time during
// which at least one thread is blocked), so its share of the host span never exceeds 100%.
struct HostApiTime {
    int64_t syncPs = 0, syncCalls = 0;
    int64_t syncCopyPs = 0, syncCopyCalls = 0;
    int64_t first = 0, last = 0; // extent of host thread events
};

bool isSyncApi(std::string_view n) {
    for (std::string_view prefix :
         {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
          "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "hipDeviceSynchronize",
          "hipStreamSynchronize", "hipEventSynchronize"})
        if (startsWith(n, prefix)) return true;
    return false;
}

bool isSyncCopyApi(std::string_view n) {
    const bool copy = startsWith(n, "cudaMemcpy") || startsWith(n, "cudaMemset") ||
                      startsWith(n, "cuMemcpy") || startsWith(n, "cuMemset") ||
                      startsWith(n, "hipMemcpy") || startsWith(n, "hipMemset");
    return copy && n.find("Async") == std::string_view::npos;
}

HostApiTime hostApiTime(const Profile& p) {
    HostApiTime t;
    // 0: neither, 1: synchronization call, 2: synchronous copy or set; decided per metadata.
    std::vector<uint8_t> kind(p.metadata().size(), 0xFF);
    std::vector<GpuIdleGap> sync;
    bool any = false;
    for (const Track& track : p.tracks()) {
        if (track.derived || p.planes()[track.plane].kind != PlaneKind::Host) continue;
        if (track.eventCount == 0) continue;
        t.first = any ? std::min(t.first, track.minStartPs) : track.minStartPs;
        t.last = any ? std::max(t.last, track.maxEndPs) : track.maxEndPs;
        any = true;
        const EventIndex end = track.firstEvent + track.eventCount;
        for (EventIndex e = track.firstEvent; e < end; ++e) {
            uint8_t& k = kind[p.metadataOf(e)];
            if (k == 0xFF) {
                const std::string_view n = p.name(e);
                k = isSyncApi(n) ? 1 : isSyncCopyApi(n) ? 2 : 0;
            }
            if (k == 1) {
                sync.push_back({p.start(e), p.end(e)});
                ++t.syncCalls;
            } else if (k == 2) {
                t.syncCopyPs += p.duration(e);
                ++t.syncCopyCalls;
            }
        }
    }
    t.syncPs = intervalsLength(uniteIntervals(std::move(sync)));
    return t;
}

// Nsight Systems' "Asynchronous memcpy from pageable memory" rule: an asynchronous copy whose host
// side is pageable memory runs synchronously. What the profiles record: Kineto names the memory
// kinds in the copy's name ("Memcpy HtoD (Pageable -> Device)") and the launching call says
// whether it was asynchronous ("cudaMemcpyAsync", same correlation id); XLA's newer CUPTI
// collector writes "kind_src:pageable" / "kind_dst:pageable" and "async:1" into memcpy_details.
// Older TensorFlow XSpaces (the BERT profile) and Stepscope's own capture record no memory kind:
// there the rule cannot fire.
struct PageableCopies {
    int64_t count = 0, ps = 0, first = 0, last = 0;
};

PageableCopies pageableAsyncCopies(const Profile& p) {
    PageableCopies out;
    const StringId detailsKey = p.strings().find("memcpy_details");
    // Device copies with pageable memory: async known (XSpace), or to be told by the launch.
    std::vector<std::pair<uint64_t, EventIndex>> byLaunch; // correlation id, copy
    std::vector<EventIndex> copies;
    for (const Track& t : p.tracks()) {
        if (!t.deviceOps || t.derived || p.planes()[t.plane].kind != PlaneKind::Gpu) continue;
        const EventIndex end = t.firstEvent + t.eventCount;
        CorrelationIds::Cursor c(p.correlationIds());
        for (EventIndex e = t.firstEvent; e < end; ++e) {
            const std::string_view name = p.name(e);
            if (name.find("Pageable") != std::string_view::npos) {
                if (const std::optional<uint64_t> id = c.at(e)) byLaunch.push_back({*id, e});
                continue;
            }
            if (detailsKey == StringPool::kNotFound) continue;
            for (const StatValue& st : p.eventStats(e)) {
                if (st.key != detailsKey || !st.isText()) continue;
                const std::string_view d = p.str(st.asString());
                if ((d.find("kind_src:pageable") != std::string_view::npos ||
                     d.find("kind_dst:pageable") != std::string_view::npos) &&
                    d.find("async:1") != std::string_view::npos)
                    copies.push_back(e);
            }
        }
    }
    if (!byLaunch.empty()) {
        std::sort(byLaunch.begin(), byLaunch.end());
        for (const Track& t : p.tracks()) {
            if (t.derived || p.planes()[t.plane].kind != PlaneKind::Host) continue;
            const EventIndex end = t.firstEvent + t.eventCount;
            CorrelationIds::Cursor c(p.correlationIds());
            for (EventIndex e = t.firstEvent; e < end; ++e) {
                const std::optional<uint64_t> id = c.at(e);
                if (!id || p.name(e).find("Async") == std::string_view::npos) continue;
                auto it = std::lower_bound(byLaunch.begin(), byLaunch.end(),
                                           std::pair<uint64_t, EventIndex>{*id, 0});
                for (; it != byLaunch.end() && it->first == *id; ++it) copies.push_back(it->second);
            }
        }
    }
    for (EventIndex e : copies) {
        out.first = out.count == 0 ? p.start(e) : std::min(out.first, p.start(e));
        out.last = out.count == 0 ? p.end(e) : std::max(out.last, p.end(e));
        ++out.count;
        out.ps += p.duration(e);
    }
    return out;
}

// XProf's TfDataInUse (op_stats_to_input_pipeline_analysis.cc) asks whether the host breakdown
// has file-read or preprocessing time; here: some host input op of those categories ran.
bool tfDataInUse(const TfOpStats& ops) {
    for (const TfOpStatsRow& r : ops.rows) {
        if (r.side != OpSide::Host || r.selfPs <= 0) continue;
        const OpIdentity& op = ops.ops[r.op];
        if (!isInputOpType(op.type)) continue;
        const InputOpCategory c = categorizeInputOp(op.name, op.type);
        if (c == InputOpCategory::DemandedFileRead || c == InputOpCategory::AdvancedFileRead ||
            c == InputOpCategory::Preprocessing)
            return true;
    }
    return false;
}

Recommendation finding(std::string id, Level level, std::string text, double value, ToolId tool,
                       int64_t beginPs = 0, int64_t endPs = 0) {
    return {std::move(id), level, std::move(text), value, tool, beginPs, endPs};
}

using Finding = std::optional<Recommendation>;

// The PyTorch TensorBoard plugin's input rule (data.py RunProfileData.analyze): average
// DataLoader time over average step time above kTorchDataLoaderPercent, in its step breakdown.
Finding pytorchDataLoader(const Overview& o) {
    if (o.torchStepTimeMs.average <= 0) return {};
    const double dataLoader =
        share(o.torchRoleMs[size_t(TorchRole::DataLoader)].average, o.torchStepTimeMs.average);
    if (dataLoader <= kTorchDataLoaderPercent) return {};
    return finding("pytorch_dataloader", Level::Moderate,
                   oneDigit(dataLoader) +
                       "% of the step time is in the DataLoader (PyTorch TensorBoard plugin's "
                       "step breakdown): set num_workers when constructing the DataLoader to load "
                       "data in several processes.",
                   dataLoader, ToolId::PyTorch);
}

// XProf's input-bound verdict (Overview::bottleneck), its statement as the text; evidence: the
// input pipeline over the steps.
Finding inputBound(const Overview& o) {
    const Bottleneck& b = o.bottleneck;
    if (b.input != "host" && b.input != "both") return {};
    const bool potentially = b.inputPercent < kModeratelyInputBound;
    const Extent steps = stepsExtent(o.steps);
    return finding("input_bound", b.input == "host" ? Level::High : Level::Moderate,
                   b.inputStatement, potentially ? b.allOtherPercent : b.inputPercent,
                   ToolId::InputPipeline, steps.begin, steps.end);
}

// Output (device to host copies) at XProf's output thresholds, on GPU steps too.
Finding outputBound(const Overview& o) {
    const Bottleneck& b = o.bottleneck;
    if (!b.output) return {};
    const Extent steps = stepsExtent(o.steps);
    return finding("output_bound", *b.output,
                   oneDigit(b.outputPercent) + "% of the total step time is spent on output "
                                               "(device to host copies).",
                   b.outputPercent, ToolId::TraceViewer, steps.begin, steps.end);
}

// Kernel launch at XProf's thresholds, with the GPU guide's launch-bound signature as evidence:
// kernels shorter than the launch latency (kSmallKernelUs).
Finding kernelLaunch(const Profile& p, const Overview& o, const TfOpStats& ops) {
    const Bottleneck& b = o.bottleneck;
    if (!b.kernelLaunch) return {};
    uint64_t kernels = 0, small = 0;
    p.kernels().forEach([&](uint32_t e, uint32_t) {
        ++kernels;
        if (double(p.duration(e)) < kSmallKernelUs * kPsPerUs) ++small;
    });
    std::string text =
        oneDigit(b.kernelLaunchPercent) + "% of the total step time is spent on kernel launch.";
    if (kernels > 0)
        text += " " + std::to_string(small) + " of " + std::to_string(kernels) + " kernels (" +
                oneDigit(share(double(small), double(kernels))) + "%) are shorter than " +
                oneDigit(kSmallKernelUs) +
                " µs, about the launch latency: try larger batches or XLA fusion";
    // XProf's KernelLaunchAnalysis adds the thread-mode advice only when tf.data is in use.
    text += tfDataInUse(ops) ? ", or set TF_GPU_THREAD_MODE=gpu_private." : ".";
    return finding("kernel_launch", *b.kernelLaunch, text, b.kernelLaunchPercent,
                   ToolId::KernelStats);
}

// XProf's "All others" time at its thresholds.
Finding allOthers(const Overview& o) {
    const Bottleneck& b = o.bottleneck;
    if (!b.allOther) return {};
    const Extent steps = stepsExtent(o.steps);
    return finding(
        "all_others", *b.allOther,
        oneDigit(b.allOtherPercent) +
            "% of the total step time is 'All others' time: this could be Python overhead.",
        b.allOtherPercent, ToolId::TraceViewer, steps.begin, steps.end);
}

// Device collectives at XProf's thresholds.
Finding collectives(const Overview& o) {
    const Bottleneck& b = o.bottleneck;
    if (!b.collectives) return {};
    const Extent steps = stepsExtent(o.steps);
    return finding("collectives", *b.collectives,
                   oneDigit(b.collectivesPercent) +
                       "% of the total step time is spent on device collective communication.",
                   b.collectivesPercent, ToolId::TraceViewer, steps.begin, steps.end);
}

// Mixed precision: XProf advises it when under 10% of device compute is 16-bit, which on bf16 and
// fp8 profiles it reads as 0% (its rule knows only "half"). Stepscope advises it only where full
// fp32 (not tf32, not fp64) holds at least kFp32DominantPercent of the kernel time and under
// kLow16BitPercent runs below 32 bits, by the precision of each kernel (KernelFacts); kernels of
// unknown precision count for neither, so a profile whose precision cannot be read gets no advice.
Finding mixedPrecision(const Overview& o) {
    int64_t allKernelPs = 0, lowPs = 0;
    for (size_t i = 0; i < kPrecisionCount; ++i) {
        allKernelPs += o.kernelPrecisionPs[i];
        if (isBelow32Bit(Precision(i))) lowPs += o.kernelPrecisionPs[i];
    }
    const double fp32Percent =
        share(double(o.kernelPrecisionPs[size_t(Precision::FP32)]), double(allKernelPs));
    const double lowPercent = share(double(lowPs), double(allKernelPs));
    if (allKernelPs == 0 || fp32Percent < kFp32DominantPercent || lowPercent >= kLow16BitPercent)
        return {};
    return finding("mixed_precision", Level::Moderate,
                   oneDigit(fp32Percent) + "% of kernel time runs in full fp32 and " +
                       oneDigit(lowPercent) +
                       "% in 16 bits or fewer: enabling mixed precision (bf16 or fp16) can speed "
                       "up training up to ~3x on Volta and newer GPUs.",
                   fp32Percent, ToolId::KernelStats);
}

// Gaps between steps (one step's end to the next one's start) of at least kStepGapPercent of the
// average step; evidence: the largest gap.
Finding stepGaps(const Overview& o) {
    if (o.steps.steps.size() < 2 || o.stepTimeMs.average <= 0) return {};
    std::vector<StepRecord> byTime = o.steps.steps;
    std::sort(byTime.begin(), byTime.end(),
              [](const StepRecord& x, const StepRecord& y) { return x.beginPs < y.beginPs; });
    int64_t gapPs = 0, worst = 0, worstBegin = 0;
    for (size_t i = 1; i < byTime.size(); ++i) {
        const int64_t g = byTime[i].beginPs - (byTime[i - 1].beginPs + byTime[i - 1].durationPs);
        if (g <= 0) continue;
        gapPs += g;
        if (g > worst) {
            worst = g;
            worstBegin = byTime[i - 1].beginPs + byTime[i - 1].durationPs;
        }
    }
    const double meanGapMs = double(gapPs) / double(byTime.size() - 1) / kPsPerMs;
    const double pct = share(meanGapMs, o.stepTimeMs.average);
    if (pct < kStepGapPercent) return {};
    return finding("step_gaps", Level::Moderate,
                   "Between steps the program spends on average " + oneDigit(meanGapMs) +
                       " ms outside any step (" + oneDigit(pct) +
                       "% of the average step time): look for callbacks, metrics or ops outside "
                       "the training function in the largest gap.",
                   pct, ToolId::TraceViewer, worstBegin, worstBegin + worst);
}

// Copies and sets that no computation overlaps, at least kExposedCopyPercent of a GPU's busy time
// and kMinExposedCopyPs.
Finding exposedCopies(const GpuTimeRow& d) {
    const double exposed = share(double(d.memoryExposedPs), double(d.busyPs));
    if (exposed < kExposedCopyPercent || d.memoryExposedPs < kMinExposedCopyPs) return {};
    return finding("exposed_copies", Level::Moderate,
                   d.device + ": " + oneDigit(exposed) +
                       "% of its busy time is copies or sets that no computation overlaps (" +
                       threeDigits(double(d.memoryExposedPs) / kPsPerMs) + " ms).",
                   exposed, ToolId::TraceViewer, d.firstPs, d.lastPs);
}

// GPU starvation: one finding per idle gap of a GPU longer than kStarvationPs.
std::vector<Recommendation> gpuStarvation(const GpuTimeRow& d) {
    std::vector<Recommendation> out;
    for (const GpuIdleGap& g : idleGaps(d, kStarvationPs))
        out.push_back(finding(
            "gpu_starvation", Level::Moderate,
            d.device + " is idle for " + oneDigit(double(g.endPs - g.beginPs) / kPsPerMs) +
                " ms between its work (GPU starvation: gaps over 500 ms).",
            double(g.endPs - g.beginPs) / kPsPerMs, ToolId::TraceViewer, g.beginPs, g.endPs));
    return out;
}

// Windows (kUtilizationChunks of a GPU's active time) less than kLowUtilizationPercent busy;
// evidence: the longest run of consecutive low windows (the earliest of equals), so the trace
// opens on low utilization rather than on the whole run.
Finding lowUtilization(const GpuTimeRow& d) {
    const std::vector<double> windows =
        utilizationWindows(d, d.firstPs, d.lastPs, kUtilizationChunks);
    int low = 0, run = 0, longest = 0;
    int64_t lowBegin = 0, lowEnd = 0;
    for (size_t w = 0; w < windows.size(); ++w) {
        if (windows[w] >= kLowUtilizationPercent) {
            run = 0;
            continue;
        }
        ++low;
        if (++run <= longest) continue;
        longest = run;
        const int64_t width = d.lastPs - d.firstPs;
        lowBegin = d.firstPs + width * int64_t(w + 1 - size_t(run)) / kUtilizationChunks;
        lowEnd = d.firstPs + width * int64_t(w + 1) / kUtilizationChunks;
    }
    if (low == 0) return {};
    return finding("low_utilization", Level::Info,
                   d.device + ": " + std::to_string(low) + " of " +
                       std::to_string(kUtilizationChunks) +
                       " equal windows of its active time are less than 50% busy.",
                   double(low), ToolId::TraceViewer, lowBegin, lowEnd);
}

// Busy time spread between replicas of at least kReplicaImbalancePercent. Replicas are the devices
// that ran computation: a device with only a few copies (the TF BERT profile's GPU:1) is no
// replica, and would make any spread look like 99%.
Finding replicaImbalance(const Overview& o) {
    int64_t maxBusy = 0, minBusy = INT64_MAX;
    size_t computing = 0;
    std::string busiest, idlest;
    for (const GpuTimeRow& d : o.gpu.devices) {
        if (d.computePs <= 0) continue;
        ++computing;
        if (d.busyPs > maxBusy) {
            maxBusy = d.busyPs;
            busiest = d.device;
        }
        if (d.busyPs < minBusy) {
            minBusy = d.busyPs;
            idlest = d.device;
        }
    }
    if (computing < 2 || maxBusy <= 0) return {};
    const double spread = share(double(maxBusy - minBusy), double(maxBusy));
    if (spread < kReplicaImbalancePercent) return {};
    return finding("replica_imbalance", Level::Moderate,
                   "GPU busy time differs by " + oneDigit(spread) + "% between " + busiest +
                       " (busiest) and " + idlest + " (least busy).",
                   spread, ToolId::TraceViewer);
}

// Tensor Core eligible ops whose kernels are known NOT to use Tensor Cores (KernelFacts says No),
// at least kTensorCoreMissPercent of kernel time, on GPUs that have them: NVIDIA cc 7.0+ (XLA
// writes the vendor "Nvidia", the Kineto importer "NVIDIA"; older profiles may have none) and AMD
// cc 9.4+ (MI300 on; earlier gfx9 parts differ in whether they have Matrix Cores). Kernels whose
// use is unknown are never counted as misses, and the text names the ops it counts.
Finding tensorCoreMisses(const Profile& p, const TfOpStats& ops) {
    bool tensorCores = false;
    for (const Plane& pl : p.planes()) {
        if (pl.kind != PlaneKind::Gpu) continue;
        const GpuVendor vendor = gpuVendorOf(pl.device.vendor);
        const DeviceInfo& d = pl.device;
        if (vendor != GpuVendor::Amd && d.computeCapMajor >= 7) tensorCores = true;
        if (vendor == GpuVendor::Amd &&
            (d.computeCapMajor > 9 || (d.computeCapMajor == 9 && d.computeCapMinor >= 4)))
            tensorCores = true;
    }
    if (!tensorCores) return {};
    int64_t kernelPs = 0, missPs = 0;
    std::vector<const TfOpStatsRow*> missed;
    for (const TfOpStatsRow& r : ops.rows) {
        if (r.side != OpSide::Device) continue;
        kernelPs += r.kernelPs;
        if (r.noTensorCoreKernelPs > 0 && opIsTensorCoreEligible(ops.ops[r.op].name)) {
            missPs += r.noTensorCoreKernelPs;
            missed.push_back(&r);
        }
    }
    const double pct = share(double(missPs), double(kernelPs));
    if (pct < kTensorCoreMissPercent) return {};
    std::sort(missed.begin(), missed.end(), [&](const auto* a, const auto* b) {
        if (a->noTensorCoreKernelPs != b->noTensorCoreKernelPs)
            return a->noTensorCoreKernelPs > b->noTensorCoreKernelPs;
        return ops.ops[a->op].name < ops.ops[b->op].name;
    });
    std::string names;
    for (size_t i = 0; i < missed.size() && i < 3; ++i)
        names += (i ? ", " : "") + ops.ops[missed[i]->op].name + " (" +
                 threeDigits(double(missed[i]->noTensorCoreKernelPs) / kPsPerMs) + " ms)";
    if (missed.size() > 3) names += " and " + std::to_string(missed.size() - 3) + " more";
    return finding("tensor_core", Level::Moderate,
                   oneDigit(pct) +
                       "% of kernel time is in Tensor Core eligible ops whose kernels do not use "
                       "Tensor Cores: " +
                       names + " (for fp16, make dimensions multiples of 8).",
                   pct, ToolId::KernelStats);
}

// Nsight Systems' "CUDA Synchronous Memcpy/Memset" rule: any synchronous copy or set call.
Finding syncMemcpy(const HostApiTime& api) {
    if (api.syncCopyCalls == 0) return {};
    return finding("sync_memcpy", Level::Moderate,
                   std::to_string(api.syncCopyCalls) +
                       " synchronous memcpy/memset calls block the host for " +
                       oneDigit(double(api.syncCopyPs) / kPsPerMs) + " ms: use the Async variants.",
                   double(api.syncCopyPs) / kPsPerMs, ToolId::TraceViewer);
}

// Nsight Systems' "Synchronization APIs" rule: at least kSyncApiPercent of the host span blocked.
Finding syncApis(const HostApiTime& api) {
    const double hostSpan = double(api.last - api.first);
    if (hostSpan <= 0) return {};
    const double pct = share(double(api.syncPs), hostSpan);
    if (pct < kSyncApiPercent) return {};
    return finding("sync_apis", Level::Moderate,
                   "For " + oneDigit(double(api.syncPs) / kPsPerMs) + " ms (" + oneDigit(pct) +
                       "% of the host span) a host thread is blocked in synchronization calls (" +
                       std::to_string(api.syncCalls) + " calls).",
                   pct, ToolId::TraceViewer);
}

// Nsight Systems' "Asynchronous memcpy from pageable memory" rule: any such copy.
Finding pageableCopies(const Profile& p) {
    const PageableCopies pageable = pageableAsyncCopies(p);
    if (pageable.count == 0) return {};
    return finding("pageable_async_copies", Level::Moderate,
                   std::to_string(pageable.count) +
                       " asynchronous copies use pageable host memory, which makes them "
                       "synchronous (" +
                       threeDigits(double(pageable.ps) / kPsPerMs) +
                       " ms): pin the host buffers (pin_memory=True, cudaHostAlloc).",
                   double(pageable.count), ToolId::TraceViewer, pageable.first, pageable.last);
}

} // namespace

std::vector<Recommendation> overviewRecommendations(const Profile& p, const Overview& o,
                                                    const TfOpStats& ops) {
    std::vector<Recommendation> out;
    auto add = [&out](Finding f) {
        if (f) out.push_back(std::move(*f));
    };
    add(pytorchDataLoader(o));
    add(inputBound(o));
    add(outputBound(o));
    add(kernelLaunch(p, o, ops));
    add(allOthers(o));
    add(collectives(o));
    add(mixedPrecision(o));
    add(stepGaps(o));
    for (const GpuTimeRow& d : o.gpu.devices) {
        add(exposedCopies(d));
        for (Recommendation& r : gpuStarvation(d)) out.push_back(std::move(r));
        add(lowUtilization(d));
    }
    add(replicaImbalance(o));
    add(tensorCoreMisses(p, ops));
    const HostApiTime api = hostApiTime(p);
    add(syncMemcpy(api));
    add(syncApis(api));
    add(pageableCopies(p));
    return out;
}

} // namespace stepscope
