#pragma once

#include <QObject>
#include <QString>
#include <memory>

#include "model/Profile.h"
#include "model/Progress.h"

class QProgressDialog;
class QWidget;

namespace stepscope {

// File > Export as Chrome Trace…: writes the profile on screen as Chrome trace JSON
// (model/kineto/ChromeTraceWriter) in a worker thread, with a progress dialog whose Cancel stops
// the writer (the partial file is removed). The profile is shared, so the window may load
// another one meanwhile; the export goes on with the one it started with.
class ChromeTraceExport : public QObject {
    Q_OBJECT
public:
    explicit ChromeTraceExport(QWidget* parent);
    ~ChromeTraceExport() override;

    // Asks where to save (suggesting `suggestedPath`), then writes.
    void run(std::shared_ptr<const Profile> profile, const QString& suggestedPath);
    // Writes to `path` without asking.
    void write(std::shared_ptr<const Profile> profile, const QString& path);
    bool isRunning() const { return running_ != nullptr; }
    void cancel();

signals:
    // `error` is empty on success and "cancelled" when the user cancelled.
    void finished(const QString& path, const QString& error);

private:
    QWidget* parent_;
    QProgressDialog* dialog_ = nullptr;
    std::shared_ptr<Progress> running_;
};

} // namespace stepscope
