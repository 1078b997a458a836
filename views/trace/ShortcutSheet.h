#pragma once

#include <QString>

class QWidget;

namespace stepscope {

// The keyboard and mouse sheet (Help > Keyboard shortcuts, or `?` in the trace viewer): the
// trace viewer's keys and mouse as TimelineCanvas implements them, the tables' keys, and the
// window's shortcuts.
QString shortcutSheetHtml();

// Shows the sheet in a non-modal dialog of `parent`'s window, reusing an open one.
void showShortcutSheet(QWidget* parent);

} // namespace stepscope
