#include "views/summary/SummaryView.h"

#include <QDateTime>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QVBoxLayout>

#include "model/TimeFormat.h"
#include "model/analysis/ProfileSummary.h"
#include "widgets/DataTableView.h"

namespace stepscope {

namespace {

QWidget* titled(const QString& title, QWidget* content, QWidget* parent) {
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->setSpacing(2);
    auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(title), box);
    layout->addWidget(label);
    layout->addWidget(content, 1);
    return box;
}

} // namespace

SummaryView::SummaryView(QWidget* parent)
    : ToolView(parent)
    , header_(new QLabel(this))
    , messages_(new QLabel(this))
    , hosts_(new DataTableView(this))
    , planes_(new DataTableView(this))
    , tracks_(new DataTableView(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header_->setWordWrap(true);
    messages_->setWordWrap(true);
    messages_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    messages_->setStyleSheet("QLabel { background: #fff4e5; border: 1px solid #f0b35a;"
                             " border-radius: 4px; padding: 6px; }");
    messages_->hide();
    layout->addWidget(header_);
    layout->addWidget(messages_);

    hosts_->setExportFileName("hosts.csv");
    planes_->setExportFileName("planes.csv");
    tracks_->setExportFileName("tracks.csv");
    tracks_->addColumnFilter("Plane", tr("Plane…"));
    tracks_->addColumnFilter("Kind", tr("Kind…"));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(titled(tr("Hosts"), hosts_, split));
    split->addWidget(titled(tr("Planes"), planes_, split));
    split->addWidget(titled(tr("Tracks"), tracks_, split));
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 5);
    layout->addWidget(split, 1);
}

// The summary is a few rows per plane and track, so it is built on the UI thread.
void SummaryView::setProfile(std::shared_ptr<const Profile> profile) {
    if (!profile) {
        header_->clear();
        messages_->hide();
        hosts_->setTable({});
        planes_->setTable({});
        tracks_->setTable({});
        return;
    }
    ProfileSummary s = summarizeProfile(*profile);
    const QLocale locale;
    const QDateTime start = QDateTime::fromMSecsSinceEpoch(profile->startNs() / 1000000, Qt::UTC);
    // Tracers write either epoch nanoseconds or times relative to the session; only the former
    // is a date worth showing.
    const bool absolute = start.date().year() > 2000;
    header_->setText(
        tr("<span style='font-size:13pt'><b>%1</b> events on <b>%2</b> track(s) of <b>%3</b> "
           "plane(s), <b>%4</b> host(s) — time span <b>%5</b>%6</span>")
            .arg(locale.toString(qulonglong(s.events)))
            .arg(locale.toString(qulonglong(profile->tracks().size())))
            .arg(profile->planes().size())
            .arg(profile->hosts().size())
            .arg(QString::fromStdString(formatDuration(s.durationPs)))
            .arg(absolute ? tr(", started %1 UTC").arg(start.toString("yyyy-MM-dd hh:mm:ss.zzz"))
                          : QString()));
    if (s.messages.empty()) {
        messages_->hide();
    } else {
        QStringList lines;
        for (const std::string& m : s.messages) lines << QString::fromStdString(m).toHtmlEscaped();
        messages_->setText(tr("<b>Messages in the profile</b><br>") + lines.join("<br>"));
        messages_->show();
    }
    hosts_->setTable(std::move(s.hosts));
    planes_->setTable(std::move(s.planes));
    tracks_->setTable(std::move(s.tracks));
    // Each table keeps at least two rows in view in a small window (at 1024x640 the hosts table
    // showed one row cut in half).
    for (DataTableView* t : {hosts_, planes_, tracks_}) t->setMinimumHeight(t->heightForRows(2));
}

} // namespace stepscope
