#include "model/kineto/DeviceStreamTracker.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "model/Classification.h"
#include "model/DeviceDetails.h"
#include "model/kineto/HostSliceTracker.h"
#include "model/kineto/KinetoStrings.h"
#include "model/kineto/LaunchOpJoin.h"
#include "model/kineto/StepTracker.h"

namespace stepscope::kineto {

namespace {

// XProf's first reserved (derived) line id, kThreadIdDerivedMin = 0xdeadbeef, which is also its
// "Steps" line (kThreadIdStepInfo) (xla/tsl/profiler/utils/xplane_schema.h). Lines under these
// ids are skipped by every analysis that counts device work.
constexpr int64_t kStepsLineId = 0xdeadbeef;
constexpr int64_t kGpuAnnotationLineBase = 0xdeadbeef + 100; // + stream, modulo 80
constexpr int64_t kSyncLineBase = 0xdeadbeef + 180;          // + stream, modulo 80

} // namespace

void DeviceStreamTracker::add(int64_t start, int64_t duration, StringId name, StringId cat,
                              Kind kind, const Id& pid, const Id& tid,
                              const std::vector<Arg>& args) {
    Event d;
    d.start = start;
    d.duration = duration;
    d.name = name;
    d.cat = cat;
    d.kind = kind;
    int64_t device = pid.isText ? 0 : pid.value;
    int64_t stream = tid.value;
    if (tid.isText) {
        // 2021: "stream 7".
        const std::string_view t = b_.strings().get(tid.text);
        if (t.starts_with("stream ")) {
            int64_t s = 0;
            for (char c : t.substr(7))
                if (c >= '0' && c <= '9') s = s * 10 + (c - '0');
            stream = s;
        }
    }
    uint8_t* const begin =
        statBytes_.room(args.size() * statcodec::kMaxEntryBytes, d.statsInNextChunk);
    uint8_t* p = begin;
    bool hasKernelDetails = false, hasMemcpyDetails = false;
    for (const Arg& a : args) {
        if (a.role == Role::Device && a.type == StatType::Int64) device = int64_t(a.raw);
        if (a.role == Role::Stream && a.type == StatType::Int64) stream = int64_t(a.raw);
        if (a.role == Role::Correlation &&
            (a.type == StatType::Int64 || a.type == StatType::Uint64)) {
            d.hasCorrelation = true;
            d.correlation = a.raw;
        }
        hasKernelDetails |= a.role == Role::KernelDetails;
        hasMemcpyDetails |= a.role == Role::MemcpyDetails;
        d.hasTfOp |= a.role == Role::TfOp;
        p = statcodec::putEntry(p, a.key, a.type, a.raw);
    }
    statBytes_.grow(size_t(p - begin));
    d.statCount = uint32_t(args.size());
    d.hasDetails = details(d, device, args, hasKernelDetails, hasMemcpyDetails, d.details);
    if (kind == Kind::Derived) {
        // An exported derived line: its tid is the line id, whatever stream its events name.
        device = pid.value;
        stream = tid.value;
    }
    d.line = lineOf({device, stream, lineKindOf(kind)});
    events_.push_back(d);
}

// The index of a line, given on first sight.
uint32_t DeviceStreamTracker::lineOf(const LineKey& line) {
    if (lastLine_ < lines_.size()) {
        const LineKey& last = lines_[lastLine_];
        if (!(line < last) && !(last < line)) return lastLine_;
    }
    const auto [it, added] = lineIndex_.emplace(line, uint32_t(lines_.size()));
    if (added) lines_.push_back(line);
    lastLine_ = it->second;
    return lastLine_;
}

// The kernel_details of a kernel (from grid, block, registers per thread, shared memory) or the
// memcpy_details of a copy or memset, unless the event brought its own; false for other events.
// A kernel without launch geometry (ROCm traces) gets the fields it has, or an empty text: it is
// still a kernel (Profile::kernels()), whose geometry is not recorded.
bool DeviceStreamTracker::details(const Event& d, int64_t device, const std::vector<Arg>& args,
                                  bool hasKernelDetails, bool hasMemcpyDetails, StringId& details) {
    const bool kernel = d.kind == Kind::Kernel && !hasKernelDetails;
    const bool copy = (d.kind == Kind::Memcpy || d.kind == Kind::Memset) && !hasMemcpyDetails;
    if (!kernel && !copy) return false;
    std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
    bool hasGrid = false, hasBlock = false;
    int64_t regs = -1, shared = -1, bytes = -1;
    for (const Arg& a : args) {
        if (a.role == Role::Grid && a.hasDims) grid = a.dims, hasGrid = true;
        if (a.role == Role::Block && a.hasDims) block = a.dims, hasBlock = true;
        if (a.type == StatType::Int64) {
            if (a.role == Role::Registers) regs = int64_t(a.raw);
            if (a.role == Role::SharedMemory) shared = int64_t(a.raw);
            if (a.role == Role::Bytes) bytes = int64_t(a.raw);
        }
    }
    const bool geometry = hasGrid && hasBlock;
    const CopyKind ck =
        d.kind == Kind::Memcpy ? copyKindFromName(b_.strings().get(d.name)) : CopyKind::Memset;
    const DetailsKey k = kernel
                             ? DetailsKey{{geometry ? 0 : 2, regs, shared, grid[0], grid[1],
                                           grid[2], block[0], int64_t(block[1]) << 32 | block[2]}}
                             : DetailsKey{{1, int64_t(ck), bytes, device, 0, 0, 0, 0}};
    const auto it = details_.find(k);
    if (it != details_.end()) {
        details = it->second;
        return true;
    }
    std::string text;
    if (kernel) {
        // The TF 2020 spelling (regs, shm, grid, block): Kineto's "shared memory" is the
        // kernel's static plus dynamic shared memory in one number.
        if (regs >= 0) text += "regs:" + std::to_string(regs);
        if (shared >= 0) text += (text.empty() ? "shm:" : " shm:") + std::to_string(shared);
        if (geometry)
            text += (text.empty() ? "grid:" : " grid:") + std::to_string(grid[0]) + "," +
                    std::to_string(grid[1]) + "," + std::to_string(grid[2]) +
                    " block:" + std::to_string(block[0]) + "," + std::to_string(block[1]) + "," +
                    std::to_string(block[2]);
    } else {
        text = "kind:" + std::string(copyKindName(ck));
        if (bytes >= 0) text += " size:" + std::to_string(bytes);
        text += " dest:" + std::to_string(device);
    }
    details = b_.intern(text);
    details_.emplace(k, details);
    return true;
}

void DeviceStreamTracker::extendSteps(StepTracker& steps) const {
    if (steps.empty()) return;
    // Device work (kernels, copies, memsets) by correlation id.
    size_t workCount = 0, correlated = 0;
    for (const Event& d : events_) {
        workCount += lineKindOf(d.kind) == 0;
        correlated += lineKindOf(d.kind) == 0 && d.hasCorrelation;
    }
    std::vector<TorchRange> work;
    std::vector<std::pair<uint64_t, uint32_t>> byCorrelation;
    work.reserve(workCount);
    byCorrelation.reserve(correlated);
    for (const Event& d : events_) {
        if (lineKindOf(d.kind) != 0) continue;
        if (d.hasCorrelation) byCorrelation.push_back({d.correlation, uint32_t(work.size())});
        work.push_back({d.start, d.start + d.duration});
    }
    steps.extend(work, std::move(byCorrelation));
}

void DeviceStreamTracker::finish(KinetoStrings& strings, const LaunchOpJoin& join,
                                 StepTracker& steps, const HostSliceTracker& hosts) {
    // First, while the builder has not grown by the device events: its temporaries are freed
    // before the columns need the memory.
    extendSteps(steps);
    // Devices: those with events and those described in deviceProperties.
    std::map<int64_t, uint32_t> planes;
    for (const auto& [id, props] : props_) planes[id] = 0;
    for (const LineKey& line : lines_) planes[line.device] = 0;
    for (auto& [device, plane] : planes) {
        plane = b_.addPlane(host_, 1000 + device, "/device:GPU:" + std::to_string(device));
        const auto it = props_.find(device);
        if (it != props_.end())
            for (const StatValue& s : it->second) b_.addPlaneStat(plane, s);
    }
    // Lines: one per (device, stream) for work, plus annotation and sync lines.
    std::vector<uint16_t> lineFlags(lines_.size(), 0);
    for (const Event& d : events_) {
        uint16_t& flags = lineFlags[d.line];
        if (d.kind == Kind::Kernel) flags |= StreamCompute;
        if (d.kind == Kind::Memset) flags |= StreamMemset;
        if (d.kind == Kind::Memcpy) {
            switch (copyKindFromName(b_.strings().get(d.name))) {
            case CopyKind::HostToDevice:
                flags |= StreamMemcpyH2D;
                break;
            case CopyKind::DeviceToHost:
                flags |= StreamMemcpyD2H;
                break;
            case CopyKind::PeerToPeer:
                flags |= StreamMemcpyP2P;
                break;
            default:
                flags |= StreamMemcpyD2D;
            }
        }
    }
    std::vector<uint32_t> trackOfLine(lines_.size()), planeOfLine(lines_.size());
    std::set<int64_t> devicesWithSteps; // a Steps line came with the trace (an export's)
    std::set<int64_t> devicesWithWork;  // a stream with kernels, copies or memsets
    for (const LineKey& k : lines_)
        if (k.kind == 0) devicesWithWork.insert(k.device);
    for (const auto& [k, index] : lineIndex_) {
        const uint32_t plane = planes[k.device];
        planeOfLine[index] = plane;
        uint32_t& track = trackOfLine[index];
        if (k.kind == 0) {
            const std::string kinds = streamFlagsName(lineFlags[index]);
            std::string name = "Stream #" + std::to_string(k.stream);
            if (!kinds.empty()) {
                std::string list = kinds;
                std::replace(list.begin(), list.end(), '+', ',');
                name += "(" + list + ")";
            }
            track = b_.addTrack(plane, k.stream, name);
        } else if (k.kind == 3) {
            const std::string* name = hosts.threadName(k.device, k.stream);
            track = b_.addTrack(plane, k.stream,
                                name ? *name : "derived line " + std::to_string(k.stream));
            if (name && *name == "Steps") devicesWithSteps.insert(k.device);
        } else {
            const int64_t id = (k.kind == 1 ? kGpuAnnotationLineBase : kSyncLineBase) +
                               ((k.stream % 80) + 80) % 80;
            track = b_.addTrack(plane, id,
                                (k.kind == 1 ? "GPU annotations, stream " : "Syncs, stream ") +
                                    std::to_string(k.stream));
        }
    }
    // Metadata per (plane, name).
    // (A direct-mapped cache in front of the map: kernel names repeat.)
    std::unordered_map<uint64_t, uint32_t> meta;
    std::vector<std::pair<uint64_t, uint32_t>> metaCache(1024, {~uint64_t(0), 0});
    auto metadataOf = [&](uint32_t plane, StringId name, StringId cat) {
        const uint64_t k = uint64_t(plane) << 32 | name;
        auto& slot = metaCache[(k ^ (k >> 29)) & 1023];
        if (slot.first == k) return slot.second;
        auto it = meta.find(k);
        if (it == meta.end()) {
            const uint32_t m = b_.addMetadata(plane, int64_t(name), b_.strings().get(name), {});
            if (cat) b_.addMetadataStat(m, StatValue{catKey_, StatType::Str, cat});
            it = meta.emplace(k, m).first;
        }
        slot = {k, it->second};
        return it->second;
    };
    Role role;
    const uint32_t kernelDetailsKey = strings.key("kernel_details", &role);
    const uint32_t memcpyDetailsKey = strings.key("memcpy_details", &role);
    const uint32_t tfOpKey = strings.key("tf_op", &role);
    const uint32_t inputTypesKey = b_.statKey(b_.intern("op_input_types"));
    b_.reserveEvents(b_.eventCount() + events_.size() + steps.steps().size() * planes.size());
    // Each event leaves the deque, and each chunk of stats is freed, once in the builder.
    size_t chunk = 0;
    const uint8_t* p = nullptr;
    for (; !events_.empty(); events_.pop_front()) {
        const Event& d = events_.front();
        b_.addEvent(trackOfLine[d.line], d.start, d.duration,
                    metadataOf(planeOfLine[d.line], d.name, d.cat));
        if (d.statsInNextChunk) {
            if (p) statBytes_.release(chunk++);
            p = statBytes_.chunk(chunk);
        }
        stats_.resize(d.statCount);
        for (statcodec::Entry& e : stats_) statcodec::readEntry(p, e.keyIndex, e.type, e.raw);
        if (d.hasDetails)
            stats_.push_back({d.details,
                              d.kind == Kind::Kernel ? kernelDetailsKey : memcpyDetailsKey,
                              StatType::Str});
        if (d.hasCorrelation && !d.hasTfOp && lineKindOf(d.kind) == 0) {
            if (const LaunchOp* op = join.opOfLaunch(d.correlation)) {
                stats_.push_back({op->op, tfOpKey, StatType::Str});
                if (op->inputTypes)
                    stats_.push_back({op->inputTypes, inputTypesKey, StatType::Str});
            }
        }
        b_.addEventStats(stats_.data(), stats_.size());
    }
    std::deque<Event>().swap(events_);
    statBytes_.clear();
    // Steps: XProf keeps a "Steps" line on each device plane; PyTorch marks steps on the host
    // with ProfilerStep#N ranges, which are copied there.
    if (!steps.empty()) {
        const uint32_t stepNumKey = b_.statKey(b_.intern("step_num"));
        for (const auto& [device, plane] : planes) {
            // Only devices that ran something get a Steps line (those listed in deviceProperties
            // alone do not), unless the trace brought its own.
            if (devicesWithSteps.count(device) || !devicesWithWork.count(device)) continue;
            const uint32_t track = b_.addTrack(plane, kStepsLineId, "Steps");
            for (const StepTracker::Step& s : steps.steps()) {
                b_.addEvent(track, s.start, s.end - s.start, metadataOf(plane, s.name, 0));
                if (s.number >= 0) b_.addEventStat(stepNumKey, StatType::Int64, uint64_t(s.number));
            }
        }
    }
}

} // namespace stepscope::kineto
