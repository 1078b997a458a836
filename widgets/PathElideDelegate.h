#pragma once

#include <QStyledItemDelegate>

class QFontMetrics;

namespace stepscope {

// `text` fitted into `width` pixels keeping what tells op paths apart: the first component and
// as many of the last components as fit ("replica_4/…/GatherV2/Cast"); text with no '/', or
// whose first and last components alone do not fit, is elided in the middle.
QString elidePath(const QString& text, const QFontMetrics& metrics, int width);

// Draws table cells whose text is a path with elidePath, so that op names elided in a narrow
// column still differ where they differ (a plain middle elision showed "replica_…rV2/Cast" for
// two replicas' ops). The full text stays in the cell's tooltip.
class PathElideDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
};

} // namespace stepscope
