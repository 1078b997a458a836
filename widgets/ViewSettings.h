#pragma once

class QSettings;

namespace stepscope {

// Where the views remember how the user laid them out (a table's hidden columns, the trace
// viewer's details pane height). The window sets it; null, the default, remembers nothing
// (screenshot mode, tests that do not ask for it).
void setViewSettings(QSettings* settings);
QSettings* viewSettings();

} // namespace stepscope
