#include "views/trace/EventDetails.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "views/trace/TimeAxis.h"

namespace stepscope {

namespace {
std::string dims(const std::array<uint32_t, 3>& d) {
    return std::to_string(d[0]) + " × " + std::to_string(d[1]) + " × " + std::to_string(d[2]);
}

std::string bytesText(uint64_t b) {
    char buf[64];
    if (b < 1024)
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
    else if (b < (1ull << 20))
        std::snprintf(buf, sizeof buf, "%.2f KiB (%llu B)", double(b) / 1024,
                      static_cast<unsigned long long>(b));
    else if (b < (1ull << 30))
        std::snprintf(buf, sizeof buf, "%.2f MiB (%llu B)", double(b) / (1 << 20),
                      static_cast<unsigned long long>(b));
    else
        std::snprintf(buf, sizeof buf, "%.2f GiB (%llu B)", double(b) / (1ull << 30),
                      static_cast<unsigned long long>(b));
    return buf;
}
bool isKernelDetailsKey(std::string_view key) {
    return key == "kernel_details";
}

// The HLO instruction rows of a device event, if the catalog knows its instruction.
void addHloFields(EventIndex e, const HloCatalog& hlo, std::vector<DetailField>& fields) {
    const HloOpRef ref = hlo.instructionOf(e);
    if (!ref) return;
    const HloInstruction& h = *ref.instruction;
    std::string what = h.opcode;
    if (!h.fusionKind.empty()) what += ", " + h.fusionKind;
    if (!h.customCallTarget.empty()) what += ", " + h.customCallTarget;
    fields.push_back({"HLO instruction", h.name + " (" + what + ")"});
    fields.push_back(
        {"HLO module", ref.module->name + " (program id " + std::to_string(ref.module->id) + ")"});
    if (!h.metadata.opName.empty()) fields.push_back({"Op path", h.metadata.opName});
    if (!h.metadata.sourceFile.empty())
        fields.push_back(
            {"Source", h.metadata.sourceFile + (h.metadata.sourceLine > 0
                                                    ? ":" + std::to_string(h.metadata.sourceLine)
                                                    : std::string())});
    if (const Precision p = ref.precision; p != Precision::Unknown)
        fields.push_back(
            {"HLO precision", std::string(precisionName(p)) + (ref.matrix ? " (matrix op)" : "")});
    if (ref.viaCommandBuffer) {
        const HloComputation* c = ref.module->computationOf(h);
        fields.push_back({"HLO attribution",
                          "via command buffer: its hlo_op names no instruction, so the launch's "
                          "kernels were aligned with the schedule" +
                              (c ? " of " + c->name : std::string())});
    }
}

// The CUDA graph launch a device event ran in, where it carries cuda_graph_id.
void addGraphLaunchField(const Profile& profile, EventIndex e, std::vector<DetailField>& fields) {
    const std::optional<StatValue> graph = profile.findStat(e, "cuda_graph_id");
    if (!graph || !graph->isNumber()) return;
    std::string text = "CUDA graph " + std::to_string(graph->asInt());
    if (const std::optional<uint64_t> corr = profile.correlationIds().find(e))
        text += ", correlation id " + std::to_string(*corr);
    const std::vector<EventIndex> launches = profile.launchesOf(e);
    text += launches.empty() ? ", its host launch is not in the profile"
                             : ", launched by " + std::string(profile.name(launches.front()));
    fields.push_back({"Graph launch", text});
}
} // namespace

int64_t selfTime(const Profile& profile, EventIndex e) {
    const uint32_t track = profile.trackOf(e);
    const uint32_t depth = profile.depthOf(e);
    const int64_t s = profile.start(e), end = profile.end(e);
    int64_t covered = 0;
    const EventRange children = profile.eventsInWindow(track, depth + 1, s, end);
    for (EventIndex c = children.begin; c < children.end; ++c)
        covered +=
            std::max<int64_t>(0, std::min(end, profile.end(c)) - std::max(s, profile.start(c)));
    return std::max<int64_t>(0, profile.duration(e) - covered);
}

EventDetails describeEvent(const Profile& profile, EventIndex e, const std::string& trackLabel,
                           const HloCatalog* hlo) {
    EventDetails d;
    const StringPool& pool = profile.strings();
    d.name = std::string(profile.name(e));
    const EventMetadata& meta = profile.metadata()[profile.metadataOf(e)];
    if (meta.displayName != 0 && meta.displayName != meta.name)
        d.fields.push_back({"Display name", std::string(profile.str(meta.displayName))});
    const uint32_t track = profile.trackOf(e);
    const Plane& plane = profile.planes()[profile.tracks()[track].plane];
    d.fields.push_back({"Duration", formatDuration(profile.duration(e))});
    d.fields.push_back({"Start", formatTimePoint(profile.start(e), profile.duration(e) / 10) +
                                     " from profile start"});
    d.fields.push_back({"Self time", formatDuration(selfTime(profile, e))});
    d.fields.push_back({"Track", std::string(profile.str(plane.name)) + " › " + trackLabel});
    if (const std::optional<uint64_t> corr = profile.correlationIds().find(e))
        d.fields.push_back({"Correlation id", std::to_string(*corr)});
    if (profile.groupId(e) >= 0)
        d.fields.push_back({"Step (group id)", std::to_string(profile.groupId(e))});
    if (const StringId* op = profile.frameworkOps().find(e))
        d.fields.push_back({"Framework op", std::string(profile.str(*op))});
    if (const StringId* op = profile.hloOps().find(e))
        d.fields.push_back({"HLO op", std::string(profile.str(*op))});
    if (hlo) addHloFields(e, *hlo, d.fields);
    if (profile.tracks()[track].deviceOps) addGraphLaunchField(profile, e, d.fields);
    const KernelDetails* k = profile.kernelDetails(e);
    // TF 2.4 wrote kernel_details on host launch events from uninitialised memory
    // ("regs:687194767361 grid:576,139757090178736,…"); the model keeps geometry for device
    // events only. Show the values of the kernel this launch caused instead, labelled.
    bool untrustedDetails = false;
    if (plane.kind == PlaneKind::Host)
        for (const StatValue& s : profile.eventStats(e))
            untrustedDetails |= isKernelDetailsKey(profile.str(s.key));
    if (untrustedDetails) {
        for (const Flow& f : profile.flowsFrom(e))
            if (const KernelDetails* t = profile.kernelDetails(f.target); t && t->valid) {
                k = t;
                break;
            }
        d.fields.push_back(
            {"Launch details",
             k ? "as the kernel it launched recorded them (this host event's kernel_details are "
                 "not trusted: TF 2.4 wrote uninitialised values there)"
               : "not shown: this host event's kernel_details are not trusted (TF 2.4 wrote "
                 "uninitialised values there) and no kernel it launched records them"});
    }
    if (k && k->valid) {
        d.fields.push_back({"Grid", dims(k->grid)});
        d.fields.push_back(
            {"Block", dims(k->block) + " (" + std::to_string(k->threadsPerBlock()) + " threads)"});
        if (k->registersPerThread)
            d.fields.push_back({"Registers per thread", std::to_string(k->registersPerThread)});
        d.fields.push_back({"Shared memory", bytesText(k->sharedBytes())});
        if (k->privateBytes) d.fields.push_back({"Private memory", bytesText(k->privateBytes)});
        if (k->occupancyPct > 0) { // ROCm's occ_pct:0 means "not computed"
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.0f%%", k->occupancyPct);
            d.fields.push_back({"Theoretical occupancy", buf});
        }
    }
    if (const MemcpyDetails* m = profile.memcpys().find(e); m && m->valid) {
        CopyKind kind = m->kind;
        if (kind == CopyKind::Unknown) kind = copyKindFromName(profile.name(e));
        if (kind == CopyKind::Unknown)
            kind = copyKindFromName(profile.str(profile.tracks()[track].name));
        d.fields.push_back({"Copy", std::string(copyKindName(kind))});
        d.fields.push_back({"Bytes", bytesText(m->bytes)});
        if (profile.duration(e) > 0 && m->bytes > 0) {
            char buf[48];
            std::snprintf(buf, sizeof buf, "%.2f GB/s",
                          double(m->bytes) / (double(profile.duration(e)) / 1e12) / 1e9);
            d.fields.push_back({"Throughput", buf});
        }
        if (m->destination >= 0)
            d.fields.push_back({"Destination", std::to_string(m->destination)});
        d.fields.push_back({"Async", m->async ? "yes" : "no"});
    }
    for (const StatValue& s : profile.eventStats(e)) {
        const std::string key(profile.str(s.key));
        d.stats.push_back({key, s.format(pool)});
        if (untrustedDetails && isKernelDetailsKey(key))
            d.stats.back().value += "  (uninitialised values written by TF 2.4: not facts)";
    }
    for (const StatValue& s : profile.metadataStats(profile.metadataOf(e)))
        d.stats.push_back({std::string(profile.str(s.key)), s.format(pool)});
    d.launches = profile.launchesOf(e);
    for (const Flow& f : profile.flowsFrom(e)) d.targets.push_back(f.target);
    return d;
}

} // namespace stepscope
