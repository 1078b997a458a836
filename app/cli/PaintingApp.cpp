#include "app/cli/PaintingApp.h"

#include <QApplication>

namespace stepscope::cli {

std::unique_ptr<QGuiApplication> startPaintingApp(bool widgets) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    // Qt keeps references to argc and argv for the application's life.
    static int argc = 1;
    static char name[] = "stepscope-cli";
    static char* argv[] = {name, nullptr};
    std::unique_ptr<QGuiApplication> app = widgets ? std::make_unique<QApplication>(argc, argv)
                                                   : std::make_unique<QGuiApplication>(argc, argv);
    QCoreApplication::setApplicationName("stepscope-cli");
    return app;
}

} // namespace stepscope::cli
