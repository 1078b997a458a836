#pragma once

#include <QAbstractItemModel>
#include <memory>

#include "model/analysis/OpProfile.h"

namespace stepscope {

// An OpProfile tree as a Qt item model. Columns: Name, Time (µs), Time (%) (of the tree's total),
// FLOPs, FLOP/s, FLOP/s of roof (%), Bytes accessed, Bytes/s, Bytes/s of roof (%),
// FLOP/byte (operational intensity), Bound by. Display text is formatted as the tables format
// it (SI prefixes, binary byte units); Qt::UserRole holds the number (NaN where unknown) for
// sorting. Holds the roofline it was made from.
class OpProfileModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column {
        Name,
        Time,
        TimeShare,
        Flops,
        FlopsPerSecond,
        ComputeShare,
        Bytes,
        BytesPerSecond,
        MemoryShare,
        Intensity,
        Bound,
        ColumnCount
    };

    explicit OpProfileModel(QObject* parent = nullptr);
    void setTree(std::shared_ptr<const Roofline> roofline, OpProfile tree);
    const OpProfile& tree() const { return tree_; }
    // The node an index stands for; 0 (the root) for an invalid index.
    uint32_t nodeOf(const QModelIndex& index) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const Roofline> roofline_;
    OpProfile tree_;
    std::vector<uint32_t> parent_, row_; // per node: its parent and its row under it
};

} // namespace stepscope
