// SubagentMerger puts sub-agent events among the main thread's by time, following the rules in
// its header: before the first main event later than them, on equal times first, without a
// time at the time before them in their own file, never before their call, always before their
// call's result; held events go out in time order when flushed; more events of a sub-agent can
// come in a later look. Each row is a script of steps and the order the rules give:
//   "+A A1@150 A2"   more events of the sub-agent run by call A (A2 has no time)
//   "M call:A@100 M2@200 result:A@300"   the main thread's next events (call:X is an Agent call
//                    with id X, result:X its result, anything else a text)
//   "F"              flush

#include "streamjson/subagentmerger.h"

#include <QtTest/QTest>

using namespace sandscope;

namespace {

RunEvent eventFrom(const QString &token, const QString &lane)
{
    RunEvent event;
    const qsizetype at = token.indexOf(QLatin1Char('@'));
    const QString label = at < 0 ? token : token.left(at);
    event.arrivalMs = at < 0 ? 0 : token.mid(at + 1).toLongLong();
    event.parentToolUseId = lane;
    if (label.startsWith(QLatin1String("call:"))) {
        event.kind = RunEvent::ToolUse;
        event.toolName = QStringLiteral("Agent");
        event.toolUseId = label.mid(5);
    } else if (label.startsWith(QLatin1String("result:"))) {
        event.kind = RunEvent::ToolResult;
        event.toolUseId = label.mid(7);
    } else {
        event.kind = RunEvent::AssistantText;
        event.text = label;
    }
    return event;
}

QString labelOf(const RunEvent &event)
{
    if (event.kind == RunEvent::ToolUse)
        return QStringLiteral("call:") + event.toolUseId;
    if (event.kind == RunEvent::ToolResult)
        return QStringLiteral("result:") + event.toolUseId;
    return event.text;
}

void addRow(const char *name, std::initializer_list<const char *> steps, const char *expected)
{
    QStringList list;
    for (const char *step : steps)
        list.append(QString::fromUtf8(step));
    QTest::newRow(name) << list << QString::fromUtf8(expected);
}

} // namespace

class SubagentMergerTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void eventsGoOutInTheOrderTheyHappened_data()
    {
        QTest::addColumn<QStringList>("steps");
        QTest::addColumn<QString>("expected");
        addRow("before the first later main event",
            {"+A A1@150 A2@250", "M call:A@100 M2@200 M3@300 result:A@400", "F"},
            "call:A A1 M2 A2 M3 result:A");
        addRow("an event without a time stays after the one before it",
            {"+A A1@150 A2 A3@250", "M call:A@100 M2@200 M3@300", "F"}, "call:A A1 A2 M2 A3 M3");
        addRow("equal times: the sub-agent first", {"+A A1@200", "M call:A@100 M2@200", "F"},
            "call:A A1 M2");
        addRow("a result waits for its sub-agent",
            {"+A A1@150 A2@500", "M call:A@100 result:A@300 M3@600", "F"},
            "call:A A1 A2 result:A M3");
        addRow("two sub-agents side by side",
            {"+A A1@150 A2@300", "+B B1@210 B2@260",
                "M call:A@100 call:B@200 result:A@400 result:B@410", "F"},
            "call:A A1 call:B B1 B2 A2 result:A result:B");
        addRow("never before its call", {"+A A1@50", "M M1@60 call:A@100 M2@200", "F"},
            "M1 call:A A1 M2");
        addRow("flushed in time order, with or without a call",
            {"+A A1@150", "+X X1@120", "M call:A@100", "F"}, "call:A X1 A1");
        addRow("more of a sub-agent in a later look",
            {"M call:A@100", "+A A1@150", "M M2@200", "+A A2@250", "F"}, "call:A A1 M2 A2");
        addRow("held across batches until the main thread gets past",
            {"+A A1@150 A2@250", "M call:A@100", "M M2@200", "M M3@300", "F"},
            "call:A A1 M2 A2 M3");
        addRow("main events without sub-agents pass unchanged", {"M M1@300 M2@100 M3", "F"},
            "M1 M2 M3");
    }

    void eventsGoOutInTheOrderTheyHappened()
    {
        QFETCH(QStringList, steps);
        QFETCH(QString, expected);
        SubagentMerger merger;
        QStringList order;
        int given = 0;
        for (const QString &step : std::as_const(steps)) {
            QStringList tokens = step.split(QLatin1Char(' '), Qt::SkipEmptyParts);
            const QString what = tokens.takeFirst();
            RunEventBatch events;
            if (what == QLatin1String("F")) {
                events = merger.flush();
                QVERIFY(!merger.isHolding());
            } else if (what.startsWith(QLatin1Char('+'))) {
                RunEventBatch lane;
                for (const QString &token : std::as_const(tokens))
                    lane.append(eventFrom(token, what.mid(1)));
                given += int(lane.size());
                merger.addSubagentEvents(what.mid(1), lane);
            } else {
                RunEventBatch main;
                for (const QString &token : std::as_const(tokens))
                    main.append(eventFrom(token, QString()));
                given += int(main.size());
                events = merger.merge(main);
            }
            for (const RunEvent &event : std::as_const(events))
                order.append(labelOf(event));
        }
        QCOMPARE(order.join(QLatin1Char(' ')), expected);
        QCOMPARE(order.size(), given); // nothing lost, nothing twice
    }
};

QTEST_GUILESS_MAIN(SubagentMergerTest)
#include "tst_subagentmerger.moc"
