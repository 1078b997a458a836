#pragma once

#include <QDialog>
#include <QElapsedTimer>
#include <QFuture>
#include <memory>

#include "capture/ProgramLauncher.h"
#include "capture/RemoteCapture.h"

class QCheckBox;
class QComboBox;
class QPlainTextEdit;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSettings;
class QSpinBox;
class QTabWidget;

namespace stepscope {

// File > Capture Profile…: profiles running TensorFlow / JAX jobs through their profiler servers
// (the fields of TensorBoard's Capture Profile dialog), with progress, Cancel and plain errors.
// The capture runs in a worker; the window stays usable and the open profile stays open. On
// success it emits captured() and closes; the window then opens the new run. The *Launch a
// program* tab runs a program under the CUPTI collector (capture/ProgramLauncher.h) where the
// build has it, and says what it needs where not.
class CaptureDialog : public QDialog {
    Q_OBJECT
public:
    // `settings` remembers the last values (null: remember nothing); `suggestedLogDir` fills the
    // log directory when nothing is remembered (the log directory of the open profile).
    CaptureDialog(QSettings* settings, const QString& suggestedLogDir, QWidget* parent = nullptr);
    ~CaptureDialog() override;

    bool isCapturing() const;
    // The options the fields describe, or an error naming the field that is wrong.
    capture::RemoteCaptureOptions options(QString* error) const;
    // The message under the fields: the last error, or empty.
    QString errorText() const;
    QString statusText() const;

public slots:
    void startCapture();
    void cancelCapture();
    void reject() override; // Close while capturing cancels first

signals:
    void captured(const QString& logDir, const QString& runName, const QStringList& files,
                  const QStringList& warnings);

private:
    QWidget* buildRemoteTab();
    QWidget* buildLaunchTab();
    void loadSettings(const QString& suggestedLogDir);
    void saveSettings() const;
    void setBusy(bool busy);
    void showError(const QString& message);
    void onProgress(const QString& stage, double fraction);
    void onFinished(const capture::RemoteCaptureResult& result);
    void startLaunch();
    void onLaunchFinished(const capture::LaunchResult& result);
    QString launchKinds() const;
    capture::LaunchOptions launchOptions(QString* error) const;

    QSettings* settings_;
    QTabWidget* tabs_;
    QLineEdit* services_;
    QLineEdit* logDir_;
    QPushButton* browse_;
    QSpinBox* duration_;
    QSpinBox* retries_;
    QSpinBox* delay_;
    QComboBox* hostLevel_;
    QComboBox* deviceLevel_;
    QComboBox* pythonLevel_;
    // The Launch tab's fields, present when the build has the CUPTI injection library.
    bool launchAvailable_ = false;
    QLineEdit* program_ = nullptr;
    QLineEdit* arguments_ = nullptr;
    QLineEdit* workDir_ = nullptr;
    QPlainTextEdit* environment_ = nullptr;
    std::vector<std::pair<const char*, QCheckBox*>> kindBoxes_;
    QSpinBox* stopAfter_ = nullptr;
    QSpinBox* launchDelay_ = nullptr;
    bool launching_ = false;
    QElapsedTimer launchClock_;
    QLabel* status_;
    QProgressBar* progressBar_;
    QLabel* error_;
    QPushButton* captureButton_;
    QPushButton* cancelButton_;
    QPushButton* closeButton_;

    std::shared_ptr<Progress> progress_; // the running capture's cancel flag
    QFuture<void> worker_;
    bool busy_ = false; // from startCapture() until its result is shown
    bool closeWhenDone_ = false;
    uint64_t runningDurationMs_ = 0, runningDelayMs_ = 0;
};

} // namespace stepscope
