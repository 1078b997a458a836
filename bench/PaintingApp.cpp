#include "bench/PaintingApp.h"

#include <QApplication>

namespace stepscope::bench {

std::unique_ptr<QGuiApplication> startPaintingApp(bool widgets) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    // Qt keeps references to argc and argv for the application's life.
    static int argc = 1;
    static char name[] = "stepscope-bench";
    static char* argv[] = {name, nullptr};
    std::unique_ptr<QGuiApplication> app = widgets ? std::make_unique<QApplication>(argc, argv)
                                                   : std::make_unique<QGuiApplication>(argc, argv);
    QCoreApplication::setApplicationName("stepscope-bench");
    return app;
}

} // namespace stepscope::bench
