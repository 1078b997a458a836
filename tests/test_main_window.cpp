// The application shell: selectors, background loading (stale results, cancel), errors that keep
// the open profile, recent files, drag and drop, command line and screenshot mode.
#include <QComboBox>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QSemaphore>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>
#include <atomic>
#include <chrono>
#include <filesystem>

#include "model/LogDir.h"
#include "model/ProfileBuilder.h"
#include "model/ProfileCache.h"
#include "model/synthetic/SyntheticProfile.h"
#include "ui/CommandLine.h"
#include "ui/LoadErrorText.h"
#include "ui/MainWindow.h"
#include "ui/ProfileLoadTracker.h"
#include "ui/RecentFiles.h"
#include "ui/ScreenshotMode.h"
#include "views/ToolRegistry.h"
#include "views/ToolView.h"
#include "views/kernel_stats/KernelStatsView.h"
#include "views/trace/TimelineCanvas.h"
#include "widgets/DataTableView.h"

using namespace stepscope;

namespace {

constexpr int kLoadTimeoutMs = 60000;
const QString kNewRun = QStringLiteral("2024_03_01_12_00_00");
const QString kOldRun = QStringLiteral("2023_11_20_08_30_00");

QStringList comboTexts(const QComboBox* box) {
    QStringList texts;
    for (int i = 0; i < box->count(); ++i) texts << box->itemText(i);
    return texts;
}

// A one-event profile whose only host is called `name`: tells apart which job's result arrived.
std::shared_ptr<const Profile> tinyProfile(const std::string& name) {
    ProfileBuilder b;
    const uint32_t host = b.addHost(name, "");
    const uint32_t plane = b.addPlane(host, 1, "/host:CPU");
    const uint32_t track = b.addTrack(plane, 1, "main");
    const uint32_t meta = b.addMetadata(plane, 1, "step", "step");
    b.addEvent(track, 0, 1000, meta);
    return std::shared_ptr<const Profile>(b.finish());
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY2(f.open(QIODevice::WriteOnly), qPrintable(path));
    f.write(bytes);
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();

    void trackerDropsStaleResult();
    void trackerCancelDropsFinishedWork();
    void trackerForwardsProgressToUiThread();

    void selectorsListRunsHostsAndTools();
    void allHostsAndSingleHost();
    void switchingRunUpdatesHosts();
    void quickHostSwitchShowsOnlyLastChoice();
    void cancelKeepsPreviousProfile();
    void badInputShowsErrorAndKeepsProfile_data();
    void badInputShowsErrorAndKeepsProfile();
    void allHostsShowTheOthersWhenOneIsTruncated_data();
    void allHostsShowTheOthersWhenOneIsTruncated();
    void singleFileOpens();
    void demoProfile();
    void registryHasEveryToolOnce();
    void everyToolFitsASmallWindow();
    void keyColumnsInViewAt1280x720();
    void loadErrorsInPlainWords();
    void timelineKeysAfterUsingASelector();
    void showInOtherTools();
    void windowIconRenders();
    void dropOpensPath();

    void recentFilesOrderAndLimit();
    void recentFilesInWindow();

    void commandLine();
    void screenshotWritesPng();
    void screenshotErrors();

private:
    // Opens `path` in `window` and waits for the load to end.
    static void openAndWait(MainWindow& window, const QString& path);
    QString settingsFile(const QString& name) const { return dir_.filePath(name + ".ini"); }

    QTemporaryDir dir_;
    QString logDir_;
    Discovery discovery_; // of logDir_, to compare the selectors with
};

void TestMainWindow::initTestCase() {
    QVERIFY(dir_.isValid());
    logDir_ = dir_.filePath("logs");
    SyntheticOptions options;
    options.events = 3000;
    options.gpus = 1;
    std::string error =
        writeSyntheticLogDir(options, 2, logDir_.toStdString(), kNewRun.toStdString());
    QVERIFY2(error.empty(), error.c_str());
    options.seed = 2;
    error = writeSyntheticLogDir(options, 1, logDir_.toStdString(), kOldRun.toStdString());
    QVERIFY2(error.empty(), error.c_str());
    discovery_ = discoverProfiles(logDir_.toStdString());
    QVERIFY2(discovery_.ok(), discovery_.error.c_str());
    QCOMPARE(discovery_.runs.size(), size_t(2));
    QCOMPARE(discovery_.runs[0].hosts.size(), size_t(2));
    QCOMPARE(discovery_.runs[1].hosts.size(), size_t(1));
}

void TestMainWindow::openAndWait(MainWindow& window, const QString& path) {
    window.openPath(path);
    QVERIFY(window.isLoading());
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
}

// ---- the job tracker

void TestMainWindow::trackerDropsStaleResult() {
    ProfileLoadTracker tracker;
    QSemaphore releaseA;
    std::atomic<bool> aReturned{false};
    std::vector<std::pair<quint64, std::string>> delivered;
    connect(&tracker, &ProfileLoadTracker::finished, this, [&](quint64 id, const LoadOutcome& o) {
        delivered.emplace_back(id, o.result.ok() ? o.result.profile->hosts()[0].name : "");
    });
    // A ignores cancellation, as a loader busy in one big read would: it still returns a profile.
    const quint64 a = tracker.start([&](const Progress&) {
        releaseA.acquire();
        LoadOutcome o;
        o.result.profile = tinyProfile("A");
        aReturned = true;
        return o;
    });
    const quint64 b = tracker.start([](const Progress&) {
        LoadOutcome o;
        o.result.profile = tinyProfile("B");
        return o;
    });
    QVERIFY(a != b);
    QCOMPARE(tracker.currentJob(), b);
    QTRY_COMPARE_WITH_TIMEOUT(delivered.size(), size_t(1), kLoadTimeoutMs);
    QCOMPARE(delivered[0].first, b);
    QCOMPARE(delivered[0].second, std::string("B"));
    QVERIFY(!tracker.busy());

    releaseA.release();
    QTRY_VERIFY_WITH_TIMEOUT(aReturned.load(), kLoadTimeoutMs);
    QTest::qWait(200); // let A's finished notification arrive: it must be dropped
    QCOMPARE(delivered.size(), size_t(1));
}

void TestMainWindow::trackerCancelDropsFinishedWork() {
    ProfileLoadTracker tracker;
    QSemaphore release;
    std::vector<LoadOutcome> delivered;
    connect(&tracker, &ProfileLoadTracker::finished, this,
            [&](quint64, const LoadOutcome& o) { delivered.push_back(o); });
    tracker.start([&](const Progress&) {
        release.acquire();
        LoadOutcome o;
        o.result.profile = tinyProfile("late");
        return o;
    });
    tracker.cancel();
    release.release();
    QTRY_COMPARE_WITH_TIMEOUT(delivered.size(), size_t(1), kLoadTimeoutMs);
    QVERIFY(delivered[0].result.cancelled);
    QVERIFY(!delivered[0].result.ok());
}

void TestMainWindow::trackerForwardsProgressToUiThread() {
    ProfileLoadTracker tracker;
    QSemaphore release;
    QString stage;
    double fraction = -1;
    QThread* thread = nullptr;
    connect(&tracker, &ProfileLoadTracker::progress, this,
            [&](quint64, const QString& s, double f) {
                stage = s;
                fraction = f;
                thread = QThread::currentThread();
            });
    tracker.start([&](const Progress& p) {
        p.report("Reading planes", 0.25);
        release.acquire();
        return LoadOutcome{};
    });
    QTRY_COMPARE_WITH_TIMEOUT(stage, QString("Reading planes"), kLoadTimeoutMs);
    QCOMPARE(fraction, 0.25);
    QCOMPARE(thread, QThread::currentThread());
    release.release();
    QTRY_VERIFY_WITH_TIMEOUT(!tracker.busy(), kLoadTimeoutMs);
}

// ---- the window

void TestMainWindow::selectorsListRunsHostsAndTools() {
    QSettings settings(settingsFile("selectors"), QSettings::IniFormat);
    MainWindow window(&settings);
    QCOMPARE(window.findChildren<ToolView*>().size(), 0);
    openAndWait(window, logDir_);
    QVERIFY2(window.profile(), qPrintable(window.messageText()));

    auto* runs = window.findChild<QComboBox*>("runSelector");
    auto* hosts = window.findChild<QComboBox*>("hostSelector");
    auto* tools = window.findChild<QComboBox*>("toolSelector");
    QVERIFY(runs && hosts && tools);
    QCOMPARE(comboTexts(runs), QStringList({kNewRun, kOldRun})); // newest first
    const auto& h = discovery_.runs[0].hosts;
    QCOMPARE(comboTexts(hosts), QStringList({"All hosts (2)", QString::fromStdString(h[0].host),
                                             QString::fromStdString(h[1].host)}));
    QCOMPARE(hosts->currentIndex(), 0);
    QCOMPARE(window.profile()->hosts().size(), size_t(2));

    QStringList expectedTools;
    for (const ToolInfo& t : toolRegistry())
        if (t.available(*window.profile())) expectedTools << t.title;
    QVERIFY(expectedTools.contains("Profile summary"));
    QCOMPARE(comboTexts(tools), expectedTools);
    QCOMPARE(window.currentToolId(), window.availableToolIds().front());
    // Only the tool on screen has been created.
    QCOMPARE(window.findChildren<ToolView*>().size(), 1);
    QVERIFY(window.currentView());

    QVERIFY(window.windowTitle().contains(kNewRun));
    QVERIFY(window.windowTitle().contains("All hosts"));
    QVERIFY(window.windowTitle().contains(logDir_));
    auto* status = window.findChild<QLabel*>("statusSummary");
    QVERIFY(
        status->text().contains(QLocale().toString(qulonglong(window.profile()->eventCount()))));
    QVERIFY(status->text().contains("2 hosts"));
}

void TestMainWindow::allHostsAndSingleHost() {
    QSettings settings(settingsFile("hosts"), QSettings::IniFormat);
    MainWindow window(&settings);
    openAndWait(window, logDir_);
    auto* hosts = window.findChild<QComboBox*>("hostSelector");
    const auto& h = discovery_.runs[0].hosts;

    hosts->setCurrentIndex(2); // the second host alone
    QVERIFY(window.isLoading());
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QCOMPARE(window.profile()->hosts().size(), size_t(1));
    QCOMPARE(window.profile()->hosts()[0].sourcePath, h[1].path);
    QCOMPARE(window.selection().host, 1);
    QVERIFY(window.windowTitle().contains(QString::fromStdString(h[1].host)));

    hosts->setCurrentIndex(0); // All hosts
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QCOMPARE(window.profile()->hosts().size(), size_t(2));
    QCOMPARE(window.selection().host, ProfileSelection::kAllHosts);
}

void TestMainWindow::switchingRunUpdatesHosts() {
    QSettings settings(settingsFile("runs"), QSettings::IniFormat);
    MainWindow window(&settings);
    openAndWait(window, logDir_);
    auto* runs = window.findChild<QComboBox*>("runSelector");
    auto* hosts = window.findChild<QComboBox*>("hostSelector");

    runs->setCurrentIndex(1);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QCOMPARE(window.selection().run, 1);
    const HostFile& only = discovery_.runs[1].hosts[0];
    // One host: no "All hosts" entry.
    QCOMPARE(comboTexts(hosts), QStringList({QString::fromStdString(only.host)}));
    QCOMPARE(window.profile()->hosts().size(), size_t(1));
    QCOMPARE(window.profile()->hosts()[0].sourcePath, only.path);
    QVERIFY(window.windowTitle().contains(kOldRun));
}

void TestMainWindow::quickHostSwitchShowsOnlyLastChoice() {
    QSettings settings(settingsFile("stale"), QSettings::IniFormat);
    MainWindow window(&settings);
    openAndWait(window, logDir_);
    QSignalSpy shown(&window, &MainWindow::profileShown);
    auto* hosts = window.findChild<QComboBox*>("hostSelector");
    const auto& h = discovery_.runs[0].hosts;

    hosts->setCurrentIndex(1); // load A: first host
    hosts->setCurrentIndex(2); // load B at once: second host
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QTest::qWait(200); // anything still queued from A would arrive now
    QCOMPARE(shown.count(), 1);
    QCOMPARE(window.profile()->hosts().size(), size_t(1));
    QCOMPARE(window.profile()->hosts()[0].sourcePath, h[1].path);
    QCOMPARE(hosts->currentText(), QString::fromStdString(h[1].host));
}

void TestMainWindow::cancelKeepsPreviousProfile() {
    QSettings settings(settingsFile("cancel"), QSettings::IniFormat);
    MainWindow window(&settings);
    openAndWait(window, logDir_);
    const std::shared_ptr<const Profile> before = window.profile();
    const QString title = window.windowTitle();
    QSignalSpy cancelled(&window, &MainWindow::loadCancelled);
    QSignalSpy shown(&window, &MainWindow::profileShown);

    auto* hosts = window.findChild<QComboBox*>("hostSelector");
    hosts->setCurrentIndex(1);
    window.cancelLoad();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QCOMPARE(cancelled.count(), 1);
    QCOMPARE(shown.count(), 0);
    QCOMPARE(window.profile(), before);
    QCOMPARE(window.windowTitle(), title);
    QCOMPARE(hosts->currentIndex(), 0); // the selector is back on what is shown
    QCOMPARE(window.selection().host, ProfileSelection::kAllHosts);
    QVERIFY(window.messageText().isEmpty());

    window.openDemo();
    window.cancelLoad();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QCOMPARE(window.profile(), before);
    QVERIFY(!window.selection().demo);
}

void TestMainWindow::badInputShowsErrorAndKeepsProfile_data() {
    QTest::addColumn<QString>("path");
    const QString bad = dir_.filePath("bad");
    QDir().mkpath(bad + "/nothing-here");
    writeFile(bad + "/empty.xplane.pb", {});
    writeFile(bad + "/foreign.xplane.pb", "This is a README, not an XSpace profile.\n");
    QFile host(QString::fromStdString(discovery_.runs[0].hosts[0].path));
    QVERIFY(host.open(QIODevice::ReadOnly));
    const QByteArray bytes = host.readAll();
    writeFile(bad + "/truncated.xplane.pb", bytes.left(bytes.size() / 2));

    QTest::newRow("missing path") << bad + "/does-not-exist";
    QTest::newRow("folder without profiles") << bad + "/nothing-here";
    QTest::newRow("empty file") << bad + "/empty.xplane.pb";
    QTest::newRow("foreign file") << bad + "/foreign.xplane.pb";
    QTest::newRow("truncated file") << bad + "/truncated.xplane.pb";
}

void TestMainWindow::badInputShowsErrorAndKeepsProfile() {
    QFETCH(QString, path);
    QSettings settings(settingsFile("bad"), QSettings::IniFormat);
    MainWindow window(&settings);
    openAndWait(window, logDir_);
    const std::shared_ptr<const Profile> before = window.profile();
    const QString title = window.windowTitle();
    const QStringList recent = window.recentPaths();
    QSignalSpy failed(&window, &MainWindow::loadFailed);

    openAndWait(window, path);
    QCOMPARE(failed.count(), 1);
    const QString detail = failed.front().front().toString();
    QVERIFY2(detail.contains(QFileInfo(path).fileName()), qPrintable(detail)); // names the file
    QVERIFY2(window.messageText().contains(detail), qPrintable(window.messageText()));
    // Plain words before the technical detail.
    const QString plain = plainLoadError(detail);
    QVERIFY(!plain.contains("byte") && !plain.contains("wire type"));
    QVERIFY2(window.messageText().indexOf(plain) >= 0 &&
                 window.messageText().indexOf(plain) < window.messageText().indexOf(detail),
             qPrintable(window.messageText()));
    QCOMPARE(window.profile(), before);
    QCOMPARE(window.windowTitle(), title);
    QCOMPARE(window.recentPaths(), recent); // failures are not remembered

    // Still usable: another host loads.
    window.findChild<QComboBox*>("hostSelector")->setCurrentIndex(1);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QCOMPARE(window.profile()->hosts().size(), size_t(1));
    QVERIFY(window.messageText().isEmpty()); // a successful load clears the error
}

void TestMainWindow::allHostsShowTheOthersWhenOneIsTruncated_data() {
    QTest::addColumn<int>("bad");
    QTest::addColumn<bool>("cached");
    for (const int bad : {0, 1, 2})
        for (const bool cached : {false, true})
            QTest::addRow("host %d cut%s", bad, cached ? ", profile cache on" : "")
                << bad << cached;
}

// A run of three hosts, one of them cut in half: All hosts shows the other two, keeps the bad one
// as a host without planes, and the banner names it and says why; the load does not fail. As
// `stepscope-cli info` does with the same run. With the profile cache on (as the app runs), the
// second open reads the cache and says the same.
void TestMainWindow::allHostsShowTheOthersWhenOneIsTruncated() {
    QFETCH(int, bad);
    QFETCH(bool, cached);
    const QString logs = dir_.filePath(QString("one-bad-host-%1-%2").arg(bad).arg(cached));
    SyntheticOptions options;
    options.events = 2000;
    options.gpus = 1;
    const std::string error = writeSyntheticLogDir(options, 3, logs.toStdString(), "run");
    QVERIFY2(error.empty(), error.c_str());
    const Discovery found = discoverProfiles(logs.toStdString());
    QVERIFY(found.ok());
    const std::vector<HostFile>& hosts = found.runs[0].hosts;
    QCOMPARE(hosts.size(), size_t(3));
    QFile file(QString::fromStdString(hosts[size_t(bad)].path));
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.resize(file.size() / 2));
    file.close();
    for (const HostFile& h : hosts) // settled, so the cache takes them
        std::filesystem::last_write_time(h.path, std::filesystem::file_time_type::clock::now() -
                                                     std::chrono::hours(1));

    QSettings settings(settingsFile("one-bad-host"), QSettings::IniFormat);
    MainWindow window(&settings);
    if (cached)
        window.setProfileCache(
            std::make_shared<const ProfileCache>(dir_.filePath("cache").toStdString(), "test"));
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    for (int open = 0; open < (cached ? 2 : 1); ++open) {
        openAndWait(window, logs);
        QCOMPARE(failed.count(), 0);
        QVERIFY2(window.profile(), qPrintable(window.messageText()));
        QCOMPARE(window.selection().host, ProfileSelection::kAllHosts);
        const Profile& p = *window.profile();
        QCOMPARE(p.hosts().size(), size_t(3));
        std::vector<size_t> planes(3);
        for (const Plane& plane : p.planes()) ++planes[plane.host];
        for (size_t h = 0; h < 3; ++h) QCOMPARE(planes[h] == 0, h == size_t(bad));
        const QString banner = window.messageText();
        for (size_t h = 0; h < 3; ++h)
            QCOMPARE(banner.contains(QString::fromStdString(hosts[h].host) + ".xplane.pb"),
                     h == size_t(bad)); // the file, and the loader's reason
        QVERIFY2(banner.contains("1 of 3 hosts could not be opened: " +
                                 QString::fromStdString(hosts[size_t(bad)].host)),
                 qPrintable(banner));
        QVERIFY2(banner.contains("runs past the end"), qPrintable(banner));
    }
}

void TestMainWindow::singleFileOpens() {
    QSettings settings(settingsFile("single"), QSettings::IniFormat);
    MainWindow window(&settings);
    const HostFile& file = discovery_.runs[0].hosts[1];
    openAndWait(window, QString::fromStdString(file.path));
    QVERIFY2(window.profile(), qPrintable(window.messageText()));
    QCOMPARE(window.profile()->hosts().size(), size_t(1));
    QCOMPARE(window.profile()->hosts()[0].sourcePath, file.path);
    auto* hosts = window.findChild<QComboBox*>("hostSelector");
    QCOMPARE(comboTexts(hosts), QStringList({QString::fromStdString(file.host)}));
}

void TestMainWindow::demoProfile() {
    MainWindow window(nullptr);
    window.openDemo();
    QVERIFY(window.isLoading());
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QVERIFY2(window.profile(), qPrintable(window.messageText()));
    QVERIFY(window.selection().demo);
    QCOMPARE(window.windowTitle(), QString("Demo profile — Stepscope"));
    QCOMPARE(window.profile()->hosts().size(), size_t(1));
    QVERIFY(window.profile()->eventCount() > 10000);
    QVERIFY(window.recentPaths().isEmpty());
}

void TestMainWindow::loadErrorsInPlainWords() {
    // The loader's messages for each kind of bad input, as the command line prints them.
    QVERIFY(plainLoadError("no such file or folder: bad/missing").startsWith("Nothing is there"));
    QVERIFY(plainLoadError("no profiles found in bad/nothing (expected LOGDIR/...)")
                .startsWith("No profile found there"));
    QVERIFY(
        plainLoadError("bad/empty.xplane.pb: the file is empty").startsWith("The file is empty"));
    QVERIFY(plainLoadError("bad/foreign.xplane.pb: not an XSpace profile: at byte 1: unsupported "
                           "wire type 4 in XSpace")
                .startsWith("Not a profile Stepscope can read"));
    QVERIFY(plainLoadError("bad/trunc.xplane.pb: not an XSpace profile: at byte 4: length 21703 of "
                           "XSpace.planes runs past the end of its message (truncated or corrupt)")
                .startsWith("The file is cut short"));
    QVERIFY(plainLoadError("cannot read x.pb: Permission denied")
                .startsWith("The file cannot be read"));
}

// Each tool lays out in 1024 px with the side panel open, whatever was visited before: every tool
// of the registry, on a two-host run that makes the XSpace tools available (pod viewer, tf.data
// and memory profile included) and on a small PyTorch trace for the PyTorch tool.
// The Tool selector lists every ToolId once, in the enum's order, under its key.
void TestMainWindow::registryHasEveryToolOnce() {
    const std::vector<ToolInfo> tools = toolRegistry();
    QCOMPARE(tools.size(), size_t(ToolId::RunDiff) + 1);
    for (size_t i = 0; i < tools.size(); ++i) {
        QCOMPARE(int(tools[i].id), int(i));
        QCOMPARE(findTool(tools, toolKeyText(tools[i].id)), &tools[i]);
    }
    QVERIFY(!findTool(tools, "no_such_tool"));
}

void TestMainWindow::everyToolFitsASmallWindow() {
    const QString torch = dir_.filePath("small.pt.trace.json");
    writeFile(torch, R"({"schemaVersion":1,"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":10,"args":{"External id":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":3,
 "args":{"correlation":5,"external id":1}},
{"ph":"X","cat":"kernel","name":"sgemm","pid":0,"tid":7,"ts":6,"dur":4,"args":{"device":0,
 "stream":7,"correlation":5,"external id":1,"grid":[1,1,1],"block":[128,1,1],
 "registers per thread":32,"shared memory":0}}]})");
    QSettings settings(settingsFile("small"), QSettings::IniFormat);
    MainWindow window(&settings);
    window.resize(1024, 640);
    window.show();
    QStringList missing;
    for (const ToolInfo& t : toolRegistry()) missing << toolKeyText(t.id);
    for (const QString& path : {logDir_, torch}) {
        openAndWait(window, path);
        QVERIFY2(window.profile(), qPrintable(window.messageText()));
        for (const QString& id : window.availableToolIds()) {
            missing.removeAll(id);
            QVERIFY(window.selectTool(id));
            QTRY_VERIFY_WITH_TIMEOUT(window.currentView()->isReady(), kLoadTimeoutMs);
            QVERIFY2(
                window.minimumSizeHint().width() <= 1024,
                qPrintable(QStringLiteral("%1: %2").arg(id).arg(window.minimumSizeHint().width())));
            QVERIFY2(window.minimumSizeHint().height() <= 640,
                     qPrintable(
                         QStringLiteral("%1: %2").arg(id).arg(window.minimumSizeHint().height())));
            // Laid out inside the window, not cut at its right edge.
            QTRY_COMPARE(window.size(), QSize(1024, 640));
            ToolView* view = window.currentView();
            const QRect inWindow(view->mapTo(&window, QPoint(0, 0)), view->size());
            QVERIFY2(window.rect().contains(inWindow), qPrintable(id));
            // Every table on screen shows at least two rows.
            for (DataTableView* table : view->findChildren<DataTableView*>()) {
                if (!table->isVisible()) continue;
                const QTableView* t = table->tableView();
                QVERIFY2(t->viewport()->height() >= 2 * t->verticalHeader()->defaultSectionSize(),
                         qPrintable(QStringLiteral("%1: a table shows %2 px of rows")
                                        .arg(id)
                                        .arg(t->viewport()->height())));
            }
        }
    }
    QVERIFY2(missing.isEmpty(), qPrintable("not checked: " + missing.join(", ")));
    // The minimum never grows from visiting: still within 1024 after all of them.
    QVERIFY(window.minimumSizeHint().width() <= 1024);

    // Ctrl+B folds the side panel away.
    auto* panel = window.findChild<QWidget*>("sidePanel");
    QVERIFY(panel->isVisible());
    window.findChild<QAction*>("sidePanelAction")->trigger();
    QVERIFY(!panel->isVisible());
}

// At 1280x720, with the side panel open, the columns a user opens op stats and kernel stats for
// lie inside the table's viewport, on the synthetic run and on BERT's long names (names give up
// width first, elided; kernel stats shows its counts and times before the launch geometry).
void TestMainWindow::keyColumnsInViewAt1280x720() {
    const std::pair<const char*, QStringList> keys[] = {
        {"tf_stats",
         {"Operation", "#Occurrences", "Total time (µs)", "Avg. time (µs)", "Total self-time (µs)",
          "Avg. self-time (µs)", "Total self-time (%)"}},
        {"kernel_stats",
         {"Kernel name", "Op name", "Occurrences", "Total duration (µs)", "Avg duration (µs)",
          "Min duration (µs)", "Max duration (µs)"}},
    };
    const QString bert = QStringLiteral(STEPSCOPE_REALDATA "/tf-gpu-bert");
    QStringList paths{logDir_};
    if (QFileInfo::exists(bert))
        paths << bert;
    else
        qWarning("../shared/realdata not found: key columns checked on the synthetic run only");
    for (const QString& path : paths) {
        MainWindow window(nullptr);
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        openAndWait(window, path);
        QVERIFY2(window.profile(), qPrintable(window.messageText()));
        for (const auto& [tool, columns] : keys) {
            QVERIFY(window.selectTool(tool));
            QTRY_VERIFY_WITH_TIMEOUT(window.currentView()->isReady(), kLoadTimeoutMs);
            auto* table = window.currentView()->findChild<DataTableView*>();
            QVERIFY(table);
            QTableView* view = table->tableView();
            QTRY_VERIFY(view->viewport()->width() > 600);
            QVERIFY(view->model()->rowCount() > 0);
            const int width = view->viewport()->width();
            for (const QString& name : columns) {
                const int c = table->table().columnIndex(name.toStdString());
                QVERIFY2(c >= 0, qPrintable(name));
                const int left = view->columnViewportPosition(c);
                QVERIFY2(left >= 0 && left + view->columnWidth(c) <= width,
                         qPrintable(QStringLiteral("%1 %2 %3: [%4, %5) of %6")
                                        .arg(path, tool, name)
                                        .arg(left)
                                        .arg(left + view->columnWidth(c))
                                        .arg(width)));
            }
        }
    }
}

void TestMainWindow::timelineKeysAfterUsingASelector() {
    MainWindow window(nullptr);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.activateWindow();
    window.openDemo();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    // Choose the trace viewer with the Tool selector, as a user does; focus stays on it.
    auto* tools = window.findChild<QComboBox*>("toolSelector");
    tools->setFocus();
    tools->setCurrentIndex(tools->findData("trace_viewer"));
    QCOMPARE(window.currentToolId(), QString("trace_viewer"));
    auto* canvas = window.currentView()->findChild<TimelineCanvas*>();
    const TimeRange before = canvas->visibleRange();
    QTest::keyClick(tools, Qt::Key_W);
    QVERIFY(canvas->visibleRange().span() < before.span());
    QCOMPARE(window.currentToolId(), QString("trace_viewer")); // W did not pick another tool
    QTest::keyClick(tools, Qt::Key_3);
    QCOMPARE(canvas->tool(), TimelineCanvas::Tool::Zoom);
    // Another tool showing: the keys are the selector's again.
    window.selectTool("summary");
    const TimeRange now = canvas->visibleRange();
    QTest::keyClick(tools, Qt::Key_S);
    QCOMPARE(canvas->visibleRange(), now);
}

void TestMainWindow::showInOtherTools() {
    MainWindow window(nullptr);
    window.openDemo();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QVERIFY(window.selectTool("trace_viewer"));
    ToolView* trace = window.currentView();
    // The demo's kernels: the first one with kernel details.
    const Profile& p = *window.profile();
    QVERIFY(!p.kernels().empty());
    const EventIndex kernel = p.kernels().eventAt(0);
    const QString name = QString::fromUtf8(p.name(kernel).data(), qsizetype(p.name(kernel).size()));
    emit trace->showNameRequested("kernel_stats", name);
    QCOMPARE(window.currentToolId(), QString("kernel_stats"));
    auto* kernels = static_cast<KernelStatsView*>(window.currentView());
    QTRY_VERIFY_WITH_TIMEOUT(kernels->isReady(), kLoadTimeoutMs);
    const DataTableView& table = *kernels->tableView();
    QVERIFY(!table.visibleRows().empty());
    QVERIFY(table.visibleRows().size() < table.table().rowCount());
    const int nameColumn = table.table().columnIndex("Kernel name");
    for (size_t r : table.visibleRows())
        QVERIFY(QString::fromStdString(table.table().text(r, size_t(nameColumn))).contains(name));
    // Back from a table row to the trace viewer: its longest instance is selected.
    emit kernels->tableView()->rowActivated(int(table.visibleRows()[0]));
    QCOMPARE(window.currentToolId(), QString("trace_viewer"));
    auto* canvas = window.currentView()->findChild<TimelineCanvas*>();
    QVERIFY(canvas->selectedEvent() != kNoIndex);
    QCOMPARE(p.name(canvas->selectedEvent()), p.name(kernel));
}

// The icon is an SVG: it renders only where Qt's SVG icon engine plugin is installed (Debian's
// libqt6svg6, which .ci/install-deps installs; nothing links QtSvg), otherwise the pixmap is null.
void TestMainWindow::windowIconRenders() {
    MainWindow window(nullptr);
    const QImage image = window.windowIcon().pixmap(32, 32).toImage();
    QVERIFY2(!image.isNull(), "no SVG icon engine: install libqt6svg6");
    int painted = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) painted += qAlpha(image.pixel(x, y)) > 0;
    QVERIFY2(painted > 0, "the icon rendered fully transparent");
}

void TestMainWindow::dropOpensPath() {
    QSettings settings(settingsFile("drop"), QSettings::IniFormat);
    MainWindow window(&settings);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(logDir_)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    QVERIFY(window.isLoading());
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QVERIFY(window.profile());
    QCOMPARE(window.selection().source, logDir_);
}

// ---- recent files

void TestMainWindow::recentFilesOrderAndLimit() {
    QSettings settings(settingsFile("recent-order"), QSettings::IniFormat);
    RecentFiles recent(&settings);
    QVERIFY(recent.paths().isEmpty());
    QStringList added;
    for (int i = 0; i < 12; ++i) {
        const QString p = dir_.filePath(QString("r%1").arg(i));
        QDir().mkpath(p);
        recent.add(p);
        added.prepend(p);
    }
    QCOMPARE(recent.paths(), added.mid(0, RecentFiles::kMax)); // newest first, oldest two gone
    recent.add(added[5]);                                      // reopening moves it up
    QStringList expected = added.mid(0, RecentFiles::kMax);
    expected.move(5, 0);
    QCOMPARE(recent.paths(), expected);

    QDir(added[3]).removeRecursively();
    QCOMPARE(recent.removeMissing(), QStringList({added[3]}));
    expected.removeAll(added[3]);
    QCOMPARE(recent.paths(), expected);
    // Kept across instances (it lives in the settings).
    QCOMPARE(RecentFiles(&settings).paths(), expected);
}

void TestMainWindow::recentFilesInWindow() {
    const QString gone = dir_.filePath("gone.xplane.pb");
    QSettings settings(settingsFile("recent-window"), QSettings::IniFormat);
    RecentFiles(&settings).add(gone);
    MainWindow window(&settings);
    openAndWait(window, logDir_);
    QCOMPARE(window.recentPaths(), QStringList({QFileInfo(logDir_).absoluteFilePath(), gone}));

    auto* recentMenu = window.findChild<QMenu*>("recentMenu");
    QVERIFY(recentMenu);
    emit recentMenu->aboutToShow();
    QCOMPARE(window.recentPaths(), QStringList({QFileInfo(logDir_).absoluteFilePath()}));
    QVERIFY2(window.messageText().contains(gone), qPrintable(window.messageText()));
    QCOMPARE(recentMenu->actions().size(), 1);
    QCOMPARE(recentMenu->actions().front()->text(), QFileInfo(logDir_).absoluteFilePath());
}

// ---- command line and screenshots

void TestMainWindow::commandLine() {
    GuiCommand c = parseGuiCommand({"stepscope"});
    QVERIFY(c.error.isEmpty() && c.path.isEmpty() && !c.demo && !c.screenshot);
    c = parseGuiCommand({"stepscope", "/logs"});
    QCOMPARE(c.path, QString("/logs"));
    c = parseGuiCommand({"stepscope", "--demo"});
    QVERIFY(c.demo && c.error.isEmpty());
    c = parseGuiCommand({"stepscope", "--screenshot", "summary", "out.png", "/logs"});
    QVERIFY(c.error.isEmpty() && c.screenshot);
    QCOMPARE(c.screenshot->tool, QString("summary"));
    QCOMPARE(c.screenshot->outPath, QString("out.png"));
    QCOMPARE(c.screenshot->profilePath, QString("/logs"));
    QCOMPARE(c.screenshot->size, QSize(1600, 1000));
    c = parseGuiCommand(
        {"stepscope", "--screenshot", "summary", "out.png", "--demo", "--size", "800x600"});
    QVERIFY(c.error.isEmpty() && c.screenshot && c.screenshot->demo);
    QCOMPARE(c.screenshot->size, QSize(800, 600));
    QVERIFY(!parseGuiCommand({"stepscope", "--screenshot", "summary", "out.png"}).error.isEmpty());
    QVERIFY(
        !parseGuiCommand({"stepscope", "--screenshot", "summary", "o.png", "/l", "--size", "big"})
             .error.isEmpty());
    QVERIFY(!parseGuiCommand({"stepscope", "--demo", "/logs"}).error.isEmpty());
    QVERIFY(!parseGuiCommand({"stepscope", "--bogus"}).error.isEmpty());
    QVERIFY(parseGuiCommand({"stepscope", "--help"}).help);
}

void TestMainWindow::screenshotWritesPng() {
    ScreenshotRequest request;
    request.tool = "summary";
    request.outPath = dir_.filePath("summary.png");
    request.profilePath = logDir_;
    request.size = QSize(1000, 700);
    const QString error = takeScreenshot(request);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QImage image(request.outPath);
    QCOMPARE(image.size(), request.size);
    // Not blank: the selectors and the tool paint more than one colour.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7)
        for (int x = 0; x < image.width(); x += 7) colours.insert(image.pixel(x, y));
    QVERIFY(colours.size() > 4);

    request.outPath = dir_.filePath("demo.png");
    request.profilePath.clear();
    request.demo = true;
    request.size = QSize(900, 640);
    QCOMPARE(takeScreenshot(request), QString());
    QCOMPARE(QImage(request.outPath).size(), QSize(900, 640));
}

void TestMainWindow::screenshotErrors() {
    ScreenshotRequest request;
    request.tool = "no_such_tool";
    request.outPath = dir_.filePath("never.png");
    request.profilePath = logDir_;
    QString error = takeScreenshot(request);
    QVERIFY2(error.contains("no_such_tool") && error.contains("summary"), qPrintable(error));
    QVERIFY(!QFile::exists(request.outPath));

    request.tool = "summary";
    request.profilePath = dir_.filePath("missing-logdir");
    error = takeScreenshot(request);
    QVERIFY2(error.contains(request.profilePath), qPrintable(error));
    QVERIFY(!QFile::exists(request.outPath));

    // Smaller than the window's layout allows: an error, not a PNG of another size.
    request.profilePath = logDir_;
    request.size = QSize(300, 200);
    error = takeScreenshot(request);
    QVERIFY2(error.contains("300x200"), qPrintable(error));
    QVERIFY(!QFile::exists(request.outPath));
}

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
