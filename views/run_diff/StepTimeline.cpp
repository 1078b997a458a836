#include "views/run_diff/StepTimeline.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "model/TimeFormat.h"
#include "model/analysis/OpName.h"

namespace stepscope {

namespace {

constexpr int kLabelWidth = 150;
constexpr int kAxisHeight = 20;
constexpr int kTitleHeight = 18;
constexpr int kRowHeight = 16;
constexpr uint32_t kNoOp = 0xFFFFFFFFu;

StepLane collectLane(const Profile& p, const StepRecord& step, const std::string& title,
                     std::vector<std::string>& ops,
                     std::unordered_map<std::string, uint32_t>& opIndex) {
    StepLane lane;
    lane.title = title;
    lane.durationPs = step.durationPs;
    const int64_t begin = step.beginPs, end = step.beginPs + step.durationPs;
    const HloCatalog hlo(p);
    OpCatalog catalog(p, &hlo);
    for (const Plane& plane : p.planes()) {
        if (plane.kind != PlaneKind::Gpu) continue;
        for (uint32_t ti = plane.firstTrack; ti < plane.firstTrack + plane.trackCount; ++ti) {
            const Track& t = p.tracks()[ti];
            if (!t.deviceOps || t.eventCount == 0) continue;
            const int row = int(lane.rows.size());
            bool any = false;
            for (uint32_t depth = 0; depth < t.depthCount; ++depth) {
                const EventRange r = p.eventsInWindow(ti, depth, begin, end);
                for (EventIndex e = r.begin; e < r.end; ++e) {
                    if (p.start(e) < begin || p.start(e) >= end) continue; // starts in the step
                    const StringId* fw = p.frameworkOps().find(e);
                    const StringId* hlo = p.hloOps().find(e);
                    uint32_t op = fw || hlo ? catalog.deviceOp(e, fw ? *fw : 0, hlo ? *hlo : 0)
                                            : OpCatalog::kNoOp;
                    if (op == OpCatalog::kNoOp) op = catalog.unclaimedOp(e);
                    const std::string& name = catalog.op(op).name;
                    const auto [it, fresh] = opIndex.emplace(name, uint32_t(ops.size()));
                    if (fresh) ops.push_back(name);
                    lane.bars.push_back({p.start(e) - begin, p.end(e) - begin, row, it->second, e,
                                         std::string(p.name(e))});
                    any = true;
                }
            }
            if (any) {
                const std::string gpu =
                    plane.deviceOrdinal >= 0 ? "GPU:" + std::to_string(plane.deviceOrdinal) : "GPU";
                lane.rows.push_back(t.streamId >= 0 ? gpu + " stream " + std::to_string(t.streamId)
                                                    : gpu + " " + std::string(p.str(t.name)));
            }
        }
    }
    return lane;
}

QColor opColor(uint32_t op) {
    // Golden-angle hues: neighbouring op indexes get far-apart colours.
    return QColor::fromHsv(int(std::fmod(op * 137.508, 360.0)), 150, 215);
}

} // namespace

StepLanes collectStepLanes(const Profile& base, const StepRecord& baseStep,
                           const Profile& candidate, const StepRecord& candidateStep) {
    StepLanes lanes;
    std::unordered_map<std::string, uint32_t> index;
    lanes.base = collectLane(base, baseStep, "Baseline step " + std::to_string(baseStep.number),
                             lanes.ops, index);
    lanes.candidate =
        collectLane(candidate, candidateStep,
                    "Candidate step " + std::to_string(candidateStep.number), lanes.ops, index);
    return lanes;
}

StepTimeline::StepTimeline(QWidget* parent)
    : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

QSize StepTimeline::sizeHint() const {
    int rows = 0;
    if (lanes_) rows = int(lanes_->base.rows.size() + lanes_->candidate.rows.size());
    return {800, kAxisHeight + 2 * kTitleHeight + std::max(2, rows) * kRowHeight + 4};
}

void StepTimeline::setLanes(std::shared_ptr<const StepLanes> lanes) {
    lanes_ = std::move(lanes);
    highlight_ = kNoOp;
    viewBegin_ = 0;
    viewEnd_ = fullSpanPs();
    updateGeometry();
    update();
}

void StepTimeline::setHighlight(const QString& opName) {
    highlight_ = kNoOp;
    if (lanes_) {
        const std::string name = opName.toStdString();
        for (size_t i = 0; i < lanes_->ops.size(); ++i)
            if (lanes_->ops[i] == name) highlight_ = uint32_t(i);
    }
    update();
}

void StepTimeline::setView(int64_t beginPs, int64_t endPs) {
    const int64_t full = fullSpanPs();
    endPs = std::max(endPs, beginPs + 1000); // at least 1 ns
    const int64_t width = std::min(endPs - beginPs, full);
    beginPs = std::clamp<int64_t>(beginPs, 0, full - width);
    viewBegin_ = beginPs;
    viewEnd_ = beginPs + width;
    update();
}

int64_t StepTimeline::fullSpanPs() const {
    if (!lanes_) return 1;
    return std::max<int64_t>(1, std::max(lanes_->base.durationPs, lanes_->candidate.durationPs));
}

double StepTimeline::xOf(int64_t ps) const {
    const double w = std::max(1, width() - kLabelWidth - 4);
    return kLabelWidth + double(ps - viewBegin_) / double(viewEnd_ - viewBegin_) * w;
}

int64_t StepTimeline::psAt(double x) const {
    const double w = std::max(1, width() - kLabelWidth - 4);
    return viewBegin_ + int64_t((x - kLabelWidth) / w * double(viewEnd_ - viewBegin_));
}

void StepTimeline::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!lanes_) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No step to show"));
        return;
    }
    // Time axis: about one tick per 100 px, at round multiples.
    p.setPen(palette().color(QPalette::Text));
    const double span = double(viewEnd_ - viewBegin_);
    const double rough = span / std::max(1.0, (width() - kLabelWidth) / 100.0);
    const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
    double tick = magnitude;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (magnitude * m >= rough) {
            tick = magnitude * m;
            break;
        }
    for (double t = std::ceil(double(viewBegin_) / tick) * tick; t <= double(viewEnd_); t += tick) {
        const double x = xOf(int64_t(t));
        p.drawLine(QPointF(x, kAxisHeight - 5), QPointF(x, kAxisHeight));
        p.drawText(QPointF(x + 2, kAxisHeight - 7),
                   QString::fromStdString(formatDuration(int64_t(t))));
    }
    p.drawText(QRect(2, 0, kLabelWidth - 4, kAxisHeight), Qt::AlignVCenter | Qt::AlignLeft,
               tr("from step start"));
    int y = kAxisHeight;
    for (const StepLane* lane : {&lanes_->base, &lanes_->candidate}) {
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(palette().color(QPalette::Text));
        p.fillRect(QRect(0, y, width(), kTitleHeight), palette().alternateBase());
        p.drawText(QRect(4, y, width() - 8, kTitleHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   QString::fromStdString(lane->title) + "  ·  " +
                       QString::fromStdString(formatDuration(lane->durationPs)));
        p.setFont(font());
        // The step's end.
        const double endX = xOf(lane->durationPs);
        const int top = y + kTitleHeight;
        const int rows = std::max<int>(1, int(lane->rows.size()));
        for (size_t r = 0; r < lane->rows.size(); ++r)
            p.drawText(QRect(4, top + int(r) * kRowHeight, kLabelWidth - 8, kRowHeight),
                       Qt::AlignVCenter | Qt::AlignLeft,
                       p.fontMetrics().elidedText(QString::fromStdString(lane->rows[r]),
                                                  Qt::ElideMiddle, kLabelWidth - 8));
        p.save();
        p.setClipRect(QRect(kLabelWidth, top, width() - kLabelWidth, rows * kRowHeight));
        for (const StepLane::Bar& b : lane->bars) {
            if (b.endPs < viewBegin_ || b.beginPs > viewEnd_) continue;
            const double x0 = xOf(b.beginPs), x1 = std::max(xOf(b.endPs), x0 + 1);
            QColor c = opColor(b.op);
            if (highlight_ != kNoOp && b.op != highlight_) c.setAlpha(50);
            p.fillRect(QRectF(x0, top + b.row * kRowHeight + 2, x1 - x0, kRowHeight - 4), c);
        }
        if (endX >= kLabelWidth && endX <= width()) {
            p.setPen(QPen(palette().color(QPalette::Text), 1, Qt::DashLine));
            p.drawLine(QPointF(endX, top), QPointF(endX, top + rows * kRowHeight));
        }
        p.restore();
        y = top + rows * kRowHeight;
    }
}

const StepLane::Bar* StepTimeline::barAt(QPoint pt, const StepLane** laneOut) const {
    if (!lanes_ || pt.x() < kLabelWidth) return nullptr;
    int y = kAxisHeight;
    const int64_t t = psAt(pt.x());
    const int64_t slack = std::max<int64_t>(1, psAt(pt.x() + 2) - t);
    for (const StepLane* lane : {&lanes_->base, &lanes_->candidate}) {
        const int top = y + kTitleHeight;
        const int rows = std::max<int>(1, int(lane->rows.size()));
        if (pt.y() >= top && pt.y() < top + rows * kRowHeight) {
            const int row = (pt.y() - top) / kRowHeight;
            for (const StepLane::Bar& b : lane->bars)
                if (b.row == row && b.beginPs - slack <= t && t <= b.endPs + slack) {
                    *laneOut = lane;
                    return &b;
                }
            return nullptr;
        }
        y = top + rows * kRowHeight;
    }
    return nullptr;
}

bool StepTimeline::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const StepLane* lane = nullptr;
        if (const StepLane::Bar* b = barAt(help->pos(), &lane))
            QToolTip::showText(
                help->globalPos(),
                QStringLiteral("%1\n%2\n%3, at %4 from the step start")
                    .arg(QString::fromStdString(lanes_->ops[b->op]),
                         QString::fromStdString(b->kernel),
                         QString::fromStdString(formatDuration(b->endPs - b->beginPs)),
                         QString::fromStdString(formatDuration(b->beginPs))),
                this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

void StepTimeline::wheelEvent(QWheelEvent* e) {
    if (!lanes_) return;
    const double steps = e->angleDelta().y() / 120.0;
    const double factor = std::pow(0.8, steps);
    const int64_t at = psAt(e->position().x());
    const double width = double(viewEnd_ - viewBegin_) * factor;
    const double left = double(at - viewBegin_) * factor;
    setView(at - int64_t(left), at - int64_t(left) + int64_t(width));
    e->accept();
}

void StepTimeline::mousePressEvent(QMouseEvent* e) {
    dragFrom_ = e->position().toPoint();
    dragBegin_ = viewBegin_;
    dragEnd_ = viewEnd_;
}

void StepTimeline::mouseMoveEvent(QMouseEvent* e) {
    if (!(e->buttons() & Qt::LeftButton)) return;
    const double w = std::max(1, width() - kLabelWidth - 4);
    const int64_t shift =
        int64_t(double(e->position().x() - dragFrom_.x()) / w * double(dragEnd_ - dragBegin_));
    setView(dragBegin_ - shift, dragEnd_ - shift);
}

void StepTimeline::mouseDoubleClickEvent(QMouseEvent*) {
    setView(0, fullSpanPs());
}

} // namespace stepscope
