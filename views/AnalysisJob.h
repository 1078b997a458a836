#pragma once

#include <QFutureWatcher>
#include <QtConcurrent>
#include <functional>
#include <memory>

#include "model/Profile.h"
#include "model/Progress.h"

namespace stepscope {

// Runs one analysis of a profile in a worker thread and hands its result to the UI thread. Each
// start() cancels the run before it and gets a new job id; a result whose id is stale (another
// profile arrived meanwhile) or that was cancelled is dropped, so a view never shows a result of
// the wrong profile.
template <class Result> class AnalysisJob {
public:
    using Compute = std::function<Result(const Profile&, const Progress*)>;
    using Done = std::function<void(std::shared_ptr<const Result>)>;

    explicit AnalysisJob(QObject* owner)
        : owner_(owner) {}
    ~AnalysisJob() { cancel(); }
    AnalysisJob(const AnalysisJob&) = delete;
    AnalysisJob& operator=(const AnalysisJob&) = delete;

    // `done` runs on the UI thread, and only for the latest start().
    void start(std::shared_ptr<const Profile> profile, Compute compute, Done done) {
        cancel();
        const uint64_t job = ++job_;
        auto progress = std::make_shared<Progress>();
        running_ = progress;
        auto* watcher = new QFutureWatcher<std::shared_ptr<const Result>>(owner_);
        QObject::connect(watcher, &QFutureWatcherBase::finished, owner_,
                         [this, watcher, job, progress, done = std::move(done)] {
                             watcher->deleteLater();
                             if (job != job_ || progress->cancelled()) return;
                             running_.reset();
                             done(watcher->result());
                         });
        watcher->setFuture(QtConcurrent::run(
            [profile = std::move(profile), progress, compute = std::move(compute)] {
                return std::make_shared<const Result>(compute(*profile, progress.get()));
            }));
    }

    // Cancels the run in progress, if any; its result will be dropped.
    void cancel() {
        ++job_;
        if (running_) running_->cancel();
        running_.reset();
    }

private:
    QObject* owner_;
    uint64_t job_ = 0;
    std::shared_ptr<Progress> running_;
};

} // namespace stepscope
