#include "views/trace/TimelineRenderer.h"

#include <QFontMetrics>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "views/trace/TimeAxis.h"

namespace stepscope {

namespace {
const QColor kBackground(0xFF, 0xFF, 0xFF);
const QColor kAltRow(0xF7, 0xF8, 0xFA);
const QColor kGutter(0xF2, 0xF4, 0xF7);
const QColor kSectionBand(0xE4, 0xE8, 0xEE);
const QColor kSeparator(0xD9, 0xDD, 0xE3);
const QColor kGrid(0xEC, 0xEE, 0xF1);
const QColor kAxisText(0x4A, 0x50, 0x58);
const QColor kLabelText(0x26, 0x2B, 0x31);
const QColor kSelection(0xFF, 0x8F, 0x00);
const QColor kLinkedVeil(0xFF, 0xFF, 0xFF, 190); // dims what is not linked
const QColor kLinkedEdge(0x1F, 0x23, 0x28);
const QColor kFlaggedEdge(0xD3, 0x2F, 0x2F);
const QColor kRangeFill(0x42, 0x85, 0xF4, 40);
const QColor kRangeEdge(0x42, 0x85, 0xF4);
const QColor kMarkFill(0xFF, 0xD6, 0x00, 45);
const QColor kMarkEdge(0xE0, 0xA8, 0x00);
const QColor kFlow(0x37, 0x47, 0x4F, 110);

// Keeps pixel coordinates of far-off event edges in range for integer rectangles.
double clampX(double x, double lo, double hi) {
    return std::clamp(x, lo - 4.0, hi + 4.0);
}
} // namespace

TimelineRenderer::TimelineRenderer(const Profile& profile, const TimelineLayout& layout)
    : profile_(profile)
    , layout_(layout)
    , palette_(profile) {
    font_.setPixelSize(11);
    boldFont_ = font_;
    boldFont_.setBold(true);
    boldFont_.setPixelSize(12);
    smallFont_.setPixelSize(10);
    names_.resize(profile.metadata().size());
    nameWidths_.assign(profile.metadata().size(), -1);
}

double TimelineRenderer::canvasX(int64_t t, const TimelineFrame& f) {
    const QRect r = timelineRect(f.size);
    return r.left() + double(t - f.visible.start) * double(r.width()) / double(f.visible.span());
}

int64_t TimelineRenderer::timeAt(double x, const TimelineFrame& f) {
    const QRect r = timelineRect(f.size);
    return f.visible.start +
           std::llround((x - r.left()) * double(f.visible.span()) / double(r.width()));
}

const QString& TimelineRenderer::nameText(uint32_t meta) {
    QString& s = names_[meta];
    if (s.isNull()) {
        const std::string_view v = profile_.str(profile_.metadata()[meta].name);
        s = QString::fromUtf8(v.data(), qsizetype(v.size()));
        if (s.isNull()) s = QString(""); // non-null marks it as converted
    }
    return s;
}

int TimelineRenderer::nameWidth(uint32_t meta) {
    int& w = nameWidths_[meta];
    if (w < 0) w = QFontMetrics(font_).horizontalAdvance(nameText(meta));
    return w;
}

void TimelineRenderer::paintBase(QPainter& p, const TimelineFrame& f) {
    lastBlocks_ = 0;
    const QRect area = timelineRect(f.size);
    p.fillRect(QRect(QPoint(0, 0), f.size), kBackground);
    p.fillRect(QRect(0, 0, kGutterWidth, f.size.height()), kGutter);

    // Rows: alternating backgrounds and grid first, then events on top.
    const QFontMetrics fm(font_);
    const int viewTop = f.scrollY, viewBottom = f.scrollY + area.height();
    const auto& rows = layout_.rows();
    const TimeAxisScale axis = chooseTimeAxis(f.visible, area.width(), fm.horizontalAdvance('0'));
    const std::vector<int64_t> ticks = axis.ticks(f.visible);

    p.setClipRect(QRect(0, kAxisHeight, f.size.width(), area.height()));
    for (size_t i = layout_.firstRowBelow(viewTop); i < rows.size() && rows[i].y < viewBottom;
         ++i) {
        const TimelineRow& row = rows[i];
        const int top = canvasY(row.y, f);
        if (row.kind == TimelineRow::Kind::Section) {
            paintSectionHeader(p, f, row, top);
            continue;
        }
        if (i % 2 == 0) p.fillRect(QRect(kGutterWidth, top, area.width(), row.height), kAltRow);
        p.setPen(kGrid);
        for (int64_t t : ticks) {
            const int x = int(std::lround(canvasX(t, f)));
            p.drawLine(x, top, x, top + row.height - 1);
        }
        paintLanes(p, f, row, top);
        // Gutter label, on top of nothing: the gutter is not part of the time area.
        p.fillRect(QRect(0, top, kGutterWidth, row.height), kGutter);
        p.setFont(font_);
        p.setPen(kLabelText);
        const QString label =
            fm.elidedText(QString::fromStdString(row.label), Qt::ElideMiddle, kGutterWidth - 30);
        p.drawText(QRect(22, top, kGutterWidth - 28, TimelineLayout::kLaneHeight),
                   Qt::AlignVCenter | Qt::AlignLeft, label);
        p.fillRect(QRect(0, top + row.height - 1, f.size.width(), 1), kSeparator);
        p.fillRect(QRect(kGutterWidth - 1, top, 1, row.height), kSeparator);
    }
    // The header of the section at the top stays pinned while its tracks scroll; the next
    // header pushes it up.
    int pinnedTop = 0;
    const int pinned = pinnedSection(f, &pinnedTop);
    if (pinned >= 0) {
        const TimelineRow& header = rows[size_t(layout_.sectionRow(uint32_t(pinned)))];
        paintSectionHeader(p, f, header, pinnedTop);
    }
    p.setClipping(false);
    paintAxis(p, f);
}

int TimelineRenderer::pinnedSection(const TimelineFrame& f, int* canvasTop) const {
    const auto& rows = layout_.rows();
    const size_t first = layout_.firstRowBelow(f.scrollY);
    if (first >= rows.size()) return -1;
    const TimelineRow& row = rows[first];
    // Its own header is the top row and fully shown: nothing to pin.
    if (row.kind == TimelineRow::Kind::Section && row.y >= f.scrollY) return -1;
    int top = kAxisHeight;
    for (size_t i = first + 1;
         i < rows.size() && rows[i].y < f.scrollY + 2 * TimelineLayout::kSectionHeight; ++i)
        if (rows[i].kind == TimelineRow::Kind::Section) {
            top = std::min(top, canvasY(rows[i].y, f) - TimelineLayout::kSectionHeight);
            break;
        }
    if (canvasTop) *canvasTop = top;
    return int(row.section);
}

int TimelineRenderer::pinnedSectionAt(const TimelineFrame& f, int y) const {
    int top = 0;
    const int section = pinnedSection(f, &top);
    return section >= 0 && y >= std::max(top, kAxisHeight) &&
                   y < top + TimelineLayout::kSectionHeight
               ? section
               : -1;
}

void TimelineRenderer::paintSectionHeader(QPainter& p, const TimelineFrame& f,
                                          const TimelineRow& row, int top) {
    p.fillRect(QRect(0, top, f.size.width(), row.height), kSectionBand);
    p.fillRect(QRect(0, top + row.height - 1, f.size.width(), 1), kSeparator);
    // Disclosure triangle, then the label across the full width: device labels are long.
    const bool collapsed = layout_.sections()[row.section].collapsed;
    const QPointF c(12, top + row.height / 2.0);
    QPolygonF tri;
    if (collapsed)
        tri << c + QPointF(-3, -5) << c + QPointF(4, 0) << c + QPointF(-3, 5);
    else
        tri << c + QPointF(-5, -3) << c + QPointF(5, -3) << c + QPointF(0, 4);
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(Qt::NoPen);
    p.setBrush(kAxisText);
    p.drawPolygon(tri);
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setFont(boldFont_);
    p.setPen(kLabelText);
    QString text = QString::fromStdString(row.label);
    const auto& sec = layout_.sections()[row.section];
    if (collapsed) text += QStringLiteral("   (%1 tracks)").arg(sec.tracks.size());
    p.drawText(QRect(24, top, f.size.width() - 28, row.height), Qt::AlignVCenter | Qt::AlignLeft,
               text);
}

void TimelineRenderer::paintLanes(QPainter& p, const TimelineFrame& f, const TimelineRow& row,
                                  int top) {
    const QRect area = timelineRect(f.size);
    const double left = area.left(), right = area.right() + 1;
    const QFontMetrics fm(font_);
    const int baseline = (TimelineLayout::kLaneHeight + fm.ascent() - fm.descent()) / 2;
    p.save();
    p.setClipRect(QRect(area.left(), std::max(top, kAxisHeight), area.width(), row.height),
                  Qt::IntersectClip);
    p.setFont(font_);
    for (uint32_t depth = 0; depth < row.depthCount; ++depth) {
        const int y = top + int(depth) * TimelineLayout::kLaneHeight;
        if (y + TimelineLayout::kLaneHeight < kAxisHeight || y > f.size.height()) continue;
        blocks_.clear();
        foldLane(profile_, row.track, depth, f.visible, area.width(), kMinEventPx, blocks_);
        lastBlocks_ += blocks_.size();
        const int h = TimelineLayout::kLaneHeight - 2;
        for (const LaneBlock& b : blocks_) {
            const double x0 = clampX(left + b.x0, left, right);
            const double x1 = clampX(left + b.x1, left, right);
            int ix0 = int(std::floor(x0));
            int w = std::max(1, int(std::ceil(x1)) - ix0);
            if (b.merged()) {
                // The colour of the events that fill it, a shade lighter than a single event's,
                // so a fitted stream still shows its kernels.
                const QColor c =
                    QColor::fromRgb(palette_.rgbOfMetadata(dominantMetadata(profile_, b)));
                p.fillRect(QRect(ix0, y + 1, w, h), c.lighter(112));
                continue;
            }
            // A one-pixel gap keeps back-to-back events apart once they are wide enough.
            if (w >= 4) --w;
            const uint32_t meta = profile_.metadataOf(b.first);
            p.fillRect(QRect(ix0, y + 1, w, h), QColor::fromRgb(palette_.rgbOfMetadata(meta)));
            if (w < kMinLabelPx) continue;
            // Labels stay inside the visible part of the box, so long events stay named.
            const int vx0 = std::max(ix0, int(left)), vx1 = std::min(ix0 + w, int(right));
            const int avail = vx1 - vx0 - 6;
            if (avail < kMinLabelPx - 6) continue;
            p.setPen(EventPalette::textColor());
            if (nameWidth(meta) <= avail) {
                p.drawText(QPointF(vx0 + 3, y + baseline), nameText(meta));
            } else {
                const QString elided = fm.elidedText(nameText(meta), Qt::ElideRight, avail);
                if (elided.size() > 1) p.drawText(QPointF(vx0 + 3, y + baseline), elided);
            }
        }
    }
    p.restore();
}

void TimelineRenderer::paintAxis(QPainter& p, const TimelineFrame& f) {
    const QRect area = timelineRect(f.size);
    p.fillRect(QRect(0, 0, f.size.width(), kAxisHeight), kBackground);
    p.fillRect(QRect(0, kAxisHeight - 1, f.size.width(), 1), kSeparator);
    p.setFont(font_);
    const QFontMetrics fm(font_);
    const TimeAxisScale axis = chooseTimeAxis(f.visible, area.width(), fm.horizontalAdvance('0'));
    p.setPen(kAxisText);
    paintTimeTicks(p, QRect(area.left(), 0, area.width(), kAxisHeight), f.visible, axis);
    p.fillRect(QRect(0, 0, kGutterWidth, kAxisHeight - 1), kGutter);
    p.setPen(kAxisText);
    const QString base =
        axis.basePs == 0
            ? QStringLiteral("Time from start")
            : QStringLiteral("From start + %1").arg(QString::fromStdString(axis.baseLabel()));
    p.drawText(QRect(8, 0, kGutterWidth - 12, kAxisHeight - 1), Qt::AlignVCenter | Qt::AlignLeft,
               QStringLiteral("%1 · view %2")
                   .arg(base, QString::fromStdString(formatDuration(f.visible.span()))));
}

QRectF TimelineRenderer::eventRect(const TimelineFrame& f, EventIndex e) const {
    const uint32_t track = profile_.trackOf(e);
    const int ly = layout_.laneY(track, profile_.depthOf(e));
    if (ly < 0) return {};
    const QRect area = timelineRect(f.size);
    const double x0 = clampX(canvasX(profile_.start(e), f), area.left(), area.right());
    const double x1 = clampX(canvasX(profile_.end(e), f), area.left(), area.right());
    return QRectF(x0, canvasY(ly, f) + 1, std::max(1.0, x1 - x0), TimelineLayout::kLaneHeight - 2);
}

bool TimelineRenderer::flowEnd(const TimelineFrame& f, EventIndex e, QPointF& out) const {
    const QRectF r = eventRect(f, e);
    if (r.isEmpty()) return false;
    out = QPointF(r.left(), r.center().y());
    return true;
}

void TimelineRenderer::paintFlows(QPainter& p, const TimelineFrame& f, const TimelineOverlay& o) {
    const auto& flows = profile_.flows();
    const QRect area = timelineRect(f.size);
    auto arrow = [&](const Flow& fl, bool highlight) {
        QPointF a, b;
        if (!flowEnd(f, fl.launch, a) || !flowEnd(f, fl.target, b)) return;
        QPainterPath path(a);
        const double dy = (b.y() - a.y()) * 0.5;
        path.cubicTo(a + QPointF(0, dy), b - QPointF(0, dy), b);
        p.setPen(QPen(highlight ? kSelection : kFlow, highlight ? 2.0 : 1.0));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        const double dir = b.y() >= a.y() ? 1 : -1;
        QPolygonF head;
        head << b << b + QPointF(-3.5, -7 * dir) << b + QPointF(3.5, -7 * dir);
        p.setBrush(highlight ? kSelection : kFlow);
        p.setPen(Qt::NoPen);
        p.drawPolygon(head);
    };
    p.save();
    p.setClipRect(QRect(area.left(), kAxisHeight, area.width(), area.height()));
    p.setRenderHint(QPainter::Antialiasing, true);
    if (o.showFlows && !flows.empty()) {
        // Launches visible in the window: flows are sorted by launch and a lane's events are
        // one index range, so each visible lane is one binary search into the flows.
        std::vector<std::pair<size_t, size_t>> spans;
        const size_t limit = size_t(area.width() / kPixelsPerFlowArrow);
        size_t total = 0;
        const auto& rows = layout_.rows();
        for (size_t i = layout_.firstRowBelow(f.scrollY);
             i < rows.size() && rows[i].y < f.scrollY + area.height() && total <= limit; ++i) {
            const TimelineRow& row = rows[i];
            if (row.kind != TimelineRow::Kind::Track) continue;
            for (uint32_t d = 0; d < row.depthCount && total <= limit; ++d) {
                const EventRange r =
                    profile_.eventsInWindow(row.track, d, f.visible.start, f.visible.end);
                if (r.empty()) continue;
                auto byLaunch = [](const Flow& fl, EventIndex e) { return fl.launch < e; };
                const auto lo = std::lower_bound(flows.begin(), flows.end(), r.begin, byLaunch);
                const auto hi = std::lower_bound(lo, flows.end(), r.end, byLaunch);
                if (hi == lo) continue;
                spans.emplace_back(size_t(lo - flows.begin()), size_t(hi - flows.begin()));
                total += size_t(hi - lo);
            }
        }
        if (total <= limit)
            for (auto [b, e] : spans)
                for (size_t k = b; k < e; ++k) arrow(flows[k], false);
    }
    if (o.showFlows && o.selected != kNoIndex) {
        for (const Flow& fl : profile_.flowsFrom(o.selected)) arrow(fl, true);
        for (EventIndex launch : profile_.launchesOf(o.selected)) arrow({launch, o.selected}, true);
    }
    p.restore();
}

void TimelineRenderer::paintLinked(QPainter& p, const TimelineFrame& f, const TimelineOverlay& o) {
    if (!o.linked && !o.flagged) return;
    const QRect area = timelineRect(f.size);
    auto rectIfVisible = [&](EventIndex e) {
        if (e >= profile_.eventCount() || profile_.end(e) < f.visible.start ||
            profile_.start(e) > f.visible.end)
            return QRectF();
        return eventRect(f, e);
    };
    p.save();
    p.setClipRect(area);
    p.setBrush(Qt::NoBrush);
    if (o.linked) {
        p.fillRect(area, kLinkedVeil);
        p.setPen(QPen(kLinkedEdge, 1.5));
        for (EventIndex e : *o.linked) {
            const QRectF r = rectIfVisible(e);
            if (r.isEmpty()) continue;
            p.fillRect(r, palette_.colorOf(e));
            p.drawRect(r);
        }
    }
    if (o.flagged) {
        p.setPen(QPen(kFlaggedEdge, 2.0));
        for (EventIndex e : *o.flagged) {
            const QRectF r = rectIfVisible(e);
            if (!r.isEmpty()) p.drawRect(r.adjusted(-1, -1, 1, 1));
        }
    }
    p.restore();
}

void TimelineRenderer::paintOverlay(QPainter& p, const TimelineFrame& f, const TimelineOverlay& o) {
    const QRect area = timelineRect(f.size);
    auto band = [&](TimeRange r, const QColor& fill, const QColor& edge) {
        const double x0 = clampX(canvasX(r.start, f), area.left(), area.right());
        const double x1 = clampX(canvasX(r.end, f), area.left(), area.right());
        p.save();
        p.setClipRect(QRect(area.left(), 0, area.width(), f.size.height()));
        p.fillRect(QRectF(x0, kAxisHeight, x1 - x0, area.height()), fill);
        p.setPen(edge);
        p.drawLine(QPointF(x0, 0), QPointF(x0, f.size.height()));
        p.drawLine(QPointF(x1, 0), QPointF(x1, f.size.height()));
        p.restore();
    };
    if (o.hasMark) band(o.mark, kMarkFill, kMarkEdge);
    if (o.hasRange) {
        band(o.range, kRangeFill, kRangeEdge);
        // The range's length, on the axis, where the user looks while dragging.
        const double x0 = canvasX(o.range.start, f), x1 = canvasX(o.range.end, f);
        const QString text = QString::fromStdString(formatDuration(o.range.span()));
        p.setFont(boldFont_);
        const QFontMetrics fm(boldFont_);
        const int w = fm.horizontalAdvance(text) + 10;
        const double cx =
            std::clamp((x0 + x1) / 2, double(area.left() + w / 2), double(area.right() - w / 2));
        const QRectF box(cx - w / 2.0, 2, w, kAxisHeight - 6);
        p.fillRect(box, kRangeEdge);
        p.setPen(Qt::white);
        p.drawText(box, Qt::AlignCenter, text);
    }
    paintLinked(p, f, o);
    paintFlows(p, f, o);
    if (o.selected != kNoIndex) {
        const QRectF r = eventRect(f, o.selected);
        if (!r.isEmpty()) {
            p.save();
            p.setClipRect(QRect(area.left(), kAxisHeight, area.width(), area.height()));
            p.setBrush(Qt::NoBrush);
            p.setPen(QPen(kSelection, 2));
            p.drawRect(r.adjusted(-1, -1, 1, 1));
            p.restore();
        }
    }
}

bool TimelineRenderer::blockAt(const TimelineFrame& f, QPoint pos, LaneBlock& block, Lane& lane) {
    const QRect area = timelineRect(f.size);
    if (!area.contains(pos)) return false;
    const LayoutHit hit = layout_.hitTest(layoutY(pos.y(), f));
    if (hit.track == kNoIndex || !hit.inLane) return false;
    blocks_.clear();
    foldLane(profile_, hit.track, hit.depth, f.visible, area.width(), kMinEventPx, blocks_);
    const double x = pos.x() - area.left();
    for (const LaneBlock& b : blocks_) {
        if (x >= std::floor(b.x0) && x < std::max(std::ceil(b.x1), std::floor(b.x0) + 1)) {
            block = b;
            lane = {hit.track, hit.depth};
            return true;
        }
    }
    return false;
}

} // namespace stepscope
