#include "ui/Appearance.h"

#include <QApplication>
#include <QFont>
#include <QStyle>
#include <QStyleFactory>

namespace stepscope {

void applyAppearance(QApplication& app) {
    if (QStyle* fusion = QStyleFactory::create("Fusion")) app.setStyle(fusion);
    app.setPalette(app.style()->standardPalette());
    // Some platforms (offscreen, bare X servers) default to 9 pt, which reads small in tables.
    QFont font = app.font();
    if (font.pointSizeF() > 0 && font.pointSizeF() < 10.0) {
        font.setPointSizeF(10.0);
        app.setFont(font);
    }
}

} // namespace stepscope
