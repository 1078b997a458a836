#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace stepscope {

// Stage text, a progress bar and Cancel, shown in the status bar while a profile loads.
class LoadProgressWidget : public QWidget {
    Q_OBJECT
public:
    explicit LoadProgressWidget(QWidget* parent = nullptr);

    void start(const QString& what);
    void setProgress(const QString& stage, double fraction);
    QString stage() const;
    int percent() const;

signals:
    void cancelRequested();

private:
    QLabel* stage_;
    QProgressBar* bar_;
    QPushButton* cancel_;
};

} // namespace stepscope
