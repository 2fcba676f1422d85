#pragma once
// Everything a RunController reported, for the suites that drive live runs without a window.

#include "runs/runcontroller.h"

#include <QList>
#include <QStringList>
#include <QtTest/QTest>

#include <algorithm>

namespace sandscope::test {

struct ControllerWatch {
    static constexpr int runTimeoutMs = 240000;

    QList<QByteArray> lines;
    QStringList notices;
    RunEventBatch events;
    QList<RunOutcome> outcomes;
    QStringList sessions;
    int started = 0;

    explicit ControllerWatch(RunController *controller)
    {
        QObject::connect(controller, &RunController::lineReady, controller,
            [this](const QByteArray &line) { lines.append(line); });
        QObject::connect(controller, &RunController::notice, controller,
            [this](const QString &text) { notices.append(text); });
        QObject::connect(controller, &RunController::eventsReady, controller,
            [this](const RunEventBatch &batch) { events += batch; });
        QObject::connect(controller, &RunController::turnEnded, controller,
            [this](const RunOutcome &outcome) { outcomes.append(outcome); });
        QObject::connect(controller, &RunController::sessionKnown, controller,
            [this](const QString &id) { sessions.append(id); });
        QObject::connect(
            controller, &RunController::turnStarted, controller, [this] { ++started; });
    }
    bool waitForTurns(int count) const
    {
        return QTest::qWaitFor([&] { return outcomes.size() >= count; }, runTimeoutMs);
    }
    // A line containing `needle` arrived (or the turn ended without one).
    bool waitForLine(const char *needle) const
    {
        return QTest::qWaitFor(
            [&] {
                return !outcomes.isEmpty()
                    || std::any_of(lines.cbegin(), lines.cend(),
                        [needle](const QByteArray &line) { return line.contains(needle); });
            },
            runTimeoutMs);
    }
    bool hasBashCall() const
    {
        return std::any_of(events.cbegin(), events.cend(), [](const RunEvent &event) {
            return event.kind == RunEvent::ToolUse && event.toolName == QLatin1String("Bash");
        });
    }
    QString said() const { return notices.join(QLatin1Char('\n')); }
};

} // namespace sandscope::test
