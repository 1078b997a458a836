// The CUPTI capture's record file and converter, without a GPU: records written in zstd frames
// and read back exactly; every truncation and many corruptions keep the whole frames before them
// and never crash; foreign, empty and missing files are refused with a message; the converter's
// XSpace read back with protobuf's generated classes (planes, lines, names, stats, times, errors)
// and opened by Stepscope's loader; writeCaptureRun lays out a TensorBoard run.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <random>
#include <tuple>

#include "capture/ApiCallFilter.h"
#include "capture/CuptiConverter.h"
#include "capture/LiveRecordCounts.h"
#include "capture/RecordFile.h"
#include "model/LogDir.h"
#include "model/ProfileLoader.h"
#include "model/analysis/StepAnalysis.h"
#include "tests/fixtures/AddressSpaceLimit.h"
#include "tests/fixtures/ProtoXSpace.h"
#include "xplane.pb.h"

using namespace stepscope;
using namespace stepscope::capture;

namespace {

std::vector<uint8_t> encoded(const Record& r) {
    std::vector<uint8_t> out;
    encodeRecord(r, out);
    return out;
}

bool sameRecords(const std::vector<Record>& a, const std::vector<Record>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (encoded(a[i]) != encoded(b[i])) return false;
    return true;
}

std::vector<uint8_t> readBytes(const QString& path) {
    std::ifstream f(path.toStdString(), std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// A small training step as CUPTI would report it; times are CUPTI ns.
//   process 42 on "gpu-box": wall 1,000,000,000 ns at CUPTI 5,000 ns.
//   thread 7 "python3": NVTX "step 0" [5,500, 12,000); cudaLaunchKernel [6,000, 6,500) corr 11;
//     cudaMemcpyAsync [9,000, 9,200) corr 12.
//   device 0 "NVIDIA A100": 108 SMs, 1,410,000 kHz, 40 GiB, 1,555 GB/s, cc 8.0.
//   stream 7: gemm_kernel [7,000, 9,000) corr 11, grid 8,2,1, block 256,1,1, 32 regs,
//     4096 B dynamic shared, graph 5 node 6.
//   stream 8: HtoD copy [9,500, 10,000) corr 12, 112 bytes; memset [10,000, 10,100) 64 B.
//   memory: 4096 B at 0x1000 allocated at 5,600, freed at 11,000; 2048 B at 0x3000 at 5,700.
//   overhead [5,100, 5,200) "buffer flush"; 3 records dropped.
std::vector<Record> stepRecords() {
    std::vector<Record> r;
    r.push_back(ProcessRecord{42, "gpu-box", "python3 train.py", 1'000'000'000, 5'000});
    r.push_back(ThreadRecord{7, "python3"});
    r.push_back(
        DeviceRecord{0, "NVIDIA A100", 108, 1'410'000, 40ull << 30, 1'555'000'000'000ull, 8, 0});
    r.push_back(NvtxRangeRecord{5'500, 12'000, 7, "step 0"});
    r.push_back(
        ApiRecord{6'000, 6'500, 7, 11, ApiRecord::Domain::Runtime, 211, "cudaLaunchKernel"});
    KernelRecord k;
    k.startNs = 7'000;
    k.endNs = 9'000;
    k.streamId = 7;
    k.correlationId = 11;
    k.grid[0] = 8, k.grid[1] = 2;
    k.block[0] = 256;
    k.registersPerThread = 32;
    k.dynamicSharedBytes = 4096;
    k.graphId = 5;
    k.graphNodeId = 6;
    k.name = "gemm_kernel";
    r.push_back(k);
    r.push_back(ApiRecord{9'000, 9'200, 7, 12, ApiRecord::Domain::Runtime, 41, "cudaMemcpyAsync"});
    MemcpyRecord c;
    c.startNs = 9'500;
    c.endNs = 10'000;
    c.streamId = 8;
    c.correlationId = 12;
    c.bytes = 112;
    c.kind = MemcpyKind::HtoD;
    r.push_back(c);
    r.push_back(MemsetRecord{10'000, 10'100, 0, 0, 8, 13, 64, 0});
    r.push_back(MemoryRecord{5'600, 0, 7, 0, 0x1000, 4096, true});
    r.push_back(MemoryRecord{5'700, 0, 7, 0, 0x3000, 2048, true});
    r.push_back(MemoryRecord{11'000, 0, 7, 0, 0x1000, 0, false});
    r.push_back(OverheadRecord{5'100, 5'200, "buffer flush"});
    r.push_back(DroppedRecord{1, 3});
    return r;
}

} // namespace

class TestCuptiRecords : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    // Writes the records in frames of `perFrame` and returns the path and frame ends.
    QString writeFrames(const std::vector<Record>& records, size_t perFrame, const QString& name,
                        std::vector<size_t>* frameEnds = nullptr) {
        const QString path = dir_.filePath(name);
        RecordFileWriter w(path.toStdString());
        if (!w.ok()) return {};
        for (size_t i = 0; i < records.size(); ++i) {
            w.add(records[i]);
            if ((i + 1) % perFrame == 0 || i + 1 == records.size()) {
                w.flush();
                if (frameEnds) frameEnds->push_back(QFileInfo(path).size());
            }
        }
        return path;
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void recordsRoundTripExactly() {
        const std::vector<Record> records = stepRecords();
        const QString path = writeFrames(records, 5, "round.rec");
        QVERIFY(!path.isEmpty());
        const RecordFileContents c = readRecordFile(path.toStdString());
        QVERIFY2(c.ok(), c.error.c_str());
        QCOMPARE(c.frames, size_t(3)); // 14 records in frames of 5
        QVERIFY2(c.problem.empty(), c.problem.c_str());
        QCOMPARE(c.bytesIgnored, uint64_t(0));
        QVERIFY(sameRecords(c.records, records));
        const auto& k = std::get<KernelRecord>(c.records[5]);
        QCOMPARE(k.name, std::string("gemm_kernel"));
        QCOMPARE(k.grid[1], 2u);
        QCOMPARE(k.graphNodeId, uint64_t(6));
        QCOMPARE(std::get<ProcessRecord>(c.records[0]).wallStartNs, int64_t(1'000'000'000));
    }

    // Cut anywhere: exactly the frames wholly before the cut come back, and the tail is named.
    void everyTruncationKeepsTheWholeFrames() {
        const std::vector<Record> records = stepRecords();
        std::vector<size_t> ends;
        const QString path = writeFrames(records, 4, "cut.rec", &ends);
        const std::vector<uint8_t> bytes = readBytes(path);
        QCOMPARE(ends.back(), bytes.size());
        for (size_t cut = 8; cut <= bytes.size(); ++cut) {
            const RecordFileContents c = readRecordBytes(bytes.data(), cut, "cut.rec");
            QVERIFY(c.ok());
            const size_t whole = size_t(
                std::count_if(ends.begin(), ends.end(), [cut](size_t e) { return e <= cut; }));
            QCOMPARE(c.frames, whole);
            QCOMPARE(c.records.size(), std::min(records.size(), whole * 4));
            const bool atBoundary = cut == 8 || std::count(ends.begin(), ends.end(), cut) == 1;
            QCOMPARE(c.problem.empty(), atBoundary);
            QCOMPARE(c.bytesIgnored, uint64_t(cut - (whole ? ends[whole - 1] : 8)));
        }
    }

    void corruptionNeverCrashesAndKeepsWhatCameBefore() {
        const std::vector<Record> records = stepRecords();
        std::vector<size_t> ends;
        const QString path = writeFrames(records, 7, "corrupt.rec", &ends);
        const std::vector<uint8_t> clean = readBytes(path);
        std::mt19937 rng(12345);
        for (int i = 0; i < 3000; ++i) {
            std::vector<uint8_t> bytes = clean;
            const size_t at = 8 + rng() % (bytes.size() - 8);
            bytes[at] ^= uint8_t(1 + rng() % 255);
            const RecordFileContents c = readRecordBytes(bytes.data(), bytes.size(), "x");
            QVERIFY(c.ok());
            // Frames wholly before the damaged byte are kept. Every frame that is kept holds
            // exactly what was written: a damaged frame fails its checksum (a flip in a bit zstd
            // ignores, such as the header's unused bit, leaves the content intact).
            const size_t before =
                size_t(std::count_if(ends.begin(), ends.end(), [at](size_t e) { return e <= at; }));
            QVERIFY(c.frames >= before);
            QCOMPARE(c.problem.empty(), c.frames == ends.size());
            QCOMPARE(c.records.size(), std::min(records.size(), c.frames * 7));
            QVERIFY(sameRecords(
                c.records,
                std::vector<Record>(records.begin(), records.begin() + long(c.records.size()))));
        }
    }

    // A frame header whose content size was damaged to claim 2 GiB (0x7FFFFFF0 bytes; the
    // size is outside the checksum) is refused before anything that large is allocated: the
    // reader runs in a child whose address space is capped at 256 MiB above what the test maps.
    void corruptFrameSizeAllocatesNothingLarge() {
        // 1,000 kernels of ~100 bytes: one frame of ~100 KB, whose header holds a 4-byte size.
        std::vector<Record> records = {ProcessRecord{42, "gpu-box", "train", 1, 100}};
        for (uint32_t i = 0; i < 1000; ++i) {
            KernelRecord k;
            k.startNs = 200 + i, k.endNs = 300 + i, k.streamId = 7;
            k.name = "void gemm_kernel<float, 128, 128>(float const*, float*, int) #" +
                     std::to_string(i);
            records.push_back(k);
        }
        const QString path = writeFrames(records, records.size(), "bigframe.rec");
        std::vector<uint8_t> bytes = readBytes(path);
        // Zstd frame header (RFC 8878 3.1.1.1): magic, descriptor, [window], [dict id], size.
        const uint8_t descriptor = bytes[8 + 4];
        const bool singleSegment = descriptor & 0x20;
        const size_t dictBytes[] = {0, 1, 2, 4};
        const size_t sizeBytes[] = {singleSegment ? 1u : 0u, 2, 4, 8};
        QCOMPARE(sizeBytes[descriptor >> 6], size_t(4));
        const size_t sizeAt = 8 + 5 + (singleSegment ? 0 : 1) + dictBytes[descriptor & 3];
        const uint32_t claimed = 0x7FFFFFF0;
        for (size_t i = 0; i < 4; ++i) bytes[sizeAt + i] = uint8_t(claimed >> (8 * i));
        const int code = testing::exitCodeWithAddressSpaceLimit(size_t(256) << 20, [&] {
            const RecordFileContents c = readRecordBytes(bytes.data(), bytes.size(), "x");
            return c.ok() && c.frames == 0 &&
                           c.problem == "frame 1 at byte 8 is truncated or corrupt"
                       ? 0
                       : 1;
        });
        QCOMPARE(code, 0); // 2: it allocated what the header claimed
    }

    void foreignEmptyAndMissingFilesAreRefused() {
        const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0};
        RecordFileContents c = readRecordBytes(png, sizeof png, "image.png");
        QCOMPARE(c.error, std::string("image.png is not a Stepscope CUPTI record file"));
        c = readRecordBytes(png, 0, "empty.rec");
        QVERIFY(QString::fromStdString(c.error).contains("shorter than its 8-byte header"));
        c = readRecordFile(dir_.filePath("missing.rec").toStdString());
        QVERIFY(QString::fromStdString(c.error).startsWith("cannot open"));
        // The header alone is a file with no frames yet: fine, and empty.
        c = readRecordBytes(reinterpret_cast<const uint8_t*>(kRecordFileMagic), 8, "new.rec");
        QVERIFY(c.ok());
        QCOMPARE(c.frames, size_t(0));
        QVERIFY(c.problem.empty());
    }

    // The XSpace read back with protobuf's generated classes, every value worked out from
    // stepRecords() by hand. Times: the earliest record is CUPTI 5,000 ns (the process start),
    // so lines start at wall 1,000,000,000 ns and an event at CUPTI t sits at (t - 5,000) ns.
    void converterWritesTensorFlowsLayout() {
        ConversionInput input{stepRecords(), "", {}};
        const std::vector<uint8_t> bytes = convertToXSpace(input);
        tensorflow::profiler::XSpace space;
        QVERIFY(space.ParseFromArray(bytes.data(), int(bytes.size())));
        QCOMPARE(space.hostnames_size(), 1);
        QCOMPARE(space.hostnames(0), std::string("gpu-box"));
        QCOMPARE(space.errors_size(), 1);
        QVERIFY(QString::fromStdString(space.errors(0)).startsWith("CUPTI dropped 3 activity"));
        QCOMPARE(space.planes_size(), 2);
        const auto& host = space.planes(0);
        const auto& gpu = space.planes(1);
        QCOMPARE(host.name(), std::string("/host:CPU"));
        QCOMPARE(gpu.name(), std::string("/device:GPU:0"));

        std::map<std::string, const tensorflow::profiler::XLine*> lines;
        for (const auto& p : {&host, &gpu})
            for (const auto& l : p->lines()) lines[l.name()] = &l;
        QCOMPARE(lines.size(), size_t(6));
        QVERIFY(lines.count("Steps"));
        QCOMPARE(lines["Steps"]->id(), int64_t(0xdeadbeef));
        QVERIFY(lines.count("python3") && lines.count("CUDA memory") &&
                lines.count("CUPTI overhead"));
        QVERIFY(lines.count("Stream #7(Kernel)"));
        QVERIFY(lines.count("Stream #8(MemcpyH2D,Memset)"));
        QCOMPARE(lines["python3"]->id(), int64_t(7));
        QCOMPARE(lines["Stream #7(Kernel)"]->id(), int64_t(7));
        for (const auto& [name, l] : lines) QCOMPARE(l->timestamp_ns(), int64_t(1'000'000'000));

        // Device properties as plane stats.
        std::map<std::string, const tensorflow::profiler::XStat*> planeStats;
        for (const auto& s : gpu.stats())
            planeStats[gpu.stat_metadata().at(s.metadata_id()).name()] = &s;
        QCOMPARE(planeStats.at("core_count")->int64_value(), int64_t(108));
        QCOMPARE(planeStats.at("clock_rate")->int64_value(), int64_t(1'410'000));
        QCOMPARE(planeStats.at("memory_size")->uint64_value(), uint64_t(40ull << 30));
        QCOMPARE(planeStats.at("memory_bandwidth")->uint64_value(), uint64_t(1'555'000'000'000ull));
        QCOMPARE(planeStats.at("compute_cap_major")->int64_value(), int64_t(8));
        QCOMPARE(planeStats.at("compute_cap_minor")->int64_value(), int64_t(0));
        QCOMPARE(planeStats.at("device_vendor")->str_value(), std::string("Nvidia"));

        // Events through the independent reader.
        const QString path = dir_.filePath("step.xplane.pb");
        {
            std::ofstream f(path.toStdString(), std::ios::binary);
            f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        }
        const std::vector<fixtures::ProtoEvent> events =
            fixtures::readProtoEvents(path.toStdString());
        // NVTX 1, API 2, kernel 1, memcpy 1, memset 1, memory 3, overhead 1, and the NVTX
        // "step 0" again on the GPU's Steps line.
        QCOMPARE(events.size(), size_t(11));
        const auto find = [&](const std::string& name) -> const fixtures::ProtoEvent& {
            const auto it = std::find_if(events.begin(), events.end(),
                                         [&](const auto& e) { return e.name == name; });
            return *it;
        };
        const int64_t base = 1'000'000'000'000; // ps
        const auto& kernel = find("gemm_kernel");
        QCOMPARE(kernel.line, std::string("Stream #7(Kernel)"));
        QCOMPARE(kernel.startPs, base + 2'000'000);
        QCOMPARE(kernel.durationPs, int64_t(2'000'000));
        QCOMPARE(kernel.ints.at("correlation_id"), int64_t(11));
        QCOMPARE(kernel.text.at("kernel_details"),
                 std::string("regs:32 static_shared:0 dynamic_shared:4096 grid:8,2,1 "
                             "block:256,1,1"));
        QCOMPARE(kernel.ints.at("cuda_graph_id"), int64_t(5));
        QCOMPARE(kernel.ints.at("cuda_graph_node_id"), int64_t(6));
        const auto& launch = find("cudaLaunchKernel");
        QCOMPARE(launch.line, std::string("python3"));
        QCOMPARE(launch.startPs, base + 1'000'000);
        QCOMPARE(launch.durationPs, int64_t(500'000));
        QCOMPARE(launch.ints.at("correlation_id"), int64_t(11));
        const auto& copy = find("MemcpyH2D");
        QCOMPARE(copy.text.at("memcpy_details"), std::string("kind:HtoD size:112 dest:0 async:1"));
        QCOMPARE(copy.ints.at("correlation_id"), int64_t(12));
        QCOMPARE(find("Memset").text.at("memset_details"), std::string("size:64 value:0"));
        for (const auto& step : events) {
            if (step.name != "step 0") continue;
            QCOMPARE(step.startPs, base + 500'000);
            QCOMPARE(step.durationPs, int64_t(6'500'000));
            if (step.line == "Steps")
                QCOMPARE(step.ints.at("step_num"), int64_t(0));
            else
                QCOMPARE(step.line, std::string("python3"));
        }
        QCOMPARE(find("CUPTI overhead: buffer flush").line, std::string("CUPTI overhead"));

        // Memory: in use after each event 4096, 6144, 2048; peak 6144 from the second on.
        std::vector<const fixtures::ProtoEvent*> mem;
        for (const auto& e : events)
            if (e.line == "CUDA memory") mem.push_back(&e);
        QCOMPARE(mem.size(), size_t(3));
        std::sort(mem.begin(), mem.end(), [](auto* a, auto* b) { return a->startPs < b->startPs; });
        QCOMPARE(mem[0]->name, std::string("MemoryAllocation"));
        QCOMPARE(mem[2]->name, std::string("MemoryDeallocation"));
        QCOMPARE(mem[0]->ints.at("bytes_allocated"), int64_t(4096));
        QCOMPARE(mem[1]->ints.at("bytes_allocated"), int64_t(6144));
        QCOMPARE(mem[2]->ints.at("bytes_allocated"), int64_t(2048));
        QCOMPARE(mem[2]->ints.at("allocation_bytes"), int64_t(4096)); // from the allocation
        QCOMPARE(mem[2]->ints.at("peak_bytes_in_use"), int64_t(6144));
        QCOMPARE(mem[0]->text.at("allocator_name"), std::string("GPU_0_cuda"));
        QCOMPARE(mem[0]->ints.at("addr"), int64_t(0x1000));

        // Stepscope's own loader opens it, with the flow from launch to kernel.
        const LoadResult loaded = loadPath(path.toStdString());
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        QCOMPARE(loaded.profile->eventCount(), size_t(11));
    }

    void stepNamesAsTheConverterReadsThem() {
        const std::pair<const char*, int64_t> cases[] = {
            {"step 0", 0},           {"Step#12", 12}, {"train_step_3", 3}, {"ProfilerStep#7", 7},
            {"STEP:4", 4},           {"step", -1},    {"stepper 1", -1},   {"forward", -1},
            {"step 3 backward", -1}, {"", -1}};
        for (const auto& [name, number] : cases) {
            std::vector<Record> r = stepRecords();
            std::get<NvtxRangeRecord>(r[3]).name = name;
            const std::vector<uint8_t> bytes = convertToXSpace({r, "", {}});
            tensorflow::profiler::XSpace space;
            QVERIFY(space.ParseFromArray(bytes.data(), int(bytes.size())));
            const auto& gpu = space.planes(1);
            const auto steps = std::find_if(gpu.lines().begin(), gpu.lines().end(),
                                            [](const auto& l) { return l.name() == "Steps"; });
            QVERIFY2((steps != gpu.lines().end()) == (number >= 0), name);
            if (number >= 0) QCOMPARE(steps->events(0).stats(0).int64_value(), number);
        }
    }

    // The "step 0" range of stepRecords() reaches the step analysis through the device's Steps
    // line (no group ids): one step [5,500, 12,000) ns, i.e. 400,000 ps after the profile's
    // earliest event (the CUPTI overhead at 5,100) and 6,500,000 ps long. Inside it:
    // cudaLaunchKernel [6,000, 6,500) and cudaMemcpyAsync [9,000, 9,200), both with a correlation
    // id (kernel launch: 700 ns); gemm_kernel [7,000, 9,000) and the memset [10,000, 10,100)
    // (32-bit compute: 2,100 ns); the HtoD copy [9,500, 10,000) (input: 500 ns); no event covers
    // the other 3,200 ns.
    void nvtxStepsReachTheStepAnalysis() {
        const LoadResult r = loadXSpaceBytes(convertToXSpace({stepRecords(), "", {}}), "capture");
        QVERIFY2(r.ok(), r.error.c_str());
        const StepAnalysis a = analyzeSteps(*r.profile);
        QCOMPARE(a.source, StepSource::StepLines);
        QCOMPARE(a.steps.size(), size_t(1));
        const StepRecord& s = a.steps[0];
        QCOMPARE(s.number, int64_t(0));
        QCOMPARE(s.name, std::string("step 0"));
        QCOMPARE(s.beginPs, int64_t(400'000));
        QCOMPARE(s.durationPs, int64_t(6'500'000));
        QCOMPARE(s.ps(StepCategory::KernelLaunch), int64_t(700'000));
        QCOMPARE(s.ps(StepCategory::DeviceCompute32), int64_t(2'100'000));
        QCOMPARE(s.ps(StepCategory::Input), int64_t(500'000));
        QCOMPARE(s.hostToDevicePs, int64_t(500'000));
        QCOMPARE(s.ps(StepCategory::AllOthers), int64_t(3'200'000));
    }

    // What a running capture has recorded, read as its files grow: a frame still being written
    // is not counted until it is whole. stepRecords() in frames of 5: [process, thread, device,
    // NVTX range, API call], [kernel, API call, copy, memset, allocation], [allocation, free,
    // overhead, dropped].
    void liveCountsReadWholeFramesAsFilesGrow() {
        std::vector<size_t> ends;
        const QString whole = writeFrames(stepRecords(), 5, "live-whole.rec", &ends);
        QCOMPARE(ends.size(), size_t(3));
        const std::vector<uint8_t> bytes = readBytes(whole);
        QDir().mkpath(dir_.filePath("live"));
        const std::string growing = dir_.filePath("live/42.rec").toStdString();
        const auto writePrefix = [&](size_t n) {
            std::ofstream f(growing, std::ios::binary | std::ios::trunc);
            f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(n));
        };
        LiveRecordCounts live(dir_.filePath("live").toStdString());
        writePrefix(5); // not even the magic
        QCOMPARE(recordCountsText(live.update()), std::string("no records yet"));
        writePrefix(ends[0] + 7); // the second frame begun
        QCOMPARE(recordCountsText(live.update()), std::string("1 API call, 1 NVTX range"));
        writePrefix(bytes.size());
        const RecordCounts& c = live.update();
        QCOMPARE(recordCountsText(c), std::string("1 kernel, 2 copies, 2 API calls, 1 NVTX range, "
                                                  "3 allocations and frees"));
        QCOMPARE(c.total(), uint64_t(9));
        std::filesystem::copy_file(whole.toStdString(), dir_.filePath("live/43.rec").toStdString());
        QCOMPARE(recordCountsText(live.update()),
                 std::string("2 kernels, 4 copies, 4 API calls, 2 NVTX ranges, "
                             "6 allocations and frees in 2 processes"));
    }

    // The API calls recorded by default, for every call name in the H200 gemmsteps capture
    // (../shared/realdata/h200/cupti/gemmsteps_50.rec), decided by hand from the rule: runtime
    // calls but queries, driver calls that launch, copy, set, allocate, load or synchronise.
    void defaultApiCallsByName() {
        using D = ApiRecord::Domain;
        const std::tuple<D, const char*, bool> cases[] = {
            {D::Driver, "cuCtxGetCurrent", false},
            {D::Driver, "cuCtxGetLimit", false},
            {D::Driver, "cuDeviceGet", false},
            {D::Driver, "cuDeviceGetAttribute", false},
            {D::Driver, "cuDeviceTotalMem_v2", false},
            {D::Driver, "cuDriverGetVersion", false},
            {D::Driver, "cuFuncGetAttribute", false},
            {D::Driver, "cuGetProcAddress_v2", false},
            {D::Driver, "cuInit", false},
            {D::Driver, "cuKernelGetFunction", false},
            {D::Driver, "cuKernelSetAttribute", false},
            {D::Driver, "cuLibraryGetKernel", false},
            {D::Driver, "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", false},
            {D::Driver, "cuStreamGetCaptureInfo_v2", false},
            {D::Driver, "cuLaunchKernel", true},
            {D::Driver, "cuLaunchKernelEx", true},
            {D::Driver, "cuLaunchKernel_ptsz", true},
            {D::Driver, "cuLibraryLoadData", true},
            {D::Driver, "cuMemcpyDtoHAsync_v2", true},
            {D::Driver, "cuMemsetD32Async", true},
            {D::Driver, "cuMemHostAlloc", true},
            {D::Driver, "cuMemFreeHost", true},
            {D::Driver, "cuStreamSynchronize", true},
            {D::Driver, "cuEventRecord", true},
            {D::Driver, "cuStreamWaitEvent", true},
            {D::Driver, "cuGraphLaunch", true},
            {D::Runtime, "cudaGetDevice_v3020", false},
            {D::Runtime, "cudaDeviceGetAttribute_v5000", false},
            {D::Runtime, "cudaGetDriverEntryPointByVersion_v12050", false},
            {D::Runtime, "cudaGetSymbolAddress_v3020", false},
            {D::Runtime, "cudaOccupancyMaxActiveClusters_v11070", false},
            {D::Runtime, "cudaGetLastError_v3020", false},
            {D::Runtime, "cudaPeekAtLastError_v3020", false},
            {D::Runtime, "cudaStreamIsCapturing_v10000", false},
            {D::Runtime, "cudaLaunchKernel_v7000", true},
            {D::Runtime, "cudaLaunchKernel_ptsz_v7000", true},
            {D::Runtime, "cudaMemcpy_v3020", true},
            {D::Runtime, "cudaMemsetAsync_v3020", true},
            {D::Runtime, "cudaEventRecord_v3020", true},
            {D::Runtime, "cudaEventQuery_v3020", true},
            {D::Runtime, "cudaFuncSetAttribute_v9000", true},
            {D::Runtime, "cudaGraphInstantiate_v12000", true},
            {D::Runtime, "cudaStreamBeginCapture_v10000", true},
            {D::Runtime, "cudaDeviceSynchronize_v3020", true},
            {D::Runtime, "cudaMalloc_v3020", true},
        };
        for (const auto& [domain, name, recorded] : cases)
            QVERIFY2(recordedByDefault(domain, name) == recorded, name);
    }

    // CUPTI's "unknown" time is 0 (records cut short by a forced flush). Times here are
    // epoch-like (T = 1.7e18 ns), where one 0 taken as the earliest time would make every other
    // time overflow int64 once in ps. Left out and counted (5): a kernel at [0, 0), a kernel that
    // never ended [T+3,000, 0), an API call starting at 0, a free at 0, and a kernel 100 days
    // away. Kept: the kernel [T+2,000, T+5,000) on stream 7, i.e. 2,000,000 ps after the line
    // start (the process start T, at wall 1,000,000,000 ns), 3,000,000 ps long.
    void unknownTimesAreLeftOutAndCounted() {
        constexpr uint64_t T = 1'700'000'000'000'000'000ull;
        const auto kernel = [](uint64_t start, uint64_t end, uint32_t stream, const char* name) {
            KernelRecord k;
            k.startNs = start;
            k.endNs = end;
            k.streamId = stream;
            k.name = name;
            return k;
        };
        std::vector<Record> r;
        r.push_back(ProcessRecord{42, "gpu-box", "python3 train.py", 1'000'000'000, T});
        r.push_back(DeviceRecord{0, "NVIDIA A100", 108, 1'410'000, 40ull << 30, 1, 8, 0});
        r.push_back(kernel(0, 0, 9, "lost"));
        r.push_back(kernel(T + 2'000, T + 5'000, 7, "good"));
        r.push_back(kernel(T + 3'000, 0, 9, "unfinished"));
        r.push_back(
            kernel(T + 100ull * 86'400'000'000'000, T + 100ull * 86'400'000'000'000 + 1, 9, "far"));
        r.push_back(ApiRecord{0, T + 1'000, 7, 11, ApiRecord::Domain::Runtime, 211, "cudaFree"});
        r.push_back(MemoryRecord{0, 0, 7, 0, 0x1000, 0, false});
        const std::vector<uint8_t> bytes = convertToXSpace({r, "", {}});
        tensorflow::profiler::XSpace space;
        QVERIFY(space.ParseFromArray(bytes.data(), int(bytes.size())));
        QCOMPARE(space.errors_size(), 1);
        QVERIFY2(
            QString::fromStdString(space.errors(0)).startsWith("5 activity records were left out"),
            space.errors(0).c_str());
        QCOMPARE(space.planes_size(), 2);
        const auto& host = space.planes(0);
        QCOMPARE(host.lines_size(), 0); // the API call and the free were left out
        const auto& gpu = space.planes(1);
        QCOMPARE(gpu.lines_size(), 1);
        const auto& line = gpu.lines(0);
        QCOMPARE(line.name(), std::string("Stream #7(Kernel)"));
        QCOMPARE(line.timestamp_ns(), int64_t(1'000'000'000));
        QCOMPARE(line.events_size(), 1);
        QCOMPARE(gpu.event_metadata().at(line.events(0).metadata_id()).name(), std::string("good"));
        QCOMPARE(line.events(0).offset_ps(), int64_t(2'000'000));
        QCOMPARE(line.events(0).duration_ps(), int64_t(3'000'000));
    }

    void truncationIsReportedInTheProfile() {
        ConversionInput input{stepRecords(), "frame 3 at byte 900 is truncated or corrupt", {}};
        const std::vector<uint8_t> bytes = convertToXSpace(input);
        tensorflow::profiler::XSpace space;
        QVERIFY(space.ParseFromArray(bytes.data(), int(bytes.size())));
        QCOMPARE(space.errors_size(), 2);
        QVERIFY(QString::fromStdString(space.errors(1)).contains("the program probably crashed"));
    }

    // Two processes of one machine (a launcher and its worker): one host file in one run, a
    // host plane each (tests/test_capture_processes.cpp checks the layout); a truncated file is
    // kept up to its last frame and named in a warning; a foreign file is skipped.
    void writesOneRunWithAHostPlanePerProcess() {
        std::vector<Record> worker = stepRecords();
        std::get<ProcessRecord>(worker[0]).pid = 43;
        const QString a = writeFrames(stepRecords(), 100, "p42.rec");
        const QString b = writeFrames(worker, 5, "p43.rec");
        std::vector<uint8_t> cut = readBytes(b);
        cut.resize(cut.size() - 10);
        {
            std::ofstream f(b.toStdString(), std::ios::binary | std::ios::trunc);
            f.write(reinterpret_cast<const char*>(cut.data()), std::streamsize(cut.size()));
        }
        const QString foreign = dir_.filePath("foreign.rec");
        { std::ofstream(foreign.toStdString()) << "hello"; }
        const QString logDir = dir_.filePath("logs");
        const CaptureRunResult r =
            writeCaptureRun({a.toStdString(), b.toStdString(), foreign.toStdString()},
                            logDir.toStdString(), "2026_01_02_03_04_05");
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.files.size(), size_t(1));
        QCOMPARE(r.warnings.size(), size_t(2));
        const Discovery d = discoverProfiles(logDir.toStdString());
        QVERIFY(d.ok());
        QCOMPARE(d.runs.front().name, std::string("2026_01_02_03_04_05"));
        QCOMPARE(d.runs.front().hosts.size(), size_t(1));
        QCOMPARE(d.runs.front().hosts[0].host, std::string("gpu-box"));
        tensorflow::profiler::XSpace space;
        std::ifstream in(r.files[0], std::ios::binary);
        QVERIFY(space.ParseFromIstream(&in));
        QCOMPARE(space.planes(0).name(), std::string("/host:CPU python3 (pid 42)"));
        QCOMPARE(space.planes(1).name(), std::string("/host:CPU python3 (pid 43)"));

        const CaptureRunResult none =
            writeCaptureRun({foreign.toStdString()}, logDir.toStdString(), "empty_run");
        QVERIFY(!none.ok());
        QVERIFY(!QFileInfo::exists(logDir + "/plugins/profile/empty_run"));
    }
};

QTEST_GUILESS_MAIN(TestCuptiRecords)
#include "test_cupti_records.moc"
