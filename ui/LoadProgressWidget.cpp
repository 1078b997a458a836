#include "ui/LoadProgressWidget.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <algorithm>

namespace stepscope {

LoadProgressWidget::LoadProgressWidget(QWidget* parent)
    : QWidget(parent) {
    stage_ = new QLabel(this);
    stage_->setObjectName("loadStage");
    bar_ = new QProgressBar(this);
    bar_->setObjectName("loadProgress");
    bar_->setRange(0, 100);
    bar_->setFixedWidth(220);
    bar_->setTextVisible(true);
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setObjectName("loadCancel");
    connect(cancel_, &QPushButton::clicked, this, &LoadProgressWidget::cancelRequested);

    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(stage_);
    row->addWidget(bar_);
    row->addWidget(cancel_);
    hide();
}

void LoadProgressWidget::start(const QString& what) {
    stage_->setText(what);
    bar_->setValue(0);
    show();
}

void LoadProgressWidget::setProgress(const QString& stage, double fraction) {
    stage_->setText(stage);
    bar_->setValue(int(std::clamp(fraction, 0.0, 1.0) * 100.0 + 0.5));
}

QString LoadProgressWidget::stage() const {
    return stage_->text();
}
int LoadProgressWidget::percent() const {
    return bar_->value();
}

} // namespace stepscope
