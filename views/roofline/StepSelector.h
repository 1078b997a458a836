#pragma once

#include <QComboBox>

#include "model/analysis/Roofline.h"

namespace stepscope {

// The step choice of the roofline and op profile pages: "All steps" (data -1), then each step of
// the roofline (data: its index in Roofline::steps); empty without a roofline. Emits no signal.
void fillRooflineSteps(QComboBox* box, const Roofline* roofline);

} // namespace stepscope
