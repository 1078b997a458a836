#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <vector>

#include "model/Progress.h"
#include "ui/ProfileLoadJobs.h"

namespace stepscope {

// Runs profile loads in worker threads. Every load gets a job id; starting a load supersedes the
// one before it (which is cancelled), and only the newest job reports progress and its result,
// so quick host switches never show a stale or mixed profile.
class ProfileLoadTracker : public QObject {
    Q_OBJECT
public:
    using Job = std::function<LoadOutcome(const Progress&)>;

    explicit ProfileLoadTracker(QObject* parent = nullptr);
    // Cancels what still runs and waits for it, so no worker outlives the tracker.
    ~ProfileLoadTracker() override;

    // Starts `job` on a worker thread and returns its id.
    quint64 start(Job job);
    // Cancels the current job; it reports finished() with a cancelled result.
    void cancel();
    bool busy() const { return current_ != 0; }
    quint64 currentJob() const { return current_; }

signals:
    // Progress of the current job: stage text and 0..1, on the UI thread.
    void progress(quint64 job, const QString& stage, double fraction);
    // The current job ended (profile, error or cancelled). Results of superseded jobs are dropped.
    void finished(quint64 job, const stepscope::LoadOutcome& outcome);

private:
    struct Running {
        quint64 id = 0;
        std::shared_ptr<Progress> progress;
        QFutureWatcher<LoadOutcome>* watcher = nullptr;
    };

    void onJobFinished(quint64 id);
    void onProgress(quint64 id, const QString& stage, double fraction);

    quint64 nextId_ = 1;
    quint64 current_ = 0; // 0 while idle
    std::vector<Running> running_;
};

} // namespace stepscope
