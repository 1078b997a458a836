#include "ui/ChromeTraceExport.h"

#include <QFileDialog>
#include <QFutureWatcher>
#include <QPointer>
#include <QProgressDialog>
#include <QtConcurrent>

#include "model/kineto/ChromeTraceWriter.h"

namespace stepscope {

ChromeTraceExport::ChromeTraceExport(QWidget* parent)
    : QObject(parent)
    , parent_(parent) {}

ChromeTraceExport::~ChromeTraceExport() {
    cancel();
}

void ChromeTraceExport::cancel() {
    if (running_) running_->cancel();
}

void ChromeTraceExport::run(std::shared_ptr<const Profile> profile, const QString& suggestedPath) {
    const QString path =
        QFileDialog::getSaveFileName(parent_, tr("Export as Chrome Trace"), suggestedPath,
                                     tr("Chrome trace JSON (*.json *.json.gz);;All files (*)"));
    if (path.isEmpty()) return;
    write(std::move(profile), path);
}

void ChromeTraceExport::write(std::shared_ptr<const Profile> profile, const QString& path) {
    if (running_ || !profile) return;
    dialog_ = new QProgressDialog(tr("Writing %1…").arg(QFileInfo(path).fileName()), tr("Cancel"),
                                  0, 1000, parent_);
    dialog_->setWindowTitle(tr("Export as Chrome Trace"));
    dialog_->setMinimumDuration(300);
    dialog_->setAutoClose(false);
    dialog_->setAutoReset(false);
    // The writer reports from the worker; the dialog is updated on the UI thread. One Progress
    // carries both the reports and the dialog's Cancel.
    QPointer<QProgressDialog> dialog = dialog_;
    auto progress = std::make_shared<Progress>([dialog](std::string_view, double fraction) {
        QMetaObject::invokeMethod(
            dialog,
            [dialog, fraction] {
                if (dialog) dialog->setValue(int(fraction * 1000));
            },
            Qt::QueuedConnection);
    });
    running_ = progress;
    connect(dialog_, &QProgressDialog::canceled, this, [progress] { progress->cancel(); });
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, path] {
        watcher->deleteLater();
        const QString error = watcher->result();
        running_.reset();
        if (dialog_) {
            dialog_->close();
            dialog_->deleteLater();
            dialog_ = nullptr;
        }
        emit finished(path, error);
    });
    const std::string target = path.toStdString();
    watcher->setFuture(QtConcurrent::run([profile, progress, target]() -> QString {
        try {
            return QString::fromStdString(writeChromeTrace(*profile, target, progress.get()));
        } catch (const std::bad_alloc&) {
            return QStringLiteral("out of memory while writing");
        } catch (const std::exception& e) {
            return QString::fromUtf8(e.what());
        }
    }));
}

} // namespace stepscope
