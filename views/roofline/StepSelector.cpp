#include "views/roofline/StepSelector.h"

#include <QCoreApplication>
#include <QSignalBlocker>

namespace stepscope {

void fillRooflineSteps(QComboBox* box, const Roofline* roofline) {
    const QSignalBlocker block(box);
    box->clear();
    if (!roofline) return;
    box->addItem(QCoreApplication::translate("RooflineSteps", "All steps"), -1);
    for (size_t s = 0; s < roofline->steps.size(); ++s)
        box->addItem(
            QCoreApplication::translate("RooflineSteps", "Step %1").arg(roofline->steps[s].number),
            int(s));
}

} // namespace stepscope
