// Several profiled processes of one machine (a program and the workers it started) in one XSpace,
// without a GPU: a host plane per process named by program and pid, the device plane shared,
// CUPTI's per-process correlation ids, streams and allocations kept apart, so each launch joins
// its own process's kernel; writeCaptureRun puts the processes of one machine in one file.
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>

#include "capture/CuptiConverter.h"
#include "capture/RecordFile.h"
#include "model/LogDir.h"
#include "model/ProfileLoader.h"
#include "model/analysis/MemoryProfile.h"
#include "xplane.pb.h"

using namespace stepscope;
using namespace stepscope::capture;

namespace {

KernelRecord kernel(const char* name, uint64_t start, uint64_t end, uint32_t stream,
                    uint32_t correlation) {
    KernelRecord k;
    k.startNs = start, k.endNs = end;
    k.streamId = stream, k.correlationId = correlation;
    k.name = name;
    return k;
}

ApiRecord launch(uint64_t start, uint32_t tid, uint32_t correlation,
                 const char* name = "cudaLaunchKernel") {
    return ApiRecord{start, start + 100, tid, correlation, ApiRecord::Domain::Runtime, 211, name};
}

// Rank 0 of two on one GPU: pid 100 on "gpu-box", wall 1,000,000,000 ns at CUPTI 1,000 ns.
//   thread 100 "rank0-main": NVTX "step 0" [1,500, 9,000); launches at 2,000 (corr 5) and
//   2,200 (corr 6).
//   device 0 "NVIDIA H200" (132 SMs); stream 7: a_first [3,000, 4,000) corr 5, a_second
//   [4,000, 5,000) corr 6.
//   1,024 B allocated at 0x10 at 1,600.
std::vector<Record> rank0() {
    return {
        ProcessRecord{100, "gpu-box", "/usr/bin/python3 train.py --rank 0", 1'000'000'000, 1'000},
        ThreadRecord{100, "rank0-main"},
        DeviceRecord{0, "NVIDIA H200", 132, 1'980'000, 141ull << 30, 4'800'000'000'000ull, 9, 0},
        NvtxRangeRecord{1'500, 9'000, 100, "step 0"},
        launch(2'000, 100, 5),
        launch(2'200, 100, 6),
        kernel("a_first", 3'000, 4'000, 7, 5),
        kernel("a_second", 4'000, 5'000, 7, 6),
        MemoryRecord{1'600, 0, 7, 0, 0x10, 1024, true}};
}

// Rank 1, with the same correlation ids, stream and address as rank 0 and a CUPTI clock of its
// own: pid 200, wall 1,000,002,000 ns at CUPTI 51,000 ns.
//   thread 200 (no name): NVTX "step 0" [51,500, 56,000); a launch at 52,000 (corr 5) and a
//   copy at 52,200 (corr 6).
//   stream 7: b_kernel [53,000, 53,500) corr 5; stream 9: a 256 B HtoD copy [54,000, 54,400)
//   corr 6.
//   2,048 B allocated at 0x10 at 51,600; CUPTI dropped 2 records.
std::vector<Record> rank1() {
    MemcpyRecord copy;
    copy.startNs = 54'000, copy.endNs = 54'400;
    copy.streamId = 9, copy.correlationId = 6;
    copy.bytes = 256;
    copy.kind = MemcpyKind::HtoD;
    return {ProcessRecord{200, "gpu-box", "python3 train.py --rank 1", 1'000'002'000, 51'000},
            NvtxRangeRecord{51'500, 56'000, 200, "step 0"},
            launch(52'000, 200, 5),
            launch(52'200, 200, 6, "cudaMemcpyAsync"),
            kernel("b_kernel", 53'000, 53'500, 7, 5),
            copy,
            MemoryRecord{51'600, 0, 7, 0, 0x10, 2048, true},
            DroppedRecord{0, 2}};
}

using XPlane = tensorflow::profiler::XPlane;
using XLine = tensorflow::profiler::XLine;

const XLine* lineNamed(const XPlane& plane, const std::string& name) {
    for (const XLine& l : plane.lines())
        if (l.name() == name) return &l;
    return nullptr;
}

// The plane's stat named `name`, as its text (a string) or number.
std::string planeStat(const XPlane& plane, const std::string& name) {
    for (const auto& s : plane.stats())
        if (plane.stat_metadata().at(s.metadata_id()).name() == name)
            return s.has_str_value() ? s.str_value() : std::to_string(s.int64_value());
    return "(none)";
}

uint64_t correlationOf(const XPlane& plane, const tensorflow::profiler::XEvent& e) {
    for (const auto& s : e.stats())
        if (plane.stat_metadata().at(s.metadata_id()).name() == "correlation_id")
            return s.uint64_value();
    return 0;
}

} // namespace

class TestCaptureProcesses : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    QString writeRecords(const std::vector<Record>& records, const QString& name) {
        const QString path = dir_.filePath(name);
        RecordFileWriter w(path.toStdString());
        for (const Record& r : records) w.add(r);
        return w.flush() ? path : QString();
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    // The XSpace of both ranks read back with protobuf's classes; every value worked out by hand
    // from rank0() and rank1().
    void processesShareTheDevicePlane() {
        const std::vector<uint8_t> bytes =
            convertProcessesToXSpace({{rank0(), "", {}}, {rank1(), "", {}}});
        tensorflow::profiler::XSpace space;
        QVERIFY(space.ParseFromArray(bytes.data(), int(bytes.size())));
        QCOMPARE(space.hostnames_size(), 1);
        QCOMPARE(space.hostnames(0), std::string("gpu-box"));
        QCOMPARE(space.errors_size(), 1);
        QVERIFY2(space.errors(0).starts_with("python3 (pid 200): CUPTI dropped 2 activity records"),
                 space.errors(0).c_str());

        QCOMPARE(space.planes_size(), 3);
        const XPlane& host0 = space.planes(0);
        const XPlane& host1 = space.planes(1);
        const XPlane& gpu = space.planes(2);
        QCOMPARE(host0.name(), std::string("/host:CPU python3 (pid 100)"));
        QCOMPARE(host1.name(), std::string("/host:CPU python3 (pid 200)"));
        QCOMPARE(gpu.name(), std::string("/device:GPU:0"));
        QCOMPARE(planeStat(host0, "pid"), std::string("100"));
        QCOMPARE(planeStat(host1, "process_name"), std::string("python3"));
        QCOMPARE(planeStat(gpu, "core_count"), std::string("132")); // from rank 0 alone

        // Each rank's thread on its own plane, at its own wall time.
        const XLine* main0 = lineNamed(host0, "rank0-main");
        const XLine* main1 = lineNamed(host1, "Thread 200");
        QVERIFY(main0 && main1);
        QCOMPARE(main0->timestamp_ns(), int64_t(1'000'000'000));
        QCOMPARE(main1->timestamp_ns(), int64_t(1'000'002'000));

        // Rank 0's and rank 1's stream 7 are two lines: pid * 2^32 + stream as ids.
        const XLine* a = lineNamed(gpu, "Stream #7(Kernel) pid 100");
        const XLine* b = lineNamed(gpu, "Stream #7(Kernel) pid 200");
        const XLine* copies = lineNamed(gpu, "Stream #9(MemcpyH2D) pid 200");
        QVERIFY(a && b && copies);
        QCOMPARE(a->id(), int64_t(429'496'729'607)); // 100 * 4,294,967,296 + 7
        QCOMPARE(b->id(), int64_t(858'993'459'207)); // 200 * 4,294,967,296 + 7
        QCOMPARE(a->events_size(), 2);
        QCOMPARE(b->events_size(), 1);
        // b_kernel at CUPTI 53,000 = 2,000 ns after rank 1's start, on rank 1's time base.
        QCOMPARE(b->timestamp_ns(), int64_t(1'000'002'000));
        QCOMPARE(b->events(0).offset_ps(), int64_t(2'000'000));
        QCOMPARE(correlationOf(gpu, a->events(0)), uint64_t(429'496'729'605)); // 100 * 2^32 + 5
        QCOMPARE(correlationOf(gpu, b->events(0)), uint64_t(858'993'459'205)); // 200 * 2^32 + 5
        QCOMPARE(correlationOf(gpu, copies->events(0)), uint64_t(858'993'459'206));

        // One "Steps" line, rank 0's: the ranks' "step 0" ranges repeat each other.
        const XLine* steps = lineNamed(gpu, "Steps");
        QVERIFY(steps);
        QCOMPARE(steps->events_size(), 1);
        QCOMPARE(steps->timestamp_ns(), int64_t(1'000'000'000));
        QCOMPARE(steps->events(0).offset_ps(), int64_t(500'000));
    }

    // Loaded by Stepscope: each launch joins its own process's kernel or copy (4 flows; with
    // CUPTI's ids unqualified, ids 5 and 6 would join each launch to two targets: 8), and each
    // process has its own allocator.
    void launchesJoinTheirOwnProcesssKernels() {
        const LoadResult r = loadXSpaceBytes(
            convertProcessesToXSpace({{rank0(), "", {}}, {rank1(), "", {}}}), "ranks");
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        std::set<std::pair<std::string, std::string>> joined;
        for (const Flow& f : p.flows()) {
            const std::string_view plane =
                p.str(p.planes()[p.tracks()[p.trackOf(f.launch)].plane].name);
            joined.insert(
                {std::string(plane.substr(plane.find("pid"))) + " " + std::string(p.name(f.launch)),
                 std::string(p.name(f.target))});
        }
        const std::set<std::pair<std::string, std::string>> expected = {
            {"pid 100) cudaLaunchKernel", "a_first"},
            {"pid 100) cudaLaunchKernel", "a_second"},
            {"pid 200) cudaLaunchKernel", "b_kernel"},
            {"pid 200) cudaMemcpyAsync", "MemcpyH2D"}};
        QCOMPARE(p.flows().size(), size_t(4));
        QCOMPARE(joined, expected);
        // a_first's launch (CUPTI 2,000) is 200 ns before a_second's (2,200): each its own.
        std::map<std::string, int64_t> launchedAt;
        for (const Flow& f : p.flows())
            launchedAt[std::string(p.name(f.target))] = p.start(f.launch);
        QCOMPARE(launchedAt.at("a_second") - launchedAt.at("a_first"), int64_t(200'000));

        const MemoryProfileInput memory = memoryProfileInput(p);
        std::map<std::string, int64_t> inUse;
        for (const MemorySeriesInput& s : memory.series) {
            QVERIFY(s.onDevice);
            QCOMPARE(s.records.size(), size_t(1));
            inUse[s.memoryId] = s.records.front().heapAllocatedBytes;
        }
        QCOMPARE(inUse, (std::map<std::string, int64_t>{{"GPU_0_cuda pid 100", 1024},
                                                        {"GPU_0_cuda pid 200", 2048}}));
    }

    // A run: the two ranks of "gpu-box" in one file, rank 0 first although given second;
    // another machine's process in a file of its own; a second file of pid 100 on "gpu-box"
    // (a reused pid, or the same file twice) alone, as "gpu-box_100".
    void aRunHasAFilePerMachine() {
        std::vector<Record> other = rank0();
        std::get<ProcessRecord>(other[0]).hostname = "node-2";
        const QString a = writeRecords(rank0(), "100.rec");
        const QString b = writeRecords(rank1(), "200.rec");
        const QString c = writeRecords(other, "node2.rec");
        const QString again = writeRecords(rank0(), "100-again.rec");
        QVERIFY(!a.isEmpty() && !b.isEmpty() && !c.isEmpty() && !again.isEmpty());
        const QString logDir = dir_.filePath("logs");
        const CaptureRunResult r = writeCaptureRun(
            {b.toStdString(), a.toStdString(), c.toStdString(), again.toStdString()},
            logDir.toStdString(), "ranks");
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY(r.warnings.empty());
        const Discovery d = discoverProfiles(logDir.toStdString());
        QVERIFY2(d.ok(), d.error.c_str());
        std::set<std::string> hosts;
        for (const auto& h : d.runs.front().hosts) hosts.insert(h.host);
        QCOMPARE(hosts, (std::set<std::string>{"gpu-box", "gpu-box_100", "node-2_100"}));

        const LoadResult merged =
            loadPath(logDir.toStdString() + "/plugins/profile/ranks/gpu-box.xplane.pb");
        QVERIFY2(merged.ok(), merged.error.c_str());
        std::vector<std::string> planes;
        for (const Plane& p : merged.profile->planes())
            planes.emplace_back(merged.profile->str(p.name));
        QCOMPARE(planes,
                 (std::vector<std::string>{"/host:CPU python3 (pid 100)",
                                           "/host:CPU python3 (pid 200)", "/device:GPU:0"}));
    }

    // One process keeps CUPTI's names and ids (the layout test_cupti_records checks).
    void oneProcessIsNotQualified() {
        const std::vector<uint8_t> bytes = convertProcessesToXSpace({{rank1(), "", {}}});
        QCOMPARE(bytes, convertToXSpace({rank1(), "", {}}));
        tensorflow::profiler::XSpace space;
        QVERIFY(space.ParseFromArray(bytes.data(), int(bytes.size())));
        QCOMPARE(space.planes(0).name(), std::string("/host:CPU"));
        const XLine* b = lineNamed(space.planes(1), "Stream #7(Kernel)");
        QVERIFY(b);
        QCOMPARE(b->id(), int64_t(7));
        QCOMPARE(correlationOf(space.planes(1), b->events(0)), uint64_t(5));
    }
};

QTEST_GUILESS_MAIN(TestCaptureProcesses)
#include "test_capture_processes.moc"
