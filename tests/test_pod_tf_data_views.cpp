// The pod viewer and tf.data pages on the generated runs (tests/fixtures/PodFixtures.h,
// TfDataFixtures.h): the step picked on open, slider and number box in step, the chart's columns
// and hover text, the tables, the link to the trace viewer; the tf.data summary, pipeline table
// and graph. Values are the fixtures' hand-worked ones (see test_pod_viewer, test_tf_data_...).
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>
#include <qcustomplot.h>

#include "model/ProfileLoader.h"
#include "tests/fixtures/PodFixtures.h"
#include "tests/fixtures/TfDataFixtures.h"
#include "views/pod_viewer/DistributedChart.h"
#include "views/pod_viewer/PodStepChart.h"
#include "views/pod_viewer/PodViewerView.h"
#include "views/tf_data/TfDataGraph.h"
#include "views/tf_data/TfDataView.h"
#include "widgets/DataTableView.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {
bool waitReady(ToolView& view) {
    if (view.isReady()) return true;
    QSignalSpy spy(&view, &ToolView::ready);
    return spy.wait(30000);
}
} // namespace

class TestPodTfDataViews : public QObject {
    Q_OBJECT

private slots:
    void podViewer() {
        QTemporaryDir dir;
        std::vector<std::pair<QString, std::vector<uint8_t>>> hosts;
        for (int w = 0; w < 3; ++w)
            hosts.push_back({podWorkerName(w), podWorkerFixture(w).encode()});
        const QString logdir = writeLogDir(dir, "2026_01_01_pod", hosts);
        const LoadResult r = loadPath(logdir.toStdString());
        QVERIFY(r.ok());
        PodViewerView view;
        view.resize(1200, 800);
        view.setProfile(r.profile);
        QVERIFY(waitReady(view));
        QVERIFY(view.analysis());
        // Opens on step 2: host-c's 1.2 ms step is the largest straggler (+0.4 ms).
        auto* slider = view.findChild<QSlider*>();
        auto* box = view.findChild<QSpinBox*>();
        QCOMPARE(slider->maximum(), 2);
        QCOMPARE(view.stepIndex(), 2);
        QCOMPARE(box->value(), 2);
        QVERIFY(view.summary()->text().contains("host-c"));
        QCOMPARE(view.stepTable()->table().rowCount(), size_t(3));
        QCOMPARE(view.tabs()->count(), 3); // TensorFlow hosts: no PyTorch distributed tab
        // One column per worker: the stacked Input segment is host-c's 0.4 ms only.
        QCustomPlot* plot = view.chart()->plot();
        QCOMPARE(plot->xAxis->range().upper, 2.6);
        const QString hover = view.chart()->hoverText(2);
        QVERIFY(hover.contains("Step time: 1.200 ms"));
        QVERIFY(hover.contains("Input: 0.400 ms (33.3%)"));
        // The number box and the slider follow each other.
        box->setValue(1);
        QCOMPARE(slider->value(), 1);
        QVERIFY(view.chart()->hoverText(1).contains("overlapped by compute"));
        QVERIFY(view.summary()->text().contains("Last to start collectives: <b>host-b</b>"));
        slider->setValue(0);
        QCOMPARE(box->value(), 0);
        QVERIFY(view.summary()->text().contains("no worker above the median"));
        // The trace link names host-a's step-0 marker.
        QSignalSpy show(&view, &ToolView::showEventRequested);
        view.findChild<QPushButton*>()->click();
        QCOMPARE(show.count(), 1);
        const EventIndex e = show.at(0).at(0).value<EventIndex>();
        QCOMPARE(std::string(r.profile->name(e)), std::string("train_function"));
        QCOMPARE(r.profile->duration(e), int64_t(800000000)); // host-a's step-0 marker
        // In the All hosts profile, the worker chosen in the table: host-c's step-2 marker
        // (1200 µs), on host-c's plane.
        slider->setValue(2);
        QTableView* table = view.stepTable()->tableView();
        table->setCurrentIndex(table->model()->index(2, 1));
        view.findChild<QPushButton*>()->click();
        QCOMPARE(show.count(), 2);
        const EventIndex c = show.at(1).at(0).value<EventIndex>();
        QCOMPARE(std::string(r.profile->name(c)), std::string("train_function"));
        QCOMPARE(r.profile->duration(c), int64_t(1200000000));
        const Plane& plane = r.profile->planes()[r.profile->tracks()[r.profile->trackOf(c)].plane];
        QCOMPARE(r.profile->hosts()[plane.host].name, std::string("host-c"));
        // Cleared: nothing shown, no crash.
        view.setProfile(nullptr);
        QVERIFY(!view.analysis());
    }

    // Two real PyTorch ranks (HTA's sampled_rank-0/1, loaded side by side as "All hosts" loads
    // them): the PyTorch distributed tab appears, its step table follows the chosen step.
    void podViewerPytorch() {
        const std::string src = std::string(STEPSCOPE_REALDATA) + "/kineto";
        if (!QFile::exists(QString::fromStdString(src + "/sampled_rank-0.json.gz")))
            QSKIP("../shared/realdata is absent");
        const LoadResult r = loadHosts({{"sampled_rank-0", src + "/sampled_rank-0.json.gz"},
                                        {"sampled_rank-1", src + "/sampled_rank-1.json.gz"}});
        QVERIFY2(r.ok(), r.error.c_str());
        PodViewerView view;
        view.resize(1200, 800);
        view.setProfile(r.profile);
        QVERIFY(waitReady(view));
        QVERIFY(view.analysis() && view.analysis()->pytorch);
        QCOMPARE(view.tabs()->count(), 4);
        QCOMPARE(view.tabs()->tabText(3), QString("PyTorch distributed"));
        auto* slider = view.findChild<QSlider*>();
        slider->setValue(0); // step 551
        const Table& steps = view.distributedStepTable()->table();
        QCOMPARE(steps.rowCount(), size_t(4)); // 551 and "all" for each rank
        QCOMPARE(steps.text(0, 0), std::string("551"));
        QCOMPARE(steps.text(0, 1), std::string("rank 0"));
        QCOMPARE(steps.text(1, 0), std::string("all"));
        // The chart's columns: rank 1's step 551 per the plugin (µs): 269790 computation, 94
        // overlapping, 112 communication, 337908 other; 206 transfer, 0 synchronizing.
        const QString hover = view.distributedChart()->hoverText(1);
        QVERIFY(hover.contains("Computation: 269790.0 µs"));
        QVERIFY(hover.contains("Overlapping: 94.0 µs"));
        QVERIFY(hover.contains("Data transfer: 206.0 µs"));
        slider->setValue(1);
        QCOMPARE(view.distributedStepTable()->table().text(0, 0), std::string("552"));
        QCOMPARE(view.distributedOpTable()->table().rowCount(), size_t(2));
        // Cleared: the tab goes away.
        view.setProfile(nullptr);
        QCOMPARE(view.tabs()->count(), 3);
    }

    void tfData() {
        const std::vector<uint8_t> bytes = tfDataFixture().encode();
        LoadResult r = loadXSpaceBytes(bytes, "data-host");
        QVERIFY(r.ok());
        TfDataView view;
        view.resize(1200, 800);
        view.setProfile(r.profile);
        QVERIFY(waitReady(view));
        QVERIFY(view.analysis());
        QVERIFY(view.summary()->text().contains("Input bound"));
        QVERIFY(view.summary()->text().contains("<b>Map</b>"));
        QVERIFY(view.summary()->text().contains("num_parallel_calls"));
        QCOMPARE(view.pipelineTable()->table().rowCount(), size_t(2));
        QCOMPARE(view.graph()->nodeCount(), 4); // Prefetch, Batch, Map, TFRecord
        view.selectPipeline(1);
        QCOMPARE(view.graph()->nodeCount(), 1); // Generator
        QSignalSpy show(&view, &ToolView::showEventRequested);
        emit view.pipelineTable()->rowActivated(0);
        QCOMPARE(show.count(), 1);
        const EventIndex e = show.at(0).at(0).value<EventIndex>();
        QCOMPARE(std::string(r.profile->name(e)), std::string("Iterator::Prefetch"));
        QCOMPARE(r.profile->duration(e), int64_t(300000000));
    }
};

QTEST_MAIN(TestPodTfDataViews)
#include "test_pod_tf_data_views.moc"
