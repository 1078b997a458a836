#include "views/trace/TraceView.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QButtonGroup>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "model/analysis/TfOpStats.h"
#include "views/trace/EventDetails.h"
#include "views/trace/ShortcutSheet.h"
#include "views/trace/TimeAxis.h"
#include "views/trace/TimelineCanvas.h"
#include "widgets/DataTableView.h"
#include "widgets/ViewSettings.h"

namespace stepscope {

namespace {
QString html(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size())).toHtmlEscaped();
}

// Enter / Shift+Enter in the search box step through hits instead of only confirming.
class SearchKeys : public QObject {
public:
    SearchKeys(QObject* parent, std::function<void(bool)> step)
        : QObject(parent)
        , step_(std::move(step)) {}

protected:
    bool eventFilter(QObject* o, QEvent* e) override {
        if (e->type() == QEvent::KeyPress) {
            auto* k = static_cast<QKeyEvent*>(e);
            if (k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) {
                step_(!(k->modifiers() & Qt::ShiftModifier));
                return true;
            }
        }
        return QObject::eventFilter(o, e);
    }

private:
    std::function<void(bool)> step_;
};

// Where typed letters are text, not timeline keys.
bool isTextInput(const QWidget* w) {
    if (qobject_cast<const QLineEdit*>(w) || qobject_cast<const QAbstractSpinBox*>(w)) return true;
    if (auto* t = qobject_cast<const QTextEdit*>(w)) return !t->isReadOnly();
    if (auto* t = qobject_cast<const QPlainTextEdit*>(w)) return !t->isReadOnly();
    if (auto* c = qobject_cast<const QComboBox*>(w)) return c->isEditable();
    return false;
}
} // namespace

TraceView::TraceView(QWidget* parent)
    : ToolView(parent) {
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(0, 0, 0, 0);
    root->setSpacing(0);

    // A tool bar, so that at small widths what does not fit moves into its » menu rather than
    // holding the window wide.
    auto* bar = new QToolBar(this);
    bar->setObjectName("traceToolBar");
    bar->setFloatable(false);
    bar->setMovable(false);
    bar->setContentsMargins(2, 0, 2, 0);
    auto* group = new QButtonGroup(this);
    const char* names[4] = {"Select", "Pan", "Zoom", "Timing"};
    const char* tips[4] = {"Click selects an event, drag selects a box of events (1)",
                           "Drag moves the view (2)", "Drag a span to zoom into it (3)",
                           "Drag selects a time range across all tracks (4)"};
    for (int i = 0; i < 4; ++i) {
        auto* b = new QToolButton(this);
        b->setText(tr(names[i]));
        b->setToolTip(tr(tips[i]));
        b->setCheckable(true);
        b->setAutoRaise(true);
        group->addButton(b, i);
        bar->addWidget(b);
        toolButtons_[i] = b;
    }
    toolButtons_[0]->setChecked(true);
    auto* showAll = new QToolButton(this);
    showAll->setText(tr("Show all"));
    showAll->setToolTip(tr("Zoom out to the whole profile (0)"));
    showAll->setAutoRaise(true);
    bar->addWidget(showAll);
    fitDevices_ = new QToolButton(this);
    fitDevices_->setText(tr("Fit GPUs"));
    fitDevices_->setToolTip(tr("Zoom to the span of GPU activity (G)"));
    fitDevices_->setAutoRaise(true);
    bar->addWidget(fitDevices_);
    flows_ = new QCheckBox(tr("Flows"), this);
    flows_->setToolTip(tr("Arrows from host launches to the GPU work they caused"));
    flows_->setChecked(true);
    bar->addWidget(flows_);
    auto* gap = new QWidget(this);
    gap->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    bar->addWidget(gap);
    search_ = new QLineEdit(this);
    search_->setPlaceholderText(tr("Search event names"));
    search_->setToolTip(tr("Substring (case-insensitive) or regular expression over every event "
                           "name of the profile. Enter: next match, Shift+Enter: previous."));
    search_->setClearButtonEnabled(true);
    search_->setMinimumWidth(140);
    // In the tool bar the box and the gap before it share the spare width; past this the gap
    // takes it (a 1200 px search box at 1920 px).
    search_->setMaximumWidth(320);
    bar->addWidget(search_);
    regex_ = new QCheckBox(tr("Regex"), this);
    bar->addWidget(regex_);
    searchCount_ = new QLabel(this);
    // Counts and messages are elided by the layout, never widen the window (full text on hover).
    searchCount_->setMinimumWidth(60);
    searchCount_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(searchCount_);
    auto* prev = new QToolButton(this);
    prev->setArrowType(Qt::UpArrow);
    prev->setToolTip(tr("Previous match (Shift+Enter)"));
    auto* next = new QToolButton(this);
    next->setArrowType(Qt::DownArrow);
    next->setToolTip(tr("Next match (Enter)"));
    bar->addWidget(prev);
    bar->addWidget(next);
    root->addWidget(bar);

    auto* split = new QSplitter(Qt::Vertical, this);
    auto* top = new QWidget(split);
    auto* topLayout = new QHBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->setSpacing(0);
    canvas_ = new TimelineCanvas(top);
    vscroll_ = new QScrollBar(Qt::Vertical, top);
    topLayout->addWidget(canvas_, 1);
    topLayout->addWidget(vscroll_);
    split->addWidget(top);

    tabs_ = new QTabWidget(split);
    details_ = new QTextBrowser(tabs_);
    details_->setOpenLinks(false);
    // Kernel names have no spaces: wrap them anywhere rather than scroll sideways.
    details_->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    details_->setPlaceholderText(tr("Click an event to see its details."));
    tabs_->addTab(details_, tr("Details"));
    auto* selection = new QWidget(tabs_);
    auto* selLayout = new QVBoxLayout(selection);
    selLayout->setContentsMargins(4, 4, 4, 4);
    selectionSummary_ = new QLabel(selectionHint(), selection);
    selectionSummary_->setWordWrap(true);
    selLayout->addWidget(selectionSummary_);
    table_ = new DataTableView(selection);
    table_->setExportFileName(QStringLiteral("trace_selection.csv"));
    selLayout->addWidget(table_, 1);
    tabs_->addTab(selection, tr("Selection"));
    split->addWidget(tabs_);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    // The timeline gets most of the height; the details pane wants a large size hint otherwise.
    // The user's last split is remembered.
    split->setObjectName("traceSplitter");
    split->setSizes({780, 220});
    split_ = split;
    connect(split, &QSplitter::splitterMoved, this, [split] {
        if (QSettings* settings = viewSettings())
            settings->setValue(QStringLiteral("traceViewer/split"), split->saveState());
    });
    root->addWidget(split, 1);

    searchDelay_ = new QTimer(this);
    searchDelay_->setSingleShot(true);
    searchDelay_->setInterval(250);

    connect(group, &QButtonGroup::idClicked, this,
            [this](int id) { canvas_->setTool(TimelineCanvas::Tool(id)); });
    connect(canvas_, &TimelineCanvas::toolChanged, this, &TraceView::syncToolButtons);
    connect(showAll, &QToolButton::clicked, canvas_, &TimelineCanvas::showAll);
    connect(canvas_, &TimelineCanvas::shortcutsRequested, this,
            [this] { showShortcutSheet(this); });
    connect(canvas_, &TimelineCanvas::contextMenuRequested, this,
            [this](TimelineCanvas::PointHit, QPoint global) {
                QMenu* menu = contextMenu(canvas_->mapFromGlobal(global));
                menu->setAttribute(Qt::WA_DeleteOnClose);
                menu->popup(global);
            });
    connect(fitDevices_, &QToolButton::clicked, canvas_, &TimelineCanvas::frameDeviceActivity);
    connect(flows_, &QCheckBox::toggled, canvas_, &TimelineCanvas::setShowFlows);
    connect(canvas_, &TimelineCanvas::viewChanged, this, &TraceView::syncScrollBar);
    connect(vscroll_, &QScrollBar::valueChanged, canvas_, &TimelineCanvas::setScrollY);
    connect(canvas_, &TimelineCanvas::eventSelected, this, &TraceView::showDetails);
    connect(canvas_, &TimelineCanvas::rangeSelected, this, &TraceView::aggregate);
    connect(canvas_, &TimelineCanvas::rangeCleared, this, [this] {
        cancelAggregate();
        aggregate_ = Table();
        table_->setTable(aggregate_);
        selectionSummary_->setText(tr("No selection."));
    });
    connect(details_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        bool ok = false;
        const qulonglong e = url.path().toULongLong(&ok);
        if (url.scheme() == QLatin1String("event") && ok) focusEvent(EventIndex(e));
        if (url.scheme() == QLatin1String("expand") && ok) {
            expandedName_ = EventIndex(e);
            showDetails(EventIndex(e));
        }
    });
    // The running search is for the old text: drop it (and a pending Enter with it) at once.
    connect(search_, &QLineEdit::textChanged, this, [this] {
        cancelSearch();
        searchDelay_->start();
    });
    connect(regex_, &QCheckBox::toggled, this, &TraceView::startSearch);
    connect(searchDelay_, &QTimer::timeout, this, &TraceView::startSearch);
    search_->installEventFilter(new SearchKeys(this, [this](bool f) { stepSearch(f); }));
    connect(prev, &QToolButton::clicked, this, [this] { stepSearch(false); });
    connect(next, &QToolButton::clicked, this, [this] { stepSearch(true); });
    qApp->installEventFilter(this);
}

void TraceView::showEvent(QShowEvent* e) {
    ToolView::showEvent(e);
    // Restored once the view has its size, so the remembered heights are not rescaled.
    if (!splitRestored_) {
        splitRestored_ = true;
        if (QSettings* settings = viewSettings())
            split_->restoreState(
                settings->value(QStringLiteral("traceViewer/split")).toByteArray());
    }
}

bool TraceView::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::KeyPress || !watched->isWidgetType() || !isVisible())
        return ToolView::eventFilter(watched, event);
    auto* w = static_cast<QWidget*>(watched);
    if (w == canvas_ || w->window() != window() || isTextInput(w) ||
        (!keysFromWindow_ && !isAncestorOf(w)))
        return ToolView::eventFilter(watched, event);
    return canvas_->handleKey(static_cast<QKeyEvent*>(event)) ||
           ToolView::eventFilter(watched, event);
}

QMenu* TraceView::contextMenu(QPoint pos) {
    auto* menu = new QMenu(this);
    if (!profile_) return menu;
    const TimelineCanvas::PointHit hit = canvas_->hitAt(pos);
    if (hit.event != kNoIndex) {
        const EventIndex e = hit.event;
        const std::string_view nameView = profile_->name(e);
        const QString name = QString::fromUtf8(nameView.data(), qsizetype(nameView.size()));
        menu->addAction(tr("Copy name"), this,
                        [name] { QApplication::clipboard()->setText(name); });
        menu->addAction(tr("Find all with this name"), this, [this, name] {
            const QSignalBlocker block(regex_);
            regex_->setChecked(true);
            search_->setText(QStringLiteral("^%1$").arg(QRegularExpression::escape(name)));
            startSearch();
        });
        menu->addAction(tr("Zoom to it"), this,
                        [this, e] { canvas_->selectEvent(e, TimelineCanvas::Framing::Context); });
        menu->addSeparator();
        const std::optional<OpIdentity> op = tfOpOfEvent(*profile_, e, hlo_.get());
        QAction* opStats = menu->addAction(
            op ? tr("Show op %1 in op stats").arg(QString::fromStdString(op->name).left(60))
               : tr("Show in op stats"),
            this, [this, op] {
                if (op)
                    emit showNameRequested(toolKeyText(ToolId::TfStats),
                                           QString::fromStdString(op->name));
            });
        opStats->setEnabled(op.has_value());
        QAction* kernelStats = menu->addAction(tr("Show in kernel stats"), this, [this, name] {
            emit showNameRequested(toolKeyText(ToolId::KernelStats), name);
        });
        kernelStats->setEnabled(profile_->kernels().find(e) != nullptr);
        return menu;
    }
    const TimelineLayout* layout = canvas_->layout();
    if (hit.section >= 0) {
        const uint32_t section = uint32_t(hit.section);
        menu->addAction(tr("Collapse other sections"), this,
                        [this, section] { canvas_->collapseAllBut(section); });
    }
    if (hit.track != kNoIndex) {
        const uint32_t track = hit.track;
        menu->addAction(tr("Hide %1").arg(QString::fromStdString(layout->trackLabel(track))), this,
                        [this, track] { canvas_->setTrackHidden(track, true); });
    }
    if (layout && layout->hiddenTrackCount() > 0)
        menu->addAction(tr("Show %n hidden track(s)", nullptr, int(layout->hiddenTrackCount())),
                        this, [this] { canvas_->showAllTracks(); });
    return menu;
}

// The jobs cancel their runs; a worker keeps its own reference to the profile.
TraceView::~TraceView() = default;

QString TraceView::selectionHint() const {
    return tr("Drag over the timeline to aggregate the events of a box (select tool) or of a "
              "time range (timing tool).");
}

void TraceView::setProfile(std::shared_ptr<const Profile> profile) {
    cancelSearch();
    cancelAggregate();
    profile_ = std::move(profile);
    canvas_->setProfile(profile_);
    fitDevices_->setEnabled(!canvas_->deviceActivityRange().empty());
    found_ = std::make_shared<EventSearchResult>();
    currentHit_ = -1;
    searchCount_->clear();
    details_->clear();
    aggregate_ = Table();
    table_->setTable(aggregate_);
    aggregateRange_ = {};
    aggregateCount_ = 0;
    selectionSummary_->setText(selectionHint());
    syncScrollBar();
    if (profile_ && !search_->text().isEmpty()) startSearch();
    buildHloCatalog();
    // The layout is built synchronously above; the first paint needs nothing else.
    ready_ = profile_ != nullptr;
    if (ready_) QTimer::singleShot(0, this, [this] { emit ready(); });
}

// Decoding the HLO protos and aligning command buffer launches takes milliseconds on a typical
// JAX profile but grows with the events; it runs in a worker like the other analyses.
void TraceView::buildHloCatalog() {
    hlo_.reset();
    if (!profile_) {
        hloJob_.cancel();
        return;
    }
    hloJob_.start(
        profile_,
        [](const Profile& profile, const Progress* progress) {
            return HloCatalog(profile, progress);
        },
        [this](std::shared_ptr<const HloCatalog> catalog) {
            hlo_ = std::move(catalog);
            if (canvas_->selectedEvent() != kNoIndex) showDetails(canvas_->selectedEvent());
            emit hloCatalogReady();
        },
        [](const QString&) {}); // the pane then shows the event without its HLO instruction
}

void TraceView::focusEvent(EventIndex event) {
    if (!profile_ || event >= profile_->eventCount()) return;
    canvas_->selectEvent(event, TimelineCanvas::Framing::Context);
}

void TraceView::focusRange(int64_t beginPs, int64_t endPs) {
    if (!profile_ || endPs <= beginPs) return;
    canvas_->setVisibleRange({beginPs, endPs});
}

void TraceView::syncScrollBar() {
    const QSignalBlocker block(vscroll_);
    vscroll_->setRange(0, canvas_->maxScrollY());
    vscroll_->setPageStep(std::max(1, canvas_->height() - TimelineRenderer::kAxisHeight));
    vscroll_->setSingleStep(TimelineLayout::kLaneHeight * 2);
    vscroll_->setValue(canvas_->scrollY());
}

void TraceView::syncToolButtons(int tool) {
    if (tool >= 0 && tool < 4) toolButtons_[tool]->setChecked(true);
}

void TraceView::cancelSearch() {
    searchJob_.cancel();
    searching_ = false;
    stepWhenDone_ = false;
}

void TraceView::startSearch() {
    searchDelay_->stop();
    cancelSearch();
    found_ = std::make_shared<EventSearchResult>();
    currentHit_ = -1;
    if (!profile_ || search_->text().isEmpty()) {
        searchCount_->clear();
        return;
    }
    searchCount_->setText(tr("Searching…"));
    searching_ = true;
    EventSearchQuery q{search_->text().toStdString(), regex_->isChecked()};
    searchJob_.start(
        profile_,
        [q](const Profile& profile, const Progress* progress) {
            return searchEvents(profile, q, progress);
        },
        [this](std::shared_ptr<const EventSearchResult> result) { searchDone(std::move(result)); },
        [this](const QString& message) {
            searching_ = false;
            stepWhenDone_ = false;
            searchCount_->setText(tr("Search failed: %1").arg(message));
            searchCount_->setToolTip(searchCount_->text());
        });
}

void TraceView::searchDone(std::shared_ptr<const EventSearchResult> result) {
    searching_ = false;
    if (result->cancelled) return;
    found_ = std::move(result);
    currentHit_ = -1;
    if (!found_->error.empty())
        searchCount_->setText(QString::fromStdString(found_->error));
    else if (found_->hits.empty())
        searchCount_->setText(tr("No matches"));
    else
        searchCount_->setText(
            tr("%1 matches").arg(QLocale().toString(qulonglong(found_->hits.size()))));
    if (found_->unsearchedNames > 0)
        searchCount_->setText(searchCount_->text() +
                              tr(" (%1 names too long for this pattern were skipped)")
                                  .arg(QLocale().toString(qulonglong(found_->unsearchedNames))));
    searchCount_->setToolTip(searchCount_->text());
    if (stepWhenDone_) {
        stepWhenDone_ = false;
        stepSearch(true);
    }
    emit searchFinished();
}

void TraceView::stepSearch(bool forward) {
    if (searchDelay_->isActive() || searching_) {
        // Enter right after typing: search now and step to the first hit when it is in.
        if (searchDelay_->isActive()) startSearch();
        stepWhenDone_ = searching_;
        return;
    }
    const std::vector<EventIndex>& hits = found_->hits;
    if (hits.empty()) return;
    const int n = int(hits.size());
    if (currentHit_ < 0)
        currentHit_ = forward ? 0 : n - 1;
    else
        currentHit_ = (currentHit_ + (forward ? 1 : n - 1)) % n;
    searchCount_->setText(tr("%1 of %2")
                              .arg(QLocale().toString(currentHit_ + 1))
                              .arg(QLocale().toString(qulonglong(hits.size()))));
    canvas_->selectEvent(hits[size_t(currentHit_)], TimelineCanvas::Framing::Reveal);
}

void TraceView::showDetails(EventIndex e) {
    if (!profile_ || e == kNoIndex) {
        details_->clear();
        return;
    }
    const uint32_t track = profile_->trackOf(e);
    const EventDetails d =
        describeEvent(*profile_, e, canvas_->layout()->trackLabel(track), hlo_.get());
    QString h;
    // Long template names: the first lines, with a link that shows the rest.
    QString name = QString::fromStdString(d.name);
    QString more;
    if (name.size() > kFoldedNameChars && expandedName_ != e) {
        name = name.left(kFoldedNameChars) + QChar(0x2026);
        more = QStringLiteral(" <a href='expand:%1' style='font-weight:400'>%2</a>")
                   .arg(e)
                   .arg(tr("show all %1 characters").arg(d.name.size()));
    }
    h += QStringLiteral("<p style='font-size:13px;font-weight:600;margin:2px 0 6px 0'>%1%2</p>")
             .arg(name.toHtmlEscaped(), more);
    h += QStringLiteral("<table cellspacing='0' cellpadding='2'>");
    for (const DetailField& f : d.fields)
        h += QStringLiteral(
                 "<tr><td style='color:#5a6370;padding-right:14px'>%1</td><td>%2</td></tr>")
                 .arg(html(f.label), html(f.value));
    auto links = [&](const std::vector<EventIndex>& events, const QString& verb) {
        for (EventIndex t : events) {
            const QString where =
                QString::fromStdString(canvas_->layout()->trackLabel(profile_->trackOf(t)));
            h += QStringLiteral("<tr><td></td><td><a href='event:%1'>%2</a> %3 (%4)</td></tr>")
                     .arg(t)
                     .arg(verb, html(profile_->name(t)), where.toHtmlEscaped());
        }
    };
    links(d.launches, tr("Jump to launch:"));
    links(d.targets, tr("Jump to kernel:"));
    h += QStringLiteral("</table>");
    if (!d.stats.empty()) {
        h += QStringLiteral(
            "<h4 style='margin:6px 0 2px 0'>Stats</h4><table cellspacing='0' cellpadding='2'>");
        for (const DetailField& f : d.stats)
            h += QStringLiteral(
                     "<tr><td style='color:#5a6370;padding-right:14px'>%1</td><td>%2</td></tr>")
                     .arg(html(f.label), html(f.value));
        h += QStringLiteral("</table>");
    }
    details_->setHtml(h);
    tabs_->setCurrentWidget(details_);
}

void TraceView::cancelAggregate() {
    aggregateJob_.cancel();
    aggregating_ = false;
}

void TraceView::aggregate(std::vector<Lane> lanes, TimeRange range) {
    if (!profile_) return;
    aggregateRange_ = range;
    aggregateCount_ = countSelection(*profile_, lanes, range);
    tabs_->setCurrentIndex(1);
    selectionSummary_->setText(
        tr("Aggregating %1 events…").arg(QLocale().toString(qulonglong(aggregateCount_))));
    aggregating_ = true;
    aggregateJob_.start(
        profile_,
        [lanes = std::move(lanes), range](const Profile& profile, const Progress* progress) {
            return aggregateSelection(profile, lanes, range, progress);
        },
        [this](std::shared_ptr<const Table> table) {
            aggregating_ = false;
            aggregate_ = *table;
            table_->setTable(aggregate_);
            showAggregateSummary();
        },
        [this](const QString& message) {
            aggregating_ = false;
            selectionSummary_->setText(tr("Could not aggregate the selection: %1").arg(message));
        });
}

void TraceView::showAggregateSummary() {
    selectionSummary_->setText(
        tr("%1 events, %2 rows (name per track) in %3 (%4 – %5 from start)")
            .arg(QLocale().toString(qulonglong(aggregateCount_)))
            .arg(aggregate_.rowCount())
            .arg(QString::fromStdString(formatDuration(aggregateRange_.span())),
                 QString::fromStdString(formatDuration(aggregateRange_.start)),
                 QString::fromStdString(formatDuration(aggregateRange_.end))));
    emit selectionAggregated();
}

} // namespace stepscope
