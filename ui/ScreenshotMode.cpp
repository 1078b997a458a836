#include "ui/ScreenshotMode.h"

#include <QEventLoop>
#include <QImageWriter>
#include <QPixmap>
#include <QTimer>

#include "ui/MainWindow.h"
#include "views/ToolRegistry.h"
#include "views/ToolView.h"
#include "views/run_diff/RunDiffView.h"

namespace stepscope {

namespace {

// The window cannot shrink below its layout's minimum (resize() clamps to it); say so rather than
// save a PNG of another size.
QString sizeError(const QWidget& window, QSize wanted) {
    const QSize got = window.size();
    if (got == wanted) return {};
    const QSize least = got.expandedTo(wanted);
    return QStringLiteral("Screenshot size %1x%2 is smaller than the window can be; use at least "
                          "%3x%4")
        .arg(wanted.width())
        .arg(wanted.height())
        .arg(least.width())
        .arg(least.height());
}

QString toolIds(const QStringList& ids) {
    return ids.isEmpty() ? QStringLiteral("(none)") : ids.join(", ");
}

// Runs the event loop until `done()` holds or `timeoutMs` passes; true when it held.
template <typename Done, typename Connect>
bool waitFor(int timeoutMs, Done done, Connect connectQuit) {
    if (done()) return true;
    QEventLoop loop;
    QTimer timer;
    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
    connectQuit(loop);
    timer.start(timeoutMs);
    while (!done() && timer.isActive()) loop.exec();
    return done();
}

} // namespace

QString takeScreenshot(const ScreenshotRequest& request) {
    const std::vector<ToolInfo> tools = toolRegistry();
    if (!findTool(tools, request.tool)) {
        QStringList ids;
        for (const ToolInfo& t : tools) ids << toolKeyText(t.id);
        return QStringLiteral("Unknown tool '%1'. Valid tools: %2").arg(request.tool, toolIds(ids));
    }

    MainWindow window(nullptr);
    // Laid out and painted like a shown window, without appearing on a screen.
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.resize(request.size);
    window.show();

    QString loadError;
    bool cancelled = false;
    QObject::connect(&window, &MainWindow::loadFailed, &window,
                     [&loadError](const QString& m) { loadError = m; });
    QObject::connect(&window, &MainWindow::loadCancelled, &window,
                     [&cancelled] { cancelled = true; });
    if (request.demo)
        window.openDemo();
    else
        window.openPath(request.profilePath);
    const QString what = request.demo ? QStringLiteral("the demo profile") : request.profilePath;
    const bool loaded = waitFor(
        request.timeoutMs, [&] { return !window.isLoading(); },
        [&window](QEventLoop& loop) {
            for (auto signal : {&MainWindow::profileShown, &MainWindow::loadCancelled})
                QObject::connect(&window, signal, &loop, &QEventLoop::quit);
            QObject::connect(&window, &MainWindow::loadFailed, &loop, &QEventLoop::quit);
        });
    if (!loaded)
        return QStringLiteral("Timed out after %1 s loading %2")
            .arg(request.timeoutMs / 1000)
            .arg(what);
    if (!loadError.isEmpty())
        return loadError.contains(what)
                   ? loadError
                   : QStringLiteral("Could not open %1: %2").arg(what, loadError);
    if (cancelled || !window.profile())
        return QStringLiteral("Loading %1 did not finish").arg(what);

    if (!window.selectTool(request.tool))
        return QStringLiteral(
                   "The tool '%1' has nothing to show for %2. Tools for this profile: %3")
            .arg(request.tool, what, toolIds(window.availableToolIds()));
    ToolView* view = window.currentView();
    if (!request.comparePath.isEmpty()) {
        auto* diff = qobject_cast<RunDiffView*>(view);
        if (!diff) return QStringLiteral("--compare goes with the run_diff tool");
        if (request.compareTable) diff->setTableKind(*request.compareTable);
        diff->setCandidatePath(request.comparePath);
    }
    const bool ready = waitFor(
        request.timeoutMs, [view] { return view->isReady(); },
        [view](QEventLoop& loop) {
            QObject::connect(view, &ToolView::ready, &loop, &QEventLoop::quit);
        });
    if (!ready)
        return QStringLiteral("Timed out after %1 s waiting for the '%2' tool to finish")
            .arg(request.timeoutMs / 1000)
            .arg(request.tool);

    // Let layouts and deferred paints triggered by the last results settle before grabbing.
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();

    if (QString error = sizeError(window, request.size); !error.isEmpty()) return error;
    const QPixmap shot = window.grab();
    QImageWriter writer(request.outPath, "png");
    if (!writer.write(shot.toImage()))
        return QStringLiteral("Could not write %1: %2").arg(request.outPath, writer.errorString());
    return {};
}

} // namespace stepscope
