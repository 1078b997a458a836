#include "model/kineto/HostSliceTracker.h"

#include <algorithm>
#include <limits>

#include "model/kineto/LaunchOpJoin.h"
#include "model/kineto/StepTracker.h"

namespace stepscope::kineto {

namespace {

// cudaGraphLaunch (also with a _v10000 suffix), cuGraphLaunch, hipGraphLaunch: a launch that
// replays a captured graph, whose kernels are not the work of the op it happened in.
bool isGraphLaunch(std::string_view name) {
    return name.find("GraphLaunch") != std::string_view::npos;
}

} // namespace

uint32_t HostSliceTracker::thread(const Id& pid, const Id& tid) {
    if (lastThread_.index != kNoThread && lastThread_.pid == pid.value &&
        lastThread_.tid == tid.value)
        return lastThread_.index;
    lastThread_ = {pid.value, tid.value, threadOf(pid, tid)};
    return lastThread_.index;
}

uint32_t HostSliceTracker::threadOf(const Id& pid, const Id& tid) {
    auto pit = processIndex_.find(pid.value);
    if (pit == processIndex_.end()) {
        Process p;
        p.pid = pid.value;
        p.plane = b_.addPlane(host_, int64_t(processes_.size()), "/host:CPU");
        processes_.push_back(std::move(p));
        pit = processIndex_.emplace(pid.value, uint32_t(processes_.size() - 1)).first;
    }
    Process& p = processes_[pit->second];
    auto tit = p.threads.find(tid.value);
    if (tit != p.threads.end()) return tit->second;
    Thread t;
    t.plane = p.plane;
    t.track = b_.addTrack(p.plane, tid.value, "thread " + std::to_string(tid.value));
    threads_.push_back(std::move(t));
    join_.addThread(p.plane);
    p.threads.emplace(tid.value, uint32_t(threads_.size() - 1));
    return uint32_t(threads_.size() - 1);
}

std::optional<uint32_t> HostSliceTracker::trackOf(int64_t pid, int64_t tid) const {
    const auto p = processIndex_.find(pid);
    if (p == processIndex_.end()) return std::nullopt;
    const auto t = processes_[p->second].threads.find(tid);
    if (t == processes_[p->second].threads.end()) return std::nullopt;
    return threads_[t->second].track;
}

uint32_t HostSliceTracker::metadataOf(uint32_t plane, StringId name, StringId cat) {
    const MetaKey k{plane, name, cat};
    // A direct-mapped cache in front of the map: names repeat event after event.
    MetaSlot& slot = metaCache_[MetaKeyHash()(k) & (kMetaCacheSize - 1)];
    if (slot.metadata != kNoMetadata && slot.key == k) return slot.metadata;
    const auto it = meta_.find(k);
    if (it != meta_.end()) {
        slot = {k, it->second};
        return it->second;
    }
    const uint32_t m = b_.addMetadata(plane, int64_t(meta_.size()), b_.strings().get(name), {});
    if (cat) b_.addMetadataStat(m, StatValue{catKey_, StatType::Str, cat});
    meta_.emplace(k, m);
    slot = {k, m};
    return m;
}

void HostSliceTracker::slice(uint32_t thread, int64_t start, int64_t duration, StringId name,
                             StringId cat, const std::vector<Arg>& args) {
    Thread& t = threads_[thread];
    b_.addEvent(t.track, start, duration, metadataOf(t.plane, name, cat));
    uint64_t correlation = 0;
    bool hasCorrelation = false;
    int64_t externalId = 0;
    StringId inputTypes = 0;
    stats_.clear();
    for (const Arg& a : args) {
        stats_.push_back({a.raw, a.key, a.type});
        if (a.role == Role::InputType && a.type == StatType::Str) inputTypes = StringId(a.raw);
        if (a.role == Role::Correlation && a.type != StatType::Double && a.type != StatType::Str) {
            correlation = a.raw;
            hasCorrelation = true;
        }
        if (a.role == Role::ExternalId && a.type == StatType::Int64) externalId = int64_t(a.raw);
    }
    b_.addEventStats(stats_.data(), stats_.size());
    const Categories::Category& category = categories_.of(cat);
    const int32_t shortId = externalId > 0 && externalId <= std::numeric_limits<int32_t>::max()
                                ? int32_t(externalId)
                                : 0;
    if (category.op) join_.addOp(thread, {start, start + duration, name, shortId, inputTypes});
    const std::string_view nameText = b_.strings().get(name);
    if (hasCorrelation)
        join_.addLaunch(thread, {start, correlation, false, category.runtime, shortId,
                                 uint32_t(std::min<int64_t>(duration / 1000,
                                                            std::numeric_limits<uint32_t>::max())),
                                 isGraphLaunch(nameText)});
    steps_.addRange(start, start + duration, name, nameText);
}

void HostSliceTracker::begin(uint32_t thread, int64_t start, StringId name, StringId cat,
                             const std::vector<Arg>& args) {
    threads_[thread].open.push_back({start, name, cat, args});
}

void HostSliceTracker::end(uint32_t thread, int64_t start, const std::vector<Arg>& args) {
    Thread& t = threads_[thread];
    if (t.open.empty()) {
        ++unmatchedEnds_;
        return;
    }
    Thread::Open o = std::move(t.open.back());
    t.open.pop_back();
    o.args.insert(o.args.end(), args.begin(), args.end());
    slice(thread, o.start, std::max<int64_t>(0, start - o.start), o.name, o.cat, o.args);
}

void HostSliceTracker::closeOpen(int64_t lastPs) {
    for (uint32_t i = 0; i < threads_.size(); ++i) {
        // A B without its E lasts to the trace's last timestamp, as chrome://tracing and
        // Perfetto show a slice that did not end. (slice() does not touch open.)
        for (Thread::Open& o : threads_[i].open)
            slice(i, o.start, std::max<int64_t>(0, lastPs - o.start), o.name, o.cat, o.args);
        if (!threads_[i].open.empty())
            b_.host(host_).warnings.push_back(std::to_string(threads_[i].open.size()) +
                                              " \"B\" events have no matching \"E\"; shown as "
                                              "lasting to the trace's end");
        threads_[i].open.clear();
    }
}

void HostSliceTracker::metadata(std::string_view name, const Id& pid, const Id& tid,
                                const std::vector<Arg>& args) {
    const Arg* value = nullptr;
    for (const Arg& a : args)
        if (a.role == Role::MetaName || a.role == Role::MetaSortIndex) value = &a;
    if (!value) return;
    if (name == "process_name" && value->type == StatType::Str)
        processNames_[pid.value] = std::string(b_.strings().get(StringId(value->raw)));
    else if (name == "thread_name" && value->type == StatType::Str)
        threadNames_[{pid.value, tid.value}] = std::string(b_.strings().get(StringId(value->raw)));
    else if (name == "process_sort_index" && value->type == StatType::Int64)
        processSort_[pid.value] = int64_t(value->raw);
}

const std::string* HostSliceTracker::threadName(int64_t pid, int64_t tid) const {
    const auto it = threadNames_.find({pid, tid});
    return it == threadNames_.end() ? nullptr : &it->second;
}

void HostSliceTracker::finishNames(
    const std::unordered_map<std::string, int64_t, StringHash, std::equal_to<>>& textIds) {
    for (Process& p : processes_) {
        const auto it = processNames_.find(p.pid);
        const std::string pidText = p.pid >= 0 ? "pid " + std::to_string(p.pid) : "process";
        std::string name = "/host:CPU ";
        if (it != processNames_.end() && !it->second.empty())
            name += it->second + " (" + pidText + ")";
        else
            name += pidText;
        if (p.pid < 0) {
            // A process named by text: its text is its name.
            for (const auto& [text, id] : textIds)
                if (id == p.pid) name = "/host:CPU " + (text.empty() ? "(no pid)" : text);
        }
        b_.setPlaneName(p.plane, name);
        // The pid and process name, for an export to give back.
        if (p.pid >= 0)
            b_.addPlaneStat(p.plane, StatValue{b_.intern("pid"), StatType::Int64, uint64_t(p.pid)});
        if (it != processNames_.end())
            b_.addPlaneStat(p.plane, StatValue{b_.intern("process_name"), StatType::Str,
                                               b_.intern(it->second)});
        for (const StatValue& s : hostStats_) b_.addPlaneStat(p.plane, s);
        const auto sort = processSort_.find(p.pid);
        if (sort != processSort_.end())
            b_.addPlaneStat(p.plane, StatValue{b_.intern("process_sort_index"), StatType::Int64,
                                               uint64_t(sort->second)});
        for (const auto& [tid, index] : p.threads) {
            const auto tn = threadNames_.find({p.pid, tid});
            if (tn != threadNames_.end())
                b_.setTrackName(threads_[index].track, tn->second);
            else if (tid < 0)
                for (const auto& [text, id] : textIds)
                    if (id == tid)
                        b_.setTrackName(threads_[index].track, text.empty() ? "(no tid)" : text);
        }
    }
}

} // namespace stepscope::kineto
