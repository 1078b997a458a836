#include "capture/CuptiConverter.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "capture/RecordFile.h"
#include "capture/RecordLimits.h"
#include "model/AtomicFile.h"
#include "model/xspace/XSpaceWriter.h"

namespace stepscope::capture {

namespace fs = std::filesystem;

namespace {

// Metadata ids of one plane, numbered 1, 2, ... in order of first use.
class PlaneNames {
public:
    explicit PlaneNames(XPlaneWriter& plane)
        : plane_(plane) {}
    int64_t event(const std::string& name) {
        auto [it, added] = events_.try_emplace(name, int64_t(events_.size() + 1));
        if (added) plane_.addEventMetadata(it->second, name);
        return it->second;
    }
    int64_t stat(const std::string& name) {
        auto [it, added] = stats_.try_emplace(name, int64_t(stats_.size() + 1));
        if (added) plane_.addStatMetadata(it->second, name);
        return it->second;
    }

private:
    XPlaneWriter& plane_;
    std::unordered_map<std::string, int64_t> events_, stats_;
};

const char* copyName(MemcpyKind kind) {
    switch (kind) {
    case MemcpyKind::HtoD:
    case MemcpyKind::AtoD:
        return "MemcpyH2D";
    case MemcpyKind::DtoH:
    case MemcpyKind::DtoA:
        return "MemcpyD2H";
    case MemcpyKind::DtoD:
    case MemcpyKind::AtoA:
        return "MemcpyD2D";
    case MemcpyKind::PtoP:
        return "MemcpyP2P";
    case MemcpyKind::HtoH:
        return "MemcpyH2H";
    case MemcpyKind::HtoA:
        return "MemcpyH2A";
    case MemcpyKind::AtoH:
        return "MemcpyA2H";
    case MemcpyKind::Unknown:
        break;
    }
    return "Memcpy";
}

// The `kind:` word of memcpy_details, as model/DeviceDetails reads copy names.
const char* copyKindWord(MemcpyKind kind) {
    switch (kind) {
    case MemcpyKind::HtoD:
    case MemcpyKind::AtoD:
        return "HtoD";
    case MemcpyKind::DtoH:
    case MemcpyKind::DtoA:
        return "DtoH";
    case MemcpyKind::DtoD:
    case MemcpyKind::AtoA:
        return "DtoD";
    case MemcpyKind::PtoP:
        return "PtoP";
    default:
        return "Unknown";
    }
}

// The step number of an NVTX range named like a training step ("step 3", "Step#3",
// "train_step_3", "ProfilerStep#3": the last "step", any case, then only separators and
// digits), or -1.
int64_t stepNumber(std::string_view name) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    const size_t at = lower.rfind("step");
    if (at == std::string::npos) return -1;
    std::string_view rest = std::string_view(lower).substr(at + 4);
    while (!rest.empty() && std::string_view(" _#:=-").find(rest.front()) != std::string::npos)
        rest.remove_prefix(1);
    if (rest.empty() || rest.size() > 18 ||
        !std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return -1;
    return std::stoll(std::string(rest));
}

// XProf's "Steps" line id (kThreadIdStepInfo = kThreadIdDerivedMin = 0xdeadbeef).
constexpr int64_t kStepsLineId = 0xdeadbeef;

struct StreamKey {
    uint32_t device, stream;
    bool operator<(const StreamKey& o) const {
        return device != o.device ? device < o.device : stream < o.stream;
    }
};

} // namespace

namespace {

// A hostname as a file name's part ("localhost" when empty; ':' and '/' as '_').
std::string fileNamePart(const std::string& hostname) {
    std::string part = hostname.empty() ? "localhost" : hostname;
    std::replace(part.begin(), part.end(), ':', '_');
    std::replace(part.begin(), part.end(), '/', '_');
    return part;
}

} // namespace

std::string processHostName(const std::vector<Record>& records) {
    for (const Record& r : records)
        if (const auto* p = std::get_if<ProcessRecord>(&r))
            return fileNamePart(p->hostname) + "_" + std::to_string(p->pid);
    return "unknown_process";
}

namespace {

// CUPTI reports an unknown time as 0 (CUPTI_TIMESTAMP_UNKNOWN, cupti_activity.h), for example in
// kernels that had not finished when a flush was forced at exit or on a signal. A record with a
// zero or inverted time, or one too far from the others to be held in ps, is left out and counted.
bool hasUsableTimes(const Record& r) {
    return std::visit(
        [](const auto& x) {
            using R = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<R, MemoryRecord>)
                return x.timestampNs != 0;
            else if constexpr (requires { x.endNs; })
                return x.startNs != 0 && x.endNs >= x.startNs;
            else
                return true;
        },
        r);
}

// The span [startNs, endNs] of a timed record; {0, 0} for the others.
std::pair<uint64_t, uint64_t> timesOf(const Record& r) {
    return std::visit(
        [](const auto& x) -> std::pair<uint64_t, uint64_t> {
            using R = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<R, MemoryRecord>)
                return {x.timestampNs, x.timestampNs};
            else if constexpr (requires { x.endNs; })
                return {x.startNs, x.endNs};
            else
                return {0, 0};
        },
        r);
}

// One process's records as the converter uses them: those whose times are usable, what the
// others say (the process, thread names, devices, dropped records), and the time base of its
// lines.
struct ProcessRecords {
    std::vector<Record> records;
    ProcessRecord process;
    bool hasProcess = false;
    std::map<uint32_t, std::string> threadNames;
    std::map<uint32_t, DeviceRecord> devices;
    uint64_t dropped = 0, unknownTimes = 0;
    uint64_t minNs = 0;
    int64_t baseWallNs = 0;
    // Times in ps from the earliest record. No overflow: every kept time is within kMaxSpanNs of
    // the reference, as minNs is.
    int64_t ps(uint64_t t) const { return int64_t(t - minNs) * 1000; }
};

int64_t durPs(uint64_t start, uint64_t end) {
    return end > start ? int64_t(end - start) * 1000 : 0;
}

ProcessRecords prepare(const ConversionInput& input) {
    ProcessRecords out;
    std::vector<Record>& usable = out.records;
    usable.reserve(input.records.size());
    uint64_t& unknownTimes = out.unknownTimes;
    for (const Record& r : input.records) {
        if (hasUsableTimes(r))
            usable.push_back(r);
        else
            ++unknownTimes;
    }
    // Times become ps from the earliest record and must fit in int64: a record more than half
    // that range (53 days) from the process start, or from the first record where the process
    // record is missing, has a garbage time and is left out too. The reader kept one process
    // record at most, and every time below kMaxRecordTimeNs.
    uint64_t reference = 0;
    for (const Record& r : usable)
        if (const auto* p = std::get_if<ProcessRecord>(&r)) reference = p->cuptiStartNs;
    for (auto it = usable.begin(); reference == 0 && it != usable.end(); ++it)
        reference = timesOf(*it).first;
    if (reference != 0) {
        constexpr uint64_t kMaxSpanNs = uint64_t(std::numeric_limits<int64_t>::max() / 1000) / 2;
        const auto far = [&](const Record& r) {
            const auto [start, end] = timesOf(r);
            if (start == 0) return false; // not a timed record
            return (start < reference && reference - start > kMaxSpanNs) ||
                   (end > reference && end - reference > kMaxSpanNs);
        };
        const size_t before = usable.size();
        usable.erase(std::remove_if(usable.begin(), usable.end(), far), usable.end());
        unknownTimes += before - usable.size();
    }
    ProcessRecord& process = out.process;
    uint64_t minNs = std::numeric_limits<uint64_t>::max();
    const auto seen = [&minNs](uint64_t t) { minNs = std::min(minNs, t); };
    for (const Record& r : usable) {
        std::visit(
            [&](const auto& x) {
                using R = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<R, ProcessRecord>) {
                    process = x;
                    out.hasProcess = true;
                    if (x.cuptiStartNs != 0) seen(x.cuptiStartNs);
                } else if constexpr (std::is_same_v<R, ThreadRecord>) {
                    out.threadNames[x.tid] = x.name;
                } else if constexpr (std::is_same_v<R, DeviceRecord>) {
                    out.devices[x.id] = x;
                } else if constexpr (std::is_same_v<R, DroppedRecord>) {
                    out.dropped += x.count;
                } else if constexpr (std::is_same_v<R, MemoryRecord>) {
                    seen(x.timestampNs);
                } else {
                    seen(x.startNs);
                }
            },
            r);
    }
    if (minNs == std::numeric_limits<uint64_t>::max()) minNs = process.cuptiStartNs;
    out.minNs = minNs;
    // Every line starts at the earliest record; its wall time follows from the process record,
    // which ties CUPTI's clock to the wall clock (minNs <= cuptiStartNs, both within kMaxSpanNs
    // of the reference, and 0 <= wallStartNs < kMaxRecordTimeNs: no overflow). Where CUPTI's
    // time at the start is unknown the lines start at the process's wall time, and without a
    // process record CUPTI's time is taken as wall time.
    out.baseWallNs = !out.hasProcess ? int64_t(minNs)
                     : process.cuptiStartNs == 0
                         ? process.wallStartNs
                         : process.wallStartNs - int64_t(process.cuptiStartNs - minNs);
    return out;
}

// How one process's events are told apart from the others' in an XSpace of several processes,
// by name and pid as Nsight Systems and XProf show processes; in an XSpace of one process every
// name and id stays as CUPTI gave it. CUPTI numbers correlation ids, streams and allocations per
// process, so in a shared XSpace each is qualified by the pid: correlation ids become
// pid * 2^32 + CUPTI's id (pids are below 2^22, CUPTI's ids 32-bit), so a launch joins only
// kernels of its own process.
class ProcessNaming {
public:
    ProcessNaming(const ProcessRecords& p, bool qualified)
        : qualified_(qualified)
        , pid_(p.process.pid) {
        std::string program = p.process.command.substr(0, p.process.command.find(' '));
        program = program.substr(program.rfind('/') + 1);
        name_ = program.empty() ? "process" : program;
    }
    bool qualified() const { return qualified_; }
    uint32_t pid() const { return pid_; }
    const std::string& name() const { return name_; }
    // "python3 (pid 4242)"
    std::string label() const { return name_ + " (pid " + std::to_string(pid_) + ")"; }
    uint64_t correlation(uint32_t id) const { return qualified_ ? uint64_t(pid_) << 32 | id : id; }
    int64_t streamLineId(uint32_t stream) const {
        return qualified_ ? int64_t(uint64_t(pid_) << 32 | stream) : int64_t(stream);
    }
    // After a stream line's name or an allocator's: " pid 4242", or nothing.
    std::string suffix() const { return qualified_ ? " pid " + std::to_string(pid_) : ""; }
    // Before an error: "python3 (pid 4242): ", or nothing.
    std::string errorPrefix() const { return qualified_ ? label() + ": " : ""; }

private:
    bool qualified_;
    uint32_t pid_;
    std::string name_;
};

// The errors a process's records and record file bring to the XSpace.
void addErrors(XSpaceWriter& space, const ConversionInput& input, const ProcessRecords& p,
               const ProcessNaming& naming) {
    const std::string prefix = naming.errorPrefix();
    if (p.dropped > 0)
        space.addError(prefix + "CUPTI dropped " + std::to_string(p.dropped) +
                       " activity records (its buffers were full): the profile is incomplete");
    if (p.unknownTimes > 0)
        space.addError(prefix + std::to_string(p.unknownTimes) +
                       " activity records were left out: their CUPTI time was unknown (0), "
                       "ended before it started, or lay far from the others (records cut short "
                       "by a forced flush at exit, on a signal or in a crash)");
    if (!input.rejected.empty()) {
        std::string list;
        for (const std::string& r : input.rejected) list += (list.empty() ? "" : "; ") + r;
        space.addError(prefix +
                       "records were left out as no capture writes them (a time or size out of "
                       "range, or a second process record): " +
                       list);
    }
    if (!input.truncation.empty())
        space.addError(prefix + "the record file ends early (" + input.truncation +
                       "): the program probably crashed; everything before is shown");
}

// The device planes every process of an XSpace shares, and their metadata ids.
struct DevicePlanes {
    std::map<uint32_t, XPlaneWriter*> planes;
    std::map<uint32_t, PlaneNames> names;
    std::set<uint32_t> withSteps; // devices whose "Steps" line a process has written
};

// One process's events: its host plane, and its streams and steps on the shared device planes.
void convertProcess(XSpaceWriter& space, const ProcessRecords& p, const ProcessNaming& naming,
                    XPlaneWriter& host, DevicePlanes& devices) {
    const std::vector<Record>& records = p.records;
    const int64_t baseWallNs = p.baseWallNs;
    const auto ps = [&p](uint64_t t) { return p.ps(t); };

    // ---- host plane
    PlaneNames hostNames(host);
    if (naming.qualified()) {
        host.addStat(WireStat::int64(hostNames.stat("pid"), int64_t(naming.pid())));
        host.addStat(WireStat::str(hostNames.stat("process_name"), naming.name()));
    }
    std::map<uint32_t, XLineWriter*> threadLines;
    const auto threadLine = [&](uint32_t tid) -> XLineWriter& {
        XLineWriter*& line = threadLines[tid];
        if (!line) {
            const auto it = p.threadNames.find(tid);
            line = &host.addLine(tid,
                                 it != p.threadNames.end() && !it->second.empty()
                                     ? it->second
                                     : "Thread " + std::to_string(tid),
                                 baseWallNs);
        }
        return *line;
    };
    XLineWriter* memoryLine = nullptr;
    XLineWriter* overheadLine = nullptr;
    const int64_t corrKey = hostNames.stat("correlation_id");
    struct DeviceMemory {
        int64_t inUse = 0, peak = 0;
        std::unordered_map<uint64_t, uint64_t> live; // address -> bytes
    };
    // Each record's bytes are below kMaxRecordBytes (2^48), but a file can still allocate more
    // than int64 counts without freeing: such allocations are left out of the line and counted.
    constexpr int64_t kMaxInUse = int64_t(1) << 62;
    uint64_t impossibleAllocations = 0;
    std::map<uint32_t, DeviceMemory> memory;

    // ---- this process's stream lines on the device planes
    std::map<StreamKey, std::set<std::string>> streamKinds;
    for (const Record& r : records) {
        if (const auto* k = std::get_if<KernelRecord>(&r))
            streamKinds[{k->deviceId, k->streamId}].insert("Kernel");
        else if (const auto* c = std::get_if<MemcpyRecord>(&r))
            streamKinds[{c->deviceId, c->streamId}].insert(copyName(c->kind));
        else if (const auto* m = std::get_if<MemsetRecord>(&r))
            streamKinds[{m->deviceId, m->streamId}].insert("Memset");
    }
    std::map<StreamKey, XLineWriter*> streamLines;
    for (const auto& [key, kinds] : streamKinds) {
        std::string label;
        for (const std::string& k : kinds) label += (label.empty() ? "" : ",") + k;
        streamLines[key] = &devices.planes.at(key.device)
                                ->addLine(naming.streamLineId(key.stream),
                                          "Stream #" + std::to_string(key.stream) + "(" + label +
                                              ")" + naming.suffix(),
                                          baseWallNs);
    }

    // NVTX ranges named like steps become each GPU's "Steps" line, as PyTorch's ProfilerStep#N
    // ranges do in the Kineto importer, so the step-based tools can use them. Where several
    // processes ran work on a GPU, the first of them that named steps gives its line: their
    // ranks' steps would repeat each other.
    for (const auto& [id, plane] : devices.planes) {
        if (devices.withSteps.count(id) ||
            std::none_of(streamKinds.begin(), streamKinds.end(),
                         [id = id](const auto& sk) { return sk.first.device == id; }))
            continue;
        XLineWriter* steps = nullptr;
        PlaneNames& names = devices.names.at(id);
        for (const Record& r : records) {
            const auto* n = std::get_if<NvtxRangeRecord>(&r);
            const int64_t number = n ? stepNumber(n->name) : -1;
            if (number < 0) continue;
            if (!steps) steps = &plane->addLine(kStepsLineId, "Steps", baseWallNs);
            const WireStat stats[] = {WireStat::int64(names.stat("step_num"), number)};
            steps->addEvent(names.event(n->name), ps(n->startNs), durPs(n->startNs, n->endNs),
                            stats);
        }
        if (steps) devices.withSteps.insert(id);
    }

    std::string text; // stat text lives until the event is added
    for (const Record& r : records) {
        if (const auto* a = std::get_if<ApiRecord>(&r)) {
            const WireStat stats[] = {
                WireStat::uint64(corrKey, naming.correlation(a->correlationId))};
            threadLine(a->tid).addEvent(hostNames.event(a->name), ps(a->startNs),
                                        durPs(a->startNs, a->endNs), stats);
        } else if (const auto* n = std::get_if<NvtxRangeRecord>(&r)) {
            threadLine(n->tid).addEvent(hostNames.event(n->name), ps(n->startNs),
                                        durPs(n->startNs, n->endNs));
        } else if (const auto* o = std::get_if<OverheadRecord>(&r)) {
            if (!overheadLine) overheadLine = &host.addLine(-1, "CUPTI overhead", baseWallNs);
            overheadLine->addEvent(hostNames.event("CUPTI overhead: " + o->kind), ps(o->startNs),
                                   durPs(o->startNs, o->endNs));
        } else if (const auto* k = std::get_if<KernelRecord>(&r)) {
            PlaneNames& names = devices.names.at(k->deviceId);
            text = "regs:" + std::to_string(k->registersPerThread) +
                   " static_shared:" + std::to_string(k->staticSharedBytes) +
                   " dynamic_shared:" + std::to_string(k->dynamicSharedBytes) +
                   " grid:" + std::to_string(k->grid[0]) + "," + std::to_string(k->grid[1]) + "," +
                   std::to_string(k->grid[2]) + " block:" + std::to_string(k->block[0]) + "," +
                   std::to_string(k->block[1]) + "," + std::to_string(k->block[2]);
            std::vector<WireStat> stats = {WireStat::uint64(names.stat("correlation_id"),
                                                            naming.correlation(k->correlationId)),
                                           WireStat::str(names.stat("kernel_details"), text)};
            if (k->graphId != 0) {
                stats.push_back(WireStat::uint64(names.stat("cuda_graph_id"), k->graphId));
                stats.push_back(WireStat::uint64(names.stat("cuda_graph_node_id"), k->graphNodeId));
            }
            streamLines.at({k->deviceId, k->streamId})
                ->addEvent(names.event(k->name), ps(k->startNs), durPs(k->startNs, k->endNs),
                           stats);
        } else if (const auto* c = std::get_if<MemcpyRecord>(&r)) {
            PlaneNames& names = devices.names.at(c->deviceId);
            text = std::string("kind:") + copyKindWord(c->kind) +
                   " size:" + std::to_string(c->bytes) + " dest:" +
                   std::to_string(c->kind == MemcpyKind::PtoP ? c->dstDeviceId : c->deviceId) +
                   " async:1";
            const WireStat stats[] = {WireStat::uint64(names.stat("correlation_id"),
                                                       naming.correlation(c->correlationId)),
                                      WireStat::str(names.stat("memcpy_details"), text)};
            streamLines.at({c->deviceId, c->streamId})
                ->addEvent(names.event(copyName(c->kind)), ps(c->startNs),
                           durPs(c->startNs, c->endNs), stats);
        } else if (const auto* s = std::get_if<MemsetRecord>(&r)) {
            PlaneNames& names = devices.names.at(s->deviceId);
            text = "size:" + std::to_string(s->bytes) + " value:" + std::to_string(s->value);
            const WireStat stats[] = {WireStat::uint64(names.stat("correlation_id"),
                                                       naming.correlation(s->correlationId)),
                                      WireStat::str(names.stat("memset_details"), text)};
            streamLines.at({s->deviceId, s->streamId})
                ->addEvent(names.event("Memset"), ps(s->startNs), durPs(s->startNs, s->endNs),
                           stats);
        }
    }
    // Memory in time order: CUPTI delivers its buffers out of order, and bytes_allocated is what
    // is in use after each allocation or free in time.
    std::vector<const MemoryRecord*> memoryRecords;
    for (const Record& r : records)
        if (const auto* m = std::get_if<MemoryRecord>(&r)) memoryRecords.push_back(m);
    std::stable_sort(memoryRecords.begin(), memoryRecords.end(),
                     [](const MemoryRecord* a, const MemoryRecord* b) {
                         return a->timestampNs < b->timestampNs;
                     });
    for (const MemoryRecord* m : memoryRecords) {
        if (!memoryLine) memoryLine = &host.addLine(-2, "CUDA memory", baseWallNs);
        DeviceMemory& dm = memory[m->deviceId];
        uint64_t bytes = m->bytes;
        if (m->allocation) {
            if (int64_t(bytes) > kMaxInUse - dm.inUse) {
                ++impossibleAllocations;
                continue;
            }
            dm.live[m->address] = bytes;
            dm.inUse += int64_t(bytes);
        } else {
            const auto it = dm.live.find(m->address);
            if (it != dm.live.end()) {
                if (bytes == 0) bytes = it->second;
                dm.live.erase(it);
            }
            dm.inUse = std::max<int64_t>(0, dm.inUse - int64_t(bytes));
        }
        dm.peak = std::max(dm.peak, dm.inUse);
        text = "GPU_" + std::to_string(m->deviceId) + "_cuda" + naming.suffix();
        const WireStat stats[] = {
            WireStat::str(hostNames.stat("allocator_name"), text),
            WireStat::int64(hostNames.stat("bytes_allocated"), dm.inUse),
            WireStat::int64(hostNames.stat("peak_bytes_in_use"), dm.peak),
            WireStat::int64(hostNames.stat("allocation_bytes"), int64_t(bytes)),
            WireStat::int64(hostNames.stat("requested_bytes"), int64_t(bytes)),
            WireStat::uint64(hostNames.stat("addr"), m->address),
            WireStat::uint64(corrKey, naming.correlation(m->correlationId))};
        memoryLine->addEvent(
            hostNames.event(m->allocation ? "MemoryAllocation" : "MemoryDeallocation"),
            ps(m->timestampNs), 0, stats);
    }
    if (impossibleAllocations > 0)
        space.addError(naming.errorPrefix() + std::to_string(impossibleAllocations) +
                       " memory allocations were left out: with them more than 2^62 bytes would "
                       "be in use on one device (the record file is not what a capture writes)");
}

// The processes' XSpace (convertProcessesToXSpace), from inputs the caller keeps.
std::vector<uint8_t> convertAll(const std::vector<const ConversionInput*>& inputs) {
    std::vector<ProcessRecords> processes;
    processes.reserve(inputs.size());
    for (const ConversionInput* input : inputs) processes.push_back(prepare(*input));
    const bool several = processes.size() > 1;
    std::vector<ProcessNaming> naming;
    for (const ProcessRecords& p : processes) naming.emplace_back(p, several);

    XSpaceWriter space;
    std::set<std::string> hostnames;
    for (const ProcessRecords& p : processes)
        if (!p.process.hostname.empty() && hostnames.insert(p.process.hostname).second)
            space.addHostname(p.process.hostname);
    for (size_t i = 0; i < processes.size(); ++i)
        addErrors(space, *inputs[i], processes[i], naming[i]);

    // ---- host planes, one per process: "/host:CPU" alone, "/host:CPU python3 (pid 4242)" among
    // several, as the Kineto importer names the processes of a trace.
    // Their ids are 0, -1, -2, ...: the device planes have 1 and up.
    std::vector<XPlaneWriter*> hosts;
    for (const ProcessNaming& n : naming)
        hosts.push_back(&space.addPlane(-int64_t(hosts.size()),
                                        several ? "/host:CPU " + n.label() : "/host:CPU"));

    // ---- device planes, shared: every process's work on a GPU goes to that GPU's plane. The
    // properties come from the first process that recorded them.
    std::map<uint32_t, DeviceRecord> devices;
    for (const ProcessRecords& p : processes) {
        for (const auto& [id, d] : p.devices)
            if (auto& known = devices[id]; known.smCount == 0 && known.name.empty()) known = d;
        for (const Record& r : p.records) {
            if (const auto* k = std::get_if<KernelRecord>(&r))
                devices.try_emplace(k->deviceId);
            else if (const auto* c = std::get_if<MemcpyRecord>(&r))
                devices.try_emplace(c->deviceId);
            else if (const auto* m = std::get_if<MemsetRecord>(&r))
                devices.try_emplace(m->deviceId);
        }
    }
    DevicePlanes planes;
    for (auto& [id, d] : devices) {
        XPlaneWriter& plane = space.addPlane(int64_t(id) + 1, "/device:GPU:" + std::to_string(id));
        planes.planes[id] = &plane;
        PlaneNames& names = planes.names.emplace(id, PlaneNames(plane)).first->second;
        if (d.smCount == 0 && d.name.empty()) continue; // properties not recorded
        static const std::string vendor = "Nvidia";
        plane.addStat(WireStat::str(names.stat("device_vendor"), vendor));
        plane.addStat(WireStat::int64(names.stat("clock_rate"), int64_t(d.clockRateKHz)));
        plane.addStat(WireStat::int64(names.stat("core_count"), int64_t(d.smCount)));
        plane.addStat(WireStat::uint64(names.stat("memory_size"), d.memoryBytes));
        plane.addStat(
            WireStat::uint64(names.stat("memory_bandwidth"), d.memoryBandwidthBytesPerSecond));
        plane.addStat(
            WireStat::int64(names.stat("compute_cap_major"), int64_t(d.computeCapabilityMajor)));
        plane.addStat(
            WireStat::int64(names.stat("compute_cap_minor"), int64_t(d.computeCapabilityMinor)));
        if (!d.name.empty()) plane.addStat(WireStat::str(names.stat("device_name"), d.name));
    }

    for (size_t i = 0; i < processes.size(); ++i)
        convertProcess(space, processes[i], naming[i], *hosts[i], planes);
    return space.finish();
}

} // namespace

std::vector<uint8_t> convertProcessesToXSpace(const std::vector<ConversionInput>& processes) {
    std::vector<const ConversionInput*> inputs;
    for (const ConversionInput& p : processes) inputs.push_back(&p);
    return convertAll(inputs);
}

std::vector<uint8_t> convertToXSpace(const ConversionInput& input) {
    return convertAll({&input});
}

namespace {

// The bytes of `path`, or "" where it cannot be read.
std::string readWhole(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return in ? bytes.str() : std::string();
}

} // namespace

CaptureRunResult writeCaptureRun(const std::vector<std::string>& recordFiles,
                                 const std::string& logDir, const std::string& run) {
    CaptureRunResult result;
    const fs::path runDir = fs::path(logDir) / "plugins" / "profile" / run;
    std::error_code ec;
    fs::create_directories(runDir, ec);
    if (ec) {
        result.error = "cannot create " + runDir.string() + " (" + ec.message() + ")";
        return result;
    }
    // Every usable file's records, then one XSpace per machine (hostname): its processes side
    // by side, in the order they started recording. A file without a process record, or whose
    // pid a file of the same machine already has (pids are reused), is a host of its own.
    struct File {
        ConversionInput input;
        const ProcessRecord* process = nullptr;
    };
    std::vector<File> files;
    for (const std::string& path : recordFiles) {
        RecordFileContents contents = readRecordFile(path);
        if (!contents.ok()) {
            result.warnings.push_back(contents.error);
            continue;
        }
        if (!contents.problem.empty())
            result.warnings.push_back(path + ": " + contents.problem + "; " +
                                      std::to_string(contents.bytesIgnored) +
                                      " bytes after the last whole frame were ignored");
        if (contents.rejectedCount > 0)
            result.warnings.push_back(path + ": " + std::to_string(contents.rejectedCount) +
                                      " records left out (" + contents.rejected.front() +
                                      (contents.rejectedCount > 1 ? "; ..." : "") + ")");
        if (contents.records.empty()) {
            result.warnings.push_back(path + " holds no records");
            continue;
        }
        files.push_back(
            {{std::move(contents.records), contents.problem, std::move(contents.rejected)}});
    }
    for (File& f : files)
        for (const Record& r : f.input.records)
            if (const auto* p = std::get_if<ProcessRecord>(&r)) f.process = p;
    std::stable_sort(files.begin(), files.end(), [](const File& a, const File& b) {
        if (!a.process || !b.process) return a.process && !b.process;
        return std::tie(a.process->wallStartNs, a.process->pid) <
               std::tie(b.process->wallStartNs, b.process->pid);
    });
    std::vector<std::vector<const File*>> hosts;
    std::map<std::string, size_t> hostOf; // hostname -> its entry in `hosts`
    std::set<std::pair<std::string, uint32_t>> pids;
    for (const File& f : files) {
        if (!f.process || !pids.insert({f.process->hostname, f.process->pid}).second) {
            hosts.push_back({&f});
            continue;
        }
        const auto [it, added] = hostOf.try_emplace(f.process->hostname, hosts.size());
        if (added) hosts.emplace_back();
        hosts[it->second].push_back(&f);
    }
    std::set<std::string> names;
    for (const std::vector<const File*>& processes : hosts) {
        std::vector<const ConversionInput*> inputs;
        for (const File* f : processes) inputs.push_back(&f->input);
        const std::vector<uint8_t> bytes = convertAll(inputs);
        // One process: "<hostname>_<pid>"; several: "<hostname>"; a name taken gets "_2", "_3".
        std::string name = inputs.size() > 1 ? fileNamePart(processes.front()->process->hostname)
                                             : processHostName(inputs.front()->records);
        const std::string base = name;
        for (int n = 2; names.count(name); ++n) name = base + "_" + std::to_string(n);
        names.insert(name);
        const std::string out = (runDir / (name + ".xplane.pb")).string();
        const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        result.error = writeFileAtomically(out, text);
        if (result.error.empty() && readWhole(out) != text)
            result.error = out + " does not read back as it was written";
        if (!result.error.empty()) return result;
        result.files.push_back(out);
    }
    if (result.files.empty()) {
        result.error = "no profile was recorded";
        fs::remove(runDir, ec);
    }
    return result;
}

} // namespace stepscope::capture
