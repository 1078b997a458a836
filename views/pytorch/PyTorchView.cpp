#include "views/pytorch/PyTorchView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <cmath>

#include "widgets/DataTableView.h"

namespace stepscope {

PyTorchView::PyTorchView(QWidget* parent)
    : ToolView(parent)
    , status_(new QLabel(this))
    , page_(new QComboBox(this))
    , table_(new DataTableView(this))
    , job_(this, tr("PyTorch tables"),
           {.status = [this](const QString& s) { status_->setText(s); },
            .take = [this](std::shared_ptr<const TorchAnalysis> r) { analysis_ = std::move(r); },
            .show = [this] { showPage(); }}) {
    page_->setObjectName("pytorchPage");
    page_->addItem(tr("Operators"), int(Page::Operators));
    page_->addItem(tr("Operators by input shape"), int(Page::OperatorsByInput));
    page_->addItem(tr("Kernels by operator and launch configuration"), int(Page::KernelsByOp));
    page_->addItem(tr("Kernels by name"), int(Page::Kernels));
    page_->addItem(tr("Step time breakdown"), int(Page::Steps));
    page_->addItem(tr("GPU utilization, SM efficiency, occupancy"), int(Page::Gpus));
    page_->setToolTip(tr("The PyTorch profiler TensorBoard plugin's tables, with its definitions "
                         "(README, \"PyTorch numbers\")"));
    status_->setWordWrap(true);
    table_->addColumnFilter("Name", tr("Name"));

    auto* top = new QHBoxLayout;
    top->addWidget(status_, 1);
    top->addWidget(new QLabel(tr("Show:"), this));
    top->addWidget(page_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(table_, 1);

    connect(page_, &QComboBox::currentIndexChanged, this, [this] { showPage(); });
    setProfile(nullptr);
}

void PyTorchView::setPage(Page page) {
    page_->setCurrentIndex(page_->findData(int(page)));
}

bool PyTorchView::showName(const QString& name) {
    table_->filterTo(QStringLiteral("Name"), name);
    return true;
}

void PyTorchView::setProfile(std::shared_ptr<const Profile> profile) {
    profile_ = std::move(profile);
    job_.run(profile_, tr("Reading the PyTorch events…"), computeTorchAnalysis);
}

void PyTorchView::showPage() {
    if (!analysis_ || !profile_) {
        table_->setTable(Table());
        return;
    }
    const TorchAnalysis& a = *analysis_;
    const auto page = Page(page_->currentData().toInt());
    Table t;
    QString file;
    switch (page) {
    case Page::Operators:
        t = torchOpTable(a.stats.ops, false);
        file = "pytorch_operators.csv";
        break;
    case Page::OperatorsByInput:
        t = torchOpTable(a.stats.opsByInput, true);
        file = "pytorch_operators_by_input.csv";
        break;
    case Page::KernelsByOp:
        t = torchKernelOpTable(a.stats);
        file = "pytorch_kernels_by_op.csv";
        break;
    case Page::Kernels:
        t = torchKernelTable(a.stats);
        file = "pytorch_kernels.csv";
        break;
    case Page::Steps:
        t = torchStepTable(a.overviews, *profile_);
        file = "pytorch_steps.csv";
        break;
    case Page::Gpus:
        t = torchGpuTable(a.overviews, *profile_);
        file = "pytorch_gpus.csv";
        break;
    }
    table_->setExportFileName(file);
    table_->setTable(std::move(t));
    QString text = tr("%1 operators, %2 kernel names; %3 steps.")
                       .arg(a.stats.ops.size())
                       .arg(a.stats.kernels.size())
                       .arg(a.overviews.empty() ? 0 : a.overviews[0].steps.size());
    if (!std::isnan(a.stats.tensorCoreKernelRatio))
        text += tr(" Kernel time using Tensor Cores: %1%.")
                    .arg(100.0 * a.stats.tensorCoreKernelRatio, 0, 'f', 1);
    status_->setText(text);
}

} // namespace stepscope
