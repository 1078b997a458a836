// stepscope: the GUI. `stepscope [PATH | --demo]` opens a window; `stepscope --screenshot TOOL
// OUT.png (PATH | --demo)` renders one tool to a PNG and exits.
#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "model/HeapArena.h"
#include "ui/Appearance.h"
#include "ui/CommandLine.h"
#include "ui/MainWindow.h"
#include "ui/ScreenshotMode.h"

int main(int argc, char** argv) {
    stepscope::useOneHeapArena();
    // Screenshots and help need no screen: without any display they run offscreen, not fail.
    const bool headless = std::any_of(argv + 1, argv + argc, [](const char* a) {
        return std::strcmp(a, "--screenshot") == 0 || std::strcmp(a, "--help") == 0 ||
               std::strcmp(a, "-h") == 0;
    });
    if (headless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") &&
        qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName("Stepscope");
    QApplication::setApplicationName("stepscope");
    QApplication::setApplicationVersion(STEPSCOPE_VERSION);
    stepscope::applyAppearance(app);

    const stepscope::GuiCommand cmd = stepscope::parseGuiCommand(QApplication::arguments());
    if (cmd.help) {
        std::fputs(qPrintable(cmd.usage), stdout);
        return 0;
    }
    if (!cmd.error.isEmpty()) {
        std::fprintf(stderr, "stepscope: %s\n\n%s", qPrintable(cmd.error), qPrintable(cmd.usage));
        return 2;
    }
    if (cmd.screenshot) {
        const QString error = stepscope::takeScreenshot(*cmd.screenshot);
        if (!error.isEmpty()) {
            std::fprintf(stderr, "stepscope: %s\n", qPrintable(error));
            return 1;
        }
        return 0;
    }

    QSettings settings;
    stepscope::MainWindow window(&settings);
    if (!cmd.noCache) {
        // Reopening a profile reads its columns back from here (model/ProfileCache.h).
        const QString folder =
            QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + "/profiles";
        window.setProfileCache(std::make_shared<const stepscope::ProfileCache>(
            folder.toStdString(), STEPSCOPE_VERSION, stepscope::ProfileCache::kDefaultCapBytes,
            [](bool problem, const std::string& line) {
                if (problem)
                    qWarning("%s", line.c_str());
                else
                    qInfo("%s", line.c_str());
            }));
    }
    window.show();
    if (cmd.demo)
        window.openDemo();
    else if (!cmd.path.isEmpty())
        window.openPath(cmd.path);
    if (!cmd.comparePath.isEmpty()) window.compareWith(cmd.comparePath);
    return app.exec();
}
