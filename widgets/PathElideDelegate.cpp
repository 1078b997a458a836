#include "widgets/PathElideDelegate.h"

#include <QApplication>
#include <QFontMetrics>
#include <QStyle>

namespace stepscope {

QString elidePath(const QString& text, const QFontMetrics& metrics, int width) {
    if (metrics.horizontalAdvance(text) <= width) return text;
    const QStringList parts = text.split(QLatin1Char('/'));
    if (parts.size() >= 3) {
        // Most trailing components first; the first that fits wins.
        const QString head = parts.front() + QStringLiteral("/…/");
        for (qsizetype keep = parts.size() - 2; keep >= 1; --keep) {
            const QString candidate = head + parts.mid(parts.size() - keep).join(QLatin1Char('/'));
            if (metrics.horizontalAdvance(candidate) <= width) return candidate;
        }
    }
    return metrics.elidedText(text, Qt::ElideMiddle, width);
}

void PathElideDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                              const QModelIndex& index) const {
    // Elided only when drawn: the size hint (sizeHintForColumn) must see the whole text.
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QStyle* style = opt.widget ? opt.widget->style() : QApplication::style();
    if (opt.features.testFlag(QStyleOptionViewItem::HasDisplay) &&
        opt.text.contains(QLatin1Char('/'))) {
        // The style draws the text inside the cell less a focus-frame margin on each side.
        const int margin =
            style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, opt.widget) + 1;
        opt.text = elidePath(opt.text, opt.fontMetrics, opt.rect.width() - 2 * margin);
    }
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);
}

} // namespace stepscope
