#include "model/analysis/Overview.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "model/Json.h"
#include "model/analysis/InputPipeline.h"
#include "model/analysis/TensorCore.h"
#include "model/analysis/TfOpStats.h"

namespace stepscope {

namespace {

constexpr double kPsPerMs = 1e9;
constexpr double kPsPerUs = 1e6;

std::string oneDigit(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

std::string threeDigits(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

double share(double part, double whole) {
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

bool startsWith(std::string_view s, std::string_view p) {
    return s.substr(0, p.size()) == p;
}

// XProf's thresholds (op_stats_to_input_pipeline_analysis.cc).
constexpr double kModeratelyInputBound = 5, kHighlyInputBound = 20;
constexpr double kModeratelyOutputBound = 5, kHighlyOutputBound = 20;
constexpr double kModeratelyLaunchBound = 3, kHighlyLaunchBound = 15;
constexpr double kModeratelyAllOther = 3, kHighlyAllOther = 15;
constexpr double kModeratelyCollectives = 3, kHighlyCollectives = 15;

std::string level(double percent, double moderate, double high) {
    return percent >= high ? "high" : percent >= moderate ? "moderate" : "no";
}

} // namespace

Bottleneck classifyBottleneck(const StepAnalysis& steps) {
    Bottleneck b;
    double total = 0;
    std::array<double, kStepCategoryCount> sum{};
    for (const StepRecord& s : steps.steps) {
        total += double(s.durationPs);
        for (size_t c = 0; c < kStepCategoryCount; ++c) sum[c] += double(s.categoryPs[c]);
    }
    if (total <= 0) {
        b.input = "unknown";
        b.kernelLaunch = b.allOther = b.collectives = b.output = "no";
        b.inputStatement = "No step time measured, so the bottleneck cannot be told.";
        return b;
    }
    auto pct = [&](StepCategory c) { return share(sum[size_t(c)], total); };
    b.inputPercent = pct(StepCategory::Input);
    b.outputPercent = pct(StepCategory::Output);
    b.computePercent = pct(StepCategory::DeviceCompute16) + pct(StepCategory::DeviceCompute32);
    b.collectivesPercent = pct(StepCategory::DeviceCollectives);
    b.idlePercent = std::max(0.0, 100.0 - b.inputPercent - b.outputPercent - b.computePercent -
                                      b.collectivesPercent);
    b.kernelLaunchPercent = pct(StepCategory::KernelLaunch);
    // XProf's all-other share is UNKNOWN_TIME alone; Stepscope's All others also holds
    // HOST_TO_HOST, which XProf leaves out of every category.
    b.allOtherPercent = pct(StepCategory::AllOthers);
    bool allOtherReported = false;
    if (b.inputPercent >= kHighlyInputBound) {
        b.input = "host";
        b.inputStatement = "Your program is HIGHLY input-bound because " +
                           oneDigit(b.inputPercent) +
                           "% of the total step time is waiting for input.";
    } else if (b.inputPercent >= kModeratelyInputBound) {
        b.input = "both";
        b.inputStatement = "Your program is MODERATELY input-bound because " +
                           oneDigit(b.inputPercent) +
                           "% of the total step time is waiting for input.";
    } else if (b.allOtherPercent >= kModeratelyAllOther) {
        b.input = "both";
        b.inputStatement = "Your program is POTENTIALLY input-bound because " +
                           oneDigit(b.allOtherPercent) +
                           "% of the total step time is 'All others' time (I/O, Python or both).";
        allOtherReported = true;
    } else {
        b.input = "device";
        b.inputStatement = "Your program is NOT input-bound because only " +
                           oneDigit(b.inputPercent) +
                           "% of the total step time is waiting for input.";
    }
    b.output = level(b.outputPercent, kModeratelyOutputBound, kHighlyOutputBound);
    b.kernelLaunch = level(b.kernelLaunchPercent, kModeratelyLaunchBound, kHighlyLaunchBound);
    b.allOther =
        allOtherReported ? "no" : level(b.allOtherPercent, kModeratelyAllOther, kHighlyAllOther);
    b.collectives = level(b.collectivesPercent, kModeratelyCollectives, kHighlyCollectives);
    return b;
}

namespace {

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
        SideCursor<uint64_t> c(p.correlationIds());
        for (EventIndex e = t.firstEvent; e < end; ++e) {
            const std::string_view name = p.name(e);
            if (name.find("Pageable") != std::string_view::npos) {
                if (const uint64_t* id = c.at(e)) byLaunch.push_back({*id, e});
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
            SideCursor<uint64_t> c(p.correlationIds());
            for (EventIndex e = t.firstEvent; e < end; ++e) {
                const uint64_t* id = c.at(e);
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

// Eager share (see Overview::hostEagerPercent).
void eagerShares(const Profile& p, Overview& o) {
    const StringId key = p.strings().find("is_eager");
    int64_t carried[2] = {}, eager[2] = {}; // host, device
    if (key != StringPool::kNotFound) {
        for (const Track& t : p.tracks()) {
            const PlaneKind kind = p.planes()[t.plane].kind;
            if (t.derived || (kind != PlaneKind::Host && kind != PlaneKind::Gpu)) continue;
            const int side = kind == PlaneKind::Host ? 0 : 1;
            const EventIndex end = t.firstEvent + t.eventCount;
            for (EventIndex e = t.firstEvent; e < end; ++e)
                for (const StatValue& st : p.eventStats(e)) {
                    if (st.key != key || !st.isNumber()) continue;
                    carried[side] += p.duration(e);
                    if (st.asInt() != 0) eager[side] += p.duration(e);
                }
        }
    }
    o.hostEagerPercent =
        carried[0] > 0 ? share(double(eager[0]), double(carried[0])) : Table::missing();
    o.deviceEagerPercent =
        carried[1] > 0 ? share(double(eager[1]), double(carried[1])) : Table::missing();
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

Table topOpsTable(const TfOpStats& stats) {
    std::vector<const TfOpStatsRow*> device;
    int64_t deviceSelfPs = 0;
    for (const TfOpStatsRow& r : stats.rows) {
        if (r.side == OpSide::Device) {
            device.push_back(&r);
            deviceSelfPs += r.selfPs;
        }
    }
    std::sort(device.begin(), device.end(), [&](const TfOpStatsRow* a, const TfOpStatsRow* b) {
        if (a->selfPs != b->selfPs) return a->selfPs > b->selfPs;
        return stats.ops[a->op].name < stats.ops[b->op].name;
    });
    Table t;
    t.addColumn("Rank", Table::Type::Int);
    t.addColumn("Time (%)", Table::Type::Double, ColumnFormat::Percent,
                "Self time of the op, of all device op self time (idle excluded)");
    t.addColumn("Cumulative time (%)", Table::Type::Double, ColumnFormat::Percent);
    t.addColumn("Category", Table::Type::Text);
    t.addColumn("Operation", Table::Type::Text);
    t.addColumn("Self time (µs)", Table::Type::Double, ColumnFormat::Microseconds);
    t.addColumn("TensorCore eligible", Table::Type::Int, ColumnFormat::Bool);
    t.addColumn("Uses TensorCore", Table::Type::Double, ColumnFormat::Bool,
                "Yes when some of its kernels use Tensor Cores, No when its kernels are known "
                "not to, Unknown when nothing tells (empty in CSV)");
    double cumulative = 0;
    for (size_t i = 0; i < device.size() && i < 10; ++i) {
        const TfOpStatsRow& r = *device[i];
        const OpIdentity& op = stats.ops[r.op];
        const double pct = share(double(r.selfPs), double(deviceSelfPs));
        cumulative += pct;
        // Yes when some kernel uses Tensor Cores; No when kernels known not to hold at least as
        // much of its time as kernels of unknown use; else Unknown (unknown is never read as no).
        const int64_t unknownPs = r.kernelPs - r.tensorCoreKernelPs - r.noTensorCoreKernelPs;
        const double uses = r.tensorCoreKernelPs > 0 ? 1.0
                            : r.noTensorCoreKernelPs > 0 && r.noTensorCoreKernelPs >= unknownPs
                                ? 0.0
                                : Table::missing();
        t.addRow({int64_t(i + 1), pct, cumulative, op.type, op.name, double(r.selfPs) / kPsPerUs,
                  int64_t(opIsTensorCoreEligible(op.name) || r.tensorCoreKernelPs > 0 ? 1 : 0),
                  uses});
    }
    return t;
}

void recommend(const Profile& p, Overview& o, const TfOpStats& ops) {
    auto add = [&](std::string id, std::string level, std::string text, double value,
                   std::string tool, int64_t b = 0, int64_t e = 0) {
        o.recommendations.push_back(
            {std::move(id), std::move(level), std::move(text), value, std::move(tool), b, e});
    };
    const Bottleneck& b = o.bottleneck;
    const Extent steps = stepsExtent(o.steps);
    if (b.input == "host" || b.input == "both") {
        const bool potentially = b.inputPercent < kModeratelyInputBound;
        add("input_bound", b.input == "host" ? "high" : "moderate", b.inputStatement,
            potentially ? b.allOtherPercent : b.inputPercent, "input_pipeline", steps.begin,
            steps.end);
    }
    if (b.output != "no")
        add("output_bound", b.output,
            oneDigit(b.outputPercent) + "% of the total step time is spent on output "
                                        "(device to host copies).",
            b.outputPercent, "trace_viewer", steps.begin, steps.end);
    if (b.kernelLaunch != "no") {
        // Kernels shorter than the launch latency: the GPU guide's launch-bound signature.
        uint64_t kernels = 0, small = 0;
        for (uint32_t e : p.kernels().events()) {
            ++kernels;
            if (double(p.duration(e)) < kSmallKernelUs * kPsPerUs) ++small;
        }
        std::string text =
            oneDigit(b.kernelLaunchPercent) + "% of the total step time is spent on kernel launch.";
        if (kernels > 0)
            text += " " + std::to_string(small) + " of " + std::to_string(kernels) + " kernels (" +
                    oneDigit(share(double(small), double(kernels))) + "%) are shorter than " +
                    oneDigit(kSmallKernelUs) +
                    " µs, about the launch latency: try larger batches or XLA fusion";
        // XProf's KernelLaunchAnalysis adds the thread-mode advice only when tf.data is in use.
        text += tfDataInUse(ops) ? ", or set TF_GPU_THREAD_MODE=gpu_private." : ".";
        add("kernel_launch", b.kernelLaunch, text, b.kernelLaunchPercent, "kernel_stats");
    }
    if (b.allOther != "no")
        add("all_others", b.allOther,
            oneDigit(b.allOtherPercent) +
                "% of the total step time is 'All others' time: this could be Python overhead.",
            b.allOtherPercent, "trace_viewer", steps.begin, steps.end);
    if (b.collectives != "no")
        add("collectives", b.collectives,
            oneDigit(b.collectivesPercent) +
                "% of the total step time is spent on device collective communication.",
            b.collectivesPercent, "trace_viewer", steps.begin, steps.end);
    // Mixed precision: XProf advises it when under 10% of device compute is 16-bit, which on
    // bf16 and fp8 profiles it reads as 0% (its rule knows only "half"). Stepscope advises it only
    // where full fp32 (not tf32, not fp64) holds most of the kernel time and under 10% runs below
    // 32 bits, by the precision of each kernel (KernelFacts); kernels of unknown precision count
    // for neither, so a profile whose precision cannot be read gets no advice.
    int64_t allKernelPs = 0, lowPs = 0;
    for (size_t i = 0; i < kPrecisionCount; ++i) {
        allKernelPs += o.kernelPrecisionPs[i];
        if (isBelow32Bit(Precision(i))) lowPs += o.kernelPrecisionPs[i];
    }
    const double fp32Percent =
        share(double(o.kernelPrecisionPs[size_t(Precision::FP32)]), double(allKernelPs));
    const double lowPercent = share(double(lowPs), double(allKernelPs));
    if (allKernelPs > 0 && fp32Percent >= kFp32DominantPercent && lowPercent < kLow16BitPercent)
        add("mixed_precision", "moderate",
            oneDigit(fp32Percent) + "% of kernel time runs in full fp32 and " +
                oneDigit(lowPercent) +
                "% in 16 bits or fewer: enabling mixed precision (bf16 or fp16) can speed up "
                "training up to ~3x on Volta and newer GPUs.",
            fp32Percent, "kernel_stats");
    // Gaps between steps: time from one step's end to the next step's start.
    if (o.steps.steps.size() >= 2 && o.stepTimeMs.average > 0) {
        std::vector<StepRecord> byTime = o.steps.steps;
        std::sort(byTime.begin(), byTime.end(),
                  [](const StepRecord& x, const StepRecord& y) { return x.beginPs < y.beginPs; });
        int64_t gapPs = 0, worst = 0, worstBegin = 0;
        for (size_t i = 1; i < byTime.size(); ++i) {
            const int64_t g =
                byTime[i].beginPs - (byTime[i - 1].beginPs + byTime[i - 1].durationPs);
            if (g <= 0) continue;
            gapPs += g;
            if (g > worst) {
                worst = g;
                worstBegin = byTime[i - 1].beginPs + byTime[i - 1].durationPs;
            }
        }
        const double meanGapMs = double(gapPs) / double(byTime.size() - 1) / kPsPerMs;
        const double pct = share(meanGapMs, o.stepTimeMs.average);
        if (pct >= kStepGapPercent)
            add("step_gaps", "moderate",
                "Between steps the program spends on average " + oneDigit(meanGapMs) +
                    " ms outside any step (" + oneDigit(pct) +
                    "% of the average step time): look for callbacks, metrics or ops outside "
                    "the training function in the largest gap.",
                pct, "trace_viewer", worstBegin, worstBegin + worst);
    }
    // Per-device checks. Replicas are the devices that ran computation: a device with only a few
    // copies (the TF BERT profile's GPU:1) is no replica, and would make any spread look like 99%.
    int64_t maxBusy = 0, minBusy = INT64_MAX;
    size_t computing = 0;
    std::string busiest, idlest;
    for (const GpuTimeRow& d : o.gpu.devices) {
        if (d.computePs > 0) {
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
        const double exposed = share(double(d.memoryExposedPs), double(d.busyPs));
        if (exposed >= kExposedCopyPercent && d.memoryExposedPs >= kMinExposedCopyPs)
            add("exposed_copies", "moderate",
                d.device + ": " + oneDigit(exposed) +
                    "% of its busy time is copies or sets that no computation overlaps (" +
                    threeDigits(double(d.memoryExposedPs) / kPsPerMs) + " ms).",
                exposed, "trace_viewer", d.firstPs, d.lastPs);
        for (const GpuIdleGap& g : idleGaps(d, kStarvationPs))
            add("gpu_starvation", "moderate",
                d.device + " is idle for " + oneDigit(double(g.endPs - g.beginPs) / kPsPerMs) +
                    " ms between its work (GPU starvation: gaps over 500 ms).",
                double(g.endPs - g.beginPs) / kPsPerMs, "trace_viewer", g.beginPs, g.endPs);
        const std::vector<double> windows =
            utilizationWindows(d, d.firstPs, d.lastPs, kUtilizationChunks);
        // Evidence: the longest run of consecutive low windows (the earliest of equals), so the
        // trace opens on low utilization rather than on the whole run.
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
        if (low > 0)
            add("low_utilization", "info",
                d.device + ": " + std::to_string(low) + " of " +
                    std::to_string(kUtilizationChunks) +
                    " equal windows of its active time are less than 50% busy.",
                double(low), "trace_viewer", lowBegin, lowEnd);
    }
    if (computing >= 2 && maxBusy > 0) {
        const double spread = share(double(maxBusy - minBusy), double(maxBusy));
        if (spread >= kReplicaImbalancePercent)
            add("replica_imbalance", "moderate",
                "GPU busy time differs by " + oneDigit(spread) + "% between " + busiest +
                    " (busiest) and " + idlest + " (least busy).",
                spread, "trace_viewer");
    }
    // Tensor Core eligible ops whose kernels are known NOT to use Tensor Cores (KernelFacts says
    // No), on GPUs that have them: NVIDIA cc 7.0+ (XLA writes the vendor "Nvidia", the Kineto
    // importer "NVIDIA"; older profiles may have none) and AMD cc 9.4+ (MI300 on; earlier gfx9
    // parts differ in whether they have Matrix Cores). Kernels whose use is unknown are never
    // counted as misses, and the text names the ops it counts.
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
    if (tensorCores) {
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
        if (pct >= kTensorCoreMissPercent) {
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
            add("tensor_core", "moderate",
                oneDigit(pct) +
                    "% of kernel time is in Tensor Core eligible ops whose kernels do not use "
                    "Tensor Cores: " +
                    names + " (for fp16, make dimensions multiples of 8).",
                pct, "kernel_stats");
        }
    }
    const HostApiTime api = hostApiTime(p);
    const double hostSpan = double(api.last - api.first);
    if (api.syncCopyCalls > 0)
        add("sync_memcpy", "moderate",
            std::to_string(api.syncCopyCalls) +
                " synchronous memcpy/memset calls block the host "
                "for " +
                oneDigit(double(api.syncCopyPs) / kPsPerMs) + " ms: use the Async variants.",
            double(api.syncCopyPs) / kPsPerMs, "trace_viewer");
    if (hostSpan > 0 && share(double(api.syncPs), hostSpan) >= kSyncApiPercent)
        add("sync_apis", "moderate",
            "For " + oneDigit(double(api.syncPs) / kPsPerMs) + " ms (" +
                oneDigit(share(double(api.syncPs), hostSpan)) +
                "% of the host span) a host thread is blocked in synchronization calls (" +
                std::to_string(api.syncCalls) + " calls).",
            share(double(api.syncPs), hostSpan), "trace_viewer");
    const PageableCopies pageable = pageableAsyncCopies(p);
    if (pageable.count > 0)
        add("pageable_async_copies", "moderate",
            std::to_string(pageable.count) +
                " asynchronous copies use pageable host memory, which makes them synchronous (" +
                threeDigits(double(pageable.ps) / kPsPerMs) +
                " ms): pin the host buffers (pin_memory=True, cudaHostAlloc).",
            double(pageable.count), "trace_viewer", pageable.first, pageable.last);
}

// The PyTorch TensorBoard plugin's step breakdown (Overview::torch) and its summaries.
void torchBreakdown(const Profile& p, Overview& o, const Progress* progress) {
    std::vector<double> times;
    std::array<std::vector<double>, kTorchRoleCount> roles;
    for (TorchOverview& t : computeTorchOverviews(p, progress)) {
        if (t.steps.empty()) continue;
        for (const TorchStepCosts& s : t.steps) {
            times.push_back(double(s.range.end - s.range.start) / kPsPerMs);
            for (size_t r = 0; r < kTorchRoleCount; ++r)
                roles[r].push_back(double(s.ps[r]) / kPsPerMs);
        }
        o.torch.push_back(std::move(t));
    }
    o.torchStepTimeMs = summarize(times);
    for (size_t r = 0; r < kTorchRoleCount; ++r) o.torchRoleMs[r] = summarize(roles[r]);
    // The plugin's input rule (data.py RunProfileData.analyze): average DataLoader time over
    // average step time above 5%.
    const double dataLoader =
        o.torchStepTimeMs.average > 0
            ? share(o.torchRoleMs[size_t(TorchRole::DataLoader)].average, o.torchStepTimeMs.average)
            : 0;
    if (dataLoader > kTorchDataLoaderPercent)
        o.recommendations.push_back(
            {"pytorch_dataloader", "moderate",
             oneDigit(dataLoader) +
                 "% of the step time is in the DataLoader (PyTorch TensorBoard plugin's step "
                 "breakdown): set num_workers when constructing the DataLoader to load data in "
                 "several processes.",
             dataLoader, "pytorch"});
}

Table torchOverviewStepTable(const Overview& o) {
    Table t;
    t.addColumn("Step", Table::Type::Text, ColumnFormat::Plain,
                "N of ProfilerStep#N, extended to the device work it launched (the PyTorch "
                "TensorBoard plugin's steps)");
    const bool hosts = o.torch.size() > 1;
    if (hosts) t.addColumn("Host", Table::Type::Text);
    t.addColumn("Begin (ms)", Table::Type::Double, ColumnFormat::Plain, "From the profile start");
    t.addColumn("Step time (ms)", Table::Type::Double);
    for (size_t r = 0; r < kTorchRoleCount; ++r)
        t.addColumn(std::string(torchRoleName(TorchRole(r))) + " (ms)", Table::Type::Double);
    for (const TorchOverview& h : o.torch)
        for (const TorchStepCosts& s : h.steps) {
            std::vector<Table::Cell> row{s.name};
            if (hosts)
                row.push_back(h.host < o.hostNames.size() ? o.hostNames[h.host] : std::string());
            row.push_back(double(s.range.start) / kPsPerMs);
            row.push_back(double(s.range.end - s.range.start) / kPsPerMs);
            for (int64_t ps : s.ps) row.push_back(double(ps) / kPsPerMs);
            t.addRow(std::move(row));
        }
    return t;
}

} // namespace

Overview computeOverview(const Profile& p, std::string_view stepPattern, const Progress* progress) {
    Overview o;
    // One HLO catalog for the steps and the op statistics.
    const HloCatalog hlo(p, progress);
    o.steps = analyzeSteps(p, stepPattern, progress, &hlo);
    if (progress && progress->cancelled()) return {};
    std::vector<double> times;
    std::array<std::vector<double>, kStepCategoryCount> cats;
    double compute16 = 0, compute = 0;
    for (const StepRecord& s : o.steps.steps) {
        times.push_back(double(s.durationPs) / kPsPerMs);
        for (size_t c = 0; c < kStepCategoryCount; ++c)
            cats[c].push_back(double(s.categoryPs[c]) / kPsPerMs);
        compute16 += double(s.ps(StepCategory::DeviceCompute16));
        compute += double(s.deviceComputePs());
    }
    o.stepTimeMs = summarize(times);
    for (size_t c = 0; c < kStepCategoryCount; ++c) o.categoryMs[c] = summarize(cats[c]);
    if (stepPattern.empty() && isTorchProfile(p)) {
        if (progress) progress->report("PyTorch step breakdown", 0.5);
        torchBreakdown(p, o, progress);
        if (progress && progress->cancelled()) return {};
    }
    o.bottleneck = classifyBottleneck(o.steps);
    o.compute16Percent = compute > 0 ? share(compute16, compute) : Table::missing();
    if (progress) progress->report("GPU time", 0.6);
    o.gpu = computeGpuTime(p, progress);
    if (progress && progress->cancelled()) return {};
    if (progress) progress->report("Op statistics", 0.7);
    const TfOpStats ops = computeTfOpStats(p, progress, &hlo);
    if (progress && progress->cancelled()) return {};
    o.topOps = topOpsTable(ops);
    for (const TfOpStatsRow& r : ops.rows)
        if (r.side == OpSide::Device)
            for (size_t i = 0; i < kPrecisionCount; ++i) o.kernelPrecisionPs[i] += r.precisionPs[i];
    // Op placement (ConvertOpStatsToOverviewPageAnalysis, op_stats_to_overview_page.cc): host and
    // device shares of op occurrences.
    uint64_t hostOps = 0, deviceOps = 0;
    for (const TfOpStatsRow& r : ops.rows)
        (r.side == OpSide::Device ? deviceOps : hostOps) += r.occurrences;
    const double opTotal = double(hostOps + deviceOps);
    o.hostOpPercent = opTotal > 0 ? share(double(hostOps), opTotal) : Table::missing();
    o.deviceOpPercent = opTotal > 0 ? share(double(deviceOps), opTotal) : Table::missing();
    eagerShares(p, o);
    for (const Host& h : p.hosts()) {
        o.hosts.push_back(h.hostnames.empty() ? h.name : h.hostnames.front());
        o.hostNames.push_back(h.name);
        for (const std::string& e : h.errors) o.completeness.push_back(h.name + ": error: " + e);
        for (const std::string& w : h.warnings)
            o.completeness.push_back(h.name + ": warning: " + w);
    }
    for (const std::string& e : ops.hloErrors)
        o.completeness.push_back(e + " (its kernels are named by hlo_op alone)");
    for (const Plane& pl : p.planes())
        if (pl.kind == PlaneKind::Gpu || pl.kind == PlaneKind::Tpu)
            o.devices.push_back({std::string(p.str(pl.name)), p.hosts()[pl.host].name, pl.device});
    recommend(p, o, ops);
    return o;
}

Table overviewStepTable(const Overview& o) {
    if (!o.torch.empty()) return torchOverviewStepTable(o);
    Table t;
    t.addColumn("Step", Table::Type::Int);
    // With several hosts each host has its own steps.
    const bool hosts = o.hostNames.size() > 1;
    if (hosts) t.addColumn("Host", Table::Type::Text);
    t.addColumn("Name", Table::Type::Text);
    t.addColumn("Begin (ms)", Table::Type::Double, ColumnFormat::Plain, "From the profile start");
    t.addColumn("Step time (ms)", Table::Type::Double);
    for (size_t c = 0; c < kStepCategoryCount; ++c)
        t.addColumn(std::string(stepCategoryName(StepCategory(c))) + " (ms)", Table::Type::Double);
    t.addColumn("Input (%)", Table::Type::Double, ColumnFormat::Percent,
                "Input time of the step time");
    for (const StepRecord& s : o.steps.steps) {
        std::vector<Table::Cell> row{s.number};
        if (hosts) row.push_back(s.host < o.hostNames.size() ? o.hostNames[s.host] : std::string());
        row.push_back(s.name);
        row.push_back(double(s.beginPs) / kPsPerMs);
        row.push_back(double(s.durationPs) / kPsPerMs);
        for (size_t c = 0; c < kStepCategoryCount; ++c)
            row.push_back(double(s.categoryPs[c]) / kPsPerMs);
        row.push_back(share(double(s.ps(StepCategory::Input)), double(s.durationPs)));
        t.addRow(std::move(row));
    }
    return t;
}

Table gpuTimeTable(const GpuTime& gpu) {
    Table t;
    t.addColumn("Device", Table::Type::Text);
    t.addColumn("Events", Table::Type::Int);
    t.addColumn("Span (ms)", Table::Type::Double, ColumnFormat::Plain,
                "From its first event's start to its last event's end");
    t.addColumn("Busy (ms)", Table::Type::Double, ColumnFormat::Plain,
                "Union of all its stream events");
    t.addColumn("Idle (ms)", Table::Type::Double, ColumnFormat::Plain, "Span minus busy");
    t.addColumn("Busy (%)", Table::Type::Double, ColumnFormat::Percent);
    t.addColumn("Computation (ms)", Table::Type::Double);
    t.addColumn("Collectives (ms)", Table::Type::Double);
    t.addColumn("Collectives exposed (ms)", Table::Type::Double, ColumnFormat::Plain,
                "Not overlapped by computation");
    t.addColumn("Memcpy/memset (ms)", Table::Type::Double);
    t.addColumn("Memcpy/memset exposed (ms)", Table::Type::Double, ColumnFormat::Plain,
                "Not overlapped by computation");
    t.addColumn("Memcpy/memset only (ms)", Table::Type::Double, ColumnFormat::Plain,
                "Overlapped by neither computation nor collectives (TraceLens' exposed memcpy)");
    for (const GpuTimeRow& d : gpu.devices)
        t.addRow({d.device, int64_t(d.events), double(d.spanPs()) / kPsPerMs,
                  double(d.busyPs) / kPsPerMs, double(d.idlePs) / kPsPerMs,
                  share(double(d.busyPs), double(d.spanPs())), double(d.computePs) / kPsPerMs,
                  double(d.collectivesPs) / kPsPerMs, double(d.collectivesExposedPs) / kPsPerMs,
                  double(d.memoryPs) / kPsPerMs, double(d.memoryExposedPs) / kPsPerMs,
                  double(d.memoryOnlyPs) / kPsPerMs});
    return t;
}

Table precisionTable(const Overview& o) {
    Table t;
    t.addColumn("Precision", Table::Type::Text, ColumnFormat::Plain,
                "The narrowest floating-point type a kernel reads or writes, from the best "
                "evidence the profile holds (HLO, the launching op's input types, the kernel name, "
                "tensor shapes)");
    t.addColumn("Kernel time (ms)", Table::Type::Double);
    t.addColumn("Kernel time (%)", Table::Type::Double, ColumnFormat::Percent,
                "Of all kernel time in the profile");
    int64_t total = 0;
    for (int64_t ps : o.kernelPrecisionPs) total += ps;
    // Widest first, as a user reads "fp32 ... bf16 ... fp8"; unknown last.
    for (size_t k = 0; k < kPrecisionCount; ++k) {
        const size_t i = k + 1 < kPrecisionCount ? kPrecisionCount - 2 - k : kPrecisionCount - 1;
        const int64_t ps = o.kernelPrecisionPs[i];
        if (ps <= 0) continue;
        t.addRow({std::string(precisionName(Precision(i))), double(ps) / kPsPerMs,
                  share(double(ps), double(total))});
    }
    return t;
}

std::string overviewJson(const Overview& o) {
    JsonWriter j;
    j.beginObject().field("tool", "overview");
    j.key("steps").beginObject();
    j.field("source", stepSourceName(o.steps.source));
    if (!o.steps.pattern.empty()) j.field("pattern", o.steps.pattern);
    j.field("count", uint64_t(o.steps.steps.size()));
    j.field("not_well_formed", uint64_t(o.steps.notWellFormed));
    j.endObject();
    // No steps: every step statistic is "not recorded" (null), not 0.
    const bool noSteps = o.steps.steps.empty();
    auto orNull = [&](double v) { return noSteps ? Table::missing() : v; };
    auto summary = [&](const SampleSummary& s) {
        auto recorded = [&](double v) { return s.count == 0 ? Table::missing() : v; };
        j.beginObject()
            .field("average", recorded(s.average))
            // One step has no spread: not recorded, not 0.
            .field("stddev", s.count < 2 ? Table::missing() : s.stddev)
            .field("min", recorded(s.minimum))
            .field("max", recorded(s.maximum))
            .endObject();
    };
    j.key("summary").beginObject();
    j.key("step_time_ms");
    summary(o.stepTimeMs);
    j.key("breakdown_ms").beginObject();
    for (size_t c = 0; c < kStepCategoryCount; ++c) {
        j.key(stepCategoryName(StepCategory(c)));
        summary(o.categoryMs[c]);
    }
    j.endObject();
    const Bottleneck& b = o.bottleneck;
    j.key("bottleneck")
        .beginObject()
        .field("input_percent", orNull(b.inputPercent))
        .field("output_percent", orNull(b.outputPercent))
        .field("compute_percent", orNull(b.computePercent))
        .field("idle_percent", orNull(b.idlePercent))
        .field("kernel_launch_percent", orNull(b.kernelLaunchPercent))
        .field("all_other_percent", orNull(b.allOtherPercent))
        .field("collectives_percent", orNull(b.collectivesPercent))
        .field("input", b.input)
        .field("kernel_launch", b.kernelLaunch)
        .field("all_other", b.allOther)
        .field("collectives", b.collectives)
        .field("output", b.output)
        .field("input_statement", b.inputStatement)
        .endObject();
    if (!o.torch.empty()) {
        // The PyTorch TensorBoard plugin's step breakdown (step_breakdown holds its steps).
        j.key("pytorch_step_time_ms");
        summary(o.torchStepTimeMs);
        j.key("pytorch_breakdown_ms").beginObject();
        for (size_t r = 0; r < kTorchRoleCount; ++r) {
            j.key(torchRoleName(TorchRole(r)));
            summary(o.torchRoleMs[r]);
        }
        j.endObject();
    }
    j.field("device_compute_16bit_percent", o.compute16Percent);
    j.field("host_op_percent", o.hostOpPercent);
    j.field("device_op_percent", o.deviceOpPercent);
    j.field("host_eager_percent", o.hostEagerPercent);
    j.field("device_eager_percent", o.deviceEagerPercent);
    j.endObject();
    j.key("step_breakdown").table(overviewStepTable(o));
    j.key("gpu_time").table(gpuTimeTable(o.gpu));
    j.key("top_ops").table(o.topOps);
    j.key("kernel_time_by_precision").table(precisionTable(o));
    j.key("environment").beginObject();
    j.key("hosts").beginArray();
    for (const std::string& h : o.hosts) j.value(h);
    j.endArray();
    j.key("devices").beginArray();
    for (const DeviceEnvironment& d : o.devices) {
        j.beginObject().field("name", d.name).field("host", d.host).field("vendor", d.info.vendor);
        if (d.info.computeCapMajor > 0)
            j.field("compute_capability", std::to_string(d.info.computeCapMajor) + "." +
                                              std::to_string(d.info.computeCapMinor));
        if (d.info.coreCount > 0) j.field("cores", d.info.coreCount);
        if (d.info.memoryBytes > 0) j.field("memory_bytes", d.info.memoryBytes);
        j.endObject();
    }
    j.endArray();
    j.endObject();
    j.key("completeness").beginArray();
    for (const std::string& c : o.completeness) j.value(c);
    j.endArray();
    j.key("recommendations").beginArray();
    for (const Recommendation& r : o.recommendations)
        j.beginObject()
            .field("id", r.id)
            .field("level", r.level)
            .field("text", r.text)
            .field("value", r.value)
            .field("tool", r.tool)
            .field("begin_ms", double(r.beginPs) / kPsPerMs)
            .field("end_ms", double(r.endPs) / kPsPerMs)
            .endObject();
    j.endArray();
    j.endObject();
    return j.take();
}

} // namespace stepscope
