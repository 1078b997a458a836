// The memory profile: XProf's definitions on fixtures whose peak, peak time, live set and
// fragmentation were worked out by hand (and XProf's own unit-test fixture with its expected
// values); bad allocator data; the min/max downsampler against brute force; facts about the real
// profiles counted with protobuf's generated classes; the page as a user drives it. How each
// source format (PyTorch, CUPTI) reaches it: test_memory_sources.
#include <QtTest>

#include <QComboBox>
#include <QTableView>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <qcustomplot.h>
#include <random>

#include "model/MinMaxDownsample.h"
#include "model/ProfileLoader.h"
#include "model/analysis/MemoryProfile.h"
#include "model/analysis/TfDataType.h"
#include "tests/fixtures/FixtureXSpace.h"
#include "tests/fixtures/TableRows.h"
#include "views/memory_profile/MemoryProfileView.h"
#include "views/memory_profile/MemoryTimelineChart.h"
#include "widgets/DataTableView.h"
#include "xplane.pb.h"

using namespace stepscope;
using namespace stepscope::fixtures;
namespace pb = tensorflow::profiler;
namespace fs = std::filesystem;

namespace {

constexpr int64_t us = 1000000; // ps
const std::string kRealData = STEPSCOPE_REALDATA;
const std::string kBert =
    kRealData + "/tf-gpu-bert/plugins/profile/2020_12_03_bert/34.83.195.179_6003.xplane.pb";

// One allocator event's stats, as TensorFlow's BFC allocator writes them. Negative sizes mean
// "leave the stat out".
struct Alloc {
    int64_t stack = -1, heap = -1, free = -1, peak = -1, requested = -1, allocated = -1;
    uint64_t addr = 0;
    double fragmentation = -1;
    std::string op, region, shape;
    int64_t dataType = -1, group = -1;
};

std::vector<FixtureStat> allocStats(const std::string& allocator, const Alloc& a) {
    std::vector<FixtureStat> s = {FixtureStat::ref("allocator_name", allocator)};
    const auto put = [&s](const char* key, int64_t v) {
        if (v >= 0) s.push_back(FixtureStat::int64(key, v));
    };
    put("bytes_reserved", a.stack);
    put("bytes_allocated", a.heap);
    put("bytes_available", a.free);
    put("peak_bytes_in_use", a.peak);
    put("requested_bytes", a.requested);
    put("allocation_bytes", a.allocated);
    s.push_back(FixtureStat::uint64("addr", a.addr));
    if (a.fragmentation >= 0) s.push_back(FixtureStat::dbl("fragmentation", a.fragmentation));
    if (!a.op.empty()) s.push_back(FixtureStat::str("tf_op", a.op));
    if (!a.region.empty()) s.push_back(FixtureStat::str("region_type", a.region));
    if (!a.shape.empty()) s.push_back(FixtureStat::str("shape", a.shape));
    put("data_type", a.dataType);
    put("group_id", a.group);
    return s;
}

// The hand-worked sequence. Allocator GPU_0_bfc, capacity 10000 bytes, a stack of 512 bytes and
// 2000 heap bytes allocated before the profile. Times in µs from the profile start (the python
// thread's "train" event at 0 sets it). Two threads, so the input is out of time order.
//   step 1: e1  10 A alloc 0x100 1024 (req 1000) a/MatMul    heap 3024
//           e2  20 B alloc 0x200 2048 (req 2000) b/Conv2D    heap 5072
//           e3  30 A free  0x100 1024                        heap 4048
//   step 2: e4  40 B alloc 0x300  512 (req 500)  c/Relu      heap 4560
//           e5  50 A alloc 0x400  512 (req 500)  c/Relu      heap 5072
//           e6  60 B free  0x200 2048 (allocated in step 1)  heap 3024
//           e7  70 A alloc 0x500 2560 (req 2500) d/Add       heap 5584
//           e8  80 B alloc 0x700  256 (req 200)  f/Tmp       heap 5840
//           e9  85 B free  0x700  256                        heap 5584
//           e10 90 A alloc 0x600  512 (req 512)  e/Mul       heap 6096  in use 6608
//           e11 95 A free  0x600  512                        heap 5584
//           e12 97 B alloc 0x800  512 (req 512)  g/Mul       heap 6096  in use 6608 (tie: later)
//   no step: e13 100 B free 0x500 2560                       heap 3536
//            e14 110 A free 0x999  256 (never allocated)     heap 3280
// free = 10000 - 512 - heap; fragmentation 0.375 at e12, other values elsewhere; lifetime peak
// 8000 on e1..e4, 9000 from e5 on.
struct HandFixture {
    FixtureSpace space;
    HandFixture() {
        FixturePlane& host = space.addPlane(1, "/host:CPU");
        host.addLine(1, "python3", 1000).add("train", 0, 200 * us);
        host.addLine(2, "tf_Compute/2", 1000);
        host.addLine(3, "tf_Compute/3", 1000); // invalidates references to earlier lines
        FixtureLine& a = host.lines[1];
        FixtureLine& b = host.lines[2];
        FixtureLine* lines[2] = {&a, &b};
        struct E {
            int line;
            int64_t t;
            bool free;
            uint64_t addr;
            int64_t bytes, requested, heap, peak;
            double frag;
            const char *op, *region, *shape;
            int64_t dtype, group;
        };
        const E events[] = {
            {0, 10, false, 0x100, 1024, 1000, 3024, 8000, 0.10, "a/MatMul", "output", "[16,16]", 1,
             1},
            {1, 20, false, 0x200, 2048, 2000, 5072, 8000, 0.20, "b/Conv2D", "temp", "[8,8]", 19, 1},
            {0, 30, true, 0x100, 1024, -1, 4048, 8000, 0.15, "", "", "", -1, 1},
            {1, 40, false, 0x300, 512, 500, 4560, 8000, 0.12, "c/Relu", "output", "[4]", 1, 2},
            {0, 50, false, 0x400, 512, 500, 5072, 9000, 0.25, "c/Relu", "output", "[4]", 1, 2},
            {1, 60, true, 0x200, 2048, -1, 3024, 9000, 0.05, "", "", "", -1, 2},
            {0, 70, false, 0x500, 2560, 2500, 5584, 9000, 0.30, "d/Add", "temp", "[640]", 9, 2},
            {1, 80, false, 0x700, 256, 200, 5840, 9000, 0.31, "f/Tmp", "temp", "[50]", 1, 2},
            {1, 85, true, 0x700, 256, -1, 5584, 9000, 0.30, "", "", "", -1, 2},
            {0, 90, false, 0x600, 512, 512, 6096, 9000, 0.35, "e/Mul", "output", "[128]", 1, 2},
            {0, 95, true, 0x600, 512, -1, 5584, 9000, 0.30, "", "", "", -1, 2},
            {1, 97, false, 0x800, 512, 512, 6096, 9000, 0.375, "g/Mul", "output", "[128]", 1, 2},
            {1, 100, true, 0x500, 2560, -1, 3536, 9000, 0.20, "", "", "", -1, -1},
            {0, 110, true, 0x999, 256, -1, 3280, 9000, 0.10, "", "", "", -1, -1},
        };
        for (const E& e : events) {
            Alloc a;
            a.stack = 512;
            a.heap = e.heap;
            a.free = 10000 - 512 - e.heap;
            a.peak = e.peak;
            a.requested = e.requested;
            a.allocated = e.bytes;
            a.addr = e.addr;
            a.fragmentation = e.frag;
            a.op = e.op;
            a.region = e.region;
            a.shape = e.shape;
            a.dataType = e.dtype;
            a.group = e.group;
            lines[e.line]->add(e.free ? "MemoryDeallocation" : "MemoryAllocation", e.t * us, 0,
                               allocStats("GPU_0_bfc", a));
        }
        // A second allocator that reports no free memory (a host allocator), one without a name
        // but with a device ordinal (XProf's fallback id), and an allocator event on a device
        // plane, which XProf does not read.
        Alloc h;
        h.heap = 4096;
        h.requested = h.allocated = 4096;
        h.addr = 0x10;
        a.add("MemoryAllocation", 15 * us, 0, allocStats("gpu_host_bfc", h));
        b.add("MemoryAllocation", 25 * us, 0,
              {FixtureStat::int64("device_ordinal", 3), FixtureStat::int64("bytes_allocated", 64)});
        FixturePlane& gpu = space.addPlane(2, "/device:GPU:0");
        gpu.addLine(7, "Stream #7(Compute)", 1000)
            .add("MemoryAllocation", 12 * us, 0, allocStats("GPU_9_bfc", h));
    }
};

std::shared_ptr<const Profile> load(const FixtureSpace& space) {
    const std::vector<uint8_t> bytes = space.encode();
    LoadResult r = loadXSpaceBytes(bytes, "fixture");
    if (!r.ok()) qFatal("fixture failed to load: %s", r.error.c_str());
    return r.profile;
}

using Rows = TableRows;

// The event at `time` named `name` on a host thread.
EventIndex eventAt(const Profile& p, int64_t time, std::string_view name) {
    for (EventIndex e = 0; e < p.eventCount(); ++e)
        if (p.start(e) == time && p.name(e) == name) return e;
    qFatal("no %s at %lld", std::string(name).c_str(), static_cast<long long>(time));
}

// ---- an independent reader of real files, with protobuf's generated classes

struct RealAllocator {
    uint64_t allocations = 0, deallocations = 0;
    int64_t peakInUse = -1;    // max bytes_reserved + bytes_allocated
    int64_t peakTimePs = 0;    // absolute (line timestamp + offset), the latest among equals
    int64_t lifetimePeak = -1; // max peak_bytes_in_use
    uint64_t unmatchedFrees = 0;
};

std::map<std::string, RealAllocator> readRealAllocators(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), {}};
    pb::XSpace space;
    if (!space.ParseFromString(bytes)) qFatal("protobuf cannot parse %s", path.c_str());
    struct Event {
        int64_t time;
        bool free;
        uint64_t addr;
    };
    std::map<std::string, RealAllocator> out;
    std::map<std::string, std::vector<Event>> events;
    for (const pb::XPlane& plane : space.planes()) {
        if (plane.name() != "/host:CPU") continue;
        const auto statName = [&](int64_t id) -> std::string {
            const auto it = plane.stat_metadata().find(id);
            return it == plane.stat_metadata().end() ? std::string() : it->second.name();
        };
        for (const pb::XLine& line : plane.lines()) {
            for (const pb::XEvent& e : line.events()) {
                const auto meta = plane.event_metadata().find(e.metadata_id());
                if (meta == plane.event_metadata().end()) continue;
                const bool alloc = meta->second.name() == "MemoryAllocation";
                if (!alloc && meta->second.name() != "MemoryDeallocation") continue;
                std::string allocator;
                int64_t reserved = 0, allocated = 0, lifetime = -1;
                uint64_t addr = 0;
                for (const pb::XStat& s : e.stats()) {
                    const std::string key = statName(s.metadata_id());
                    const int64_t v = s.has_int64_value()    ? s.int64_value()
                                      : s.has_uint64_value() ? int64_t(s.uint64_value())
                                                             : 0;
                    if (key == "allocator_name")
                        allocator =
                            s.has_ref_value() ? statName(int64_t(s.ref_value())) : s.str_value();
                    else if (key == "bytes_reserved")
                        reserved = v;
                    else if (key == "bytes_allocated")
                        allocated = v;
                    else if (key == "peak_bytes_in_use")
                        lifetime = v;
                    else if (key == "addr")
                        addr = uint64_t(v);
                }
                RealAllocator& a = out[allocator];
                (alloc ? a.allocations : a.deallocations)++;
                const int64_t time = line.timestamp_ns() * 1000 + e.offset_ps();
                const int64_t inUse = reserved + allocated;
                if (inUse > a.peakInUse || (inUse == a.peakInUse && time >= a.peakTimePs)) {
                    a.peakInUse = inUse;
                    a.peakTimePs = time;
                }
                a.lifetimePeak = std::max(a.lifetimePeak, lifetime);
                events[allocator].push_back({time, !alloc, addr});
            }
        }
    }
    // Frees with no earlier allocation at their address (each allocation matches one free).
    for (auto& [allocator, list] : events) {
        std::stable_sort(list.begin(), list.end(),
                         [](const Event& a, const Event& b) { return a.time < b.time; });
        std::map<uint64_t, int> live;
        for (const Event& e : list) {
            if (!e.free)
                live.try_emplace(e.addr, 1);
            else if (!live.erase(e.addr))
                ++out[allocator].unmatchedFrees;
        }
    }
    return out;
}

bool haveRealData() {
    return fs::exists(kRealData);
}
#define REQUIRE_REALDATA()                                                                         \
    if (!haveRealData())                                                                           \
        QSKIP(qPrintable(QString("../shared/realdata not found at %1; real-profile tests skipped") \
                             .arg(QString::fromStdString(kRealData))));

} // namespace

class TestMemoryProfile : public QObject {
    Q_OBJECT
private slots:
    void handWorkedSequence() {
        const auto profile = load(HandFixture().space);
        const MemoryProfile m = computeMemoryProfile(*profile);
        // Memory ids sorted as strings, as XProf lists them: the device plane's GPU_9_bfc is
        // not read.
        QCOMPARE(m.series.size(), size_t(3));
        QCOMPARE(m.series[0].memoryId, std::string("3")); // device_ordinal, no allocator_name
        QCOMPARE(m.series[1].memoryId, std::string("GPU_0_bfc"));
        QCOMPARE(m.series[2].memoryId, std::string("gpu_host_bfc"));
        QVERIFY(!m.find("GPU_9_bfc"));

        // The page opens on the device allocator with the largest peak ("3", a device_ordinal,
        // peaks at 64 bytes).
        QCOMPARE(m.defaultShown()->memoryId, std::string("GPU_0_bfc"));

        const MemorySeries& s = m.series[1];
        QCOMPARE(s.label, std::string("GPU_0_bfc")); // one host: no host prefix
        QVERIFY(!s.stepsFromProfile);                // its records carry group ids
        const MemorySummary& sum = s.summary;
        QCOMPARE(sum.allocations, uint64_t(8));   // e1 e2 e4 e5 e7 e8 e10 e12
        QCOMPARE(sum.deallocations, uint64_t(6)); // e3 e6 e9 e11 e13 e14
        // The peak: stack 512 + heap 6096 = 6608 at e10 (90 µs) and again at e12 (97 µs); the
        // later wins.
        QCOMPARE(sum.peakBytesInUse, int64_t(6608));
        QCOMPARE(sum.peakTimePs, 97 * us);
        QCOMPARE(sum.stackAtPeak, int64_t(512));
        QCOMPARE(sum.heapAtPeak, int64_t(6096));
        QCOMPARE(sum.freeAtPeak, int64_t(3392)); // 10000 - 6608
        QCOMPARE(sum.memoryCapacity, int64_t(10000));
        QCOMPARE(sum.fragmentationAtPeak, 0.375);
        QCOMPARE(sum.peakBytesUsageLifetime, int64_t(9000));
        QCOMPARE(sum.peakStepId, int64_t(2));
        QCOMPARE(s.records[sum.peakRecord].event, eventAt(*profile, 97 * us, "MemoryAllocation"));
        QVERIFY(!sum.incompleteSteps); // the last events get step 2 + 1 = 3

        // Records in time order across both threads, steps repaired, frees named after their
        // allocation (e3 frees a/MatMul's chunk; e14's address was never allocated).
        QCOMPARE(s.records.size(), size_t(14));
        for (size_t i = 1; i < s.records.size(); ++i)
            QVERIFY(s.records[i - 1].timePs <= s.records[i].timePs);
        QCOMPARE(s.records[2].timePs, 30 * us);
        QCOMPARE(m.str(s.records[2].tfOp), std::string("a/MatMul"));
        QCOMPARE(m.str(s.records[2].tensorShape), std::string("[16,16]"));
        QCOMPARE(s.records[2].dataType, 1);
        QCOMPARE(s.records[12].stepId, int64_t(3));
        QCOMPARE(s.records[13].stepId, int64_t(3));
        QCOMPARE(m.str(s.records[13].tfOp), std::string());
        QCOMPARE(s.unmatchedDeallocations, uint64_t(1)); // e14
        QCOMPARE(s.repeatedAllocations, uint64_t(0));

        // Live at the peak, walking step 2 up to 97 µs: 0x300 and 0x400 (c/Relu), 0x500 (d/Add)
        // and 0x800 (g/Mul); 0x700 and 0x600 were freed. Heap not accounted for:
        // 6096 - (512 + 512 + 2560 + 256 + 512 + 512) + (2048 + 256 + 512) - 2048 = 2000, the
        // bytes allocated before the profile. Sorted by size, then requested size, then op.
        const Rows t{s.breakdown};
        QCOMPARE(s.breakdown.rowCount(), size_t(5));
        const struct {
            const char* op;
            double allocated, requested;
            int64_t occurrences;
            const char *region, *dataType, *shape;
        } expected[] = {
            {"d/Add", 2560, 2500, 1, "temp", "int64", "[640]"},
            {"unused preallocated device memory", 2000, 2000, 1, "persist/dynamic", "", "unknown"},
            {"g/Mul", 512, 512, 1, "output", "float", "[128]"},
            {"stack", 512, 512, 1, "stack", "", "unknown"},
            {"c/Relu", 512, 500, 2, "output", "float", "[4]"},
        };
        double total = 0;
        for (size_t r = 0; r < 5; ++r) {
            QCOMPARE(t.text(r, "Op name"), std::string(expected[r].op));
            QCOMPARE(t.num(r, "Allocation size (bytes)"), expected[r].allocated);
            QCOMPARE(t.num(r, "Requested size (bytes)"), expected[r].requested);
            QCOMPARE(int64_t(t.num(r, "Occurrences")), expected[r].occurrences);
            QCOMPARE(t.text(r, "Region type"), std::string(expected[r].region));
            QCOMPARE(t.text(r, "Data type"), std::string(expected[r].dataType));
            QCOMPARE(t.text(r, "Shape"), std::string(expected[r].shape));
            total += expected[r].allocated * double(expected[r].occurrences);
        }
        QCOMPARE(total, 6608.0); // the rows account for the whole peak
        // Rows point at their (earliest) allocation event; the special rows at none.
        QCOMPARE(s.breakdownEvent[0], eventAt(*profile, 70 * us, "MemoryAllocation"));
        QCOMPARE(s.breakdownEvent[1], kNoIndex);
        QCOMPARE(s.breakdownEvent[4], eventAt(*profile, 40 * us, "MemoryAllocation"));

        // The host allocator reports no free memory: no capacity, no free area.
        const MemorySeries& hostBfc = m.series[2];
        QVERIFY(!hostBfc.hasFreeMemory);
        QCOMPARE(hostBfc.summary.memoryCapacity, kNotRecorded);
        QCOMPARE(hostBfc.summary.freeAtPeak, kNotRecorded);
        QVERIFY(std::isnan(hostBfc.summary.fragmentationAtPeak));
        QVERIFY(s.hasFreeMemory);
    }

    // XProf's own test of this conversion (openxla/xprof
    // xprof/convert/xplane_to_memory_profile_test.cc, OneAllocatorMultiActivitiesTest), with the
    // values it expects.
    void xprofUnitTestFixture() {
        FixtureSpace space;
        FixturePlane& host = space.addPlane(1, "/host:CPU");
        FixtureLine& line = host.addLine(0, "tf_executor", 5000);
        auto stats = [](int64_t reserved, int64_t allocated, int64_t available, int64_t peak,
                        int64_t requested, int64_t allocation, int64_t addr, int64_t dtype) {
            return std::vector<FixtureStat>{
                FixtureStat::int64("bytes_reserved", reserved),
                FixtureStat::int64("bytes_allocated", allocated),
                FixtureStat::int64("bytes_available", available),
                FixtureStat::int64("peak_bytes_in_use", peak),
                FixtureStat::int64("requested_bytes", requested),
                FixtureStat::int64("allocation_bytes", allocation),
                FixtureStat::int64("addr", addr),
                FixtureStat::int64("id", -93746), // kStepId: XProf does not read it
                FixtureStat::int64("data_type", dtype),
                FixtureStat::str("allocator_name", "GPU_0_bfc")};
        };
        auto withText = [](std::vector<FixtureStat> s, const char* op, const char* region,
                           const char* shape) {
            if (*op) s.push_back(FixtureStat::str("tf_op", op));
            s.push_back(FixtureStat::str("region_type", region));
            s.push_back(FixtureStat::str("shape", shape));
            return s;
        };
        line.add("MemoryAllocation", 40000, 1000,
                 withText(stats(2000, 3000, 5000, 8500, 200, 256, 222333, 1), "foo/bar", "output",
                          "[3, 3, 512, 512]"));
        line.add("MemoryDeallocation", 50000, 1000,
                 withText(stats(2000, 2744, 5256, 8500, 200, 256, 222333, 0), "", "", ""));
        line.add("MemoryAllocation", 70000, 1000,
                 withText(stats(2000, 5000, 3000, 9500, 300, 300, 345678, 9), "mul_grad/Sum",
                          "temp", "[1, 2]"));
        const auto profile = load(space);
        const MemoryProfile m = computeMemoryProfile(*profile);
        QCOMPARE(m.series.size(), size_t(1));
        const MemorySeries& s = m.series[0];
        QCOMPARE(s.memoryId, std::string("GPU_0_bfc"));
        QCOMPARE(s.summary.peakBytesUsageLifetime, int64_t(9500));
        QCOMPARE(s.summary.peakBytesInUse, int64_t(7000));
        // XProf's 70000 ps is the offset from the line's timestamp; Stepscope's time counts from
        // the profile start, so compare absolute times.
        QCOMPARE(profile->startNs() * 1000 + s.summary.peakTimePs, 5000 * 1000 + 70000);
        QCOMPARE(s.breakdown.rowCount(), size_t(3)); // active_allocations_size() == 3
        const Rows t{s.breakdown};
        // special_allocations: "unused preallocated device memory" (5000 - 256 + 256 - 300), then
        // "stack" with 2000 bytes; the one real row (snapshot index 0) is mul_grad/Sum.
        QCOMPARE(t.text(0, "Op name"), std::string("unused preallocated device memory"));
        QCOMPARE(t.num(0, "Allocation size (bytes)"), 4700.0);
        QCOMPARE(t.text(1, "Op name"), std::string("stack"));
        QCOMPARE(t.num(1, "Allocation size (bytes)"), 2000.0);
        QCOMPARE(t.text(2, "Op name"), std::string("mul_grad/Sum"));
        QCOMPARE(t.text(2, "Data type"), std::string("int64"));
        // The free took foo/bar's metadata; its own data type 0 was replaced.
        QCOMPARE(m.str(s.records[1].tfOp), std::string("foo/bar"));
        QCOMPARE(m.str(s.records[1].tensorShape), std::string("[3, 3, 512, 512]"));
        QCOMPARE(s.records[1].dataType, 1);
    }

    void sourceIndependentInput() {
        // Records as a capture or another importer would hand them over, out of order, with
        // equal times kept in input order and a free before any allocation.
        MemoryProfileInput in;
        in.hostNames = {"h0", "h1"};
        in.strings = {"", "op"};
        auto rec = [](int64_t t, bool alloc, uint64_t addr, int64_t bytes, int64_t heap) {
            AllocationRecord r;
            r.timePs = t;
            r.activity = alloc ? MemoryActivity::Allocation : MemoryActivity::Deallocation;
            r.address = addr;
            r.allocationBytes = r.requestedBytes = bytes;
            r.heapAllocatedBytes = heap;
            r.tfOp = alloc ? 1 : 0;
            return r;
        };
        in.series.push_back({"GPU_0",
                             1,
                             {rec(30, false, 1, 100, 0), rec(10, true, 1, 100, 100),
                              rec(20, false, 9, 50, 50), rec(20, true, 2, 200, 250)}});
        in.series.push_back({"CPU", 0, {rec(5, true, 7, 8, 8)}});
        in.series.push_back({"empty", 0, {}});
        const MemoryProfile m = computeMemoryProfile(std::move(in));
        QCOMPARE(m.series.size(), size_t(2));               // ids without events are not listed
        QCOMPARE(m.series[0].label, std::string("h0/CPU")); // hosts first, then ids
        QCOMPARE(m.series[1].label, std::string("h1/GPU_0"));
        const MemorySeries& g = m.series[1];
        QCOMPARE(g.records[0].timePs, int64_t(10));
        QCOMPARE(g.records[1].address, uint64_t(9)); // equal times keep input order
        QCOMPARE(g.records[2].address, uint64_t(2));
        QCOMPARE(g.summary.peakBytesInUse, int64_t(250));
        QCOMPARE(g.summary.peakTimePs, int64_t(20));
        QCOMPARE(g.unmatchedDeallocations, uint64_t(1));
        // Missing stack and free count 0 in use, and leave the capacity unknown.
        QCOMPARE(g.summary.memoryCapacity, kNotRecorded);
        QCOMPARE(g.summary.peakBytesUsageLifetime, kNotRecorded);
        QVERIFY(std::isnan(g.summary.fragmentationAtPeak));
    }

    void badAllocatorData() {
        FixtureSpace space;
        FixturePlane& host = space.addPlane(1, "/host:CPU");
        FixtureLine& line = host.addLine(1, "thread", 1000);
        line.add("train", 0, 100 * us);
        // A free first (no allocation at its address), then impossible values: a negative
        // heap, a negative requested size, fragmentation 1.5, a NaN double size and a uint64
        // size above 2^63; an event with nothing but its allocator; two allocations at one
        // address.
        line.add("MemoryDeallocation", 1 * us, 0,
                 {FixtureStat::str("allocator_name", "bad"),
                  FixtureStat::int64("allocation_bytes", 64), FixtureStat::int64("addr", 5)});
        line.add(
            "MemoryAllocation", 2 * us, 0,
            {FixtureStat::str("allocator_name", "bad"), FixtureStat::int64("bytes_allocated", -5),
             FixtureStat::int64("requested_bytes", -1), FixtureStat::dbl("fragmentation", 1.5),
             FixtureStat::dbl("allocation_bytes", std::nan("")),
             FixtureStat::uint64("bytes_available", 1ull << 63), FixtureStat::int64("addr", 6)});
        line.add("MemoryAllocation", 3 * us, 0, {FixtureStat::str("allocator_name", "bad")});
        line.add("MemoryAllocation", 4 * us, 0,
                 {FixtureStat::str("allocator_name", "bad"), FixtureStat::int64("addr", 6),
                  FixtureStat::int64("bytes_allocated", 100)});
        const auto profile = load(space);
        const MemoryProfile m = computeMemoryProfile(*profile);
        QCOMPARE(m.series.size(), size_t(1));
        const MemorySeries& s = m.series[0];
        QCOMPARE(m.invalidValues, uint64_t(3)); // heap -5, requested -1, fragmentation 1.5
        QCOMPARE(s.unmatchedDeallocations, uint64_t(1));
        QCOMPARE(s.repeatedAllocations, uint64_t(1));
        const AllocationRecord& r = s.records[1];
        QCOMPARE(r.heapAllocatedBytes, kNotRecorded);
        QCOMPARE(r.requestedBytes, kNotRecorded);
        QCOMPARE(r.allocationBytes, kNotRecorded);
        QCOMPARE(r.freeMemoryBytes, kNotRecorded);
        QVERIFY(std::isnan(r.fragmentation));
        QCOMPARE(s.records[2].bytesInUse(), int64_t(0));
        QCOMPARE(s.summary.peakBytesInUse, int64_t(100));
        QCOMPARE(s.summary.peakTimePs, 4 * us);
        // Live at the peak (all events are in step 0): address 6 (the later allocation
        // replaces the earlier, as XProf's map does) and address 0 (the event without one), both
        // of unknown size, so equal and merged; the heap they do not account for is 100 + 64
        // (the free of an unknown allocation) - 64 = 100. Not recorded stays empty, never 0.
        const Rows t{s.breakdown};
        QCOMPARE(s.breakdown.rowCount(), size_t(2));
        QCOMPARE(t.text(0, "Op name"), std::string("unused preallocated device memory"));
        QCOMPARE(t.num(0, "Allocation size (bytes)"), 100.0);
        QCOMPARE(t.text(1, "Op name"), std::string());
        QCOMPARE(int64_t(t.num(1, "Occurrences")), int64_t(2));
        QVERIFY(s.breakdown.isMissing(1, t.col("Allocation size (bytes)")));
        QVERIFY(s.breakdown.isMissing(1, t.col("Requested size (bytes)")));
    }

    void dataTypeNames() {
        // DataTypeString in xprof/utils/tensorflow_utils.cc.
        QCOMPARE(tfDataTypeName(0), std::string("INVALID"));
        QCOMPARE(tfDataTypeName(1), std::string("float"));
        QCOMPARE(tfDataTypeName(14), std::string("bfloat16"));
        QCOMPARE(tfDataTypeName(19), std::string("half"));
        QCOMPARE(tfDataTypeName(30), std::string("uint4"));
        QCOMPARE(tfDataTypeName(101), std::string("float_ref"));
        QCOMPARE(tfDataTypeName(100), std::string("unknown dtype enum (100)"));
        QCOMPARE(tfDataTypeName(31), std::string("unknown dtype enum (31)"));
        QCOMPARE(tfDataTypeName(150), std::string("unknown dtype enum (50)_ref"));
    }

    // ---- the downsampler

    void downsamplerKeepsEveryColumnsExtent() {
        std::mt19937_64 rng(7);
        for (int trial = 0; trial < 40; ++trial) {
            const size_t n = 1 + rng() % 5000;
            std::vector<double> x(n), y(n);
            double t = 0;
            for (size_t i = 0; i < n; ++i) {
                t += (rng() % 4 == 0) ? 0 : double(rng() % 1000) / 100; // repeated times too
                x[i] = t;
                y[i] = double(rng() % 10000) - 5000;
                if (rng() % 50 == 0) y[i] = std::nan("");
            }
            const int columns = 1 + int(rng() % 300);
            const double x0 = x[rng() % n] - 3, x1 = x0 + double(rng() % 20000) / 10 + 1;
            const std::vector<uint32_t> keep = minMaxDownsample(x, y, x0, x1, columns);
            // The indexed form gives the same result as the scanning one.
            const RangeExtrema index(y);
            QCOMPARE(minMaxDownsample(x, index, x0, x1, columns), keep);
            const StepOutline scanned = stepEnvelope(x, y, x0, x1, columns);
            const StepOutline indexed = stepEnvelope(x, index, x0, x1, columns);
            QCOMPARE(indexed.x, scanned.x);
            QCOMPARE(indexed.y, scanned.y);
            QVERIFY(std::is_sorted(keep.begin(), keep.end()));
            QVERIFY(std::adjacent_find(keep.begin(), keep.end()) == keep.end());
            const size_t first = size_t(std::lower_bound(x.begin(), x.end(), x0) - x.begin());
            const size_t last = size_t(std::upper_bound(x.begin(), x.end(), x1) - x.begin());
            QVERIFY(keep.size() <= size_t(columns) * 3 + 2);
            // The neighbours outside the view are kept, so lines reach the edges.
            if (first > 0) QCOMPARE(size_t(keep.front()), first - 1);
            if (last < n) QCOMPARE(size_t(keep.back()), last);
            // Brute force: per column (start(c) <= x < start(c + 1)), min and max of the visible
            // samples equal those of the kept ones, and the column's last sample is kept.
            const double w = (x1 - x0) / columns;
            std::map<int, std::pair<double, double>> all, kept;
            std::map<int, size_t> lastOf;
            auto columnOf = [&](double v) {
                int c = 0;
                while (c + 1 < columns && v >= x0 + (c + 1) * w) ++c;
                return c;
            };
            auto add = [](std::map<int, std::pair<double, double>>& m, int c, double v) {
                if (std::isnan(v)) return;
                auto [it, inserted] = m.try_emplace(c, v, v);
                if (!inserted) {
                    it->second.first = std::min(it->second.first, v);
                    it->second.second = std::max(it->second.second, v);
                }
            };
            for (size_t i = first; i < last; ++i) {
                add(all, columnOf(x[i]), y[i]);
                lastOf[columnOf(x[i])] = i;
            }
            for (uint32_t i : keep)
                if (i >= first && i < last) add(kept, columnOf(x[i]), y[i]);
            QCOMPARE(kept, all);
            for (const auto& [c, i] : lastOf)
                QVERIFY(std::binary_search(keep.begin(), keep.end(), uint32_t(i)));
        }
    }

    void rangeExtremaMatchBruteForce() {
        // Few distinct values (many ties: the first of equals wins), runs of NaN, and ranges of
        // every length, aligned to the index's blocks of 16 and 256 or not.
        std::mt19937_64 rng(11);
        for (size_t n : {0, 1, 15, 16, 17, 255, 256, 257, 5000, 70000}) {
            std::vector<double> y(n);
            for (size_t i = 0; i < n; ++i) y[i] = double(rng() % 7);
            for (size_t i = 0; i + 40 < n; i += 997) // NaN runs longer than a block
                std::fill(y.begin() + long(i), y.begin() + long(i + 40), std::nan(""));
            const RangeExtrema index(y);
            for (int trial = 0; trial < 300; ++trial) {
                const size_t begin = n ? rng() % n : 0;
                const size_t end = begin + (n - begin ? rng() % (n - begin + 1) : 0);
                size_t minAt = end, maxAt = end;
                for (size_t i = begin; i < end; ++i) {
                    if (std::isnan(y[i])) continue;
                    if (minAt == end || y[i] < y[minAt]) minAt = i;
                    if (maxAt == end || y[i] > y[maxAt]) maxAt = i;
                }
                const auto [gotMin, gotMax] = index.find(begin, end);
                QCOMPARE(gotMin, minAt);
                QCOMPARE(gotMax, maxAt);
            }
        }
    }

    void downsamplerNeverLosesASpike() {
        // A million flat samples with one spike and one dip: both survive at any width.
        const size_t n = 1'000'000;
        std::vector<double> x(n), y(n, 1.0);
        for (size_t i = 0; i < n; ++i) x[i] = double(i);
        y[654321] = 1e9;
        y[123457] = -7;
        for (int columns : {1, 2, 640, 1920}) {
            const std::vector<uint32_t> keep = minMaxDownsample(x, y, 0, double(n - 1), columns);
            QVERIFY(std::binary_search(keep.begin(), keep.end(), 654321u));
            QVERIFY(std::binary_search(keep.begin(), keep.end(), 123457u));
            QVERIFY(keep.size() <= size_t(columns) * 3);
            const StepOutline top = stepEnvelope(x, y, 0, double(n - 1), columns);
            QCOMPARE(*std::max_element(top.y.begin(), top.y.end()), 1e9);
            QVERIFY(top.x.size() <= size_t(columns) * 2 + 2);
        }
        // Few samples: all of them.
        const std::vector<uint32_t> few =
            minMaxDownsample(std::span(x).first(10), std::span(y).first(10), 0, 9, 100);
        QCOMPARE(few.size(), size_t(10));
        QVERIFY(minMaxDownsample({}, std::span<const double>(), 0, 1, 10).empty());
    }

    void envelopeReachesEveryColumnsMaximum() {
        // Step series 0..9 with values; 5 columns of width 2 over [0, 10).
        //   x: 0  1  2  3  4  5  6  7  8  9
        //   y: 1  5  2  2  7  3  -  -  4  6     (x 6, 7 absent: column 3 carries 3 in)
        const std::vector<double> x = {0, 1, 2, 3, 4, 5, 8, 9, 12};
        const std::vector<double> y = {1, 5, 2, 2, 7, 3, 4, 6, 0};
        const StepOutline top = stepEnvelope(x, y, 0, 10, 5);
        // Column 0 [0,2): max(1,5) = 5. Column 1 [2,4): the jump from 5 to 2 at its first
        // sample is drawn there, so max(5, 2, 2) = 5. Column 2 [4,6): 7, carries out 3.
        // Column 3 [6,8) has no sample. Column 4 [8,10]: max(3 carried, 4, 6) = 6; the series goes
        // on past 10, so the value carried out (6) runs to the edge.
        const std::vector<double> ex = {0, 2, 4, 6, 8, 10};
        const std::vector<double> ey = {5, 5, 7, 3, 6, 6};
        QCOMPARE(top.x, ex);
        QCOMPARE(top.y, ey);
        // Starting mid-series: the value carried in from before x0 counts.
        const StepOutline mid = stepEnvelope(x, y, 3.5, 5.5, 2);
        // Columns [3.5,4.5): carried 2, sample 7 -> 7; [4.5,5.5]: carried 7, sample 3 -> 7.
        QCOMPARE(mid.y.front(), 7.0);
        QCOMPARE(mid.x.front(), 3.5);
    }

    // ---- real profiles, counted with protobuf's classes

    void realProfiles() {
        REQUIRE_REALDATA();
        const std::vector<std::string> files = {
            kBert, kRealData + "/jax-rocm/jax08_gemm.tw003.xplane.pb",
            kRealData + "/jax-rocm/jax_conv_minimal_08.tw003.xplane.pb",
            kRealData + "/jax-rocm/te_fused_attn.934987a2fc2f.xplane.pb"};
        for (const std::string& file : files) {
            const auto expected = readRealAllocators(file);
            const LoadResult r = loadPath(file);
            QVERIFY2(r.ok(), r.error.c_str());
            const MemoryProfile m = computeMemoryProfile(*r.profile);
            QCOMPARE(m.series.size(), expected.size());
            for (const auto& [id, e] : expected) {
                const MemorySeries* s = m.find(id);
                QVERIFY2(s, (file + ": " + id).c_str());
                QCOMPARE(s->summary.allocations, e.allocations);
                QCOMPARE(s->summary.deallocations, e.deallocations);
                QCOMPARE(s->summary.peakBytesInUse, e.peakInUse);
                QCOMPARE(r.profile->startNs() * 1000 + s->summary.peakTimePs, e.peakTimePs);
                QCOMPARE(s->summary.peakBytesUsageLifetime, e.lifetimePeak);
                QCOMPARE(s->unmatchedDeallocations, e.unmatchedFrees);
            }
        }
        // Facts about the BERT host as SOURCES.md states them.
        const auto bert = readRealAllocators(kBert);
        uint64_t allocations = 0, deallocations = 0;
        for (const auto& [id, e] : bert) {
            allocations += e.allocations;
            deallocations += e.deallocations;
        }
        QCOMPARE(allocations, uint64_t(1859));
        QCOMPARE(deallocations, uint64_t(634));
    }

    void realBertBreakdown() {
        REQUIRE_REALDATA();
        const LoadResult r = loadPath(kBert);
        QVERIFY2(r.ok(), r.error.c_str());
        const MemoryProfile m = computeMemoryProfile(*r.profile);
        const MemorySeries* s = m.find("GPU_4_bfc");
        QVERIFY(s);
        // Every BERT allocation on GPU_4_bfc is in step 0 or has no step (repaired to 0 until the
        // first stepped event), and nothing in the window is freed before the peak that was not
        // allocated there: the rows then account for the whole heap at the peak.
        double total = 0;
        const Rows t{s->breakdown};
        for (size_t i = 0; i < s->breakdown.rowCount(); ++i)
            total += t.num(i, "Allocation size (bytes)") * t.num(i, "Occurrences");
        QCOMPARE(total, double(s->summary.peakBytesInUse));
        QCOMPARE(t.text(0, "Op name"), std::string("unused preallocated device memory"));
        QCOMPARE(t.text(1, "Op name"),
                 std::string("replica_4/bert_span_labeler/bert_encoder_1/word_embeddings/"
                             "GatherV2/Cast"));
        QCOMPARE(t.text(1, "Shape"), std::string("[30522,1024]"));
        QCOMPARE(t.text(1, "Data type"), std::string("half"));
        QCOMPARE(t.num(1, "Allocation size (bytes)"), 30522.0 * 1024 * 2); // half: 2 bytes
    }

    // ---- the page

    void pageShowsSelectsHoversAndClicks() {
        const auto profile = load(HandFixture().space);
        MemoryProfileView view;
        view.resize(1280, 800);
        view.show();
        QSignalSpy ready(&view, &ToolView::ready);
        view.setProfile(profile);
        QTRY_VERIFY(view.isReady());
        QComboBox* selector = view.memoryIdSelector();
        QCOMPARE(selector->count(), 3);
        QCOMPARE(selector->itemText(0), QString("3"));
        QCOMPARE(selector->itemText(1), QString("GPU_0_bfc"));
        // The device allocator with the largest peak (XProf opens on the first, "3").
        QCOMPARE(view.currentMemoryId(), QString("GPU_0_bfc"));
        QVERIFY(view.selectMemoryId("3"));
        QCOMPARE(view.currentMemoryId(), QString("3"));
        QVERIFY(!view.selectMemoryId("nope"));
        QVERIFY(view.selectMemoryId("GPU_0_bfc"));
        QVERIFY(view.summaryText().contains("Peak memory usage: 6.45 KiB"));
        QVERIFY(view.summaryText().contains("Timestamp: 0.097 ms"));
        QVERIFY(view.summaryText().contains("Fragmentation: 37.50%"));
        QVERIFY(view.summaryText().contains("Memory capacity: 9.77 KiB"));
        QCOMPARE(view.breakdownView()->table().rowCount(), size_t(5));
        QCOMPARE(view.chart()->unitName(), QString("KiB"));

        // Hover over e12 (97 µs): its details, as XProf's tooltip lists them.
        QCustomPlot* plot = view.chart()->plot();
        QTRY_VERIFY(plot->axisRect()->width() > 100);
        const QPoint at(int(std::lround(plot->xAxis->coordToPixel(0.097))),
                        plot->axisRect()->center().y());
        QMouseEvent move(QEvent::MouseMove, QPointF(at), QPointF(plot->mapToGlobal(at)),
                         Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(plot, &move);
        const QString hover = view.chart()->hoverText();
        for (const char* line :
             {"Timestamp: 0.097 ms", "Event: allocation", "Requested size: 512 B",
              "Allocation size: 512 B", "Op: g/Mul", "Step: 2", "Region type: output",
              "Data type: float", "Shape: [128]", "Memory in use: 6.45 KiB (6608 B)"})
            QVERIFY2(hover.contains(line), qPrintable(hover));

        // A click (press and release in place) asks for that event in the trace viewer.
        QSignalSpy show(&view, &ToolView::showEventRequested);
        QTest::mouseClick(plot, Qt::LeftButton, Qt::NoModifier, at);
        QCOMPARE(show.count(), 1);
        QCOMPARE(show.at(0).at(0).value<EventIndex>(),
                 eventAt(*profile, 97 * us, "MemoryAllocation"));
        // So does activating a breakdown row (d/Add, allocated at 70 µs); special rows do not.
        emit view.breakdownView()->rowActivated(0);
        QCOMPARE(show.count(), 2);
        QCOMPARE(show.at(1).at(0).value<EventIndex>(),
                 eventAt(*profile, 70 * us, "MemoryAllocation"));
        emit view.breakdownView()->rowActivated(1);
        QCOMPARE(show.count(), 2);

        // Away from the plot area: no hover.
        QMouseEvent away(QEvent::MouseMove, QPointF(2, 2), QPointF(plot->mapToGlobal(QPoint(2, 2))),
                         Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(plot, &away);
        QVERIFY(view.chart()->hoverText().isEmpty());

        // A new profile replaces everything; none clears.
        view.setProfile(nullptr);
        QCOMPARE(selector->count(), 0);
        QCOMPARE(view.breakdownView()->table().rowCount(), size_t(0));
    }

    void chartDrawsPixelsNotEvents() {
        // 200k events: what the chart hands QCustomPlot is bounded by its width.
        MemoryProfileInput in;
        in.hostNames = {"h"};
        MemorySeriesInput series{"GPU_0_bfc", 0, {}};
        for (int64_t i = 0; i < 200000; ++i) {
            AllocationRecord r;
            r.timePs = i * 1000;
            r.heapAllocatedBytes = (i * 7919) % 100000;
            r.freeMemoryBytes = 1'000'000 - r.heapAllocatedBytes;
            r.fragmentation = double(i % 100) / 100;
            series.records.push_back(r);
        }
        in.series.push_back(std::move(series));
        auto m = std::make_shared<const MemoryProfile>(computeMemoryProfile(std::move(in)));
        MemoryTimelineChart chart;
        chart.resize(1000, 500);
        chart.show();
        chart.setSeries(m, &m->series[0]);
        QTRY_VERIFY(chart.plot()->axisRect()->width() > 100);
        chart.resetZoom();
        const size_t columns = size_t(chart.plot()->axisRect()->width());
        // Per curve (stack, heap, free, fragmentation) at most 3 points a column for the line,
        // 2 for the fill (the first three), plus the edges.
        QVERIFY(chart.drawnPoints() > 0);
        QVERIFY(chart.drawnPoints() <= columns * (4 * 3 + 3 * 2) + 32);
        // The largest heap value is drawn: the heap fill's maximum is the data's maximum.
        QCPGraph* heapFill = nullptr;
        for (int i = 0; i < chart.plot()->graphCount(); ++i)
            if (chart.plot()->graph(i)->name() == "Heap") heapFill = chart.plot()->graph(i);
        QVERIFY(heapFill);
        double maxDrawn = 0;
        for (const QCPGraphData& d : *heapFill->data()) maxDrawn = std::max(maxDrawn, d.value);
        QCOMPARE(maxDrawn, 99999.0 / 1024); // KiB
    }
};

QTEST_MAIN(TestMemoryProfile)
#include "test_memory_profile.moc"
