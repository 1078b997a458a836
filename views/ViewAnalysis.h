#pragma once

#include <QCoreApplication>
#include <QString>
#include <functional>
#include <memory>

#include "model/Profile.h"
#include "views/AnalysisJob.h"
#include "views/ToolView.h"

namespace stepscope {

// The analysis behind a tool view, run for each profile the view is given, with everything a view
// does around it in one place: the result dropped when the profile changes, "No profile loaded."
// without one, the view's status line while it runs and when it fails, and the view's ready()
// once it is done either way (AnalysisJob runs it off the UI thread and drops stale results).
template <class Result> class ViewAnalysis {
public:
    using Compute = typename AnalysisJob<Result>::Compute;
    struct Hooks {
        std::function<void(const QString&)> status;              // sets the view's status line
        std::function<void(std::shared_ptr<const Result>)> take; // hands it the result (null: none)
        std::function<void()> show;                              // redraws the view from it
    };

    // `name` is the analysis as the failure message names it ("kernel stats").
    ViewAnalysis(ToolView* view, QString name, Hooks hooks)
        : view_(view)
        , name_(std::move(name))
        , hooks_(std::move(hooks))
        , job_(view) {}

    // Computes the result for `profile` (null: clears the view); `running` is the status line
    // meanwhile. A run started before is cancelled and its result never shown.
    void run(std::shared_ptr<const Profile> profile, const QString& running, Compute compute) {
        hooks_.take(nullptr);
        if (!profile) {
            job_.cancel();
            hooks_.status(QCoreApplication::translate("ViewAnalysis", "No profile loaded."));
            hooks_.show();
            finish();
            return;
        }
        ready_ = false;
        hooks_.status(running);
        hooks_.show();
        job_.start(
            std::move(profile), std::move(compute),
            [this](std::shared_ptr<const Result> result) {
                hooks_.take(std::move(result));
                hooks_.show();
                finish();
            },
            [this](const QString& message) {
                hooks_.status(QCoreApplication::translate("ViewAnalysis", "Could not compute the "
                                                                          "%1: %2")
                                  .arg(name_, message));
                finish();
            });
    }

    // True once the latest run has finished (or there was nothing to run).
    bool ready() const { return ready_; }

private:
    void finish() {
        ready_ = true;
        emit view_->ready();
    }

    ToolView* view_;
    QString name_;
    Hooks hooks_;
    AnalysisJob<Result> job_;
    bool ready_ = true;
};

} // namespace stepscope
