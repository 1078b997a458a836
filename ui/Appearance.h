#pragma once

class QApplication;

namespace stepscope {

// The application-wide look: Fusion style (the same on every platform and under offscreen) and a
// readable base font size.
void applyAppearance(QApplication& app);

} // namespace stepscope
