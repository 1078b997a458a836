#pragma once

#include <QGraphicsView>

#include "model/analysis/TfDataBottleneck.h"

namespace stepscope {

// The iterator graph of one pipeline execution: a box per iterator (name, start, duration, self
// time, calls), laid out as the iterator tree from the root on the left, an edge from each
// iterator to its inputs; the critical path (blocking iterators) drawn bold, the bottleneck
// filled red.
class TfDataGraph : public QGraphicsView {
    Q_OBJECT
public:
    explicit TfDataGraph(QWidget* parent = nullptr);

    // Draws `execution` of `pipeline`; null clears the graph.
    void setExecution(const TfDataAnalysis* analysis, const TfDataPipeline* pipeline,
                      const TfDataExecution* execution);
    int nodeCount() const { return nodes_; }

private:
    QGraphicsScene* scene_;
    int nodes_ = 0;
};

} // namespace stepscope
