#include "ui/WelcomePage.h"

#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QPushButton>
#include <QUrl>
#include <QVBoxLayout>

namespace stepscope {

namespace {
constexpr int kRecentShown = 5;
}

WelcomePage::WelcomePage(QWidget* parent)
    : QWidget(parent) {
    setObjectName("welcomePage");

    auto* logo = new QLabel(this);
    logo->setPixmap(QIcon(":/stepscope.svg").pixmap(72, 72));
    logo->setAlignment(Qt::AlignCenter);

    auto* heading = new QLabel(tr("Open a profile…"), this);
    heading->setObjectName("welcomeHeading");
    QFont big = heading->font();
    big.setPointSizeF(big.pointSizeF() * 1.8);
    big.setBold(true);
    heading->setFont(big);
    heading->setAlignment(Qt::AlignCenter);

    auto* hint = new QLabel(tr("A TensorBoard log directory, its plugins/profile folder, one run "
                               "folder, or a single .xplane.pb file.\nYou can also drop a file or "
                               "folder onto this window."),
                            this);
    hint->setAlignment(Qt::AlignCenter);
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);

    auto* openFile = new QPushButton(tr("Open File…"), this);
    auto* openFolder = new QPushButton(tr("Open Folder…"), this);
    auto* demo = new QPushButton(tr("Open Demo Profile"), this);
    openFile->setDefault(true);
    for (QPushButton* b : {openFile, openFolder, demo}) b->setMinimumSize(150, 34);
    connect(openFile, &QPushButton::clicked, this, &WelcomePage::openFileRequested);
    connect(openFolder, &QPushButton::clicked, this, &WelcomePage::openFolderRequested);
    connect(demo, &QPushButton::clicked, this, &WelcomePage::demoRequested);

    auto* buttons = new QHBoxLayout;
    buttons->setSpacing(12);
    buttons->addStretch();
    buttons->addWidget(openFile);
    buttons->addWidget(openFolder);
    buttons->addWidget(demo);
    buttons->addStretch();

    recentTitle_ = new QLabel(tr("Recent"), this);
    QFont bold = recentTitle_->font();
    bold.setBold(true);
    recentTitle_->setFont(bold);
    recentTitle_->setAlignment(Qt::AlignCenter);
    recent_ = new QLabel(this);
    recent_->setAlignment(Qt::AlignCenter);
    recent_->setTextFormat(Qt::RichText);
    connect(recent_, &QLabel::linkActivated, this,
            [this](const QString& link) { emit recentRequested(QUrl(link).toLocalFile()); });

    auto* column = new QVBoxLayout(this);
    column->addStretch(2);
    column->addWidget(logo);
    column->addSpacing(8);
    column->addWidget(heading);
    column->addWidget(hint);
    column->addSpacing(16);
    column->addLayout(buttons);
    column->addSpacing(28);
    column->addWidget(recentTitle_);
    column->addWidget(recent_);
    column->addStretch(3);
    setRecentPaths({});
}

void WelcomePage::setRecentPaths(const QStringList& paths) {
    QStringList lines;
    for (const QString& p : paths.mid(0, kRecentShown))
        lines << QStringLiteral("<a href=\"%1\">%2</a>")
                     .arg(QUrl::fromLocalFile(p).toString(QUrl::FullyEncoded), p.toHtmlEscaped());
    recent_->setText(lines.join("<br>"));
    recentTitle_->setVisible(!lines.isEmpty());
    recent_->setVisible(!lines.isEmpty());
}

} // namespace stepscope
