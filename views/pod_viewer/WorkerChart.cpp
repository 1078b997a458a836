#include "views/pod_viewer/WorkerChart.h"

#include <QToolTip>
#include <cmath>
#include <qcustomplot.h>

namespace stepscope {

void setUpWorkerPlot(QCustomPlot* plot, int legendWrap) {
    plot->xAxis->setLabel(QObject::tr("Worker"));
    plot->xAxis->grid()->setVisible(false);
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->take(plot->legend);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(0, 0.001);
    plot->legend->setWrap(legendWrap);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setMargins(QMargins(4, 2, 4, 0));
}

void showWorkerTip(QCustomPlot* plot, QMouseEvent* event, double halfWidth,
                   const std::function<QString(size_t)>& text) {
    const double x = plot->xAxis->pixelToCoord(event->position().x());
    const long w = std::lround(x);
    const QString tip =
        w >= 0 && std::abs(x - double(w)) <= halfWidth ? text(size_t(w)) : QString();
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), tip, plot);
}

} // namespace stepscope
