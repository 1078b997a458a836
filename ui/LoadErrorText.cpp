#include "ui/LoadErrorText.h"

#include <QCoreApplication>

namespace stepscope {

QString plainLoadError(const QString& technical) {
    auto tr = [](const char* s) { return QCoreApplication::translate("LoadError", s); };
    const QString t = technical.toLower();
    if (t.contains(QLatin1String("no such file or folder")))
        return tr("Nothing is there: the file or folder does not exist (moved or deleted?).");
    if (t.contains(QLatin1String("no profiles found")))
        return tr("No profile found there: expected a TensorBoard log folder, a run folder, a "
                  "TensorFlow/JAX .xplane.pb or a PyTorch/Chrome trace .json(.gz).");
    if (t.contains(QLatin1String("changed while it was being read")))
        return tr("The file changed while it was being read: a profiler may still be writing "
                  "it.");
    if (t.contains(QLatin1String("the file is empty")))
        return tr("The file is empty: the profiler wrote nothing (or the copy failed).");
    if (t.contains(QLatin1String("cannot read")))
        return tr("The file cannot be read (permissions, or a broken disk or network share).");
    if (t.contains(QLatin1String("truncated")) || t.contains(QLatin1String("runs past the end")))
        return tr("The file is cut short or damaged: it ends inside the profile (a copy or "
                  "download that did not finish?).");
    return tr("Not a profile Stepscope can read: expected a TensorFlow/JAX .xplane.pb, a "
              "PyTorch/Chrome trace .json(.gz) or a TensorBoard log folder.");
}

} // namespace stepscope
