// File > Export as Chrome Trace…: the window's action (off until a profile is shown), the
// background writer with its progress dialog, cancel, and an unwritable destination.
#include <QAction>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "model/ProfileLoader.h"
#include "model/synthetic/SyntheticProfile.h"
#include "ui/ChromeTraceExport.h"
#include "ui/MainWindow.h"

using namespace stepscope;

namespace {

std::shared_ptr<const Profile> syntheticProfile(uint64_t events) {
    SyntheticOptions options;
    options.events = events;
    return loadXSpaceBytes(generateSyntheticXSpace(options, "synthetic"), "synthetic").profile;
}

} // namespace

class TestChromeTraceExport : public QObject {
    Q_OBJECT

private slots:
    void actionFollowsTheProfile() {
        MainWindow w(nullptr);
        auto* action = w.findChild<QAction*>("exportChromeTraceAction");
        QVERIFY(action);
        QVERIFY(!action->isEnabled());
        QSignalSpy shown(&w, &MainWindow::profileShown);
        w.openDemo();
        QVERIFY(shown.wait(60000));
        QVERIFY(action->isEnabled());
    }

    void writesAFileThatReadsBack() {
        QWidget parent;
        ChromeTraceExport exporter(&parent);
        const auto profile = syntheticProfile(20000);
        QVERIFY(profile);
        QTemporaryDir dir;
        const QString path = dir.filePath("out.trace.json.gz");
        QSignalSpy finished(&exporter, &ChromeTraceExport::finished);
        exporter.write(profile, path);
        QVERIFY(exporter.isRunning());
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.at(0).at(1).toString(), QString());
        QVERIFY(!exporter.isRunning());
        const LoadResult back = loadPath(path.toStdString());
        QVERIFY2(back.ok(), back.error.c_str());
        QCOMPARE(back.profile->eventCount(), profile->eventCount());
        QCOMPARE(back.profile->flows().size(), profile->flows().size());
    }

    void cancelRemovesThePartialFile() {
        QWidget parent;
        ChromeTraceExport exporter(&parent);
        const auto profile = syntheticProfile(400000);
        QTemporaryDir dir;
        const QString path = dir.filePath("cancelled.json");
        QSignalSpy finished(&exporter, &ChromeTraceExport::finished);
        exporter.write(profile, path);
        exporter.cancel();
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.at(0).at(1).toString(), QString("cancelled"));
        QVERIFY(!QFile::exists(path));
    }

    void unwritableDestinationSaysWhy() {
        QWidget parent;
        ChromeTraceExport exporter(&parent);
        QSignalSpy finished(&exporter, &ChromeTraceExport::finished);
        exporter.write(syntheticProfile(1000), "/nonexistent-folder/out.json");
        QVERIFY(finished.wait(60000));
        const QString error = finished.at(0).at(1).toString();
        QVERIFY2(error.contains("cannot write /nonexistent-folder/out.json"), qPrintable(error));
    }
};

QTEST_MAIN(TestChromeTraceExport)
#include "test_chrome_trace_export.moc"
