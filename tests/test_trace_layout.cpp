// Rows of the timeline (sections, order, labels, collapse) and hit testing from pixels to events.
#include <QTest>

#include "model/ProfileBuilder.h"
#include "views/trace/TimelineLayout.h"
#include "views/trace/TimelineRenderer.h"

using namespace stepscope;

namespace {

struct Fixture {
    std::unique_ptr<Profile> profile;
    uint32_t steps = 0, ops = 0, compute = 0, d2h = 0, thread = 0, emptyStream = 0;
};

// GPU:0 with tracks added out of display order and one empty stream; an empty GPU:1; a host
// with one thread.
Fixture makeFixture(bool twoHosts = false) {
    ProfileBuilder b;
    Fixture f;
    const uint32_t host = b.addHost("worker-a", "");
    const uint32_t cpu = b.addPlane(host, 1, "/host:CPU");
    const uint32_t gpu = b.addPlane(host, 2, "/device:GPU:0");
    b.addPlane(host, 3, "/device:GPU:1");
    auto stat = [&](std::string_view key, int64_t v) {
        return StatValue{b.intern(key), StatType::Int64, uint64_t(v)};
    };
    b.addPlaneStat(gpu, StatValue{b.intern("device_vendor"), StatType::Str, b.intern("Nvidia")});
    b.addPlaneStat(gpu, stat("compute_cap_major", 7));
    b.addPlaneStat(gpu, stat("compute_cap_minor", 0));
    b.addPlaneStat(gpu, stat("core_count", 80));
    f.thread = b.addTrack(cpu, 4242, "tf_worker/4242");
    f.compute = b.addTrack(gpu, 134, "Stream #134(Compute)");
    f.emptyStream = b.addTrack(gpu, 9, "Stream #9(Compute)");
    f.ops = b.addTrack(gpu, 1, "TensorFlow Ops");
    f.d2h = b.addTrack(gpu, 136, "Stream #136(MemcpyD2H)");
    f.steps = b.addTrack(gpu, 2, "Steps");
    const uint32_t k = b.addMetadata(gpu, 1, "volta_sgemm", "");
    const uint32_t step = b.addMetadata(gpu, 2, "1", "");
    const uint32_t op = b.addMetadata(gpu, 3, "MatMul", "");
    const uint32_t copy = b.addMetadata(gpu, 4, "MemcpyD2H", "");
    const uint32_t launch = b.addMetadata(cpu, 5, "cudaLaunchKernel", "");
    b.addEvent(f.steps, 0, 1000000, step);
    b.addEvent(f.ops, 100000, 500000, op);
    // Compute stream: a parent with two children (three lanes).
    b.addEvent(f.compute, 100000, 400000, k);
    b.addEvent(f.compute, 150000, 100000, k);
    b.addEvent(f.compute, 300000, 100000, k);
    b.addEvent(f.compute, 320000, 10000, k);
    b.addEvent(f.d2h, 600000, 50000, copy);
    b.addEvent(f.thread, 50000, 20000, launch);
    if (twoHosts) {
        const uint32_t h2 = b.addHost("worker-b", "");
        const uint32_t cpu2 = b.addPlane(h2, 1, "/host:CPU");
        const uint32_t t2 = b.addTrack(cpu2, 1, "python");
        b.addEvent(t2, 0, 10, b.addMetadata(cpu2, 1, "x", ""));
    }
    f.profile = b.finish();
    return f;
}

std::vector<std::string> labels(const TimelineLayout& l) {
    std::vector<std::string> out;
    for (const TimelineRow& r : l.rows()) out.push_back(r.label);
    return out;
}

} // namespace

class TestTraceLayout : public QObject {
    Q_OBJECT
private slots:
    void sectionsAndRowsInReadingOrder() {
        Fixture f = makeFixture();
        TimelineLayout l(*f.profile);
        QCOMPARE(l.sections().size(), size_t(2)); // GPU:1 has no events: hidden
        const std::vector<std::string> expected = {
            "/device:GPU:0 · Nvidia · cc 7.0 · 80 SMs",
            "Steps",
            "TensorFlow Ops",
            "Stream #134 (Compute)",
            "Stream #136 (MemcpyD2H)",
            "Host Threads",
            "tf_worker/4242",
        };
        QCOMPARE(labels(l), expected);
        QCOMPARE(l.rowOfTrack(f.emptyStream), -1);
        // Heights: a section header, then depthCount lanes plus padding per track.
        const auto& rows = l.rows();
        QCOMPARE(rows[0].y, 0);
        QCOMPARE(rows[1].y, TimelineLayout::kSectionHeight);
        QCOMPARE(rows[3].depthCount, 3u);
        QCOMPARE(rows[3].height, 3 * TimelineLayout::kLaneHeight + TimelineLayout::kTrackPadding);
        QCOMPARE(l.totalHeight(), 2 * TimelineLayout::kSectionHeight +
                                      7 * TimelineLayout::kLaneHeight +
                                      5 * TimelineLayout::kTrackPadding);
    }

    void hostNamesPrefixSectionsWhenSeveralHosts() {
        Fixture f = makeFixture(true);
        TimelineLayout l(*f.profile);
        QCOMPARE(l.sections().size(), size_t(3));
        QCOMPARE(l.sections()[0].label,
                 std::string("worker-a · /device:GPU:0 · Nvidia · cc 7.0 · 80 SMs"));
        QCOMPARE(l.sections()[1].label, std::string("worker-a · Host Threads"));
        QCOMPARE(l.sections()[2].label, std::string("worker-b · Host Threads"));
    }

    void hostSectionsNameTheirProcess() {
        // Kineto traces give a host plane per process, named after "/host:CPU ".
        ProfileBuilder b;
        const uint32_t host = b.addHost("worker0", "");
        const uint32_t python = b.addPlane(host, 0, "/host:CPU python (pid 25738)");
        const uint32_t traces = b.addPlane(host, 1, "/host:CPU Traces");
        for (const uint32_t plane : {python, traces})
            b.addEvent(b.addTrack(plane, 1, "thread"), 0, 10, b.addMetadata(plane, 1, "x", ""));
        const std::unique_ptr<Profile> profile = b.finish();
        TimelineLayout l(*profile);
        QCOMPARE(l.sections().size(), size_t(2));
        QCOMPARE(l.sections()[0].label, std::string("Host Threads · python (pid 25738)"));
        QCOMPARE(l.sections()[1].label, std::string("Host Threads · Traces"));
    }

    void collapseHidesTracks() {
        Fixture f = makeFixture();
        TimelineLayout l(*f.profile);
        l.setCollapsed(0, true);
        QCOMPARE(l.rows().size(), size_t(3));
        QCOMPARE(l.rowOfTrack(f.compute), -1);
        QCOMPARE(l.laneY(f.compute, 0), -1);
        QCOMPARE(l.sectionOfTrack(f.compute), 0);
        QCOMPARE(l.rows()[1].label, std::string("Host Threads"));
        QCOMPARE(l.rows()[1].y, TimelineLayout::kSectionHeight);
        l.toggleCollapsed(0);
        QCOMPARE(l.rows().size(), size_t(7));
        l.setAllCollapsed(true);
        QCOMPARE(l.totalHeight(), 2 * TimelineLayout::kSectionHeight);
    }

    void hitTestMapsYToTrackAndDepth() {
        Fixture f = makeFixture();
        TimelineLayout l(*f.profile);
        const TimelineRow& compute = l.rows()[size_t(l.rowOfTrack(f.compute))];
        LayoutHit h = l.hitTest(5);
        QVERIFY(h.section);
        QCOMPARE(h.row, 0);
        h = l.hitTest(compute.y + 2 * TimelineLayout::kLaneHeight + 3);
        QCOMPARE(h.track, f.compute);
        QCOMPARE(h.depth, 2u);
        QVERIFY(h.inLane);
        h = l.hitTest(compute.y + 3 * TimelineLayout::kLaneHeight + 1); // in the padding
        QCOMPARE(h.track, f.compute);
        QVERIFY(!h.inLane);
        QCOMPARE(l.hitTest(l.totalHeight() + 5).row, -1);
        QCOMPARE(l.hitTest(-1).row, -1);
        QCOMPARE(l.laneY(f.compute, 1), compute.y + TimelineLayout::kLaneHeight);
    }

    void eventAtFindsContainingOrNearest() {
        Fixture f = makeFixture();
        const Profile& p = *f.profile;
        // Depth 0 of the compute stream: [100000, 500000).
        EventIndex e = TimelineLayout::eventAt(p, f.compute, 0, 200000, 0);
        QVERIFY(e != kNoIndex);
        QCOMPARE(p.start(e), int64_t(100000));
        // Depth 1 holds [150000, 250000) and [300000, 400000); 260000 is in between.
        QCOMPARE(TimelineLayout::eventAt(p, f.compute, 1, 260000, 5000), kNoIndex);
        e = TimelineLayout::eventAt(p, f.compute, 1, 260000, 20000);
        QCOMPARE(p.start(e), int64_t(150000)); // 10 ns after its end, 40 ns before the next
        e = TimelineLayout::eventAt(p, f.compute, 1, 290000, 20000);
        QCOMPARE(p.start(e), int64_t(300000));
        // Depth 2: the 10 ns event at 320000, found from 2 ns away.
        e = TimelineLayout::eventAt(p, f.compute, 2, 332000, 2000);
        QCOMPARE(p.start(e), int64_t(320000));
        QCOMPARE(TimelineLayout::eventAt(p, f.compute, 2, 100, 2000), kNoIndex);
    }

    // From canvas pixels: the renderer's mapping plus the layout's hit test land on the event
    // drawn there.
    void pixelToEvent() {
        Fixture f = makeFixture();
        TimelineLayout l(*f.profile);
        const TimelineFrame frame{QSize(1300, 600), {0, 1000000}, 0};
        // 1000 px of timeline for 1 µs: 1 ns per pixel.
        QCOMPARE(TimelineRenderer::canvasX(0, frame), double(TimelineRenderer::kGutterWidth));
        QCOMPARE(TimelineRenderer::timeAt(TimelineRenderer::kGutterWidth + 600, frame),
                 int64_t(600000));
        const int y = TimelineRenderer::canvasY(l.laneY(f.d2h, 0), frame) + 5;
        const LayoutHit hit = l.hitTest(TimelineRenderer::layoutY(y, frame));
        QCOMPARE(hit.track, f.d2h);
        const int64_t t = TimelineRenderer::timeAt(TimelineRenderer::kGutterWidth + 620, frame);
        const EventIndex e = TimelineLayout::eventAt(*f.profile, hit.track, hit.depth, t, 3000);
        QCOMPARE(f.profile->name(e), std::string_view("MemcpyD2H"));
    }
};

QTEST_GUILESS_MAIN(TestTraceLayout)
#include "test_trace_layout.moc"
