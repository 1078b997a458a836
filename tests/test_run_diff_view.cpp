// The "Compare runs" page: loads a candidate in the background, shows RunDiff's tables in the
// shared table widget, keeps the last good candidate when a new one cannot be loaded, and is
// reachable from the window (File > Compare With…, --compare).
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QHelpEvent>
#include <QLabel>
#include <QTabBar>
#include <QTemporaryDir>
#include <QToolTip>
#include <QtTest>

#include <fstream>
#include <map>

#include "model/ProfileLoader.h"
#include "model/analysis/RunDiffTable.h"
#include "model/analysis/StepAnalysis.h"
#include "tests/fixtures/DiffFixtures.h"
#include "tests/fixtures/HostOpFixtures.h"
#include "ui/CommandLine.h"
#include "ui/MainWindow.h"
#include "views/overview/OverviewView.h"
#include "views/run_diff/RunDiffView.h"
#include "widgets/DataTableView.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {
constexpr int kTimeoutMs = 60000;

// The tooltip the step timeline shows at `pos` (empty: none).
QString stepTimelineTip(StepTimeline& timeline, QPoint pos) {
    QToolTip::hideText(); // hides after a short delay
    if (!QTest::qWaitFor([] { return !QToolTip::isVisible(); }, kTimeoutMs)) return "(stuck)";
    QHelpEvent help(QEvent::ToolTip, pos, timeline.mapToGlobal(pos));
    QApplication::sendEvent(&timeline, &help);
    return QToolTip::isVisible() ? QToolTip::text() : QString();
}
} // namespace

class TestRunDiffView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const auto [base, candidate] = diffFixture(DiffScenario::KernelSlower);
        base_ = dir_.filePath("base.xplane.pb");
        candidate_ = dir_.filePath("cand.xplane.pb");
        QVERIFY(writeFile(base_, base.encode()));
        QVERIFY(writeFile(candidate_, candidate.encode()));
        const std::vector<uint8_t> bytes = candidate.encode();
        QVERIFY(writeFile(dir_.filePath("cut.xplane.pb"),
                          std::span<const uint8_t>(bytes.data(), bytes.size() / 2)));
    }

    void comparesAndKeepsTheLastGoodCandidate() {
        RunDiffView view;
        view.resize(1000, 600);
        const LoadResult base = loadPath(base_.toStdString());
        QVERIFY(base.ok());
        view.setProfile(base.profile);
        QVERIFY(view.isReady());
        QVERIFY(view.statusText().contains("Choose a candidate"));
        view.setCandidatePath(candidate_);
        QVERIFY(!view.isReady());
        QTRY_VERIFY_WITH_TIMEOUT(view.isReady(), kTimeoutMs);
        QVERIFY(view.diff());
        QVERIFY2(view.statusText().contains("Steps paired by order. 8 step pairs compared"),
                 qPrintable(view.statusText()));
        // Ops table by default: MatMul first, slower.
        const Table& ops = view.tableView()->table();
        QCOMPARE(ops.text(0, size_t(ops.columnIndex("Operation"))),
                 std::string("model/dense/MatMul"));
        QCOMPARE(ops.text(0, size_t(ops.columnIndex("Class"))), std::string("slower"));
        QVERIFY2(view.summaryText().contains("Op model/dense/MatMul 20.0% slower than the baseline "
                                             "in every step (+100 µs per step"),
                 qPrintable(view.summaryText()));

        view.setTableKind(DiffBy::Kernel);
        QCOMPARE(view.tableView()->table().text(0, 0), std::string("volta_sgemm_128x64_nn"));
        view.setTableKind(DiffBy::Category);
        QCOMPARE(view.tableView()->table().text(0, 0), std::string("Step time"));

        // By number with a shift of 1: baseline 0..6 pair with candidate 1..7.
        view.setAlignment(StepAlignment::ByNumber, 1);
        QTRY_VERIFY_WITH_TIMEOUT(view.isReady(), kTimeoutMs);
        QCOMPARE(view.diff()->pairing.pairs.size(), size_t(7));

        // Hosts by name: "base" and "cand" (the files' stems) share no name, nothing is compared
        // and the page says why; auto falls back to the order.
        view.setHostMatching(HostMatching::ByName);
        QTRY_VERIFY_WITH_TIMEOUT(view.isReady(), kTimeoutMs);
        QVERIFY(view.diff() && view.diff()->pairing.pairs.empty());
        QVERIFY2(view.statusText().contains("No host of the baseline has a partner"),
                 qPrintable(view.statusText()));
        view.setHostMatching(HostMatching::Auto);
        QTRY_VERIFY_WITH_TIMEOUT(view.isReady(), kTimeoutMs);
        QCOMPARE(view.diff()->pairing.pairs.size(), size_t(7));

        // A truncated candidate: an error naming it; the comparison before stays.
        const size_t rows = view.tableView()->table().rowCount();
        QVERIFY(rows >= 2);
        view.setCandidatePath(dir_.filePath("cut.xplane.pb"));
        QTRY_VERIFY_WITH_TIMEOUT(view.isReady(), kTimeoutMs);
        QVERIFY2(view.statusText().contains("Could not load the candidate") &&
                     view.statusText().contains("cut.xplane.pb"),
                 qPrintable(view.statusText()));
        QVERIFY(view.diff());
        QCOMPARE(view.tableView()->table().rowCount(), rows);

        // Cancel while loading: nothing changes, the page is ready again.
        view.setCandidatePath(candidate_);
        view.cancelCandidateLoad();
        QVERIFY(view.isReady());
        QVERIFY(view.statusText().contains("cancelled"));
    }

    // A candidate log directory with two hosts: all hosts first, then one host at a time.
    void candidateRunAndHost() {
        const auto [base, candidate] = diffFixture(DiffScenario::KernelSlower);
        const QString logDir = writeLogDir(
            dir_, "2026_01_01_run", {{"hostA", candidate.encode()}, {"hostB", base.encode()}});
        QVERIFY(!logDir.isEmpty());
        RunDiffView view;
        const LoadResult b = loadPath(base_.toStdString());
        view.setProfile(b.profile);
        view.setCandidatePath(logDir);
        QTRY_VERIFY_WITH_TIMEOUT(view.isReady() && view.diff(), kTimeoutMs);
        auto* runs = view.findChild<QComboBox*>("candidateRun");
        auto* hosts = view.findChild<QComboBox*>("candidateHost");
        QCOMPARE(runs->count(), 1);
        QCOMPARE(hosts->count(), 3);
        QCOMPARE(hosts->currentText(), QString("All hosts (2)"));
        // Host B is the baseline itself: nothing changed.
        view.chooseCandidateRun(0, 1);
        QTRY_VERIFY_WITH_TIMEOUT(view.isReady(), kTimeoutMs);
        QCOMPARE(hosts->currentText(), QString("hostB"));
        for (const DiffRow& r : view.diff()->kernels) QCOMPARE(r.diffClass, DiffClass::Unchanged);
        // Host A is the slower candidate.
        view.chooseCandidateRun(0, 0);
        QTRY_VERIFY_WITH_TIMEOUT(view.isReady(), kTimeoutMs);
        QCOMPARE(view.diff()->kernels.front().diffClass, DiffClass::Slower);
    }

    // The GPU step timeline on lanes shaped like step 0 of KernelSlower (collected in
    // test_step_lanes): baseline gemm 10..515 µs and relu 515..615 µs of a 625 µs step,
    // candidate gemm 10..615 µs and relu 615..715 µs of a 725 µs step. The view starts on the
    // whole of the longer step, and a window is clamped to the steps, its width kept.
    void stepTimelineView() {
        constexpr int64_t us = 1000000;
        auto lanes = std::make_shared<StepLanes>();
        lanes->ops = {"model/dense/MatMul", "model/relu"};
        lanes->kernels = {"volta_sgemm_128x64_nn", "elementwise_relu_kernel"};
        for (auto [lane, gemmUs] :
             {std::pair{&lanes->base, int64_t(505)}, std::pair{&lanes->candidate, int64_t(605)}}) {
            lane->durationPs = (10 + gemmUs + 100 + 10) * us;
            StepLane::Row& row = lane->rows.emplace_back();
            row.name = "GPU:0 stream 7";
            row.beginPs = {10 * us, (10 + gemmUs) * us};
            row.durationPs = {gemmUs * us, 100 * us};
            row.op = row.kernel = {0, 1};
        }
        StepTimeline timeline;
        timeline.resize(800, 200);
        timeline.setLanes(lanes);
        QCOMPARE(timeline.viewBeginPs(), int64_t(0));
        QCOMPARE(timeline.viewEndPs(), 725 * us); // the longer step
        timeline.setView(-50 * us, 100 * us);     // clamped to the start, width kept
        QCOMPARE(timeline.viewBeginPs(), int64_t(0));
        QCOMPARE(timeline.viewEndPs(), 150 * us);
        timeline.setHighlight("model/dense/MatMul");
        QVERIFY(!timeline.grab().isNull());
        // In 0..150 µs each lane shows only its gemm (the relus start at 515 and 615 µs): one
        // block per lane, drawn faded and again bright as the highlighted MatMul.
        QCOMPARE(timeline.lastBlockCount(), size_t(4));
        // Hovering: the row under the axis (20 px) and the lane's title (18 px) is the
        // baseline's stream, whose gemm covers the right of the view; past the axis, the title
        // and a 16 px row, the candidate's title and then its row.
        QVERIFY2(stepTimelineTip(timeline, QPoint(500, 46))
                     .startsWith("model/dense/MatMul\nvolta_sgemm_128x64_nn\n505"),
                 qPrintable(stepTimelineTip(timeline, QPoint(500, 46))));
        QVERIFY(stepTimelineTip(timeline, QPoint(500, 80)).contains("\n605"));
        QVERIFY(stepTimelineTip(timeline, QPoint(500, 62)).isEmpty()); // a title
        // Double-click: the whole of the longer step again.
        QTest::mouseDClick(&timeline, Qt::LeftButton, {}, QPoint(400, 100));
        QCOMPARE(timeline.viewBeginPs(), int64_t(0));
        QCOMPARE(timeline.viewEndPs(), 725 * us);
    }

    // 100,000 kernels of 1 ns every 10 ns (1 ms) in one row of each lane. Whole, a pixel holds
    // about 150 of them, so each row folds into one block (StepTimeline::lastBlockCount: what
    // the last paint drew); 1 µs of them on the same width leaves 10 ns = several pixels between
    // bars, so each of the 100 that start in the window is its own block. A bar never overlaps
    // the next, so no bar starting before the window reaches into it.
    void manyNarrowBarsPaintFolded() {
        constexpr int64_t ns = 1000;
        constexpr int kBars = 100000;
        auto lanes = std::make_shared<StepLanes>();
        lanes->ops = {"model/op"};
        lanes->kernels = {"tiny_kernel"};
        for (StepLane* lane : {&lanes->base, &lanes->candidate}) {
            lane->durationPs = int64_t(kBars) * 10 * ns;
            StepLane::Row& row = lane->rows.emplace_back();
            row.name = "GPU:0 stream 7";
            for (int i = 0; i < kBars; ++i) {
                row.beginPs.push_back(int64_t(i) * 10 * ns);
                row.durationPs.push_back(ns);
                row.op.push_back(0);
                row.kernel.push_back(0);
            }
        }
        StepTimeline timeline;
        timeline.resize(800, 200);
        timeline.setLanes(lanes);
        QVERIFY(!timeline.grab().isNull());
        QCOMPARE(timeline.lastBlockCount(), size_t(2));
        QVERIFY2(stepTimelineTip(timeline, QPoint(400, 46))
                     .startsWith("100000 bars too narrow to tell apart"),
                 qPrintable(stepTimelineTip(timeline, QPoint(400, 46))));
        timeline.setView(0, 1000 * ns);
        QVERIFY(!timeline.grab().isNull());
        QCOMPARE(timeline.lastBlockCount(), size_t(2 * 100));
        // Highlighting the op draws its bars again, folded the same way.
        timeline.setHighlight("model/op");
        QVERIFY(!timeline.grab().isNull());
        QCOMPARE(timeline.lastBlockCount(), size_t(4 * 100));
    }

    void windowCompareWith() {
        MainWindow window(nullptr);
        window.resize(1024, 640);
        window.show();
        window.openPath(base_);
        window.compareWith(candidate_); // before the baseline is shown: done once it is
        QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading() && window.profile(), kTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(window.currentToolId(), QString("run_diff"), kTimeoutMs);
        auto* view = qobject_cast<RunDiffView*>(window.currentView());
        QVERIFY(view);
        QTRY_VERIFY_WITH_TIMEOUT(view->isReady() && view->diff(), kTimeoutMs);
        QVERIFY2(window.minimumSizeHint().width() <= 1024,
                 qPrintable(QString::number(window.minimumSizeHint().width())));
        QAction* compare = window.findChild<QAction*>("compareAction");
        QVERIFY(compare && compare->isEnabled());

        // The overview of the profile on screen (the baseline) learns of the comparison: its
        // recommendations end with what changed in the candidate (values: test_run_diff's
        // findingsForTheOverview).
        QVERIFY(window.selectTool("overview"));
        auto* overview = qobject_cast<OverviewView*>(window.currentView());
        QVERIFY(overview);
        QTRY_VERIFY_WITH_TIMEOUT(overview->isReady() && overview->overview(), kTimeoutMs);
        QVERIFY2(overview->summaryText().contains("the candidate cand.xplane.pb") &&
                     overview->summaryText().contains(
                         "Step time 16.1% slower than the baseline in every step"),
                 qPrintable(overview->summaryText()));
        const Table& recs = overview->recommendationsView()->table();
        const size_t check = size_t(recs.columnIndex("Check"));
        QVERIFY(recs.rowCount() >= 3);
        QCOMPARE(recs.text(recs.rowCount() - 3, check), std::string("diff_step_time"));
        QCOMPARE(recs.text(recs.rowCount() - 1, check), std::string("diff_kernel_slower"));
        // A new baseline (here the candidate itself) is compared with the candidate again: the
        // old findings go (the candidate against itself has none).
        window.openPath(candidate_);
        QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(overview->isReady() && overview->overview(), kTimeoutMs);
        QVERIFY(!overview->summaryText().contains("Step time 16.1% slower"));
    }

    void commandLine() {
        GuiCommand c = parseGuiCommand({"stepscope", "a.pb", "--compare", "b.pb"});
        QVERIFY(c.error.isEmpty());
        QCOMPARE(c.path, QString("a.pb"));
        QCOMPARE(c.comparePath, QString("b.pb"));
        c = parseGuiCommand({"stepscope", "--compare", "b.pb"});
        QVERIFY(c.error.contains("--compare needs a PATH"));
        c = parseGuiCommand(
            {"stepscope", "--screenshot", "run_diff", "o.png", "a.pb", "--compare", "b.pb"});
        QVERIFY(c.error.isEmpty());
        QCOMPARE(c.screenshot->comparePath, QString("b.pb"));
        QVERIFY(!c.screenshot->compareTable);
        c = parseGuiCommand({"stepscope", "--screenshot", "run_diff", "o.png", "a.pb", "--compare",
                             "b.pb", "--compare-table", "host_ops"});
        QVERIFY(c.error.isEmpty());
        QCOMPARE(*c.screenshot->compareTable, DiffBy::HostOp);
        c = parseGuiCommand({"stepscope", "--screenshot", "run_diff", "o.png", "a.pb", "--compare",
                             "b.pb", "--compare-table", "hosts"});
        QVERIFY(c.error.contains("host_ops"));
        c = parseGuiCommand(
            {"stepscope", "--screenshot", "run_diff", "o.png", "a.pb", "--compare-table", "ops"});
        QVERIFY(c.error.contains("goes with --compare"));
        c = parseGuiCommand({"stepscope", "a.pb", "--compare", "b.pb", "--compare-table", "ops"});
        QVERIFY(c.error.contains("only goes with --screenshot"));
    }

    // The Host ops tab on HTA's trace-compare pair (tests/fixtures/HostOpFixtures.h): both steps,
    // auto pairing. Nine rows (step 1009 adds no op name). The three ops the test trace adds are
    // added and the all-reduce it drops in step 1010 is a call fewer in one of two steps: with
    // two steps no interval exists, so it is inconclusive, not "fewer calls". Both runs are
    // PyTorch: the step breakdown is the plugin's, and the page says so. With STEPSCOPE_SHOTS set
    // to a folder the page is saved there as run_diff_host_ops.png.
    void hostOpsTab() {
        const QString base = dir_.filePath("hta_base.pt.trace.json");
        const QString test = dir_.filePath("hta_test.pt.trace.json");
        std::ofstream(base.toStdString()) << htaTraceCompareText(false);
        std::ofstream(test.toStdString()) << htaTraceCompareText(true);
        RunDiffView view;
        view.resize(1280, 720);
        view.show();
        view.setProfile(loadPath(base.toStdString()).profile);
        view.setTableKind(DiffBy::HostOp);
        view.setCandidatePath(test);
        QTRY_VERIFY_WITH_TIMEOUT(view.isReady() && view.diff(), kTimeoutMs);
        QCOMPARE(view.tableKind(), DiffBy::HostOp);
        auto* tabs = view.findChild<QTabBar*>("diffTables");
        QVERIFY(tabs);
        QCOMPARE(tabs->count(), 4);
        QCOMPARE(tabs->tabText(tabs->currentIndex()), QString("Host ops"));
        const Table& t = view.tableView()->table();
        QCOMPARE(t.rowCount(), size_t(9));
        QCOMPARE(t.columnIndex("Kind"), 0);
        std::map<std::string, std::string> classOf;
        for (size_t r = 0; r < t.rowCount(); ++r)
            classOf[t.text(r, 1)] = t.text(r, size_t(t.columnIndex("Class")));
        QCOMPARE(classOf["All2All_Pooled_Req"], std::string("added"));
        QCOMPARE(classOf["CatBackward0"], std::string("added"));
        QCOMPARE(classOf["AddmmBackward0"], std::string("added"));
        QCOMPARE(classOf["nccl:all_reduce"], std::string("inconclusive"));
        QCOMPARE(classOf["cudaLaunchKernel"], std::string("unchanged"));
        QVERIFY2(view.statusText().contains("the PyTorch TensorBoard plugin's categories"),
                 qPrintable(view.statusText()));
        QVERIFY2(view.summaryText().contains("Host op All2All_Pooled_Req added (0.5 calls and "
                                             "156 µs per step)."),
                 qPrintable(view.summaryText()));
        if (const QByteArray shots = qgetenv("STEPSCOPE_SHOTS"); !shots.isEmpty())
            QVERIFY(view.grab().save(QString::fromLocal8Bit(shots) + "/run_diff_host_ops.png"));
        // The Python functions switch compares again (this trace has none: the same rows).
        auto* python = view.findChild<QCheckBox*>("diffPythonFunctions");
        QVERIFY(python);
        python->setChecked(true);
        QVERIFY(!view.isReady());
        QTRY_VERIFY_WITH_TIMEOUT(view.isReady() && view.diff(), kTimeoutMs);
        QCOMPARE(view.tableView()->table().rowCount(), size_t(9));
    }

private:
    QTemporaryDir dir_;
    QString base_, candidate_;
};

QTEST_MAIN(TestRunDiffView)
#include "test_run_diff_view.moc"
