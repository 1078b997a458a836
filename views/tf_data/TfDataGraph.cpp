#include "views/tf_data/TfDataGraph.h"

#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <algorithm>
#include <functional>
#include <map>

namespace stepscope {

namespace {
constexpr double kBoxWidth = 230, kBoxHeight = 84, kColumnGap = 70, kRowGap = 18;

QString us(int64_t ps) {
    return QString::number(double(ps) / 1e6, 'f', 1) + " µs";
}
} // namespace

TfDataGraph::TfDataGraph(QWidget* parent)
    : QGraphicsView(parent)
    , scene_(new QGraphicsScene(this)) {
    setScene(scene_);
    setRenderHint(QPainter::Antialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setAlignment(Qt::AlignLeft | Qt::AlignTop);
    setMinimumHeight(160);
}

void TfDataGraph::setExecution(const TfDataAnalysis* analysis, const TfDataPipeline* pipeline,
                               const TfDataExecution* execution) {
    scene_->clear();
    nodes_ = 0;
    if (!analysis || !pipeline || !execution) return;
    // Levels: distance from the root through parent ids within this execution.
    std::map<int64_t, const TfDataIteratorStat*> byId;
    for (const TfDataIteratorStat& s : execution->iterators) byId[s.id] = &s;
    std::map<int64_t, int> level;
    std::function<int(int64_t, int)> levelOf = [&](int64_t id, int guard) -> int {
        if (const auto it = level.find(id); it != level.end()) return it->second;
        const TfDataIterator* it = analysis->iterator(*pipeline, id);
        int l = 0;
        if (it && it->parentId != 0 && byId.count(it->parentId) && guard < 100)
            l = levelOf(it->parentId, guard + 1) + 1;
        level[id] = l;
        return l;
    };
    const QFont font = this->font();
    QFont bold = font;
    bold.setBold(true);
    // Texts first: the boxes are as wide as the widest text needs.
    struct Node {
        const TfDataIteratorStat* stat;
        QGraphicsRectItem* box;
        QGraphicsSimpleTextItem *title, *body;
    };
    std::vector<Node> nodes;
    double width = kBoxWidth;
    for (const TfDataIteratorStat& s : execution->iterators) {
        const bool bottleneck = s.id == execution->bottleneckId;
        const TfDataIterator* it = analysis->iterator(*pipeline, s.id);
        const QString name = it ? QString::fromStdString(it->name) : QString::number(s.id);
        auto* box = scene_->addRect(
            QRectF(),
            QPen(s.blocking ? QColor(30, 30, 30) : QColor(150, 150, 150), s.blocking ? 3 : 1),
            bottleneck ? QColor(250, 200, 200) : QColor(245, 245, 250));
        box->setToolTip(it ? QString::fromStdString(it->longName) : name);
        auto* title = scene_->addSimpleText(bottleneck ? tr("%1  (bottleneck)").arg(name) : name,
                                            s.blocking ? bold : font);
        auto* body = scene_->addSimpleText(
            tr("start %1, duration %2\nself %3, calls %4")
                .arg(us(s.startPs - execution->beginPs), us(s.durationPs), us(s.selfPs))
                .arg(s.calls),
            font);
        width = std::max(
            {width, title->boundingRect().width() + 20, body->boundingRect().width() + 20});
        nodes.push_back({&s, box, title, body});
    }
    std::map<int, int> rows; // level -> boxes placed so far
    std::map<int64_t, QPointF> anchor;
    for (const Node& n : nodes) {
        const int l = levelOf(n.stat->id, 0);
        const int r = rows[l]++;
        const QPointF at(l * (width + kColumnGap), r * (kBoxHeight + kRowGap));
        anchor[n.stat->id] = at;
        n.box->setRect(QRectF(at, QSizeF(width, kBoxHeight)));
        n.title->setPos(at + QPointF(8, 6));
        n.body->setPos(at + QPointF(8, 30));
        ++nodes_;
    }
    for (const TfDataIteratorStat& s : execution->iterators) {
        const TfDataIterator* it = analysis->iterator(*pipeline, s.id);
        if (!it || !anchor.count(it->parentId)) continue;
        const QPointF from = anchor[it->parentId] + QPointF(width, kBoxHeight / 2);
        const QPointF to = anchor[s.id] + QPointF(0, kBoxHeight / 2);
        scene_->addLine(QLineF(from, to), QPen(QColor(80, 80, 80), s.blocking ? 3 : 1));
    }
    scene_->setSceneRect(scene_->itemsBoundingRect().adjusted(-10, -10, 10, 10));
}

} // namespace stepscope
