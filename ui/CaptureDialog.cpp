#include "ui/CaptureDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

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
    connect(tabs_, &QTabWidget::currentChanged, this,
            [this](int index) { captureButton_->setEnabled(index == 0 && !isCapturing()); });

    auto* column = new QVBoxLayout(this);
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

    logDir_ = new QLineEdit(page);
    logDir_->setObjectName("logDirEdit");
    logDir_->setToolTip(tr("The run is written to LOGDIR/plugins/profile/RUN/. The servers write "
                           "their files themselves, so this must be a folder they reach under "
                           "the same path."));
    browse_ = new QPushButton(tr("Browse…"), page);
    connect(browse_, &QPushButton::clicked, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Log Directory"), logDir_->text());
        if (!dir.isEmpty()) logDir_->setText(dir);
    });
    auto* logRow = new QHBoxLayout;
    logRow->addWidget(logDir_, 1);
    logRow->addWidget(browse_);
    form->addRow(tr("Log directory:"), logRow);

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
    auto* column = new QVBoxLayout(page);
    auto* text = new QLabel(
        tr("<p><b>Local capture with CUPTI is not part of this build.</b></p>"
           "<p>This tab will start a CUDA program or training script (program, arguments, "
           "working directory, environment) under Stepscope's CUPTI collector, record every "
           "kernel, copy, API call and NVTX range, and open the result. It needs the CUPTI "
           "build of Stepscope and an NVIDIA driver.</p>"
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
    captureButton_->setEnabled(!busy && tabs_->currentIndex() == 0);
    cancelButton_->setVisible(busy);
    cancelButton_->setEnabled(busy);
    progressBar_->setVisible(busy);
}

void CaptureDialog::startCapture() {
    if (isCapturing()) return;
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
