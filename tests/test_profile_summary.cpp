// The Profile summary tool's tables (also `stepscope-cli info`), exactly, on a fixture; the
// "no value" convention in text and JSON; facts about the real TF BERT log directory.
#include <QtTest>

#include <filesystem>

#include "model/ProfileBuilder.h"
#include "model/ProfileLoader.h"
#include "model/TimeFormat.h"
#include "model/analysis/ProfileSummary.h"

using namespace stepscope;

namespace {
StatValue intStat(ProfileBuilder& b, const char* key, int64_t v) {
    return {b.intern(key), StatType::Int64, uint64_t(v)};
}
} // namespace

class TestProfileSummary : public QObject {
    Q_OBJECT
private slots:
    void fixtureTables() {
        ProfileBuilder b;
        const uint32_t host = b.addHost("worker0", "/logs/worker0.xplane.pb");
        b.host(host).hostnames.push_back("worker0:6009");
        b.host(host).warnings.push_back("clock skew");
        const uint32_t cpu = b.addPlane(host, 0, "/host:CPU");
        const uint32_t gpu = b.addPlane(host, 1, "/device:GPU:0");
        b.addPlaneStat(gpu, intStat(b, "core_count", 108));
        b.addPlaneStat(gpu, intStat(b, "clock_rate", 1410000));
        b.addPlaneStat(gpu, intStat(b, "memory_size", 42949672960));
        b.addPlaneStat(gpu, intStat(b, "compute_cap_major", 8));
        const uint32_t thread = b.addTrack(cpu, 12, "python3");
        const uint32_t stream = b.addTrack(gpu, 7, "Stream #7(Compute)");
        const uint32_t m = b.addMetadata(cpu, 1, "op", "");
        b.setTimeBase(0);
        b.addEvent(thread, 0, 2'000'000'000, m); // 2 ms
        b.addEvent(thread, 1'000'000'000, 500'000'000, m);
        b.addEvent(stream, 500'000'000, 1'000'000'000, m);
        auto p = b.finish();
        const ProfileSummary s = summarizeProfile(*p);
        QCOMPARE(s.events, uint64_t(3));
        QCOMPARE(s.durationPs, int64_t(2'000'000'000));
        QCOMPARE(s.messages, std::vector<std::string>{"worker0: warning: clock skew"});

        QCOMPARE(s.hosts.rowCount(), size_t(1));
        QCOMPARE(s.hosts.text(0, 1), std::string("worker0:6009"));
        QCOMPARE(s.hosts.number(0, s.hosts.columnIndex("Events")), 3.0);

        const Table& planes = s.planes;
        QCOMPARE(planes.rowCount(), size_t(2));
        const int sms = planes.columnIndex("SMs / CUs");
        const int clock = planes.columnIndex("Clock (MHz)");
        const int memory = planes.columnIndex("Memory");
        QVERIFY(planes.isMissing(0, size_t(sms))); // the host plane has no SMs
        QCOMPARE(planes.displayText(0, size_t(sms)), std::string());
        QCOMPARE(planes.number(1, size_t(sms)), 108.0);
        QCOMPARE(planes.number(1, size_t(clock)), 1410.0);
        QCOMPARE(planes.displayText(1, size_t(memory)), std::string("40.00 GiB"));
        QCOMPARE(planes.text(1, size_t(planes.columnIndex("Compute capability"))),
                 std::string("8.0"));
        QCOMPARE(planes.number(0, size_t(planes.columnIndex("Events"))), 2.0);

        const Table& tracks = s.tracks;
        QCOMPARE(tracks.rowCount(), size_t(2));
        QCOMPARE(tracks.text(0, size_t(tracks.columnIndex("Kind"))), std::string("host thread"));
        QCOMPARE(tracks.number(0, size_t(tracks.columnIndex("Depth"))), 2.0);
        QCOMPARE(tracks.text(1, size_t(tracks.columnIndex("Stream kind"))), std::string("Compute"));
        QCOMPARE(tracks.number(1, size_t(tracks.columnIndex("First event (ms)"))), 0.5);
        QCOMPARE(tracks.number(1, size_t(tracks.columnIndex("Last end (ms)"))), 1.5);

        const std::string json = summaryToJson(s);
        QVERIFY(json.find("\"SMs / CUs\":null") != std::string::npos);
        QVERIFY(json.find("\"SMs / CUs\":108") != std::string::npos);
        QVERIFY(json.find("\"messages\":[\"worker0: warning: clock skew\"]") != std::string::npos);
        const std::string text = summaryToText(s);
        QVERIFY(text.find("Events: 3   Time span: 2.000 ms") != std::string::npos);
        QCOMPARE(formatDuration(2'000'000'000), std::string("2.000 ms"));
        QVERIFY(text.find("nan") == std::string::npos);
    }

    void realBertLogDir() {
        const std::string logdir = std::string(STEPSCOPE_REALDATA) + "/tf-gpu-bert";
        if (!std::filesystem::exists(logdir))
            QSKIP("../shared/realdata not found; real-profile test skipped");
        const LoadResult r = loadPath(logdir);
        QVERIFY2(r.ok(), r.error.c_str());
        const ProfileSummary s = summarizeProfile(*r.profile);
        QCOMPARE(s.events, uint64_t(46256));
        QCOMPARE(s.hosts.rowCount(), size_t(2));
        QCOMPARE(s.planes.rowCount(), size_t(18));
        QCOMPARE(s.tracks.rowCount(), size_t(2 * (22 + 1 + 7 + 7)));
        QVERIFY(s.messages.empty());
        const int sms = s.planes.columnIndex("SMs / CUs");
        for (size_t row = 1; row < 9; ++row) QCOMPARE(s.planes.number(row, size_t(sms)), 80.0);
    }
};

QTEST_GUILESS_MAIN(TestProfileSummary)
#include "test_profile_summary.moc"
