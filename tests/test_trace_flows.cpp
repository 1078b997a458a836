// Flow arrows of the real TF GPU profile: launch -> kernel pairs by correlation id, checked
// against an independent decode of the same file with protobuf's generated classes.
#include <QTest>
#include <fstream>
#include <map>
#include <sstream>

#include "model/ProfileLoader.h"
#include "views/trace/EventDetails.h"
#include "views/trace/TimelineLayout.h"
#include "xplane.pb.h"

using namespace stepscope;

namespace {
const std::string kBert =
    std::string(STEPSCOPE_REALDATA) +
    "/tf-gpu-bert/plugins/profile/2020_12_03_bert/34.83.195.179_6003.xplane.pb";

// Launch and kernel counts per correlation id, straight from the wire.
struct Expected {
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> byCorrelation; // id -> (launches, targets)
    uint64_t pairs() const {
        uint64_t n = 0;
        for (const auto& [id, c] : byCorrelation) n += c.first * c.second;
        return n;
    }
};

Expected decodeWithProtobuf(const std::string& path) {
    Expected out;
    std::ifstream in(path, std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    tensorflow::profiler::XSpace space;
    if (!space.ParseFromString(buf.str())) return out;
    for (const auto& plane : space.planes()) {
        const bool host = plane.name().rfind("/host:CPU", 0) == 0;
        const bool gpu = plane.name().rfind("/device:GPU:", 0) == 0;
        if (!host && !gpu) continue;
        int64_t corrKey = -1;
        for (const auto& [id, m] : plane.stat_metadata())
            if (m.name() == "correlation_id") corrKey = id;
        for (const auto& line : plane.lines()) {
            if (gpu && line.name().rfind("Stream #", 0) != 0) continue;
            for (const auto& ev : line.events())
                for (const auto& st : ev.stats())
                    if (st.metadata_id() == corrKey) {
                        const uint64_t id =
                            st.has_uint64_value() ? st.uint64_value() : uint64_t(st.int64_value());
                        auto& c = out.byCorrelation[id];
                        (host ? c.first : c.second) += 1;
                    }
        }
    }
    return out;
}
} // namespace

class TestTraceFlows : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!std::ifstream(kBert).good())
            QSKIP("real profiles not found (../shared/realdata); skipping");
    }

    void flowsPairLaunchAndKernelByCorrelationId() {
        const LoadResult r = loadPath(kBert);
        QVERIFY2(r.ok(), r.error.c_str());
        const Profile& p = *r.profile;
        const Expected expected = decodeWithProtobuf(kBert);
        QVERIFY(expected.pairs() > 1000);
        QCOMPARE(uint64_t(p.flows().size()), expected.pairs());
        std::map<int, size_t> byDevice;
        size_t copies = 0;
        for (const Flow& f : p.flows()) {
            const Track& lt = p.tracks()[p.trackOf(f.launch)];
            const Track& tt = p.tracks()[p.trackOf(f.target)];
            QCOMPARE(p.planes()[lt.plane].kind, PlaneKind::Host);
            QCOMPARE(tt.kind, TrackKind::GpuStream);
            const std::optional<uint64_t> a = p.correlationIds().find(f.launch);
            const std::optional<uint64_t> b = p.correlationIds().find(f.target);
            QVERIFY(a && b);
            QCOMPARE(*a, *b);
            // TF 2.4 names the host side of a launch after its kernel; copies after the copy.
            const std::string_view ln = p.name(f.launch), tn = p.name(f.target);
            if (ln.substr(0, 6) == "Memcpy")
                ++copies;
            else
                QCOMPARE(ln, tn);
            QVERIFY(p.start(f.launch) <= p.start(f.target));
            ++byDevice[p.planes()[tt.plane].deviceOrdinal];
        }
        QCOMPARE(p.flows().size(), size_t(1556));
        QCOMPARE(byDevice, (std::map<int, size_t>{{1, 19}, {4, 759}, {6, 778}}));
        QVERIFY(copies > 0);
        qInfo("%zu flows, %zu of them copies", p.flows().size(), copies);
    }

    // The details pane's "Jump to kernel" / "Jump to launch" links walk the same pairs.
    void detailsLinkBothWays() {
        const LoadResult r = loadPath(kBert);
        QVERIFY(r.ok());
        const Profile& p = *r.profile;
        TimelineLayout layout(p);
        QVERIFY(!p.flows().empty());
        const Flow f = p.flows()[p.flows().size() / 2];
        const EventDetails launch =
            describeEvent(p, f.launch, layout.trackLabel(p.trackOf(f.launch)));
        QVERIFY(std::find(launch.targets.begin(), launch.targets.end(), f.target) !=
                launch.targets.end());
        const EventDetails kernel =
            describeEvent(p, f.target, layout.trackLabel(p.trackOf(f.target)));
        QVERIFY(std::find(kernel.launches.begin(), kernel.launches.end(), f.launch) !=
                kernel.launches.end());
        bool hasCorrelation = false;
        for (const DetailField& d : kernel.fields)
            if (d.label == "Correlation id")
                hasCorrelation = d.value == std::to_string(*p.correlationIds().find(f.target));
        QVERIFY(hasCorrelation);
    }

    // The layout of the real profile: GPU sections first with their streams, then host threads.
    void realLayout() {
        const LoadResult r = loadPath(kBert);
        QVERIFY(r.ok());
        TimelineLayout layout(*r.profile);
        QVERIFY(layout.sections().size() >= 3);
        QCOMPARE(layout.sections().back().label, std::string("Host Threads"));
        bool sawStream = false;
        for (const TimelineRow& row : layout.rows())
            if (row.label.rfind("Stream #", 0) == 0) {
                sawStream = true;
                QVERIFY2(row.label.find(" (") != std::string::npos, row.label.c_str());
            }
        QVERIFY(sawStream);
    }
};

QTEST_GUILESS_MAIN(TestTraceFlows)
#include "test_trace_flows.moc"
