// The window and the profile cache: the first open loads the sources and writes the cache in the
// background after the profile is shown; the second open reads the cache and shows the same
// profile; without a cache nothing is written; `--no-cache` on the command line.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <filesystem>

#include "model/ProfileCache.h"
#include "model/synthetic/SyntheticProfile.h"
#include "ui/CommandLine.h"
#include "ui/MainWindow.h"

using namespace stepscope;

namespace {
constexpr int kTimeoutMs = 60000;
}

class TestCacheWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        logDir_ = dir_.path() + "/logs";
        SyntheticOptions o;
        o.events = 20000;
        QCOMPARE(writeSyntheticLogDir(o, 1, logDir_.toStdString(), "run"), std::string());
        // Older than ProfileCache::kSettleSeconds, as a profile opened later is.
        std::filesystem::last_write_time(
            (logDir_ + "/plugins/profile/run/worker0.xplane.pb").toStdString(),
            std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
    }

    void secondOpenReadsTheCache() {
        const std::string folder = (dir_.path() + "/cache").toStdString();
        auto cache = std::make_shared<const ProfileCache>(folder, "test");

        MainWindow first(nullptr);
        first.setProfileCache(cache);
        QSignalSpy shown(&first, &MainWindow::profileShown);
        QSignalSpy written(&first, &MainWindow::cacheWritten);
        // The write starts only after the profile is on screen: nothing is there when it shows.
        size_t entriesWhenShown = 99;
        connect(&first, &MainWindow::profileShown, this,
                [&] { entriesWhenShown = cache->info().entries; });
        first.openPath(logDir_);
        QVERIFY(shown.wait(kTimeoutMs));
        QVERIFY(!first.shownFromCache());
        QCOMPARE(entriesWhenShown, size_t(0));
        QVERIFY(written.count() > 0 || written.wait(kTimeoutMs));
        QCOMPARE(written.first().first().toString(), QString());
        QCOMPARE(cache->info().entries, size_t(1));

        MainWindow second(nullptr);
        second.setProfileCache(cache);
        QSignalSpy shownAgain(&second, &MainWindow::profileShown);
        second.openPath(logDir_);
        QVERIFY(shownAgain.wait(kTimeoutMs));
        QVERIFY(second.shownFromCache());
        QCOMPARE(second.profile()->eventCount(), first.profile()->eventCount());
        QCOMPARE(second.availableToolIds(), first.availableToolIds());
        QCOMPARE(second.selection().label(), first.selection().label());
    }

    void noCacheWritesNothing() {
        MainWindow window(nullptr);
        QSignalSpy shown(&window, &MainWindow::profileShown);
        QSignalSpy written(&window, &MainWindow::cacheWritten);
        window.openPath(logDir_);
        QVERIFY(shown.wait(kTimeoutMs));
        QVERIFY(!window.shownFromCache());
        QTest::qWait(200);
        QCOMPARE(written.count(), 0);
    }

    void commandLineNoCache() {
        QVERIFY(parseGuiCommand({"stepscope", "--no-cache", "p"}).noCache);
        QVERIFY(!parseGuiCommand({"stepscope", "p"}).noCache);
    }

private:
    QTemporaryDir dir_;
    QString logDir_;
};

QTEST_MAIN(TestCacheWindow)
#include "test_cache_window.moc"
