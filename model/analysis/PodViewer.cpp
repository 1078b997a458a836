#include "model/analysis/PodViewer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <map>
#include <thread>

#include "model/Json.h"
#include "model/ProfileLoader.h"
#include "model/ToolId.h"
#include "model/analysis/GpuTime.h"

namespace stepscope {

namespace {

constexpr double kPsPerMs = 1e9;

using Interval = GpuIdleGap;

// Time covered by both `a` and `b` (each disjoint and sorted).
int64_t intersection(const std::vector<Interval>& a, const std::vector<Interval>& b) {
    int64_t out = 0;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const int64_t lo = std::max(a[i].beginPs, b[j].beginPs),
                      hi = std::min(a[i].endPs, b[j].endPs);
        if (hi > lo) out += hi - lo;
        if (a[i].endPs < b[j].endPs)
            ++i;
        else
            ++j;
    }
    return out;
}

enum class KernelKind : uint8_t { Compute, Collective, Memory };

struct DeviceEvent {
    int64_t begin, end;
    KernelKind kind;
    StringId name;
};

// Every event on the worker's GPU streams (as GpuTime: device-op lines of GPU planes, never
// derived lines), sorted by start.
std::vector<DeviceEvent> deviceEvents(const Profile& p, uint32_t host) {
    std::vector<DeviceEvent> out;
    for (size_t ti = 0; ti < p.tracks().size(); ++ti) {
        const Track& t = p.tracks()[ti];
        const Plane& plane = p.planes()[t.plane];
        if (!t.deviceOps || t.derived || plane.kind != PlaneKind::Gpu || plane.host != host)
            continue;
        for (EventIndex e = t.firstEvent; e < t.firstEvent + t.eventCount; ++e) {
            const std::string_view name = p.name(e);
            KernelKind kind = KernelKind::Compute;
            if (isCollectiveKernelName(name))
                kind = KernelKind::Collective;
            else if (p.memcpys().find(e) || name.find("Memcpy") != std::string_view::npos ||
                     name.find("Memset") != std::string_view::npos)
                kind = KernelKind::Memory;
            out.push_back({p.start(e), p.end(e), kind, p.nameId(e)});
        }
    }
    std::sort(out.begin(), out.end(),
              [](const DeviceEvent& a, const DeviceEvent& b) { return a.begin < b.begin; });
    return out;
}

// A PyTorch/Kineto trace: its events carry Kineto's "category" (cat) metadata stat.
bool isPytorchTrace(const Profile& p, uint32_t host) {
    const StringId key = p.strings().find("category");
    if (key == StringPool::kNotFound) return false;
    for (size_t m = 0; m < p.metadata().size(); ++m) {
        if (p.planes()[p.metadata()[m].plane].host != host) continue;
        for (const StatValue& s : p.metadataStats(uint32_t(m)))
            if (s.key == key) return true;
    }
    return false;
}

int64_t rankOf(const Profile& p, uint32_t host) {
    for (const Plane& plane : p.planes())
        if (plane.host == host)
            for (const StatValue& s : p.planeStats(plane))
                if (p.str(s.key) == "distributed rank" && s.isNumber()) return s.asInt();
    return -1;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The worker furthest above the median of `values` (worker index, value in ms); none when fewer
// than two workers have a value or none is above the median.
PodStraggler straggler(const std::vector<std::pair<int, double>>& values) {
    PodStraggler s;
    if (values.size() < 2) return s;
    std::vector<double> v;
    for (const auto& [w, x] : values) v.push_back(x);
    s.medianMs = median(v);
    for (const auto& [w, x] : values) {
        const double excess = x - s.medianMs;
        if (excess > 0 && (s.worker < 0 || excess > s.excessMs)) {
            s.worker = w;
            s.valueMs = x;
            s.excessMs = excess;
        }
    }
    return s;
}

struct WorkerSteps {
    std::vector<StepRecord> steps;
    std::vector<DeviceEvent> device;
};

} // namespace

std::vector<std::string> PodAnalysis::distributedNames() const {
    std::vector<std::string> out;
    for (size_t w : distributedWorkers) out.push_back(workers[w].name);
    return out;
}

size_t PodAnalysis::loadedWorkers() const {
    return size_t(std::count_if(workers.begin(), workers.end(),
                                [](const PodWorker& w) { return w.error.empty(); }));
}

namespace {

// analyzePod with worker i on the planes of host `unorderedHosts[i]` of its profile.
PodAnalysis analyzeWorkers(std::vector<PodWorker> unordered,
                           const std::vector<std::shared_ptr<const Profile>>& unorderedProfiles,
                           const std::vector<uint32_t>& unorderedHosts, const Progress* progress) {
    // Ranks first, in rank order, then the other workers in the order given (host order).
    for (size_t w = 0; w < unordered.size(); ++w)
        if (unorderedProfiles[w] && unordered[w].rank < 0)
            unordered[w].rank = rankOf(*unorderedProfiles[w], unorderedHosts[w]);
    std::vector<size_t> order(unordered.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const int64_t ra = unordered[a].rank, rb = unordered[b].rank;
        if ((ra < 0) != (rb < 0)) return ra >= 0;
        return ra < rb;
    });
    std::vector<PodWorker> workers;
    std::vector<std::shared_ptr<const Profile>> profiles;
    std::vector<uint32_t> hostOf;
    for (size_t i : order) {
        workers.push_back(std::move(unordered[i]));
        profiles.push_back(unorderedProfiles[i]);
        hostOf.push_back(unorderedHosts[i]);
    }

    PodAnalysis pod;
    const size_t n = workers.size();
    std::vector<WorkerSteps> per(n);
    bool any = false;
    for (size_t w = 0; w < n; ++w) {
        if (!profiles[w]) continue;
        const Profile& p = *profiles[w];
        if (progress && progress->cancelled()) return {};
        StepAnalysis steps = analyzeSteps(p, {}, nullptr);
        workers[w].source = steps.source;
        workers[w].steps = steps.steps.size();
        workers[w].startNs = p.startNs();
        if (steps.steps.empty()) {
            workers[w].error = "no steps found (no step markers, ProfilerStep#N annotations or "
                               "grouped device steps)";
            continue;
        }
        per[w].steps = std::move(steps.steps);
        per[w].device = deviceEvents(p, hostOf[w]);
        pod.startNs = any ? std::min(pod.startNs, p.startNs()) : p.startNs();
        any = true;
        if (progress) progress->report("Analysing workers", double(w + 1) / double(n));
    }
    for (size_t w = 0; w < n; ++w)
        if (workers[w].rank >= 0) workers[w].name = "rank " + std::to_string(workers[w].rank);

    std::map<int64_t, size_t> stepIndex;
    for (size_t w = 0; w < n; ++w)
        for (const StepRecord& s : per[w].steps) stepIndex.emplace(s.number, 0);
    size_t k = 0;
    for (auto& [number, index] : stepIndex) {
        index = k++;
        PodStep step;
        step.number = number;
        step.cells.resize(n);
        pod.steps.push_back(std::move(step));
    }

    std::map<std::pair<int, StringId>, PodCollectiveKernel> kernels;
    for (size_t w = 0; w < n; ++w) {
        if (per[w].steps.empty()) continue;
        const Profile& p = *profiles[w];
        const int64_t shiftPs = (p.startNs() - pod.startNs) * 1000;
        const std::vector<DeviceEvent>& dev = per[w].device;
        int64_t longest = 0;
        for (const DeviceEvent& d : dev) longest = std::max(longest, d.end - d.begin);
        for (const StepRecord& s : per[w].steps) {
            PodCell& cell = pod.steps[stepIndex[s.number]].cells[w];
            cell.present = true;
            cell.step = s;
            cell.beginPs = s.beginPs + shiftPs;
            const int64_t lo = s.beginPs, hi = s.beginPs + s.durationPs;
            auto it = std::lower_bound(dev.begin(), dev.end(), lo - longest,
                                       [](const DeviceEvent& d, int64_t t) { return d.begin < t; });
            std::vector<Interval> collective, compute;
            for (; it != dev.end() && it->begin < hi; ++it) {
                const int64_t b = std::max(it->begin, lo), e = std::min(it->end, hi);
                if (e < b || (e == b && it->end > it->begin)) continue; // outside the step
                if (it->kind == KernelKind::Compute) compute.push_back({b, e});
                if (it->kind != KernelKind::Collective) continue;
                collective.push_back({b, e});
                if (cell.firstCollectivePs < 0) cell.firstCollectivePs = b + shiftPs;
                PodCollectiveKernel& kernel = kernels[{int(w), it->name}];
                kernel.worker = int(w);
                ++kernel.calls;
                kernel.totalPs += e - b;
            }
            collective = uniteIntervals(std::move(collective));
            compute = uniteIntervals(std::move(compute));
            cell.collectivePs = intervalsLength(collective);
            cell.collectiveOverlapPs = intersection(collective, compute);
        }
    }
    for (auto& [key, kernel] : kernels) {
        kernel.name = std::string(profiles[size_t(key.first)]->str(key.second));
        pod.kernels.push_back(std::move(kernel));
    }
    std::sort(pod.kernels.begin(), pod.kernels.end(),
              [](const PodCollectiveKernel& a, const PodCollectiveKernel& b) {
                  if (a.worker != b.worker) return a.worker < b.worker;
                  if (a.totalPs != b.totalPs) return a.totalPs > b.totalPs;
                  return a.name < b.name;
              });

    // Stragglers per step, and the per-worker sums for the whole run.
    std::vector<double> stepSum(n), waitSum(n), lagSum(n);
    std::vector<int> stepCount(n), lagCount(n);
    for (PodStep& step : pod.steps) {
        std::vector<std::pair<int, double>> time, wait, start;
        int64_t first = -1;
        for (size_t w = 0; w < n; ++w) {
            const PodCell& c = step.cells[w];
            if (!c.present) continue;
            time.push_back({int(w), double(c.step.durationPs) / kPsPerMs});
            wait.push_back({int(w), c.collectiveWaitPs() / kPsPerMs});
            stepSum[w] += time.back().second;
            waitSum[w] += wait.back().second;
            ++stepCount[w];
            if (c.firstCollectivePs >= 0 && (first < 0 || c.firstCollectivePs < first))
                first = c.firstCollectivePs;
        }
        for (size_t w = 0; w < n; ++w) {
            const PodCell& c = step.cells[w];
            if (!c.present || c.firstCollectivePs < 0) continue;
            start.push_back({int(w), double(c.firstCollectivePs - first) / kPsPerMs});
        }
        step.stepTime = straggler(time);
        step.collectiveWait = straggler(wait);
        if (start.size() >= 2) {
            for (const auto& [w, lag] : start) {
                lagSum[size_t(w)] += lag;
                ++lagCount[size_t(w)];
            }
            const auto last =
                std::max_element(start.begin(), start.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
            std::vector<double> lags;
            for (const auto& [w, lag] : start) lags.push_back(lag);
            step.lastToStart.medianMs = median(lags);
            if (last->second > 0) {
                step.lastToStart.worker = last->first;
                step.lastToStart.valueMs = last->second;
                step.lastToStart.excessMs = last->second - step.lastToStart.medianMs;
            }
        }
    }
    std::vector<std::pair<int, double>> meanStep, meanWait, meanLag;
    for (size_t w = 0; w < n; ++w) {
        if (stepCount[w] > 0) {
            meanStep.push_back({int(w), stepSum[w] / stepCount[w]});
            meanWait.push_back({int(w), waitSum[w] / stepCount[w]});
        }
        if (lagCount[w] > 0) meanLag.push_back({int(w), lagSum[w] / lagCount[w]});
    }
    pod.stepTime = straggler(meanStep);
    pod.collectiveWait = straggler(meanWait);
    if (meanLag.size() >= 2) {
        const auto last =
            std::max_element(meanLag.begin(), meanLag.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        std::vector<double> lags;
        for (const auto& [w, lag] : meanLag) lags.push_back(lag);
        pod.lastToStart.medianMs = median(lags);
        if (last->second > 0) {
            pod.lastToStart.worker = last->first;
            pod.lastToStart.valueMs = last->second;
            pod.lastToStart.excessMs = last->second - pod.lastToStart.medianMs;
        }
    }
    // PyTorch's distributed view over every loaded worker that is a PyTorch trace.
    std::vector<DistributedInput> inputs;
    for (size_t w = 0; w < n; ++w)
        if (profiles[w] && isPytorchTrace(*profiles[w], hostOf[w])) {
            inputs.push_back({profiles[w].get(), hostOf[w]});
            pod.distributedWorkers.push_back(w);
        }
    pod.pytorch = !inputs.empty();
    if (pod.pytorch) pod.distributed = analyzeDistributed(inputs);
    pod.workers = std::move(workers);
    return pod;
}

} // namespace

PodAnalysis analyzePod(std::vector<PodWorker> workers,
                       const std::vector<std::shared_ptr<const Profile>>& profiles,
                       const Progress* progress) {
    return analyzeWorkers(std::move(workers), profiles, std::vector<uint32_t>(profiles.size(), 0),
                          progress);
}

PodAnalysis computePodViewer(const std::vector<HostFile>& hosts, const Progress* progress) {
    std::vector<PodWorker> workers(hosts.size());
    for (size_t i = 0; i < hosts.size(); ++i) {
        workers[i].name = workers[i].host = hosts[i].host;
        workers[i].path = hosts[i].path;
    }
    // One load per worker on a pool of threads, each with its own Progress so that a cancel
    // reaches every load in flight.
    std::vector<std::unique_ptr<Progress>> child(hosts.size());
    for (auto& c : child) c = std::make_unique<Progress>();
    std::vector<LoadResult> results(hosts.size());
    std::atomic<size_t> next{0}, done{0};
    auto run = [&] {
        for (size_t i = next++; i < hosts.size(); i = next++) {
            if (hosts[i].path.empty())
                results[i].error = "it is held in memory, not in a file";
            else
                results[i] = loadHosts({hosts[i]}, child[i].get());
            const size_t finished = ++done;
            if (progress)
                progress->report("Loaded worker " + hosts[i].host,
                                 double(finished) / double(hosts.size()));
        }
    };
    const size_t threads =
        std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), hosts.size());
    std::vector<std::future<void>> pool;
    for (size_t t = 0; t < threads; ++t) pool.push_back(std::async(std::launch::async, run));
    for (auto& f : pool) {
        while (f.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready)
            if (progress && progress->cancelled())
                for (auto& c : child) c->cancel();
        f.get();
    }
    if (progress && progress->cancelled()) return {};
    std::vector<std::shared_ptr<const Profile>> profiles(hosts.size());
    for (size_t i = 0; i < hosts.size(); ++i) {
        profiles[i] = results[i].profile;
        if (!results[i].ok()) workers[i].error = "cannot be loaded: " + results[i].error;
    }
    return analyzePod(std::move(workers), profiles, progress);
}

PodAnalysis computePodViewer(const Profile& profile, const Progress* progress) {
    const std::vector<Host>& hosts = profile.hosts();
    if (hosts.size() == 1) {
        // The profile itself is the only worker; it outlives this call.
        PodWorker w;
        w.name = w.host = hosts[0].name;
        w.path = hosts[0].sourcePath;
        return analyzePod({w}, {std::shared_ptr<const Profile>(&profile, [](const Profile*) {})},
                          progress);
    }
    std::vector<HostFile> files;
    for (const Host& h : hosts) files.push_back({h.name, h.sourcePath});
    return computePodViewer(files, progress);
}

EventIndex podStepEvent(const Profile& all, const PodAnalysis& pod, const PodStep& step,
                        size_t worker) {
    if (worker >= step.cells.size() || !step.cells[worker].present) return kNoIndex;
    uint32_t host = 0;
    while (host < all.hosts().size() && all.hosts()[host].name != pod.workers[worker].host) ++host;
    if (host == all.hosts().size()) return kNoIndex;
    const PodCell& cell = step.cells[worker];
    const int64_t begin = cell.step.beginPs + (pod.workers[worker].startNs - all.startNs()) * 1000;
    const int64_t end = begin + cell.step.durationPs;
    EventIndex best = kNoIndex;
    for (const Plane& plane : all.planes()) {
        if (plane.host != host) continue;
        for (const Track& t : all.tracksOf(plane)) {
            const uint32_t ti = uint32_t(&t - all.tracks().data());
            for (uint32_t d = 0; d < t.depthCount; ++d) {
                const EventRange r = all.eventsInWindow(ti, d, begin, end);
                for (EventIndex e = r.begin; e < r.end; ++e) {
                    if (all.start(e) < begin) continue;
                    if (all.start(e) == begin && all.end(e) == end) return e;
                    if (best == kNoIndex || all.duration(e) > all.duration(best)) best = e;
                }
            }
        }
    }
    return best;
}

Table podStepTable(const PodAnalysis& pod, int64_t stepNumber) {
    Table t;
    t.addColumn("Step", Table::Type::Int);
    t.addColumn("Worker", Table::Type::Text);
    t.addColumn("Step time (ms)", Table::Type::Double);
    for (size_t c = 0; c < kStepCategoryCount; ++c)
        t.addColumn(std::string(stepCategoryName(StepCategory(c))) + " (ms)", Table::Type::Double);
    t.addColumn("Collective kernels (ms)", Table::Type::Double, ColumnFormat::Plain,
                "Union of the worker's NCCL/RCCL kernels within the step");
    t.addColumn("Collectives overlapped by compute (%)", Table::Type::Double, ColumnFormat::Percent,
                "Share of the collective kernel time during which a computation kernel also runs");
    t.addColumn("First collective after the earliest worker (ms)", Table::Type::Double,
                ColumnFormat::Plain,
                "When this worker's first collective kernel of the step starts, after the first "
                "worker's (pod time base)");
    t.addColumn("Step time above median (ms)", Table::Type::Double);
    for (const PodStep& step : pod.steps) {
        if (stepNumber >= 0 && step.number != stepNumber) continue;
        int64_t first = -1;
        std::vector<double> times;
        for (const PodCell& c : step.cells) {
            if (!c.present) continue;
            times.push_back(double(c.step.durationPs) / kPsPerMs);
            if (c.firstCollectivePs >= 0 && (first < 0 || c.firstCollectivePs < first))
                first = c.firstCollectivePs;
        }
        const double med = times.empty() ? 0 : median(times);
        for (size_t w = 0; w < step.cells.size(); ++w) {
            const PodCell& c = step.cells[w];
            if (!c.present) continue;
            std::vector<Table::Cell> row{step.number, pod.workers[w].name,
                                         double(c.step.durationPs) / kPsPerMs};
            for (size_t k = 0; k < kStepCategoryCount; ++k)
                row.push_back(double(c.step.categoryPs[k]) / kPsPerMs);
            row.push_back(double(c.collectivePs) / kPsPerMs);
            row.push_back(c.collectivePs > 0
                              ? 100.0 * double(c.collectiveOverlapPs) / double(c.collectivePs)
                              : Table::missing());
            row.push_back(c.firstCollectivePs >= 0 ? double(c.firstCollectivePs - first) / kPsPerMs
                                                   : Table::missing());
            row.push_back(double(c.step.durationPs) / kPsPerMs - med);
            t.addRow(std::move(row));
        }
    }
    return t;
}

Table podWorkerTable(const PodAnalysis& pod) {
    Table t;
    t.addColumn("Worker", Table::Type::Text);
    t.addColumn("Rank", Table::Type::Double, ColumnFormat::Plain,
                "distributedInfo.rank of a PyTorch trace; empty where not recorded");
    t.addColumn("File", Table::Type::Text);
    t.addColumn("Steps", Table::Type::Int);
    t.addColumn("Mean step time (ms)", Table::Type::Double);
    t.addColumn("Mean collective wait (ms)", Table::Type::Double);
    t.addColumn("Collective kernels (ms)", Table::Type::Double);
    t.addColumn("Collectives overlapped by compute (%)", Table::Type::Double,
                ColumnFormat::Percent);
    t.addColumn("Problem", Table::Type::Text);
    for (size_t w = 0; w < pod.workers.size(); ++w) {
        const PodWorker& worker = pod.workers[w];
        double step = 0, wait = 0;
        int64_t collective = 0, overlap = 0, count = 0;
        for (const PodStep& s : pod.steps) {
            const PodCell& c = s.cells[w];
            if (!c.present) continue;
            ++count;
            step += double(c.step.durationPs);
            wait += c.collectiveWaitPs();
            collective += c.collectivePs;
            overlap += c.collectiveOverlapPs;
        }
        t.addRow({worker.name, worker.rank >= 0 ? double(worker.rank) : Table::missing(),
                  worker.path, count, count ? step / double(count) / kPsPerMs : Table::missing(),
                  count ? wait / double(count) / kPsPerMs : Table::missing(),
                  count ? double(collective) / kPsPerMs : Table::missing(),
                  collective > 0 ? 100.0 * double(overlap) / double(collective) : Table::missing(),
                  worker.error});
    }
    return t;
}

Table podKernelTable(const PodAnalysis& pod) {
    Table t;
    t.addColumn("Worker", Table::Type::Text);
    t.addColumn("Kernel", Table::Type::Text);
    t.addColumn("Calls", Table::Type::Int);
    t.addColumn("Total (ms)", Table::Type::Double);
    t.addColumn("Average (µs)", Table::Type::Double, ColumnFormat::Microseconds);
    for (const PodCollectiveKernel& k : pod.kernels)
        t.addRow({pod.workers[size_t(k.worker)].name, k.name, k.calls, double(k.totalPs) / kPsPerMs,
                  double(k.totalPs) / 1e6 / double(k.calls)});
    return t;
}

namespace {
void stragglerJson(JsonWriter& json, std::string_view key, const PodStraggler& s,
                   const PodAnalysis& pod) {
    json.key(key).beginObject();
    if (s.worker >= 0) {
        json.field("worker", pod.workers[size_t(s.worker)].name);
        json.field("value_ms", s.valueMs).field("median_ms", s.medianMs);
        json.field("excess_ms", s.excessMs);
    } else {
        // No straggler: only the median is a number.
        json.key("worker").null().key("value_ms").null();
        json.field("median_ms", s.medianMs).key("excess_ms").null();
    }
    json.endObject();
}
} // namespace

std::string podViewerJson(const PodAnalysis& pod) {
    JsonWriter json;
    json.beginObject().field("tool", toolKey(ToolId::PodViewer));
    json.key("workers").table(podWorkerTable(pod));
    json.key("stragglers").beginObject();
    stragglerJson(json, "step_time", pod.stepTime, pod);
    stragglerJson(json, "collective_wait", pod.collectiveWait, pod);
    stragglerJson(json, "last_to_start_collectives", pod.lastToStart, pod);
    json.endObject();
    json.key("steps").beginArray();
    for (const PodStep& s : pod.steps) {
        json.beginObject().field("step", s.number);
        stragglerJson(json, "step_time", s.stepTime, pod);
        stragglerJson(json, "collective_wait", s.collectiveWait, pod);
        stragglerJson(json, "last_to_start_collectives", s.lastToStart, pod);
        json.endObject();
    }
    json.endArray();
    json.key("rows").table(podStepTable(pod));
    json.key("collective_kernels").table(podKernelTable(pod));
    if (pod.pytorch) {
        // PyTorch's distributed view (times in µs, as the plugin's).
        const std::vector<std::string> names = pod.distributedNames();
        json.key("pytorch_distributed").beginObject();
        json.field("transfer_known", pod.distributed.transferKnown);
        if (pod.distributed.problem.empty())
            json.key("problem").null();
        else
            json.field("problem", pod.distributed.problem);
        json.key("steps").table(distributedStepTable(pod.distributed, names));
        json.key("communication_ops").table(distributedOpTable(pod.distributed, names));
        json.endObject();
    }
    json.endObject();
    return json.take();
}

} // namespace stepscope
