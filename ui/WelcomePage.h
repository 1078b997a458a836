#pragma once

#include <QWidget>

class QLabel;

namespace stepscope {

// What an empty window shows: how to open a profile, and the recent ones.
class WelcomePage : public QWidget {
    Q_OBJECT
public:
    explicit WelcomePage(QWidget* parent = nullptr);

    void setRecentPaths(const QStringList& paths);

signals:
    void openFileRequested();
    void openFolderRequested();
    void demoRequested();
    void recentRequested(const QString& path);

private:
    QLabel* recentTitle_;
    QLabel* recent_;
};

} // namespace stepscope
