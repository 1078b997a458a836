#pragma once

#include <QString>
#include <QWidget>
#include <vector>

#include "model/analysis/Precision.h"

class QCustomPlot;
class QCPCurve;

namespace stepscope {

// The roofline chart (QCustomPlot): operational intensity (FLOP/byte) against FLOP/s, both
// log-scaled, one point per op, coloured by precision, and one roof per (precision, unit) that
// the ops run under: bandwidth x intensity up to the ridge, the compute peak after it. Clicking
// a point selects it (pointClicked); double-clicking it emits pointActivated.
class RooflineChart : public QWidget {
    Q_OBJECT
public:
    struct Point {
        double intensity = 0;      // FLOP/byte, > 0
        double flopsPerSecond = 0; // > 0
        Precision precision = Precision::Unknown;
        int id = -1; // the owner's key (a table row)
        QString label;
    };
    struct Roof {
        QString label; // "bf16, Tensor Cores"
        Precision precision = Precision::Unknown;
        double peakFlops = 0;     // FLOP/s
        double bandwidth = 0;     // bytes/s
        bool matrixUnits = false; // drawn solid; vector-unit roofs dashed
    };

    explicit RooflineChart(QWidget* parent = nullptr);

    void setData(std::vector<Point> points, std::vector<Roof> roofs);
    // Rings the point of `id` (-1: none).
    void setSelected(int id);
    int selected() const { return selected_; }
    // The id of the point drawn nearest `pos` (plot widget coordinates) within a few pixels;
    // -1 when none.
    int pointAt(QPointF pos) const;
    size_t pointCount() const { return points_.size(); }
    size_t roofCount() const { return roofs_.size(); }

signals:
    void pointClicked(int id);
    void pointActivated(int id);

private:
    void rebuild();
    void fitAxes();

    QCustomPlot* plot_;
    QCPCurve* selection_ = nullptr;
    std::vector<Point> points_;
    std::vector<Roof> roofs_;
    int selected_ = -1;
};

} // namespace stepscope
