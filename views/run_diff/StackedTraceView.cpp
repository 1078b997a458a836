#include "views/run_diff/StackedTraceView.h"

#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <string>

#include "model/TimeFormat.h"
#include "model/analysis/RunDiffTable.h"
#include "views/trace/TimelineCanvas.h"
#include "views/trace/TraceView.h"

namespace stepscope {

namespace {

QString duration(int64_t ps) {
    return QString::fromStdString(formatDuration(ps));
}

} // namespace

StackedTraceView::StackedTraceView(QWidget* parent)
    : QWidget(parent)
    , info_(new QLabel(this))
    , trace_(new TraceView(this)) {
    info_->setWordWrap(true);
    info_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    // The page shares its height with the diff table: the timeline and the details pane may
    // shrink further than in the trace viewer's own tab, so the table keeps a few rows in a
    // 720-pixel window.
    // Keys act on the stacked trace only while it has focus: the page's table and selectors
    // share the window.
    trace_->setKeysFromWindow(false);
    trace_->canvas()->setMinimumHeight(120);
    if (auto* details = trace_->findChild<QTabWidget*>()) details->setMinimumHeight(50);
    if (auto* split = trace_->findChild<QSplitter*>(QStringLiteral("traceSplitter")))
        split->setSizes({800, 120});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(info_);
    layout->addWidget(trace_, 1);
    clear(QString());
}

QString StackedTraceView::infoText() const {
    return info_->text();
}

void StackedTraceView::clear(const QString& message) {
    job_.cancel();
    busy_ = false;
    stacked_.reset();
    trace_->setProfile(nullptr);
    info_->setText(message);
}

void StackedTraceView::setStepPair(std::shared_ptr<const Profile> base,
                                   std::shared_ptr<const Profile> candidate,
                                   std::shared_ptr<const RunDiff> diff, size_t pair) {
    if (!base || !candidate || !diff || pair >= diff->pairing.pairs.size()) {
        clear(diff && diff->wholeProfiles ? tr("No steps: nothing to stack.") : QString());
        return;
    }
    const size_t b = diff->pairing.pairs[pair].first, c = diff->pairing.pairs[pair].second;
    const StepRecord baseStep = diff->baseSteps.steps[b];
    const StepRecord candidateStep = diff->candidateSteps.steps[c];
    pairText_ = tr("Baseline step %1 (%2) and candidate step %3 (%4), shifted to start together.")
                    .arg(baseStep.number)
                    .arg(duration(baseStep.durationPs))
                    .arg(candidateStep.number)
                    .arg(duration(candidateStep.durationPs));
    info_->setText(tr("Stacking baseline step %1 and candidate step %2…")
                       .arg(baseStep.number)
                       .arg(candidateStep.number));
    trace_->setProfile(nullptr);
    stacked_.reset();
    busy_ = true;
    job_.start(
        std::move(base),
        [candidate, baseStep, candidateStep, diff](const Profile& p, const Progress* progress) {
            StackedTrace t;
            t.runs = stackRuns(p, baseStep, *candidate, candidateStep, progress);
            if (!t.runs.profile) return t; // cancelled: the job drops it
            auto index = std::make_shared<StackedOpIndex>(*t.runs.profile);
            std::vector<EventIndex> slower = slowerEvents(t.runs, *index, *diff);
            t.index = std::move(index);
            if (!slower.empty())
                t.slower = std::make_shared<const std::vector<EventIndex>>(std::move(slower));
            return t;
        },
        [this](std::shared_ptr<const StackedTrace> stacked) { show(std::move(stacked)); },
        [this](const QString& message) {
            busy_ = false;
            info_->setText(tr("Could not stack the step pair: %1").arg(message));
            emit finished();
        });
}

void StackedTraceView::show(std::shared_ptr<const StackedTrace> stacked) {
    busy_ = false;
    stacked_ = std::move(stacked);
    const StackedRuns& runs = stacked_->runs;
    trace_->setProfile(runs.profile);
    trace_->canvas()->setLinkedEvents(nullptr, stacked_->slower);
    // Both runs' GPU streams in view together: host sections start folded (a click on the
    // header unfolds one).
    const TimelineLayout* layout = trace_->canvas()->layout();
    for (uint32_t si = 0; si < layout->sections().size(); ++si) {
        const TimelineSection& section = layout->sections()[si];
        if (runs.profile->planes()[section.plane].kind == PlaneKind::Host && !section.collapsed)
            trace_->canvas()->toggleSection(si);
    }
    // The longer of the two steps, with a little room on both sides (taken events that began
    // long before the step, such as a whole-trace span, stay reachable by zooming out).
    const int64_t longer = std::max(runs.baseDurationPs, runs.candidateDurationPs);
    const int64_t margin = longer / 50;
    const int64_t begin = std::max<int64_t>(0, runs.stepBeginPs - margin);
    const int64_t end = runs.stepBeginPs + longer + margin;
    if (end > begin) trace_->canvas()->setVisibleRange({begin, end});
    info_->setText(pairText_ + " " +
                   tr("%1 + %2 events. Red outline: slower in the diff; double-click an op, "
                      "kernel or host op row to light it up in both runs.")
                       .arg(QLocale().toString(qulonglong(runs.baseEvents)))
                       .arg(QLocale().toString(qulonglong(runs.candidateEvents))));
    emit finished();
}

void StackedTraceView::linkRow(DiffBy by, const QString& name, const QString& kind) {
    if (!stacked_ || !stacked_->index) return;
    std::shared_ptr<const std::vector<EventIndex>> linked;
    if (!name.isEmpty() && by != DiffBy::Category) {
        const std::string n = name.toStdString();
        const StackedOpIndex& index = *stacked_->index;
        const std::vector<EventIndex>& events = by == DiffBy::Op ? index.opEvents(n)
                                                : by == DiffBy::Kernel
                                                    ? index.kernelEvents(n)
                                                    : index.hostOpEvents(kind.toStdString(), n);
        linked = std::make_shared<const std::vector<EventIndex>>(events);
    }
    trace_->canvas()->setLinkedEvents(std::move(linked), stacked_->slower);
}

} // namespace stepscope
