#include "ui/ProfileLoadTracker.h"

#include <QtConcurrent/QtConcurrentRun>
#include <exception>
#include <mutex>

namespace stepscope {

namespace {

// Forwards a worker's progress to the UI thread, skipping reports that would not move the bar
// by a visible step, so a chatty loader cannot flood the event queue.
class ProgressForwarder {
public:
    ProgressForwarder(ProfileLoadTracker* tracker, quint64 job,
                      std::function<void(quint64, QString, double)> deliver)
        : tracker_(tracker)
        , job_(job)
        , deliver_(std::move(deliver)) {}

    void operator()(std::string_view stage, double fraction) {
        {
            std::lock_guard lock(mutex_);
            const bool sameStage = stage == lastStage_;
            if (sameStage && fraction - lastFraction_ < 0.005 && fraction < 1.0) return;
            lastStage_.assign(stage);
            lastFraction_ = fraction;
        }
        QMetaObject::invokeMethod(
            tracker_,
            [deliver = deliver_, job = job_,
             text = QString::fromUtf8(stage.data(), qsizetype(stage.size())),
             fraction] { deliver(job, text, fraction); },
            Qt::QueuedConnection);
    }

private:
    ProfileLoadTracker* tracker_;
    quint64 job_;
    std::function<void(quint64, QString, double)> deliver_;
    std::mutex mutex_;
    std::string lastStage_;
    double lastFraction_ = -1.0;
};

} // namespace

ProfileLoadTracker::ProfileLoadTracker(QObject* parent)
    : QObject(parent) {}

ProfileLoadTracker::~ProfileLoadTracker() {
    for (Running& r : running_) r.progress->cancel();
    for (Running& r : running_) r.watcher->waitForFinished();
}

quint64 ProfileLoadTracker::start(Job job) {
    for (Running& r : running_) r.progress->cancel(); // superseded: stop the work early

    const quint64 id = nextId_++;
    current_ = id;
    auto forwarder = std::make_shared<ProgressForwarder>(
        this, id, [this](quint64 j, QString stage, double f) { onProgress(j, stage, f); });
    auto progress = std::make_shared<Progress>(
        [forwarder](std::string_view stage, double fraction) { (*forwarder)(stage, fraction); });

    auto* watcher = new QFutureWatcher<LoadOutcome>(this);
    connect(watcher, &QFutureWatcher<LoadOutcome>::finished, this,
            [this, id] { onJobFinished(id); });
    running_.push_back({id, progress, watcher});
    watcher->setFuture(QtConcurrent::run([job = std::move(job), progress] {
        // An exception must not cross into the UI thread (QFuture would rethrow it there).
        try {
            return job(*progress);
        } catch (const std::exception& e) {
            LoadOutcome failed;
            failed.result.error = std::string("Loading failed: ") + e.what();
            return failed;
        }
    }));
    return id;
}

void ProfileLoadTracker::cancel() {
    for (Running& r : running_)
        if (r.id == current_) r.progress->cancel();
}

void ProfileLoadTracker::onProgress(quint64 id, const QString& stage, double fraction) {
    if (id == current_) emit progress(id, stage, fraction);
}

void ProfileLoadTracker::onJobFinished(quint64 id) {
    auto it = std::find_if(running_.begin(), running_.end(),
                           [id](const Running& r) { return r.id == id; });
    if (it == running_.end()) return;
    QFutureWatcher<LoadOutcome>* watcher = it->watcher;
    LoadOutcome outcome = watcher->result();
    if (it->progress->cancelled()) {
        // The user asked to stop: even a load that finished before noticing is not shown.
        outcome.result.profile.reset();
        outcome.result.cancelled = true;
    }
    running_.erase(it);
    watcher->deleteLater();
    if (id != current_) return; // stale: a newer load replaced this one
    current_ = 0;
    emit finished(id, outcome);
}

} // namespace stepscope
