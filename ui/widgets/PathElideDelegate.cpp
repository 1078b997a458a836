#include "ui/widgets/PathElideDelegate.h"

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

void PathElideDelegate::initStyleOption(QStyleOptionViewItem* option,
                                        const QModelIndex& index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    if (!option->features.testFlag(QStyleOptionViewItem::HasDisplay) ||
        !option->text.contains(QLatin1Char('/')))
        return;
    // The style draws the text inside the cell less a focus-frame margin on each side.
    const QStyle* style = option->widget ? option->widget->style() : QApplication::style();
    const int margin =
        style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, option->widget) + 1;
    option->text = elidePath(option->text, option->fontMetrics, option->rect.width() - 2 * margin);
}

} // namespace stepscope
