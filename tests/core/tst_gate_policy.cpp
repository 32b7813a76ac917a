// The timer's answer to a batch gate that gave up (rerun/gate_policy.h): a
// call that waits on the GPU stops gating, a full launch queue shrinks the
// batch to the trials that fitted, a slow host halves it; batches never end
// past the full batches' ends, where checked trials' outputs are set aside.
#include <QtTest>

#include <algorithm>

#include "rerun/gate_policy.h"
#include "rerun/trial_plan.h"

using namespace kwb;

class TestGatePolicy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void decisions_data()
    {
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("blockedAt");
        QTest::addColumn<bool>("keep");
        QTest::addColumn<int>("next");
        QTest::addRow("the first call waits on the GPU") << 10 << 0 << false << 1;
        QTest::addRow("SqueezeNet: 104 launches a call, the 10th blocks") << 10 << 9 << true << 9;
        QTest::addRow("DenseNet201: 829 a call, the 2nd blocks") << 10 << 1 << true << 1;
        QTest::addRow("a slow host, nothing blocked") << 10 << -1 << true << 5;
        QTest::addRow("a slow host, one trial") << 1 << -1 << false << 1;
        QTest::addRow("one trial that waits") << 1 << 0 << false << 1;
    }
    void decisions()
    {
        QFETCH(int, batch);
        QFETCH(int, blockedAt);
        QFETCH(bool, keep);
        QFETCH(int, next);
        const GateDecision d = afterGateGaveUp(batch, blockedAt);
        QCOMPARE(d.keepGating, keep);
        if (keep) QCOMPARE(d.nextBatch, next);
    }

    void batchesStayAligned()
    {
        QCOMPARE(batchLastTrial(0, 10, 100, 10), 9);
        QCOMPARE(batchLastTrial(10, 9, 100, 10), 18);
        QCOMPARE(batchLastTrial(19, 9, 100, 10), 19);
        QCOMPARE(batchLastTrial(15, 2, 100, 10), 16);
        QCOMPARE(batchLastTrial(20, 9, 25, 10), 24);
        QCOMPARE(batchLastTrial(0, 10, 3, 10), 2);
        // Whatever the batch sizes, every trial checkedTrials sets aside is a batch end.
        for (int size : {10, 9, 7, 5, 3, 2, 1}) {
            std::vector<int> ends;
            for (int start = 0; start < 100;) {
                const int last = batchLastTrial(start, size, 100, 10);
                QVERIFY(last >= start);
                ends.push_back(last);
                start = last + 1;
            }
            for (int t : checkedTrials(100, 10, 100))
                QVERIFY2(std::find(ends.begin(), ends.end(), t) != ends.end(), qPrintable(QString::number(t)));
        }
    }
};

QTEST_MAIN(TestGatePolicy)
#include "tst_gate_policy.moc"
