#pragma once

#include <QChartView>
#include <QString>

#include "model/analysis/PieSlice.h"

class QPieSeries;

namespace stepscope {

// A pie chart of (label, value) slices, as the op and kernel stats tools show shares of time.
// The largest `topSlices` slices are drawn; the rest are folded into one "Other" slice. The
// legend (right side) lists each slice as "share%  label", legends that would read the same made
// distinct (distinguishLegends) and elided where they do not tell slices apart;
// hovering a slice shows its full label, value (with `unit`) and share.
class PieChart : public QChartView {
    Q_OBJECT
public:
    explicit PieChart(QWidget* parent = nullptr);

    void setTitle(const QString& title);
    void setSlices(const PieData& slices, const QString& unit, int topSlices = 7);
    void clear();
    // Slices drawn (including "Other"), for tests.
    int sliceCount() const;
    QSize sizeHint() const override { return {420, 260}; }

private:
    QPieSeries* series_;
};

} // namespace stepscope
