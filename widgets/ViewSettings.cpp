#include "widgets/ViewSettings.h"

namespace stepscope {

namespace {
QSettings* gViewSettings = nullptr;
} // namespace

void setViewSettings(QSettings* settings) {
    gViewSettings = settings;
}

QSettings* viewSettings() {
    return gViewSettings;
}

} // namespace stepscope
