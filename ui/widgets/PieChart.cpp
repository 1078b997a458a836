#include "ui/widgets/PieChart.h"

#include <QChart>
#include <QCursor>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QPieSeries>
#include <QPieSlice>
#include <QToolTip>
#include <algorithm>

namespace stepscope {

namespace {
constexpr int kLegendLabelChars = 30;

QString elideMiddle(const QString& s, int chars) {
    if (s.size() <= chars) return s;
    const int head = (chars - 1) / 2, tail = chars - 1 - head;
    return s.left(head) + QChar(0x2026) + s.right(tail);
}
} // namespace

PieChart::PieChart(QWidget* parent)
    : QChartView(parent)
    , series_(new QPieSeries) {
    auto* chart = new QChart;
    chart->addSeries(series_);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setBackgroundRoundness(0);
    chart->legend()->setAlignment(Qt::AlignRight);
    chart->legend()->setShowToolTips(true);
    QFont legendFont = chart->legend()->font();
    legendFont.setPointSizeF(std::max(7.0, legendFont.pointSizeF() - 1));
    chart->legend()->setFont(legendFont);
    QFont titleFont = chart->titleFont();
    titleFont.setBold(true);
    chart->setTitleFont(titleFont);
    series_->setPieSize(0.9);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(240, 200);
}

void PieChart::setTitle(const QString& title) {
    chart()->setTitle(title);
}

void PieChart::clear() {
    series_->clear();
}

int PieChart::sliceCount() const {
    return series_->count();
}

void PieChart::setSlices(const PieData& input, const QString& unit, int topSlices) {
    series_->clear();
    PieData slices = input;
    std::stable_sort(slices.begin(), slices.end(),
                     [](const PieSlice& a, const PieSlice& b) { return a.value > b.value; });
    double total = 0;
    for (const PieSlice& s : slices) total += std::max(0.0, s.value);
    if (total <= 0) return;
    double other = 0;
    int otherCount = 0;
    auto add = [&](const QString& label, const QString& shortLabel, double value) {
        const double share = 100.0 * value / total;
        // Legend labels are rich text: escape kernel names such as "Kernel<float>".
        const QString legend =
            QStringLiteral("%1%  %2")
                .arg(share, 0, 'f', 1)
                .arg(elideMiddle(shortLabel.isEmpty() ? label : shortLabel, kLegendLabelChars)
                         .toHtmlEscaped());
        auto* slice = new QPieSlice(legend, value);
        const QString tip = QStringLiteral("%1\n%2 %3 — %4% of the total")
                                .arg(label)
                                .arg(value, 0, 'f', 3)
                                .arg(unit)
                                .arg(share, 0, 'f', 2);
        connect(slice, &QPieSlice::hovered, this, [slice, tip](bool on) {
            slice->setExploded(on);
            if (on)
                QToolTip::showText(QCursor::pos(), tip);
            else
                QToolTip::hideText();
        });
        slice->setExplodeDistanceFactor(0.05);
        series_->append(slice);
    };
    for (size_t i = 0; i < slices.size(); ++i) {
        if (slices[i].value <= 0) continue;
        if (int(i) < topSlices) {
            add(QString::fromStdString(slices[i].label), QString::fromStdString(slices[i].legend),
                slices[i].value);
        } else {
            other += slices[i].value;
            ++otherCount;
        }
    }
    if (otherCount == 1)
        add(QString::fromStdString(slices[size_t(topSlices)].label),
            QString::fromStdString(slices[size_t(topSlices)].legend), other);
    else if (otherCount > 1)
        add(tr("Other (%n more)", nullptr, otherCount), {}, other);
    // Lay the legend out now rather than on the next event-loop pass, so that a grab() right
    // after the data arrives (screenshot mode) shows it.
    if (chart()->layout()) chart()->layout()->activate();
}

} // namespace stepscope
