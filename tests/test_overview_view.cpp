// The overview page: it fills in off the UI thread, says when there are no steps, finds steps by a
// name pattern and remembers it per profile, and its step graph and recommendations ask for the
// trace viewer on the right time range.
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QtTest>

#include "model/ProfileLoader.h"
#include "model/analysis/RunDiff.h"
#include "tests/fixtures/OverviewFixtures.h"
#include "views/input_pipeline/InputPipelineView.h"
#include "views/overview/OverviewView.h"
#include "views/overview/StackedStepChart.h"
#include "widgets/DataTableView.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {
std::shared_ptr<const Profile> load(OverviewScenario s) {
    const std::vector<uint8_t> bytes = overviewFixture(s).encode();
    LoadResult r = loadXSpaceBytes(bytes, overviewScenarioName(s));
    if (!r.ok()) qFatal("fixture does not load: %s", r.error.c_str());
    return r.profile;
}
} // namespace

class TestOverviewView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("stepscope-test");
        QSettings().clear();
    }

    // A comparison where nothing moved: with several step pairs the note speaks of the
    // step-to-step noise; with one step pair there is none, and the note says so.
    void comparisonWithoutChangesSaysWhy() {
        OverviewView view;
        view.resize(1200, 800);
        const std::shared_ptr<const Profile> p = load(OverviewScenario::CopyStall);
        view.setProfile(p);
        QTRY_VERIFY(view.isReady());
        const auto all = std::make_shared<const RunDiff>(diffRuns(*p, *p, RunDiffOptions{}));
        QCOMPARE(all->pairing.pairs.size(), size_t(4));
        view.setComparison(all, "same.xplane.pb");
        QVERIFY2(view.summaryText().contains("No change stands out of the step-to-step noise."),
                 qPrintable(view.summaryText()));
        RunDiffOptions one;
        one.firstStep = one.lastStep = view.overview()->steps.steps[0].number;
        const auto single = std::make_shared<const RunDiff>(diffRuns(*p, *p, one));
        QCOMPARE(single->pairing.pairs.size(), size_t(1));
        view.setComparison(single, "same.xplane.pb");
        QVERIFY2(view.summaryText().contains("with one step each no noise estimate is possible, "
                                             "and nothing moved by 1% or more"),
                 qPrintable(view.summaryText()));
    }

    void fillsIn() {
        OverviewView view;
        view.resize(1200, 800);
        view.setProfile(load(OverviewScenario::CopyStall));
        QTRY_VERIFY(view.isReady());
        QVERIFY(view.overview());
        QCOMPARE(view.overview()->steps.steps.size(), size_t(4));
        QVERIFY(view.summaryText().contains("Average step time"));
        QCOMPARE(view.recommendationsView()->table().rowCount(), size_t(2));
        // A click on step 2's column asks for that step's range.
        QSignalSpy range(&view, &ToolView::showRangeRequested);
        emit view.stepChart()->stepClicked(2);
        QCOMPARE(range.count(), 1);
        QCOMPARE(range[0][0].toLongLong(), 2000LL * 1000000);
        QCOMPARE(range[0][1].toLongLong(), 3000LL * 1000000);
        // The exposed-copies finding opens its range; input_bound opens its tool.
        QSignalSpy tool(&view, &ToolView::showToolRequested);
        emit view.recommendationsView()->rowActivated(0);
        QCOMPARE(tool.count(), 1);
        QCOMPARE(tool[0][0].toString(), QString("input_pipeline"));
        emit view.recommendationsView()->rowActivated(1);
        QCOMPARE(range.count(), 2);
    }

    // A PyTorch (Kineto) trace: the summary, step graph and step table use the PyTorch
    // TensorBoard plugin's categories, and a step's column opens that step. Two steps
    // [0, 100] and [100, 200] µs; step 2 holds a 50 µs DataLoader __next__ (50% of the step).
    void pytorchProfile() {
        QTemporaryDir dir;
        const QString path = dir.filePath("t.pt.trace.json");
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"traceEvents\":[\n"
                    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                    "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},\n"
                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,"
                    "\"tid\":1,\"ts\":10,\"dur\":20},\n"
                    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\","
                    "\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},\n"
                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":"
                    "\"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__\","
                    "\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":50}\n"
                    "]}\n");
        }
        LoadResult r = loadPath(path.toStdString());
        QVERIFY2(r.ok(), r.error.c_str());
        OverviewView view;
        view.resize(1200, 800);
        view.setProfile(r.profile);
        QTRY_VERIFY(view.isReady());
        QCOMPARE(view.overview()->torch.size(), size_t(1));
        const QString summary = view.summaryText();
        QVERIFY(summary.contains("DataLoader: 0.025 ms (25.0%)")); // 50 of 200 µs
        QVERIFY(summary.contains("CPU Exec: 0.010 ms (10.0%)"));   // 20 of 200 µs
        QVERIFY(summary.contains("25.0% of the step time is in the DataLoader"));
        QSignalSpy range(&view, &ToolView::showRangeRequested);
        emit view.stepChart()->stepClicked(1);
        QCOMPARE(range.count(), 1);
        QCOMPARE(range[0][0].toLongLong(), 100LL * 1000000);
        QCOMPARE(range[0][1].toLongLong(), 200LL * 1000000);
    }

    void noStepsThenPattern() {
        const auto profile = load(OverviewScenario::NoSteps);
        {
            OverviewView view;
            view.setProfile(profile);
            QTRY_VERIFY(view.isReady());
            QVERIFY(view.overview()->steps.steps.empty());
            view.applyStepPattern("loop_iteration");
            QTRY_VERIFY(view.isReady());
            QCOMPARE(view.overview()->steps.steps.size(), size_t(4));
        }
        // Remembered for this profile: a new page finds the same steps.
        OverviewView again;
        again.setProfile(profile);
        QCOMPARE(again.stepPatternEdit()->text(), QString("loop_iteration"));
        QTRY_VERIFY(again.isReady());
        QCOMPARE(again.overview()->steps.steps.size(), size_t(4));
        again.applyStepPattern("");
        QTRY_VERIFY(again.isReady());
        QVERIFY(again.overview()->steps.steps.empty());
    }

    void inputPipelinePage() {
        InputPipelineView view;
        view.setProfile(load(OverviewScenario::InputBound));
        QTRY_VERIFY(view.isReady());
        QVERIFY(view.result());
        QVERIFY(view.summaryText().contains("HIGHLY input-bound"));
        QCOMPARE(view.inputOpsView()->table().rowCount(), size_t(3));
        QSignalSpy range(&view, &ToolView::showRangeRequested);
        emit view.stepChart()->stepClicked(0);
        QCOMPARE(range.count(), 1);
        QCOMPARE(range[0][1].toLongLong(), 1000LL * 1000000);
    }

    // A pattern entered on the overview after the input pipeline page was made: the page
    // analyzes again when it is shown (the NoSteps fixture has 4 "loop_iteration" events).
    void inputPipelineFollowsPattern() {
        const auto profile = load(OverviewScenario::NoSteps);
        OverviewView overview;
        overview.setProfile(profile);
        QTRY_VERIFY(overview.isReady());
        overview.applyStepPattern("");
        QTRY_VERIFY(overview.isReady());
        InputPipelineView page;
        page.setProfile(profile);
        QTRY_VERIFY(page.isReady());
        QVERIFY(page.result()->steps.steps.empty());
        overview.applyStepPattern("loop_iteration");
        QTRY_VERIFY(overview.isReady());
        page.QWidget::show();
        QTRY_VERIFY(page.isReady() && page.result());
        QCOMPARE(page.result()->steps.steps.size(), size_t(4));
        overview.applyStepPattern("");
        QTRY_VERIFY(overview.isReady());
    }

    void clears() {
        OverviewView view;
        view.setProfile(load(OverviewScenario::InputBound));
        view.setProfile(nullptr); // before the first result: the stale job is dropped
        QTRY_VERIFY(view.isReady());
        QVERIFY(!view.overview());
    }
};

QTEST_MAIN(TestOverviewView)
#include "test_overview_view.moc"
