#pragma once

#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

class QCustomPlot;

namespace stepscope {

// Stacked columns, one per step (QCustomPlot): the overview's step-time graph and the input
// pipeline's input-vs-other graph. Hovering a column shows the caller's text for that step;
// clicking it emits stepClicked with the step's index.
class StackedStepChart : public QWidget {
    Q_OBJECT
public:
    struct Series {
        QString name;
        QColor color;
        std::vector<double> values; // one per step, in the unit of the value axis
    };

    explicit StackedStepChart(QWidget* parent = nullptr);

    // `labels` names the columns (step numbers); `hover` is each column's tooltip. Series whose
    // values are all zero are left out of the plot and its legend.
    void setData(const QStringList& labels, const std::vector<Series>& series,
                 const QStringList& hover, const QString& valueAxis,
                 const QString& keyAxis = QObject::tr("Step"));
    void clear();
    QCustomPlot* plot() const { return plot_; }
    // Index of the column at a widget position, -1 if none.
    int columnAt(const QPoint& pos) const;

signals:
    void stepClicked(int index);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void fitLegend(); // legend columns for the current width

    QCustomPlot* plot_;
    QStringList hover_;
    int count_ = 0;
};

} // namespace stepscope
