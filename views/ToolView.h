#pragma once

#include <QWidget>
#include <memory>

#include "model/Profile.h"
#include "model/ToolId.h"

namespace stepscope {

struct RunDiff;

// The tool's key (toolKey) as Qt text: the Tool selector's item data and the tool the signals
// below ask for.
inline QString toolKeyText(ToolId tool) {
    return QString::fromUtf8(toolKey(tool));
}

// One tool tab. The window owns one instance per tool and hands it the loaded profile; a view
// computes what it shows off the UI thread and never parses files.
class ToolView : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

    // Called on the UI thread whenever the window shows a different profile (or null to clear).
    virtual void setProfile(std::shared_ptr<const Profile> profile) = 0;
    // Brings one event into view, where the tool shows single events (the trace viewer does).
    virtual void focusEvent(EventIndex event) { Q_UNUSED(event); }
    // Shows a time range (ps from the profile start), where the tool shows time (trace viewer).
    virtual void focusRange(int64_t beginPs, int64_t endPs) {
        Q_UNUSED(beginPs);
        Q_UNUSED(endPs);
    }
    // Narrows the tool's table to the rows of one name (op stats: an op; kernel stats: a kernel),
    // for "show in …" from another tool. False where the tool has no such table.
    virtual bool showName(const QString& name) {
        Q_UNUSED(name);
        return false;
    }
    // The comparison of the profile on screen (the baseline) with a candidate run, from the
    // Compare runs page (null: none); `candidate` names the candidate. The window hands every view
    // the latest one; the overview adds what changed to its recommendations.
    virtual void setComparison(std::shared_ptr<const RunDiff> diff, const QString& candidate) {
        Q_UNUSED(diff);
        Q_UNUSED(candidate);
    }
    // The comparison tool's entry points (Compare runs): compare the profile on screen with the
    // run found under `path`, or ask the user for one (File > Compare With…). False where the tool
    // does not compare runs.
    virtual bool compareWith(const QString& path) {
        Q_UNUSED(path);
        return false;
    }
    virtual bool chooseComparison() { return false; }
    // True once what the view shows for the current profile is complete (used by --screenshot).
    virtual bool isReady() const { return true; }

signals:
    // Asks the window to show this event in the trace viewer.
    void showEventRequested(stepscope::EventIndex event);
    // Asks the window to show this time range in the trace viewer.
    void showRangeRequested(qint64 beginPs, qint64 endPs);
    // Asks the window to switch to another tool (its key, toolKeyText).
    void showToolRequested(const QString& toolId);
    // Asks the window to switch to the tool `toolId` (its key) and call its showName(name).
    void showNameRequested(const QString& toolId, const QString& name);
    // The Compare runs page finished (or dropped: null) a comparison; see setComparison.
    void comparisonChanged(std::shared_ptr<const stepscope::RunDiff> diff,
                           const QString& candidate);
    // Emitted when isReady() turns true.
    void ready();
};

} // namespace stepscope
