// The "Compare runs" page: loads a candidate in the background, shows RunDiff's tables in the
// shared table widget, keeps the last good candidate when a new one cannot be loaded, and is
// reachable from the window (File > Compare With…, --compare).
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QTabBar>
#include <QTemporaryDir>
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
}

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

    // Step 0 of KernelSlower: baseline gemm 505 µs (500 + J[0]) from 10 µs, relu 100 µs after
    // it; candidate gemm 605 µs, then relu. One stream row each, one op index per op in both.
    void stepTimelineLanes() {
        const auto [base, candidate] = diffFixture(DiffScenario::KernelSlower);
        const std::vector<uint8_t> bb = base.encode(), cb = candidate.encode();
        const LoadResult b = loadXSpaceBytes(bb, "b"), c = loadXSpaceBytes(cb, "c");
        QVERIFY(b.ok() && c.ok());
        const StepAnalysis bs = analyzeSteps(*b.profile), cs = analyzeSteps(*c.profile);
        const StepLanes lanes = collectStepLanes(*b.profile, bs.steps[0], *c.profile, cs.steps[0]);
        constexpr int64_t us = 1000000;
        QCOMPARE(lanes.base.rows, std::vector<std::string>{"GPU:0 stream 7"});
        QCOMPARE(lanes.base.title, std::string("Baseline step 0"));
        QCOMPARE(lanes.base.durationPs, 625 * us);
        QCOMPARE(lanes.candidate.durationPs, 725 * us);
        QCOMPARE(lanes.base.bars.size(), size_t(2));
        QCOMPARE(lanes.base.bars[0].beginPs, 10 * us);
        QCOMPARE(lanes.base.bars[0].endPs, 515 * us);
        QCOMPARE(lanes.candidate.bars[0].endPs, 615 * us);
        QCOMPARE(lanes.candidate.bars[1].beginPs, 615 * us);
        QCOMPARE(lanes.base.bars[0].op, lanes.candidate.bars[0].op);
        QCOMPARE(lanes.ops[lanes.base.bars[0].op], std::string("model/dense/MatMul"));

        StepTimeline timeline;
        timeline.resize(800, 200);
        timeline.setLanes(std::make_shared<const StepLanes>(lanes));
        QCOMPARE(timeline.viewEndPs(), 725 * us); // the longer step
        timeline.setView(-50 * us, 100 * us);     // clamped to the start, width kept
        QCOMPARE(timeline.viewBeginPs(), int64_t(0));
        QCOMPARE(timeline.viewEndPs(), 150 * us);
        timeline.setHighlight("model/dense/MatMul");
        QVERIFY(!timeline.grab().isNull());
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
