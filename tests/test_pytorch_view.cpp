// The PyTorch (TensorBoard plugin) page: fills in off the UI thread, switches tables with its
// "Show" box, and on a profile without PyTorch events shows empty tables, never a crash.
#include <QComboBox>
#include <QSettings>
#include <QtTest>
#include <fstream>

#include "model/ProfileLoader.h"
#include "views/pytorch/PyTorchView.h"
#include "widgets/DataTableView.h"

using namespace stepscope;

namespace {
std::shared_ptr<const Profile> loadText(const QTemporaryDir& dir, const std::string& text) {
    const std::string path = dir.path().toStdString() + "/t.pt.trace.json";
    std::ofstream(path) << text;
    LoadResult r = loadPath(path);
    if (!r.ok()) qFatal("trace does not load: %s", r.error.c_str());
    return r.profile;
}

// ProfilerStep#1 0..100 holding aten::mm 10..50, which launches kernel k (60..90) on GPU 0.
const char* kTrace = R"({"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":40,"args":{"External id":7}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":5,
 "args":{"External id":7,"correlation":3}},
{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":60,"dur":30,
 "args":{"External id":7,"correlation":3,"device":0,"stream":7}}]})";
} // namespace

class TestPyTorchView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("stepscope-test");
        QSettings().clear();
    }

    void fillsInAndSwitchesTables() {
        QTemporaryDir dir;
        PyTorchView view;
        view.resize(1000, 600);
        view.setProfile(loadText(dir, kTrace));
        QTRY_VERIFY(view.isReady());
        const Table& ops = view.tableView()->table();
        QCOMPARE(ops.rowCount(), size_t(1));
        QCOMPARE(ops.text(0, 0), std::string("aten::mm"));
        // Device self time: kernel k, 30 µs.
        QCOMPARE(ops.number(0, size_t(ops.columnIndex("Device Self Duration (µs)"))), 30.0);
        view.setPage(PyTorchView::Page::Steps);
        const Table& steps = view.tableView()->table();
        QCOMPARE(steps.rowCount(), size_t(2)); // step 1 and the average
        // The kernel ends (90) before the host step (100): the step stays 0..100 µs.
        QCOMPARE(steps.number(0, size_t(steps.columnIndex("Total (µs)"))), 100.0);
        QCOMPARE(steps.number(0, size_t(steps.columnIndex("Kernel (µs)"))), 30.0);
        view.setPage(PyTorchView::Page::Gpus);
        const Table& gpus = view.tableView()->table();
        QCOMPARE(gpus.rowCount(), size_t(1));
        QCOMPARE(gpus.number(0, size_t(gpus.columnIndex("GPU Utilization (%)"))), 100.0 * 30 / 100);
        view.setProfile(nullptr);
        QCOMPARE(view.tableView()->table().rowCount(), size_t(0));
    }

    void noPyTorchEvents() {
        QTemporaryDir dir;
        PyTorchView view;
        view.setProfile(loadText(
            dir, R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5}]})"));
        QTRY_VERIFY(view.isReady());
        for (auto page : {PyTorchView::Page::Operators, PyTorchView::Page::Kernels,
                          PyTorchView::Page::Steps, PyTorchView::Page::Gpus}) {
            view.setPage(page);
            QCOMPARE(view.tableView()->table().rowCount(), size_t(0));
        }
    }
};

QTEST_MAIN(TestPyTorchView)
#include "test_pytorch_view.moc"
