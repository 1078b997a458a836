#pragma once

#include <QFrame>

class QLabel;

namespace stepscope {

// A non-modal message strip above the tool area (load errors, notices). The window stays usable
// while it shows; the user dismisses it or the next successful load hides it.
class MessageBanner : public QFrame {
    Q_OBJECT
public:
    enum class Kind { Error, Notice };

    explicit MessageBanner(QWidget* parent = nullptr);

    void showMessage(Kind kind, const QString& title, const QString& detail);
    QString text() const; // title and detail, as shown
    Kind kind() const { return kind_; }

private:
    QLabel* icon_;
    QLabel* title_;
    QLabel* detail_;
    Kind kind_ = Kind::Notice;
};

} // namespace stepscope
