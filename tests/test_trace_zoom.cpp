// Zoom, pan and framing arithmetic, pixel mapping and time-axis ticks.
#include <QTest>

#include "views/trace/TimeAxis.h"
#include "views/trace/ZoomControl.h"

using namespace stepscope;

class TestTraceZoom : public QObject {
    Q_OBJECT
private slots:
    void startsShowingEverything() {
        ZoomControl z;
        z.setTraceRange({0, 1000000000});
        QCOMPARE(z.visibleRange(), (TimeRange{0, 1000000000}));
        QVERIFY(!z.hasSelection());
        QVERIFY(!z.hasMark());
    }

    void zoomKeepsTheAnchor() {
        ZoomControl z;
        z.setTraceRange({0, 1000000});
        z.zoomAt(0.5, 2.0);
        QCOMPARE(z.visibleRange(), (TimeRange{250000, 750000}));
        // Anchored at a quarter: the time under that point stays there.
        z.zoomAt(0.25, 5.0);
        // Anchor time 250000 + 0.25 * 500000 = 375000; new span 100000.
        QCOMPARE(z.visibleRange(), (TimeRange{350000, 450000}));
        QCOMPARE(z.toPixel(375000, 1000), 250.0);
        // Zooming out past the trace clamps to it.
        z.zoomAt(0.5, 1e-6);
        QCOMPARE(z.visibleRange(), (TimeRange{0, 1000000}));
        // Zooming in stops at a nanosecond.
        z.zoomAt(0.5, 1e9);
        QCOMPARE(z.visibleRange().span(), ZoomControl::kMinSpanPs);
        QCOMPARE(z.visibleRange().start, 499500);
    }

    void panClampsAtTheEdges() {
        ZoomControl z;
        z.setTraceRange({0, 1000000});
        z.setVisibleRange({100000, 300000});
        z.panByFraction(0.5);
        QCOMPARE(z.visibleRange(), (TimeRange{200000, 400000}));
        z.panByFraction(-2.0);
        QCOMPARE(z.visibleRange(), (TimeRange{0, 200000}));
        z.panByFraction(100.0);
        QCOMPARE(z.visibleRange(), (TimeRange{800000, 1000000}));
        // Dragging content 100 px to the right on a 1000 px canvas shows earlier time.
        z.panByPixels(100, 1000);
        QCOMPARE(z.visibleRange(), (TimeRange{780000, 980000}));
    }

    void frameAddsMargins() {
        ZoomControl z;
        z.setTraceRange({0, 10000000});
        z.frame({2000000, 3000000}, 0.1);
        QCOMPARE(z.visibleRange(), (TimeRange{1900000, 3100000}));
        // A zero-length event still gets a readable span around it.
        z.frame({5000000, 5000000}, 0.5);
        QCOMPARE(z.visibleRange(), (TimeRange{5000000 - 1000, 5000000 + 1000}));
        // Framing near the end is shifted inside the trace, not cut.
        z.frame({9900000, 10000000}, 0.5);
        QCOMPARE(z.visibleRange(), (TimeRange{9800000, 10000000}));
    }

    void selectionAndMarkStayApart() {
        ZoomControl z;
        z.setTraceRange({0, 1000});
        z.setTraceRange({0, 10000000});
        z.setSelection({500, 100});
        QVERIFY(z.hasSelection());
        QCOMPARE(z.selection(), (TimeRange{100, 500}));
        z.setMark({1000, 2000});
        z.zoomAt(0.5, 4);
        QCOMPARE(z.selection(), (TimeRange{100, 500}));
        QCOMPARE(z.mark(), (TimeRange{1000, 2000}));
        z.clearSelection();
        QVERIFY(!z.hasSelection());
        QVERIFY(z.hasMark());
    }

    void pixelMappingRoundTrips() {
        ZoomControl z;
        z.setTraceRange({0, 1000000000});
        z.setVisibleRange({1000000, 2000000});
        QCOMPARE(z.toPixel(1500000, 1000), 500.0);
        QCOMPARE(z.toTime(500, 1000), int64_t(1500000));
        QCOMPARE(z.toTime(0, 1000), int64_t(1000000));
        QCOMPARE(z.toTime(1000, 1000), int64_t(2000000));
    }

    void axisTicksReadWell() {
        // 10 ms on 1000 px with 7 px digits: 1 ms steps (100 px) fit "10.0 ms"-like labels.
        TimeAxisScale s = chooseTimeAxis({0, 10000000000}, 1000, 7);
        QCOMPARE(s.stepPs, int64_t(1000000000));
        QCOMPARE(QString::fromStdString(s.label(3000000000)), QStringLiteral("3 ms"));
        const auto ticks = s.ticks({0, 10000000000});
        QCOMPARE(ticks.size(), size_t(10));
        QCOMPARE(ticks[1], int64_t(1000000000));
        // 50 µs steps read in microseconds, 500 µs ones in milliseconds with one decimal.
        s = chooseTimeAxis({1000000000, 1400000000}, 1000, 7);
        QCOMPARE(s.stepPs, int64_t(50000000));
        QCOMPARE(QString::fromStdString(s.label(1050000000)), QStringLiteral("1050 µs"));
        QCOMPARE(s.ticks({1000000000, 1400000000}).front(), int64_t(1000000000));
        s = chooseTimeAxis({0, 4000000000}, 1000, 7);
        QCOMPARE(s.stepPs, int64_t(500000000));
        QCOMPARE(QString::fromStdString(s.label(1500000000)), QStringLiteral("1.5 ms"));
        // 10 ms steps over 0.16 s read "20 ms", not "0.02 s".
        s = chooseTimeAxis({0, 160000000000}, 1300, 7);
        QCOMPARE(s.stepPs, int64_t(10000000000));
        QCOMPARE(QString::fromStdString(s.label(20000000000)), QStringLiteral("20 ms"));
        // 0.2 µs steps: microseconds with one decimal.
        s = chooseTimeAxis({0, 2000000}, 1000, 7);
        QCOMPARE(s.stepPs, int64_t(200000));
        QCOMPARE(QString::fromStdString(s.label(400000)), QStringLiteral("0.4 µs"));
        // Zoomed in 1.806 s into the profile: offsets from a base shown once, not
        // "1805980 µs". 100 µs on 1000 px: 10 µs steps, base at the last 100 µs boundary.
        s = chooseTimeAxis({1805974000000, 1806074000000}, 1000, 7);
        QCOMPARE(s.stepPs, int64_t(10000000));
        QCOMPARE(s.basePs, int64_t(1805900000000));
        QCOMPARE(QString::fromStdString(s.baseLabel()), QStringLiteral("1.8059 s"));
        QCOMPARE(QString::fromStdString(s.label(1805980000000)), QStringLiteral("+80 µs"));
        QCOMPARE(QString::fromStdString(s.label(1806070000000)), QStringLiteral("+170 µs"));
        // Near the start no base is needed.
        QCOMPARE(chooseTimeAxis({0, 100000000}, 1000, 7).basePs, int64_t(0));
        // Ticks never crowd: at least 60 px apart.
        for (int64_t span : {int64_t(1000), int64_t(123456789), int64_t(98765432109876)}) {
            const TimeAxisScale a = chooseTimeAxis({0, span}, 1600, 7);
            QVERIFY(double(a.stepPs) * 1600 / double(span) >= 60);
        }
    }

    void durationsReadWell() {
        QCOMPARE(QString::fromStdString(formatDuration(850)), QStringLiteral("850 ps"));
        QCOMPARE(QString::fromStdString(formatDuration(12300)), QStringLiteral("12.300 ns"));
        QCOMPARE(QString::fromStdString(formatDuration(4562000)), QStringLiteral("4.562 µs"));
        QCOMPARE(QString::fromStdString(formatDuration(1200000000)), QStringLiteral("1.200 ms"));
        QCOMPARE(QString::fromStdString(formatDuration(3510000000000)), QStringLiteral("3.510 s"));
    }
};

QTEST_GUILESS_MAIN(TestTraceZoom)
#include "test_trace_zoom.moc"
