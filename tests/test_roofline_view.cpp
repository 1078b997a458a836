// The "Op profile" and "Roofline model" pages on the fixture host of tests/fixtures/
// RooflineFixtures.h: they fill in off the UI thread, the op profile's item model passes
// QAbstractItemModelTester, a table row and its chart point select each other, double-clicks ask
// for the op's longest event, and a profile without GPU ops shows empty pages, never a crash.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QSettings>
#include <QTableView>
#include <QTreeView>
#include <QtTest>

#include "model/ProfileLoader.h"
#include "model/synthetic/SyntheticProfile.h"
#include "tests/fixtures/RooflineFixtures.h"
#include "views/op_profile/OpProfileModel.h"
#include "views/op_profile/OpProfileView.h"
#include "views/roofline/RooflineChart.h"
#include "views/roofline/RooflineView.h"
#include "widgets/DataTableView.h"

using namespace stepscope;
using namespace stepscope::fixtures;

namespace {

std::shared_ptr<const Profile> fixtureProfile() {
    const LoadResult r = loadXSpaceBytes(rooflineStepSpace().encode(), "fixture-host");
    if (!r.ok()) qFatal("fixture does not load: %s", r.error.c_str());
    return r.profile;
}

// The source row of the table whose Operation is `op` (the first).
int rowOf(const Table& t, const std::string& op) {
    const int column = t.columnIndex("Operation");
    for (size_t row = 0; row < t.rowCount(); ++row)
        if (t.text(row, size_t(column)) == op) return int(row);
    return -1;
}

} // namespace

class TestRooflineView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("stepscope-test");
        QSettings().clear();
    }

    void opProfileTree() {
        OpProfileView view;
        QAbstractItemModelTester tester(view.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto profile = fixtureProfile();
        view.setProfile(profile);
        QTRY_VERIFY(view.isReady());
        QAbstractItemModel* m = view.treeView()->model();
        // Programs by time: jit_step(5) (21 us), then the copy no op claims (2 us).
        QCOMPARE(m->rowCount(), 2);
        QCOMPARE(m->index(0, OpProfileModel::Name).data().toString(), QString("jit_step(5)"));
        QCOMPARE(m->index(0, OpProfileModel::Time).data().toString(), QString("21.000"));
        QCOMPARE(m->index(1, OpProfileModel::Name).data().toString(), QString("Not attributed"));
        const QModelIndex gemmCategory = m->index(0, 0, m->index(0, 0));
        QCOMPARE(gemmCategory.data().toString(), QString("GEMM (cuBLAS)"));
        const QModelIndex gemm = m->index(0, 0, gemmCategory);
        QCOMPARE(gemm.data().toString(), QString("custom-call.0"));
        const auto cell = [&](const QModelIndex& row, int column) {
            return m->index(row.row(), column, row.parent()).data().toString();
        };
        QCOMPARE(cell(gemm, OpProfileModel::Flops), QString("4.29 G"));
        QCOMPARE(cell(gemm, OpProfileModel::Bound), QString("Compute"));
        // The copy's FLOPs are unknown: empty, not 0.
        QCOMPARE(m->index(1, OpProfileModel::Flops).data().toString(), QString());

        // Double-clicking the GEMM asks for its longest event: the first 5 us nvjet kernel.
        QSignalSpy show(&view, &ToolView::showEventRequested);
        emit view.treeView()->doubleClicked(gemm);
        QCOMPARE(show.count(), 1);
        const auto e = show.at(0).at(0).value<EventIndex>();
        QCOMPARE(profile->name(e), std::string_view("nvjet_sm90_tst_128x256_64x4_2x1_v_bz_TNT"));
        QCOMPARE(profile->duration(e), int64_t(5000000));

        view.setGrouping(OpProfileGrouping::ByFrameworkOp);
        QStringList top;
        for (int row = 0; row < m->rowCount(); ++row) top << m->index(row, 0).data().toString();
        QCOMPARE(top, (QStringList{"jit(step)", "(no framework op)"})); // 12 us, 11 us
        // One step: step 2 has no convert fusion.
        auto* step = view.findChild<QComboBox*>("opProfileStep");
        QCOMPARE(step->count(), 3); // all steps, step 1, step 2
        step->setCurrentIndex(2);
        QCOMPARE(m->index(0, OpProfileModel::Time).data().toString(), QString("6.000"));

        view.setProfile(nullptr);
        QTRY_VERIFY(view.isReady());
        QCOMPARE(m->rowCount(), 0);
    }

    void rooflineTableAndChartSelectEachOther() {
        RooflineView view;
        view.resize(1200, 800);
        view.show();
        const auto profile = fixtureProfile();
        view.setProfile(profile);
        QTRY_VERIFY(view.isReady());
        const Table& table = view.tableView()->table();
        QCOMPARE(table.rowCount(), size_t(6));
        // Points: the ops with FLOPs and bytes (GEMM, two fusions; not the copy, not the
        // program rows); roofs: bf16 on Tensor Cores (the GEMM) and on vector units (fusions).
        QCOMPARE(view.chart()->pointCount(), size_t(3));
        QCOMPARE(view.chart()->roofCount(), size_t(2));

        const int gemmRow = rowOf(table, "custom-call.0");
        QVERIFY(gemmRow >= 0);
        // Selecting the row rings its point ...
        QTableView* tv = view.tableView()->tableView();
        const std::vector<size_t> visible = view.tableView()->visibleRows();
        const auto at = std::find(visible.begin(), visible.end(), size_t(gemmRow));
        tv->setCurrentIndex(tv->model()->index(int(at - visible.begin()), 0));
        QCOMPARE(view.chart()->selected(), gemmRow);
        // ... and clicking a point selects its row.
        const int addRow = rowOf(table, "loop_add_fusion");
        emit view.chart()->pointClicked(addRow);
        QCOMPARE(visible[size_t(tv->currentIndex().row())], size_t(addRow));

        // Double-clicking a point asks for the op's longest event.
        QSignalSpy show(&view, &ToolView::showEventRequested);
        emit view.chart()->pointActivated(gemmRow);
        QCOMPARE(show.count(), 1);
        QCOMPARE(profile->duration(show.at(0).at(0).value<EventIndex>()), int64_t(5000000));

        // Step 1: the convert fusion ran, the copy did not.
        view.setStep(0);
        QVERIFY(rowOf(view.tableView()->table(), "loop_convert_fusion") >= 0);
        QCOMPARE(rowOf(view.tableView()->table(), "MemcpyH2D"), -1);
    }

    void profilesWithoutGpuOps() {
        RooflineView roofline;
        OpProfileView ops;
        SyntheticOptions o;
        o.events = 2000;
        const LoadResult loaded =
            loadXSpaceBytes(generateSyntheticXSpace(o, "synthetic"), "synthetic");
        QVERIFY(loaded.ok());
        const std::shared_ptr<const Profile> synthetic = loaded.profile;
        for (ToolView* v : std::initializer_list<ToolView*>{&roofline, &ops}) {
            v->setProfile(synthetic);
            QTRY_VERIFY(v->isReady());
        }
        QCOMPARE(roofline.chart()->pointCount(), size_t(0));
    }
};

QTEST_MAIN(TestRooflineView)
#include "test_roofline_view.moc"
