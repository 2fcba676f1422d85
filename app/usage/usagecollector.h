#pragma once
// Collects usage over time from the server, asynchronously: the usage script as one user
// (or as root for every home, through the admin channel), its facts added up in slices on
// the event loop so a large listing never blocks the window. Cancellable at any point;
// exactly one of finished/failed/cancelled is emitted per start.

#include "server/adminaccess.h"
#include "server/connection.h"
#include "usage/usageaggregator.h"
#include "usage/usagereport.h"

#include <QDate>
#include <QObject>
#include <QStringList>

namespace sandscope {

class OpenTerminalClient;

class UsageCollector : public QObject {
    Q_OBJECT

public:
    explicit UsageCollector(QObject *parent = nullptr);
    ~UsageCollector() override;

    void collect(OpenTerminalClient *client, const Identity &identity, const QDate &since = {});
    void collectAllUsers(OpenTerminalClient *client, const AdminAccess &admin,
        const QDate &since = {}, const QString &homesRoot = QStringLiteral("/home"));
    void cancel();
    bool isRunning() const { return m_running; }

Q_SIGNALS:
    // done/total of the lines added up; total 0 while the server is still reading.
    void progress(qint64 done, qint64 total, const QString &phase);
    void finished(const sandscope::UsageReport &report);
    void failed(const QString &error);
    void cancelled();

private:
    void start();
    void onOutput(bool ok, const QString &output, const QString &error);
    void addSlice();

    QObject *m_call = nullptr; // the running command's context: deleting it drops the answer
    bool m_running = false;
    QString m_user; // empty for every home
    QDate m_since;
    QStringList m_lines;
    qsizetype m_next = 0;
    bool m_sawHome = false;
    UsageAggregator m_aggregator;
};

} // namespace sandscope
