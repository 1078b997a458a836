#include "ui/CaptureDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTabBar>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <string_view>

namespace stepscope {

namespace {

constexpr int kMaxMs = 24 * 3600 * 1000;

QComboBox* levelBox(const QStringList& names, QWidget* parent, const QString& objectName) {
    auto* box = new QComboBox(parent);
    box->setObjectName(objectName);
    for (int i = 0; i < names.size(); ++i) box->addItem(names[i], i);
    return box;
}

QSpinBox* msBox(int min, int value, QWidget* parent, const QString& objectName) {
    auto* box = new QSpinBox(parent);
    box->setObjectName(objectName);
    box->setRange(min, kMaxMs);
    box->setValue(value);
    box->setSuffix(QObject::tr(" ms"));
    box->setGroupSeparatorShown(true);
    return box;
}

QString secondsText(double ms) {
    return QString::number(ms / 1000.0, 'f', 1) + QObject::tr(" s");
}

} // namespace

CaptureDialog::CaptureDialog(QSettings* settings, const QString& suggestedLogDir, QWidget* parent)
    : QDialog(parent)
    , settings_(settings) {
    setWindowTitle(tr("Capture Profile"));
    setObjectName("captureDialog");

    logDir_ = new QLineEdit(this);
    logDir_->setObjectName("logDirEdit");
    logDir_->setToolTip(tr("The run is written to LOGDIR/plugins/profile/RUN/. Remote servers "
                           "write their files themselves, so for them this must be a folder "
                           "they reach under the same path."));
    browse_ = new QPushButton(tr("Browse…"), this);
    connect(browse_, &QPushButton::clicked, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Log Directory"), logDir_->text());
        if (!dir.isEmpty()) logDir_->setText(dir);
    });
    auto* logRow = new QHBoxLayout;
    logRow->addWidget(new QLabel(tr("Log directory:"), this));
    logRow->addWidget(logDir_, 1);
    logRow->addWidget(browse_);

    tabs_ = new QTabWidget(this);
    tabs_->addTab(buildRemoteTab(), tr("Remote service"));
    tabs_->addTab(buildLaunchTab(), tr("Launch a program"));

    status_ = new QLabel(this);
    status_->setObjectName("captureStatus");
    status_->setWordWrap(true);
    progressBar_ = new QProgressBar(this);
    progressBar_->setObjectName("captureProgress");
    progressBar_->setRange(0, 1000);
    progressBar_->setTextVisible(false);
    progressBar_->hide();
    error_ = new QLabel(this);
    error_->setObjectName("captureError");
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setStyleSheet("color: #b3261e;");
    error_->hide();

    auto* buttons = new QDialogButtonBox(this);
    captureButton_ = buttons->addButton(tr("Capture"), QDialogButtonBox::AcceptRole);
    captureButton_->setObjectName("captureButton");
    captureButton_->setDefault(true);
    // Beside the progress bar rather than in the button box, which shows every button it holds.
    cancelButton_ = new QPushButton(tr("Cancel Capture"), this);
    cancelButton_->setObjectName("cancelCaptureButton");
    cancelButton_->setAutoDefault(false);
    cancelButton_->hide();
    closeButton_ = buttons->addButton(QDialogButtonBox::Close);
    closeButton_->setObjectName("closeButton");
    // The box's accepted/rejected are left unconnected: Capture must not close the dialog.
    connect(captureButton_, &QPushButton::clicked, this, &CaptureDialog::startCapture);
    connect(cancelButton_, &QPushButton::clicked, this, &CaptureDialog::cancelCapture);
    connect(closeButton_, &QPushButton::clicked, this, &CaptureDialog::reject);
    connect(tabs_, &QTabWidget::currentChanged, this, [this] { setBusy(isCapturing()); });

    auto* column = new QVBoxLayout(this);
    column->addLayout(logRow);
    column->addWidget(tabs_);
    column->addWidget(status_);
    auto* progressRow = new QHBoxLayout;
    progressRow->addWidget(progressBar_, 1);
    progressRow->addWidget(cancelButton_);
    column->addLayout(progressRow);
    column->addWidget(error_);
    column->addWidget(buttons);

    loadSettings(suggestedLogDir);
    setMinimumWidth(560);
}

CaptureDialog::~CaptureDialog() {
    // The worker holds its own copies; stop it and wait (it checks the flag every 50 ms).
    if (progress_) progress_->cancel();
    worker_.waitForFinished();
}

QWidget* CaptureDialog::buildRemoteTab() {
    auto* page = new QWidget(this);
    auto* form = new QFormLayout(page);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    services_ = new QLineEdit(page);
    services_->setObjectName("serviceEdit");
    services_->setPlaceholderText(tr("localhost:6009, worker-1:6009"));
    services_->setToolTip(
        tr("host:port of each job's profiler server, separated by commas. A job starts one with "
           "tf.profiler.experimental.server.start(PORT) or jax.profiler.start_server(PORT)."));
    form->addRow(tr("Profile service URL(s):"), services_);

    duration_ = msBox(1, 1000, page, "durationSpin");
    form->addRow(tr("Profiling duration:"), duration_);
    retries_ = new QSpinBox(page);
    retries_->setObjectName("retriesSpin");
    retries_->setRange(0, 100);
    retries_->setValue(3);
    form->addRow(tr("Retries when no trace event is collected:"), retries_);
    delay_ = msBox(0, 0, page, "delaySpin");
    form->addRow(tr("Delay before profiling:"), delay_);

    hostLevel_ = levelBox({tr("Off (0)"), tr("Critical (1)"), tr("Info (2)"), tr("Verbose (3)")},
                          page, "hostLevelBox");
    form->addRow(tr("Host trace level:"), hostLevel_);
    deviceLevel_ = levelBox({tr("Off (0)"), tr("On (1)")}, page, "deviceLevelBox");
    form->addRow(tr("Device trace level:"), deviceLevel_);
    pythonLevel_ = levelBox({tr("Off (0)"), tr("On (1)")}, page, "pythonLevelBox");
    form->addRow(tr("Python trace level:"), pythonLevel_);
    return page;
}

QWidget* CaptureDialog::buildLaunchTab() {
    auto* page = new QWidget(this);
#ifndef STEPSCOPE_CUPTI_LIBRARY
    auto* column = new QVBoxLayout(page);
    auto* text = new QLabel(
        tr("<p><b>Local capture with CUPTI is not part of this build.</b></p>"
           "<p>This tab starts a CUDA program or training script under Stepscope's CUPTI "
           "collector, records every kernel, copy, API call and NVTX range, and opens the "
           "result. It needs a build that found the CUDA toolkit with CUPTI, and an NVIDIA "
           "driver.</p>"
           "<p>To profile a TensorFlow or JAX job now, start its profiler server "
           "(<code>tf.profiler.experimental.server.start(6009)</code> or "
           "<code>jax.profiler.start_server(6009)</code>) and use the <i>Remote service</i> "
           "tab.</p>"),
        page);
    text->setObjectName("launchUnavailable");
    text->setWordWrap(true);
    text->setTextFormat(Qt::RichText);
    column->addWidget(text);
    column->addStretch();
#else
    launchAvailable_ = true;
    auto* form = new QFormLayout(page);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    program_ = new QLineEdit(page);
    program_->setObjectName("programEdit");
    program_->setPlaceholderText(tr("python3, ./train, /usr/bin/my_cuda_app"));
    form->addRow(tr("Program:"), program_);
    arguments_ = new QLineEdit(page);
    arguments_->setObjectName("argumentsEdit");
    arguments_->setPlaceholderText(tr("train.py --steps 20 (quoted as in a shell)"));
    form->addRow(tr("Arguments:"), arguments_);
    workDir_ = new QLineEdit(page);
    workDir_->setObjectName("workDirEdit");
    workDir_->setPlaceholderText(tr("the current folder"));
    form->addRow(tr("Working directory:"), workDir_);
    environment_ = new QPlainTextEdit(page);
    environment_->setObjectName("environmentEdit");
    environment_->setPlaceholderText(tr("NAME=VALUE, one per line"));
    environment_->setFixedHeight(56);
    form->addRow(tr("Environment additions:"), environment_);
    auto* kinds = new QHBoxLayout;
    const std::pair<const char*, QString> kindNames[] = {
        {"kernels", tr("Kernels")}, {"memcpy", tr("Copies")}, {"memory", tr("Memory")},
        {"api", tr("API calls")},   {"nvtx", tr("NVTX")},     {"api-all", tr("Every API call")}};
    for (const auto& [key, label] : kindNames) {
        auto* box = new QCheckBox(label, page);
        box->setObjectName(QStringLiteral("kind_") + key);
        box->setChecked(std::string_view(key) != "api-all");
        kindBoxes_.push_back({key, box});
        kinds->addWidget(box);
    }
    kinds->addStretch();
    form->addRow(tr("Record:"), kinds);
    launchDelay_ = new QSpinBox(page);
    launchDelay_->setObjectName("launchDelaySpin");
    launchDelay_->setRange(0, 24 * 3600);
    launchDelay_->setSuffix(tr(" s"));
    launchDelay_->setSpecialValueText(tr("at once"));
    form->addRow(tr("Start recording:"), launchDelay_);
    stopAfter_ = new QSpinBox(page);
    stopAfter_->setObjectName("stopAfterSpin");
    stopAfter_->setRange(0, 24 * 3600);
    stopAfter_->setSuffix(tr(" s of recording"));
    stopAfter_->setSpecialValueText(tr("when it exits"));
    form->addRow(tr("Stop the program:"), stopAfter_);
#endif
    return page;
}

void CaptureDialog::loadSettings(const QString& suggestedLogDir) {
    const auto value = [this](const char* key, const QVariant& fallback) {
        return settings_ ? settings_->value(QStringLiteral("capture/") + key, fallback) : fallback;
    };
    services_->setText(value("services", QString()).toString());
    logDir_->setText(value("logDir", suggestedLogDir).toString());
    duration_->setValue(value("durationMs", 1000).toInt());
    retries_->setValue(value("retries", 3).toInt());
    delay_->setValue(value("delayMs", 0).toInt());
    hostLevel_->setCurrentIndex(std::clamp(value("hostTracerLevel", 2).toInt(), 0, 3));
    deviceLevel_->setCurrentIndex(std::clamp(value("deviceTracerLevel", 1).toInt(), 0, 1));
    pythonLevel_->setCurrentIndex(std::clamp(value("pythonTracerLevel", 0).toInt(), 0, 1));
    if (launchAvailable_) {
        program_->setText(value("program", QString()).toString());
        arguments_->setText(value("arguments", QString()).toString());
        workDir_->setText(value("workDir", QString()).toString());
        environment_->setPlainText(value("environment", QString()).toString());
        stopAfter_->setValue(value("stopAfterS", 0).toInt());
        launchDelay_->setValue(value("launchDelayS", 0).toInt());
        const QStringList kinds =
            value("kinds", QString()).toString().split(',', Qt::SkipEmptyParts);
        // Nothing saved: every kind but every API call (queries included), as the CLI.
        for (auto& [key, box] : kindBoxes_)
            box->setChecked(kinds.isEmpty() ? std::string_view(key) != "api-all"
                                            : kinds.contains(QString::fromLatin1(key)));
    }
}

void CaptureDialog::saveSettings() const {
    if (!settings_) return;
    settings_->setValue("capture/services", services_->text());
    settings_->setValue("capture/logDir", logDir_->text());
    settings_->setValue("capture/durationMs", duration_->value());
    settings_->setValue("capture/retries", retries_->value());
    settings_->setValue("capture/delayMs", delay_->value());
    settings_->setValue("capture/hostTracerLevel", hostLevel_->currentIndex());
    settings_->setValue("capture/deviceTracerLevel", deviceLevel_->currentIndex());
    settings_->setValue("capture/pythonTracerLevel", pythonLevel_->currentIndex());
    if (launchAvailable_) {
        settings_->setValue("capture/program", program_->text());
        settings_->setValue("capture/arguments", arguments_->text());
        settings_->setValue("capture/workDir", workDir_->text());
        settings_->setValue("capture/environment", environment_->toPlainText());
        settings_->setValue("capture/stopAfterS", stopAfter_->value());
        settings_->setValue("capture/launchDelayS", launchDelay_->value());
        settings_->setValue("capture/kinds", launchKinds());
    }
}

QString CaptureDialog::launchKinds() const {
    QStringList kinds;
    for (const auto& [key, box] : kindBoxes_)
        if (box->isChecked()) kinds << QString::fromLatin1(key);
    return kinds.join(',');
}

capture::LaunchOptions CaptureDialog::launchOptions(QString* error) const {
    capture::LaunchOptions o;
#ifdef STEPSCOPE_CUPTI_LIBRARY
    o.injectionLibrary = STEPSCOPE_CUPTI_LIBRARY;
#endif
    const QString program = program_ ? program_->text().trimmed() : QString();
    if (program.isEmpty()) {
        *error = tr("Program: give the program to run");
        return o;
    }
    o.argv.push_back(program.toStdString());
    for (const QString& a : QProcess::splitCommand(arguments_->text()))
        o.argv.push_back(a.toStdString());
    const QString logDir = logDir_->text().trimmed();
    if (logDir.isEmpty()) {
        *error = tr("Log directory: give the folder the run is written to");
        return o;
    }
    o.logDir = QDir::cleanPath(QDir(logDir).absolutePath()).toStdString();
    o.workingDirectory = workDir_->text().trimmed().toStdString();
    const QStringList lines = environment_->toPlainText().split('\n', Qt::SkipEmptyParts);
    for (const QString& line : lines) {
        const qsizetype eq = line.indexOf('=');
        const QString name = line.left(eq).trimmed();
        if (eq <= 0 || name.contains(' ')) {
            *error = tr("Environment: \"%1\" is not NAME=VALUE").arg(line);
            return o;
        }
        o.environment.emplace_back(name.toStdString(), line.mid(eq + 1).toStdString());
    }
    o.kinds = launchKinds().toStdString();
    if (o.kinds.empty()) {
        *error = tr("Record: choose at least one kind of record");
        return o;
    }
    o.stopAfterMs = uint64_t(stopAfter_->value()) * 1000;
    o.delayMs = uint64_t(launchDelay_->value()) * 1000;
    return o;
}

capture::RemoteCaptureOptions CaptureDialog::options(QString* error) const {
    capture::RemoteCaptureOptions o;
    const std::string parseError =
        capture::parseServiceAddresses(services_->text().toStdString(), o.addresses);
    if (!parseError.empty()) {
        *error = tr("Profile service URL: %1").arg(QString::fromStdString(parseError));
        return o;
    }
    const QString logDir = logDir_->text().trimmed();
    if (logDir.isEmpty()) {
        *error = tr("Log directory: give the folder the run is written to");
        return o;
    }
    o.logDir = QDir::cleanPath(QDir(logDir).absolutePath()).toStdString();
    o.durationMs = uint64_t(duration_->value());
    o.retries = uint32_t(retries_->value());
    o.delayMs = uint64_t(delay_->value());
    o.hostTracerLevel = uint32_t(hostLevel_->currentIndex());
    o.deviceTracerLevel = uint32_t(deviceLevel_->currentIndex());
    o.pythonTracerLevel = uint32_t(pythonLevel_->currentIndex());
    if (const std::string e = capture::validateOptions(o); !e.empty())
        *error = QString::fromStdString(e);
    return o;
}

bool CaptureDialog::isCapturing() const {
    return busy_;
}

QString CaptureDialog::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

QString CaptureDialog::statusText() const {
    return status_->text();
}

void CaptureDialog::showError(const QString& message) {
    error_->setText(message);
    error_->setVisible(!message.isEmpty());
}

void CaptureDialog::setBusy(bool busy) {
    for (QWidget* w :
         std::initializer_list<QWidget*>{services_, logDir_, browse_, duration_, retries_, delay_,
                                         hostLevel_, deviceLevel_, pythonLevel_})
        w->setEnabled(!busy);
    if (launchAvailable_) {
        for (QWidget* w : std::initializer_list<QWidget*>{program_, arguments_, workDir_,
                                                          environment_, launchDelay_, stopAfter_})
            w->setEnabled(!busy);
        for (auto& [key, box] : kindBoxes_) box->setEnabled(!busy);
    }
    tabs_->tabBar()->setEnabled(!busy);
    captureButton_->setEnabled(!busy && (tabs_->currentIndex() == 0 || launchAvailable_));
    cancelButton_->setVisible(busy);
    cancelButton_->setEnabled(busy);
    progressBar_->setVisible(busy);
}

void CaptureDialog::startCapture() {
    if (isCapturing()) return;
    if (tabs_->currentIndex() == 1) {
        startLaunch();
        return;
    }
    QString error;
    const capture::RemoteCaptureOptions o = options(&error);
    if (!error.isEmpty()) {
        status_->clear();
        showError(error);
        return;
    }
    saveSettings();
    showError(QString());
    runningDurationMs_ = o.durationMs;
    runningDelayMs_ = o.delayMs;
    progressBar_->setValue(0);
    status_->setText(tr("Connecting to %1…").arg(services_->text().trimmed()));
    busy_ = true;
    setBusy(true);

    // The worker owns copies of everything it reads; it talks back through queued calls that
    // Qt drops if the dialog is gone.
    progress_ = std::make_shared<Progress>([this](std::string_view stage, double fraction) {
        QMetaObject::invokeMethod(
            this,
            [this, s = QString::fromUtf8(stage.data(), qsizetype(stage.size())), fraction] {
                onProgress(s, fraction);
            },
            Qt::QueuedConnection);
    });
    worker_ = QtConcurrent::run([this, o, progress = progress_] {
        capture::RemoteCaptureResult result;
        try {
            result = capture::captureRemote(o, *progress);
        } catch (const std::exception& e) {
            result.error = std::string("the capture failed: ") + e.what();
        }
        QMetaObject::invokeMethod(
            this, [this, result] { onFinished(result); }, Qt::QueuedConnection);
    });
}

void CaptureDialog::startLaunch() {
    if (!launchAvailable_) return;
    QString error;
    const capture::LaunchOptions o = launchOptions(&error);
    if (!error.isEmpty()) {
        status_->clear();
        showError(error);
        return;
    }
    saveSettings();
    showError(QString());
    runningDurationMs_ = o.stopAfterMs;
    runningDelayMs_ = o.delayMs;
    launching_ = true;
    launchClock_.start();
    progressBar_->setRange(0, o.stopAfterMs > 0 ? 1000 : 0); // busy bar when it runs to its end
    status_->setText(tr("Starting %1…").arg(QString::fromStdString(o.argv.front())));
    busy_ = true;
    setBusy(true);
    progress_ = std::make_shared<Progress>([this](std::string_view stage, double) {
        QMetaObject::invokeMethod(
            this,
            [this, s = QString::fromUtf8(stage.data(), qsizetype(stage.size()))] {
                onProgress(s, 0.0);
            },
            Qt::QueuedConnection);
    });
    worker_ = QtConcurrent::run([this, o, progress = progress_] {
        capture::LaunchResult result;
        try {
            result = capture::launchAndCapture(o, *progress);
        } catch (const std::exception& e) {
            result.error = std::string("the capture failed: ") + e.what();
        }
        QMetaObject::invokeMethod(
            this, [this, result] { onLaunchFinished(result); }, Qt::QueuedConnection);
    });
}

void CaptureDialog::onLaunchFinished(const capture::LaunchResult& r) {
    worker_.waitForFinished();
    busy_ = false;
    launching_ = false;
    progressBar_->setRange(0, 1000);
    setBusy(false);
    progress_.reset();
    QStringList notes;
    for (const std::string& n : r.notes) notes << QString::fromStdString(n);
    if (closeWhenDone_) {
        closeWhenDone_ = false;
        QDialog::reject();
        return;
    }
    if (!r.ok()) {
        status_->setText(tr("Capture failed."));
        notes.prepend(QString::fromStdString(r.error));
        showError(notes.join('\n'));
        return;
    }
    QStringList files, warnings = notes;
    for (const std::string& f : r.run.files) files << QString::fromStdString(f);
    for (const std::string& w : r.run.warnings) warnings << QString::fromStdString(w);
    status_->setText(tr("Captured run %1.").arg(QString::fromStdString(r.runName)));
    emit captured(QDir::cleanPath(QDir(logDir_->text().trimmed()).absolutePath()),
                  QString::fromStdString(r.runName), files, warnings);
    accept();
}

void CaptureDialog::cancelCapture() {
    if (!progress_ || !isCapturing()) return;
    progress_->cancel();
    cancelButton_->setEnabled(false);
    status_->setText(tr("Cancelling…"));
}

void CaptureDialog::reject() {
    if (isCapturing()) {
        closeWhenDone_ = true;
        cancelCapture();
        return;
    }
    QDialog::reject();
}

void CaptureDialog::onProgress(const QString& stage, double fraction) {
    if (!progress_ || progress_->cancelled()) return;
    if (launching_) {
        // The stage says what was recorded so far (or when recording starts).
        const double elapsedMs = double(launchClock_.elapsed());
        const double spanMs = double(runningDelayMs_ + runningDurationMs_);
        status_->setText(
            runningDurationMs_ > 0
                ? tr("%1 — %2 of %3").arg(stage, secondsText(elapsedMs), secondsText(spanMs))
                : tr("%1 — %2").arg(stage, secondsText(elapsedMs)));
        if (runningDurationMs_ > 0)
            progressBar_->setValue(int(std::min(1.0, elapsedMs / spanMs) * 1000));
        return;
    }
    const double span = double(runningDelayMs_ + runningDurationMs_);
    status_->setText(
        tr("%1 — %2 of %3").arg(stage, secondsText(fraction * span), secondsText(span)));
    progressBar_->setValue(int(fraction * 1000));
}

void CaptureDialog::onFinished(const capture::RemoteCaptureResult& r) {
    worker_.waitForFinished(); // it has posted this call as its last act
    busy_ = false;
    setBusy(false);
    progress_.reset();
    if (closeWhenDone_) {
        closeWhenDone_ = false;
        QDialog::reject();
        return;
    }
    if (r.cancelled) {
        status_->setText(tr("Capture cancelled; nothing was written."));
        return;
    }
    if (!r.ok()) {
        status_->setText(r.attempts > 1 ? tr("Capture failed after %1 attempts.").arg(r.attempts)
                                        : tr("Capture failed."));
        showError(QString::fromStdString(r.error));
        return;
    }
    QStringList files, warnings;
    for (const std::string& f : r.files) files << QString::fromStdString(f);
    for (const std::string& w : r.warnings) warnings << QString::fromStdString(w);
    status_->setText(tr("Captured run %1.").arg(QString::fromStdString(r.runName)));
    // The log directory is the one given; the run folder sits in its plugins/profile.
    const QString logDir = QDir::cleanPath(QString::fromStdString(r.runDir) + "/../../..");
    emit captured(logDir, QString::fromStdString(r.runName), files, warnings);
    accept();
}

} // namespace stepscope
