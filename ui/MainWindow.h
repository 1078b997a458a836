#pragma once

#include <QMainWindow>
#include <map>
#include <memory>
#include <vector>

#include "model/Profile.h"
#include "model/ProfileCache.h"
#include "ui/ProfileLoadJobs.h"
#include "ui/ProfileSelection.h"
#include "ui/RecentFiles.h"
#include "views/AnalysisJob.h"
#include "views/ToolRegistry.h"

class QAction;
class QComboBox;
class QLabel;
class QMenu;
class QSettings;
class QStackedWidget;

namespace stepscope {

class ChromeTraceExport;
class LoadProgressWidget;
class MessageBanner;
class ProfileLoadTracker;
struct RunDiff;
class ToolView;
class WelcomePage;

// The Stepscope window: Run, Tool and Host selectors as in TensorBoard's profile plugin, one tab
// per tool (created when first shown), background loading with progress and Cancel, recent
// files, drag and drop. A failed or cancelled load leaves the profile on screen untouched.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // `settings` keeps the recent files; null remembers nothing (screenshot mode).
    explicit MainWindow(QSettings* settings, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a log directory, plugins/profile folder, run folder or .xplane.pb in the background;
    // `run` names the run to show (else the newest).
    void openPath(const QString& path, const QString& run = QString());
    // File > Capture Profile…: the capture dialog; a capture opens its run when done.
    void showCaptureDialog();
    // File > Export as Chrome Trace…: the profile on screen as Chrome trace JSON (Perfetto).
    void exportChromeTrace();
    ChromeTraceExport* chromeTraceExport() const { return chromeExport_; }
    // Compares the profile on screen (the baseline) with the run at `path` on the "Compare runs"
    // page; when no profile is shown yet, once the one being loaded is.
    void compareWith(const QString& path);
    // Opens the built-in synthetic profile in the background.
    void openDemo();
    void cancelLoad();
    bool isLoading() const;
    // Loads read valid entries of this cache instead of their sources, and a profile loaded from
    // its sources is written to it in the background once shown. Null (the default): no cache.
    void setProfileCache(std::shared_ptr<const ProfileCache> cache);
    // Whether the profile on screen was read from the cache.
    bool shownFromCache() const { return shownFromCache_; }

    std::shared_ptr<const Profile> profile() const { return profile_; }
    const ProfileSelection& selection() const { return shown_; }
    // Ids of the tools the Tool selector lists for the profile on screen, in registry order.
    QStringList availableToolIds() const;
    QString currentToolId() const { return toolId_; }
    // Switches to a listed tool (by its key, toolKey); false when the profile has nothing for it.
    bool selectTool(const QString& id);
    bool selectTool(ToolId tool) { return selectTool(toolKeyText(tool)); }
    ToolView* currentView() const;
    // The text of the error/notice banner; empty when it is hidden.
    QString messageText() const;
    QStringList recentPaths() const { return recent_.paths(); }

signals:
    void profileShown();
    void loadFailed(const QString& message);
    void loadCancelled();
    // A background cache write ended: empty on success, else why nothing was written.
    void cacheWritten(const QString& error);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildMenus();
    QWidget* buildSidePanel();
    void startLoad(const QString& what, std::function<LoadOutcome(const Progress&)> job,
                   const ProfileSelection& requested);
    void onLoadFinished(const LoadOutcome& outcome);
    void showProfile(const LoadOutcome& outcome);
    // Names in the banner the hosts of the shown profile that could not be read.
    void showUnreadableHosts();
    void fillSelectors(const ProfileSelection& selection);
    void fillToolSelector();
    void showTool(const QString& id);
    void onRunChosen(int index);
    void onHostChosen(int index);
    void onToolChosen(int index);
    void openRecent(const QString& path);
    void refreshRecent();
    void chooseFile();
    void chooseFolder();
    void updateTitleAndStatus();
    void writeCache(const CacheKey& key);

    QSettings* settings_;
    RecentFiles recent_;
    std::vector<ToolInfo> tools_;
    ProfileLoadTracker* tracker_;

    std::shared_ptr<const Profile> profile_;
    bool shownFromCache_ = false;
    std::shared_ptr<const ProfileCache> cache_;
    AnalysisJob<std::string> cacheWriter_{this};
    ProfileSelection shown_;     // what the profile on screen was loaded from
    ProfileSelection requested_; // what the selectors show: shown_, or the load in flight
    QString toolId_;
    std::map<QString, ToolView*> views_;

    QWidget* sidePanel_;
    QComboBox* runBox_;
    QComboBox* toolBox_;
    QComboBox* hostBox_;
    QLabel* runLabel_;
    QLabel* toolLabel_;
    QLabel* hostLabel_;
    QLabel* sourceLabel_;
    MessageBanner* banner_;
    QStackedWidget* stack_;
    WelcomePage* welcome_;
    QLabel* noToolPage_;
    QLabel* statusSummary_;
    LoadProgressWidget* progress_;
    QMenu* recentMenu_;
    QAction* exportChromeAction_ = nullptr;
    ChromeTraceExport* chromeExport_ = nullptr;
    QAction* sidePanelAction_ = nullptr;
    QString pendingCompare_; // compareWith() before a profile was shown
    // The latest comparison of the Compare runs page, handed to every view (setComparison).
    std::shared_ptr<const RunDiff> comparison_;
    QString comparisonName_;
    // Shown in the banner once the next load succeeds (a capture's warnings).
    QString pendingNoticeTitle_, pendingNoticeDetail_;
};

} // namespace stepscope
