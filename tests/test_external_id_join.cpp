// The launch-to-op join by External id (model/pytorch/ExternalIdJoin.h), which the Kineto
// importer and the PyTorch tab share, on spans laid out by hand.
#include <QtTest>

#include <vector>

#include "model/pytorch/ExternalIdJoin.h"

using namespace stepscope;

class TestExternalIdJoin : public QObject {
    Q_OBJECT

private slots:
    void joinsTheFirstEnclosingOpWithTheLaunchsId() {
        const std::vector<IdSpan> ops = {
            {5, 10, 20}, // 0
            {5, 30, 40}, // 1
            {7, 0, 100}, // 2
            {5, 30, 50}, // 3: encloses [35, 36] too, but comes after op 1
        };
        const std::vector<IdSpan> launches = {
            {5, 12, 13}, // in op 0
            {5, 35, 36}, // ops 1 and 3 hold it: the first in the order given, 1
            {5, 45, 46}, // only op 3 holds it
            {7, 50, 60}, // op 2
            {9, 1, 2},   // no op has id 9
            {5, 19, 25}, // id 5, but no op of id 5 encloses it (op 0 ends at 20)
            {5, 10, 20}, // the same span as op 0: enclosed
        };
        const std::vector<uint32_t> expected = {0, 1, 3, 2, kNoJoinedOp, kNoJoinedOp, 0};
        QCOMPARE(joinByExternalId(ops, launches), expected);
    }

    void anOpOfAnotherIdNeverTakesALaunch() {
        // Op 0 encloses the launch in time, but has another id: the launch stays unjoined.
        const std::vector<IdSpan> ops = {{1, 0, 100}};
        const std::vector<IdSpan> launches = {{2, 10, 20}};
        QCOMPARE(joinByExternalId(ops, launches), std::vector<uint32_t>{kNoJoinedOp});
        QVERIFY(joinByExternalId({}, {}).empty());
    }
};

QTEST_GUILESS_MAIN(TestExternalIdJoin)
#include "test_external_id_join.moc"
