#pragma once

#include <QSettings>
#include <QStringList>

namespace stepscope {

// The File > Open Recent list, kept in QSettings: most recent first, no duplicates, at most
// kMax entries. Works on the QSettings it is given, so tests use a private file.
class RecentFiles {
public:
    static constexpr int kMax = 10;

    explicit RecentFiles(QSettings* settings)
        : settings_(settings) {}

    QStringList paths() const;
    // Puts `path` first (moving it up if already listed) and drops the oldest beyond kMax.
    void add(const QString& path);
    void remove(const QString& path);
    // Removes the entries that no longer exist on disk and returns them.
    QStringList removeMissing();

private:
    void store(const QStringList& paths);

    QSettings* settings_; // may be null: then nothing is remembered
};

} // namespace stepscope
