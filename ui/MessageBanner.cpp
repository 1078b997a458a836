#include "ui/MessageBanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace stepscope {

MessageBanner::MessageBanner(QWidget* parent)
    : QFrame(parent) {
    setObjectName("messageBanner");
    setFrameShape(QFrame::StyledPanel);

    icon_ = new QLabel(this);
    title_ = new QLabel(this);
    title_->setObjectName("messageTitle");
    QFont bold = title_->font();
    bold.setBold(true);
    title_->setFont(bold);
    detail_ = new QLabel(this);
    detail_->setObjectName("messageDetail");
    detail_->setWordWrap(true);
    // Paths and parser messages are worth copying into a bug report.
    for (QLabel* l : {title_, detail_}) {
        l->setTextFormat(Qt::PlainText);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }

    auto* close = new QToolButton(this);
    close->setObjectName("messageClose");
    close->setAutoRaise(true);
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Dismiss"));
    connect(close, &QToolButton::clicked, this, &QWidget::hide);

    auto* text = new QVBoxLayout;
    text->setSpacing(2);
    text->addWidget(title_);
    text->addWidget(detail_);
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(12, 8, 8, 8);
    row->setSpacing(10);
    row->addWidget(icon_, 0, Qt::AlignTop);
    row->addLayout(text, 1);
    row->addWidget(close, 0, Qt::AlignTop);
    hide();
}

void MessageBanner::showMessage(Kind kind, const QString& title, const QString& detail) {
    kind_ = kind;
    const bool error = kind == Kind::Error;
    setStyleSheet(error ? "#messageBanner { background: #fdecea; border: 1px solid #f1b0ab;"
                          " border-radius: 4px; } QLabel { color: #5f1712; }"
                        : "#messageBanner { background: #e8f1fb; border: 1px solid #a9c8ec;"
                          " border-radius: 4px; } QLabel { color: #17375e; }");
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize);
    icon_->setPixmap(
        style()
            ->standardIcon(error ? QStyle::SP_MessageBoxCritical : QStyle::SP_MessageBoxInformation)
            .pixmap(size, size));
    title_->setText(title);
    detail_->setText(detail);
    detail_->setVisible(!detail.isEmpty());
    show();
}

QString MessageBanner::text() const {
    return detail_->text().isEmpty() ? title_->text() : title_->text() + '\n' + detail_->text();
}

} // namespace stepscope
