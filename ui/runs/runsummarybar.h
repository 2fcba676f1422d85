#pragma once
// The run in one line under the tree: outcome, turns, round trips, tool calls, tokens, cost
// and duration (RunSummary, in runfacts' words), plus the session.

#include "runtree/runmodel.h"
#include "streamjson/runsummary.h"

#include <QFrame>

class QLabel;

namespace sandscope {

class RunSummaryBar : public QFrame {
    Q_OBJECT

public:
    explicit RunSummaryBar(QWidget *parent = nullptr);

    // runStatus is the run node's status (running while the run has not ended).
    void setSummary(const RunSummary &summary, bool runEnded);
    void clear();

    QString outcomeText() const;
    // Everything shown, as plain text (tests, accessibility).
    QString text() const;

private:
    QLabel *addField(const QString &name, const QString &toolTip);
    void setOutcome(const QString &text, RunModel::Status status);

    QLabel *m_outcome;
    QLabel *m_turns;
    QLabel *m_roundTrips;
    QLabel *m_tools;
    QLabel *m_tokens;
    QLabel *m_cache;
    QLabel *m_errors;
    QLabel *m_cost;
    QLabel *m_duration;
    QLabel *m_session;
};

} // namespace sandscope
