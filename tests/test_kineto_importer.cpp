// The Kineto / Chrome trace JSON importer: hand-written traces with values worked out by hand,
// and facts about every Kineto trace in ../shared/realdata counted by a small independent reader
// (simdjson's DOM and zlib's gzread, not the importer). Bad input and reading by windows:
// test_kineto_reading.cpp.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <simdjson.h>

#include "model/LogDir.h"
#include "model/ProfileLoader.h"
#include "model/analysis/KernelStats.h"
#include "model/analysis/TensorCore.h"
#include "model/kineto/ChromeTraceWriter.h"
#include "tests/fixtures/GzipFile.h"
#include "tests/fixtures/KinetoTraces.h"

using namespace stepscope;
using namespace stepscope::fixtures;
namespace fs = std::filesystem;

namespace {

const std::string kKineto = std::string(STEPSCOPE_REALDATA) + "/kineto";

// Traces of the device-steps and External id tests.
const char* kDeviceStepsTrace =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,"
    "\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,"
    "\"ts\":100,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":1,\"tid\":1,"
    "\"ts\":200,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":10,\"dur\":5,\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":110,\"dur\":5,\"args\":{\"correlation\":2}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":50,\"dur\":100,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":160,\"dur\":100,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}}]}";
const char* kExternalIdTrace =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100,"
    "\"args\":{\"External id\":5}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":10,"
    "\"args\":{\"External id\":6}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":15,\"dur\":1,\"args\":{\"External id\":5,\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":16,\"dur\":1,\"args\":{\"External id\":6,\"correlation\":2}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":12,\"dur\":1,\"args\":{\"External id\":99,\"correlation\":3}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":50,\"dur\":5,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":60,\"dur\":5,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"pid\":0,\"tid\":7,\"ts\":70,\"dur\":5,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":3}}]}";

// Facts about one real trace, counted from the JSON with simdjson's DOM.
struct Facts {
    uint64_t kernels = 0, kernelsWithGeometry = 0, memcpys = 0, memsets = 0, memory = 0;
    uint64_t flows = 0, steps = 0;
    size_t threads = 0;
    std::set<int64_t> devices;
};

int64_t idOf(simdjson::dom::element v, std::map<std::string, int64_t>& textIds) {
    if (v.is_int64()) return int64_t(v.get_int64());
    if (v.is_uint64()) return int64_t(v.get_uint64());
    if (v.is_string()) {
        const std::string s(std::string_view(v.get_string()));
        if (!s.empty() && s.size() < 19 &&
            std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return std::stoll(s);
        return textIds.emplace(s, -1 - int64_t(textIds.size())).first->second;
    }
    return 0;
}

Facts countFacts(const std::string& json) {
    Facts f;
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.parse(json);
    simdjson::dom::array events = doc.is_array() ? doc.get_array() : doc["traceEvents"].get_array();
    std::set<std::pair<int64_t, int64_t>> threads;
    std::map<std::string, int64_t> textIds;
    std::multiset<int64_t> hostCorrelations;
    std::vector<int64_t> deviceCorrelations;
    for (simdjson::dom::element e : events) {
        const std::string_view ph = e["ph"].get_string();
        std::string_view cat, name;
        if (e["cat"].is_string()) cat = e["cat"].get_string();
        if (e["name"].is_string()) name = e["name"].get_string();
        const bool kernel = cat == "kernel" || cat == "Kernel";
        const bool memcpy = cat == "gpu_memcpy" || cat == "Memcpy";
        const bool memset = cat == "gpu_memset" || cat == "Memset";
        const bool device =
            kernel || memcpy || memset || cat == "gpu_user_annotation" || cat == "cuda_sync";
        if (ph != "X" && ph != "i" && ph != "I" && ph != "B") continue;
        simdjson::dom::element args;
        const bool hasArgs = e["args"].get(args) == simdjson::SUCCESS;
        int64_t corr = -1;
        if (hasArgs && args["correlation"].is_int64()) corr = int64_t(args["correlation"]);
        if (device && ph == "X") {
            if (kernel) {
                ++f.kernels;
                const double dur = double(e["dur"]);
                if (hasArgs && args["grid"].is_array() && args["block"].is_array() && dur >= 0.001)
                    ++f.kernelsWithGeometry;
            }
            f.memcpys += memcpy;
            f.memsets += memset;
            if ((kernel || memcpy || memset) && corr >= 0) deviceCorrelations.push_back(corr);
            continue;
        }
        threads.insert({idOf(e["pid"], textIds), idOf(e["tid"], textIds)});
        if (name == "[memory]") ++f.memory;
        if (name.starts_with("ProfilerStep#")) ++f.steps;
        if (corr >= 0) hostCorrelations.insert(corr);
    }
    for (int64_t c : deviceCorrelations) f.flows += hostCorrelations.count(c);
    f.threads = threads.size();
    return f;
}

struct ModelFacts {
    uint64_t kernels = 0, memcpys = 0, memsets = 0, memory = 0, steps = 0;
    size_t threads = 0;
};

ModelFacts modelFacts(const Profile& p) {
    ModelFacts m;
    bool stepsCounted = false;
    for (const Plane& plane : p.planes()) {
        for (const Track& t : p.tracksOf(plane)) {
            if (plane.kind == PlaneKind::Host) ++m.threads;
            if (t.kind == TrackKind::Steps && !stepsCounted) {
                m.steps += t.eventCount;
                stepsCounted = true;
            }
            for (EventIndex e = t.firstEvent; e < t.firstEvent + t.eventCount; ++e) {
                if (plane.kind == PlaneKind::Host) {
                    m.memory += p.memoryEvents().find(e) != nullptr;
                    continue;
                }
                if (!t.deviceOps) continue;
                const auto cat = p.findStat(e, "category");
                const std::string_view c = cat ? p.str(cat->asString()) : "";
                m.kernels += c == "kernel" || c == "Kernel";
                m.memcpys += c == "gpu_memcpy" || c == "Memcpy";
                m.memsets += c == "gpu_memset" || c == "Memset";
            }
        }
    }
    return m;
}

// Every event as text: where it is (GPU ordinal or host, line id), name, times, and its stats
// (its own and its metadata's) sorted. The category, and the device/stream args an export adds
// to stream events, are left out: they say where an event goes, which the rest already says.
std::vector<std::string> signatures(const Profile& p) {
    std::vector<std::string> out;
    for (const Track& t : p.tracks()) {
        const Plane& pl = p.planes()[t.plane];
        const std::string where =
            (pl.kind == PlaneKind::Gpu ? "gpu" + std::to_string(pl.deviceOrdinal)
                                       : std::string("host")) +
            "/" + std::to_string(t.lineId);
        for (EventIndex e = t.firstEvent; e < t.firstEvent + t.eventCount; ++e) {
            std::vector<std::string> stats;
            auto add = [&](const StatValue& s) {
                const std::string_view k = p.str(s.key);
                if (k == "category" || k == "device" || k == "stream") return;
                stats.push_back(std::string(k) + "=" + s.format(p.strings()));
            };
            for (const StatValue& s : p.metadataStats(p.metadataOf(e))) add(s);
            for (const StatValue& s : p.eventStats(e)) add(s);
            std::sort(stats.begin(), stats.end());
            std::string sig = where + " " + std::string(p.name(e)) + " " +
                              std::to_string(p.start(e)) + "+" + std::to_string(p.duration(e));
            for (const std::string& s : stats) sig += " " + s;
            out.push_back(std::move(sig));
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

void checkRoundTrip(const Profile& original, const std::string& out) {
    const std::string error = writeChromeTrace(original, out);
    QVERIFY2(error.empty(), error.c_str());
    const LoadResult back = loadPath(out);
    QVERIFY2(back.ok(), back.error.c_str());
    const Profile& p = *back.profile;
    QCOMPARE(p.startNs(), original.startNs());
    QCOMPARE(p.durationPs(), original.durationPs());
    QCOMPARE(p.eventCount(), original.eventCount());
    QCOMPARE(p.flows().size(), original.flows().size());
    size_t tracksBefore = 0, tracksAfter = 0;
    for (const Track& t : original.tracks()) tracksBefore += t.eventCount > 0;
    for (const Track& t : p.tracks()) tracksAfter += t.eventCount > 0;
    QCOMPARE(tracksAfter, tracksBefore);
    const std::vector<std::string> a = signatures(original), b = signatures(p);
    QCOMPARE(b.size(), a.size());
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i])
            QFAIL(("first difference:\n  before: " + a[i] + "\n  after:  " + b[i]).c_str());
    std::map<std::string, int> gpuTracks;
    for (const Track& t : original.tracks())
        if (original.planes()[t.plane].kind == PlaneKind::Gpu && t.eventCount)
            ++gpuTracks[std::string(original.str(t.name))];
    std::map<std::string, int> gpuTracksBack;
    for (const Track& t : p.tracks())
        if (p.planes()[t.plane].kind == PlaneKind::Gpu && t.eventCount)
            ++gpuTracksBack[std::string(p.str(t.name))];
    QCOMPARE(gpuTracksBack, gpuTracks);
}

} // namespace

class TestKinetoImporter : public QObject {
    Q_OBJECT

private slots:
    // More device events than one 1 MiB chunk of their kept stats holds (about 35 bytes each
    // here), on two streams: after the hand-over to the builder every kernel has its own args
    // (an int, a negative int, a double, a string) and its own kernel_details.
    void manyDeviceEventsKeepTheirStats() {
        constexpr int kKernels = 60000;
        std::string json = "{\"traceEvents\":[";
        for (int i = 0; i < kKernels; ++i) {
            const std::string stream = std::to_string(7 + i % 2);
            json += std::string(i ? "," : "") +
                    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":" + stream +
                    ",\"ts\":" + std::to_string(i) + ",\"dur\":1,\"args\":{\"device\":0," +
                    "\"stream\":" + stream + ",\"correlation\":" + std::to_string(i + 1) +
                    ",\"registers per thread\":32,\"shared memory\":0,\"grid\":[" +
                    std::to_string(i % 100 + 1) +
                    ",1,1],\"block\":[128,1,1],\"queued\":" + std::to_string(-i) +
                    ",\"occupancy\":0.5,\"note\":\"n" + std::to_string(i) + "\"}}";
        }
        json += "]}";
        QTemporaryDir dir;
        const LoadResult r = loadText(dir, "many.pt.trace.json", json);
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        for (int s = 0; s < 2; ++s) {
            const Track* track = trackNamed(p, "Stream #" + std::to_string(7 + s) + "(Compute)");
            QVERIFY(track);
            const std::vector<EventIndex> e = eventsOf(p, *track);
            QCOMPARE(e.size(), size_t(kKernels / 2));
            for (size_t j = 0; j < e.size(); ++j) {
                const int i = int(2 * j) + s; // the kernel's index in the trace
                QCOMPARE(statText(p, e[j], "correlation_id"), std::to_string(i + 1));
                QCOMPARE(statText(p, e[j], "queued"), std::to_string(-i));
                QCOMPARE(statText(p, e[j], "occupancy"), std::string("0.5"));
                QCOMPARE(statText(p, e[j], "note"), "n" + std::to_string(i));
                QCOMPARE(statText(p, e[j], "kernel_details"),
                         "regs:32 shm:0 grid:" + std::to_string(i % 100 + 1) +
                             ",1,1 block:128,1,1");
            }
        }
    }

    void schema2022MapsEveryPart() {
        QTemporaryDir dir;
        const LoadResult r = loadText(dir, "worker0.1.pt.trace.json", kFixture2022);
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        QCOMPARE(p.hosts().size(), size_t(1));
        QCOMPARE(p.hosts()[0].name, std::string("worker0.1"));
        // Time base: baseTimeNanoseconds + the first whole µs (10) of the trace.
        QCOMPARE(p.startNs(), int64_t(1700000000000010000));
        QCOMPARE(p.durationPs(), int64_t(100000000)); // the step, 10 µs .. 110 µs

        QCOMPARE(p.planes().size(), size_t(2));
        const Plane& host = p.planes()[0];
        const Plane& gpu = p.planes()[1];
        QCOMPARE(p.str(host.name), std::string_view("/host:CPU python3 (pid 100)"));
        QCOMPARE(host.kind, PlaneKind::Host);
        QCOMPARE(p.str(gpu.name), std::string_view("/device:GPU:0"));
        QCOMPARE(gpu.kind, PlaneKind::Gpu);
        QCOMPARE(gpu.device.coreCount, int64_t(108));
        QCOMPARE(gpu.device.computeCapMajor, 8);
        QCOMPARE(gpu.device.memoryBytes, uint64_t(42505273344));
        QCOMPARE(gpu.device.vendor, std::string("NVIDIA"));
        std::map<std::string, std::string> hostStats;
        for (const StatValue& s : p.planeStats(host))
            hostStats[std::string(p.str(s.key))] = s.format(p.strings());
        QCOMPARE(hostStats["distributed rank"], std::string("1"));
        QCOMPARE(hostStats["distributed world_size"], std::string("2"));
        QCOMPARE(hostStats["distributed backend"], std::string("nccl"));
        QCOMPARE(hostStats["traceName"], std::string("fixture.pt.trace.json"));

        const Track* thread = trackNamed(p, "main thread");
        QVERIFY(thread);
        QCOMPARE(thread->lineId, int64_t(101));
        QCOMPARE(thread->kind, TrackKind::HostThread);
        // Step, aten::mm, two launches, two [memory] events.
        const std::vector<EventIndex> h = eventsOf(p, *thread);
        QCOMPARE(h.size(), size_t(6));
        QCOMPARE(p.name(h[0]), std::string_view("ProfilerStep#3"));
        QCOMPARE(p.start(h[0]), int64_t(0));
        QCOMPARE(p.duration(h[0]), int64_t(100000000));
        QCOMPARE(p.name(h[1]), std::string_view("aten::mm"));
        QCOMPARE(p.start(h[1]), int64_t(500000)); // 10.5 µs - 10 µs
        QCOMPARE(p.duration(h[1]), int64_t(20250000));
        QCOMPARE(statText(p, h[1], "category"), std::string("cpu_op"));
        QCOMPARE(statText(p, h[1], "Input Dims"), std::string("[[4, 8], [8, 16]]"));
        QCOMPARE(statText(p, h[1], "External id"), std::string("2"));
        QCOMPARE(p.name(h[2]), std::string_view("MemoryAllocation"));
        QCOMPARE(p.start(h[2]), int64_t(1000000));
        QCOMPARE(p.name(h[3]), std::string_view("cudaLaunchKernel"));
        QCOMPARE(p.start(h[3]), int64_t(2125000));
        QCOMPARE(statText(p, h[3], "correlation_id"), std::string("7"));
        QCOMPARE(p.name(h[4]), std::string_view("cudaMemcpyAsync"));
        QCOMPARE(p.name(h[5]), std::string_view("MemoryDeallocation"));
        QCOMPARE(p.start(h[5]), int64_t(60000000));

        // Memory events as the memory profile reads them.
        const MemoryEvent alloc = p.memoryEvent(h[2]);
        QCOMPARE(p.str(alloc.allocator), std::string_view("GPU_0"));
        QCOMPARE(alloc.bytesAllocated, int64_t(1024));
        QCOMPARE(alloc.bytesAvailable, int64_t(3072)); // reserved 4096 - allocated 1024
        QVERIFY(!alloc.has(MemoryEvent::BytesReserved));
        QCOMPARE(alloc.allocationBytes, int64_t(1024));
        QCOMPARE(alloc.address, uint64_t(140000000000));
        QVERIFY(!alloc.deallocation);
        // Allocated inside aten::mm; freed outside any op.
        QCOMPARE(p.str(alloc.tfOp), std::string_view("aten::mm"));
        const MemoryEvent freed = p.memoryEvent(h[5]);
        QVERIFY(freed.deallocation);
        QCOMPARE(freed.bytesAllocated, int64_t(0));
        QCOMPARE(freed.bytesAvailable, int64_t(4096));
        QCOMPARE(freed.allocationBytes, int64_t(1024));
        QCOMPARE(freed.tfOp, StringId(0));

        // One stream line holding a kernel and a copy, and the Steps line.
        const Track* stream = trackNamed(p, "Stream #7(Compute,MemcpyH2D)");
        QVERIFY(stream);
        QCOMPARE(stream->kind, TrackKind::GpuStream);
        QVERIFY(stream->deviceOps);
        QCOMPARE(stream->streamFlags, uint16_t(StreamCompute | StreamMemcpyH2D));
        const std::vector<EventIndex> d = eventsOf(p, *stream);
        QCOMPARE(d.size(), size_t(2));
        const EventIndex kernel = d[0], copy = d[1];
        QCOMPARE(p.start(kernel), int64_t(30001000)); // 40.001 µs - 10 µs
        QCOMPARE(p.duration(kernel), int64_t(5500000));
        const KernelDetails* k = p.kernelDetails(kernel);
        QVERIFY(k);
        QCOMPARE(k->registersPerThread, uint32_t(32));
        QCOMPARE(k->sharedBytes(), uint32_t(1024));
        QCOMPARE(k->grid, (std::array<uint32_t, 3>{2, 1, 1}));
        QCOMPARE(k->block, (std::array<uint32_t, 3>{128, 1, 1}));
        QCOMPARE(statText(p, kernel, "est. achieved occupancy %"), std::string("12"));
        // The kernel's framework op: the cpu_op around its launch.
        const StringId* op = p.frameworkOps().find(kernel);
        QVERIFY(op);
        QCOMPARE(p.str(*op), std::string_view("aten::mm"));
        // The copy was launched outside any op.
        QVERIFY(!p.frameworkOps().find(copy));
        const MemcpyDetails* m = p.memcpys().find(copy);
        QVERIFY(m);
        QCOMPARE(m->kind, CopyKind::HostToDevice);
        QCOMPARE(m->bytes, uint64_t(4096));

        // Launch -> device flows from the correlation ids.
        QCOMPARE(p.flows().size(), size_t(2));
        QCOMPARE(p.launchesOf(kernel), std::vector<EventIndex>{h[3]});
        QCOMPARE(p.launchesOf(copy), std::vector<EventIndex>{h[4]});

        const Track* steps = trackNamed(p, "Steps");
        QVERIFY(steps);
        QCOMPARE(steps->kind, TrackKind::Steps);
        QVERIFY(steps->derived);
        QCOMPARE(steps->eventCount, uint32_t(1));
        QCOMPARE(statText(p, steps->firstEvent, "step_num"), std::string("3"));
        QCOMPARE(p.duration(steps->firstEvent), int64_t(100000000));

        // Kernel stats see the kernel, with the op.
        const KernelStats ks = computeKernelStats(p);
        QCOMPARE(ks.kernelEvents, uint64_t(1));
        QCOMPARE(ks.table.rowCount(), size_t(1));
        const int opCol = ks.table.columnIndex("Op name");
        const int eligibleCol = ks.table.columnIndex("Op is TensorCore eligible");
        QVERIFY(opCol >= 0 && eligibleCol >= 0);
        QCOMPARE(ks.table.text(0, size_t(opCol)), std::string("aten::mm"));
        QCOMPARE(ks.table.number(0, size_t(eligibleCol)), 1.0);
    }

    void pytorchOpsTensorCoreEligibility() {
        for (const char* op : {"aten::mm", "aten::addmm", "aten::bmm", "aten::convolution",
                               "aten::_scaled_dot_product_flash_attention", "AddmmBackward"})
            QVERIFY2(opIsTensorCoreEligible(op), op);
        // Exact names: elementwise ops and names that merely contain an eligible one are not.
        for (const char* op : {"aten::add", "aten::relu", "aten::mm_out_wrapper", "my::aten::mm"})
            QVERIFY2(!opIsTensorCoreEligible(op), op);
    }

    void timestampsKeepNanosecondsPastDoublePrecision() {
        // 1700000000123456.789 µs has 19 significant digits; the nearest double is ...456.75.
        QTemporaryDir dir;
        const LoadResult r = loadText(
            dir, "precise.json",
            R"J([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1700000000123456.789,"dur":0.001},
                {"ph":"X","name":"b","pid":1,"tid":1,"ts":1700000000123456.790,"dur":1}])J");
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        QCOMPARE(p.startNs(), int64_t(1700000000123456789));
        const std::vector<EventIndex> e = eventsOf(p, p.tracks()[0]);
        QCOMPARE(p.start(e[0]), int64_t(0));
        QCOMPARE(p.duration(e[0]), int64_t(1000));
        QCOMPARE(p.start(e[1]), int64_t(1000));
        QCOMPARE(p.duration(e[1]), int64_t(1000000));
    }

    void schema2021() {
        QTemporaryDir dir;
        const LoadResult r = loadText(dir, "old.pt.trace.json", kFixture2021);
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        QCOMPARE(p.startNs(), int64_t(1623142623460111000));
        // "25738" and 25738 are one thread.
        const Plane& host = p.planes()[0];
        QCOMPARE(p.str(host.name), std::string_view("/host:CPU pid 25738"));
        QCOMPARE(host.trackCount, uint32_t(1));
        const Track* stream = trackNamed(p, "Stream #7(Compute)");
        QVERIFY(stream);
        const EventIndex kernel = stream->firstEvent;
        QCOMPARE(p.start(kernel), int64_t(89000000));
        QCOMPARE(p.kernelDetails(kernel)->sharedBytes(), uint32_t(12544));
        QCOMPARE(p.str(*p.frameworkOps().find(kernel)), std::string_view("aten::conv2d"));
        QCOMPARE(p.flows().size(), size_t(1));
        // Without "Total Allocated", the allocator's bytes are the running sum in time order:
        // +512 at 4 µs, +256 at 5 µs, -512 at 6 µs.
        std::vector<int64_t> allocated;
        const std::vector<EventIndex> h = eventsOf(p, p.tracks()[host.firstTrack]);
        for (EventIndex e : h)
            if (p.memoryEvents().find(e)) allocated.push_back(p.memoryEvent(e).bytesAllocated);
        QCOMPARE(allocated, (std::vector<int64_t>{512, 768, 256}));
        QVERIFY(!p.memoryEvent(h.back()).has(MemoryEvent::BytesAvailable));
    }

    void rocmTrace() {
        // A ROCm PyTorch trace: HIP runtime and kernels under the same categories, an AMD device.
        QTemporaryDir dir;
        const LoadResult r = loadText(dir, "rocm.pt.trace.json", R"J({"traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 9, "tid": 9, "ts": 1.0,
             "dur": 50.0},
            {"ph": "X", "cat": "cuda_runtime", "name": "hipExtModuleLaunchKernel", "pid": 9,
             "tid": 9, "ts": 2.0, "dur": 5.0, "args": {"correlation": 11}},
            {"ph": "X", "cat": "kernel", "name": "Cijk_Alik_Bljk_SB_MT64x64x16_MI32x32x2x1",
             "pid": 2, "tid": 0, "ts": 20.0, "dur": 8.0, "args": {"device": 2, "stream": 0,
             "correlation": 11, "grid": [4096, 1, 1], "block": [256, 1, 1]}}],
            "deviceProperties": [{"id": 2, "name": "AMD Instinct MI300X", "numSms": 304,
                                  "computeMajor": 9, "computeMinor": 4}],
            "baseTimeNanoseconds": 1700000000000000000})J");
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        const Plane& gpu = p.planes()[1];
        QCOMPARE(p.str(gpu.name), std::string_view("/device:GPU:2"));
        QCOMPARE(gpu.device.vendor, std::string("AMD"));
        QCOMPARE(gpu.device.coreCount, int64_t(304));
        const Track* stream = trackNamed(p, "Stream #0(Compute)");
        QVERIFY(stream);
        const EventIndex kernel = stream->firstEvent;
        QCOMPARE(p.kernelDetails(kernel)->grid, (std::array<uint32_t, 3>{4096, 1, 1}));
        QVERIFY(!p.kernelDetails(kernel)->hasRegisters);
        QCOMPARE(p.str(*p.frameworkOps().find(kernel)), std::string_view("aten::addmm"));
        QCOMPARE(p.flows().size(), size_t(1));
    }

    void plainChromeJson() {
        // Array form, B/E pairs, an instant, text pids and tids, no M events, a counter.
        QTemporaryDir dir;
        const LoadResult r = loadText(dir, "other-tool.json", R"J([
            {"ph":"B","name":"outer","pid":"Main","tid":"worker","ts":100},
            {"ph":"B","name":"inner","pid":"Main","tid":"worker","ts":110,"args":{"k":"v"}},
            {"ph":"E","pid":"Main","tid":"worker","ts":130,"args":{"result":5}},
            {"ph":"E","pid":"Main","tid":"worker","ts":200},
            {"ph":"i","name":"mark","pid":"Main","tid":"worker","ts":150,"s":"t"},
            {"ph":"C","name":"counter","pid":"Main","ts":120,"args":{"v":1}}])J");
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        QCOMPARE(p.planes().size(), size_t(1));
        QCOMPARE(p.str(p.planes()[0].name), std::string_view("/host:CPU Main"));
        const Track* t = trackNamed(p, "worker");
        QVERIFY(t);
        const std::vector<EventIndex> e = eventsOf(p, *t);
        QCOMPARE(e.size(), size_t(3));
        QCOMPARE(p.name(e[0]), std::string_view("outer"));
        QCOMPARE(p.duration(e[0]), int64_t(100000000));
        QCOMPARE(p.name(e[1]), std::string_view("inner"));
        QCOMPARE(p.start(e[1]), int64_t(10000000));
        QCOMPARE(p.duration(e[1]), int64_t(20000000));
        QCOMPARE(statText(p, e[1], "k"), std::string("v"));
        QCOMPARE(statText(p, e[1], "result"), std::string("5"));
        QCOMPARE(p.name(e[2]), std::string_view("mark"));
        QCOMPARE(p.duration(e[2]), int64_t(0));
        QCOMPARE(p.hosts()[0].warnings.size(), size_t(1));
        QVERIFY(p.hosts()[0].warnings[0].find("\"C\"") != std::string::npos);
    }

    // Events of threads that share a tid across processes, interleaved: each lands on its own
    // process's thread, whichever thread the event before it was on.
    void interleavedThreadsKeepTheirEvents() {
        QTemporaryDir dir;
        const LoadResult r = loadText(dir, "threads.json", R"J({"traceEvents":[
            {"ph":"X","name":"a","pid":1,"tid":7,"ts":10,"dur":1},
            {"ph":"X","name":"b","pid":2,"tid":7,"ts":20,"dur":1},
            {"ph":"X","name":"c","pid":1,"tid":8,"ts":30,"dur":1},
            {"ph":"X","name":"d","pid":1,"tid":7,"ts":40,"dur":1},
            {"ph":"X","name":"e","pid":1,"tid":7,"ts":50,"dur":1},
            {"ph":"X","name":"f","pid":2,"tid":7,"ts":60,"dur":1}]})J");
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        QCOMPARE(p.planes().size(), size_t(2));
        std::map<std::pair<std::string, std::string>, std::string> names; // (plane, track)
        for (const Track& t : p.tracks())
            for (EventIndex e : eventsOf(p, t))
                names[{std::string(p.str(p.planes()[t.plane].name)), std::string(p.str(t.name))}] +=
                    p.name(e);
        QCOMPARE(names.size(), size_t(3));
        std::string byPid[2];
        for (const auto& [key, text] : names) {
            if (key.second == "thread 8") {
                QCOMPARE(text, std::string("c"));
                continue;
            }
            QCOMPARE(key.second, std::string("thread 7"));
            byPid[text[0] == 'a' ? 0 : 1] = text;
        }
        QCOMPARE(byPid[0], std::string("ade"));
        QCOMPARE(byPid[1], std::string("bf"));
    }

    // The GPU "Steps" line follows the device work each step launched (the PyTorch TensorBoard
    // plugin's rule). Host steps 0..100, 100..200, 200..300 µs; step 1 launches (10..15) a kernel
    // that runs 50..150, step 2 launches (110..115) one that runs 160..260, step 3 launches
    // nothing. Device steps: [0, max(100, 150)] = 0..150; [max(150, 100), max(200, 260)] =
    // 150..260; step 3, trailing without device work, is dropped from the line.
    void deviceStepsFollowTheirDeviceWork() {
        QTemporaryDir dir;
        const LoadResult r = loadText(dir, "steps.json", kDeviceStepsTrace);
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        const Track* steps = trackNamed(p, "Steps");
        QVERIFY(steps);
        const std::vector<EventIndex> e = eventsOf(p, *steps);
        QCOMPARE(e.size(), size_t(2));
        constexpr int64_t us = 1000000;
        QCOMPARE(p.name(e[0]), std::string_view("ProfilerStep#1"));
        QCOMPARE(p.start(e[0]), 0 * us);
        QCOMPARE(p.end(e[0]), 150 * us);
        QCOMPARE(p.name(e[1]), std::string_view("ProfilerStep#2"));
        QCOMPARE(p.start(e[1]), 150 * us);
        QCOMPARE(p.end(e[1]), 260 * us);
        // The host keeps every step as recorded.
        QCOMPARE(p.eventsByName("ProfilerStep#3").size(), size_t(1));
    }

    // A kernel's op (tf_op) is the op open around its launch that carries the launch's External
    // id, as the PyTorch TensorBoard plugin joins them, though a nested op is innermost; without
    // such an op, the innermost op around the launch.
    void kernelOpByExternalId() {
        QTemporaryDir dir;
        const LoadResult r = loadText(dir, "ext.json", kExternalIdTrace);
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        auto opOf = [&](std::string_view kernel) {
            const std::vector<EventIndex> e = p.eventsByName(kernel);
            return e.size() == 1 ? statText(p, e[0], "tf_op") : std::string("?");
        };
        QCOMPARE(opOf("k1"), std::string("outer")); // by External id, though inside "inner"
        QCOMPARE(opOf("k2"), std::string("inner")); // by External id
        QCOMPARE(opOf("k3"), std::string("inner")); // no op with id 99: the op around it
    }

    // The op that carries a launch's External id is its op though it runs on another thread
    // of the process (the TensorBoard plugin joins them by id over all threads); ids of
    // another process do not count. Thread 101 runs aten::mm (id 5) and aten::add (id 6);
    // thread 102 runs aten::copy_ (id 7, 40..50 µs) and launches: k1 with id 5 (at 12, no op
    // around it there), k2 with id 6 (at 42, inside aten::copy_), k3 without an id (at 44,
    // inside aten::copy_), k4 with id 8 (at 60, no op around it), which only pid 200 has.
    void kernelOpByExternalIdAcrossThreads() {
        QTemporaryDir dir;
        const LoadResult r = loadText(dir, "threads.json", R"J({"traceEvents": [
            {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":101,"ts":10,"dur":20,
             "args":{"External id":5}},
            {"ph":"X","cat":"cpu_op","name":"aten::add","pid":100,"tid":101,"ts":40,"dur":10,
             "args":{"External id":6}},
            {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":100,"tid":102,"ts":40,"dur":10,
             "args":{"External id":7}},
            {"ph":"X","cat":"cpu_op","name":"aten::bmm","pid":200,"tid":201,"ts":55,"dur":10,
             "args":{"External id":8}},
            {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":102,
             "ts":12,"dur":1,"args":{"External id":5,"correlation":1}},
            {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":102,
             "ts":42,"dur":1,"args":{"External id":6,"correlation":2}},
            {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":102,
             "ts":44,"dur":1,"args":{"correlation":3}},
            {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":102,
             "ts":60,"dur":1,"args":{"External id":8,"correlation":4}},
            {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":70,"dur":5,
             "args":{"device":0,"stream":7,"correlation":1}},
            {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":80,"dur":5,
             "args":{"device":0,"stream":7,"correlation":2}},
            {"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":7,"ts":90,"dur":5,
             "args":{"device":0,"stream":7,"correlation":3}},
            {"ph":"X","cat":"kernel","name":"k4","pid":0,"tid":7,"ts":100,"dur":5,
             "args":{"device":0,"stream":7,"correlation":4}}]})J");
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        auto opOf = [&](std::string_view kernel) {
            const std::vector<EventIndex> e = p.eventsByName(kernel);
            return e.size() == 1 ? statText(p, e[0], "tf_op") : std::string("?");
        };
        QCOMPARE(opOf("k1"), std::string("aten::mm"));    // thread 101, by id
        QCOMPARE(opOf("k2"), std::string("aten::add"));   // by id, though inside aten::copy_
        QCOMPARE(opOf("k3"), std::string("aten::copy_")); // no id: the op around the launch
        QCOMPARE(opOf("k4"), std::string("(none)"));      // id 8 is another process's
    }

    // External ids are reused: the op with a launch's id takes the launch only when it
    // encloses it in time. aten::mm (id 10, 0..100 µs) launches gemm_k at 20 µs with id 99;
    // aten::view, id 99, runs later at 200 µs: gemm_k is aten::mm's (a reviewer's case).
    void kernelOpByExternalIdNeedsEnclosure() {
        QTemporaryDir dir;
        const LoadResult r = loadText(dir, "reuse.json", R"J({"traceEvents": [
            {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":100,
             "args":{"External id":10}},
            {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,
             "dur":10,"args":{"External id":99,"correlation":500}},
            {"ph":"X","cat":"kernel","name":"gemm_k","pid":0,"tid":7,"ts":40,"dur":30,
             "args":{"device":0,"stream":7,"External id":99,"correlation":500}},
            {"ph":"X","cat":"cpu_op","name":"aten::view","pid":1,"tid":1,"ts":200,"dur":10,
             "args":{"External id":99}}]})J");
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        const std::vector<EventIndex> e = p.eventsByName("gemm_k");
        QCOMPARE(e.size(), size_t(1));
        QCOMPARE(statText(p, e[0], "tf_op"), std::string("aten::mm"));
    }

    // Chrome JSON flow events bound as Perfetto binds them. Thread 1: A 0..100 µs holding
    // A.child 10..30; thread 2: B 200..250, C 300..310, D 400..410. Flow 1: s at 15 (in A.child),
    // f at 190 without "bp" (the next slice to begin: B). Flow 2: s at 50 (A: A.child is over),
    // t at 205 (B), f at 305 with "bp":"e" (C). Flow 3: s under category "x", f under "c": not
    // one flow (id, category and name name a flow). Flow "0x5": an id2 local id, s at 60 (A), f
    // at 400 with "bp":"e" (D). One flow event has no id. Kineto's ac2g ones stay unbound.
    // Flows: A.child -> B, A -> B, B -> C, A -> D.
    void chromeJsonFlowsBindToSlices() {
        QTemporaryDir dir;
        const LoadResult r = loadText(dir, "flows.json", R"J([
            {"ph":"X","name":"A","pid":1,"tid":1,"ts":0,"dur":100},
            {"ph":"X","name":"A.child","pid":1,"tid":1,"ts":10,"dur":20},
            {"ph":"X","name":"B","pid":1,"tid":2,"ts":200,"dur":50},
            {"ph":"X","name":"C","pid":1,"tid":2,"ts":300,"dur":10},
            {"ph":"X","name":"D","pid":1,"tid":2,"ts":400,"dur":10},
            {"ph":"s","id":1,"cat":"c","name":"n","pid":1,"tid":1,"ts":15},
            {"ph":"f","id":1,"cat":"c","name":"n","pid":1,"tid":2,"ts":190},
            {"ph":"s","id":"2","cat":"c","name":"n","pid":1,"tid":1,"ts":50},
            {"ph":"t","id":2,"cat":"c","name":"n","pid":1,"tid":2,"ts":205},
            {"ph":"f","id":2,"cat":"c","name":"n","pid":1,"tid":2,"ts":305,"bp":"e"},
            {"ph":"s","id":3,"cat":"x","name":"n","pid":1,"tid":1,"ts":20},
            {"ph":"f","id":3,"cat":"c","name":"n","pid":1,"tid":2,"ts":305,"bp":"e"},
            {"ph":"s","id2":{"local":"0x5"},"cat":"c","name":"n","pid":1,"tid":1,"ts":60},
            {"ph":"f","id2":{"local":"0x5"},"cat":"c","name":"n","pid":1,"tid":2,"ts":400,
             "bp":"e"},
            {"ph":"f","cat":"c","name":"n","pid":1,"tid":2,"ts":400},
            {"ph":"s","id":9,"cat":"ac2g","name":"ac2g","pid":1,"tid":1,"ts":12},
            {"ph":"f","id":9,"cat":"ac2g","name":"ac2g","pid":1,"tid":2,"ts":300,"bp":"e"}])J");
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        std::set<std::pair<std::string, std::string>> flows;
        for (const Flow& f : p.flows())
            flows.insert({std::string(p.name(f.launch)), std::string(p.name(f.target))});
        const std::set<std::pair<std::string, std::string>> expected{
            {"A.child", "B"}, {"A", "B"}, {"B", "C"}, {"A", "D"}};
        QCOMPARE(flows, expected);
        QCOMPARE(p.flows().size(), size_t(4));
        bool warned = false;
        for (const std::string& w : p.hosts()[0].warnings)
            warned |= w.find("1 flow events have no \"id\"") != std::string::npos;
        QVERIFY(warned);
        // Exported and read back, the flows come back.
        const std::string out = dir.path().toStdString() + "/flows.out.json";
        QVERIFY(writeChromeTrace(p, out).empty());
        const LoadResult back = loadPath(out);
        QVERIFY2(back.ok(), back.error.c_str());
        std::set<std::pair<std::string, std::string>> again;
        for (const Flow& f : back.profile->flows())
            again.insert({std::string(back.profile->name(f.launch)),
                          std::string(back.profile->name(f.target))});
        QCOMPARE(again, expected);
    }

    // Flow ids belong to their file: a start in one host's trace and an end with the same id,
    // category and name in another's are not one flow; each host's own pair is.
    void flowsDoNotJoinAcrossHosts() {
        QTemporaryDir dir;
        const std::string a = dir.path().toStdString() + "/a.json";
        const std::string b = dir.path().toStdString() + "/b.json";
        writeFile(a, R"J([
            {"ph":"X","name":"a1","pid":1,"tid":1,"ts":0,"dur":10},
            {"ph":"X","name":"a2","pid":1,"tid":1,"ts":20,"dur":10},
            {"ph":"s","id":1,"cat":"c","name":"n","pid":1,"tid":1,"ts":5},
            {"ph":"s","id":2,"cat":"c","name":"n","pid":1,"tid":1,"ts":5},
            {"ph":"f","id":2,"cat":"c","name":"n","pid":1,"tid":1,"ts":25,"bp":"e"}])J");
        writeFile(b, R"J([
            {"ph":"X","name":"b1","pid":1,"tid":1,"ts":0,"dur":10},
            {"ph":"f","id":1,"cat":"c","name":"n","pid":1,"tid":1,"ts":5,"bp":"e"}])J");
        const LoadResult r = loadHosts({{"a", a}, {"b", b}});
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        QCOMPARE(p.flows().size(), size_t(1));
        QCOMPARE(p.name(p.flows()[0].launch), std::string_view("a1"));
        QCOMPARE(p.name(p.flows()[0].target), std::string_view("a2"));
    }

    void beginWithoutEndLastsToTheTraceEnd() {
        // "outer" never ends; the trace's last timestamp is the X event's end, 50 + 250 = 300 µs.
        QTemporaryDir dir;
        const LoadResult r = loadText(dir, "open.json", R"J([
            {"ph":"B","name":"outer","pid":1,"tid":1,"ts":100},
            {"ph":"B","name":"inner","pid":1,"tid":1,"ts":110},
            {"ph":"E","pid":1,"tid":1,"ts":130},
            {"ph":"X","name":"late","pid":1,"tid":2,"ts":50,"dur":250}])J");
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        const std::vector<EventIndex> outer = p.eventsByName("outer");
        QCOMPARE(outer.size(), size_t(1));
        const std::vector<EventIndex> late = p.eventsByName("late");
        QCOMPARE(late.size(), size_t(1));
        QCOMPARE(p.duration(outer[0]), int64_t(200000000)); // 100 to 300 µs
        QCOMPARE(p.end(outer[0]), p.end(late[0]));
        bool warned = false;
        for (const std::string& w : p.hosts()[0].warnings)
            warned |= w.find("1 \"B\" events have no matching \"E\"") != std::string::npos;
        QVERIFY(warned);
    }

    void gzipAndFoldersLoad() {
        QTemporaryDir dir;
        const std::string run = dir.path().toStdString() + "/run";
        fs::create_directories(run);
        writeFile(run + "/worker0.1.pt.trace.json.gz", gzipOf(kFixture2022));
        // The same job's second worker, 1 s later.
        std::string second(kFixture2022);
        second.replace(second.find("1700000000000000000"), 19, "1700000001000000000");
        writeFile(run + "/worker1.json.gz", gzipOf(second));
        writeFile(run + "/host.memory_profile.json.gz", gzipOf("{}")); // a TF tool cache
        const Discovery d = discoverProfiles(run);
        QVERIFY2(d.ok(), d.error.c_str());
        QCOMPARE(d.runs[0].hosts.size(), size_t(2));
        QCOMPARE(d.runs[0].hosts[0].host, std::string("worker0.1"));
        QCOMPARE(d.runs[0].hosts[1].host, std::string("worker1"));
        const LoadResult r = loadHosts(d.runs[0].hosts);
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.profile->hosts().size(), size_t(2));
        // Both hosts on one time base, 1 s apart.
        const Profile& p = *r.profile;
        QCOMPARE(p.startNs(), int64_t(1700000000000010000));
        QCOMPARE(p.durationPs(), int64_t(1000000000000 + 100000000));
        QCOMPARE(p.flows().size(), size_t(4));
        const std::vector<EventIndex> steps = p.eventsByName("ProfilerStep#3");
        std::vector<int64_t> starts;
        for (EventIndex e : steps) starts.push_back(p.start(e));
        std::sort(starts.begin(), starts.end());
        // Each host's step on its thread and on its GPU's Steps line.
        QCOMPARE(starts, (std::vector<int64_t>{0, 0, 1000000000000, 1000000000000}));
    }

    // tensorboard_trace_handler's <worker>.<span>.pt.trace.json.gz: spans of one job in one folder
    // are separate profiles (runs "<run>/<span>", newest first) whose hosts are the workers.
    void spansOfOneFolderAreSeparateRuns() {
        QTemporaryDir dir;
        const std::string run = dir.path().toStdString() + "/run";
        fs::create_directories(run);
        writeFile(run + "/worker0.1623143089861.pt.trace.json.gz", gzipOf(kFixture2022));
        writeFile(run + "/worker1.1623143089861.pt.trace.json.gz", gzipOf(kFixture2022));
        writeFile(run + "/worker0.1623143095000.pt.trace.json", kFixture2022);
        writeFile(run + "/other.json.gz", gzipOf(kFixture2022));
        const Discovery d = discoverProfiles(run);
        QVERIFY2(d.ok(), d.error.c_str());
        QCOMPARE(d.runs.size(), size_t(3));
        QCOMPARE(d.runs[0].name, std::string("run/1623143095000"));
        QCOMPARE(d.runs[0].hosts.size(), size_t(1));
        QCOMPARE(d.runs[0].hosts[0].host, std::string("worker0"));
        QCOMPARE(d.runs[1].name, std::string("run/1623143089861"));
        QCOMPARE(d.runs[1].hosts.size(), size_t(2));
        QCOMPARE(d.runs[1].hosts[0].host, std::string("worker0"));
        QCOMPARE(d.runs[1].hosts[1].host, std::string("worker1"));
        QCOMPARE(d.runs[2].name, std::string("run"));
        QCOMPARE(d.runs[2].hosts.size(), size_t(1));
        QCOMPARE(d.runs[2].hosts[0].host, std::string("other"));
        const LoadResult r = loadHosts(d.runs[1].hosts);
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.profile->hosts().size(), size_t(2));
    }

    // Exporting over an existing file: a cancelled export (the writer looks every 65,536
    // events, so 70,000 here) leaves the old file as it was and no .partial beside it; a
    // finished one replaces it.
    void cancelledExportKeepsTheFileItWouldReplace() {
        std::string text = "[";
        for (int i = 0; i < 70000; ++i)
            text += (i ? ",\n" : "") + std::string("{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,") +
                    "\"tid\":1,\"ts\":" + std::to_string(i * 2) + ",\"dur\":1}";
        text += "]";
        QTemporaryDir dir;
        const LoadResult r = loadText(dir, "many.json", text);
        QVERIFY2(r.ok(), r.error.c_str());
        const std::string out = dir.path().toStdString() + "/existing.json";
        writeFile(out, "the user's file");
        Progress cancelled;
        cancelled.cancel();
        QCOMPARE(writeChromeTrace(*r.profile, out, &cancelled), std::string("cancelled"));
        std::ifstream kept(out);
        std::string content((std::istreambuf_iterator<char>(kept)), {});
        QCOMPARE(content, std::string("the user's file"));
        QVERIFY(!fs::exists(out + ".partial"));
        QCOMPARE(writeChromeTrace(*r.profile, out), std::string());
        QVERIFY(!fs::exists(out + ".partial"));
        const LoadResult again = loadPath(out);
        QVERIFY2(again.ok(), again.error.c_str());
        QCOMPARE(again.profile->eventCount(), size_t(70000));
    }

    void exportThenImportGivesTheSameProfile() {
        QTemporaryDir dir;
        const LoadResult kineto = loadText(dir, "fixture.pt.trace.json", kFixture2022);
        QVERIFY2(kineto.ok(), kineto.error.c_str());
        checkRoundTrip(*kineto.profile, dir.path().toStdString() + "/kineto-again.json");
        // Plane names and pids come back too.
        const LoadResult back = loadPath(dir.path().toStdString() + "/kineto-again.json");
        QCOMPARE(back.profile->str(back.profile->planes()[0].name),
                 std::string_view("/host:CPU python3 (pid 100)"));
        const LoadResult old = loadText(dir, "old.pt.trace.json", kFixture2021);
        QVERIFY2(old.ok(), old.error.c_str());
        checkRoundTrip(*old.profile, dir.path().toStdString() + "/old-again.json.gz");
    }

    void convertCommand() {
        QTemporaryDir dir;
        const QString in = dir.filePath("fixture.pt.trace.json");
        writeFile(in.toStdString(), kFixture2022);
        auto run = [](const QStringList& args, int& code, QString& err) {
            QProcess p;
            p.start(STEPSCOPE_CLI, args);
            QVERIFY(p.waitForFinished(60000));
            code = p.exitCode();
            err = QString::fromUtf8(p.readAllStandardError());
        };
        int code = -1;
        QString err;
        const QString out = dir.filePath("out.json.gz");
        run({"convert", in, "--to", "chrome-json", out}, code, err);
        QCOMPARE(code, 0);
        const LoadResult back = loadPath(out.toStdString());
        QVERIFY2(back.ok(), back.error.c_str());
        QCOMPARE(back.profile->eventCount(), size_t(9));
        QCOMPARE(back.profile->flows().size(), size_t(2));
        run({"convert", dir.filePath("missing.json"), out}, code, err);
        QCOMPARE(code, 1);
        QVERIFY2(err.contains("no such file"), qPrintable(err));
        run({"convert", in, "--to", "xml", out}, code, err);
        QCOMPARE(code, 2);
        QVERIFY2(err.contains("unknown format 'xml'"), qPrintable(err));
        run({"convert", in, dir.filePath("no-folder/out.json")}, code, err);
        QCOMPARE(code, 1);
        QVERIFY2(err.contains("cannot write"), qPrintable(err));
    }

    void realProfilesSurviveExportAndImport() {
        if (!fs::is_directory(kKineto))
            QSKIP("../shared/realdata not found; real-profile round trips skipped");
        QTemporaryDir dir;
        const std::string bert = std::string(STEPSCOPE_REALDATA) +
                                 "/tf-gpu-bert/plugins/profile/2020_12_03_bert/"
                                 "34.83.195.179_6003.xplane.pb";
        for (const std::string& path : {bert, kKineto + "/worker0.1623143089861.pt.trace.json.gz",
                                        kKineto + "/alexnet_a100_small.json.gz"}) {
            const LoadResult r = loadPath(path);
            QVERIFY2(r.ok(), r.error.c_str());
            checkRoundTrip(*r.profile, dir.path().toStdString() + "/again.json.gz");
        }
    }

    void realTracesMatchAnIndependentCount() {
        if (!fs::is_directory(kKineto)) QSKIP(qPrintable(fixtures::realDataMissing(kKineto)));
        const std::vector<std::string> paths = fixtures::kinetoTracesIn(kKineto);
        for (const std::string& path : paths) {
            const Facts f = countFacts(gunzipFile(path));
            const LoadResult r = loadPath(path);
            QVERIFY2(r.ok(), (path + ": " + r.error).c_str());
            const Profile& p = *r.profile;
            const ModelFacts m = modelFacts(p);
            qInfo("%s: %llu kernels, %llu memcpy, %llu memset, %zu threads, %llu flows, %llu "
                  "steps, %llu memory events",
                  fs::path(path).filename().c_str(), (unsigned long long)f.kernels,
                  (unsigned long long)f.memcpys, (unsigned long long)f.memsets, f.threads,
                  (unsigned long long)f.flows, (unsigned long long)f.steps,
                  (unsigned long long)f.memory);
            QCOMPARE(m.kernels, f.kernels);
            QCOMPARE(m.memcpys, f.memcpys);
            QCOMPARE(m.memsets, f.memsets);
            QCOMPARE(m.threads, f.threads);
            QCOMPARE(uint64_t(p.flows().size()), f.flows);
            QCOMPARE(m.steps, f.steps);
            QCOMPARE(m.memory, f.memory);
            QCOMPARE(computeKernelStats(p).kernelEvents, f.kernelsWithGeometry);
        }
        QCOMPARE(paths.size(), size_t(5));
    }
};

QTEST_GUILESS_MAIN(TestKinetoImporter)
#include "test_kineto_importer.moc"
