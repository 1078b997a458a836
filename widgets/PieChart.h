#pragma once

#include <QChartView>
#include <QString>
#include <utility>
#include <vector>

#include "model/analysis/PieSlice.h"

class QPieSeries;

namespace stepscope {

// A pie chart of (label, value) slices, as the op and kernel stats tools show shares of time.
// The largest `topSlices` slices are drawn; the rest are folded into one "Other" slice. The
// legend (right side) lists each slice as "share%  label", legends that would read the same made
// distinct (distinguishLegends) and elided where they do not tell slices apart, to the width the
// legend has at the chart's current size (narrow charts keep both ends of a label, so that
// "aten::cudnn_convolution_backward_weight" and "…_input" still read differently);
// hovering a slice shows its full label, value (with `unit`) and share.
class PieChart : public QChartView {
    Q_OBJECT
public:
    explicit PieChart(QWidget* parent = nullptr);

    void setTitle(const QString& title);
    void setSlices(const PieData& slices, const QString& unit, int topSlices = 7);
    void clear();
    // Slices drawn (including "Other"), and a slice's legend as drawn (plain text), for tests.
    int sliceCount() const;
    QString legendText(int slice) const;
    QSize sizeHint() const override { return {420, 260}; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // Writes each slice's legend, its label elided to what the legend's width allows.
    void fitLegends();

    QPieSeries* series_;
    std::vector<std::pair<double, QString>> legends_; // share %, label; one per slice
};

} // namespace stepscope
