// Window queries and the renderer's folding of sub-pixel events, against brute force on random
// fixtures.
#include <QTest>
#include <algorithm>
#include <random>

#include "model/ProfileBuilder.h"
#include "views/trace/LaneBlocks.h"

using namespace stepscope;

namespace {

// Random nested, overlapping, back-to-back and zero-length events on several tracks, added in
// shuffled order.
std::unique_ptr<Profile> randomProfile(uint64_t seed, int tracks, int eventsPerTrack) {
    std::mt19937_64 rng(seed);
    ProfileBuilder b;
    const uint32_t host = b.addHost("h", "");
    const uint32_t plane = b.addPlane(host, 1, "/device:GPU:0");
    std::vector<uint32_t> metas;
    for (int i = 0; i < 12; ++i)
        metas.push_back(b.addMetadata(plane, i, "op" + std::to_string(i), ""));
    struct Ev {
        uint32_t track;
        int64_t start, dur;
        uint32_t meta;
    };
    std::vector<Ev> evs;
    for (int t = 0; t < tracks; ++t) {
        const uint32_t track = b.addTrack(plane, t, "Stream #" + std::to_string(t) + "(Compute)");
        int64_t cursor = 0;
        for (int i = 0; i < eventsPerTrack; ++i) {
            const int kind = int(rng() % 10);
            int64_t start, dur;
            if (kind < 5) { // sequential with a gap, sometimes none
                start = cursor + int64_t(rng() % 3 == 0 ? 0 : rng() % 500);
                dur = int64_t(rng() % 400);
                cursor = start + dur;
            } else if (kind < 8 && !evs.empty() && evs.back().track == track) { // nested child
                const Ev& parent = evs.back();
                start = parent.start + int64_t(rng() % uint64_t(parent.dur + 1));
                dur = int64_t(rng() % uint64_t(parent.start + parent.dur - start + 1));
            } else { // anywhere: overlaps others
                start = int64_t(rng() % uint64_t(cursor + 1000));
                dur = int64_t(rng() % 2000);
            }
            evs.push_back({track, start, dur, metas[rng() % metas.size()]});
        }
    }
    std::shuffle(evs.begin(), evs.end(), rng);
    for (const Ev& e : evs) b.addEvent(e.track, e.start, e.dur, e.meta);
    return b.finish();
}

bool overlaps(const Profile& p, EventIndex e, int64_t t0, int64_t t1) {
    const int64_t s = p.start(e), end = p.end(e);
    const bool afterStart = end > t0 || (p.duration(e) == 0 && s == t0);
    const bool beforeEnd = s < t1 || (t0 == t1 && s == t0);
    return afterStart && beforeEnd;
}

} // namespace

class TestTraceWindow : public QObject {
    Q_OBJECT
private slots:
    void lanesNeverOverlap() {
        for (uint64_t seed = 1; seed <= 5; ++seed) {
            auto p = randomProfile(seed, 4, 2000);
            size_t total = 0;
            for (uint32_t t = 0; t < p->tracks().size(); ++t) {
                const Track& track = p->tracks()[t];
                QVERIFY(track.depthCount >= 2); // the fixture nests and overlaps
                for (uint32_t d = 0; d < track.depthCount; ++d) {
                    const EventRange r = p->eventsAt(t, d);
                    total += r.size();
                    for (EventIndex e = r.begin; e < r.end; ++e) {
                        QCOMPARE(p->trackOf(e), t);
                        QCOMPARE(p->depthOf(e), d);
                        if (e + 1 < r.end) {
                            QVERIFY2(p->end(e) <= p->start(e + 1), "events of one lane overlap");
                            QVERIFY(p->start(e) <= p->start(e + 1));
                        }
                    }
                }
            }
            QCOMPARE(total, p->eventCount());
        }
    }

    void windowEqualsBruteForce() {
        std::mt19937_64 rng(42);
        for (uint64_t seed = 1; seed <= 5; ++seed) {
            auto p = randomProfile(seed, 3, 1500);
            const int64_t span = p->durationPs();
            for (int q = 0; q < 400; ++q) {
                const int64_t t0 = int64_t(rng() % uint64_t(span + 200)) - 100;
                // Zero-length, tiny and wide windows.
                const int kind = q % 4;
                const int64_t len = kind == 0   ? 0
                                    : kind == 1 ? int64_t(rng() % 50)
                                                : int64_t(rng() % uint64_t(span + 1));
                const int64_t t1 = t0 + len;
                for (uint32_t t = 0; t < p->tracks().size(); ++t) {
                    for (uint32_t d = 0; d < p->tracks()[t].depthCount; ++d) {
                        const EventRange all = p->eventsAt(t, d);
                        std::vector<EventIndex> expected;
                        for (EventIndex e = all.begin; e < all.end; ++e)
                            if (overlaps(*p, e, t0, t1)) expected.push_back(e);
                        const EventRange got = p->eventsInWindow(t, d, t0, t1);
                        QCOMPARE(got.size(), uint32_t(expected.size()));
                        if (!expected.empty()) QCOMPARE(got.begin, expected.front());
                    }
                }
            }
        }
    }

    // Every event of the window is drawn exactly once: as its own block or inside one folded
    // run; runs are contiguous and in order, and a single event is never narrower than the
    // threshold while a folded run never holds a wide one.
    void foldedBlocksHoldEveryEventOnce() {
        std::mt19937_64 rng(7);
        auto p = randomProfile(3, 3, 3000);
        const int64_t span = p->durationPs();
        for (int q = 0; q < 200; ++q) {
            const int64_t t0 = int64_t(rng() % uint64_t(span));
            const int64_t t1 = t0 + 1 + int64_t(rng() % uint64_t(span - t0 + 1));
            const double width = 200 + double(rng() % 1800);
            const double scale = width / double(t1 - t0);
            for (uint32_t t = 0; t < p->tracks().size(); ++t) {
                for (uint32_t d = 0; d < p->tracks()[t].depthCount; ++d) {
                    std::vector<LaneBlock> blocks;
                    foldLane(*p, t, d, {t0, t1}, width, 2.0, blocks);
                    const EventRange r = p->eventsInWindow(t, d, t0, t1);
                    EventIndex next = r.begin;
                    for (const LaneBlock& b : blocks) {
                        QCOMPARE(b.first, next);
                        QVERIFY(b.count >= 1);
                        next += b.count;
                        if (!b.merged()) {
                            QCOMPARE(b.x1 - b.x0 >= 2.0,
                                     double(p->duration(b.first)) * scale >= 2.0);
                        } else {
                            for (EventIndex e = b.first; e < b.first + b.count; ++e)
                                QVERIFY(double(p->duration(e)) * scale < 2.0);
                        }
                    }
                    QCOMPARE(next, r.end);
                }
            }
        }
    }

    // 10,000 events of 1 ns every 10 ns (10 per pixel at 100 ns per pixel) fold into one run
    // that holds them all; a window over part of them holds exactly the events in it.
    void tinyEventsFoldIntoCountedBlocks() {
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t plane = b.addPlane(host, 1, "/device:GPU:0");
        const uint32_t track = b.addTrack(plane, 7, "Stream #7(Compute)");
        const uint32_t meta = b.addMetadata(plane, 1, "tiny", "");
        const uint32_t wide = b.addMetadata(plane, 2, "wide", "");
        for (int i = 0; i < 10000; ++i) b.addEvent(track, int64_t(i) * 10000, 1000, meta);
        // A gap of 10 µs, then one wide event, then 100 more tiny ones spaced 1 µs apart.
        b.addEvent(track, 110000000, 20000000, wide);
        for (int i = 0; i < 100; ++i)
            b.addEvent(track, 140000000 + int64_t(i) * 1000000, 1000, meta);
        auto p = b.finish();
        QCOMPARE(p->eventCount(), size_t(10101));

        // 240 µs on 2400 px: 100 ns per pixel. The first 10,000 events (10 per pixel, 1 px
        // apart at most) form one run; the wide event stands alone; the last 100 events are
        // 10 px apart, each its own (one-event) block.
        std::vector<LaneBlock> blocks;
        foldLane(*p, track, 0, {0, 240000000}, 2400, 2.0, blocks);
        QCOMPARE(blocks.size(), size_t(1 + 1 + 100));
        QVERIFY(blocks[0].merged());
        QCOMPARE(blocks[0].count, 10000u);
        QCOMPARE(blocks[0].first, p->eventsAt(track, 0).begin);
        QCOMPARE(blocks[0].x0, 0.0);
        QCOMPARE(blocks[0].x1, (99990000.0 + 1000.0) / 100000.0);
        QCOMPARE(p->name(blocks[1].first), std::string_view("wide"));
        QCOMPARE(blocks[1].x0, 1100.0);
        QCOMPARE(blocks[1].x1, 1300.0);
        for (size_t i = 2; i < blocks.size(); ++i) QCOMPARE(blocks[i].count, 1u);

        // A window of pixels 100..199 of that frame: exactly the events starting in it.
        blocks.clear();
        foldLane(*p, track, 0, {10000000, 20000000}, 100, 2.0, blocks);
        QCOMPARE(blocks.size(), size_t(1));
        QCOMPARE(blocks[0].count, 1000u);
        QCOMPARE(blocks[0].count, p->eventsInWindow(track, 0, 10000000, 20000000).size());

        // Zoomed until every event is 2 px wide: nothing folds.
        blocks.clear();
        foldLane(*p, track, 0, {0, 1000000}, 2000, 2.0, blocks);
        QCOMPARE(blocks.size(), size_t(100));
        for (const LaneBlock& blk : blocks) QVERIFY(!blk.merged());
    }

    void foldedBlockTakesItsDominantName() {
        // Ten events back to back: three "wide" of 1 µs, seven "narrow" of 0.1 µs. "narrow"
        // is the more frequent, "wide" the one that takes the time (3 µs against 0.7 µs).
        ProfileBuilder b;
        const uint32_t plane = b.addPlane(b.addHost("h", ""), 1, "/device:GPU:0");
        const uint32_t track = b.addTrack(plane, 1, "Stream #1(Compute)");
        const uint32_t wide = b.addMetadata(plane, 1, "wide", "");
        const uint32_t narrow = b.addMetadata(plane, 2, "narrow", "");
        b.setTimeBase(0);
        int64_t t = 0;
        for (int i = 0; i < 10; ++i) {
            const bool isWide = i % 3 == 0 && i < 9; // 0, 3, 6
            const int64_t dur = isWide ? 1'000'000 : 100'000;
            b.addEvent(track, t, dur, isWide ? wide : narrow);
            t += dur;
        }
        auto p = b.finish();
        const EventIndex first = p->tracks()[track].firstEvent;
        LaneBlock block{0, 1, first, 10};
        QCOMPARE(p->str(p->metadata()[dominantMetadata(*p, block)].name), std::string_view("wide"));
        // Only two samples (events 0 and 5): one of each, 1 µs against 0.1 µs.
        QCOMPARE(p->str(p->metadata()[dominantMetadata(*p, block, 2)].name),
                 std::string_view("wide"));
        // A block of narrow ones only (events 7 to 9).
        block = LaneBlock{0, 1, first + 7, 3};
        QCOMPARE(p->str(p->metadata()[dominantMetadata(*p, block)].name),
                 std::string_view("narrow"));
    }
};

QTEST_GUILESS_MAIN(TestTraceWindow)
#include "test_trace_window.moc"
