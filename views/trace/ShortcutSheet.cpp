#include "views/trace/ShortcutSheet.h"

#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace stepscope {

namespace {
const char* const kSheetName = "shortcutSheet";

struct Entry {
    const char* keys;
    const char* what;
};
struct Group {
    const char* title;
    std::initializer_list<Entry> entries;
};
} // namespace

QString shortcutSheetHtml() {
    const Group groups[] = {
        {QT_TRANSLATE_NOOP("ShortcutSheet",
                           "Trace viewer: keys (whenever no text field has focus)"),
         {{"W / S", "Zoom in / out (at the mouse when it is over the timeline)"},
          {"A / D", "Pan left / right"},
          {"1 2 3 4", "Select, pan, zoom and timing tools"},
          {"F", "Frame the selected event or range"},
          {"M", "Mark the selection (a band that stays)"},
          {"0", "Show the whole profile"},
          {"G", "Fit the GPUs' activity"},
          {"Esc", "Clear the selection; again: clear the mark"},
          {"?", "This sheet"}}},
        {QT_TRANSLATE_NOOP("ShortcutSheet", "Trace viewer: mouse"),
         {{"Wheel", "Scroll the tracks"},
          {"Ctrl+wheel", "Zoom at the cursor"},
          {"Shift+wheel, horizontal wheel", "Pan"},
          {"Click", "Select an event; on a section header: fold it"},
          {"Drag", "Depends on the tool: select a box, pan, zoom to a span, select a range"},
          {"Right click", "Event: copy, find all, zoom, show in op or kernel stats. Track: "
                          "collapse others, hide"}}},
        {QT_TRANSLATE_NOOP("ShortcutSheet", "Trace viewer: search box"),
         {{"Enter / Shift+Enter", "Next / previous match"}}},
        {QT_TRANSLATE_NOOP("ShortcutSheet", "Tables"),
         {{"Click a header", "Sort; numbers largest first, again to reverse"},
          {"Double-click, Enter", "Show the row's longest instance in the trace viewer"},
          {"Right click a row", "Copy, filter to this, show longest instance"},
          {"Right click the header", "Choose the columns (remembered)"},
          {"Ctrl+C", "Copy the selected cells as tab-separated text"}}},
        {QT_TRANSLATE_NOOP("ShortcutSheet", "Window"),
         {{"Ctrl+O", "Open a profile file"},
          {"Ctrl+Shift+O", "Open a log folder"},
          {"Ctrl+B", "Show or hide the side panel"},
          {"F1", "This sheet"}}},
    };
    QString html = QStringLiteral("<style>td{padding:2px 12px 2px 0;} th{text-align:left;"
                                  "padding-top:10px;}</style><table>");
    for (const Group& g : groups) {
        html += QStringLiteral("<tr><th colspan=2>%1</th></tr>")
                    .arg(QCoreApplication::translate("ShortcutSheet", g.title).toHtmlEscaped());
        for (const Entry& e : g.entries)
            html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                        .arg(QString::fromUtf8(e.keys).toHtmlEscaped(),
                             QString::fromUtf8(e.what).toHtmlEscaped());
    }
    return html + QStringLiteral("</table>");
}

void showShortcutSheet(QWidget* parent) {
    QWidget* window = parent->window();
    auto* dialog = window->findChild<QDialog*>(QLatin1String(kSheetName));
    if (!dialog) {
        dialog = new QDialog(window);
        dialog->setObjectName(QLatin1String(kSheetName));
        dialog->setWindowTitle(QCoreApplication::translate("ShortcutSheet", "Keyboard shortcuts"));
        auto* text = new QTextBrowser(dialog);
        text->setHtml(shortcutSheetHtml());
        auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
        QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::hide);
        auto* layout = new QVBoxLayout(dialog);
        layout->addWidget(text);
        layout->addWidget(buttons);
        dialog->resize(640, 560);
    }
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
}

} // namespace stepscope
