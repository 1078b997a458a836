#include "model/analysis/StepAnalysis.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include "model/DeviceDetails.h"
#include "model/analysis/KernelFacts.h"
#include "model/analysis/OpName.h"

namespace stepscope {

std::string_view stepCategoryName(StepCategory category) {
    switch (category) {
    case StepCategory::Compilation:
        return "Compilation";
    case StepCategory::Input:
        return "Input";
    case StepCategory::Output:
        return "Output";
    case StepCategory::KernelLaunch:
        return "Kernel launch";
    case StepCategory::HostCompute:
        return "Host compute";
    case StepCategory::DeviceCollectives:
        return "Device collectives";
    case StepCategory::DeviceToDevice:
        return "Device to device";
    case StepCategory::DeviceCompute16:
        return "Device compute (16-bit)";
    case StepCategory::DeviceCompute32:
        return "Device compute (32-bit)";
    case StepCategory::AllOthers:
        return "All others";
    }
    return "";
}

std::string_view stepSourceName(StepSource source) {
    switch (source) {
    case StepSource::None:
        return "none";
    case StepSource::GroupedSteps:
        return "'Steps' line and group_id stats";
    case StepSource::HostMarkers:
        return "step-marker events on host threads";
    case StepSource::ProfilerSteps:
        return "ProfilerStep#N annotations";
    case StepSource::NamePattern:
        return "events matching a name pattern";
    case StepSource::XlaModules:
        return "XLA module executions";
    case StepSource::StepLines:
        return "'Steps' line step_num stats";
    }
    return "";
}

SampleSummary summarize(const std::vector<double>& samples) {
    SampleSummary s;
    s.count = samples.size();
    if (samples.empty()) return s;
    double sum = 0, squares = 0;
    s.minimum = s.maximum = samples.front();
    for (double v : samples) {
        sum += v;
        squares += v * v;
        s.minimum = std::min(s.minimum, v);
        s.maximum = std::max(s.maximum, v);
    }
    const double n = double(samples.size());
    s.average = sum / n;
    // tsl::Stat::sample_variance(): 0 when all samples are equal (so also for one sample), else
    // (sum(x^2) - sum(x)^2 / n) / (n - 1).
    const double variance = s.minimum == s.maximum ? 0 : (squares - sum * sum / n) / (n - 1);
    s.stddev = variance > 0 ? std::sqrt(variance) : 0;
    return s;
}

namespace {

struct Span {
    int64_t begin = 0, end = 0;
    int64_t duration() const { return end - begin; }
    bool includes(const Span& o) const { return begin <= o.begin && o.end <= end; }
};

struct TypedSpan {
    StepEventType type;
    Span span;
};

// The events and markers of one step, before the sweep.
struct StepDetails {
    std::optional<Span> hostMarker, deviceMarker; // the longest of each kind
    std::vector<TypedSpan> events;
    std::string name;

    void addMarker(std::optional<Span>& slot, Span s) {
        if (!slot || s.duration() > slot->duration()) slot = s;
    }
    // XProf's StepDetails::StepTime() (event_span.cc).
    Span stepTime() const {
        if (!deviceMarker) return hostMarker.value_or(Span{});
        if (hostMarker && hostMarker->includes(*deviceMarker)) return *hostMarker;
        return *deviceMarker;
    }
};

bool startsWith(std::string_view s, std::string_view p) {
    return s.substr(0, p.size()) == p;
}
bool contains(std::string_view s, std::string_view p) {
    return s.find(p) != std::string_view::npos;
}
bool startsWithIgnoreCase(std::string_view s, std::string_view p) {
    if (s.size() < p.size()) return false;
    for (size_t i = 0; i < p.size(); ++i)
        if (std::tolower(uint8_t(s[i])) != std::tolower(uint8_t(p[i]))) return false;
    return true;
}

// XProf's IsExplicitHostStepMarker (xplane_to_step_events.cc).
bool isExplicitHostStepMarker(std::string_view name) {
    return (startsWith(name, "train") || startsWith(name, "test") ||
            startsWith(name, "TraceContext")) &&
           !contains(name, "/");
}

// XProf's IsRealCpuCompute.
bool isRealCpuCompute(std::string_view name) {
    const bool notReal = startsWith(name, "EagerExecute") ||
                         startsWith(name, "EagerLocalExecute") ||
                         startsWith(name, "EagerKernelExecute") ||
                         startsWith(name, "FunctionRun") || isExplicitHostStepMarker(name);
    return !notReal;
}

// Looks stats up by interned key, with the keys resolved once.
class StatKeys {
public:
    explicit StatKeys(const Profile& p)
        : p_(p)
        , stepName_(p.strings().find("step_name"))
        , stepNum_(p.strings().find("step_num"))
        , stageName_(p.strings().find("input_pipeline_stage_name")) {}

    std::optional<StatValue> get(EventIndex e, StringId key) const {
        if (key == StringPool::kNotFound) return std::nullopt;
        for (const StatValue& s : p_.eventStats(e))
            if (s.key == key) return s;
        for (const StatValue& s : p_.metadataStats(p_.metadataOf(e)))
            if (s.key == key) return s;
        return std::nullopt;
    }
    std::string_view text(EventIndex e, StringId key) const {
        const auto s = get(e, key);
        return s && s->isText() ? p_.str(s->asString()) : std::string_view{};
    }
    std::string_view stepName(EventIndex e) const { return text(e, stepName_); }
    bool hasStageName(EventIndex e) const { return !text(e, stageName_).empty(); }
    std::optional<int64_t> stepNum(EventIndex e) const {
        const auto s = get(e, stepNum_);
        if (!s || !s->isNumber()) return std::nullopt;
        return s->asInt();
    }

private:
    const Profile& p_;
    StringId stepName_, stepNum_, stageName_;
};

// XProf's event type for a copy direction; nothing for memsets and unknown directions.
std::optional<StepEventType> copyEventType(CopyKind kind) {
    switch (kind) {
    case CopyKind::HostToDevice:
        return StepEventType::HostToDevice;
    case CopyKind::DeviceToHost:
        return StepEventType::DeviceToHost;
    case CopyKind::DeviceToDevice:
    case CopyKind::PeerToPeer:
        return StepEventType::DeviceToDevice;
    default:
        return std::nullopt;
    }
}

// XProf's ClassifyGpuEvent, up to its compute case: a copy or collective by name, or nothing for
// device compute. Departure: CUPTI names its copies "MemcpyH2D", "MemcpyD2H", "MemcpyD2D",
// "MemcpyP2P" and Kineto "Memcpy HtoD (Pageable -> Device)", "Memcpy DtoD (...)",
// "Memcpy PtoP (...)", which XProf's ParseTfOpFullname test (a "MemcpyHToD" prefix) misses, so
// XProf counts GPU copies as 32-bit compute; Stepscope classifies them by those spellings too (and
// by the memcpy_details "kind:" field, see NameFacts::gpu).
std::optional<StepEventType> classifyGpuTransfer(std::string_view name) {
    switch (parseTfOpFullname(name).category) {
    case OpCategory::MemcpyHToD:
        return StepEventType::HostToDevice;
    case OpCategory::MemcpyDToH:
        return StepEventType::DeviceToHost;
    case OpCategory::MemcpyDToD:
        return StepEventType::DeviceToDevice;
    default:
        break;
    }
    if (startsWith(name, "Memcpy"))
        if (const auto copy = copyEventType(copyKindFromName(name.substr(6)))) return *copy;
    if (startsWithIgnoreCase(name, "nccl")) return StepEventType::DeviceCollectives;
    return std::nullopt;
}

// What a host event's name alone says for XProf's ClassifyCpuEvent.
enum class HostName : uint8_t { HostToDevice, HostToHost, ExecutorProcess, IteratorGetNext, Other };

HostName hostName(std::string_view name) {
    const OpCategory c = parseTfOpFullname(name).category;
    if (c == OpCategory::MemcpyHToD || startsWith(name, "InfeedEnqueue"))
        return HostName::HostToDevice;
    if (c == OpCategory::MemcpyHToH) return HostName::HostToHost;
    if (startsWithIgnoreCase(name, "ExecutorState::Process")) return HostName::ExecutorProcess;
    if (startsWithIgnoreCase(name, "IteratorGetNext")) return HostName::IteratorGetNext;
    return HostName::Other;
}

// XProf's ClassifyCpuEvent.
StepEventType classifyCpuEvent(HostName name, bool hasDevice, bool hasCorrelation,
                               bool inputPipelineRootStage) {
    if (name == HostName::HostToDevice) return StepEventType::HostToDevice;
    if (name == HostName::HostToHost) return StepEventType::HostToHost;
    if (hasDevice && (hasCorrelation || name == HostName::ExecutorProcess))
        return StepEventType::HostPrepare;
    if (name == HostName::IteratorGetNext || inputPipelineRootStage)
        return StepEventType::HostWaitInput;
    return StepEventType::HostCompute;
}

// Name-based facts, decided once per event metadata (a profile has few names, many events).
class NameFacts {
public:
    NameFacts(const Profile& p, const HloCatalog* hlo)
        : p_(p)
        , own_(hlo ? std::nullopt : std::optional<HloCatalog>(std::in_place, p))
        , kernels_(p, hlo ? *hlo : *own_)
        , gpu_(p.metadata().size(), kUnset)
        , host_(p.metadata().size(), kUnset) {}

    // XProf's ClassifyGpuEvent. Its compute case (ClassifyGpuCompute: 16-bit when the tensor
    // shapes, else the name, say "half" or "fp16") becomes: 16-bit when the kernel's precision
    // (KernelFacts: HLO, op input types, kernel name, tensor shapes) is narrower than 32 bits,
    // else 32-bit, unknown precision included, as XProf counts whatever is not half.
    StepEventType gpu(EventIndex e) {
        uint8_t& v = gpu_[p_.metadataOf(e)];
        if (v == kUnset) {
            const auto transfer = classifyGpuTransfer(p_.name(e));
            v = transfer ? uint8_t(*transfer) : kCompute;
        }
        if (v != kCompute) return StepEventType(v);
        // A copy whose name does not say its direction: the memcpy_details "kind:" field (the
        // Kineto importer writes one for every copy).
        if (!p_.memcpys().empty())
            if (const MemcpyDetails* m = p_.memcpys().find(e))
                if (const auto copy = copyEventType(m->kind)) return *copy;
        return isBelow32Bit(kernels_.of(e).precision) ? StepEventType::DeviceCompute16
                                                      : StepEventType::DeviceCompute32;
    }
    bool explicitMarker(EventIndex e) { return host(e) & kMarker; }
    bool realCompute(EventIndex e) { return host(e) & kReal; }
    HostName name(EventIndex e) { return HostName(host(e) >> 2); }

private:
    static constexpr uint8_t kUnset = 0xFF, kCompute = 0xFE, kMarker = 1, kReal = 2;
    uint8_t host(EventIndex e) {
        uint8_t& v = host_[p_.metadataOf(e)];
        if (v == kUnset) {
            const std::string_view n = p_.name(e);
            v = uint8_t((isExplicitHostStepMarker(n) ? kMarker : 0) |
                        (isRealCpuCompute(n) ? kReal : 0) | (uint8_t(hostName(n)) << 2));
        }
        return v;
    }
    const Profile& p_;
    const std::optional<HloCatalog> own_; // when the caller has none
    KernelFacts kernels_;
    std::vector<uint8_t> gpu_, host_;
};

bool isGpuStream(const Profile& p, const Track& t) {
    return t.deviceOps && !t.derived && p.planes()[t.plane].kind == PlaneKind::Gpu;
}
bool isHostThread(const Profile& p, const Track& t) {
    return !t.derived && p.planes()[t.plane].kind == PlaneKind::Host;
}

// Whether a host event is an input-pipeline stage with no stage enclosing it on its line (XProf's
// EventRef::IsRootStage, without stages whose parent is on another line).
bool isRootInputStage(const Profile& p, const StatKeys& keys, uint32_t track, EventIndex e) {
    if (!keys.hasStageName(e)) return false;
    const uint32_t depth = p.depthOf(e);
    const int64_t s = p.start(e), en = p.end(e);
    for (uint32_t d = 0; d < depth; ++d) {
        const EventRange r = p.eventsInWindow(track, d, s, en);
        for (EventIndex a = r.begin; a < r.end; ++a)
            if (p.start(a) <= s && p.end(a) >= en && keys.hasStageName(a)) return false;
    }
    return true;
}

bool profileHasGpuWork(const Profile& p) {
    for (const Track& t : p.tracks())
        if (isGpuStream(p, t) && t.eventCount > 0) return true;
    return false;
}

// XProf's ToNonOverlappedEvents followed by ConvertStepDetailsToStepInfo: sweep the boundaries
// (ends before starts at equal times; the highest type open wins), clip each piece to the step.
void breakDown(const StepDetails& d, Span step, StepRecord& out, bool& hasCompute,
               bool& hasHostCompute) {
    struct Boundary {
        int64_t t;
        int type;
        bool start;
    };
    std::vector<Boundary> b;
    b.reserve(d.events.size() * 2);
    for (const TypedSpan& e : d.events) {
        // An instant (an allocation) covers no time; its end, sorted before its start, would
        // leave its type open until some other event of that type ends.
        if (e.span.duration() <= 0) continue;
        b.push_back({e.span.begin, int(e.type), true});
        b.push_back({e.span.end, int(e.type), false});
    }
    std::sort(b.begin(), b.end(), [](const Boundary& x, const Boundary& y) {
        if (x.t != y.t) return x.t < y.t;
        if (x.start != y.start) return !x.start;
        return x.type > y.type;
    });
    std::array<int64_t, 256> open{};
    int top = 0;
    std::array<int64_t, 256> typePs{};
    int64_t covered = 0;
    for (size_t i = 0; i + 1 < b.size(); ++i) {
        if (b[i].start) {
            ++open[b[i].type];
            top = std::max(top, b[i].type);
        } else {
            --open[b[i].type];
            if (b[i].type == top && open[top] == 0) {
                top = 0;
                for (int t = b[i].type - 1; t > 0; --t)
                    if (open[t] > 0) {
                        top = t;
                        break;
                    }
            }
        }
        const int64_t lo = std::max(b[i].t, step.begin), hi = std::min(b[i + 1].t, step.end);
        if (b[i + 1].t > b[i].t) {
            if (top == int(StepEventType::DeviceCompute16) ||
                top == int(StepEventType::DeviceCompute32))
                hasCompute = true;
            if (top == int(StepEventType::HostCompute)) hasHostCompute = true;
        }
        if (hi > lo) {
            typePs[top] += hi - lo;
            covered += hi - lo;
        }
    }
    typePs[0] += std::max<int64_t>(0, step.duration() - covered);
    auto& c = out.categoryPs;
    auto at = [&](StepEventType t) { return typePs[size_t(t)]; };
    c[size_t(StepCategory::Input)] =
        at(StepEventType::HostWaitInput) + at(StepEventType::HostToDevice);
    c[size_t(StepCategory::Output)] = at(StepEventType::DeviceToHost);
    c[size_t(StepCategory::KernelLaunch)] = at(StepEventType::HostPrepare);
    c[size_t(StepCategory::HostCompute)] = at(StepEventType::HostCompute);
    c[size_t(StepCategory::DeviceCollectives)] = at(StepEventType::DeviceCollectives);
    c[size_t(StepCategory::DeviceToDevice)] = at(StepEventType::DeviceToDevice);
    c[size_t(StepCategory::DeviceCompute16)] = at(StepEventType::DeviceCompute16);
    c[size_t(StepCategory::DeviceCompute32)] = at(StepEventType::DeviceCompute32);
    c[size_t(StepCategory::AllOthers)] =
        at(StepEventType::UnknownTime) + at(StepEventType::HostToHost);
    out.hostWaitInputPs = at(StepEventType::HostWaitInput);
    out.hostToDevicePs = at(StepEventType::HostToDevice);
    out.beginPs = step.begin;
    out.durationPs = step.duration();
}

// Steps are keyed by number and host: XProf analyses each host's XSpace on its own (its op stats
// per host, xplane_to_op_stats.cc), and every host numbers its group ids from 0.
using StepKey = std::pair<int64_t, uint32_t>; // number, host
using StepMap = std::map<StepKey, StepDetails>;

// Source 1: XProf's grouped steps.
StepMap groupedSteps(const Profile& p, const StatKeys& keys, NameFacts& names,
                     const Progress* progress) {
    StepMap all;
    for (size_t pi = 0; pi < p.planes().size(); ++pi) {
        const Plane& plane = p.planes()[pi];
        if (plane.kind != PlaneKind::Gpu) continue;
        std::map<int64_t, Span> markers;
        std::map<int64_t, std::vector<TypedSpan>> events;
        for (const Track& t : p.tracksOf(plane)) {
            const uint32_t ti = uint32_t(&t - p.tracks().data());
            const bool stepLine = t.kind == TrackKind::Steps;
            const bool stream = isGpuStream(p, t);
            if (!stepLine && !stream) continue;
            // Events are grouped by depth, so the cursor would go backwards across depths: walk
            // each depth with its own cursor.
            for (uint32_t depth = 0; depth < t.depthCount; ++depth) {
                const EventRange r = p.eventsAt(ti, depth);
                CorrelationIds::Cursor c(p.correlationIds());
                RunColumn<int32_t>::Cursor groups(p.groupIds());
                for (EventIndex e = r.begin; e < r.end; ++e) {
                    const int32_t g = groups.at(e);
                    if (g < 0) continue;
                    const Span s{p.start(e), p.end(e)};
                    if (stepLine) {
                        auto [it, fresh] = markers.try_emplace(g, s);
                        if (!fresh && s.duration() > it->second.duration()) it->second = s;
                    } else if (c.at(e)) {
                        events[g].push_back({names.gpu(e), s});
                    }
                }
            }
        }
        if (progress && progress->cancelled()) return {};
        // IntersectCombineStepEvents(step_markers, &step_events): a group counts when the plane
        // has both its marker and events.
        for (auto& [g, evs] : events) {
            const auto m = markers.find(g);
            if (m == markers.end()) continue;
            StepDetails& d = all[{g, plane.host}];
            d.addMarker(d.deviceMarker, m->second);
            d.events.insert(d.events.end(), evs.begin(), evs.end());
        }
    }
    if (all.empty()) return all;
    // Host events of those steps (TensorFlow 2.x's ConvertHostThreadsXPlaneToStepEvents with
    // device_step_events).
    for (size_t ti = 0; ti < p.tracks().size(); ++ti) {
        const Track& t = p.tracks()[ti];
        if (!isHostThread(p, t)) continue;
        const uint32_t host = p.planes()[t.plane].host;
        for (uint32_t depth = 0; depth < t.depthCount; ++depth) {
            const EventRange r = p.eventsAt(uint32_t(ti), depth);
            CorrelationIds::Cursor c(p.correlationIds());
            RunColumn<int32_t>::Cursor groups(p.groupIds());
            for (EventIndex e = r.begin; e < r.end; ++e) {
                const int32_t g = groups.at(e);
                if (g < 0) continue;
                const auto it = all.find({g, host});
                if (it == all.end()) continue;
                StepDetails& d = it->second;
                const std::string_view stepName = keys.stepName(e);
                const Span s{p.start(e), p.end(e)};
                if (names.explicitMarker(e) || !stepName.empty()) {
                    d.addMarker(d.hostMarker, s);
                } else if (names.realCompute(e)) {
                    const bool corr = c.at(e).has_value();
                    d.events.push_back(
                        {classifyCpuEvent(names.name(e), true, corr,
                                          isRootInputStage(p, keys, uint32_t(ti), e)),
                         s});
                }
                if (!stepName.empty() && d.name.empty()) d.name = std::string(stepName);
            }
        }
        if (progress && progress->cancelled()) return {};
    }
    return all;
}

struct Marker {
    int64_t number;
    uint32_t host;
    std::string name;
    Span span;
};

std::optional<int64_t> profilerStepNumber(std::string_view name) {
    constexpr std::string_view prefix = "ProfilerStep#";
    if (!startsWith(name, prefix)) return std::nullopt;
    const std::string_view digits = name.substr(prefix.size());
    int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc{} || ptr != digits.data() + digits.size()) return std::nullopt;
    return v;
}

// Markers of sources 2-4: top-level matching events (a match inside another match of the same
// line is not a step of its own).
std::vector<Marker> findMarkers(const Profile& p, const StatKeys& keys, StepSource source,
                                std::string_view pattern) {
    std::vector<Marker> found;
    for (size_t ti = 0; ti < p.tracks().size(); ++ti) {
        const Track& t = p.tracks()[ti];
        if (t.derived) continue;
        if (source != StepSource::NamePattern && !isHostThread(p, t)) continue;
        const uint32_t host = p.planes()[t.plane].host;
        std::vector<Marker> line;
        for (uint32_t depth = 0; depth < t.depthCount; ++depth) {
            const EventRange r = p.eventsAt(uint32_t(ti), depth);
            RunColumn<int32_t>::Cursor groups(p.groupIds());
            for (EventIndex e = r.begin; e < r.end; ++e) {
                const std::string_view name = p.name(e);
                std::optional<int64_t> number;
                bool match = false;
                switch (source) {
                case StepSource::HostMarkers:
                    // XProf takes the train/test/TraceContext names as step markers only on
                    // events with a group id (ConvertHostThreadsXPlaneToStepEvents,
                    // xplane_to_step_events.cc); a bare name such as "train.py(12): <module>"
                    // or "train_step" is no step.
                    number = keys.stepNum(e);
                    match =
                        number.has_value() || (groups.at(e) >= 0 && isExplicitHostStepMarker(name));
                    break;
                case StepSource::ProfilerSteps:
                    number = profilerStepNumber(name);
                    match = number.has_value();
                    break;
                case StepSource::NamePattern:
                    match = contains(name, pattern);
                    break;
                default:
                    break;
                }
                if (!match) continue;
                const Span s{p.start(e), p.end(e)};
                const bool nested = std::any_of(
                    line.begin(), line.end(), [&](const Marker& m) { return m.span.includes(s); });
                if (!nested) line.push_back({number.value_or(-1), host, std::string(name), s});
            }
        }
        found.insert(found.end(), line.begin(), line.end());
    }
    std::sort(found.begin(), found.end(),
              [](const Marker& a, const Marker& b) { return a.span.begin < b.span.begin; });
    // Steps without a number are numbered by position, after every recorded number (so that a
    // position never equals a real step number and merges two steps).
    int64_t next = 0;
    for (const Marker& m : found) next = std::max(next, m.number + 1);
    for (Marker& m : found)
        if (m.number < 0) m.number = next++;
    return found;
}

// The events of each step (sources 2-6): device stream events that overlap the step and host
// events wholly inside it (other than the step's own marker), both from the step's host, are
// classified as XProf classifies grouped events.
void collectStepEvents(const Profile& p, const StatKeys& keys, NameFacts& names, StepMap& all,
                       bool hasDevice) {
    for (auto& [key, d] : all) {
        const Span step = d.stepTime();
        for (size_t ti = 0; ti < p.tracks().size(); ++ti) {
            const Track& t = p.tracks()[ti];
            if (p.planes()[t.plane].host != key.second) continue;
            const bool stream = isGpuStream(p, t);
            const bool host = isHostThread(p, t);
            if (!stream && !host) continue;
            for (uint32_t depth = 0; depth < t.depthCount; ++depth) {
                const EventRange r = p.eventsInWindow(uint32_t(ti), depth, step.begin, step.end);
                for (EventIndex e = r.begin; e < r.end; ++e) {
                    const Span s{p.start(e), p.end(e)};
                    const std::string_view name = p.name(e);
                    if (stream) {
                        d.events.push_back({names.gpu(e), s});
                        continue;
                    }
                    if (!step.includes(s) || (s.begin == step.begin && s.end == step.end)) continue;
                    if (!names.realCompute(e) || profilerStepNumber(name)) continue;
                    const bool corr = p.correlationIds().find(e).has_value();
                    d.events.push_back(
                        {classifyCpuEvent(names.name(e), hasDevice, corr,
                                          isRootInputStage(p, keys, uint32_t(ti), e)),
                         s});
                }
            }
        }
    }
}

// Sources 2-4: each marker is a step.
StepMap markedSteps(const std::vector<Marker>& markers) {
    StepMap all;
    for (const Marker& m : markers) {
        StepDetails& d = all[{m.number, m.host}];
        d.addMarker(d.hostMarker, m.span);
        if (d.name.empty()) d.name = m.name;
    }
    return all;
}

// Source 5 (Stepscope's): each event of a GPU plane's "Steps" line with a step_num stat and no
// group id is a device marker of that step; several GPUs of one host share the number.
StepMap stepLineSteps(const Profile& p, const StatKeys& keys) {
    StepMap all;
    for (const Plane& plane : p.planes()) {
        if (plane.kind != PlaneKind::Gpu) continue;
        for (const Track& t : p.tracksOf(plane)) {
            if (t.kind != TrackKind::Steps) continue;
            const uint32_t ti = uint32_t(&t - p.tracks().data());
            for (uint32_t depth = 0; depth < t.depthCount; ++depth) {
                const EventRange r = p.eventsAt(ti, depth);
                for (EventIndex e = r.begin; e < r.end; ++e) {
                    const std::optional<int64_t> number = keys.stepNum(e);
                    if (!number || p.groupId(e) >= 0) continue;
                    StepDetails& d = all[{*number, plane.host}];
                    d.addMarker(d.deviceMarker, Span{p.start(e), p.end(e)});
                    if (d.name.empty()) d.name = std::string(p.name(e));
                }
            }
        }
    }
    return all;
}

// Source 6 (Stepscope's): XLA module executions, for JAX and other XLA programs on GPUs that carry
// no step annotation. XProf does not do this on GPUs: it groups GPU profiles only from host root
// events (TraceMe `_r`, JAX's StepTraceAnnotation; tsl/profiler/utils/group_events.cc
// CreateEventGroups) and, on TPUs only, falls back to the device's "XLA Modules" line, one step per
// module execution (GetGroupingLineForTPU in the same file). Its GPU "XLA Modules" line
// (derived_timeline.cc) merges consecutive kernels of one module, so back-to-back executions of
// the same module would read as one; Stepscope takes the executions from the host instead:
// - an execution is launched by a host event "GpuExecutable::ExecuteThunks" with a `module_name`
//   stat (XLA's GPU runtime writes one per module launch on each device);
// - the step module is the module with the most device time (device stream events whose
//   `hlo_module` stat names it): the training step, not the small helper jits around it;
// - its k-th execution on each host thread (each device has its own launching thread when JAX
//   drives several GPUs) make up step k of that host; the host marker spans those launches;
// - the device marker spans that module's device events whose launch (the host event with the
//   same correlation id) lies in one of those launches. Step time is XProf's StepTime() rule.
StepMap moduleSteps(const Profile& p, const StatKeys& keys) {
    StepMap all;
    const StringId moduleKey = p.strings().find("module_name");
    const StringId hloModuleKey = p.strings().find("hlo_module");
    if (moduleKey == StringPool::kNotFound || hloModuleKey == StringPool::kNotFound ||
        p.strings().find("GpuExecutable::ExecuteThunks") == StringPool::kNotFound)
        return all;
    struct Launch {
        uint32_t host, track;
        std::string_view module;
        Span span;
    };
    std::vector<Launch> launches;
    // Host events with a correlation id: their start, per host.
    std::map<std::pair<uint32_t, uint64_t>, int64_t> launchTime;
    for (size_t ti = 0; ti < p.tracks().size(); ++ti) {
        const Track& t = p.tracks()[ti];
        if (!isHostThread(p, t)) continue;
        const uint32_t host = p.planes()[t.plane].host;
        for (uint32_t depth = 0; depth < t.depthCount; ++depth) {
            const EventRange r = p.eventsAt(uint32_t(ti), depth);
            CorrelationIds::Cursor c(p.correlationIds());
            for (EventIndex e = r.begin; e < r.end; ++e) {
                if (const std::optional<uint64_t> id = c.at(e))
                    launchTime.emplace(std::pair{host, *id}, p.start(e));
                if (p.name(e) != "GpuExecutable::ExecuteThunks") continue;
                const std::string_view module = keys.text(e, moduleKey);
                if (!module.empty())
                    launches.push_back({host, uint32_t(ti), module, {p.start(e), p.end(e)}});
            }
        }
    }
    if (launches.empty()) return all;
    // Device time per module, and the module's device events with their launch times.
    struct DeviceEvent {
        uint32_t host;
        std::string_view module;
        Span span;
        int64_t launch;
    };
    std::vector<DeviceEvent> device;
    std::map<std::string_view, int64_t> deviceTime;
    for (size_t ti = 0; ti < p.tracks().size(); ++ti) {
        const Track& t = p.tracks()[ti];
        if (!isGpuStream(p, t)) continue;
        const uint32_t host = p.planes()[t.plane].host;
        for (uint32_t depth = 0; depth < t.depthCount; ++depth) {
            const EventRange r = p.eventsAt(uint32_t(ti), depth);
            CorrelationIds::Cursor c(p.correlationIds());
            for (EventIndex e = r.begin; e < r.end; ++e) {
                const std::string_view module = keys.text(e, hloModuleKey);
                if (module.empty()) continue;
                deviceTime[module] += p.duration(e);
                const std::optional<uint64_t> id = c.at(e);
                if (!id) continue;
                const auto launch = launchTime.find({host, *id});
                if (launch == launchTime.end()) continue;
                device.push_back({host, module, {p.start(e), p.end(e)}, launch->second});
            }
        }
    }
    std::string_view stepModule;
    int64_t most = -1;
    for (const auto& entry : deviceTime) {
        const auto& module = entry.first; // a named copy: clang 14 cannot capture a binding
        const bool launched = std::any_of(launches.begin(), launches.end(),
                                          [&](const Launch& l) { return l.module == module; });
        if (launched && entry.second > most) {
            most = entry.second;
            stepModule = module;
        }
    }
    if (most < 0) return all;
    // Step k of a host: the k-th launch of the step module on each of its threads.
    std::sort(launches.begin(), launches.end(), [](const Launch& a, const Launch& b) {
        return std::tie(a.host, a.track, a.span.begin) < std::tie(b.host, b.track, b.span.begin);
    });
    struct Window {
        Span span;
        StepKey key;
    };
    std::vector<Window> windows;
    std::map<std::pair<uint32_t, uint32_t>, int64_t> ordinal; // (host, track) -> next k
    for (const Launch& l : launches) {
        if (l.module != stepModule) continue;
        const StepKey key{ordinal[{l.host, l.track}]++, l.host};
        StepDetails& d = all[key];
        d.addMarker(d.hostMarker, d.hostMarker ? Span{std::min(d.hostMarker->begin, l.span.begin),
                                                      std::max(d.hostMarker->end, l.span.end)}
                                               : l.span);
        if (d.name.empty()) d.name = std::string(stepModule);
        windows.push_back({l.span, key});
    }
    std::sort(windows.begin(), windows.end(),
              [](const Window& a, const Window& b) { return a.span.begin < b.span.begin; });
    for (const DeviceEvent& ev : device) {
        if (ev.module != stepModule) continue;
        // The launch window holding this event's launch (windows are few; the latest that began
        // before the launch and still holds it).
        auto it = std::upper_bound(windows.begin(), windows.end(), ev.launch,
                                   [](int64_t t, const Window& w) { return t < w.span.begin; });
        while (it != windows.begin()) {
            --it;
            if (it->key.second != ev.host || it->span.end < ev.launch) continue;
            StepDetails& d = all[it->key];
            d.addMarker(d.deviceMarker, d.deviceMarker
                                            ? Span{std::min(d.deviceMarker->begin, ev.span.begin),
                                                   std::max(d.deviceMarker->end, ev.span.end)}
                                            : ev.span);
            break;
        }
    }
    return all;
}

} // namespace

StepAnalysis analyzeSteps(const Profile& profile, std::string_view namePattern,
                          const Progress* progress, const HloCatalog* hlo) {
    StepAnalysis result;
    const StatKeys keys(profile);
    NameFacts names(profile, hlo);
    result.hasDevice = profileHasGpuWork(profile);
    StepMap details;
    if (!namePattern.empty()) {
        result.source = StepSource::NamePattern;
        result.pattern = std::string(namePattern);
        details = markedSteps(findMarkers(profile, keys, StepSource::NamePattern, namePattern));
        collectStepEvents(profile, keys, names, details, result.hasDevice);
    } else {
        if (progress) progress->report("Grouping steps", 0);
        details = groupedSteps(profile, keys, names, progress);
        if (!details.empty()) result.source = StepSource::GroupedSteps;
        for (StepSource s : {StepSource::HostMarkers, StepSource::ProfilerSteps}) {
            if (!details.empty()) break;
            details = markedSteps(findMarkers(profile, keys, s, {}));
            if (details.empty()) continue;
            collectStepEvents(profile, keys, names, details, result.hasDevice);
            result.source = s;
        }
        for (StepSource s : {StepSource::StepLines, StepSource::XlaModules}) {
            if (!details.empty()) break;
            details = s == StepSource::StepLines ? stepLineSteps(profile, keys)
                                                 : moduleSteps(profile, keys);
            if (details.empty()) continue;
            collectStepEvents(profile, keys, names, details, result.hasDevice);
            result.source = s;
        }
    }
    if (progress && progress->cancelled()) return {};
    if (progress) progress->report("Breaking steps down", 0.5);
    for (auto& [key, d] : details) {
        const Span step = d.stepTime();
        if (step.duration() <= 0) continue; // no marker: XProf skips the step
        StepRecord rec;
        rec.number = key.first;
        rec.host = key.second;
        rec.name = d.name.empty() ? std::to_string(key.first) : d.name;
        bool compute = false, hostCompute = false;
        breakDown(d, step, rec, compute, hostCompute);
        if (result.hasDevice ? !compute : !hostCompute) {
            ++result.notWellFormed;
            continue;
        }
        result.steps.push_back(std::move(rec));
    }
    if (result.steps.empty() && result.source != StepSource::NamePattern)
        result.source = StepSource::None;
    return result;
}

} // namespace stepscope
