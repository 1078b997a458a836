#pragma once

#include "views/ToolView.h"

class QLabel;

namespace stepscope {

class DataTableView;

// "Profile summary": the profile as loaded. A header with the event count, time span and
// start time, the XSpace errors and warnings, then tables of hosts, planes (device properties)
// and tracks (kind, stream kind, events, depth, extent). The same tables as `stepscope-cli info`.
class SummaryView : public ToolView {
    Q_OBJECT
public:
    explicit SummaryView(QWidget* parent = nullptr);
    void setProfile(std::shared_ptr<const Profile> profile) override;

private:
    QLabel* header_;
    QLabel* messages_;
    DataTableView* hosts_;
    DataTableView* planes_;
    DataTableView* tracks_;
};

} // namespace stepscope
