#include "ui/CommandLine.h"

#include "model/analysis/RunDiffTable.h"
#include <QCommandLineParser>
#include <QRegularExpression>

namespace stepscope {

GuiCommand parseGuiCommand(const QStringList& args) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Stepscope: a profiler for GPU training jobs.\n\n"
        "  stepscope [PATH | --demo] [--compare CANDIDATE] [--no-cache]\n"
        "  stepscope --screenshot TOOL OUT.png (PATH | --demo) [--size WxH]\n"
        "      [--compare CANDIDATE [--compare-table steps|ops|kernels|host_ops]]\n\n"
        "PATH is a TensorBoard log directory, its plugins/profile folder, one run folder, or a "
        "single .xplane.pb file.");
    const QCommandLineOption help({"h", "help"}, "Show this help.");
    const QCommandLineOption demo("demo", "Open the built-in synthetic demo profile.");
    const QCommandLineOption screenshot(
        "screenshot", "Save the window showing TOOL as a PNG (OUT.png) and exit.", "TOOL");
    const QCommandLineOption size("size", "Screenshot size in pixels (default 1600x1000).", "WxH",
                                  "1600x1000");
    const QCommandLineOption compare(
        "compare", "Compare the profile (the baseline) with CANDIDATE on the Compare runs page.",
        "CANDIDATE");
    const QCommandLineOption compareTable(
        "compare-table",
        "With --screenshot run_diff and --compare: the table to show (steps, ops, kernels or "
        "host_ops; default ops).",
        "TABLE");
    const QCommandLineOption noCache(
        "no-cache", "Load profiles from their sources; neither read nor write the profile cache.");
    parser.addOptions({help, demo, screenshot, size, noCache, compare, compareTable});
    parser.addPositionalArgument("PATH", "The profile to open.", "[PATH]");

    GuiCommand cmd;
    cmd.usage = parser.helpText();
    if (!parser.parse(args)) {
        cmd.error = parser.errorText();
        return cmd;
    }
    if (parser.isSet(help)) {
        cmd.help = true;
        return cmd;
    }
    QStringList positional = parser.positionalArguments();
    cmd.demo = parser.isSet(demo);
    cmd.comparePath = parser.value(compare);
    cmd.noCache = parser.isSet(noCache);

    if (parser.isSet(screenshot)) {
        ScreenshotRequest req;
        req.tool = parser.value(screenshot);
        req.demo = cmd.demo;
        req.comparePath = cmd.comparePath;
        const int wanted = cmd.demo ? 1 : 2;
        if (positional.size() != wanted) {
            cmd.error = positional.size() < wanted
                            ? "--screenshot needs TOOL, OUT.png and a PATH (or --demo)"
                            : "--screenshot takes one OUT.png and one PATH (or --demo)";
            return cmd;
        }
        req.outPath = positional[0];
        if (!cmd.demo) req.profilePath = positional[1];
        static const QRegularExpression sizePattern("^(\\d{1,5})x(\\d{1,5})$");
        const QRegularExpressionMatch m = sizePattern.match(parser.value(size));
        if (!m.hasMatch()) {
            cmd.error = QString("--size wants WIDTHxHEIGHT, like 1600x1000, not '%1'")
                            .arg(parser.value(size));
            return cmd;
        }
        req.size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
        if (parser.isSet(compareTable)) {
            static const QStringList tables = {"steps", "ops", "kernels", "host_ops"};
            const qsizetype table = tables.indexOf(parser.value(compareTable));
            if (req.comparePath.isEmpty() || table < 0) {
                cmd.error = req.comparePath.isEmpty()
                                ? "--compare-table goes with --compare"
                                : QString("--compare-table wants steps, ops, kernels or host_ops, "
                                          "not '%1'")
                                      .arg(parser.value(compareTable));
                return cmd;
            }
            req.compareTable = DiffBy(table);
        }
        cmd.screenshot = req;
        return cmd;
    }
    if (parser.isSet(size) || parser.isSet(compareTable)) {
        cmd.error = QString("--%1 only goes with --screenshot")
                        .arg(parser.isSet(size) ? "size" : "compare-table");
        return cmd;
    }
    if (positional.size() > 1 || (cmd.demo && !positional.isEmpty())) {
        cmd.error = "Give one PATH or --demo, not both or several";
        return cmd;
    }
    if (!positional.isEmpty()) cmd.path = positional.front();
    if (!cmd.comparePath.isEmpty() && cmd.path.isEmpty() && !cmd.demo) {
        cmd.error = "--compare needs a PATH to compare with (the baseline)";
        return cmd;
    }
    return cmd;
}

} // namespace stepscope
