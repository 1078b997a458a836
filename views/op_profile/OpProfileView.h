#pragma once

#include <memory>

#include "model/analysis/OpProfile.h"
#include "views/ToolView.h"
#include "views/ViewAnalysis.h"

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTreeView;

namespace stepscope {

class OpProfileModel;

// "Op profile" (XProf's op_profile): the ops of the whole profile or one step as a tree, by
// program and category or by framework op path (OpProfile), each node with its time, FLOPs,
// bytes, FLOP/s and Bytes/s as shares of the roofs, and what bounds it. Sortable by any column.
// Double-clicking a node shows its longest event in the trace viewer.
class OpProfileView : public ToolView {
    Q_OBJECT
public:
    explicit OpProfileView(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const Profile> profile) override;
    bool isReady() const override { return job_.ready(); }

    void setGrouping(OpProfileGrouping grouping);
    QTreeView* treeView() const { return tree_; }
    OpProfileModel* model() const { return model_; }

private:
    void showTree();

    std::shared_ptr<const Profile> profile_;
    std::shared_ptr<const Roofline> roofline_;

    QLabel* status_;
    QComboBox* grouping_;
    QComboBox* step_;
    OpProfileModel* model_;
    QSortFilterProxyModel* proxy_;
    QTreeView* tree_;

    ViewAnalysis<Roofline> job_; // after the widgets its hooks use
};

} // namespace stepscope
