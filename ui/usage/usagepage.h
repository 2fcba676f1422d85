#pragma once
// Usage over time: per UTC day the chosen figure (sessions, turns, tool calls, errors,
// tokens, cost) as a bar chart stacked by user, a table per user and day, and the top tools
// by count or by time, from the transcripts on the server of the acting user or, with "All
// users", of every home through the admin channel (audited). Collected in the background
// (UsageCollector) with progress and Cancel; the rows export as CSV. On a fleet "All users"
// reads every member at once (FleetFanOut): the figures of the members added up so far are
// shown as each answers, a Member column names each row's member (a user with homes on two
// members has a row on each), and a member that fails is named in the page's message bar
// while the others' figures stay.

#include "server/adminaccess.h"
#include "server/connection.h"
#include "usage/usagereport.h"

#include <QPointer>
#include <QWidget>

#include <functional>
#include <memory>

class QGraphicsView;
class QSortFilterProxyModel;
class QTreeView;

namespace sandscope {

class FleetFanOut;
class MessageBar;
class OpenTerminalClient;
class UsageCollector;
class UsageModel;
class UsageToolsModel;

namespace Ui {
class UsagePage;
}

class UsagePage : public QWidget {
    Q_OBJECT

public:
    explicit UsagePage(QWidget *parent = nullptr);
    ~UsagePage() override;

    // Not owned; nullptr means "not connected". Another user or server clears the figures.
    void setConnection(OpenTerminalClient *client, const Identity &identity);
    // The admin channel for "All users" and the server's account prefix (a user id is the
    // account without it); where the homes are (tests: a folder of their own).
    void setAdminAccess(const AdminAccess &admin, const QString &accountPrefix);
    void setHomesRoot(const QString &homesRoot) { m_homesRoot = homesRoot; }
    // Where "All users" runs on a fleet: ServerSession::createFanOut. One server keeps to
    // the client of setConnection with the admin access of setAdminAccess.
    using FanOutFactory = std::function<FleetFanOut *(QObject *parent)>;
    void setFanOutFactory(FanOutFactory factory, bool isFleet);
    bool isFleet() const { return m_fleet; }
    // Called for "All users" before the homes are read (MainWindow writes the audit entry).
    void setAuditHook(std::function<void(const QString &target)> hook)
    {
        m_audit = std::move(hook);
    }

    void setAllUsers(bool allUsers);
    // The UsageModel column the chart shows.
    void setMetric(int column);
    int chartMetric() const;

    UsageModel *model() const { return m_model; }
    UsageToolsModel *toolsModel() const { return m_toolsModel; }
    QSortFilterProxyModel *toolsProxy() const { return m_toolsProxy; }
    QGraphicsView *chartView() const { return m_chartView; }
    QTreeView *daysView() const;
    // Names the members of a fleet that failed (the others' figures are shown).
    MessageBar *messageBar() const;
    bool isCollecting() const;
    QString statusText() const;
    // The chart's bars: per user, per day (tests).
    QStringList chartCategories() const;
    QVector<double> chartValues(const QString &user) const;

    // What Export CSV… writes: the per user and day table, or the tools table.
    enum class CsvTable { Days, Tools };
    bool exportCsv(
        const QString &path, QString *error = nullptr, CsvTable table = CsvTable::Days) const;

public Q_SLOTS:
    void refresh();
    void cancel();

    // Non-empty when the server refuses its own account: what the all-users view needs
    // (AdminAccess::refusalAdvice). Shown instead of a request that would be refused while no
    // admin command is set.
    void setAdminAdvice(const QString &advice);

Q_SIGNALS:
    // The user asked to set the admin command (File › Connect…).
    void adminCommandRequested();
    void collectionFinished(bool ok);

protected:
    // The first time the page is shown for a connection it collects by itself.
    void showEvent(QShowEvent *event) override;

private:
    QString m_adminAdvice;
    // `partial`: the members added up so far, while the others are still read.
    void showReport(const UsageReport &report, bool partial = false);
    // Every member of the fleet at once.
    void collectFleet(const QDate &since);
    void showMemberErrors(const QStringList &errors);
    // " · 1 of 2 members answered…" while a fleet is read, else empty.
    QString membersText() const;
    void rebuildChart();
    void setStatus(const QString &text, bool busy);
    void exportFromDialog();

    std::unique_ptr<Ui::UsagePage> m_ui;
    QPointer<OpenTerminalClient> m_client;
    Identity m_identity;
    AdminAccess m_adminAccess;
    QString m_accountPrefix;
    QString m_homesRoot = QStringLiteral("/home");
    std::function<void(const QString &)> m_audit;
    FanOutFactory m_fanOutFactory;
    bool m_fleet = false; // the fan-out factory makes a fleet's
    QPointer<FleetFanOut> m_fanOut; // of the fleet collection in flight or last (owned)
    int m_membersAsked = 0; // 0 unless a fleet collection runs
    int m_membersAnswered = 0;
    QString m_longestMember = QStringLiteral("Member"); // the Member column is as wide
    bool m_stale = false; // connected, not collected yet
    UsageCollector *m_collector;
    UsageModel *m_model;
    UsageToolsModel *m_toolsModel;
    QSortFilterProxyModel *m_daysProxy;
    QSortFilterProxyModel *m_toolsProxy;
    QGraphicsView *m_chartView = nullptr;
    QStringList m_categories;
    QHash<QString, QVector<double>> m_values;
};

} // namespace sandscope
