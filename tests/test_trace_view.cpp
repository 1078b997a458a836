// The trace viewer driven like a user: keys, mouse, search box, details pane, aggregate.
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QThreadPool>
#include <QToolBar>
#include <QToolButton>
#include <QWheelEvent>

#include "model/ProfileBuilder.h"
#include "model/ProfileLoader.h"
#include "tests/fixtures/HloFixtures.h"
#include "views/ToolRegistry.h"
#include "views/trace/TimelineCanvas.h"
#include "views/trace/TraceView.h"
#include "widgets/ViewSettings.h"

using namespace stepscope;

namespace {

struct Fixture {
    std::shared_ptr<const Profile> profile;
    uint32_t stream = 0, thread = 0;
    EventIndex kernel = kNoIndex; // the 2 ms "fused_attention" kernel
};

// A GPU stream with 200 kernels of 40 µs every 50 µs plus one long kernel, and a host thread
// with their launches.
Fixture makeFixture() {
    ProfileBuilder b;
    Fixture f;
    const uint32_t host = b.addHost("h", "");
    const uint32_t cpu = b.addPlane(host, 1, "/host:CPU");
    const uint32_t gpu = b.addPlane(host, 2, "/device:GPU:0");
    f.thread = b.addTrack(cpu, 7, "tf_worker");
    f.stream = b.addTrack(gpu, 134, "Stream #134(Compute)");
    const uint32_t gemm = b.addMetadata(gpu, 1, "volta_sgemm", "");
    const uint32_t attn = b.addMetadata(gpu, 2, "fused_attention", "");
    const uint32_t launch = b.addMetadata(cpu, 3, "cudaLaunchKernel", "");
    const StringId corrKey = b.intern("correlation_id");
    for (int i = 0; i < 200; ++i) {
        b.addEvent(f.thread, int64_t(i) * 50000000, 5000000, launch);
        b.addEventStat(StatValue{corrKey, StatType::Uint64, uint64_t(i)});
        b.addEvent(f.stream, int64_t(i) * 50000000 + 6000000, 40000000, gemm);
        b.addEventStat(StatValue{corrKey, StatType::Uint64, uint64_t(i)});
    }
    b.addEvent(f.stream, 10000000000, 2000000000, attn);
    auto p = b.finish();
    f.kernel = p->eventsByName("fused_attention").front();
    f.profile = std::move(p);
    return f;
}

// Lets every worker finish and delivers what they posted, so a result that should have been
// dropped would have arrived by now.
void settleWorkers() {
    QThreadPool::globalInstance()->waitForDone();
    QTest::qWait(20);
}

// Drags a box over the lane of `kernel`'s stream, nearly edge to edge: every kernel, no launch.
void selectStreamBox(TimelineCanvas* canvas, EventIndex kernel) {
    const QRect area = TimelineRenderer::timelineRect(canvas->size());
    const int y = canvas->pointOf(kernel).y();
    QTest::mousePress(canvas, Qt::LeftButton, {}, QPoint(area.left() + 2, y - 3));
    QTest::mouseMove(canvas, QPoint(area.right() - 100, y));
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, QPoint(area.right() - 2, y + 3));
}

} // namespace

class TestTraceView : public QObject {
    Q_OBJECT

    Fixture fx;
    std::unique_ptr<TraceView> view;
    TimelineCanvas* canvas = nullptr;

private slots:
    void init() {
        fx = makeFixture();
        view = std::make_unique<TraceView>();
        view->resize(1600, 1000);
        view->show();
        QVERIFY(QTest::qWaitForWindowExposed(view.get()));
        QSignalSpy ready(view.get(), &ToolView::ready);
        view->setProfile(fx.profile);
        QVERIFY(view->isReady());
        QVERIFY(ready.wait(2000) || ready.count() == 1);
        canvas = view->canvas();
        canvas->setFocus();
    }
    void cleanup() { view.reset(); }

    void registeredAsTraceViewer() {
        const auto tools = toolRegistry();
        const ToolInfo* t = findTool(tools, "trace_viewer");
        QVERIFY(t);
        QCOMPARE(t->title, QStringLiteral("Trace viewer"));
        QVERIFY(t->available(*fx.profile));
    }

    void startsWithTheWholeProfile() {
        QCOMPARE(canvas->visibleRange(), (TimeRange{0, fx.profile->durationPs()}));
        QCOMPARE(fx.profile->durationPs(), int64_t(12000000000));
    }

    void keysZoomAndPan() {
        const TimeRange whole = canvas->visibleRange();
        QTest::keyClick(canvas, Qt::Key_W);
        const TimeRange zoomed = canvas->visibleRange();
        QVERIFY(zoomed.span() < whole.span());
        QCOMPARE(zoomed.span(), std::llround(double(whole.span()) / 1.5));
        QTest::keyClick(canvas, Qt::Key_A);
        QVERIFY(canvas->visibleRange().start < zoomed.start);
        QCOMPARE(canvas->visibleRange().span(), zoomed.span());
        QTest::keyClick(canvas, Qt::Key_D);
        QTest::keyClick(canvas, Qt::Key_D);
        QVERIFY(canvas->visibleRange().start > zoomed.start);
        QTest::keyClick(canvas, Qt::Key_S);
        QVERIFY(canvas->visibleRange().span() > zoomed.span());
        QTest::keyClick(canvas, Qt::Key_0);
        QCOMPARE(canvas->visibleRange(), whole);
    }

    void fitGpusFramesDeviceActivity() {
        // A host span of 100 ms around 1 ms of GPU work, as in real TF profiles.
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t cpu = b.addPlane(host, 1, "/host:CPU");
        const uint32_t gpu = b.addPlane(host, 2, "/device:GPU:0");
        const uint32_t thread = b.addTrack(cpu, 7, "python3");
        const uint32_t stream = b.addTrack(gpu, 9, "Stream #9(Compute)");
        const uint32_t ops = b.addTrack(gpu, -559038734, "TensorFlow Ops"); // a derived id
        const uint32_t m = b.addMetadata(cpu, 1, "step", "");
        b.setTimeBase(0);
        b.addEvent(thread, 0, 100'000'000'000, m);
        b.addEvent(stream, 80'000'000'000, 400'000'000, m);
        b.addEvent(stream, 80'600'000'000, 400'000'000, m);
        b.addEvent(ops, 10'000'000'000, 1'000'000'000, m); // derived lines do not count
        std::shared_ptr<const Profile> p = b.finish();
        view->setProfile(p);
        QCOMPARE(canvas->deviceActivityRange(), (TimeRange{80'000'000'000, 81'000'000'000}));
        QTest::keyClick(canvas, Qt::Key_G);
        const TimeRange v = canvas->visibleRange();
        QVERIFY(v.start <= 80'000'000'000 && v.end >= 81'000'000'000);
        QVERIFY(v.span() < 2'000'000'000); // the GPU work fills the view, not 1% of it
        QTest::keyClick(canvas, Qt::Key_0);
        QCOMPARE(canvas->visibleRange(), (TimeRange{0, 100'000'000'000}));

        // A profile without device work: nothing to fit, the view stays.
        ProfileBuilder hostOnly;
        const uint32_t h = hostOnly.addHost("h", "");
        const uint32_t c = hostOnly.addPlane(h, 1, "/host:CPU");
        const uint32_t t = hostOnly.addTrack(c, 1, "main");
        hostOnly.setTimeBase(0);
        hostOnly.addEvent(t, 0, 5'000'000, hostOnly.addMetadata(c, 1, "x", ""));
        view->setProfile(std::shared_ptr<const Profile>(hostOnly.finish()));
        QVERIFY(canvas->deviceActivityRange().empty());
        QVERIFY(!canvas->frameDeviceActivity());
    }

    void ctrlWheelZoomsAtTheCursor() {
        const QRect area = TimelineRenderer::timelineRect(canvas->size());
        const QPoint at(area.left() + area.width() / 4, area.top() + 30);
        const int64_t before =
            TimelineRenderer::timeAt(at.x(), {canvas->size(), canvas->visibleRange(), 0});
        QWheelEvent wheel(at, canvas->mapToGlobal(at), QPoint(), QPoint(0, 240), Qt::NoButton,
                          Qt::ControlModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(canvas, &wheel);
        QVERIFY(canvas->visibleRange().span() < fx.profile->durationPs());
        const int64_t after =
            TimelineRenderer::timeAt(at.x(), {canvas->size(), canvas->visibleRange(), 0});
        QVERIFY(std::abs(after - before) < canvas->visibleRange().span() / 1000);
    }

    void plainWheelScrollsShiftWheelPans() {
        // 60 threads: more rows than fit.
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t cpu = b.addPlane(host, 1, "/host:CPU");
        const uint32_t m = b.addMetadata(cpu, 1, "work", "");
        b.setTimeBase(0);
        for (int i = 0; i < 60; ++i)
            b.addEvent(b.addTrack(cpu, i + 1, "thread " + std::to_string(i)), 0, 1'000'000'000, m);
        view->setProfile(std::shared_ptr<const Profile>(b.finish()));
        QVERIFY(canvas->maxScrollY() > 0);
        const TimeRange whole = canvas->visibleRange();
        const QPoint at = TimelineRenderer::timelineRect(canvas->size()).center();
        auto wheel = [&](QPoint delta, Qt::KeyboardModifiers mods) {
            QWheelEvent e(at, canvas->mapToGlobal(at), QPoint(), delta, Qt::NoButton, mods,
                          Qt::NoScrollPhase, false);
            QApplication::sendEvent(canvas, &e);
        };
        wheel({0, -240}, Qt::NoModifier); // two notches down
        QCOMPARE(canvas->scrollY(), 120);
        QCOMPARE(canvas->visibleRange(), whole);
        wheel({0, 120}, Qt::NoModifier);
        QCOMPARE(canvas->scrollY(), 60);
        wheel({0, 240}, Qt::ControlModifier);
        const TimeRange zoomed = canvas->visibleRange();
        QVERIFY(zoomed.span() < whole.span());
        QCOMPARE(canvas->scrollY(), 60);
        wheel({0, -240}, Qt::ShiftModifier); // pans right
        QVERIFY(canvas->visibleRange().start > zoomed.start);
        QCOMPARE(canvas->visibleRange().span(), zoomed.span());
        QCOMPARE(canvas->scrollY(), 60);
    }

    void sectionHeaderStaysPinned() {
        // 60 threads in one section: scrolled down, its header is still drawn at the top and
        // still folds the section.
        ProfileBuilder b;
        const uint32_t host = b.addHost("h", "");
        const uint32_t cpu = b.addPlane(host, 1, "/host:CPU");
        const uint32_t m = b.addMetadata(cpu, 1, "work", "");
        b.setTimeBase(0);
        for (int i = 0; i < 60; ++i)
            b.addEvent(b.addTrack(cpu, i + 1, "thread " + std::to_string(i)), 0, 1'000'000'000, m);
        view->setProfile(std::shared_ptr<const Profile>(b.finish()));
        const int headerY = TimelineRenderer::kAxisHeight + TimelineLayout::kSectionHeight / 2;
        auto headerPixel = [&] {
            canvas->repaint();
            return canvas->grab().toImage().pixelColor(TimelineRenderer::kGutterWidth + 200,
                                                       headerY);
        };
        const QColor band = headerPixel(); // unscrolled: the real header is there
        canvas->setScrollY(400);
        QCOMPARE(canvas->scrollY(), 400);
        QCOMPARE(headerPixel(), band);
        QVERIFY(canvas->hitAt(QPoint(400, headerY)).onHeader);
        QCOMPARE(canvas->hitAt(QPoint(400, headerY)).section, 0);
        QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(400, headerY));
        QVERIFY(canvas->layout()->sections()[0].collapsed);
    }

    void keysWorkAfterUsingOtherWidgets() {
        // A checkbox and a tool button of the toolbar, then the selection table: the timeline's
        // keys still work. In the search box they are text.
        QCheckBox* flows = nullptr;
        for (QCheckBox* c : view->findChildren<QCheckBox*>())
            if (c->text() == "Flows") flows = c;
        QVERIFY(flows);
        QTest::mouseClick(flows, Qt::LeftButton);
        QVERIFY(!flows->isChecked());
        flows->setFocus();
        QTRY_VERIFY(flows->hasFocus());
        const TimeRange whole = canvas->visibleRange();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_W);
        QVERIFY(canvas->visibleRange().span() < whole.span());
        QVERIFY(!flows->isChecked()); // the key went to the timeline, not to the box
        QToolButton* pan = nullptr;
        for (QToolButton* b : view->findChildren<QToolButton*>())
            if (b->text() == "Pan") pan = b;
        QVERIFY(pan);
        pan->setFocus();
        QTest::mouseClick(pan, Qt::LeftButton);
        QCOMPARE(canvas->tool(), TimelineCanvas::Tool::Pan);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_1);
        QCOMPARE(canvas->tool(), TimelineCanvas::Tool::Select);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_0);
        QCOMPARE(canvas->visibleRange(), whole);
        view->searchBox()->setFocus();
        QTest::keyClicks(view->searchBox(), "ws");
        QCOMPARE(view->searchBox()->text(), QString("ws"));
        QCOMPARE(canvas->visibleRange(), whole);
    }

    void questionMarkShowsTheShortcutSheet() {
        QTest::keyClick(canvas, Qt::Key_Question, Qt::ShiftModifier);
        auto* sheet = view->window()->findChild<QDialog*>("shortcutSheet");
        QVERIFY(sheet);
        QVERIFY(sheet->isVisible());
        const QString text = sheet->findChild<QTextBrowser*>()->toPlainText();
        QVERIFY(text.contains("Ctrl+wheel"));
        QVERIFY(text.contains("Zoom at the cursor"));
        sheet->hide();
    }

    void eventContextMenu() {
        QMenu* menu = view->contextMenu(canvas->pointOf(fx.kernel));
        std::unique_ptr<QMenu> owned(menu);
        QStringList texts;
        for (QAction* a : menu->actions())
            if (!a->isSeparator()) texts << a->text();
        QCOMPARE(texts,
                 (QStringList{"Copy name", "Find all with this name", "Zoom to it",
                              "Show op fused_attention in op stats", "Show in kernel stats"}));
        auto action = [&](const QString& text) {
            for (QAction* a : menu->actions())
                if (a->text() == text) return a;
            return static_cast<QAction*>(nullptr);
        };
        action("Copy name")->trigger();
        QCOMPARE(QApplication::clipboard()->text(), QString("fused_attention"));
        // No kernel details in this fixture: nothing to show in kernel stats.
        QVERIFY(!action("Show in kernel stats")->isEnabled());
        QSignalSpy show(view.get(), &ToolView::showNameRequested);
        action("Show op fused_attention in op stats")->trigger();
        QCOMPARE(show.count(), 1);
        QCOMPARE(show.at(0).at(0).toString(), QString("tf_stats"));
        QCOMPARE(show.at(0).at(1).toString(), QString("fused_attention"));
        // Zoom: the 2 ms kernel fills a third of a 6 ms window, kept inside the profile.
        action("Zoom to it")->trigger();
        QCOMPARE(canvas->selectedEvent(), fx.kernel);
        QCOMPARE(canvas->visibleRange(), (TimeRange{6'000'000'000, 12'000'000'000}));
    }

    void findAllWithThisName() {
        // The 200 launches, found by their exact name.
        canvas->setVisibleRange({0, 200'000'000});
        const EventIndex launch = fx.profile->eventsByName("cudaLaunchKernel")[0];
        std::unique_ptr<QMenu> menu(view->contextMenu(canvas->pointOf(launch)));
        QSignalSpy done(view.get(), &TraceView::searchFinished);
        menu->actions()[1]->trigger();
        QVERIFY(done.wait(5000));
        QCOMPARE(view->searchHits().size(), size_t(200));
        QCOMPARE(view->searchBox()->text(), QString("^cudaLaunchKernel$"));
    }

    void trackContextMenuHidesAndCollapses() {
        const int streamRow = canvas->layout()->rowOfTrack(fx.stream);
        const TimelineFrame f{canvas->size(), canvas->visibleRange(), canvas->scrollY()};
        const int y =
            TimelineRenderer::canvasY(canvas->layout()->rows()[size_t(streamRow)].y, f) + 5;
        std::unique_ptr<QMenu> menu(view->contextMenu(QPoint(40, y)));
        QStringList texts;
        for (QAction* a : menu->actions()) texts << a->text();
        QCOMPARE(texts, (QStringList{"Collapse other sections", "Hide Stream #134 (Compute)"}));
        menu->actions()[1]->trigger();
        QCOMPARE(canvas->layout()->rowOfTrack(fx.stream), -1);
        QCOMPARE(canvas->layout()->hiddenTrackCount(), size_t(1));
        // The header now says so, and any header offers to show it again.
        QVERIFY(canvas->layout()->rows()[0].label.find("1 hidden") != std::string::npos);
        menu.reset(view->contextMenu(QPoint(40, TimelineRenderer::kAxisHeight + 5)));
        QCOMPARE(menu->actions().back()->text(), QString("Show 1 hidden track(s)"));
        menu->actions().back()->trigger();
        QVERIFY(canvas->layout()->rowOfTrack(fx.stream) >= 0);
        // Collapse the others: the host section folds, the device section stays open.
        menu.reset(view->contextMenu(QPoint(40, TimelineRenderer::kAxisHeight + 5)));
        menu->actions()[0]->trigger();
        QVERIFY(!canvas->layout()->sections()[0].collapsed);
        QVERIFY(canvas->layout()->sections()[1].collapsed);
        // Selecting an event of a hidden track shows it again.
        canvas->setTrackHidden(fx.stream, true);
        view->focusEvent(fx.kernel);
        QVERIFY(canvas->layout()->rowOfTrack(fx.stream) >= 0);
    }

    void flowsUncheckedDrawNoArrows() {
        // A launch and its kernel; the strip between the stream's lane and the thread's lane
        // holds nothing but the arrow.
        canvas->setVisibleRange({0, 100'000'000});
        const EventIndex gemm = fx.profile->eventsByName("volta_sgemm")[0];
        const EventIndex launch = fx.profile->launchesOf(gemm)[0];
        const int top = canvas->pointOf(gemm).y() + TimelineLayout::kLaneHeight / 2 + 2;
        const int bottom = canvas->pointOf(launch).y() - TimelineLayout::kLaneHeight / 2 - 2;
        QVERIFY(bottom > top);
        const QRect strip(TimelineRenderer::kGutterWidth, top,
                          canvas->width() - TimelineRenderer::kGutterWidth, bottom - top);
        auto grabStrip = [&] {
            canvas->repaint();
            return canvas->grab().toImage().copy(strip);
        };
        canvas->selectEvent(kNoIndex, TimelineCanvas::Framing::None);
        canvas->setShowFlows(false);
        const QImage nothing = grabStrip();
        canvas->selectEvent(launch, TimelineCanvas::Framing::None);
        const QImage selectedWithoutFlows = grabStrip();
        canvas->setShowFlows(true);
        const QImage selectedWithFlows = grabStrip();
        QVERIFY(selectedWithFlows != nothing);   // the arrow is drawn with flows on
        QCOMPARE(selectedWithoutFlows, nothing); // and not at all with flows off
    }

    void searchKeepsTheZoomWhenTheHitFits() {
        QSignalSpy done(view.get(), &TraceView::searchFinished);
        QTest::keyClicks(view->searchBox(), "cuda");
        QVERIFY(done.wait(5000));
        // 1 ms holds launches 0..19 (every 50 µs): the first two hits keep the view.
        const TimeRange oneMs{0, 1'000'000'000};
        canvas->setVisibleRange(oneMs);
        QTest::keyClick(view->searchBox(), Qt::Key_Return);
        QCOMPARE(canvas->selectedEvent(), view->searchHits()[0]);
        QCOMPARE(canvas->visibleRange(), oneMs);
        QTest::keyClick(view->searchBox(), Qt::Key_Return);
        QCOMPARE(canvas->visibleRange(), oneMs);
        // The last hit (at 9.95 ms) is off screen: same zoom, centred on it.
        QTest::keyClick(view->searchBox(), Qt::Key_Return, Qt::ShiftModifier);
        QTest::keyClick(view->searchBox(), Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(canvas->selectedEvent(), view->searchHits()[199]);
        const int64_t centre = int64_t(199) * 50'000'000 + 2'500'000;
        QCOMPARE(canvas->visibleRange(), (TimeRange{centre - 500'000'000, centre + 500'000'000}));
        // A hit longer than the view: framed with its own length either side.
        view->searchBox()->setText("attention");
        QVERIFY(done.wait(5000));
        canvas->setVisibleRange({0, 1'000'000});
        QTest::keyClick(view->searchBox(), Qt::Key_Return);
        QCOMPARE(canvas->selectedEvent(), fx.kernel);
        QCOMPARE(canvas->visibleRange(), (TimeRange{6'000'000'000, 12'000'000'000}));
    }

    void contextFramingShowsNeighbours() {
        // A 5 µs launch is framed in at least 20 µs, never alone in a 1 µs window.
        const EventIndex launch = fx.profile->eventsByName("cudaLaunchKernel")[10];
        view->focusEvent(launch);
        const int64_t centre = fx.profile->start(launch) + 2'500'000;
        QCOMPARE(canvas->visibleRange(), (TimeRange{centre - 10'000'000, centre + 10'000'000}));
    }

    void smallWindow() {
        QVERIFY2(view->minimumSizeHint().width() <= 1024 - 260,
                 qPrintable(QString::number(view->minimumSizeHint().width())));
        view->resize(1024 - 260, 560);
        QTRY_COMPARE(view->width(), 1024 - 260);
        QVERIFY(view->searchBox()->isVisible());
        QVERIFY(view->searchBox()->geometry().right() <= view->width());
        // Narrower still, the tool bar moves what does not fit into its » menu and stays inside.
        auto* bar = view->findChild<QToolBar*>("traceToolBar");
        QVERIFY(bar);
        auto* more = bar->findChild<QToolButton*>("qt_toolbar_ext_button");
        QVERIFY(more);
        QVERIFY(!more->isVisible());
        QVERIFY2(view->minimumSizeHint().width() <= 480,
                 qPrintable(QString::number(view->minimumSizeHint().width())));
        view->resize(480, 560);
        QTRY_COMPARE(view->width(), 480);
        QTRY_VERIFY(more->isVisible());
        QVERIFY(bar->geometry().right() <= view->width());
        QVERIFY(!view->searchBox()->isVisible()); // in the » menu
        view->resize(1024 - 260, 560);
        QTRY_VERIFY(!more->isVisible());
        QTRY_VERIFY(view->searchBox()->isVisible());
        // Wide, the box stops growing (the gap before it takes the rest).
        view->resize(1900, 560);
        QTRY_COMPARE(view->width(), 1900);
        QTRY_COMPARE(view->searchBox()->width(), 320);
    }

    void toolKeys() {
        QTest::keyClick(canvas, Qt::Key_2);
        QCOMPARE(canvas->tool(), TimelineCanvas::Tool::Pan);
        QTest::keyClick(canvas, Qt::Key_3);
        QCOMPARE(canvas->tool(), TimelineCanvas::Tool::Zoom);
        QTest::keyClick(canvas, Qt::Key_4);
        QCOMPARE(canvas->tool(), TimelineCanvas::Tool::Timing);
        QTest::keyClick(canvas, Qt::Key_1);
        QCOMPARE(canvas->tool(), TimelineCanvas::Tool::Select);
    }

    void clickSelectsFrameAndEscClears() {
        // The kernel is the last sixth of the profile: its point is the middle of that span,
        // on its stream's first lane.
        const QPoint p = canvas->pointOf(fx.kernel);
        const TimelineFrame frame{canvas->size(), canvas->visibleRange(), canvas->scrollY()};
        const int64_t pixelPs =
            frame.visible.span() / TimelineRenderer::timelineRect(frame.size).width();
        const int64_t middle = (fx.profile->start(fx.kernel) + fx.profile->end(fx.kernel)) / 2;
        QVERIFY(std::abs(TimelineRenderer::timeAt(p.x(), frame) - middle) <= 2 * pixelPs);
        const LayoutHit hit = canvas->layout()->hitTest(TimelineRenderer::layoutY(p.y(), frame));
        QCOMPARE(hit.track, fx.stream);
        QCOMPARE(hit.depth, 0u);
        QVERIFY(hit.inLane);
        QTest::mouseClick(canvas, Qt::LeftButton, {}, p);
        QCOMPARE(canvas->selectedEvent(), fx.kernel);
        QVERIFY(view->detailsPane()->toPlainText().contains("fused_attention"));
        QVERIFY(view->detailsPane()->toPlainText().contains("2.000 ms"));
        QTest::keyClick(canvas, Qt::Key_F);
        const TimeRange framed = canvas->visibleRange();
        QVERIFY(framed.start <= fx.profile->start(fx.kernel));
        QVERIFY(framed.end >= fx.profile->end(fx.kernel));
        // Thrice its length (6 ms) around it, moved back inside the 12 ms profile: 6 to 12 ms.
        QCOMPARE(framed, (TimeRange{6'000'000'000, 12'000'000'000}));
        QTest::keyClick(canvas, Qt::Key_M);
        QVERIFY(canvas->zoom().hasMark());
        QTest::keyClick(canvas, Qt::Key_Escape);
        QCOMPARE(canvas->selectedEvent(), kNoIndex);
        QVERIFY(view->detailsPane()->toPlainText().isEmpty());
        QTest::keyClick(canvas, Qt::Key_Escape);
        QVERIFY(!canvas->zoom().hasMark());
    }

    void clickOnEmptySpaceClears() {
        QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->pointOf(fx.kernel));
        QCOMPARE(canvas->selectedEvent(), fx.kernel);
        const QRect area = TimelineRenderer::timelineRect(canvas->size());
        QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(area.left() + 10, area.bottom() - 5));
        QCOMPARE(canvas->selectedEvent(), kNoIndex);
    }

    void timingDragAggregates() {
        QTest::keyClick(canvas, Qt::Key_4);
        const QRect area = TimelineRenderer::timelineRect(canvas->size());
        // Drag from the left edge across the first sixth of the 12 ms profile (2 ms: the first
        // 40 kernels and their launches).
        const int x0 = area.left(), x1 = area.left() + area.width() / 6;
        QSignalSpy aggregated(view.get(), &TraceView::selectionAggregated);
        QTest::mousePress(canvas, Qt::LeftButton, {}, QPoint(x0, area.top() + 40));
        QTest::mouseMove(canvas, QPoint((x0 + x1) / 2, area.top() + 60));
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, QPoint(x1, area.top() + 80));
        QVERIFY(canvas->hasRangeSelection());
        const TimeRange r = canvas->rangeSelection();
        QCOMPARE(r.start, int64_t(0));
        QVERIFY(aggregated.count() == 1 || aggregated.wait(5000));
        const Table& t = view->selectionTable();
        QCOMPARE(t.rowCount(), size_t(2));
        // Launches every 50 ms: those starting before r.end.
        const int64_t launches = (r.end + 50000000 - 1) / 50000000;
        const size_t name = size_t(t.columnIndex("Name")), count = size_t(t.columnIndex("Count"));
        for (size_t row = 0; row < 2; ++row) {
            if (t.text(row, name) == "cudaLaunchKernel")
                QCOMPARE(int64_t(t.number(row, count)), launches);
        }
    }

    void boxSelectCoversOnlyTheLanesDragged() {
        const QRect area = TimelineRenderer::timelineRect(canvas->size());
        const int yStream = canvas->pointOf(fx.kernel).y();
        QSignalSpy aggregated(view.get(), &TraceView::selectionAggregated);
        QTest::mousePress(canvas, Qt::LeftButton, {}, QPoint(area.left() + 2, yStream - 3));
        QTest::mouseMove(canvas, QPoint(area.right() - 100, yStream));
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, QPoint(area.right() - 2, yStream + 3));
        QVERIFY(aggregated.count() == 1 || aggregated.wait(5000));
        const Table& t = view->selectionTable();
        QCOMPARE(t.rowCount(), size_t(2)); // gemm and attention; no launches
        QCOMPARE(t.text(0, 2), std::string("volta_sgemm"));
        QCOMPARE(t.number(0, 3), 200.0);
        QCOMPARE(t.text(1, 2), std::string("fused_attention"));
        QCOMPARE(t.text(1, 1), std::string("/device:GPU:0 · Stream #134 (Compute)"));
    }

    void selectionSummaryResetsOnANewProfile() {
        const QString hint = view->selectionSummary()->text();
        QVERIFY(!hint.isEmpty());
        QSignalSpy aggregated(view.get(), &TraceView::selectionAggregated);
        selectStreamBox(canvas, fx.kernel);
        QVERIFY(aggregated.wait(5000));
        QVERIFY(
            view->selectionSummary()->text().startsWith("201 events, 2 rows (name per track) in "));
        view->setProfile(makeFixture().profile);
        QCOMPARE(view->selectionSummary()->text(), hint);
        QCOMPARE(view->selectionTable().rowCount(), size_t(0));

        // A new profile while the aggregate is still running: no "Aggregating…" left behind, and
        // the old profile's result never arrives.
        selectStreamBox(canvas, fx.kernel);
        QVERIFY(view->aggregateRunning());
        QVERIFY(view->selectionSummary()->text().startsWith("Aggregating 201 events"));
        view->setProfile(makeFixture().profile);
        QVERIFY(!view->aggregateRunning());
        QCOMPARE(view->selectionSummary()->text(), hint);
        settleWorkers();
        QCOMPARE(aggregated.count(), 1);
        QCOMPARE(view->selectionSummary()->text(), hint);
        QCOMPARE(view->selectionTable().rowCount(), size_t(0));
    }

    void clearingTheRangeDropsTheRunningAggregate() {
        QSignalSpy aggregated(view.get(), &TraceView::selectionAggregated);
        selectStreamBox(canvas, fx.kernel);
        QVERIFY(view->aggregateRunning());
        QTest::keyClick(canvas, Qt::Key_Escape);
        QVERIFY(!canvas->hasRangeSelection());
        QVERIFY(!view->aggregateRunning());
        settleWorkers();
        QCOMPARE(aggregated.count(), 0);
        QCOMPARE(view->selectionSummary()->text(), QStringLiteral("No selection."));
        QCOMPARE(view->selectionTable().rowCount(), size_t(0));
    }

    void enterRightAfterTypingStepsToTheFirstHit() {
        QSignalSpy done(view.get(), &TraceView::searchFinished);
        QTest::keyClicks(view->searchBox(), "attention");
        QTest::keyClick(view->searchBox(), Qt::Key_Return);
        QVERIFY(view->searchRunning());
        QVERIFY(done.wait(5000));
        QCOMPARE(canvas->selectedEvent(), fx.kernel);
        QCOMPARE(view->currentHit(), 0);
    }

    // Enter during a search steps to that search's first hit, and to no later search's.
    void pendingEnterIsDroppedWithItsSearch() {
        QSignalSpy done(view.get(), &TraceView::searchFinished);
        QTest::keyClicks(view->searchBox(), "cuda");
        QTest::keyClick(view->searchBox(), Qt::Key_Return);
        QVERIFY(view->searchRunning());
        view->searchBox()->setText("volta");
        QVERIFY(done.wait(5000));
        QCOMPARE(done.count(), 1);
        QCOMPARE(fx.profile->name(view->searchHits().front()), std::string_view("volta_sgemm"));
        QCOMPARE(canvas->selectedEvent(), kNoIndex);
        QCOMPARE(view->currentHit(), -1);

        // Cleared text, then a new search.
        QTest::keyClick(view->searchBox(), Qt::Key_Return);
        QCOMPARE(canvas->selectedEvent(), view->searchHits().front());
        QTest::keyClick(canvas, Qt::Key_Escape);
        view->searchBox()->setText("cuda");
        QTest::keyClick(view->searchBox(), Qt::Key_Return);
        QVERIFY(view->searchRunning());
        view->searchBox()->clear();
        settleWorkers();
        QVERIFY(!view->searchRunning());
        QVERIFY(view->searchHits().empty());
        view->searchBox()->setText("attention");
        QVERIFY(done.wait(5000));
        QCOMPARE(view->searchHits().size(), size_t(1));
        QCOMPARE(canvas->selectedEvent(), kNoIndex);

        // A new profile restarts the search, without the step.
        view->searchBox()->setText("cuda");
        QTest::keyClick(view->searchBox(), Qt::Key_Return);
        QVERIFY(view->searchRunning());
        view->setProfile(makeFixture().profile);
        QVERIFY(done.wait(5000));
        QCOMPARE(view->searchHits().size(), size_t(200));
        QCOMPARE(canvas->selectedEvent(), kNoIndex);
        QCOMPARE(view->currentHit(), -1);
    }

    void searchStepsThroughHits() {
        QSignalSpy done(view.get(), &TraceView::searchFinished);
        QTest::keyClicks(view->searchBox(), "ATTENTION");
        QVERIFY(done.wait(5000));
        QCOMPARE(view->searchHits().size(), size_t(1));
        view->searchBox()->clear();
        QTest::keyClicks(view->searchBox(), "cuda");
        QVERIFY(done.wait(5000));
        QCOMPARE(view->searchHits().size(), size_t(200));
        QTest::keyClick(view->searchBox(), Qt::Key_Return);
        QCOMPARE(canvas->selectedEvent(), view->searchHits()[0]);
        QTest::keyClick(view->searchBox(), Qt::Key_Return);
        QCOMPARE(canvas->selectedEvent(), view->searchHits()[1]);
        QVERIFY(canvas->visibleRange().start <= fx.profile->start(view->searchHits()[1]));
        QVERIFY(canvas->visibleRange().end >= fx.profile->end(view->searchHits()[1]));
        QTest::keyClick(view->searchBox(), Qt::Key_Return, Qt::ShiftModifier);
        QTest::keyClick(view->searchBox(), Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(canvas->selectedEvent(), view->searchHits()[199]);
    }

    void focusEventFramesAndShowsDetails() {
        view->focusEvent(fx.kernel);
        QCOMPARE(canvas->selectedEvent(), fx.kernel);
        // The 2 ms kernel (10 to 12 ms) fills a third of a 6 ms view, which ends with the
        // profile at 12 ms.
        QCOMPARE(canvas->visibleRange(), (TimeRange{6'000'000'000, 12'000'000'000}));
        QVERIFY(view->detailsPane()->toPlainText().contains("fused_attention"));
    }

    void longNamesFoldInTheDetailsPane() {
        const std::string longName = "void Eigen::internal::EigenMetaKernel<" +
                                     std::string(549, 'T') + ", long>(long)"; // 600 characters
        ProfileBuilder b;
        const uint32_t gpu = b.addPlane(b.addHost("h", ""), 2, "/device:GPU:0");
        const uint32_t stream = b.addTrack(gpu, 7, "Stream #7(Compute)");
        b.setTimeBase(0);
        b.addEvent(stream, 0, 1'000'000, b.addMetadata(gpu, 1, longName, ""));
        auto p = std::shared_ptr<const Profile>(b.finish());
        QCOMPARE(longName.size(), size_t(600));
        view->setProfile(p);
        view->focusEvent(0);
        const QString folded = view->detailsPane()->toPlainText();
        QVERIFY(!folded.contains(QString::fromStdString(longName)));
        QVERIFY(folded.contains("show all 600 characters"));
        QVERIFY(folded.contains("Duration"));
        emit view->detailsPane()->anchorClicked(QUrl("expand:0"));
        QVERIFY(view->detailsPane()->toPlainText().contains(QString::fromStdString(longName)));
    }

    void detailsPaneHeightIsRemembered() {
        QTemporaryDir dir;
        QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
        setViewSettings(&settings);
        QList<int> expected;
        {
            TraceView first;
            first.resize(1200, 900);
            first.show();
            QVERIFY(QTest::qWaitForWindowExposed(&first));
            auto* split = first.findChild<QSplitter*>("traceSplitter");
            split->setSizes({450, 400});
            expected = split->sizes();
            emit split->splitterMoved(450, 1); // as a drag of the handle reports it
        }
        TraceView again;
        again.resize(1200, 900);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        const QList<int> sizes = again.findChild<QSplitter*>("traceSplitter")->sizes();
        setViewSettings(nullptr);
        QCOMPARE(sizes, expected);
        QVERIFY(expected[1] > 300); // the dragged split, not the 780:220 default
    }

    void detailsLinkJumpsToLaunch() {
        const EventIndex gemm = fx.profile->eventsByName("volta_sgemm")[3];
        view->focusEvent(gemm);
        QVERIFY(view->detailsPane()->toHtml().contains("event:"));
        const auto launches = fx.profile->launchesOf(gemm);
        QCOMPARE(launches.size(), size_t(1));
        emit view->detailsPane()->anchorClicked(QUrl(QStringLiteral("event:%1").arg(launches[0])));
        QCOMPARE(canvas->selectedEvent(), launches[0]);
    }

    void detailsShowTheHloInstruction() {
        const std::vector<uint8_t> bytes = fixtures::commandBufferFixture().encode();
        const LoadResult r = loadXSpaceBytes(bytes, "fixture-host");
        QVERIFY2(r.ok(), r.error.c_str());
        const EventIndex gemm = r.profile->eventsByName("nvjet_sm90_tst_fixture").at(0);
        QSignalSpy built(view.get(), &TraceView::hloCatalogReady);
        view->setProfile(r.profile);
        QVERIFY(!view->hloCatalog());
        // Selected before the catalog is in: the pane fills in when it arrives.
        view->focusEvent(gemm);
        QVERIFY(!view->detailsPane()->toPlainText().contains("HLO instruction"));
        QVERIFY(built.wait(5000) || built.count() == 1);
        QVERIFY(view->hloCatalog());
        const QString text = view->detailsPane()->toPlainText();
        for (const char* row :
             {"HLO instruction\ncustom-call.0 (custom-call, __cublas$lt$matmul)",
              "HLO module\njit_step (program id 7)", "Op path\njit(step)/dot_general",
              "Source\nstep.py:12", "HLO precision\nbf16 (matrix op)",
              "HLO attribution\nvia command buffer", "the schedule of main",
              "Graph launch\nCUDA graph 3, correlation id 9, launched by cuGraphLaunch"})
            QVERIFY2(text.contains(QString::fromUtf8(row)), qPrintable(row + ("\n" + text)));
        // The kernel run outside the graph is named by its own hlo_op: no alignment, no launch.
        const EventIndex alone = r.profile->eventsByName("loop_convert_fusion").at(1);
        view->focusEvent(alone);
        const QString direct = view->detailsPane()->toPlainText();
        QVERIFY2(direct.contains("HLO instruction\nloop_convert_fusion (fusion, kLoop)"),
                 qPrintable(direct));
        QVERIFY(direct.contains("HLO precision\nbf16"));
        QVERIFY(!direct.contains("HLO attribution"));
        QVERIFY(!direct.contains("Graph launch"));
        // Another profile drops the catalog at once.
        view->setProfile(fx.profile);
        QVERIFY(!view->hloCatalog());
    }

    void clickOnSectionHeaderFolds() {
        const int before = canvas->layout()->totalHeight();
        QTest::mouseClick(canvas, Qt::LeftButton, {},
                          QPoint(40, TimelineRenderer::kAxisHeight + 5));
        QVERIFY(canvas->layout()->sections()[0].collapsed);
        QVERIFY(canvas->layout()->totalHeight() < before);
        // Selecting an event in a folded section unfolds it.
        view->focusEvent(fx.kernel);
        QVERIFY(!canvas->layout()->sections()[0].collapsed);
    }
};

QTEST_MAIN(TestTraceView)
#include "test_trace_view.moc"
