// The Compare runs page's "Stacked trace": the step pair in the trace viewer, the slower op's
// events outlined, a picked diff row lit up in both runs and the rest dimmed. Fixture: the
// KernelSlower pair of tests/fixtures/DiffFixtures.h. With STEPSCOPE_SHOTS set to a folder, the
// page is also saved there as stacked_trace.png (1280x720) for a person to look at. The trace keys
// act only with focus inside the stacked trace. Host op rows are outlined and linked too
// (tests/fixtures/HostOpFixtures.h).
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include <fstream>

#include "model/ProfileLoader.h"
#include "model/analysis/RunDiffTable.h"
#include "tests/fixtures/DiffFixtures.h"
#include "tests/fixtures/HostOpFixtures.h"
#include "views/run_diff/RunDiffView.h"
#include "views/trace/EventPalette.h"
#include "views/trace/TimelineCanvas.h"
#include "views/trace/TraceView.h"
#include "widgets/DataTableView.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {
constexpr int kTimeoutMs = 60000;
constexpr const char* kGemm = "volta_sgemm_128x64_nn";
constexpr int64_t kUs = 1'000'000;
} // namespace

class TestStackedTraceView : public QObject {
    Q_OBJECT

private slots:
    // Pair 0 of KernelSlower: baseline step 0 with gemm 505 µs (500 + J[0]) and relu 100 µs,
    // candidate step 0 with gemm 605 µs and relu 100 µs. MatMul is the one slower op (and its
    // kernel the one slower kernel), so exactly the two gemm events carry the red outline.
    void stackedTraceOfTheFirstPair() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto [base, candidate] = diffFixture(DiffScenario::KernelSlower);
        const QString basePath = dir.filePath("base.xplane.pb");
        const QString candidatePath = dir.filePath("cand.xplane.pb");
        QVERIFY(writeFile(basePath, base.encode()));
        QVERIFY(writeFile(candidatePath, candidate.encode()));
        const LoadResult b = loadPath(basePath.toStdString());
        QVERIFY(b.ok());

        RunDiffView view;
        view.resize(1280, 720);
        view.show();
        view.setProfile(b.profile);
        view.setCandidatePath(candidatePath);
        QTRY_VERIFY_WITH_TIMEOUT(view.isReady() && view.diff(), kTimeoutMs);
        StackedTraceView* stacked = view.stackedTrace();
        QVERIFY(stacked->stacked());
        const Profile& p = *stacked->stacked()->runs.profile;
        QCOMPARE(p.hosts().size(), size_t(2));
        QVERIFY(QString::fromStdString(p.hosts()[0].name).startsWith("Baseline · "));
        QVERIFY(QString::fromStdString(p.hosts()[1].name).startsWith("Candidate · "));
        QVERIFY2(stacked->infoText().contains("Baseline step 0") &&
                     stacked->infoText().contains("candidate step 0"),
                 qPrintable(stacked->infoText()));
        QCOMPARE(stacked->trace()->canvas()->profile(), &p);

        TimelineCanvas* canvas = stacked->trace()->canvas();
        const auto flagged = canvas->overlay().flagged;
        QVERIFY(flagged);
        QCOMPARE(flagged->size(), size_t(2));
        std::vector<int64_t> gemmUs;
        for (EventIndex e : *flagged) {
            QCOMPARE(p.name(e), std::string_view(kGemm));
            gemmUs.push_back(p.duration(e) / kUs);
        }
        std::sort(gemmUs.begin(), gemmUs.end());
        QCOMPARE(gemmUs, (std::vector<int64_t>{505, 605}));
        // Both gemms start 10 µs into their steps: at the same stacked time.
        QCOMPARE(p.start((*flagged)[0]), p.start((*flagged)[1]));
        QVERIFY(!canvas->overlay().linked);

        // The relu events (one per run): where the gemm link must dim them.
        std::vector<EventIndex> relus;
        for (EventIndex e = 0; e < p.eventCount(); ++e)
            if (p.name(e) == "elementwise_relu_kernel") relus.push_back(e);
        QCOMPARE(relus.size(), size_t(2));
        QTRY_VERIFY(canvas->pointOf(relus[0]).x() >= 0);
        const QPoint reluAt = canvas->pointOf(relus[0]);
        const QPoint gemmAt = canvas->pointOf((*flagged)[0]);
        const QColor reluBefore = canvas->grab().toImage().pixelColor(reluAt);

        // Double-clicking the MatMul row of the ops table links its events in both runs.
        const Table& ops = view.tableView()->table();
        const int nameColumn = ops.columnIndex("Operation");
        int matMulRow = -1;
        for (size_t r = 0; r < ops.rowCount(); ++r)
            if (ops.text(r, size_t(nameColumn)) == "model/dense/MatMul") matMulRow = int(r);
        QVERIFY(matMulRow >= 0);
        emit view.tableView()->rowActivated(matMulRow);
        const auto linked = canvas->overlay().linked;
        QVERIFY(linked);
        QCOMPARE(*linked, *flagged);
        const QImage after = canvas->grab().toImage();
        // The relu is dimmed: paler (closer to white) than before; the gemm is drawn over the
        // veil in its own colour (the palette's colour of its name).
        QVERIFY2(
            after.pixelColor(reluAt).lightness() > reluBefore.lightness(),
            qPrintable(
                QString("%1 -> %2").arg(reluBefore.name()).arg(after.pixelColor(reluAt).name())));
        QCOMPARE(after.pixelColor(gemmAt).name(),
                 QColor::fromRgb(EventPalette::colorForName(kGemm)).name());

        if (const QByteArray shots = qgetenv("STEPSCOPE_SHOTS"); !shots.isEmpty())
            QVERIFY(view.grab().save(QString::fromLocal8Bit(shots) + "/stacked_trace.png"));

        // The kernel table links by kernel name; a category row clears the link.
        view.setTableKind(DiffBy::Kernel);
        emit view.tableView()->rowActivated(0);
        QVERIFY(canvas->overlay().linked);
        QCOMPARE(canvas->overlay().linked->size(), size_t(2));
        view.setTableKind(DiffBy::Category);
        emit view.tableView()->rowActivated(0);
        QVERIFY(!canvas->overlay().linked);

        // Another pair: stacked again, without the link of the pair before.
        view.showStepPair(3);
        QTRY_VERIFY_WITH_TIMEOUT(view.isReady(), kTimeoutMs);
        QVERIFY(stacked->stacked());
        QVERIFY(stacked->infoText().contains("Baseline step 3"));
        QVERIFY(!canvas->overlay().linked);
        // A pair that does not exist clears the pane instead of failing.
        view.showStepPair(99);
        QVERIFY(view.isReady());
        QVERIFY(!stacked->stacked());
        QVERIFY(!stacked->trace()->canvas()->profile());
    }

    // Host ops: 8 steps of op_0..op_2 (self 90, 30, 50 µs); the candidate's op_1 has 60 µs in
    // every step (all ties: p = 1.4e-4, 10 tests in the family; shift 30 µs, slower). Its host
    // events, one per run in the stacked step pair, carry the outline; double-clicking its row in
    // the Host ops tab links them.
    void hostOpRowsOutlinedAndLinked() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString basePath = dir.filePath("base.pt.trace.json");
        const QString candidatePath = dir.filePath("cand.pt.trace.json");
        std::ofstream(basePath.toStdString())
            << jitterTraceText(std::vector<JitterStep>(8, {{90, 30, 50}}));
        std::ofstream(candidatePath.toStdString())
            << jitterTraceText(std::vector<JitterStep>(8, {{90, 60, 50}}));
        RunDiffView view;
        view.resize(1280, 720);
        view.show();
        view.setProfile(loadPath(basePath.toStdString()).profile);
        view.setCandidatePath(candidatePath);
        QTRY_VERIFY_WITH_TIMEOUT(view.isReady() && view.stackedTrace()->stacked(), kTimeoutMs);
        const Profile& p = *view.stackedTrace()->stacked()->runs.profile;
        TimelineCanvas* canvas = view.stackedTrace()->trace()->canvas();
        QVERIFY(canvas->overlay().flagged);
        std::vector<EventIndex> op1;
        for (EventIndex e = 0; e < p.eventCount(); ++e)
            if (p.name(e) == "op_1") op1.push_back(e);
        QCOMPARE(op1.size(), size_t(2));
        QCOMPARE(*canvas->overlay().flagged, op1);
        view.setTableKind(DiffBy::HostOp);
        const Table& t = view.tableView()->table();
        int row = -1;
        for (size_t r = 0; r < t.rowCount(); ++r)
            if (t.text(r, size_t(t.columnIndex("Operation"))) == "op_1") row = int(r);
        QVERIFY(row >= 0);
        QCOMPARE(t.text(size_t(row), size_t(t.columnIndex("Class"))), std::string("slower"));
        emit view.tableView()->rowActivated(row);
        QVERIFY(canvas->overlay().linked);
        QCOMPARE(*canvas->overlay().linked, op1);
    }

    // The trace keys (W zooms in) act on the stacked trace only while focus is inside it: typed
    // on the diff table of the same page they do nothing to it (they used to zoom it); typed on
    // the stacked trace's details pane, or its timeline, they zoom it.
    void keysActOnlyWithFocusInside() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto [base, candidate] = diffFixture(DiffScenario::KernelSlower);
        const QString basePath = dir.filePath("base.xplane.pb");
        const QString candidatePath = dir.filePath("cand.xplane.pb");
        QVERIFY(writeFile(basePath, base.encode()));
        QVERIFY(writeFile(candidatePath, candidate.encode()));
        RunDiffView view;
        view.resize(1280, 720);
        view.show();
        view.setProfile(loadPath(basePath.toStdString()).profile);
        view.setCandidatePath(candidatePath);
        QTRY_VERIFY_WITH_TIMEOUT(view.isReady() && view.stackedTrace()->stacked(), kTimeoutMs);
        TraceView* trace = view.stackedTrace()->trace();
        TimelineCanvas* canvas = trace->canvas();
        const TimeRange before = canvas->visibleRange();
        QVERIFY(!before.empty());
        auto* table = view.tableView()->findChild<QTableView*>();
        QVERIFY(table);
        QTest::keyClick(table, Qt::Key_W);
        QCOMPARE(canvas->visibleRange(), before);
        QTest::keyClick(trace->detailsPane(), Qt::Key_W);
        const TimeRange zoomed = canvas->visibleRange();
        QVERIFY(zoomed.span() < before.span());
        QTest::keyClick(canvas, Qt::Key_W);
        QVERIFY(canvas->visibleRange().span() < zoomed.span());
    }
};

QTEST_MAIN(TestStackedTraceView)
#include "test_stacked_trace_view.moc"
