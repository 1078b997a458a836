#include "widgets/PieChart.h"

#include <QChart>
#include <QCursor>
#include <QFontMetrics>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QPieSeries>
#include <QPieSlice>
#include <QTextDocument>
#include <QToolTip>
#include <algorithm>

namespace stepscope {

namespace {
constexpr int kLegendLabelChars = 36;
// Qt Charts gives a side legend at most 0.4 of the chart's width (its layout's "golden_ratio")
// and cuts longer labels at their end; labels are fitted to a little less, after the marker
// and the share ("23.6%  ").
constexpr double kLegendWidthShare = 0.37;
constexpr int kLegendMarkerWidth = 30;

// Legends keep the part that tells them apart: a path's tail ("…/GatherV2/Cast"), a name's
// distinguishing suffix after " · " (distinguishLegends), else both ends ("replica_4/…/Cast").
QString elideLegend(const QString& s, int chars) {
    if (s.size() <= chars) return s;
    if (s.startsWith(QChar(0x2026)) && s.count(QChar(0x2026)) == 1)
        return QChar(0x2026) + s.right(chars - 1);
    const qsizetype dot = s.lastIndexOf(QStringLiteral(" · "));
    if (dot >= 0) {
        // The suffix is what tells this legend from another with the same name: keep it whole.
        const QString suffix = s.mid(dot);
        const qsizetype head = chars - 1 - suffix.size();
        if (head >= 4) return s.left(head) + QChar(0x2026) + suffix;
        return QChar(0x2026) + s.right(chars - 1);
    }
    const int head = (chars - 1) / 2, tail = chars - 1 - head;
    return s.left(head) + QChar(0x2026) + s.right(tail);
}

QString shareText(double share) {
    return QStringLiteral("%1%  ").arg(share, 0, 'f', 1);
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
    legends_.clear();
    PieData slices = input;
    std::stable_sort(slices.begin(), slices.end(),
                     [](const PieSlice& a, const PieSlice& b) { return a.value > b.value; });
    distinguishLegends(slices, size_t(std::max(0, topSlices)) + 1); // + a lone tail slice
    double total = 0;
    for (const PieSlice& s : slices) total += std::max(0.0, s.value);
    if (total <= 0) return;
    double other = 0;
    int otherCount = 0;
    auto add = [&](const QString& label, const QString& shortLabel, double value) {
        const double share = 100.0 * value / total;
        legends_.emplace_back(
            share, elideLegend(shortLabel.isEmpty() ? label : shortLabel, kLegendLabelChars));
        auto* slice = new QPieSlice(QString(), value);
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
    fitLegends();
}

void PieChart::fitLegends() {
    const QFontMetrics metrics(chart()->legend()->font());
    const int labelWidth = std::max(metrics.horizontalAdvance(QStringLiteral("aten…weight")),
                                    int(width() * kLegendWidthShare) - kLegendMarkerWidth -
                                        metrics.horizontalAdvance(shareText(99.9)));
    const QList<QPieSlice*> slices = series_->slices();
    for (qsizetype i = 0; i < slices.size() && size_t(i) < legends_.size(); ++i) {
        const auto& [share, label] = legends_[size_t(i)];
        // A path's tail tells paths apart; elsewhere both ends do.
        const Qt::TextElideMode mode =
            label.startsWith(QChar(0x2026)) ? Qt::ElideLeft : Qt::ElideMiddle;
        // Legend labels are rich text: escape kernel names such as "Kernel<float>".
        slices[i]->setLabel(shareText(share) +
                            metrics.elidedText(label, mode, labelWidth).toHtmlEscaped());
    }
    // Lay the legend out now rather than on the next event-loop pass, so that a grab() right
    // after the data arrives (screenshot mode) shows it.
    if (chart()->layout()) chart()->layout()->activate();
}

void PieChart::resizeEvent(QResizeEvent* event) {
    QChartView::resizeEvent(event);
    fitLegends();
}

QString PieChart::legendText(int slice) const {
    const QList<QPieSlice*> slices = series_->slices();
    if (slice < 0 || slice >= slices.size()) return {};
    QTextDocument html;
    html.setHtml(slices[slice]->label());
    return html.toPlainText();
}

} // namespace stepscope
