#pragma once
#include "views/ToolView.h"
namespace stepscope {
class SummaryView : public ToolView {
    Q_OBJECT
public:
    explicit SummaryView(QWidget* parent = nullptr) : ToolView(parent) {}
    void setProfile(std::shared_ptr<const Profile>) override {}
};
}
