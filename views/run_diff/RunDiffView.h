#pragma once

#include <QFutureWatcher>
#include <memory>
#include <optional>

#include "model/LogDir.h"
#include "model/ProfileLoader.h"
#include "model/analysis/RunDiff.h"
#include "model/analysis/RunDiffTable.h"
#include "views/AnalysisJob.h"
#include "views/ToolView.h"
#include "views/run_diff/StackedTraceView.h"
#include "views/run_diff/StepTimeline.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTabBar;

namespace stepscope {

class DataTableView;

// "Compare runs": the profile on screen is the baseline (its Run/Host are the window's); the user
// picks a candidate (a file, run folder or log directory, loaded here in the background with
// progress and Cancel; its own Run and Host selectors, newest run and all hosts first), and the
// page
// shows RunDiff's tables (step breakdown, ops, kernels, host ops: a tab each) in the shared table
// widget with CSV export, how the steps were paired, the Tensor Core / precision callouts and a
// plain summary of what changed. A candidate that cannot be loaded leaves the one before it (and
// the baseline) in place and says why.
class RunDiffView : public ToolView {
    Q_OBJECT
public:
    explicit RunDiffView(QWidget* parent = nullptr);
    ~RunDiffView() override;

    void setProfile(std::shared_ptr<const Profile> profile) override;
    bool isReady() const override {
        return !loading_ && !computing_ && !laying_ && !stacked_->busy();
    }

    // Finds the runs under `path` and loads the newest with all its hosts in the background, then
    // compares.
    void setCandidatePath(const QString& path);
    // Loads another run / host of the candidate (indexes into its runs and the run's hosts; host
    // -1 = all hosts).
    void chooseCandidateRun(int run, int host);
    // Asks for a candidate file or folder (File > Compare with…).
    void chooseCandidate();
    void cancelCandidateLoad();
    bool compareWith(const QString& path) override {
        setCandidatePath(path);
        return true;
    }
    bool chooseComparison() override {
        chooseCandidate();
        return true;
    }

    DataTableView* tableView() const { return table_; }
    QString statusText() const;
    QString summaryText() const;
    const RunDiff* diff() const { return diff_.get(); }
    void setTableKind(DiffBy by);
    DiffBy tableKind() const;
    void setAlignment(StepAlignment alignment, int shift);
    void setHostMatching(HostMatching matching);
    // The step pair the timeline shows (0-based index into the pairing).
    void showStepPair(int pair);
    StepTimeline* timeline() const { return timeline_; }
    StackedTraceView* stackedTrace() const { return stacked_; }

private:
    // What one background load of the candidate found and loaded.
    struct CandidateLoad {
        Discovery discovery;
        int run = 0, host = -1;
        LoadResult result;
    };
    void startLoad(const QString& path, std::optional<Discovery> known, int run, int host);
    void fillCandidateSelectors();
    void compare();
    void showDiff();
    void finishStep();

    std::shared_ptr<const Profile> profile_, candidate_;
    QString candidatePath_;
    std::shared_ptr<const RunDiff> diff_;
    AnalysisJob<RunDiff> job_{this};
    AnalysisJob<StepLanes> laneJob_{this};
    Discovery discovery_; // the candidate's runs
    int run_ = 0, host_ = -1;
    std::shared_ptr<Progress> loadProgress_;
    uint64_t loadId_ = 0;
    bool loading_ = false, computing_ = false, laying_ = false;

    QLabel* candidateLabel_;
    QPushButton* chooseFile_;
    QPushButton* chooseFolder_;
    QPushButton* cancel_;
    QComboBox* runBox_;
    QComboBox* hostBox_;
    QComboBox* hostMatching_;
    QTabBar* tables_; // the tables: step breakdown, ops, kernels, host ops
    QCheckBox* pythonFunctions_;
    QComboBox* align_;
    QSpinBox* shift_;
    QLabel* status_;
    QLabel* summary_;
    DataTableView* table_;
    QSpinBox* pair_;
    QLabel* pairLabel_;
    StepTimeline* timeline_;
    StackedTraceView* stacked_; // the step pair in the trace viewer, a tab beside timeline_
};

} // namespace stepscope
