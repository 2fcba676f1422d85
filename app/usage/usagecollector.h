#pragma once
// Collects usage over time from the server, asynchronously: the usage script as one user
// (or as root for every home, through the admin channel), its facts added up in slices on
// the event loop so a large listing never blocks the window. Cancellable at any point;
// exactly one of finished/failed/cancelled is emitted per start. On a fleet (FleetFanOut)
// every member is read at once and each member's facts are added up as its script prints
// them, by an aggregator of its own (its rows named by the member); partialReport shows the
// figures so far at most every partialMs, finished carries the members that answered in full,
// memberFinished says how each ended, and only when no member answered is it failed.

#include "server/adminaccess.h"
#include "server/connection.h"
#include "usage/usageaggregator.h"
#include "usage/usagereport.h"

#include <QDate>
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTimer>
#include <QVector>

#include <memory>
#include <utility>
#include <vector>

namespace sandscope {

class FleetFanOut;
class OpenTerminalClient;
struct FanOutMemberResult;

class UsageCollector : public QObject {
    Q_OBJECT

public:
    explicit UsageCollector(QObject *parent = nullptr);
    ~UsageCollector() override;

    void collect(OpenTerminalClient *client, const Identity &identity, const QDate &since = {});
    void collectAllUsers(OpenTerminalClient *client, const AdminAccess &admin,
        const QDate &since = {}, const QString &homesRoot = QStringLiteral("/home"));
    // Every home of every target of `fanOut` (not owned; cancelled with the collection).
    void collectAllUsers(FleetFanOut *fanOut, const QDate &since = {},
        const QString &homesRoot = QStringLiteral("/home"));
    void cancel();
    bool isRunning() const { return m_running; }
    static constexpr int partialMs = 300;

Q_SIGNALS:
    // done/total of the lines added up; total 0 while the server is still reading.
    void progress(qint64 done, qint64 total, const QString &phase);
    void finished(const sandscope::UsageReport &report);
    void failed(const QString &error);
    void cancelled();
    // A fleet: one member's part ended (failed, or its facts queued for adding up).
    void memberFinished(const sandscope::FanOutMemberResult &result);
    // A fleet: the report of the members added up so far, after each member's facts.
    void partialReport(const sandscope::UsageReport &report);
    // A fleet: what was left out, one message per member (failed, or an answer without its
    // home line); complete once finished is emitted.
public:
    const QStringList &memberErrors() const { return m_memberErrors; }
Q_SIGNALS:

private:
    void start();
    void onOutput(bool ok, const QString &output, const QString &error);
    void addSlice();
    void finish();

    QObject *m_call = nullptr; // the running command's context: deleting it drops the answer
    bool m_running = false;
    QString m_user; // empty for every home
    QDate m_since;
    struct MemberFacts;
    void addMemberSlice();
    void scheduleMemberSlice();
    UsageReport membersReport(bool answeredOnly) const;

    QPointer<FleetFanOut> m_fanOut;
    std::vector<std::unique_ptr<MemberFacts>> m_members; // fleet: per member, in fan-out order
    int m_membersWaiting = 0;
    bool m_sliceScheduled = false;
    bool m_partialDue = false;
    QElapsedTimer m_sincePartial;
    QTimer m_partialTimer; // a partial report due while no line comes
    QStringList m_memberErrors;
    QStringList m_lines;
    qsizetype m_next = 0;
    bool m_sawHome = false;
    UsageAggregator m_aggregator;
};

} // namespace sandscope
