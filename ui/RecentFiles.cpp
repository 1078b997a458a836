#include "ui/RecentFiles.h"

#include <QFileInfo>

namespace stepscope {

namespace {
const char* const kKey = "recentFiles";

QString normalized(const QString& path) {
    const QFileInfo info(path);
    return info.exists() ? info.absoluteFilePath() : path;
}
} // namespace

QStringList RecentFiles::paths() const {
    if (!settings_) return {};
    return settings_->value(kKey).toStringList();
}

void RecentFiles::add(const QString& path) {
    const QString entry = normalized(path);
    QStringList list = paths();
    list.removeAll(entry);
    list.prepend(entry);
    while (list.size() > kMax) list.removeLast();
    store(list);
}

void RecentFiles::remove(const QString& path) {
    QStringList list = paths();
    list.removeAll(path);
    store(list);
}

QStringList RecentFiles::removeMissing() {
    QStringList kept, missing;
    for (const QString& p : paths()) (QFileInfo::exists(p) ? kept : missing).append(p);
    if (!missing.isEmpty()) store(kept);
    return missing;
}

void RecentFiles::store(const QStringList& paths) {
    if (!settings_) return;
    settings_->setValue(kKey, paths);
    settings_->sync();
}

} // namespace stepscope
