#include "views/trace/TimelineCanvas.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>

#include "views/trace/TimeAxis.h"

namespace stepscope {

namespace {
constexpr double kKeyZoomFactor = 1.5;
constexpr double kKeyPanFraction = 0.2;
constexpr int kClickSlopPx = 4;
// Picking tolerance: sub-pixel events stay clickable.
constexpr double kPickTolerancePx = 3.0;
} // namespace

TimelineCanvas::TimelineCanvas(QWidget* parent)
    : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(400, 200);
}

TimelineCanvas::~TimelineCanvas() = default;

void TimelineCanvas::setProfile(std::shared_ptr<const Profile> profile) {
    renderer_.reset();
    layout_.reset();
    profile_ = std::move(profile);
    selected_ = kNoIndex;
    overlay_ = TimelineOverlay{};
    scrollY_ = 0;
    if (profile_) {
        layout_ = std::make_unique<TimelineLayout>(*profile_);
        renderer_ = std::make_unique<TimelineRenderer>(*profile_, *layout_);
        zoom_.setTraceRange(
            {0, std::max<int64_t>(profile_->durationPs(), ZoomControl::kMinSpanPs)});
    } else {
        zoom_.setTraceRange({0, ZoomControl::kMinSpanPs});
    }
    ++layoutVersion_;
    changed();
}

void TimelineCanvas::setLinkedEvents(std::shared_ptr<const std::vector<EventIndex>> linked,
                                     std::shared_ptr<const std::vector<EventIndex>> flagged) {
    overlay_.linked = std::move(linked);
    overlay_.flagged = std::move(flagged);
    update();
}

TimelineFrame TimelineCanvas::frame() const {
    return {size(), zoom_.visibleRange(), scrollY_};
}

void TimelineCanvas::changed() {
    clampScroll();
    update();
    emit viewChanged();
}

void TimelineCanvas::setVisibleRange(TimeRange r) {
    zoom_.setVisibleRange(r);
    changed();
}

void TimelineCanvas::showAll() {
    zoom_.showAll();
    changed();
}

void TimelineCanvas::zoomBy(double factor, double anchorFraction) {
    zoom_.zoomAt(anchorFraction, factor);
    changed();
}

void TimelineCanvas::panBy(double fraction) {
    zoom_.panByFraction(fraction);
    changed();
}

void TimelineCanvas::setTool(Tool t) {
    if (tool_ == t) return;
    tool_ = t;
    setCursor(t == Tool::Pan      ? Qt::OpenHandCursor
              : t == Tool::Select ? Qt::ArrowCursor
                                  : Qt::IBeamCursor);
    emit toolChanged(int(t));
}

void TimelineCanvas::selectEvent(EventIndex e, Framing framing) {
    if (!profile_ || (e != kNoIndex && e >= profile_->eventCount())) e = kNoIndex;
    selected_ = e;
    overlay_.selected = e;
    if (e != kNoIndex) {
        const uint32_t track = profile_->trackOf(e);
        const int section = layout_->sectionOfTrack(track);
        if (section >= 0 && layout_->sections()[size_t(section)].collapsed) {
            layout_->setCollapsed(uint32_t(section), false);
            ++layoutVersion_;
        }
        if (layout_->rowOfTrack(track) < 0) {
            layout_->setTrackHidden(track, false);
            ++layoutVersion_;
        }
        frameEvent(e, framing);
    }
    changed();
    emit eventSelected(e);
}

void TimelineCanvas::frameEvent(EventIndex e, Framing framing) {
    if (!profile_ || e >= profile_->eventCount() || framing == Framing::None) return;
    const TimeRange event{profile_->start(e), profile_->end(e)};
    const TimeRange view = zoom_.visibleRange();
    const int64_t centre = event.start + event.span() / 2;
    if (framing == Framing::Reveal && event.span() <= view.span()) {
        // Fits: keep the zoom, and pan only when part of it is off screen.
        if (event.start < view.start || event.end > view.end)
            zoom_.setVisibleRange(
                {centre - view.span() / 2, centre - view.span() / 2 + view.span()});
    } else {
        // The event fills the middle third: margins of its own length on each side.
        const int64_t span = std::max(event.span() * 3, kMinContextPs);
        zoom_.setVisibleRange({centre - span / 2, centre - span / 2 + span});
    }
    ensureTrackVisible(profile_->trackOf(e));
    changed();
}

void TimelineCanvas::selectRange(TimeRange r, std::vector<Lane> lanes) {
    if (r.end < r.start) std::swap(r.start, r.end);
    overlay_.hasRange = true;
    overlay_.range = r;
    overlay_.lanes = lanes;
    zoom_.setSelection(r);
    update();
    emit rangeSelected(std::move(lanes), r);
}

TimeRange TimelineCanvas::deviceActivityRange() const {
    TimeRange r{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
    if (!profile_) return {};
    for (const Track& t : profile_->tracks()) {
        if (t.eventCount == 0 || !t.deviceOps) continue;
        r.start = std::min(r.start, t.minStartPs);
        r.end = std::max(r.end, t.maxEndPs);
    }
    return r.start > r.end ? TimeRange{} : r;
}

bool TimelineCanvas::frameDeviceActivity() {
    const TimeRange r = deviceActivityRange();
    if (r.empty()) return false;
    zoom_.frame(r, 0.02);
    changed();
    return true;
}

void TimelineCanvas::frameSelection() {
    if (!profile_) return;
    if (selected_ != kNoIndex) {
        frameEvent(selected_, Framing::Context);
        return;
    } else if (overlay_.hasRange) {
        zoom_.frame(overlay_.range, 0.05);
    } else {
        zoom_.showAll();
    }
    changed();
}

void TimelineCanvas::markSelection() {
    if (!profile_) return;
    if (overlay_.hasRange)
        zoom_.setMark(overlay_.range);
    else if (selected_ != kNoIndex)
        zoom_.setMark({profile_->start(selected_), profile_->end(selected_)});
    else
        return;
    overlay_.hasMark = true;
    overlay_.mark = zoom_.mark();
    update();
}

void TimelineCanvas::clearSelection() {
    // A first Esc clears the selection; one more clears the mark.
    const bool hadSelection = selected_ != kNoIndex || overlay_.hasRange;
    if (!hadSelection) {
        zoom_.clearMark();
        overlay_.hasMark = false;
        update();
        return;
    }
    const bool hadRange = overlay_.hasRange;
    selected_ = kNoIndex;
    overlay_.selected = kNoIndex;
    overlay_.hasRange = false;
    overlay_.lanes.clear();
    zoom_.clearSelection();
    update();
    emit eventSelected(kNoIndex);
    if (hadRange) emit rangeCleared();
}

void TimelineCanvas::setShowFlows(bool on) {
    overlay_.showFlows = on;
    update();
}

int TimelineCanvas::maxScrollY() const {
    if (!layout_) return 0;
    const int visible = TimelineRenderer::timelineRect(size()).height();
    return std::max(0, layout_->totalHeight() - visible + TimelineLayout::kLaneHeight);
}

void TimelineCanvas::clampScroll() {
    scrollY_ = std::clamp(scrollY_, 0, maxScrollY());
}

void TimelineCanvas::setScrollY(int y) {
    const int old = scrollY_;
    scrollY_ = y;
    clampScroll();
    if (scrollY_ != old) changed();
}

void TimelineCanvas::ensureTrackVisible(uint32_t track) {
    if (!layout_) return;
    const int row = layout_->rowOfTrack(track);
    if (row < 0) return;
    const TimelineRow& r = layout_->rows()[size_t(row)];
    const int visible = TimelineRenderer::timelineRect(size()).height();
    if (r.y < scrollY_ || r.y + std::min(r.height, visible) > scrollY_ + visible)
        setScrollY(r.y - visible / 3);
}

void TimelineCanvas::toggleSection(uint32_t section) {
    if (!layout_ || section >= layout_->sections().size()) return;
    layout_->toggleCollapsed(section);
    ++layoutVersion_;
    changed();
}

void TimelineCanvas::collapseAllBut(uint32_t section) {
    if (!layout_ || section >= layout_->sections().size()) return;
    layout_->collapseAllBut(section);
    ++layoutVersion_;
    changed();
}

void TimelineCanvas::setTrackHidden(uint32_t track, bool hidden) {
    if (!layout_) return;
    layout_->setTrackHidden(track, hidden);
    ++layoutVersion_;
    changed();
}

void TimelineCanvas::showAllTracks() {
    if (!layout_) return;
    layout_->showAllTracks();
    ++layoutVersion_;
    changed();
}

QPoint TimelineCanvas::pointOf(EventIndex e) const {
    if (!renderer_ || e == kNoIndex) return {-1, -1};
    const QRectF r = renderer_->eventRect(frame(), e);
    if (r.isEmpty()) return {-1, -1};
    const QRect area = TimelineRenderer::timelineRect(size());
    const double x0 = std::max(r.left(), double(area.left())),
                 x1 = std::min(r.right(), double(area.right()));
    return QPoint(int((x0 + x1) / 2), int(r.center().y()));
}

std::vector<Lane> TimelineCanvas::allLanes() const {
    std::vector<Lane> lanes;
    if (!layout_) return lanes;
    for (const TimelineSection& s : layout_->sections())
        for (uint32_t t : s.tracks)
            for (uint32_t d = 0; d < profile_->tracks()[t].depthCount; ++d) lanes.push_back({t, d});
    return lanes;
}

std::vector<Lane> TimelineCanvas::lanesBetween(int y0, int y1) const {
    std::vector<Lane> lanes;
    if (!layout_) return lanes;
    const TimelineFrame f = frame();
    const int ly0 = TimelineRenderer::layoutY(std::min(y0, y1), f);
    const int ly1 = TimelineRenderer::layoutY(std::max(y0, y1), f);
    const auto& rows = layout_->rows();
    for (size_t i = layout_->firstRowBelow(ly0); i < rows.size() && rows[i].y <= ly1; ++i) {
        const TimelineRow& r = rows[i];
        if (r.kind != TimelineRow::Kind::Track) continue;
        for (uint32_t d = 0; d < r.depthCount; ++d) {
            const int top = r.y + int(d) * TimelineLayout::kLaneHeight;
            if (top + TimelineLayout::kLaneHeight > ly0 && top <= ly1)
                lanes.push_back({r.track, d});
        }
    }
    return lanes;
}

double TimelineCanvas::anchorFractionAt(QPoint p) const {
    const QRect area = TimelineRenderer::timelineRect(size());
    if (!area.contains(p)) return 0.5;
    return double(p.x() - area.left()) / double(area.width());
}

void TimelineCanvas::paintEvent(QPaintEvent*) {
    QPainter p(this);
    if (!renderer_) {
        p.fillRect(rect(), palette().window());
        p.drawText(rect(), Qt::AlignCenter, tr("No profile loaded"));
        return;
    }
    const TimelineFrame f = frame();
    const qreal dpr = devicePixelRatioF();
    const QSize pixels = size() * dpr;
    if (base_.size() != pixels || baseRange_ != f.visible || baseScroll_ != scrollY_ ||
        baseLayoutVersion_ != layoutVersion_) {
        if (base_.size() != pixels) base_ = QImage(pixels, QImage::Format_RGB32);
        base_.setDevicePixelRatio(dpr);
        QPainter bp(&base_);
        renderer_->paintBase(bp, f);
        baseRange_ = f.visible;
        baseScroll_ = scrollY_;
        baseLayoutVersion_ = layoutVersion_;
    }
    p.drawImage(0, 0, base_);
    renderer_->paintOverlay(p, f, overlay_);
    if (dragging_ && dragMoved_ && tool_ != Tool::Pan) {
        const QRect area = TimelineRenderer::timelineRect(size());
        QRect box = QRect(pressPos_, lastPos_).normalized();
        if (tool_ != Tool::Select) box = QRect(box.left(), area.top(), box.width(), area.height());
        p.setPen(QPen(QColor(0x42, 0x85, 0xF4), 1, Qt::DashLine));
        p.setBrush(QColor(0x42, 0x85, 0xF4, 30));
        p.drawRect(box.intersected(area));
    }
}

void TimelineCanvas::resizeEvent(QResizeEvent*) {
    changed();
}

void TimelineCanvas::wheelEvent(QWheelEvent* e) {
    // As Perfetto: the wheel scrolls, Ctrl+wheel zooms at the cursor, Shift+wheel pans.
    const QPoint delta = e->angleDelta();
    const int vertical = delta.y() != 0 ? delta.y() : delta.x();
    if (e->modifiers() & Qt::ControlModifier) {
        if (vertical != 0)
            zoomBy(std::pow(kWheelZoomPerUnit, double(vertical)),
                   anchorFractionAt(e->position().toPoint()));
    } else if ((e->modifiers() & Qt::ShiftModifier) || std::abs(delta.x()) > std::abs(delta.y())) {
        panBy(-double(vertical) / 1200.0);
    } else if (delta.y() != 0) {
        setScrollY(scrollY_ - delta.y() / 2);
    }
    e->accept();
}

void TimelineCanvas::mousePressEvent(QMouseEvent* e) {
    if (e->button() != Qt::LeftButton || !layout_) return;
    setFocus(Qt::MouseFocusReason);
    dragging_ = true;
    dragMoved_ = false;
    pressPos_ = lastPos_ = e->position().toPoint();
    if (tool_ == Tool::Pan) setCursor(Qt::ClosedHandCursor);
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent* e) {
    const QPoint pos = e->position().toPoint();
    hover_ = pos;
    if (!dragging_) return;
    if ((pos - pressPos_).manhattanLength() > kClickSlopPx) dragMoved_ = true;
    if (tool_ == Tool::Pan && dragMoved_) {
        const QRect area = TimelineRenderer::timelineRect(size());
        zoom_.panByPixels(pos.x() - lastPos_.x(), area.width());
        scrollY_ -= pos.y() - lastPos_.y();
        changed();
    } else {
        update();
    }
    lastPos_ = pos;
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent* e) {
    if (e->button() != Qt::LeftButton || !dragging_ || !layout_) return;
    dragging_ = false;
    const QPoint pos = e->position().toPoint();
    lastPos_ = pos;
    if (tool_ == Tool::Pan) setCursor(Qt::OpenHandCursor);
    const TimelineFrame f = frame();
    const QRect area = TimelineRenderer::timelineRect(size());
    if (!dragMoved_) {
        const int pinned = renderer_->pinnedSectionAt(f, pos.y());
        if (pinned >= 0) {
            toggleSection(uint32_t(pinned));
            return;
        }
        const LayoutHit hit = layout_->hitTest(TimelineRenderer::layoutY(pos.y(), f));
        if (pos.y() >= TimelineRenderer::kAxisHeight && hit.section) {
            toggleSection(layout_->rows()[size_t(hit.row)].section);
            return;
        }
        if (tool_ == Tool::Pan || !area.contains(pos)) return;
        const EventIndex picked = pickEvent(pos, hit);
        if (picked == kNoIndex)
            clearSelection();
        else
            selectEvent(picked, Framing::None);
        return;
    }
    const int x0 = std::clamp(std::min(pressPos_.x(), pos.x()), area.left(), area.right() + 1);
    const int x1 = std::clamp(std::max(pressPos_.x(), pos.x()), area.left(), area.right() + 1);
    const TimeRange range{TimelineRenderer::timeAt(x0, f), TimelineRenderer::timeAt(x1, f)};
    switch (tool_) {
    case Tool::Pan:
        break;
    case Tool::Zoom:
        if (range.span() > 0) setVisibleRange(range);
        break;
    case Tool::Timing:
        selectRange(range, allLanes());
        break;
    case Tool::Select:
        selectRange(range, lanesBetween(pressPos_.y(), pos.y()));
        break;
    }
    update();
}

EventIndex TimelineCanvas::pickEvent(QPoint pos, const LayoutHit& hit) const {
    const TimelineFrame f = frame();
    const QRect area = TimelineRenderer::timelineRect(size());
    if (!area.contains(pos) || hit.track == kNoIndex || !hit.inLane) return kNoIndex;
    const int64_t t = TimelineRenderer::timeAt(pos.x(), f);
    const int64_t tolerance =
        std::llround(kPickTolerancePx * double(f.visible.span()) / area.width());
    return TimelineLayout::eventAt(*profile_, hit.track, hit.depth, t, tolerance);
}

TimelineCanvas::PointHit TimelineCanvas::hitAt(QPoint pos) const {
    PointHit result;
    if (!layout_ || pos.y() < TimelineRenderer::kAxisHeight) return result;
    const int pinned = renderer_->pinnedSectionAt(frame(), pos.y());
    if (pinned >= 0) {
        result.section = pinned;
        result.onHeader = true;
        return result;
    }
    const LayoutHit hit = layout_->hitTest(TimelineRenderer::layoutY(pos.y(), frame()));
    if (hit.row < 0) return result;
    const TimelineRow& row = layout_->rows()[size_t(hit.row)];
    result.section = int(row.section);
    result.track = hit.track;
    result.onHeader = hit.section || pos.x() < TimelineRenderer::kGutterWidth;
    if (!result.onHeader) result.event = pickEvent(pos, hit);
    return result;
}

void TimelineCanvas::contextMenuEvent(QContextMenuEvent* e) {
    if (!layout_) return;
    emit contextMenuRequested(hitAt(e->pos()), e->globalPos());
    e->accept();
}

void TimelineCanvas::keyPressEvent(QKeyEvent* e) {
    if (!handleKey(e)) QWidget::keyPressEvent(e);
}

bool TimelineCanvas::handleKey(QKeyEvent* e) {
    if (e->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) return false;
    if (e->key() == Qt::Key_Question) {
        emit shortcutsRequested();
        e->accept();
        return true;
    }
    if (!layout_) return false;
    // Keys zoom at the mouse when it is over the canvas, as the wheel does.
    const double anchor = rect().contains(hover_) ? anchorFractionAt(hover_) : 0.5;
    switch (e->key()) {
    case Qt::Key_W:
        zoomBy(kKeyZoomFactor, anchor);
        break;
    case Qt::Key_S:
        zoomBy(1.0 / kKeyZoomFactor, anchor);
        break;
    case Qt::Key_A:
        panBy(-kKeyPanFraction);
        break;
    case Qt::Key_D:
        panBy(kKeyPanFraction);
        break;
    case Qt::Key_1:
        setTool(Tool::Select);
        break;
    case Qt::Key_2:
        setTool(Tool::Pan);
        break;
    case Qt::Key_3:
        setTool(Tool::Zoom);
        break;
    case Qt::Key_4:
        setTool(Tool::Timing);
        break;
    case Qt::Key_F:
        frameSelection();
        break;
    case Qt::Key_M:
        markSelection();
        break;
    case Qt::Key_0:
        showAll();
        break;
    case Qt::Key_G:
        frameDeviceActivity();
        break;
    case Qt::Key_Escape:
        clearSelection();
        break;
    default:
        return false;
    }
    e->accept();
    return true;
}

void TimelineCanvas::leaveEvent(QEvent*) {
    hover_ = QPoint(-1, -1);
}

bool TimelineCanvas::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip && renderer_) {
        auto* help = static_cast<QHelpEvent*>(e);
        LaneBlock block;
        Lane lane;
        if (!renderer_->blockAt(frame(), help->pos(), block, lane)) {
            QToolTip::hideText();
            e->ignore();
            return true;
        }
        QString text;
        if (block.merged()) {
            const int64_t span =
                profile_->end(block.first + block.count - 1) - profile_->start(block.first);
            text = tr("%1 events folded together (%2)\nZoom in to tell them apart.")
                       .arg(QLocale().toString(qulonglong(block.count)),
                            QString::fromStdString(formatDuration(span)));
        } else {
            text = QStringLiteral("%1\n%2 at %3")
                       .arg(QString::fromUtf8(profile_->name(block.first).data(),
                                              qsizetype(profile_->name(block.first).size())),
                            QString::fromStdString(formatDuration(profile_->duration(block.first))),
                            QString::fromStdString(formatDuration(profile_->start(block.first))));
        }
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace stepscope
