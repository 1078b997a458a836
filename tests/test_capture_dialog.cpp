// The capture dialog driven with QTest against in-process profiler services: validation, the
// remembered values, progress and cancel, plain errors that keep the open profile, and File >
// Capture Profile… opening the new run with it selected in the Run selector. With
// STEPSCOPE_SCREENSHOT_DIR set, each state is also saved as a PNG there.
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "model/LogDir.h"
#include "tests/fixtures/FixtureXSpace.h"
#include "tests/fixtures/capture/FakeProfilerService.h"
#include "ui/CaptureDialog.h"
#include "ui/MainWindow.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {

constexpr int kTimeoutMs = 20000;
// Newer by name than any capture made today, so the window would pick it by default.
const QString kLaterRun = QStringLiteral("2999_01_01_00_00_00");

template <typename T> T* child(QWidget* parent, const char* name) {
    T* w = parent->findChild<T*>(QString::fromLatin1(name));
    if (!w) qWarning("no child %s", name);
    return w;
}

void screenshot(QWidget* w, const char* name) {
    const QString dir = qEnvironmentVariable("STEPSCOPE_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    w->grab().save(dir + "/capture-" + name + ".png");
}

void fill(CaptureDialog* d, const QString& services, const QString& logDir, int durationMs) {
    child<QLineEdit>(d, "serviceEdit")->setText(services);
    child<QLineEdit>(d, "logDirEdit")->setText(logDir);
    child<QSpinBox>(d, "durationSpin")->setValue(durationMs);
    child<QSpinBox>(d, "retriesSpin")->setValue(0);
}

} // namespace

class TestCaptureDialog : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString logDir_;

    std::unique_ptr<QSettings> settings(const QString& name) const {
        return std::make_unique<QSettings>(dir_.path() + "/" + name + ".ini", QSettings::IniFormat);
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        logDir_ = writeLogDir(dir_, kLaterRun, {{"fixture", trainingHostFixture().encode()}});
        QVERIFY(!logDir_.isEmpty());
    }

    void validatesBeforeStarting() {
        CaptureDialog d(nullptr, QString());
        d.show();
        const struct {
            QString services, logDir, expected;
        } cases[] = {
            {"", "/tmp", "Profile service URL: no service address given"},
            {"localhost", "/tmp", "\"localhost\" is not host:port (no port)"},
            {"localhost:99999", "/tmp", "the port must be a number from 1 to 65535"},
            {"localhost:6009", "  ", "Log directory: give the folder"},
        };
        for (const auto& c : cases) {
            fill(&d, c.services, c.logDir, 1000);
            QTest::mouseClick(child<QPushButton>(&d, "captureButton"), Qt::LeftButton);
            QVERIFY2(d.errorText().contains(c.expected), qPrintable(d.errorText()));
            QVERIFY(!d.isCapturing());
        }
        screenshot(&d, "invalid");
        // A duration below 1 ms cannot be entered at all.
        QSpinBox* duration = child<QSpinBox>(&d, "durationSpin");
        duration->setValue(-5);
        QCOMPARE(duration->value(), 1);
    }

    void remembersTheLastValues() {
        FakeProfiler service;
        TestGrpcServer server(&service);
        const auto s = settings("remember");
        {
            CaptureDialog d(s.get(), QString());
            fill(&d, QString::fromStdString(server.address()), dir_.path() + "/remember", 50);
            child<QSpinBox>(&d, "delaySpin")->setValue(20);
            child<QComboBox>(&d, "hostLevelBox")->setCurrentIndex(3);
            child<QComboBox>(&d, "pythonLevelBox")->setCurrentIndex(1);
            QSignalSpy done(&d, &CaptureDialog::captured);
            d.startCapture();
            QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kTimeoutMs);
        }
        CaptureDialog again(s.get(), "/suggested/elsewhere");
        QCOMPARE(child<QLineEdit>(&again, "serviceEdit")->text(),
                 QString::fromStdString(server.address()));
        QCOMPARE(child<QLineEdit>(&again, "logDirEdit")->text(), dir_.path() + "/remember");
        QCOMPARE(child<QSpinBox>(&again, "durationSpin")->value(), 50);
        QCOMPARE(child<QSpinBox>(&again, "delaySpin")->value(), 20);
        QCOMPARE(child<QComboBox>(&again, "hostLevelBox")->currentIndex(), 3);
        QCOMPARE(child<QComboBox>(&again, "pythonLevelBox")->currentIndex(), 1);
        // What the request carried is what the fields said.
        const auto requests = service.requests();
        QCOMPARE(requests.size(), size_t(1));
        QCOMPARE(requests.front().opts().host_tracer_level(), 3u);
        QCOMPARE(requests.front().opts().python_tracer_level(), 1u);
        QCOMPARE(requests.front().opts().duration_ms(), uint64_t(50));

        // With nothing remembered, the log directory of the open profile is offered.
        CaptureDialog fresh(nullptr, "/suggested/logs");
        QCOMPARE(child<QLineEdit>(&fresh, "logDirEdit")->text(), QString("/suggested/logs"));
        QCOMPARE(child<QSpinBox>(&fresh, "durationSpin")->value(), 1000);
        QCOMPARE(child<QSpinBox>(&fresh, "retriesSpin")->value(), 3);
        QCOMPARE(child<QComboBox>(&fresh, "hostLevelBox")->currentIndex(), 2);
        QCOMPARE(child<QComboBox>(&fresh, "deviceLevelBox")->currentIndex(), 1);
        QCOMPARE(child<QComboBox>(&fresh, "pythonLevelBox")->currentIndex(), 0);
        fresh.show();
        screenshot(&fresh, "idle");
    }

    void showsProgressAndCancels() {
        FakeProfiler service;
        TestGrpcServer server(&service);
        CaptureDialog d(nullptr, QString());
        d.show();
        fill(&d, QString::fromStdString(server.address()), dir_.path() + "/cancel", 20000);
        d.startCapture();
        QVERIFY(d.isCapturing());
        QVERIFY(!child<QLineEdit>(&d, "serviceEdit")->isEnabled());
        QVERIFY(!child<QPushButton>(&d, "captureButton")->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(d.statusText().contains("Attempt 1 of 1: profiling"), kTimeoutMs);
        QVERIFY2(d.statusText().contains("of 20.0 s"), qPrintable(d.statusText()));
        QProgressBar* bar = child<QProgressBar>(&d, "captureProgress");
        QVERIFY(bar->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(bar->value() >= 25, kTimeoutMs); // 0.5 s of 20 s elapsed
        QVERIFY2(!d.statusText().contains("— 0.0 s"), qPrintable(d.statusText()));
        screenshot(&d, "progress");
        QPushButton* cancel = child<QPushButton>(&d, "cancelCaptureButton");
        QVERIFY(cancel->isVisible());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!d.isCapturing(), 3000);
        QTRY_VERIFY_WITH_TIMEOUT(d.statusText().contains("cancelled"), 3000);
        QTRY_VERIFY_WITH_TIMEOUT(service.sawCancel.load(), 3000);
        QVERIFY(d.isVisible()); // cancelling the capture does not close the dialog
        QVERIFY(child<QLineEdit>(&d, "serviceEdit")->isEnabled());
        QVERIFY(child<QPushButton>(&d, "captureButton")->isEnabled());
        QVERIFY(!cancel->isVisible());
    }

    void closingWhileCapturingCancelsFirst() {
        FakeProfiler service;
        TestGrpcServer server(&service);
        CaptureDialog d(nullptr, QString());
        d.show();
        fill(&d, QString::fromStdString(server.address()), dir_.path() + "/close", 20000);
        QSignalSpy finished(&d, &QDialog::finished);
        d.startCapture();
        QTRY_VERIFY_WITH_TIMEOUT(d.statusText().contains("profiling"), kTimeoutMs);
        // The service must be inside the call to see it cancelled (the status can show before
        // the request arrives on a loaded machine).
        QTRY_VERIFY_WITH_TIMEOUT(!service.requests().empty(), kTimeoutMs);
        d.reject();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 3000);
        QVERIFY(!d.isCapturing());
        QTRY_VERIFY_WITH_TIMEOUT(service.sawCancel.load(), 3000);
    }

    void launchTab() {
        CaptureDialog d(nullptr, dir_.path() + "/launch");
        d.show();
        d.findChild<QTabWidget*>()->setCurrentIndex(1);
#ifndef STEPSCOPE_CUPTI_LIBRARY
        QVERIFY(child<QLabel>(&d, "launchUnavailable")->text().contains("not part of this build"));
        QVERIFY(!child<QPushButton>(&d, "captureButton")->isEnabled());
        screenshot(&d, "launch-tab");
#else
        QVERIFY(child<QPushButton>(&d, "captureButton")->isEnabled());
        d.startCapture();
        QVERIFY2(d.errorText().startsWith("Program: give the program"), qPrintable(d.errorText()));
        child<QLineEdit>(&d, "programEdit")->setText("no-such-program-stepscope");
        child<QLineEdit>(&d, "argumentsEdit")->setText("--steps 'two words'");
        child<QPlainTextEdit>(&d, "environmentEdit")->setPlainText("GOOD=1\nbad line");
        d.startCapture();
        QVERIFY2(d.errorText().contains("\"bad line\" is not NAME=VALUE"),
                 qPrintable(d.errorText()));
        child<QPlainTextEdit>(&d, "environmentEdit")->setPlainText("GOOD=1");
        // Every API call (the queries too) only when asked for.
        QVERIFY(!child<QCheckBox>(&d, "kind_api-all")->isChecked());
        for (const char* k :
             {"kind_kernels", "kind_memcpy", "kind_memory", "kind_api", "kind_nvtx"})
            child<QCheckBox>(&d, k)->setChecked(false);
        d.startCapture();
        QVERIFY2(d.errorText().startsWith("Record: choose"), qPrintable(d.errorText()));
        child<QCheckBox>(&d, "kind_kernels")->setChecked(true);
        d.startCapture();
        QTRY_VERIFY_WITH_TIMEOUT(!d.isCapturing(), kTimeoutMs);
        // Without a driver the launcher says so first; with one, the program is not found.
        const QString expected = capture::cudaDriverProblem().empty()
                                     ? QString("program not found: no-such-program-stepscope")
                                     : QString("no CUDA driver on this machine");
        QVERIFY2(d.errorText().startsWith(expected), qPrintable(d.errorText()));
        QVERIFY(d.isVisible());
        screenshot(&d, "launch-tab");
#endif
        d.findChild<QTabWidget*>()->setCurrentIndex(0);
        QVERIFY(child<QPushButton>(&d, "captureButton")->isEnabled());
    }

    // From the window: a failed capture says why in the dialog and keeps the open profile; a
    // successful one opens its run, selected, although another run's name sorts first.
    void windowOpensTheCapturedRunSelected() {
        FakeProfiler service;
        TestGrpcServer server(&service);
        MainWindow window(nullptr);
        window.show();
        QSignalSpy shown(&window, &MainWindow::profileShown);
        window.openPath(logDir_);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kTimeoutMs);
        const auto opened = window.profile();
        QCOMPARE(window.selection().currentRun()->name, kLaterRun.toStdString());

        window.showCaptureDialog();
        CaptureDialog* d = window.findChild<CaptureDialog*>();
        QVERIFY(d);
        // The open profile's log directory is offered.
        QCOMPARE(child<QLineEdit>(d, "logDirEdit")->text(), logDir_);

        const QString refused = QString("127.0.0.1:%1").arg(closedPort());
        fill(d, refused, logDir_, 100);
        d->startCapture();
        QTRY_VERIFY_WITH_TIMEOUT(!d->isCapturing(), kTimeoutMs);
        QVERIFY2(d->errorText().contains(refused + ": connection refused"),
                 qPrintable(d->errorText()));
        QVERIFY(d->isVisible());
        QCOMPARE(window.profile(), opened);
        screenshot(d, "error");

        fill(d, QString::fromStdString(server.address()), logDir_, 100);
        d->startCapture();
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 2, kTimeoutMs);
        const std::string run = service.requests().back().session_id();
        QCOMPARE(window.selection().currentRun()->name, run);
        QCOMPARE(window.findChild<QComboBox*>("runSelector")->currentText(),
                 QString::fromStdString(run));
        QCOMPARE(window.findChild<QComboBox*>("runSelector")->count(), 2);
        QVERIFY(window.profile() != opened);
        QCOMPARE(window.messageText(), QString());
    }

    void windowSaysWhichServiceFailed() {
        FakeProfiler good, bad;
        bad.mode = FakeProfiler::Mode::Error;
        TestGrpcServer a(&good), b(&bad);
        MainWindow window(nullptr);
        window.show();
        QSignalSpy shown(&window, &MainWindow::profileShown);
        window.showCaptureDialog();
        CaptureDialog* d = window.findChild<CaptureDialog*>();
        fill(d, QString::fromStdString(a.address() + "," + b.address()), dir_.path() + "/partial",
             100);
        d->startCapture();
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kTimeoutMs);
        QVERIFY2(window.messageText().contains("not from every service"),
                 qPrintable(window.messageText()));
        QVERIFY(window.messageText().contains(QString::fromStdString(b.address())));
        QCOMPARE(window.selection().currentRun()->hosts.size(), size_t(1));
    }
};

QTEST_MAIN(TestCaptureDialog)
#include "test_capture_dialog.moc"
