#include "ui/MainWindow.h"

#include "model/TimeFormat.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QStackedWidget>
#include <QStatusBar>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>
#include <utility>

#include <thread>

#include "ui/CaptureDialog.h"
#include "ui/ChromeTraceExport.h"
#include "ui/LoadErrorText.h"
#include "ui/LoadProgressWidget.h"
#include "ui/MessageBanner.h"
#include "ui/ProfileLoadTracker.h"
#include "ui/ThreadPriority.h"
#include "ui/WelcomePage.h"
#include "views/ToolView.h"
#include "views/trace/ShortcutSheet.h"
#include "widgets/ViewSettings.h"

// The icons are compiled into the static stepscope_ui library, whose resource initializer the
// linker would drop without a reference; Q_INIT_RESOURCE must be called outside any namespace.
static void initStepscopeResources() {
    Q_INIT_RESOURCE(stepscope);
}

namespace stepscope {

namespace {

QLabel* selectorLabel(QWidget* parent) {
    auto* label = new QLabel(parent);
    QFont f = label->font();
    f.setBold(true);
    label->setFont(f);
    return label;
}

} // namespace

MainWindow::MainWindow(QSettings* settings, QWidget* parent)
    : QMainWindow(parent)
    , settings_(settings)
    , recent_(settings)
    , tools_(toolRegistry())
    , tracker_(new ProfileLoadTracker(this)) {
    initStepscopeResources();
    setWindowTitle(tr("Stepscope"));
    setWindowIcon(QIcon(":/stepscope.svg"));
    setAcceptDrops(true);
    setViewSettings(settings_); // views remember hidden columns and pane sizes

    banner_ = new MessageBanner(this);
    welcome_ = new WelcomePage(this);
    noToolPage_ = new QLabel(tr("No tool has anything to show for this profile."), this);
    noToolPage_->setAlignment(Qt::AlignCenter);
    stack_ = new QStackedWidget(this);
    stack_->addWidget(welcome_);
    stack_->addWidget(noToolPage_);

    auto* main = new QWidget(this);
    auto* mainColumn = new QVBoxLayout(main);
    mainColumn->setContentsMargins(8, 8, 8, 0);
    mainColumn->setSpacing(6);
    mainColumn->addWidget(banner_);
    mainColumn->addWidget(stack_, 1);

    auto* central = new QWidget(this);
    auto* row = new QHBoxLayout(central);
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(0);
    sidePanel_ = buildSidePanel();
    row->addWidget(sidePanel_);
    row->addWidget(main, 1);
    setCentralWidget(central);

    statusSummary_ = new QLabel(this);
    statusSummary_->setObjectName("statusSummary");
    statusSummary_->setContentsMargins(6, 0, 0, 0);
    statusBar()->addWidget(statusSummary_, 1);
    progress_ = new LoadProgressWidget(this);
    statusBar()->addPermanentWidget(progress_);

    buildMenus();

    connect(welcome_, &WelcomePage::openFileRequested, this, &MainWindow::chooseFile);
    connect(welcome_, &WelcomePage::openFolderRequested, this, &MainWindow::chooseFolder);
    connect(welcome_, &WelcomePage::demoRequested, this, &MainWindow::openDemo);
    connect(welcome_, &WelcomePage::recentRequested, this, &MainWindow::openRecent);
    connect(progress_, &LoadProgressWidget::cancelRequested, this, &MainWindow::cancelLoad);
    connect(tracker_, &ProfileLoadTracker::progress, this,
            [this](quint64, const QString& stage, double f) { progress_->setProgress(stage, f); });
    connect(tracker_, &ProfileLoadTracker::finished, this,
            [this](quint64, const LoadOutcome& outcome) { onLoadFinished(outcome); });

    welcome_->setRecentPaths(recent_.paths());
    updateTitleAndStatus();

    const QSize avail = screen() ? screen()->availableSize() : QSize(1600, 1000);
    resize(std::min(1440, avail.width() * 9 / 10), std::min(900, avail.height() * 9 / 10));
}

MainWindow::~MainWindow() = default;

QWidget* MainWindow::buildSidePanel() {
    auto* panel = new QFrame(this);
    panel->setObjectName("sidePanel");
    panel->setFixedWidth(220);
    panel->setStyleSheet("#sidePanel { background: palette(alternate-base);"
                         " border-right: 1px solid palette(midlight); }");

    runLabel_ = selectorLabel(panel);
    toolLabel_ = selectorLabel(panel);
    hostLabel_ = selectorLabel(panel);
    runBox_ = new QComboBox(panel);
    runBox_->setObjectName("runSelector");
    toolBox_ = new QComboBox(panel);
    toolBox_->setObjectName("toolSelector");
    hostBox_ = new QComboBox(panel);
    hostBox_->setObjectName("hostSelector");
    for (QComboBox* box : {runBox_, toolBox_, hostBox_}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(12);
        box->setMinimumHeight(30);
    }
    connect(runBox_, &QComboBox::currentIndexChanged, this, &MainWindow::onRunChosen);
    connect(hostBox_, &QComboBox::currentIndexChanged, this, &MainWindow::onHostChosen);
    connect(toolBox_, &QComboBox::currentIndexChanged, this, &MainWindow::onToolChosen);

    sourceLabel_ = new QLabel(panel);
    sourceLabel_->setObjectName("sourceLabel");
    sourceLabel_->setWordWrap(true);
    sourceLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    sourceLabel_->setForegroundRole(QPalette::PlaceholderText);

    auto* column = new QVBoxLayout(panel);
    column->setContentsMargins(14, 14, 14, 14);
    column->setSpacing(4);
    const std::pair<QLabel*, QComboBox*> rows[] = {
        {runLabel_, runBox_}, {toolLabel_, toolBox_}, {hostLabel_, hostBox_}};
    for (auto [label, box] : rows) {
        label->setBuddy(box);
        column->addWidget(label);
        column->addWidget(box);
        column->addSpacing(14);
    }
    column->addWidget(sourceLabel_);
    column->addStretch();
    panel->hide(); // nothing to select until a profile is shown
    return panel;
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* openFile = file->addAction(tr("&Open File…"), this, &MainWindow::chooseFile);
    openFile->setShortcut(QKeySequence::Open);
    QAction* openFolder = file->addAction(tr("Open &Folder…"), this, &MainWindow::chooseFolder);
    openFolder->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    recentMenu_->setObjectName("recentMenu");
    connect(recentMenu_, &QMenu::aboutToShow, this, &MainWindow::refreshRecent);
    file->addAction(tr("Open &Demo Profile"), this, &MainWindow::openDemo);
    file->addSeparator();
    QAction* capture =
        file->addAction(tr("&Capture Profile…"), this, &MainWindow::showCaptureDialog);
    capture->setObjectName("captureAction");
    capture->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    QAction* compare = file->addAction(tr("Compare &With…"), this, [this] {
        if (!profile_ || !selectTool(ToolId::RunDiff)) return;
        if (ToolView* view = currentView()) view->chooseComparison();
    });
    compare->setObjectName("compareAction");
    compare->setEnabled(false);
    connect(this, &MainWindow::profileShown, compare,
            [this, compare] { compare->setEnabled(profile_ != nullptr); });
    file->addSeparator();
    exportChromeAction_ =
        file->addAction(tr("&Export as Chrome Trace…"), this, &MainWindow::exportChromeTrace);
    exportChromeAction_->setObjectName("exportChromeTraceAction");
    exportChromeAction_->setEnabled(false);
    connect(this, &MainWindow::profileShown, exportChromeAction_,
            [this] { exportChromeAction_->setEnabled(profile_ != nullptr); });
    chromeExport_ = new ChromeTraceExport(this);
    connect(chromeExport_, &ChromeTraceExport::finished, this,
            [this](const QString& path, const QString& error) {
                if (error.isEmpty())
                    statusBar()->showMessage(tr("Exported %1").arg(path), 8000);
                else if (error == "cancelled")
                    statusBar()->showMessage(tr("Export cancelled"), 5000);
                else
                    banner_->showMessage(MessageBanner::Kind::Error,
                                         tr("Could not export the Chrome trace"), error);
            });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    sidePanelAction_ = view->addAction(tr("&Side Panel"));
    sidePanelAction_->setObjectName("sidePanelAction");
    sidePanelAction_->setCheckable(true);
    sidePanelAction_->setChecked(true);
    sidePanelAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    connect(sidePanelAction_, &QAction::toggled, this,
            [this](bool on) { sidePanel_->setVisible(on && profile_); });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* keys =
        help->addAction(tr("&Keyboard Shortcuts"), this, [this] { showShortcutSheet(this); });
    keys->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&About Stepscope"), this, [this] {
        QMessageBox::about(this, tr("About Stepscope"),
                           tr("<b>Stepscope %1</b><p>A native profiler for GPU training jobs: "
                              "TensorBoard profile logs and XSpace files, analysed on your "
                              "desktop.</p>")
                               .arg(QCoreApplication::applicationVersion()));
    });
}

void MainWindow::exportChromeTrace() {
    if (!profile_ || chromeExport_->isRunning()) return;
    QString base = shown_.demo ? QString("demo") : QFileInfo(shown_.source).fileName();
    for (const char* suffix : {".gz", ".json", ".trace", ".pt", ".pb", ".xplane"})
        if (base.endsWith(QLatin1String(suffix))) base.chop(int(qstrlen(suffix)));
    if (base.isEmpty()) base = "profile";
    chromeExport_->run(profile_, QDir::home().filePath(base + ".trace.json.gz"));
}

// ---- loading

void MainWindow::openPath(const QString& path, const QString& run) {
    const QString name = QFileInfo(path).fileName();
    // The selectors stay as they are until the new profile is there.
    startLoad(
        tr("Opening %1").arg(name.isEmpty() ? path : name),
        [path, run, cache = cache_](const Progress& p) {
            return discoverAndLoad(path, p, run, cache.get());
        },
        requested_);
}

void MainWindow::showCaptureDialog() {
    // The open log directory is the natural place for a new run.
    QString logDir;
    if (!shown_.demo && !shown_.source.isEmpty()) {
        // Only a run that sits in LOGDIR/plugins/profile/ has a log directory.
        if (const ProfileRun* run = shown_.currentRun()) {
            const QString runPath = QDir::cleanPath(QString::fromStdString(run->path));
            if (runPath.section('/', -3, -2) == QStringLiteral("plugins/profile"))
                logDir = runPath.section('/', 0, -4);
        }
    }
    auto* dialog = new CaptureDialog(settings_, logDir, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &CaptureDialog::captured, this,
            [this](const QString& dir, const QString& run, const QStringList&,
                   const QStringList& warnings) {
                pendingNoticeTitle_.clear();
                pendingNoticeDetail_.clear();
                if (!warnings.isEmpty()) {
                    pendingNoticeTitle_ = tr("Captured %1, but not from every service").arg(run);
                    pendingNoticeDetail_ = warnings.join('\n');
                }
                openPath(dir, run);
            });
    dialog->show();
}

void MainWindow::openDemo() {
    startLoad(
        tr("Opening the demo profile"), [](const Progress& p) { return loadDemo(p); }, requested_);
}

void MainWindow::startLoad(const QString& what, std::function<LoadOutcome(const Progress&)> job,
                           const ProfileSelection& requested) {
    requested_ = requested;
    fillSelectors(requested_);
    progress_->start(what);
    tracker_->start(std::move(job));
}

void MainWindow::cancelLoad() {
    tracker_->cancel();
}

bool MainWindow::isLoading() const {
    return tracker_->busy();
}

void MainWindow::onLoadFinished(const LoadOutcome& outcome) {
    progress_->hide();
    if (outcome.result.ok()) {
        showProfile(outcome);
        return;
    }
    // Keep what is on screen; put the selectors back to it.
    pendingNoticeTitle_.clear();
    pendingNoticeDetail_.clear();
    requested_ = shown_;
    fillSelectors(shown_);
    if (outcome.result.cancelled) {
        statusBar()->showMessage(tr("Loading cancelled"), 5000);
        emit loadCancelled();
        return;
    }
    // A new path is named by its path; a run or host switch by the run and host.
    QString what = outcome.selection.source;
    if (outcome.selection.demo)
        what = tr("the demo profile");
    else if (outcome.selection.source == shown_.source && outcome.selection.currentRun())
        what = outcome.selection.label();
    const QString detail = QString::fromStdString(outcome.result.error);
    // Plain words first, the loader's technical detail second.
    banner_->showMessage(MessageBanner::Kind::Error, tr("Could not open %1").arg(what),
                         plainLoadError(detail) + QLatin1Char('\n') + tr("Detail: %1").arg(detail));
    emit loadFailed(detail);
}

void MainWindow::showProfile(const LoadOutcome& outcome) {
    const bool newSource = outcome.selection.source != shown_.source;
    profile_ = outcome.result.profile;
    shownFromCache_ = outcome.fromCache;
    shown_ = outcome.selection;
    requested_ = shown_;
    banner_->hide();
    if (newSource && !shown_.demo) {
        recent_.add(shown_.source);
        welcome_->setRecentPaths(recent_.paths());
    }
    for (auto& [id, view] : views_) view->setProfile(profile_);
    sidePanel_->setVisible(sidePanelAction_->isChecked());
    fillSelectors(shown_);
    fillToolSelector();
    updateTitleAndStatus();
    if (!pendingNoticeTitle_.isEmpty()) {
        banner_->showMessage(MessageBanner::Kind::Notice, pendingNoticeTitle_,
                             pendingNoticeDetail_);
        pendingNoticeTitle_.clear();
        pendingNoticeDetail_.clear();
    }
    showUnreadableHosts();
    if (!pendingCompare_.isEmpty()) compareWith(std::exchange(pendingCompare_, QString()));
    emit profileShown();
    if (cache_ && !outcome.fromCache && outcome.cacheKey.ok()) writeCache(outcome.cacheKey);
}

void MainWindow::showUnreadableHosts() {
    // As the CLI: the hosts that could be read are shown, the others named with their problem.
    const auto unreadable = unreadableHosts(*profile_);
    if (unreadable.empty()) return;
    QStringList names, problems;
    for (const auto& [host, problem] : unreadable) {
        names << QString::fromStdString(profile_->hosts()[host].name);
        problems << QString::fromStdString(problem);
    }
    banner_->showMessage(MessageBanner::Kind::Error,
                         tr("%1 of %2 hosts could not be opened: %3")
                             .arg(unreadable.size())
                             .arg(profile_->hosts().size())
                             .arg(names.join(QLatin1String(", "))),
                         tr("The other hosts are shown.") + QLatin1Char(' ') +
                             plainLoadError(problems.front()) + QLatin1Char('\n') +
                             tr("Detail: %1").arg(problems.join(QLatin1Char('\n'))));
}

void MainWindow::setProfileCache(std::shared_ptr<const ProfileCache> cache) {
    cache_ = std::move(cache);
}

void MainWindow::writeCache(const CacheKey& key) {
    // After this turn of the event loop, so the first paint of the profile comes first; on a
    // worker at the lowest CPU priority, so the views' own analyses are not slowed down.
    QTimer::singleShot(0, this, [this, key, profile = profile_, cache = cache_] {
        if (profile != profile_) return; // another profile came meanwhile
        cacheWriter_.start(
            profile,
            [key, cache](const Profile& p, const Progress*) {
                std::string error;
                std::thread writer([&] {
                    lowerThisThreadPriority();
                    try {
                        error = cache->store(key, p);
                    } catch (const std::exception& e) {
                        error = std::string("cannot write the cache: ") + e.what();
                    }
                });
                // This pool thread only waits: let the pool run the views' analyses meanwhile.
                QThreadPool::globalInstance()->releaseThread();
                writer.join();
                QThreadPool::globalInstance()->reserveThread();
                return error;
            },
            [this](std::shared_ptr<const std::string> error) {
                emit cacheWritten(QString::fromStdString(*error));
            },
            [this](const QString& message) { emit cacheWritten(message); });
    });
}

// ---- selectors

void MainWindow::fillSelectors(const ProfileSelection& selection) {
    const QSignalBlocker blockRuns(runBox_);
    const QSignalBlocker blockHosts(hostBox_);
    runBox_->clear();
    hostBox_->clear();
    if (selection.demo) {
        runBox_->addItem(tr("Demo profile"), -1);
        hostBox_->addItem(QString::fromUtf8(kDemoHostName), 0);
    } else {
        for (size_t i = 0; i < selection.discovery.runs.size(); ++i)
            runBox_->addItem(QString::fromStdString(selection.discovery.runs[i].name), int(i));
        runBox_->setCurrentIndex(selection.run);
        if (const ProfileRun* run = selection.currentRun()) {
            if (run->hosts.size() > 1)
                hostBox_->addItem(tr("All hosts (%1)").arg(run->hosts.size()),
                                  ProfileSelection::kAllHosts);
            for (size_t i = 0; i < run->hosts.size(); ++i)
                hostBox_->addItem(QString::fromStdString(run->hosts[i].host), int(i));
            hostBox_->setCurrentIndex(hostBox_->findData(selection.host));
        }
    }
    runLabel_->setText(tr("Runs (%1)").arg(runBox_->count()));
    hostLabel_->setText(
        tr("Hosts (%1)").arg(hostBox_->count() > 1 ? hostBox_->count() - 1 : hostBox_->count()));
}

void MainWindow::fillToolSelector() {
    const QSignalBlocker block(toolBox_);
    toolBox_->clear();
    for (const ToolInfo& t : tools_)
        if (profile_ && t.available(*profile_)) toolBox_->addItem(t.title, toolKeyText(t.id));
    toolLabel_->setText(tr("Tools (%1)").arg(toolBox_->count()));
    toolBox_->setEnabled(toolBox_->count() > 0);
    if (toolBox_->count() == 0) {
        toolId_.clear();
        stack_->setCurrentWidget(noToolPage_);
        return;
    }
    // Stay on the user's tool when the new profile has it, else the first one listed.
    int index = toolBox_->findData(toolId_);
    if (index < 0) index = 0;
    toolBox_->setCurrentIndex(index);
    showTool(toolBox_->itemData(index).toString());
}

QStringList MainWindow::availableToolIds() const {
    QStringList ids;
    for (int i = 0; i < toolBox_->count(); ++i) ids << toolBox_->itemData(i).toString();
    return ids;
}

void MainWindow::compareWith(const QString& path) {
    if (!profile_ || isLoading()) {
        pendingCompare_ = path;
        return;
    }
    if (!selectTool(ToolId::RunDiff)) return;
    if (ToolView* view = currentView()) view->compareWith(path);
}

bool MainWindow::selectTool(const QString& id) {
    const int index = toolBox_->findData(id);
    if (index < 0) return false;
    toolBox_->setCurrentIndex(index); // onToolChosen shows it
    return true;
}

ToolView* MainWindow::currentView() const {
    auto it = views_.find(toolId_);
    return it == views_.end() ? nullptr : it->second;
}

void MainWindow::showTool(const QString& id) {
    const ToolInfo* info = findTool(tools_, id);
    if (!info) return;
    toolId_ = id;
    ToolView*& view = views_[id];
    if (!view) {
        view = info->create(stack_);
        view->setObjectName(id + "View");
        stack_->addWidget(view);
        view->setProfile(profile_);
        view->setComparison(comparison_, comparisonName_);
        connect(view, &ToolView::comparisonChanged, this,
                [this](std::shared_ptr<const RunDiff> diff, const QString& candidate) {
                    comparison_ = std::move(diff);
                    comparisonName_ = candidate;
                    for (auto& entry : views_)
                        if (entry.second) entry.second->setComparison(comparison_, comparisonName_);
                });
        connect(view, &ToolView::showEventRequested, this, [this](EventIndex e) {
            if (!selectTool(ToolId::TraceViewer)) return;
            if (ToolView* trace = currentView()) trace->focusEvent(e);
        });
        connect(view, &ToolView::showRangeRequested, this, [this](qint64 b, qint64 e) {
            if (!selectTool(ToolId::TraceViewer)) return;
            if (ToolView* trace = currentView()) trace->focusRange(b, e);
        });
        connect(view, &ToolView::showToolRequested, this,
                [this](const QString& tool) { selectTool(tool); });
        connect(view, &ToolView::showNameRequested, this,
                [this](const QString& tool, const QString& name) {
                    if (!selectTool(tool)) return;
                    if (ToolView* target = currentView()) target->showName(name);
                });
    }
    stack_->setCurrentWidget(view);
}

void MainWindow::onToolChosen(int index) {
    if (index >= 0) showTool(toolBox_->itemData(index).toString());
}

void MainWindow::onRunChosen(int index) {
    if (index < 0 || requested_.demo) return;
    ProfileSelection next = requested_;
    next.run = runBox_->itemData(index).toInt();
    const ProfileRun* run = next.currentRun();
    if (!run) return;
    const std::vector<HostFile> hosts = requested_.hostFiles();
    next.host = requested_.host == ProfileSelection::kAllHosts || hosts.empty()
                    ? defaultHost(*run)
                    : hostNamed(*run, QString::fromStdString(hosts.front().host));
    startLoad(
        tr("Loading %1").arg(next.label()),
        [next, cache = cache_](const Progress& p) { return loadSelection(next, p, cache.get()); },
        next);
}

void MainWindow::onHostChosen(int index) {
    if (index < 0 || requested_.demo) return;
    ProfileSelection next = requested_;
    next.host = hostBox_->itemData(index).toInt();
    startLoad(
        tr("Loading %1").arg(next.label()),
        [next, cache = cache_](const Progress& p) { return loadSelection(next, p, cache.get()); },
        next);
}

// ---- files

void MainWindow::chooseFile() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open Profile File"), QString(),
                                     tr("Profiles (*.xplane.pb *.pb *.json *.json.gz);;"
                                        "TensorFlow/JAX XSpace (*.xplane.pb *.pb);;"
                                        "PyTorch/Chrome trace (*.json *.json.gz);;All files (*)"));
    if (!path.isEmpty()) openPath(path);
}

void MainWindow::chooseFolder() {
    const QString path =
        QFileDialog::getExistingDirectory(this, tr("Open TensorBoard Log Directory or Run Folder"));
    if (!path.isEmpty()) openPath(path);
}

void MainWindow::openRecent(const QString& path) {
    if (!QFileInfo::exists(path)) {
        recent_.remove(path);
        welcome_->setRecentPaths(recent_.paths());
        banner_->showMessage(MessageBanner::Kind::Notice, tr("%1 no longer exists").arg(path),
                             tr("It was removed from Open Recent."));
        return;
    }
    openPath(path);
}

void MainWindow::refreshRecent() {
    const QStringList missing = recent_.removeMissing();
    if (!missing.isEmpty()) {
        welcome_->setRecentPaths(recent_.paths());
        banner_->showMessage(MessageBanner::Kind::Notice,
                             tr("Removed from Open Recent because they no longer exist:"),
                             missing.join('\n'));
    }
    recentMenu_->clear();
    const QStringList paths = recent_.paths();
    for (const QString& p : paths) recentMenu_->addAction(p, this, [this, p] { openRecent(p); });
    if (paths.isEmpty()) recentMenu_->addAction(tr("No recent profiles"))->setEnabled(false);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.front().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.front().isLocalFile()) return;
    event->acceptProposedAction();
    openPath(urls.front().toLocalFile());
}

// ---- title and status

void MainWindow::updateTitleAndStatus() {
    if (!profile_) {
        setWindowTitle(tr("Stepscope"));
        statusSummary_->setText(tr("No profile open"));
        sourceLabel_->clear();
        return;
    }
    if (shown_.demo) {
        setWindowTitle(tr("Demo profile — Stepscope"));
        sourceLabel_->setText(tr("Synthetic profile generated in memory"));
    } else {
        setWindowTitle(tr("%1 — %2 — Stepscope").arg(shown_.label(), shown_.source));
        sourceLabel_->setText(shown_.source);
    }
    const QLocale locale;
    const auto count = [&locale](size_t n, const QString& one, const QString& many) {
        return (n == 1 ? one : many).arg(locale.toString(qulonglong(n)));
    };
    statusSummary_->setText(
        QStringLiteral("%1 · %2 · %3 · span %4")
            .arg(count(profile_->hosts().size(), tr("%1 host"), tr("%1 hosts")),
                 count(profile_->planes().size(), tr("%1 plane"), tr("%1 planes")),
                 count(profile_->eventCount(), tr("%1 event"), tr("%1 events")),
                 QString::fromStdString(formatDuration(profile_->durationPs()))));
}

QString MainWindow::messageText() const {
    return banner_->isHidden() ? QString() : banner_->text();
}

} // namespace stepscope
