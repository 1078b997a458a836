#pragma once

#include <memory>

#include "model/analysis/TorchOverview.h"
#include "views/ToolView.h"
#include "views/ViewAnalysis.h"

class QComboBox;
class QLabel;

namespace stepscope {

class DataTableView;

// "PyTorch (TensorBoard plugin)": the numbers of the PyTorch profiler's TensorBoard plugin for
// Kineto traces (TorchStats, TorchOverview): operators (by name, or name and input shape),
// kernels (by kernel, operator and launch configuration, or by name), the step breakdown and the
// GPU metrics, one table at a time as the "Show" choice says, each exportable as CSV.
class PyTorchView : public ToolView {
    Q_OBJECT
public:
    enum class Page { Operators, OperatorsByInput, KernelsByOp, Kernels, Steps, Gpus };

    explicit PyTorchView(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const Profile> profile) override;
    bool isReady() const override { return job_.ready(); }
    bool showName(const QString& name) override;

    DataTableView* tableView() const { return table_; }
    void setPage(Page page);

private:
    void showPage();

    std::shared_ptr<const Profile> profile_;
    std::shared_ptr<const TorchAnalysis> analysis_;

    QLabel* status_;
    QComboBox* page_;
    DataTableView* table_;

    ViewAnalysis<TorchAnalysis> job_; // after the widgets its hooks use
};

} // namespace stepscope
