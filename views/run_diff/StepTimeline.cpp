#include "views/run_diff/StepTimeline.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "model/TimeFormat.h"
#include "views/trace/EventPalette.h"
#include "views/trace/TimeAxis.h"
#include "views/trace/TimelineCanvas.h"
#include "views/trace/TimelineRenderer.h"

namespace stepscope {

namespace {

constexpr int kLabelWidth = 150;
constexpr int kAxisHeight = 20;
constexpr int kTitleHeight = 18;
constexpr int kRowHeight = 16;
constexpr int kFadedAlpha = 50; // bars of the ops not highlighted
constexpr uint32_t kNoOp = 0xFFFFFFFFu;

QString text(int64_t ps) {
    return QString::fromStdString(formatDuration(ps));
}

} // namespace

StepTimeline::StepTimeline(QWidget* parent)
    : QWidget(parent)
    , highlight_(kNoOp) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

std::array<const StepLane*, 2> StepTimeline::laneList() const {
    if (!lanes_) return {nullptr, nullptr};
    return {&lanes_->base, &lanes_->candidate};
}

int StepTimeline::laneHeight(const StepLane& lane) const {
    return kTitleHeight + std::max<int>(1, int(lane.rows.size())) * kRowHeight;
}

QRect StepTimeline::plotRect() const {
    return QRect(kLabelWidth, kAxisHeight, std::max(1, width() - kLabelWidth - 4),
                 std::max(1, height() - kAxisHeight));
}

QSize StepTimeline::sizeHint() const {
    int lanes = 2 * (kTitleHeight + kRowHeight);
    if (lanes_) lanes = laneHeight(lanes_->base) + laneHeight(lanes_->candidate);
    return {800, kAxisHeight + lanes + 4};
}

void StepTimeline::setLanes(std::shared_ptr<const StepLanes> lanes) {
    lanes_ = std::move(lanes);
    opColors_.clear();
    int64_t span = 1;
    if (lanes_) {
        for (const std::string& op : lanes_->ops)
            opColors_.push_back(EventPalette::colorForName(op));
        span = std::max({span, lanes_->base.durationPs, lanes_->candidate.durationPs});
    }
    highlight_ = kNoOp;
    for (auto& rows : highlighted_) rows.clear();
    zoom_.setTraceRange({0, span});
    updateGeometry();
    update();
}

void StepTimeline::setHighlight(const QString& opName) {
    highlight_ = kNoOp;
    for (auto& rows : highlighted_) rows.clear();
    if (lanes_) {
        const auto it = std::find(lanes_->ops.begin(), lanes_->ops.end(), opName.toStdString());
        if (it != lanes_->ops.end()) highlight_ = uint32_t(it - lanes_->ops.begin());
    }
    if (highlight_ != kNoOp) {
        // The op's bars of each row, once, so that painting folds them like the rest.
        const auto lanes = laneList();
        for (size_t l = 0; l < lanes.size(); ++l)
            for (const StepLane::Row& row : lanes[l]->rows) {
                OpBars& bars = highlighted_[l].emplace_back();
                for (size_t i = 0; i < row.size(); ++i)
                    if (row.op[i] == highlight_) {
                        bars.beginPs.push_back(row.beginPs[i]);
                        bars.durationPs.push_back(row.durationPs[i]);
                    }
            }
    }
    update();
}

void StepTimeline::setView(int64_t beginPs, int64_t endPs) {
    zoom_.setVisibleRange({beginPs, endPs});
    update();
}

void StepTimeline::foldRow(std::span<const int64_t> beginPs, std::span<const int64_t> durationPs,
                           std::vector<LaneBlock>& out) const {
    foldEvents(beginPs, durationPs, EventRange{0, EventIndex(beginPs.size())}, zoom_.visibleRange(),
               plotRect().width(), TimelineRenderer::kMinEventPx, out);
}

void StepTimeline::paintRow(QPainter& p, const StepLane::Row& row, const OpBars* highlighted,
                            int top) {
    const QRect plot = plotRect();
    // Far-off edges are kept near the plot so that they fit integer rectangles.
    auto edge = [&](double x) {
        return std::clamp(plot.left() + x, plot.left() - 4.0, plot.right() + 5.0);
    };
    auto paintBlocks = [&](std::span<const int64_t> beginPs, std::span<const int64_t> durationPs,
                           std::span<const uint32_t> ops, bool faded) {
        blocks_.clear();
        foldRow(beginPs, durationPs, blocks_);
        lastBlocks_ += blocks_.size();
        for (const LaneBlock& b : blocks_) {
            const int x0 = int(std::floor(edge(b.x0)));
            int w = std::max(1, int(std::ceil(edge(b.x1))) - x0);
            // A folded block takes the colour of the op that fills it, a shade lighter.
            const uint32_t op = ops.empty()  ? highlight_
                                : b.merged() ? dominantKey(ops, durationPs, b)
                                             : ops[b.first];
            QColor c = QColor::fromRgb(opColors_[op]);
            if (b.merged())
                c = c.lighter(112);
            else if (w >= 4)
                --w; // a one-pixel gap keeps back-to-back bars apart
            if (faded) c.setAlpha(kFadedAlpha);
            p.fillRect(QRect(x0, top + 2, w, kRowHeight - 4), c);
        }
    };
    paintBlocks(row.beginPs, row.durationPs, row.op, highlighted != nullptr);
    // The highlighted op's bars, bright over the faded rest (no op column: they are all its).
    if (highlighted) paintBlocks(highlighted->beginPs, highlighted->durationPs, {}, false);
}

void StepTimeline::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    lastBlocks_ = 0;
    if (!lanes_) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No step to show"));
        return;
    }
    const QRect plot = plotRect();
    const TimeRange visible = zoom_.visibleRange();
    const TimeAxisScale axis =
        chooseTimeAxis(visible, plot.width(), fontMetrics().horizontalAdvance('0'));
    p.setPen(palette().color(QPalette::Text));
    paintTimeTicks(p, QRect(plot.left(), 0, plot.width(), kAxisHeight), visible, axis);
    p.drawText(QRect(2, 0, kLabelWidth - 4, kAxisHeight), Qt::AlignVCenter | Qt::AlignLeft,
               axis.basePs == 0
                   ? tr("from step start")
                   : tr("step start + %1").arg(QString::fromStdString(axis.baseLabel())));
    const auto lanes = laneList();
    int y = kAxisHeight;
    for (size_t l = 0; l < lanes.size(); ++l) {
        const StepLane& lane = *lanes[l];
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(palette().color(QPalette::Text));
        p.fillRect(QRect(0, y, width(), kTitleHeight), palette().alternateBase());
        p.drawText(QRect(4, y, width() - 8, kTitleHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   QString::fromStdString(lane.title) + "  ·  " + text(lane.durationPs));
        p.setFont(font());
        const int top = y + kTitleHeight;
        for (size_t r = 0; r < lane.rows.size(); ++r)
            p.drawText(QRect(4, top + int(r) * kRowHeight, kLabelWidth - 8, kRowHeight),
                       Qt::AlignVCenter | Qt::AlignLeft,
                       p.fontMetrics().elidedText(QString::fromStdString(lane.rows[r].name),
                                                  Qt::ElideMiddle, kLabelWidth - 8));
        const int bottom = y + laneHeight(lane);
        p.save();
        p.setClipRect(QRect(plot.left(), top, plot.width(), bottom - top));
        for (size_t r = 0; r < lane.rows.size(); ++r)
            paintRow(p, lane.rows[r], highlight_ != kNoOp ? &highlighted_[l][r] : nullptr,
                     top + int(r) * kRowHeight);
        // The step's end.
        const double endX = plot.left() + zoom_.toPixel(lane.durationPs, plot.width());
        p.setPen(QPen(palette().color(QPalette::Text), 1, Qt::DashLine));
        p.drawLine(QPointF(endX, top), QPointF(endX, bottom));
        p.restore();
        y = bottom;
    }
}

bool StepTimeline::blockAt(QPoint pos, Hit& hit) const {
    const QRect plot = plotRect();
    if (!lanes_ || pos.x() < plot.left() || pos.x() > plot.right()) return false;
    int y = kAxisHeight;
    for (const StepLane* lane : laneList()) {
        const int top = y + kTitleHeight;
        y += laneHeight(*lane);
        if (pos.y() < top || pos.y() >= y) continue;
        const size_t r = size_t((pos.y() - top) / kRowHeight);
        if (r >= lane->rows.size()) return false;
        std::vector<LaneBlock> blocks;
        foldRow(lane->rows[r].beginPs, lane->rows[r].durationPs, blocks);
        const double x = pos.x() - plot.left();
        for (const LaneBlock& b : blocks)
            if (x >= std::floor(b.x0) && x < std::max(std::ceil(b.x1), std::floor(b.x0) + 1)) {
                hit = {lane, &lane->rows[r], b};
                return true;
            }
        return false;
    }
    return false;
}

QString StepTimeline::toolTipFor(const Hit& hit) const {
    const StepLane::Row& row = *hit.row;
    const LaneBlock& b = hit.block;
    if (!b.merged())
        return tr("%1\n%2\n%3, at %4 from the step start")
            .arg(QString::fromStdString(lanes_->ops[row.op[b.first]]),
                 QString::fromStdString(lanes_->kernels[row.kernel[b.first]]),
                 text(row.durationPs[b.first]), text(row.beginPs[b.first]));
    // Bars never overlap in a row, so the last one ends the block.
    const EventIndex last = b.first + b.count - 1;
    return tr("%1 bars too narrow to tell apart, %2 to %3 from the step start\nmostly %4; zoom in "
              "to see them")
        .arg(b.count)
        .arg(text(row.beginPs[b.first]), text(row.beginPs[last] + row.durationPs[last]),
             QString::fromStdString(
                 lanes_->ops[dominantKey(row.op, std::span<const int64_t>(row.durationPs), b)]));
}

bool StepTimeline::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        Hit hit;
        if (blockAt(help->pos(), hit))
            QToolTip::showText(help->globalPos(), toolTipFor(hit), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

void StepTimeline::wheelEvent(QWheelEvent* e) {
    if (!lanes_) return;
    const QRect plot = plotRect();
    zoom_.zoomAt((e->position().x() - plot.left()) / plot.width(),
                 std::pow(TimelineCanvas::kWheelZoomPerUnit, double(e->angleDelta().y())));
    update();
    e->accept();
}

void StepTimeline::mousePressEvent(QMouseEvent* e) {
    dragFrom_ = e->position().toPoint();
}

void StepTimeline::mouseMoveEvent(QMouseEvent* e) {
    if (!(e->buttons() & Qt::LeftButton)) return;
    const QPoint pos = e->position().toPoint();
    zoom_.panByPixels(pos.x() - dragFrom_.x(), plotRect().width());
    dragFrom_ = pos;
    update();
}

void StepTimeline::mouseDoubleClickEvent(QMouseEvent*) {
    zoom_.showAll();
    update();
}

} // namespace stepscope
