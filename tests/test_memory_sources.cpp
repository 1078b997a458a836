// How each source format reaches the memory profile, and what the page opens on: the series
// opened first (device memory over host memory, then the largest peak) by hand; steps by time and
// values a format does not record on a PyTorch trace written by hand, through the analysis, the
// page and stepscope-cli; facts about the real PyTorch traces counted by an independent reader
// (zlib and simdjson's DOM, not the importer) and about the real CUPTI captures counted from
// their records (not the converter).
#include <QtTest>

#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <qcustomplot.h>
#include <simdjson.h>
#include <tuple>

#include "capture/CuptiConverter.h"
#include "capture/RecordFile.h"
#include "model/ProfileLoader.h"
#include "model/analysis/MemoryProfile.h"
#include "tests/fixtures/FixtureXSpace.h"
#include "tests/fixtures/GzipFile.h"
#include "tests/fixtures/TableRows.h"
#include "views/memory_profile/MemoryProfileView.h"
#include "views/memory_profile/MemoryTimelineChart.h"

using namespace stepscope;
using namespace stepscope::fixtures;
namespace fs = std::filesystem;

namespace {

constexpr int64_t us = 1000000; // ps
const std::string kRealData = STEPSCOPE_REALDATA;

using Rows = TableRows;

// ---- an independent reader of real Kineto traces (zlib and simdjson's DOM, not the importer)

// One PyTorch allocator ("Device Type", "Device Id") as its [memory] events describe it.
struct KinetoAllocator {
    uint64_t events = 0;
    int64_t peak = 0;              // the largest "Total Allocated" (or running sum of "Bytes")
    bool reservedRecorded = false; // some "Total Reserved" above 0
    std::vector<int64_t> reservedMinusAllocated; // per event that has both totals
    std::vector<double> times;                   // ts of every event, µs
};

struct KinetoFacts {
    std::map<std::pair<int64_t, int64_t>, KinetoAllocator> allocators;
    std::map<int64_t, std::pair<double, double>> steps; // N of ProfilerStep#N -> [ts, ts + dur)
};

KinetoFacts readKinetoFacts(const std::string& path) {
    const std::string json = gunzipFile(path);
    simdjson::dom::parser parser;
    const simdjson::dom::element doc = parser.parse(json);
    const simdjson::dom::array events =
        doc.is_array() ? doc.get_array() : doc["traceEvents"].get_array();
    KinetoFacts f;
    struct Event {
        double ts;
        int64_t bytes;
        bool hasTotal;
        int64_t total;
    };
    std::map<std::pair<int64_t, int64_t>, std::vector<Event>> byAllocator;
    for (simdjson::dom::element e : events) {
        std::string_view name;
        if (e["name"].get(name) != simdjson::SUCCESS) continue;
        if (name.starts_with("ProfilerStep#") && std::string_view(e["ph"]) == "X") {
            const double ts = double(e["ts"]), dur = double(e["dur"]);
            f.steps[std::stoll(std::string(name.substr(13)))] = {ts, ts + dur};
            continue;
        }
        if (name != "[memory]") continue;
        const simdjson::dom::element a = e["args"];
        const auto number = [&](const char* key, int64_t& out) {
            simdjson::dom::element v;
            if (a[key].get(v) != simdjson::SUCCESS) return false;
            out = v.is_int64() ? int64_t(v) : int64_t(double(v));
            return true;
        };
        int64_t type = 0, id = 0, bytes = 0, total = 0, reserved = 0;
        number("Device Type", type);
        number("Device Id", id);
        number("Bytes", bytes);
        const bool hasTotal = number("Total Allocated", total);
        const bool hasReserved = number("Total Reserved", reserved);
        const double ts = double(e["ts"]);
        KinetoAllocator& k = f.allocators[{type, id}];
        ++k.events;
        k.times.push_back(ts);
        if (hasReserved && reserved > 0) k.reservedRecorded = true;
        if (hasTotal && hasReserved) k.reservedMinusAllocated.push_back(reserved - total);
        byAllocator[{type, id}].push_back({ts, bytes, hasTotal, total});
    }
    for (auto& [key, list] : byAllocator) {
        std::stable_sort(list.begin(), list.end(),
                         [](const Event& a, const Event& b) { return a.ts < b.ts; });
        int64_t sum = 0, peak = 0;
        for (const Event& ev : list) {
            sum += ev.bytes;
            peak = std::max(peak, ev.hasTotal ? ev.total : sum);
        }
        f.allocators[key].peak = peak;
    }
    return f;
}

// ---- an independent reading of CUPTI record files: device memory in use per device

struct CuptiDeviceMemory {
    uint64_t allocations = 0, frees = 0;
    int64_t peak = 0;
};

std::map<uint32_t, CuptiDeviceMemory> readCuptiMemory(const std::vector<capture::Record>& records) {
    std::map<uint32_t, CuptiDeviceMemory> out;
    std::map<uint32_t, std::map<uint64_t, int64_t>> live;
    std::map<uint32_t, int64_t> inUse;
    std::vector<capture::MemoryRecord> memory;
    for (const capture::Record& r : records)
        if (const auto* m = std::get_if<capture::MemoryRecord>(&r)) memory.push_back(*m);
    std::stable_sort(memory.begin(), memory.end(),
                     [](const auto& a, const auto& b) { return a.timestampNs < b.timestampNs; });
    for (const capture::MemoryRecord& m : memory) {
        CuptiDeviceMemory& d = out[m.deviceId];
        if (m.allocation) {
            ++d.allocations;
            live[m.deviceId][m.address] = int64_t(m.bytes);
            inUse[m.deviceId] += int64_t(m.bytes);
        } else {
            ++d.frees;
            const auto it = live[m.deviceId].find(m.address);
            if (it != live[m.deviceId].end()) {
                inUse[m.deviceId] -= it->second;
                live[m.deviceId].erase(it);
            }
        }
        d.peak = std::max(d.peak, inUse[m.deviceId]);
    }
    return out;
}

// A PyTorch trace written by hand (2022+ schema, times in µs). Two steps, ProfilerStep#1 [100,
// 200) and ProfilerStep#2 [200, 300), each with a launch and its kernel (so the overview keeps
// them), and three allocators:
//   GPU_0 (reserved 1,000,000 throughout):
//     50    alloc 0x1000 1000  total 1000   no step
//     120.5 alloc 0x2000 4000  total 5000   step 1
//     150   free  0x2000       total 1000   step 1
//     210.5 alloc 0x3000 3000  total 4000   step 2, in aten::mm
//     250   alloc 0x4000 2000  total 6000   step 2, in aten::add: the peak
//     260   free  0x3000       total 3000   step 2
//     350   alloc 0x5000  500  total 3500   no step
//   CPU ("Total Reserved" 0 throughout, as PyTorch writes it): 121 alloc 8, 151 free 8 (step 1),
//     400 alloc 16 (no step; its peak)
//   GPU_1: 130 alloc 200 with reserved 100 (free -100: impossible), 140 alloc 100 (reserved 300)
// Free memory at GPU_0's peak: 1,000,000 - 6000 = 994,000. Live at the peak, walking step 2: 0x3000
// (3000, aten::mm) and 0x4000 (2000, aten::add); the heap they leave, 6000 - 5000 = 1000 (0x1000,
// allocated before the steps), is "unused preallocated device memory".
constexpr std::string_view kTorchTrace = R"J({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150000000000,
                        "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
     "ts": 100.0, "dur": 100.0},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1,
     "ts": 200.0, "dur": 100.0},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 110.0, "dur": 20.0,
     "args": {"External id": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 112.0,
     "dur": 5.0, "args": {"External id": 1, "correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 7, "ts": 120.0,
     "dur": 30.0, "args": {"device": 0, "stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 210.0, "dur": 20.0,
     "args": {"External id": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 212.0,
     "dur": 5.0, "args": {"External id": 2, "correlation": 2}},
    {"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 7, "ts": 220.0,
     "dur": 30.0, "args": {"device": 0, "stream": 7, "correlation": 2}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 245.0,
     "dur": 10.0, "args": {"External id": 3}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
     "ts": 50.0, "args": {"Device Type": 1, "Device Id": 0, "Addr": 4096, "Bytes": 1000,
     "Total Allocated": 1000, "Total Reserved": 1000000}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
     "ts": 120.5, "args": {"Device Type": 1, "Device Id": 0, "Addr": 8192, "Bytes": 4000,
     "Total Allocated": 5000, "Total Reserved": 1000000}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
     "ts": 150.0, "args": {"Device Type": 1, "Device Id": 0, "Addr": 8192, "Bytes": -4000,
     "Total Allocated": 1000, "Total Reserved": 1000000}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
     "ts": 210.5, "args": {"Device Type": 1, "Device Id": 0, "Addr": 12288, "Bytes": 3000,
     "Total Allocated": 4000, "Total Reserved": 1000000}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
     "ts": 250.0, "args": {"Device Type": 1, "Device Id": 0, "Addr": 16384, "Bytes": 2000,
     "Total Allocated": 6000, "Total Reserved": 1000000}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
     "ts": 260.0, "args": {"Device Type": 1, "Device Id": 0, "Addr": 12288, "Bytes": -3000,
     "Total Allocated": 3000, "Total Reserved": 1000000}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
     "ts": 350.0, "args": {"Device Type": 1, "Device Id": 0, "Addr": 20480, "Bytes": 500,
     "Total Allocated": 3500, "Total Reserved": 1000000}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
     "ts": 121.0, "args": {"Device Type": 0, "Device Id": -1, "Addr": 36864, "Bytes": 8,
     "Total Allocated": 8, "Total Reserved": 0}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
     "ts": 151.0, "args": {"Device Type": 0, "Device Id": -1, "Addr": 36864, "Bytes": -8,
     "Total Allocated": 0, "Total Reserved": 0}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
     "ts": 400.0, "args": {"Device Type": 0, "Device Id": -1, "Addr": 37120, "Bytes": 16,
     "Total Allocated": 16, "Total Reserved": 0}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
     "ts": 130.0, "args": {"Device Type": 1, "Device Id": 1, "Addr": 40960, "Bytes": 200,
     "Total Allocated": 200, "Total Reserved": 100}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
     "ts": 140.0, "args": {"Device Type": 1, "Device Id": 1, "Addr": 45056, "Bytes": 100,
     "Total Allocated": 300, "Total Reserved": 300}},
    {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "main thread"}}
  ],
  "baseTimeNanoseconds": 1700000000000000000
})J";

std::string writeTorchTrace(const QTemporaryDir& dir) {
    const std::string path = dir.path().toStdString() + "/hand.pt.trace.json";
    std::ofstream(path, std::ios::binary) << kTorchTrace;
    return path;
}

// The steps of a series' records, in time order (kNoStep for none).
std::vector<int64_t> stepsOf(const MemorySeries& s) {
    std::vector<int64_t> steps;
    for (const AllocationRecord& r : s.records) steps.push_back(r.stepId);
    return steps;
}

#define REQUIRE_REALDATA()                                                                         \
    if (!fs::exists(kRealData))                                                                    \
        QSKIP(qPrintable(QString("../shared/realdata not found at %1; real-profile tests skipped") \
                             .arg(QString::fromStdString(kRealData))));

} // namespace

class TestMemorySources : public QObject {
    Q_OBJECT
private slots:
    void deviceAllocatorOpensFirst() {
        QVERIFY(isDeviceAllocator("GPU_0_bfc"));  // TensorFlow, JAX
        QVERIFY(isDeviceAllocator("GPU_0"));      // PyTorch
        QVERIFY(isDeviceAllocator("GPU_0_cuda")); // the CUPTI capture
        QVERIFY(isDeviceAllocator("device_type_13_0"));
        QVERIFY(!isDeviceAllocator("gpu_host_bfc"));     // TensorFlow's pinned host memory
        QVERIFY(!isDeviceAllocator("xla_gpu_host_bfc")); // JAX's
        QVERIFY(!isDeviceAllocator("CPU"));
        QVERIFY(!isDeviceAllocator(kNoMemoryId));

        // A host allocator with the largest peak, two device allocators with equal peaks (the
        // first in the list wins) and a smaller one, on two hosts.
        const auto one = [](int64_t heap) {
            AllocationRecord r;
            r.heapAllocatedBytes = heap;
            return std::vector<AllocationRecord>{r};
        };
        MemoryProfileInput in;
        in.hostNames = {"a", "b"};
        in.series.push_back({"pinned", 0, one(9000), false});
        in.series.push_back({"GPU_2", 1, one(3000), true});
        in.series.push_back({"GPU_1", 1, one(3000), true});
        in.series.push_back({"GPU_0", 0, one(1000), true});
        const MemoryProfile m = computeMemoryProfile(std::move(in));
        QCOMPARE(m.series[2].label, std::string("b/GPU_1")); // a/GPU_0, a/pinned, b/GPU_1, b/GPU_2
        QCOMPARE(m.defaultSeries, size_t(2));
        QCOMPARE(m.defaultShown()->label, std::string("b/GPU_1"));
        // Without a device allocator, the largest peak.
        MemoryProfileInput hostOnly;
        hostOnly.hostNames = {"h"};
        hostOnly.series.push_back({"CPU", 0, one(8), false});
        hostOnly.series.push_back({"pinned", 0, one(64), false});
        QCOMPARE(computeMemoryProfile(std::move(hostOnly)).defaultShown()->memoryId,
                 std::string("pinned"));
        QVERIFY(!MemoryProfile().defaultShown());

        // From a loaded profile: an allocator_name by its name; as XProf's ids, index_on_host
        // (host memory) and device_ordinal (a device's).
        FixtureSpace space;
        FixtureLine& line = space.addPlane(1, "/host:CPU").addLine(1, "thread", 1000);
        line.add("MemoryAllocation", 1 * us, 0,
                 {FixtureStat::ref("allocator_name", "gpu_host_bfc"),
                  FixtureStat::int64("bytes_allocated", 10000)});
        line.add(
            "MemoryAllocation", 2 * us, 0,
            {FixtureStat::int64("index_on_host", 0), FixtureStat::int64("bytes_allocated", 900)});
        line.add(
            "MemoryAllocation", 3 * us, 0,
            {FixtureStat::int64("device_ordinal", 2), FixtureStat::int64("bytes_allocated", 500)});
        const LoadResult r = loadXSpaceBytes(space.encode(), "fixture");
        QVERIFY2(r.ok(), r.error.c_str());
        const MemoryProfile loaded = computeMemoryProfile(*r.profile);
        QCOMPARE(loaded.series.size(), size_t(3));
        QVERIFY(!loaded.find("0")->onDevice);
        QVERIFY(loaded.find("2")->onDevice);
        QVERIFY(!loaded.find("gpu_host_bfc")->onDevice);
        QCOMPARE(loaded.defaultShown()->memoryId, std::string("2"));
    }

    void torchStepsAndUnrecordedFree() {
        QTemporaryDir dir;
        const LoadResult r = loadPath(writeTorchTrace(dir));
        QVERIFY2(r.ok(), r.error.c_str());
        const MemoryProfile m = computeMemoryProfile(*r.profile);
        QCOMPARE(m.series.size(), size_t(3));
        QCOMPARE(m.series[0].memoryId, std::string("CPU")); // listed first, as XProf sorts
        QCOMPARE(m.defaultShown()->memoryId, std::string("GPU_0"));
        // One impossible value: GPU_1's 100 bytes reserved under 200 allocated. The CPU
        // allocator's "Total Reserved" 0 means not recorded, not a free size of 0 - 8.
        QCOMPARE(m.invalidValues, uint64_t(1));

        const MemorySeries& g = *m.find("GPU_0");
        QVERIFY(g.onDevice);
        QVERIFY(g.stepsFromProfile);
        QCOMPARE(stepsOf(g), (std::vector<int64_t>{kNoStep, 1, 1, 2, 2, 2, kNoStep}));
        const MemorySummary& sum = g.summary;
        QCOMPARE(sum.allocations, uint64_t(5));
        QCOMPARE(sum.deallocations, uint64_t(2));
        QCOMPARE(sum.peakBytesInUse, int64_t(6000));
        QCOMPARE(sum.peakRecord, size_t(4));
        QCOMPARE(sum.peakTimePs - g.records[0].timePs, 200 * us); // 250 - 50 µs
        QCOMPARE(sum.peakStepId, int64_t(2));
        QVERIFY(!sum.incompleteSteps);
        QCOMPARE(sum.heapAtPeak, int64_t(6000));
        QCOMPARE(sum.stackAtPeak, kNotRecorded);
        QCOMPARE(sum.freeAtPeak, int64_t(994000));
        QCOMPARE(sum.memoryCapacity, int64_t(1000000));
        const Rows t{g.breakdown};
        QCOMPARE(g.breakdown.rowCount(), size_t(3));
        QCOMPARE(t.text(0, "Op name"), std::string("aten::mm"));
        QCOMPARE(t.num(0, "Allocation size (bytes)"), 3000.0);
        QCOMPARE(t.text(1, "Op name"), std::string("aten::add"));
        QCOMPARE(t.num(1, "Allocation size (bytes)"), 2000.0);
        QCOMPARE(t.text(2, "Op name"), std::string("unused preallocated device memory"));
        QCOMPARE(t.num(2, "Allocation size (bytes)"), 1000.0);
        // The hover leaves out the step of a record outside every step.
        const auto hasStep = [&](size_t record) {
            for (const auto& [name, value] : memoryRecordDetails(m, g, record))
                if (name == "Step") return value;
            return std::string("(none)");
        };
        QCOMPARE(hasStep(0), std::string("(none)"));
        QCOMPARE(hasStep(4), std::string("2"));

        const MemorySeries& c = *m.find("CPU");
        QVERIFY(!c.onDevice);
        QVERIFY(!c.hasFreeMemory);
        for (const AllocationRecord& rec : c.records) QCOMPARE(rec.freeMemoryBytes, kNotRecorded);
        QCOMPARE(c.summary.memoryCapacity, kNotRecorded);
        QCOMPARE(stepsOf(c), (std::vector<int64_t>{1, 1, kNoStep}));
        // Its peak (16 bytes at 400 µs) is outside every step: the breakdown walks the whole
        // profile up to it, where only that allocation is live.
        QCOMPARE(c.summary.peakBytesInUse, int64_t(16));
        QCOMPARE(c.summary.peakStepId, kNoStep);
        QVERIFY(!c.summary.incompleteSteps);
        QCOMPARE(c.breakdown.rowCount(), size_t(1));
        QCOMPARE(Rows{c.breakdown}.num(0, "Allocation size (bytes)"), 16.0);

        const MemorySeries& g1 = *m.find("GPU_1");
        QCOMPARE(g1.records[0].freeMemoryBytes, kNotRecorded); // -100, dropped and counted
        QCOMPARE(g1.records[1].freeMemoryBytes, int64_t(0));
    }

    void pageAndCliOpenOnTheSameSeries() {
        QTemporaryDir dir;
        const std::string path = writeTorchTrace(dir);
        const LoadResult r = loadPath(path);
        QVERIFY2(r.ok(), r.error.c_str());
        MemoryProfileView view;
        view.resize(1280, 800);
        view.show();
        view.setProfile(r.profile);
        QTRY_VERIFY(view.isReady());
        QCOMPARE(view.memoryIdSelector()->itemText(0), QString("CPU"));
        QCOMPARE(view.currentMemoryId(), QString("GPU_0"));
        QVERIFY2(view.breakdownTitle().contains("step 2 of the overview"),
                 qPrintable(view.breakdownTitle()));
        QVERIFY2(view.warningText().contains("1 impossible value"), qPrintable(view.warningText()));
        QVERIFY(!view.warningText().contains("Steps may be incomplete"));

        // The CPU allocator: what it does not record reads so.
        QVERIFY(view.selectMemoryId("CPU"));
        QVERIFY(view.summaryText().contains("Free memory: not recorded"));
        QVERIFY(view.summaryText().contains("Memory capacity: not recorded"));
        QVERIFY(view.summaryText().contains("Stack reservation: not recorded"));
        QVERIFY2(view.breakdownTitle().contains("outside every step"),
                 qPrintable(view.breakdownTitle()));
        QCPLegend* legend = view.chart()->plot()->legend;
        QStringList names;
        for (int i = 0; i < legend->itemCount(); ++i)
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i)))
                names << item->plottable()->name();
        QCOMPARE(names, QStringList({"Stack: not recorded", "Heap", "Free: not recorded",
                                     "Fragmentation: not recorded"}));

        // stepscope-cli exports the series the page opens on.
        QProcess cli;
        cli.start(STEPSCOPE_CLI, {"export", "memory_profile", QString::fromStdString(path),
                                  "--json", "-", "--no-cache"});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        const QJsonObject json = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        QCOMPARE(json["memory_id"].toString(), QString("GPU_0"));
        QCOMPARE(json["impossible_values"].toInt(), 1);
        QCOMPARE(json["summary"].toObject()["peak_step"].toInt(), 2);
        const QJsonArray timeline = json["timeline"].toArray();
        QCOMPARE(timeline.size(), 7);
        QVERIFY(timeline[0].toObject()["step"].isNull());
        QCOMPARE(timeline[1].toObject()["step"].toInt(), 1);
    }

    void cuptiMemoryInTimeOrder() {
        // CUPTI delivers records out of time order: B (50 bytes at 1 µs) arrives after A (100
        // bytes at 2 µs). In use after each, in time: 50, 150, then 100 once B is freed at 3 µs.
        const std::vector<capture::Record> records = {
            capture::MemoryRecord{2000, 0, 7, 1, 0xA000, 100, true},
            capture::MemoryRecord{1000, 0, 7, 2, 0xB000, 50, true},
            capture::MemoryRecord{3000, 0, 7, 3, 0xB000, 0, false}};
        const LoadResult r =
            loadXSpaceBytes(capture::convertToXSpace({records, "", {}}), "capture");
        QVERIFY2(r.ok(), r.error.c_str());
        const MemoryProfile m = computeMemoryProfile(*r.profile);
        QCOMPARE(m.series.size(), size_t(1));
        const MemorySeries& s = m.series[0];
        QCOMPARE(s.memoryId, std::string("GPU_0_cuda"));
        std::vector<int64_t> heap;
        for (const AllocationRecord& rec : s.records) heap.push_back(rec.heapAllocatedBytes);
        QCOMPARE(heap, (std::vector<int64_t>{50, 150, 100}));
        QCOMPARE(s.summary.peakRecord, size_t(1));
        QCOMPARE(s.records[2].allocationBytes, int64_t(50)); // the free takes B's size
    }

    // ---- real profiles

    void realKinetoTraces() {
        REQUIRE_REALDATA();
        std::vector<std::string> files;
        for (const char* folder : {"/kineto", "/h200/pytorch"})
            for (const auto& entry : fs::directory_iterator(kRealData + folder))
                if (entry.path().string().ends_with(".json.gz"))
                    files.push_back(entry.path().string());
        std::sort(files.begin(), files.end());
        std::map<std::string, std::pair<std::string, int64_t>> opened; // file -> id, peak
        for (const std::string& file : files) {
            const KinetoFacts f = readKinetoFacts(file);
            const LoadResult r = loadPath(file);
            QVERIFY2(r.ok(), r.error.c_str());
            const MemoryProfile m = computeMemoryProfile(*r.profile);
            QCOMPARE(m.series.size(), f.allocators.size());
            if (f.allocators.empty()) continue;
            // The allocator the page should open on: a device (Device Type above 0) over the
            // host, then the largest peak, then the first id as sorted.
            std::vector<std::tuple<std::string, bool, int64_t, const KinetoAllocator*>> expected;
            uint64_t impossible = 0;
            for (const auto& [key, a] : f.allocators) {
                const std::string id = key.first == 0 ? "CPU" : "GPU_" + std::to_string(key.second);
                expected.emplace_back(id, key.first != 0, a.peak, &a);
                if (a.reservedRecorded)
                    impossible += uint64_t(std::count_if(a.reservedMinusAllocated.begin(),
                                                         a.reservedMinusAllocated.end(),
                                                         [](int64_t v) { return v < 0; }));
                const MemorySeries* s = m.find(id);
                QVERIFY2(s, (file + ": " + id).c_str());
                QCOMPARE(uint64_t(s->records.size()), a.events);
                QCOMPARE(s->summary.peakBytesInUse, a.peak);
                // Free memory where the trace records reserved memory, and nowhere else.
                QCOMPARE(s->hasFreeMemory, a.reservedRecorded);
                if (!a.reservedRecorded)
                    for (const AllocationRecord& rec : s->records)
                        QCOMPARE(rec.freeMemoryBytes, kNotRecorded);
            }
            QCOMPARE(m.invalidValues, impossible);
            std::sort(expected.begin(), expected.end());
            auto best = expected.begin();
            for (auto it = expected.begin(); it != expected.end(); ++it)
                if (std::pair(std::get<1>(*it), std::get<2>(*it)) >
                    std::pair(std::get<1>(*best), std::get<2>(*best)))
                    best = it;
            const MemorySeries* shown = m.defaultShown();
            QCOMPARE(shown->memoryId, std::get<0>(*best));
            opened[fs::path(file).filename().string()] = {shown->memoryId,
                                                          shown->summary.peakBytesInUse};
            // Each record of it lies in the ProfilerStep#N whose range holds it, or in none.
            std::map<int64_t, uint64_t> expectedSteps, steps;
            for (double ts : std::get<3>(*best)->times) {
                int64_t step = kNoStep;
                for (const auto& [n, range] : f.steps)
                    if (ts >= range.first && ts < range.second) step = n;
                ++expectedSteps[step];
            }
            for (const AllocationRecord& rec : shown->records) ++steps[rec.stepId];
            QCOMPARE(steps, expectedSteps);
            QVERIFY(shown->stepsFromProfile);
            QVERIFY(!shown->summary.incompleteSteps);
        }
        // The figures the issue names, as the reader counts them from the files.
        using Opened = std::pair<std::string, int64_t>;
        QCOMPARE(opened.size(), size_t(3));
        QCOMPARE(opened["gpt12.1795814115139604345.pt.trace.json.gz"], Opened("GPU_0", 4940275200));
        QCOMPARE(opened["df_index_resolver.v100_rank1of2.json.gz"], Opened("GPU_1", 6629508096));
        QCOMPARE(opened["worker0.1623143089861.pt.trace.json.gz"], Opened("GPU_0", 2791636480));
    }

    void realCuptiCaptures() {
        REQUIRE_REALDATA();
        size_t files = 0;
        for (const auto& entry : fs::directory_iterator(kRealData + "/h200/cupti")) {
            if (entry.path().extension() != ".rec") continue;
            ++files;
            const std::string path = entry.path().string();
            const capture::RecordFileContents c = capture::readRecordFile(path);
            QVERIFY2(c.ok(), c.error.c_str());
            const auto expected = readCuptiMemory(c.records);
            QVERIFY2(!expected.empty(), path.c_str());
            const LoadResult r =
                loadXSpaceBytes(capture::convertToXSpace({c.records, c.problem, {}}), "capture");
            QVERIFY2(r.ok(), r.error.c_str());
            const MemoryProfile m = computeMemoryProfile(*r.profile);
            QCOMPARE(m.series.size(), expected.size());
            QCOMPARE(m.invalidValues, uint64_t(0));
            std::string largest;
            int64_t largestPeak = -1;
            for (const auto& [device, e] : expected) {
                const std::string id = "GPU_" + std::to_string(device) + "_cuda";
                const MemorySeries* s = m.find(id);
                QVERIFY2(s, (path + ": " + id).c_str());
                QVERIFY(s->onDevice);
                QCOMPARE(s->summary.allocations, e.allocations);
                QCOMPARE(s->summary.deallocations, e.frees);
                QCOMPARE(s->summary.peakBytesInUse, e.peak);
                QCOMPARE(s->summary.freeAtPeak, kNotRecorded); // CUPTI records no pool
                if (e.peak > largestPeak) {
                    largest = id;
                    largestPeak = e.peak;
                }
            }
            QCOMPARE(m.defaultShown()->memoryId, largest);
        }
        QCOMPARE(files, size_t(4));
    }
};

QTEST_MAIN(TestMemorySources)
#include "test_memory_sources.moc"
