// Records whose times or sizes no capture writes (capture/RecordLimits.h): a hand-made or foreign
// record file reaches the converter's arithmetic on times (ps from the earliest record, the
// process's wall clock) and on memory in use, where they overflowed int64 (found by fuzzing, see
// ../shared/fuzz-findings). The reader leaves each such record out and names it (frame, byte,
// index, kind, field); the converter says so in the profile, and what remains converts with
// hand-worked times and sizes. Each reproduction is embedded here; the fuzzer's own inputs are
// read from ../shared/fuzz-findings where present (and replayed from tests/fuzz/corpus by
// fuzz_replay_record_file, which runs under UBSan in the sanitizer build).
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <limits>

#include "capture/CuptiConverter.h"
#include "capture/RecordFile.h"
#include "capture/RecordLimits.h"
#include "model/ProfileLoader.h"
#include "xplane.pb.h"

using namespace stepscope;
using namespace stepscope::capture;

namespace {

constexpr uint64_t T = 1'700'000'000'000'000'000ull; // a CUPTI time as on a real machine (ns)

KernelRecord kernel(uint64_t start, uint64_t end) {
    KernelRecord k;
    k.startNs = start;
    k.endNs = end;
    k.streamId = 7;
    k.name = "kernel";
    return k;
}

// The bytes of a record file holding `frames`, one zstd frame each.
std::vector<uint8_t> recordFile(const QString& path, const std::vector<std::vector<Record>>& frames,
                                std::vector<uint64_t>* frameStarts = nullptr) {
    {
        RecordFileWriter w(path.toStdString());
        for (const auto& frame : frames) {
            if (frameStarts) frameStarts->push_back(QFileInfo(path).size());
            for (const Record& r : frame) w.add(r);
            w.flush();
        }
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QByteArray bytes = f.readAll();
    return {bytes.begin(), bytes.end()};
}

tensorflow::profiler::XSpace converted(const ConversionInput& input) {
    const std::vector<uint8_t> bytes = convertToXSpace(input);
    tensorflow::profiler::XSpace space;
    space.ParseFromArray(bytes.data(), int(bytes.size()));
    return space;
}

// The events of the line named `name` on `plane`, or nullptr.
const tensorflow::profiler::XLine* lineNamed(const tensorflow::profiler::XPlane& plane,
                                             const std::string& name) {
    for (const auto& l : plane.lines())
        if (l.name() == name) return &l;
    return nullptr;
}

int64_t statOf(const tensorflow::profiler::XPlane& plane, const tensorflow::profiler::XEvent& e,
               const std::string& name) {
    for (const auto& s : e.stats())
        if (plane.stat_metadata().at(s.metadata_id()).name() == name) return s.int64_value();
    return -1;
}

} // namespace

class TestRecordLimits : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    // Each limit holds its own value and refuses the next one.
    void limitsAtTheirBoundaries() {
        constexpr uint64_t kTime = uint64_t(1) << 62, kBytes = uint64_t(1) << 48;
        QCOMPARE(recordOutOfRange(ProcessRecord{1, "h", "c", int64_t(kTime), kTime}),
                 std::string());
        QCOMPARE(recordOutOfRange(ProcessRecord{1, "h", "c", -1, 5}),
                 std::string("wallStartNs -1 is negative"));
        QCOMPARE(recordOutOfRange(ProcessRecord{1, "h", "c", 0, kTime + 1}),
                 std::string("cuptiStartNs 4611686018427387905 is above the limit of 2^62 ns"));
        QCOMPARE(recordOutOfRange(kernel(kTime, kTime)), std::string());
        QCOMPARE(recordOutOfRange(kernel(kTime, kTime + 1)),
                 std::string("endNs 4611686018427387905 is above the limit of 2^62 ns"));
        QCOMPARE(recordOutOfRange(kernel(kTime + 1, 0)),
                 std::string("startNs 4611686018427387905 is above the limit of 2^62 ns"));
        QCOMPARE(recordOutOfRange(MemcpyRecord{1, 2, 0, 0, 0, 0, kBytes}), std::string());
        QCOMPARE(recordOutOfRange(MemcpyRecord{1, 2, 0, 0, 0, 0, kBytes + 1}),
                 std::string("bytes 281474976710657 is above the limit of 2^48"));
        QCOMPARE(recordOutOfRange(MemsetRecord{1, 2, 0, 0, 0, 0, kBytes + 1}),
                 std::string("bytes 281474976710657 is above the limit of 2^48"));
        QCOMPARE(recordOutOfRange(MemoryRecord{kTime + 1, 0, 0, 0, 0, 1, true}),
                 std::string("timestampNs 4611686018427387905 is above the limit of 2^62 ns"));
        QCOMPARE(recordOutOfRange(DroppedRecord{0, kBytes + 1}),
                 std::string("count 281474976710657 is above the limit of 2^48"));
        QCOMPARE(recordOutOfRange(DeviceRecord{0, "gpu", 1, 1, kBytes + 1}),
                 std::string("memoryBytes 281474976710657 is above the limit of 2^48"));
        QCOMPARE(recordOutOfRange(ThreadRecord{1, "t"}), std::string());
        QCOMPARE(recordKindName(MemoryRecord{}), std::string("memory record"));
        QCOMPARE(recordKindName(DroppedRecord{}), std::string("dropped-records record"));
    }

    // Two frames: frame 1 holds the process, an allocation of 4,096 B at 0x1000, an allocation of
    // 2^63 - 1 B and a kernel that ends at 2^64 - 1; frame 2 a second process record, a free of
    // 2^63 B and the free of 0x1000. Kept: the process and the 4,096 B allocation and its free;
    // each other record is named; the memory line reads 4,096 then 0 bytes in use.
    void outOfRangeRecordsAreLeftOutAndNamed() {
        std::vector<uint64_t> starts;
        const QString path = dir_.filePath("named.rec");
        const std::vector<uint8_t> bytes =
            recordFile(path,
                       {{ProcessRecord{42, "gpu-box", "train", 1'000'000'000, 5'000},
                         MemoryRecord{6'000, 0, 7, 0, 0x1000, 4096, true},
                         MemoryRecord{6'100, 0, 7, 0, 0x2000, uint64_t(INT64_MAX), true},
                         kernel(7'000, UINT64_MAX)},
                        {ProcessRecord{43, "gpu-box", "train", 1'000'000'000, 5'000},
                         MemoryRecord{8'000, 0, 7, 0, 0x1000, uint64_t(1) << 63, false},
                         MemoryRecord{9'000, 0, 7, 0, 0x1000, 0, false}}},
                       &starts);
        QCOMPARE(starts.front(), uint64_t(8));
        const RecordFileContents c = readRecordBytes(bytes.data(), bytes.size(), "named.rec");
        QVERIFY(c.ok());
        QCOMPARE(c.problem, std::string());
        QCOMPARE(c.records.size(), size_t(3));
        QCOMPARE(c.rejectedCount, uint64_t(4));
        const std::string second = "frame 2 at byte " + std::to_string(starts[1]);
        const std::vector<std::string> rejected = {
            "frame 1 at byte 8, record 3 (memory record): bytes 9223372036854775807 is above the "
            "limit of 2^48",
            "frame 1 at byte 8, record 4 (kernel record): endNs 18446744073709551615 is above the "
            "limit of 2^62 ns",
            second + ", record 1 (process record): a second process record (a record file holds "
                     "one process)",
            second + ", record 2 (memory record): bytes 9223372036854775808 is above the limit of "
                     "2^48"};
        QCOMPARE(c.rejected, rejected);

        const auto space = converted({c.records, c.problem, c.rejected});
        QCOMPARE(space.errors_size(), 1);
        QCOMPARE(space.errors(0),
                 "records were left out as no capture writes them (a time or size out of range, "
                 "or a second process record): " +
                     rejected[0] + "; " + rejected[1] + "; " + rejected[2] + "; " + rejected[3]);
        QCOMPARE(space.hostnames(0), std::string("gpu-box"));
        const auto& host = space.planes(0);
        const auto* memory = lineNamed(host, "CUDA memory");
        QVERIFY(memory);
        QCOMPARE(memory->events_size(), 2);
        QCOMPARE(statOf(host, memory->events(0), "bytes_allocated"), int64_t(4096));
        QCOMPARE(statOf(host, memory->events(1), "bytes_allocated"), int64_t(0));
        QCOMPARE(statOf(host, memory->events(1), "peak_bytes_in_use"), int64_t(4096));

        // A run names the file and counts its left-out records in a warning.
        const CaptureRunResult run =
            writeCaptureRun({path.toStdString()}, dir_.filePath("logs").toStdString(), "r");
        QVERIFY2(run.ok(), run.error.c_str());
        QCOMPARE(run.warnings,
                 std::vector<std::string>{path.toStdString() + ": 4 records left out (" +
                                          rejected[0] + "; ...)"});
    }

    // Past kRejectedRecordsNamed the left-out records are counted in one line.
    void manyLeftOutRecordsAreCounted() {
        std::vector<Record> frame = {ProcessRecord{1, "h", "c", 0, 10}};
        for (int i = 0; i < 13; ++i) frame.push_back(kernel(20, UINT64_MAX));
        const std::vector<uint8_t> bytes = recordFile(dir_.filePath("many.rec"), {frame});
        const RecordFileContents c = readRecordBytes(bytes.data(), bytes.size(), "many.rec");
        QCOMPARE(c.rejectedCount, uint64_t(13));
        QCOMPARE(c.rejected.size(), kRejectedRecordsNamed + 1);
        QVERIFY(c.rejected[9].starts_with("frame 1 at byte 8, record 11 (kernel record)"));
        QCOMPARE(c.rejected.back(), std::string("and 3 more records"));
    }

    // ps() reproduction (CuptiConverter's times in ps from the earliest record): a first process
    // record at CUPTI time 1, a kernel at [T + 1,000, T + 2,000) and a second process record at T
    // made the earliest time 1 while the kernel was kept as near the last process record: (T +
    // 999) * 1,000 overflowed. Now the second process record is left out, so the kernel lies
    // 1.7e18 ns from the process start and is left out as far away; the profile says both.
    void secondProcessRecordIsLeftOut() {
        const std::vector<uint8_t> bytes = recordFile(
            dir_.filePath("two_process.rec"),
            {{ProcessRecord{42, "a", "x", 1'000'000'000, 1}, kernel(T + 1'000, T + 2'000),
              ProcessRecord{42, "a", "x", 1'000'000'000, T}}});
        const RecordFileContents c = readRecordBytes(bytes.data(), bytes.size(), "x.rec");
        QCOMPARE(c.rejected, std::vector<std::string>{
                                 "frame 1 at byte 8, record 3 (process record): a second process "
                                 "record (a record file holds one process)"});
        const auto space = converted({c.records, c.problem, c.rejected});
        QCOMPARE(space.errors_size(), 2);
        QVERIFY(space.errors(0).starts_with("1 activity records were left out"));
        QVERIFY(space.errors(1).ends_with("a second process record (a record file holds one "
                                          "process)"));
        QCOMPARE(space.planes_size(), 1); // the host; no kernel, so no GPU
        QCOMPARE(space.planes(0).lines_size(), 0);
    }

    // baseWallNs reproduction: wallStartNs = INT64_MIN + 5 took the lines' start below INT64_MIN.
    // Now the process record is left out; without one, CUPTI's time is the lines' wall time: the
    // kernel [1,500, 2,500) starts its line, at 1,500 ns, 1,000,000 ps long.
    void negativeWallStartIsLeftOut() {
        const std::vector<uint8_t> bytes =
            recordFile(dir_.filePath("wall.rec"),
                       {{ProcessRecord{42, "a", "x", INT64_MIN + 5, 1'000}, kernel(1'500, 2'500)}});
        const RecordFileContents c = readRecordBytes(bytes.data(), bytes.size(), "wall.rec");
        QCOMPARE(c.rejected, std::vector<std::string>{"frame 1 at byte 8, record 1 (process "
                                                      "record): wallStartNs -9223372036854775803 "
                                                      "is negative"});
        QCOMPARE(processHostName(c.records), std::string("unknown_process"));
        const auto space = converted({c.records, c.problem, c.rejected});
        const auto* stream = lineNamed(space.planes(1), "Stream #7(Kernel)");
        QVERIFY(stream);
        QCOMPARE(stream->timestamp_ns(), int64_t(1'500));
        QCOMPARE(stream->events(0).offset_ps(), int64_t(0));
        QCOMPARE(stream->events(0).duration_ps(), int64_t(1'000'000));
    }

    // A process record whose CUPTI start is unknown (0): the lines start at its wall time.
    void unknownCuptiStartUsesTheWallStart() {
        const auto space = converted(
            {{ProcessRecord{42, "a", "x", 1'000'000'000, 0}, kernel(T + 500, T + 700)}, ""});
        const auto* stream = lineNamed(space.planes(1), "Stream #7(Kernel)");
        QVERIFY(stream);
        QCOMPARE(stream->timestamp_ns(), int64_t(1'000'000'000));
        QCOMPARE(stream->events(0).duration_ps(), int64_t(200'000));
    }

    // Memory in use reproduction: every allocation is at most 2^48 B, but 2^14 + 1 of them at
    // once pass 2^62 B: the first 2^14 are kept (2^62 B in use at the last), the next is left out
    // and counted. No int64 sum overflows on the way.
    void memoryInUseStaysInRange() {
        std::vector<Record> r = {ProcessRecord{42, "a", "x", 1'000'000'000, 1'000}};
        constexpr uint64_t kAllocations = (uint64_t(1) << 14) + 1;
        for (uint64_t i = 0; i < kAllocations; ++i)
            r.push_back(
                MemoryRecord{2'000 + i, 0, 7, 0, 0x1000 * (i + 1), uint64_t(1) << 48, true});
        const auto space = converted({r, ""});
        QCOMPARE(space.errors_size(), 1);
        QVERIFY2(space.errors(0).starts_with("1 memory allocations were left out"),
                 space.errors(0).c_str());
        const auto& host = space.planes(0);
        const auto* memory = lineNamed(host, "CUDA memory");
        QVERIFY(memory);
        QCOMPARE(uint64_t(memory->events_size()), kAllocations - 1);
        const auto& last = memory->events(memory->events_size() - 1);
        QCOMPARE(statOf(host, last, "bytes_allocated"), int64_t(1) << 62);
        QCOMPARE(statOf(host, last, "peak_bytes_in_use"), int64_t(1) << 62);
    }

    // The fuzzer's inputs and the hand-made ones beside them (../shared/fuzz-findings, see its
    // README): each is read with exactly its wrong records named (worked out from the bytes), and
    // what remains converts to a profile that loads and lists them among its errors.
    void fuzzFindingsConvert_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("rejected");
        const QString second = "(process record): a second process record (a record file holds "
                               "one process)";
        QTest::newRow("records_two_process_ps_found")
            << "records_two_process_ps_found.rec"
            << QStringList{"frame 2 at byte 168, record 1 " + second};
        QTest::newRow("two_process_records_ps")
            << "two_process_records_ps.rec" << QStringList{"frame 1 at byte 8, record 2 " + second};
        QTest::newRow("records_base_wall_min")
            << "records_base_wall_min.rec"
            << QStringList{"frame 1 at byte 8, record 2 (process record): cuptiStartNs "
                           "9223372036854808576 is above the limit of 2^62 ns"};
        QTest::newRow("one_process_record_wall")
            << "one_process_record_wall.rec"
            << QStringList{"frame 1 at byte 8, record 1 (process record): wallStartNs "
                           "-9223372036854775803 is negative"};
        const QString tooBig = "(memory record): bytes 9223372036854775807 is above the limit of "
                               "2^48";
        QTest::newRow("memory_in_use_overflow")
            << "memory_in_use_overflow.rec"
            << QStringList{"frame 1 at byte 8, record 2 " + tooBig,
                           "frame 1 at byte 8, record 3 " + tooBig};
        QTest::newRow("memory_free_overflow")
            << "memory_free_overflow.rec"
            << QStringList{"frame 1 at byte 8, record 2 (memory record): bytes "
                           "9223372036854775808 is above the limit of 2^48"};
    }

    void fuzzFindingsConvert() {
        QFETCH(QString, file);
        QFETCH(QStringList, rejected);
        const QString path = QStringLiteral(STEPSCOPE_REALDATA "/../fuzz-findings/") + file;
        if (!QFileInfo::exists(path)) QSKIP(qPrintable(path + " is not here"));
        const RecordFileContents c = readRecordFile(path.toStdString());
        QVERIFY2(c.ok(), c.error.c_str());
        QVERIFY(!c.records.empty());
        QStringList named;
        for (const std::string& r : c.rejected) named << QString::fromStdString(r);
        QCOMPARE(named, rejected);
        const std::vector<uint8_t> bytes = convertToXSpace({c.records, c.problem, c.rejected});
        tensorflow::profiler::XSpace space;
        QVERIFY(space.ParseFromArray(bytes.data(), int(bytes.size())));
        const std::string listed = "records were left out as no capture writes them (a time or "
                                   "size out of range, or a second process record): " +
                                   rejected.join("; ").toStdString();
        QVERIFY(std::find(space.errors().begin(), space.errors().end(), listed) !=
                space.errors().end());
        const LoadResult loaded = loadXSpaceBytes(bytes, file.toStdString());
        QVERIFY2(loaded.ok(), loaded.error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestRecordLimits)
#include "test_record_limits.moc"
