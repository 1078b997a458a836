#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "model/analysis/RunDiff.h"
#include "model/analysis/RunDiffTable.h"
#include "model/analysis/StackedRuns.h"
#include "views/AnalysisJob.h"

class QLabel;

namespace stepscope {

class TraceView;

// One step pair of the run diff, stacked (StackedRuns) in a worker, with the events of the stacked
// profile that each diff row stands for and those of the rows the diff classes as slower.
struct StackedTrace {
    StackedRuns runs;
    std::shared_ptr<const StackedOpIndex> index;
    // Events of slower op, kernel and host-op rows, on their host pair's hosts (slowerEvents).
    std::shared_ptr<const std::vector<EventIndex>> slower;
};

// The "Stacked trace" pane of the Compare runs page: the trace viewer (every track, search,
// details, flows) over both runs' step of one pair, with the candidate's step shifted to start
// where the baseline's does. Zoom and pan are shared because it is one timeline. The events of
// ops, kernels and host ops the diff classes as slower carry a red outline in both runs (on the
// hosts of the host pair where they are slower); linkRow() lights one row's
// events up in both runs and dims the rest. The stacking runs in a worker; a newer pair cancels it.
class StackedTraceView : public QWidget {
    Q_OBJECT
public:
    explicit StackedTraceView(QWidget* parent = nullptr);

    // Stacks pair `pair` of `diff` (indices into its pairing); any null clears the pane.
    void setStepPair(std::shared_ptr<const Profile> base, std::shared_ptr<const Profile> candidate,
                     std::shared_ptr<const RunDiff> diff, size_t pair);
    void clear(const QString& message);
    // Lights up the events of one diff row (an op, kernel or host op name; `kind`: a host op's
    // kind) in both runs; an empty name or a category row clears the link.
    void linkRow(DiffBy by, const QString& name, const QString& kind = QString());

    bool busy() const { return busy_; }
    TraceView* trace() const { return trace_; }
    const StackedTrace* stacked() const { return stacked_.get(); }
    QString infoText() const;

signals:
    void finished(); // a stacking finished or failed

private:
    void show(std::shared_ptr<const StackedTrace> stacked);

    QLabel* info_;
    TraceView* trace_;
    AnalysisJob<StackedTrace> job_{this};
    std::shared_ptr<const StackedTrace> stacked_;
    QString pairText_;
    bool busy_ = false;
};

} // namespace stepscope
