// RunOutcome::classify: the one decision of how a live turn ended, which the command line turns
// into its exit code and the run page into its notice.

#include "streamjson/runoutcome.h"

#include <QtTest/QTest>

using sandscope::RunOutcome;
using Kind = RunOutcome::Kind;

Q_DECLARE_METATYPE(RunOutcome::Kind)

class TestRunOutcome : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void classifiesTheTurnsEnd_data()
    {
        QTest::addColumn<bool>("transportFailed");
        QTest::addColumn<bool>("stopRequested");
        QTest::addColumn<bool>("hasResult");
        QTest::addColumn<bool>("isError");
        QTest::addColumn<Kind>("kind");
        QTest::newRow("successful result") << false << false << true << false << Kind::Ok;
        QTest::newRow("error result") << false << false << true << true << Kind::ErrorResult;
        QTest::newRow("no result") << false << false << false << false << Kind::NoResult;
        QTest::newRow("stopped before a result")
            << false << true << false << false << Kind::Stopped;
        QTest::newRow("a result that beat the stop counts")
            << false << true << true << false << Kind::Ok;
        QTest::newRow("an error result that beat the stop counts")
            << false << true << true << true << Kind::ErrorResult;
        QTest::newRow("transport failure outranks everything")
            << true << true << true << false << Kind::TransportFailed;
        QTest::newRow("transport failure without a result")
            << true << false << false << false << Kind::TransportFailed;
    }

    void classifiesTheTurnsEnd()
    {
        QFETCH(bool, transportFailed);
        QFETCH(bool, stopRequested);
        QFETCH(bool, hasResult);
        QFETCH(bool, isError);
        QFETCH(Kind, kind);
        QCOMPARE(RunOutcome::kindName(
                     RunOutcome::classify(transportFailed, stopRequested, hasResult, isError)),
            RunOutcome::kindName(kind));
    }

    void onlyOkIsOk()
    {
        for (const Kind kind :
            {Kind::Ok, Kind::ErrorResult, Kind::NoResult, Kind::Stopped, Kind::TransportFailed}) {
            RunOutcome outcome;
            outcome.kind = kind;
            QCOMPARE(outcome.ok(), kind == Kind::Ok);
            QVERIFY(!RunOutcome::kindName(kind).isEmpty());
        }
    }
};

QTEST_GUILESS_MAIN(TestRunOutcome)
#include "tst_runoutcome.moc"
