// The shared table widget and the two stats tabs: the item models under
// QAbstractItemModelTester, numeric sorting, filters, CSV export of what is on screen, Ctrl+C,
// and the op/kernel stats views on a fixture and on the real BERT profile. With
// STEPSCOPE_SCREENSHOT_DIR set, the real-profile views are also saved there as PNGs.
#include <QAbstractItemModelTester>
#include <QClipboard>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "model/Csv.h"
#include "model/ProfileBuilder.h"
#include "model/ProfileLoader.h"
#include "model/analysis/KernelStats.h"
#include "tests/fixtures/FileSizeLimit.h"
#include "views/kernel_stats/KernelStatsView.h"
#include "views/tf_stats/TfStatsView.h"
#include "widgets/DataTableView.h"
#include "widgets/PathElideDelegate.h"
#include "widgets/PieChart.h"
#include "widgets/TableModel.h"
#include "widgets/ViewSettings.h"

using namespace stepscope;

namespace {
constexpr int64_t us = 1000000;
const std::string kBert =
    std::string(STEPSCOPE_REALDATA) +
    "/tf-gpu-bert/plugins/profile/2020_12_03_bert/34.83.195.179_6003.xplane.pb";

Table numbersTable() {
    Table t;
    t.addColumn("kernel", Table::Type::Text, ColumnFormat::Plain, "Kernel name");
    t.addColumn("op", Table::Type::Text);
    t.addColumn("time (µs)", Table::Type::Double, ColumnFormat::Microseconds);
    t.addColumn("count", Table::Type::Int);
    t.addRow({std::string("alpha_gemm"), std::string("dense/MatMul"), 10.0, int64_t(3)});
    t.addRow({std::string("beta_relu"), std::string("relu"), 9.0, int64_t(100)});
    t.addRow({std::string("Gamma_gemm"), std::string("dense_1/MatMul"), 100.0, int64_t(-2)});
    t.addRow({std::string("delta"), std::string("=cmd"), std::nan(""), int64_t(7)});
    return t;
}

std::vector<std::string> column(const DataTableView& v, size_t col) {
    std::vector<std::string> out;
    for (size_t r : v.visibleRows()) out.push_back(v.table().exactText(r, col));
    return out;
}

StatValue strStat(ProfileBuilder& b, const char* key, const char* value) {
    return {b.intern(key), StatType::Str, b.intern(value)};
}

std::shared_ptr<const Profile> gpuFixture() {
    ProfileBuilder b;
    b.setTimeBase(0);
    const uint32_t h = b.addHost("h", "");
    const uint32_t cpu = b.addPlane(h, 1, "/host:CPU");
    const uint32_t gpu = b.addPlane(h, 2, "/device:GPU:0");
    const uint32_t thread = b.addTrack(cpu, 3, "tf_Compute/3");
    const uint32_t stream = b.addTrack(gpu, 7, "Stream #7(Compute)");
    const uint32_t hostOp = b.addMetadata(cpu, 1, "dense/MatMul:MatMul", "");
    const uint32_t gemm = b.addMetadata(gpu, 1, "volta_h884gemm_64x64", "");
    const uint32_t relu = b.addMetadata(gpu, 2, "relu_kernel", "");
    b.addEvent(thread, 0, 10 * us, hostOp);
    b.addEvent(thread, 20 * us, 10 * us, hostOp);
    const char* details = "regs:32 shm:0 grid:4,1,1 block:256,1,1";
    for (int i = 0; i < 3; ++i) {
        b.addEvent(stream, (10 + 10 * i) * us, (2 + i) * us, gemm);
        b.addEventStat(strStat(b, "kernel_details", details));
        b.addEventStat(strStat(b, "tf_op", "dense/MatMul:MatMul"));
    }
    b.addEvent(stream, 50 * us, 1 * us, relu);
    b.addEventStat(strStat(b, "kernel_details", details));
    b.addEventStat(strStat(b, "tf_op", "relu:Relu"));
    return std::shared_ptr<const Profile>(b.finish());
}

// One kernel in three launch configurations over two ops: (dense, grid 4) 2 and 5 µs,
// (dense, grid 8) 3 µs, (other, grid 4) 1 µs.
std::shared_ptr<const Profile> configurationsFixture() {
    ProfileBuilder b;
    b.setTimeBase(0);
    const uint32_t h = b.addHost("h", "");
    const uint32_t gpu = b.addPlane(h, 2, "/device:GPU:0");
    const uint32_t stream = b.addTrack(gpu, 7, "Stream #7(Compute)");
    const uint32_t gemm = b.addMetadata(gpu, 1, "sgemm", "");
    struct Launch {
        int64_t start, dur;
        const char* grid;
        const char* op;
    };
    const Launch launches[] = {{0, 2, "4,1,1", "dense/MatMul:MatMul"},
                               {10, 5, "4,1,1", "dense/MatMul:MatMul"},
                               {20, 3, "8,1,1", "dense/MatMul:MatMul"},
                               {30, 1, "4,1,1", "other/MatMul:MatMul"}};
    for (const Launch& l : launches) {
        b.addEvent(stream, l.start * us, l.dur * us, gemm);
        const std::string details = std::string("regs:32 shm:0 grid:") + l.grid + " block:256,1,1";
        b.addEventStat(strStat(b, "kernel_details", details.c_str()));
        b.addEventStat(strStat(b, "tf_op", l.op));
    }
    return std::shared_ptr<const Profile>(b.finish());
}

void saveIfAsked(QWidget& w, const char* name) {
    const QByteArray dir = qgetenv("STEPSCOPE_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QVERIFY(w.grab().save(QString::fromUtf8(dir) + "/" + name));
}

// No header label may be cut: it fits its column on the header's lines, wrapped at spaces.
void checkHeadersFit(const DataTableView& v) {
    const QHeaderView* header = v.tableView()->horizontalHeader();
    const QFontMetrics fm(header->font());
    const int lines = (header->height() - 8) / fm.height();
    QVERIFY(lines >= 1 && lines <= 3);
    for (int c = 0; c < header->count(); ++c) {
        const QString label = v.tableView()->model()->headerData(c, Qt::Horizontal).toString();
        const QRect wrapped =
            fm.boundingRect(QRect(0, 0, header->sectionSize(c), 1000), Qt::TextWordWrap, label);
        QVERIFY2(wrapped.width() <= header->sectionSize(c) &&
                     wrapped.height() <= lines * fm.height(),
                 qPrintable(label));
    }
}
} // namespace

class TestTableWidget : public QObject {
    Q_OBJECT
private slots:
    void modelUnderTester() {
        TableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTable(numbersTable());
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.columnCount(), 4);
        QCOMPARE(model.data(model.index(0, 2), Qt::DisplayRole).toString(), QString("10.000"));
        QCOMPARE(model.data(model.index(3, 2), Qt::DisplayRole).toString(), QString());
        QCOMPARE(model.data(model.index(0, 2), TableModel::SortRole).toDouble(), 10.0);
        QCOMPARE(model.headerData(0, Qt::Horizontal, Qt::ToolTipRole).toString(),
                 QString("Kernel name"));
        const auto align =
            model.data(model.index(0, 3), Qt::TextAlignmentRole).value<Qt::Alignment>();
        QVERIFY(align & Qt::AlignRight);
        model.setTable(Table());
        QCOMPARE(model.rowCount(), 0);
    }

    void sortsFiltersAndExports() {
        DataTableView view;
        QAbstractItemModelTester tester(view.tableView()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.setTable(numbersTable());
        QCOMPARE(view.visibleRows(), (std::vector<size_t>{0, 1, 2, 3})); // the table's own order
        // Numbers sort as numbers (9 < 10 < 100), missing values first.
        view.tableView()->sortByColumn(2, Qt::AscendingOrder);
        QCOMPARE(view.visibleRows(), (std::vector<size_t>{3, 1, 0, 2}));
        view.tableView()->sortByColumn(3, Qt::DescendingOrder);
        QCOMPARE(column(view, 3), (std::vector<std::string>{"100", "7", "3", "-2"}));
        // Text sorts case-insensitively.
        view.tableView()->sortByColumn(0, Qt::AscendingOrder);
        QCOMPARE(column(view, 0),
                 (std::vector<std::string>{"alpha_gemm", "beta_relu", "delta", "Gamma_gemm"}));

        // Filter: any text column, case-insensitive.
        view.filterEdit()->setText("GEMM");
        QCOMPARE(view.visibleRows(), (std::vector<size_t>{0, 2}));
        view.filterEdit()->setText("matmul");
        QCOMPARE(view.visibleRows(), (std::vector<size_t>{0, 2}));
        view.filterEdit()->setText("10"); // numbers are not searched
        QVERIFY(view.visibleRows().empty());
        view.filterEdit()->clear();

        // CSV export writes exactly the rows shown, in order.
        view.tableView()->sortByColumn(2, Qt::DescendingOrder);
        view.filterEdit()->setText("a");
        const std::vector<size_t> shown = view.visibleRows();
        QCOMPARE(shown, (std::vector<size_t>{2, 0, 1, 3}));
        const QString path = QDir::temp().filePath("stepscope_test_export.csv");
        QString error;
        QVERIFY(view.exportCsv(path, &error));
        std::ifstream in(path.toStdString(), std::ios::binary);
        std::stringstream got;
        got << in.rdbuf();
        std::ostringstream expected;
        writeCsv(view.table(), expected, shown);
        QCOMPARE(got.str(), expected.str());
        QFile::remove(path);
        QVERIFY(!view.exportCsv("/nonexistent-dir/x.csv", &error));
        QVERIFY(error.contains("nonexistent-dir"));
    }

    void columnFilters() {
        DataTableView view;
        view.addColumnFilter("op", "Op name");
        view.setTable(numbersTable());
        auto* opFilter = view.findChildren<QLineEdit*>().last();
        opFilter->setText("MATMUL");
        QCOMPARE(view.visibleRows(), (std::vector<size_t>{0, 2}));
        view.filterEdit()->setText("gamma");
        QCOMPARE(view.visibleRows(), (std::vector<size_t>{2}));
        // Filters survive a new table.
        view.setTable(numbersTable());
        QCOMPARE(view.visibleRows(), (std::vector<size_t>{2}));
    }

    void copiesSelectionAsTsv() {
        DataTableView view;
        view.setTable(numbersTable());
        QTableView* t = view.tableView();
        t->selectionModel()->select(t->model()->index(0, 0), QItemSelectionModel::Select);
        t->selectionModel()->select(t->model()->index(0, 2), QItemSelectionModel::Select);
        t->selectionModel()->select(t->model()->index(2, 2), QItemSelectionModel::Select);
        QCOMPARE(view.selectionAsTsv(), QString("alpha_gemm\t10\n\t100\n"));
    }

    void pieFoldsTail() {
        PieChart pie;
        PieData data;
        for (int i = 0; i < 12; ++i)
            data.push_back({"slice " + std::to_string(i), double(12 - i), {}});
        pie.setSlices(data, "µs", 8);
        QCOMPARE(pie.sliceCount(), 9); // 8 + "Other"
        pie.setSlices({{"only", 1.0, {}}}, "µs", 8);
        QCOMPARE(pie.sliceCount(), 1);
        pie.setSlices({}, "µs", 8);
        QCOMPARE(pie.sliceCount(), 0);
    }

    void narrowPieLegendsKeepBothEnds() {
        // Op stats give a pie at least 420 px, about 100 px for a legend's label: PyTorch op
        // names all begin "aten::", so a label cut at its end would read "aten::…" on every
        // slice.
        PieChart pie;
        pie.setSlices({{"aten::cudnn_convolution_backward_weight", 3.0, {}},
                       {"aten::cudnn_convolution_backward_input", 1.0, {}}},
                      "µs", 8);
        pie.resize(420, 240);
        pie.show(); // a hidden widget gets its resize event only when shown
        const QString weight = pie.legendText(0), input = pie.legendText(1);
        // (The label is rich text: its two spaces read back as one.)
        QVERIFY2(weight.startsWith("75.0% aten") && weight.endsWith("weight"), qPrintable(weight));
        QVERIFY2(input.startsWith("25.0% aten") && input.endsWith("input"), qPrintable(input));
        QVERIFY(weight.contains(QChar(0x2026)));
        // Wider, more of the name shows (up to 36 characters).
        pie.resize(1000, 240);
        QCOMPARE(pie.legendText(0), QString("75.0% aten::cudnn_convo\u2026on_backward_weight"));
        QVERIFY(pie.legendText(0).size() > weight.size());
        // Legends made distinct by a suffix after " · " keep the suffix when shortened.
        pie.setSlices({{"a", 2.0, "vectorized_elementwise_kernel<…> · …AddFunctor<float>…"},
                       {"b", 1.0, "vectorized_elementwise_kernel<…> · …MulFunctor<float>…"}},
                      "µs", 8);
        QVERIFY2(pie.legendText(0).endsWith("AddFunctor<float>…"), qPrintable(pie.legendText(0)));
        QVERIFY2(pie.legendText(1).endsWith("MulFunctor<float>…"), qPrintable(pie.legendText(1)));
    }

    void kernelStatsGroupBy() {
        auto profile = configurationsFixture();
        const KernelStats full = computeKernelStats(*profile);
        QCOMPARE(full.table.rowCount(), size_t(3)); // XProf's rows
        const KernelStats byKernel = groupKernelStats(full, KernelGrouping::Kernel);
        const Table& k = byKernel.table;
        QCOMPARE(k.rowCount(), size_t(1));
        QCOMPARE(k.columnIndex("Op name"), -1);
        auto num = [](const Table& t, size_t r, const char* c) {
            return t.number(r, size_t(t.columnIndex(c)));
        };
        QCOMPARE(num(k, 0, "Launch configurations"), 3.0);
        QCOMPARE(num(k, 0, "Occurrences"), 4.0);
        QCOMPARE(num(k, 0, "Total duration (µs)"), 11.0);
        QCOMPARE(num(k, 0, "Avg duration (µs)"), 2.75);
        QCOMPARE(num(k, 0, "Min duration (µs)"), 1.0);
        QCOMPARE(num(k, 0, "Max duration (µs)"), 5.0);
        QCOMPARE(profile->start(byKernel.longestInstance[0]), 10 * us);
        QCOMPARE(byKernel.kernelEvents, uint64_t(4));
        const KernelStats byOp = groupKernelStats(full, KernelGrouping::KernelOp);
        const Table& o = byOp.table;
        QCOMPARE(o.rowCount(), size_t(2));
        QCOMPARE(o.text(0, size_t(o.columnIndex("Op name"))), std::string("dense/MatMul"));
        QCOMPARE(num(o, 0, "Launch configurations"), 2.0);
        QCOMPARE(num(o, 0, "Occurrences"), 3.0);
        QCOMPARE(num(o, 0, "Total duration (µs)"), 10.0);
        QCOMPARE(num(o, 0, "Min duration (µs)"), 2.0);
        QCOMPARE(o.text(1, size_t(o.columnIndex("Op name"))), std::string("other/MatMul"));
        QCOMPARE(num(o, 1, "Total duration (µs)"), 1.0);
        QCOMPARE(profile->start(byOp.longestInstance[1]), 30 * us);
        // XProf's grouping is the computed table itself.
        QCOMPARE(groupKernelStats(full, KernelGrouping::KernelOpConfiguration).table.rowCount(),
                 size_t(3));

        // In the view: the choice regroups, and a row still leads to its longest instance.
        KernelStatsView view;
        view.setProfile(profile);
        QTRY_VERIFY(view.isReady());
        QCOMPARE(view.tableView()->table().rowCount(), size_t(3));
        view.setGrouping(KernelGrouping::Kernel);
        QCOMPARE(view.tableView()->table().rowCount(), size_t(1));
        QSignalSpy jump(&view, &ToolView::showEventRequested);
        emit view.tableView()->rowActivated(0);
        QCOMPARE(jump.count(), 1);
        QCOMPARE(profile->duration(jump.at(0).at(0).value<EventIndex>()), 5 * us);
    }

    void legendsTellSlicesApart() {
        PieData ops{{"bert/encoder/layer_0/attention/GatherV2/Cast", 3, "…/GatherV2/Cast"},
                    {"bert/encoder/layer_1/attention/GatherV2/Cast", 2, "…/GatherV2/Cast"},
                    {"bert/embeddings/GatherV2/Cast", 1, "…/GatherV2/Cast"},
                    {"loss/Mean", 1, ""}};
        distinguishLegends(ops, 4);
        QCOMPARE(ops[0].legend, std::string("…/layer_0/…/GatherV2/Cast"));
        QCOMPARE(ops[1].legend, std::string("…/layer_1/…/GatherV2/Cast"));
        QCOMPARE(ops[2].legend, std::string("…/embeddings/GatherV2/Cast"));
        // Replicas part at the first component.
        PieData replicas{{"replica_4/bert/encoder/dropout/random_uniform/RandomUniform", 2, "…"},
                         {"replica_6/bert/encoder/dropout/random_uniform/RandomUniform", 1, "…"}};
        distinguishLegends(replicas, 2);
        QCOMPARE(replicas[0].legend, std::string("replica_4/…/random_uniform/RandomUniform"));
        QCOMPARE(replicas[1].legend, std::string("replica_6/…/random_uniform/RandomUniform"));
        QCOMPARE(ops[3].legend, std::string("")); // already distinct: untouched
        PieData kernels{
            {"void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<scalar_sum_op<float>>, "
             "long>(long)",
             5, "EigenMetaKernel<…>"},
            {"void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<scalar_max_op<half>>, "
             "long>(long)",
             4, "EigenMetaKernel<…>"},
            {"volta_sgemm_128x64_nn", 3, "volta_sgemm_128x64_nn"}};
        distinguishLegends(kernels, 3, 12);
        QCOMPARE(kernels[0].legend, std::string("EigenMetaKernel<…> · …sum_op<float…"));
        QCOMPARE(kernels[1].legend, std::string("EigenMetaKernel<…> · …max_op<half>…"));
        QCOMPARE(kernels[2].legend, std::string("volta_sgemm_128x64_nn"));
        // Only the first `count` are compared: a folded tail does not change the legends shown.
        PieData tail{{"a/x", 1, "x"}, {"b/x", 1, "x"}};
        distinguishLegends(tail, 1);
        QCOMPARE(tail[0].legend, std::string("x"));
    }

    void tfStatsViewOnFixture() {
        TfStatsView view;
        view.resize(1400, 900);
        QSignalSpy ready(&view, &ToolView::ready);
        view.setProfile(gpuFixture());
        QVERIFY(!view.isReady());
        QTRY_VERIFY(view.isReady());
        QVERIFY(ready.count() >= 1);
        const Table& t = view.tableView()->table();
        QCOMPARE(t.rowCount(), size_t(3)); // device MatMul, device Relu, host MatMul
        QCOMPARE(t.text(0, 0), std::string("Device"));
        QCOMPARE(t.text(2, 0), std::string("Host"));
        view.show();
        QCOMPARE(view.visiblePieCount(), 4);
        view.setIncludeIdle(true);
        QCOMPARE(view.tableView()->table().rowCount(), size_t(5)); // + device and host IDLE
        view.setProfile(nullptr);
        QVERIFY(view.isReady());
        QCOMPARE(view.tableView()->table().rowCount(), size_t(0));
    }

    void kernelStatsViewJumpsToLongestInstance() {
        KernelStatsView view;
        view.resize(1400, 900);
        auto profile = gpuFixture();
        view.setProfile(profile);
        QTRY_VERIFY(view.isReady());
        QCOMPARE(view.tableView()->table().rowCount(), size_t(2));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy jump(&view, &ToolView::showEventRequested);
        QTableView* t = view.tableView()->tableView();
        const QRect cell = t->visualRect(t->model()->index(0, 1));
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, cell.center());
        QTest::mouseDClick(t->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(jump.count(), 1);
        const EventIndex e = jump.at(0).at(0).value<EventIndex>();
        QCOMPARE(profile->name(e), std::string_view("volta_h884gemm_64x64"));
        QCOMPARE(profile->duration(e), 4 * us); // the longest of 2, 3 and 4 µs
    }

    void numberColumnsSortLargestFirstOnFirstClick() {
        DataTableView v;
        v.setTable(numbersTable());
        v.resize(800, 300);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QHeaderView* header = v.tableView()->horizontalHeader();
        auto clickHeader = [&](int c) {
            const int x = header->sectionViewportPosition(c) + header->sectionSize(c) / 2;
            QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(x, 5));
        };
        clickHeader(2); // time: 100, 10, 9, then the missing value
        QCOMPARE(column(v, 2), (std::vector<std::string>{"100", "10", "9", ""}));
        clickHeader(2); // again: reversed
        QCOMPARE(column(v, 2), (std::vector<std::string>{"", "9", "10", "100"}));
        clickHeader(3); // count, a new column: largest first again
        QCOMPARE(column(v, 3), (std::vector<std::string>{"100", "7", "3", "-2"}));
        clickHeader(0); // text: A to Z on the first click
        QCOMPARE(column(v, 0),
                 (std::vector<std::string>{"alpha_gemm", "beta_relu", "delta", "Gamma_gemm"}));
    }

    void rowMenuCopiesFiltersAndActs() {
        DataTableView v;
        v.setTable(numbersTable());
        v.setRowActionText("Show longest instance");
        QSignalSpy activated(&v, &DataTableView::rowActivated);
        QAbstractItemModel* m = v.tableView()->model();
        // On a number cell of row 2 (Gamma_gemm): filter falls back to the first text column.
        std::unique_ptr<QMenu> menu(v.rowMenu(m->index(2, 2)));
        QStringList texts;
        for (QAction* a : menu->actions()) texts << a->text();
        QCOMPARE(texts,
                 (QStringList{"Copy", "Filter to kernel “Gamma_gemm”", "Show longest instance"}));
        menu->actions()[0]->trigger();
        QCOMPARE(QApplication::clipboard()->text(),
                 QString("Gamma_gemm\tdense_1/MatMul\t100\t-2\n"));
        menu->actions()[2]->trigger();
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.at(0).at(0).toInt(), 2);
        menu->actions()[1]->trigger();
        QCOMPARE(column(v, 0), (std::vector<std::string>{"Gamma_gemm"}));
        // On a text cell: that column.
        v.filterEdit()->clear();
        menu.reset(v.rowMenu(m->index(1, 1)));
        QCOMPARE(menu->actions()[1]->text(), QString("Filter to op “relu”"));
        menu->actions()[1]->trigger();
        QCOMPARE(column(v, 0), (std::vector<std::string>{"beta_relu"}));
        // Without a row action the menu has none.
        DataTableView plain;
        plain.setTable(numbersTable());
        menu.reset(plain.rowMenu(plain.tableView()->model()->index(0, 0)));
        QCOMPARE(menu->actions().size(), 2);
        menu.reset(); // before its parent goes
    }

    void filterToBeforeTheTableArrives() {
        // "Show in op stats" can reach a view whose analysis is still running.
        DataTableView v;
        v.filterTo("op", "MatMul");
        v.setTable(numbersTable());
        QCOMPARE(column(v, 0), (std::vector<std::string>{"alpha_gemm", "Gamma_gemm"}));
    }

    void columnChooserHidesAndRemembers() {
        QTemporaryDir dir;
        QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
        setViewSettings(&settings);
        {
            DataTableView v;
            v.setExportFileName("numbers.csv");
            v.setTable(numbersTable());
            std::unique_ptr<QMenu> menu(v.columnMenu());
            QCOMPARE(menu->actions()[1]->text(), QString("op"));
            QVERIFY(menu->actions()[1]->isChecked());
            menu->actions()[1]->setChecked(false);
            QVERIFY(v.isColumnHidden("op"));
            QVERIFY(v.tableView()->isColumnHidden(1));
        }
        {
            DataTableView again; // a new session of the same table
            again.setExportFileName("numbers.csv");
            again.setTable(numbersTable());
            QVERIFY(again.tableView()->isColumnHidden(1));
            QVERIFY(!again.tableView()->isColumnHidden(0));
            DataTableView other; // another table keeps all its columns
            other.setExportFileName("other.csv");
            other.setTable(numbersTable());
            QVERIFY(!other.tableView()->isColumnHidden(1));
            // The last shown column cannot be hidden.
            for (const char* c : {"kernel", "time (µs)"}) again.setColumnHidden(c, true);
            std::unique_ptr<QMenu> menu(again.columnMenu());
            QVERIFY(menu->actions()[3]->isChecked()); // count, the only one shown
            QVERIFY(!menu->actions()[3]->isEnabled());
            int enabledChecked = 0;
            for (QAction* a : menu->actions())
                enabledChecked += a->isCheckable() && a->isChecked() && a->isEnabled() ? 1 : 0;
            QCOMPARE(enabledChecked, 0);
        }
        setViewSettings(nullptr);
    }

    void pathsElideToTheirEnds() {
        const QFontMetrics fm(QApplication::font());
        const QString op = "replica_4/bert/encoder/layer_1/GatherV2/Cast";
        auto w = [&](const QString& s) { return fm.horizontalAdvance(s); };
        QCOMPARE(elidePath(op, fm, w(op)), op); // fits: unchanged
        QCOMPARE(elidePath(op, fm, w("replica_4/…/GatherV2/Cast")),
                 QString("replica_4/…/GatherV2/Cast"));
        QCOMPARE(elidePath(op, fm, w("replica_4/…/GatherV2/Cast") - 1),
                 QString("replica_4/…/Cast"));
        QCOMPARE(elidePath(op, fm, w("replica_4/…/layer_1/GatherV2/Cast")),
                 QString("replica_4/…/layer_1/GatherV2/Cast"));
        // The other replica's op still reads differently.
        QCOMPARE(
            elidePath("replica_6/bert/encoder/layer_1/GatherV2/Cast", fm, w("replica_4/…/Cast")),
            QString("replica_6/…/Cast"));
        // Too narrow for the ends, or no path: elided in the middle as before.
        const int narrow = w("replica_4/…/Cast") - 1;
        QCOMPARE(elidePath(op, fm, narrow), fm.elidedText(op, Qt::ElideMiddle, narrow));
        const QString kernel = "void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator>";
        QCOMPARE(elidePath(kernel, fm, 100), fm.elidedText(kernel, Qt::ElideMiddle, 100));
        QCOMPARE(elidePath("a/b", fm, 1), fm.elidedText("a/b", Qt::ElideMiddle, 1));
    }

    void leadingColumnsComeFirstOnScreenOnly() {
        DataTableView v;
        v.setExportFileName("leading.csv");
        v.setLeadingColumns({"time (µs)", "missing", "kernel"});
        v.setTable(numbersTable());
        const QHeaderView* header = v.tableView()->horizontalHeader();
        const Table& t = v.table();
        QCOMPARE(header->visualIndex(t.columnIndex("time (µs)")), 0);
        QCOMPARE(header->visualIndex(t.columnIndex("kernel")), 1);
        QCOMPARE(header->visualIndex(t.columnIndex("op")), 2);
        QCOMPARE(header->visualIndex(t.columnIndex("count")), 3);
        // Kept for the next table; the CSV keeps the table's order.
        v.setTable(numbersTable());
        QCOMPARE(header->visualIndex(t.columnIndex("time (µs)")), 0);
        QTemporaryDir dir;
        QString error;
        QVERIFY2(v.exportCsv(dir.filePath("t.csv"), &error), qPrintable(error));
        QFile csv(dir.filePath("t.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QVERIFY(csv.readLine().startsWith("kernel,"));
    }

    // An export over an earlier one that fails part-way (the disk fills: here the file size
    // limit of a child process is 1 KiB, a way that works as root) keeps the earlier file whole,
    // leaves no temporary file, and the message names the file and the reason.
    void failedExportKeepsTheEarlierFile() {
        Table t = numbersTable();
        for (int i = 0; i < 200; ++i)
            t.addRow({"kernel_" + std::to_string(i), std::string("op"), double(i), int64_t(i)});
        DataTableView v;
        v.setTable(t);
        QTemporaryDir dir;
        const QString path = dir.filePath("t.csv");
        QString error;
        QVERIFY2(v.exportCsv(path, &error), qPrintable(error));
        QFile csv(path);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QByteArray earlier = csv.readAll();
        csv.close();
        QVERIFY(earlier.size() > 4096);

        v.filterEdit()->setText("kernel_1"); // another export, over the first
        const std::string failure = testing::runWithFileSizeLimit(1024, [&] {
            QString why;
            return v.exportCsv(path, &why) ? std::string("written") : why.toStdString();
        });
        QCOMPARE(QString::fromStdString(failure),
                 QString("Cannot write %1: %2").arg(path, std::strerror(EFBIG)));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(csv.readAll(), earlier);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"t.csv"});
    }

    void numbersStayInViewWhenNamesAreLong() {
        // Kernel names of 300 characters at 1280x720 with the side panel: every number column
        // lies inside the viewport; the names give up width, elided.
        Table t;
        t.addColumn("Kernel name", Table::Type::Text);
        t.addColumn("Op name", Table::Type::Text);
        t.addColumn("#Occurrences", Table::Type::Int);
        t.addColumn("Total duration (µs)", Table::Type::Double, ColumnFormat::Microseconds);
        t.addColumn("Average duration (µs)", Table::Type::Double, ColumnFormat::Microseconds);
        for (int i = 0; i < 20; ++i)
            t.addRow({"void Eigen::internal::EigenMetaKernel<" + std::string(260, 'x') +
                          std::to_string(i) + ">",
                      "model/bert/encoder/layer_" + std::to_string(i) + "/" + std::string(120, 'y'),
                      int64_t(i), 1000.5 * i, 10.25 * i});
        DataTableView v;
        v.resize(1280 - 260 - 16, 500);
        v.setTable(t);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QTableView* view = v.tableView();
        const int width = view->viewport()->width();
        for (int c = 2; c < 5; ++c)
            QVERIFY2(view->columnViewportPosition(c) + view->columnWidth(c) <= width,
                     qPrintable(QString::number(c)));
        QVERIFY(view->columnWidth(0) >= v.fontMetrics().horizontalAdvance('x') * 16);
        // A wider window gives the names their width back.
        v.resize(2400, 500);
        QTRY_VERIFY(view->columnWidth(0) > 300);
    }

    void opStatsDoubleClickShowsLongestInstance() {
        TfStatsView view;
        view.resize(1400, 900);
        auto profile = gpuFixture();
        view.setProfile(profile);
        QTRY_VERIFY(view.isReady());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy jump(&view, &ToolView::showEventRequested);
        QTableView* t = view.tableView()->tableView();
        auto doubleClick = [&](int row) {
            const QRect cell = t->visualRect(t->model()->index(row, 2));
            QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, cell.center());
            QTest::mouseDClick(t->viewport(), Qt::LeftButton, {}, cell.center());
        };
        doubleClick(0); // device dense/MatMul: its kernels of 2, 3 and 4 µs
        QCOMPARE(jump.count(), 1);
        EventIndex e = jump.at(0).at(0).value<EventIndex>();
        QCOMPARE(profile->name(e), std::string_view("volta_h884gemm_64x64"));
        QCOMPARE(profile->start(e), 30 * us);
        QCOMPARE(profile->duration(e), 4 * us);
        doubleClick(2); // host dense/MatMul: two of 10 µs, the first is shown
        QCOMPARE(jump.count(), 2);
        e = jump.at(1).at(0).value<EventIndex>();
        QCOMPARE(profile->name(e), std::string_view("dense/MatMul:MatMul"));
        QCOMPARE(profile->start(e), int64_t(0));
        // IDLE has no instance.
        view.setIncludeIdle(true);
        const Table& table = view.tableView()->table();
        for (int r = 0; r < int(table.rowCount()); ++r)
            if (table.text(size_t(r), 2) == "IDLE") emit view.tableView()->rowActivated(r);
        QCOMPARE(jump.count(), 2);
    }

    void showNameFiltersTheTables() {
        TfStatsView ops;
        ops.setProfile(gpuFixture());
        QVERIFY(ops.showName("relu"));
        QTRY_VERIFY(ops.isReady());
        const DataTableView& t = *ops.tableView();
        QCOMPARE(t.visibleRows().size(), size_t(1));
        QCOMPARE(t.table().text(t.visibleRows()[0], 2), std::string("relu"));
        KernelStatsView kernels;
        kernels.setProfile(gpuFixture());
        QTRY_VERIFY(kernels.isReady());
        QVERIFY(kernels.showName("volta_h884gemm_64x64"));
        QCOMPARE(kernels.tableView()->visibleRows().size(), size_t(1));
    }

    void narrowOpStatsStacksPies() {
        TfStatsView view;
        view.setProfile(gpuFixture());
        QTRY_VERIFY(view.isReady());
        view.resize(1600, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(!view.piesInTabs());
        QVERIFY2(view.minimumSizeHint().width() <= 1024 - 260,
                 qPrintable(QString::number(view.minimumSizeHint().width())));
        // Too narrow for four pies of 300 px: one at a time, in tabs, inside the window.
        view.resize(1000, 600);
        QTRY_VERIFY(view.piesInTabs());
        QCOMPARE(view.visiblePieCount(), 4);
        auto* tabs = view.findChild<QTabWidget*>();
        QCOMPARE(tabs->count(), 4);
        QCOMPARE(tabs->tabText(1), QString("Device self-time by op type"));
        QVERIFY(tabs->geometry().right() <= view.width());
        view.resize(1800, 900);
        QTRY_VERIFY(!view.piesInTabs());
        for (PieChart* pie : view.findChildren<PieChart*>()) QVERIFY(pie->isVisible());
        auto pieTops = [&] {
            std::set<int> tops;
            for (PieChart* pie : view.findChildren<PieChart*>())
                tops.insert(pie->mapTo(&view, QPoint(0, 0)).y());
            return tops.size();
        };
        QTRY_COMPARE(pieTops(), size_t(1)); // 4 x 450 px: one row
        // Too narrow for four pies of 420 px but tall enough: two rows of two.
        view.resize(1400, 900);
        QTRY_COMPARE(pieTops(), size_t(2));
        QVERIFY(!view.piesInTabs());
        for (PieChart* pie : view.findChildren<PieChart*>()) QVERIFY(pie->width() >= 420);
    }

    void realProfileViews() {
        if (!std::filesystem::exists(kBert)) QSKIP("../shared/realdata not found");
        const LoadResult r = loadPath(kBert);
        QVERIFY2(r.ok(), r.error.c_str());
        TfStatsView ops;
        ops.resize(1600, 1000);
        ops.setProfile(r.profile);
        ops.show();
        QTRY_VERIFY(ops.isReady());
        QCOMPARE(ops.visiblePieCount(), 4);
        QVERIFY(ops.tableView()->table().rowCount() > 1000);
        checkHeadersFit(*ops.tableView());
        saveIfAsked(ops, "tf_stats.png");

        {
            // In a 1010 px view (1280 px window with the side panel) the names share what the
            // counts and times leave them; the launch geometry scrolls. (Before: a delegate's
            // elided text made the op name's size hint 7 px.)
            KernelStatsView k;
            k.resize(1010, 700);
            k.setProfile(r.profile);
            k.show();
            QTRY_VERIFY(k.isReady());
            QTableView* tv = k.tableView()->tableView();
            const Table& t = k.tableView()->table();
            const int name = t.columnIndex("Kernel name"), op = t.columnIndex("Op name"),
                      max = t.columnIndex("Max duration (µs)");
            QTRY_COMPARE(tv->columnWidth(op), tv->columnWidth(name));
            QVERIFY2(tv->columnWidth(op) > k.fontMetrics().horizontalAdvance('x') * 24,
                     qPrintable(QString::number(tv->columnWidth(op))));
            QVERIFY(tv->columnViewportPosition(max) + tv->columnWidth(max) <=
                    tv->viewport()->width());
        }
        KernelStatsView kernels;
        kernels.resize(1600, 1000);
        kernels.setProfile(r.profile);
        kernels.show();
        QTRY_VERIFY(kernels.isReady());
        QCOMPARE(kernels.tableView()->table().rowCount(), size_t(1330));
        QVERIFY(kernels.pie()->sliceCount() > 1);
        checkHeadersFit(*kernels.tableView());
        saveIfAsked(kernels, "kernel_stats.png");
    }
};

QTEST_MAIN(TestTableWidget)
#include "test_table_widget.moc"
