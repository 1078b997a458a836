#include "views/memory_profile/MemoryProfileView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "model/NumberFormat.h"
#include "views/memory_profile/MemoryTimelineChart.h"
#include "widgets/DataTableView.h"

namespace stepscope {

namespace {

// The summary's rows, as XProf's memory_profile_summary names and explains them.
enum SummaryRow {
    Allocations,
    Deallocations,
    Capacity,
    LifetimePeak,
    WindowPeak,
    PeakTime,
    Stack,
    Heap,
    Free,
    Fragmentation,
    RowCount
};
struct RowSpec {
    const char* title;
    const char* tooltip;
    bool atPeak;
};
constexpr RowSpec kRows[RowCount] = {
    {"Allocations", "Allocation events of this allocator in the profile", false},
    {"Deallocations", "Deallocation events of this allocator in the profile", false},
    {"Memory capacity", "Stack + heap + free memory at the peak", false},
    {"Lifetime peak heap usage",
     "The allocator's high-water mark over its lifetime (peak_bytes_in_use); it may lie outside "
     "the profiling window",
     false},
    {"Peak memory usage", "Stack + heap at its largest within the profiling window", false},
    {"Timestamp", "When the peak happened, from the profile start (the dotted line)", true},
    {"Stack reservation", "Memory reserved as stack at the peak (bytes_reserved)", true},
    {"Heap allocation", "Memory allocated on the heap at the peak (bytes_allocated)", true},
    {"Free memory",
     "Memory still free at the peak (bytes_available): stack + heap + free = capacity", true},
    {"Fragmentation",
     "100% x (1 - largest free chunk / total free memory) at the peak, as the allocator reports "
     "it; lower is better",
     true},
};

QString bytesText(int64_t bytes) {
    if (bytes == kNotRecorded) return QObject::tr("not recorded");
    return QString::fromStdString(formatBytes(double(bytes)));
}

QString exactBytes(int64_t bytes) {
    return bytes == kNotRecorded ? QString() : QObject::tr("%L1 bytes").arg(bytes);
}

QString millis(int64_t ps) {
    return QObject::tr("%1 ms").arg(double(ps) / 1e9, 0, 'f', 3);
}

} // namespace

MemoryProfileView::MemoryProfileView(QWidget* parent)
    : ToolView(parent)
    , status_(new QLabel(this))
    , selector_(new QComboBox(this))
    , resetZoom_(new QPushButton(tr("Show all"), this))
    , showFree_(new QCheckBox(tr("Free memory"), this))
    , warning_(new QLabel(this))
    , summary_(new QWidget(this))
    , chart_(new MemoryTimelineChart(this))
    , breakdownTitle_(new QLabel(this))
    , table_(new DataTableView(this))
    , job_(this, tr("memory profile"),
           {.status = [this](const QString& s) { status_->setText(s); },
            .take =
                [this](std::shared_ptr<const MemoryProfile> r) {
                    memory_ = std::move(r);
                    fillSelector();
                },
            .show = [this] { showSeries(); }}) {
    selector_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    selector_->setToolTip(tr("Memory ID: the allocator (device or host memory) to show"));
    resetZoom_->setToolTip(tr("Show the whole timeline (or right-click the chart)"));
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    warning_->setWordWrap(true);
    warning_->setStyleSheet("QLabel { background: #fff4ce; border: 1px solid #e0c060; padding: "
                            "3px 6px; }");
    warning_->hide();
    table_->setExportFileName("memory_breakdown.csv");
    table_->tableView()->setToolTip(
        tr("Double-click a row to show its allocation in the trace viewer"));

    showFree_->setChecked(true);
    showFree_->setToolTip(tr("Stack the free memory on top of stack and heap (as XProf). Off, the "
                             "memory axis fits the heap, which shows its changes better."));
    status_->setWordWrap(true);
    status_->setToolTip(tr("On the chart: the wheel zooms, dragging pans, hovering shows the "
                           "nearest allocator event and a click shows it in the trace viewer"));

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Memory ID:"), this));
    top->addWidget(selector_);
    top->addWidget(showFree_);
    top->addWidget(status_, 1);
    top->addWidget(resetZoom_);

    // Summary: a title, the whole-window rows, then the rows at the peak, indented.
    auto* grid = new QGridLayout(summary_);
    grid->setContentsMargins(0, 0, 8, 0);
    grid->setVerticalSpacing(3);
    auto* title = new QLabel(tr("<b>Memory profile summary</b>"), summary_);
    grid->addWidget(title, 0, 0, 1, 2);
    int row = 1;
    for (int i = 0; i < RowCount; ++i) {
        if (i == PeakTime) {
            auto* peakTitle = new QLabel(tr("<i>At the peak:</i>"), summary_);
            grid->addWidget(peakTitle, row++, 0, 1, 2);
        }
        auto* name = new QLabel(tr(kRows[i].title), summary_);
        auto* value = new QLabel(summary_);
        name->setToolTip(tr(kRows[i].tooltip));
        value->setToolTip(tr(kRows[i].tooltip));
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        if (kRows[i].atPeak) name->setIndent(14);
        grid->addWidget(name, row, 0);
        grid->addWidget(value, row, 1, Qt::AlignRight);
        summaryRows_.emplace_back(name, value);
        ++row;
    }
    grid->setRowStretch(row, 1);
    // Wide enough for the widest values the rows take, measured once with samples of them.
    for (auto& [name, value] : summaryRows_) value->setText("1,023.99 GiB");
    summaryRows_[PeakTime].second->setText("99,999.999 ms");
    const int summaryWidth = summary_->sizeHint().width();
    for (auto& [name, value] : summaryRows_) value->clear();
    auto* summaryScroll = new QScrollArea(this);
    summaryScroll->setWidget(summary_);
    summaryScroll->setWidgetResizable(true);
    summaryScroll->setFrameShape(QFrame::NoFrame);
    summaryScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    summaryScroll->setFixedWidth(summaryWidth +
                                 summaryScroll->verticalScrollBar()->sizeHint().width());

    auto* upper = new QWidget(this);
    auto* upperLayout = new QHBoxLayout(upper);
    upperLayout->setContentsMargins(0, 0, 0, 0);
    upperLayout->addWidget(summaryScroll);
    upperLayout->addWidget(chart_, 1);

    auto* lower = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    breakdownTitle_->setWordWrap(true);
    lowerLayout->addWidget(breakdownTitle_);
    lowerLayout->addWidget(table_, 1);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(upper);
    splitter->addWidget(lower);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(warning_);
    layout->addWidget(splitter, 1);

    connect(selector_, &QComboBox::currentIndexChanged, this, [this] { showSeries(); });
    connect(resetZoom_, &QPushButton::clicked, chart_, &MemoryTimelineChart::resetZoom);
    connect(showFree_, &QCheckBox::toggled, chart_, &MemoryTimelineChart::setShowFree);
    connect(chart_, &MemoryTimelineChart::recordClicked, this, [this](int record) {
        const MemorySeries* s = currentSeries();
        if (s && record >= 0 && size_t(record) < s->records.size() &&
            s->records[size_t(record)].event != kNoIndex)
            emit showEventRequested(s->records[size_t(record)].event);
    });
    connect(table_, &DataTableView::rowActivated, this, [this](int row) {
        const MemorySeries* s = currentSeries();
        if (s && row >= 0 && size_t(row) < s->breakdownEvent.size() &&
            s->breakdownEvent[size_t(row)] != kNoIndex)
            emit showEventRequested(s->breakdownEvent[size_t(row)]);
    });
    setProfile(nullptr);
}

void MemoryProfileView::setProfile(std::shared_ptr<const Profile> profile) {
    profile_ = std::move(profile);
    job_.run(profile_, tr("Computing the memory profile…"),
             [](const Profile& p, const Progress* progress) {
                 return computeMemoryProfile(p, progress);
             });
}

void MemoryProfileView::fillSelector() {
    const QSignalBlocker block(selector_);
    selector_->clear();
    if (!memory_) return;
    for (const MemorySeries& s : memory_->series)
        selector_->addItem(QString::fromStdString(s.label));
    selector_->setCurrentIndex(memory_->series.empty() ? -1 : int(memory_->defaultSeries));
}

bool MemoryProfileView::selectMemoryId(const QString& label) {
    const int i = selector_->findText(label);
    if (i < 0) return false;
    selector_->setCurrentIndex(i);
    return true;
}

QString MemoryProfileView::currentMemoryId() const {
    return selector_->currentText();
}

const MemorySeries* MemoryProfileView::currentSeries() const {
    const int i = selector_->currentIndex();
    if (!memory_ || i < 0 || size_t(i) >= memory_->series.size()) return nullptr;
    return &memory_->series[size_t(i)];
}

QString MemoryProfileView::summaryText() const {
    QStringList lines;
    for (const auto& [name, value] : summaryRows_) lines << name->text() + ": " + value->text();
    return lines.join('\n');
}

QString MemoryProfileView::warningText() const {
    return warning_->isHidden() ? QString() : warning_->text();
}

QString MemoryProfileView::breakdownTitle() const {
    return breakdownTitle_->text();
}

void MemoryProfileView::showSeries() {
    const MemorySeries* s = currentSeries();
    chart_->setSeries(s ? memory_ : nullptr, s);
    resetZoom_->setEnabled(s != nullptr);
    if (!s) {
        for (auto& [name, value] : summaryRows_) value->clear();
        table_->setTable(memoryBreakdownHeader());
        breakdownTitle_->setText(tr("<b>Memory breakdown</b>"));
        warning_->hide();
        if (memory_)
            status_->setText(memory_->series.empty()
                                 ? tr("This profile has no allocator events on a host plane.")
                                 : QString());
        return;
    }
    const MemorySummary& m = s->summary;
    const auto set = [this](int row, const QString& text, const QString& tip = {}) {
        QLabel* value = summaryRows_[size_t(row)].second;
        value->setText(text);
        if (!tip.isEmpty()) value->setToolTip(tip + "\n" + tr(kRows[row].tooltip));
    };
    set(Allocations, QLocale().toString(qulonglong(m.allocations)));
    set(Deallocations, QLocale().toString(qulonglong(m.deallocations)));
    set(Capacity, bytesText(m.memoryCapacity), exactBytes(m.memoryCapacity));
    set(LifetimePeak, bytesText(m.peakBytesUsageLifetime), exactBytes(m.peakBytesUsageLifetime));
    set(WindowPeak, bytesText(m.peakBytesInUse), exactBytes(m.peakBytesInUse));
    set(PeakTime, millis(m.peakTimePs));
    set(Stack, bytesText(m.stackAtPeak), exactBytes(m.stackAtPeak));
    set(Heap, bytesText(m.heapAtPeak), exactBytes(m.heapAtPeak));
    set(Free, bytesText(m.freeAtPeak), exactBytes(m.freeAtPeak));
    set(Fragmentation, std::isnan(m.fragmentationAtPeak)
                           ? tr("not recorded")
                           : QString::number(m.fragmentationAtPeak * 100, 'f', 2) + "%");

    status_->setText(tr("%L1 allocator events").arg(qulonglong(s->records.size())));

    QStringList notes;
    if (m.incompleteSteps)
        notes << tr("Steps may be incomplete (the last event is in step %1); profile for longer "
                    "for an accurate breakdown.")
                     .arg(s->records.back().stepId);
    if (s->unmatchedDeallocations)
        notes << tr("%Ln deallocation(s) had no allocation at their address in the profile; their "
                    "op and shape are unknown.",
                    "", int(s->unmatchedDeallocations));
    if (s->repeatedAllocations)
        notes << tr("%Ln allocation(s) reused an address that was never freed in the profile.", "",
                    int(s->repeatedAllocations));
    if (memory_->invalidValues)
        notes << tr("%Ln impossible value(s) (negative sizes, fragmentation outside 0..1) were "
                    "ignored.",
                    "", int(memory_->invalidValues));
    warning_->setText(notes.join(' '));
    warning_->setVisible(!notes.isEmpty());

    table_->setTable(s->breakdown);
    // Op names are long paths: leave room for the sizes and counts beside them on a small window
    // (the full name is elided in the middle and shown whole in the tooltip).
    QTableView* tv = table_->tableView();
    tv->setColumnWidth(0, std::min(tv->columnWidth(0), std::max(240, width() * 2 / 5)));
    const QString step = m.peakStepId == kNoStep ? tr("outside every step: the whole profile")
                         : s->stepsFromProfile   ? tr("step %1 of the overview").arg(m.peakStepId)
                                                 : tr("step %1").arg(m.peakStepId);
    breakdownTitle_->setText(tr("<b>Memory breakdown</b>: allocations live at the peak (%1, up to "
                                "%2), largest first; identical allocations are merged.")
                                 .arg(step)
                                 .arg(millis(m.peakTimePs)));
}

} // namespace stepscope
