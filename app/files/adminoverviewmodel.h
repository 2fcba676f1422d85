#pragma once
// Every account under /home with its chats, sessions and disk use, measured by one chat scan
// (see chatscan.h) run as root in the sandbox through the admin channel: the server's own
// account (no X-User-Id; newer servers refuse that in multi-user mode, and the overview then
// says an admin command is needed) or the local admin command.

#include "files/chatfolder.h"
#include "files/chatscantablemodel.h"
#include "fleet/fleetfanout.h"

#include <QDateTime>
#include <QHash>
#include <QPointer>
#include <QVector>

namespace sandscope {

class OpenTerminalClient;

struct AccountChats {
    QString account;
    QString member; // the fleet member holding the home; empty for one server
    QString home;
    QVector<ChatFolder> chats;
    qint64 totalSize = 0; // of the chats
    QDateTime lastActivity; // invalid when the account has no chats
    int sessions = 0; // transcripts under ~/.claude/projects
    int runningSessions = 0; // written within the last 30 s of the server's clock
    qint64 diskBytes = -1; // the whole home; -1 until measured
};

// Every account under /home with its chats, total size and last activity.
class AdminOverviewModel : public ChatScanTableModel {
    Q_OBJECT
public:
    enum Column {
        AccountColumn,
        ChatCountColumn,
        SizeColumn,
        LastActivityColumn,
        SessionCountColumn,
        RunningColumn,
        DiskColumn,
        MemberColumn, // a fleet's: where the home is (views hide it for one server)
        ColumnCount
    };
    // A session counts as running while its transcript was written this recently.
    static constexpr int runningSeconds = 30;
    enum Role {
        SortRole = sortRole, // raw value of the column: name, count, bytes, QDateTime
        AccountRole,
        HomeRole,
        MemberRole,
    };

    explicit AdminOverviewModel(OpenTerminalClient *client, QObject *parent = nullptr);

    void setHomesRoot(const QString &path) { m_homesRoot = path; }
    // How the scan reaches root in the sandbox; the server account unless set.
    void setAdminAccess(const AdminAccess &admin) { m_admin = admin; }
    const AdminAccess &adminAccess() const { return m_admin; }
    // A fleet: reload() scans every member of `fanOut` (not owned) at once, each home's row
    // naming its member; null (the default) scans the one server through the admin access.
    void setFanOut(FleetFanOut *fanOut) { m_fanOut = fanOut; }
    bool isFleet() const;
    void reload();
    const QVector<AccountChats> &accounts() const { return m_accounts; }
    // The row of an account (on `member`, for a fleet); -1 when there is none.
    int rowOfAccount(const QString &account, const QString &member = {}) const;

    // True for the refusal of newer multi-user servers ("X-User-Id is required").
    static bool isServerAccountRefusal(const ApiError &error);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;

Q_SIGNALS:
    void refused(const QString &explanation);

protected:
    void addRecords(const QVector<ChatScanRecord> &batch) override;
    void scanFailed(const ApiError &error) override;
    QString failureText(const ApiError &error) const override;
    QVariant cellValue(int row, int column) const override;
    QVariant rowValue(int row, int role) const override;

private:
    int ensureAccount(const QString &home, const QString &member, QVector<AccountChats> &added);

    QString m_homesRoot = QStringLiteral("/home");
    AdminAccess m_admin;
    QPointer<FleetFanOut> m_fanOut;
    QHash<QString, QDateTime> m_serverNow; // per member: its scan's Clock record
    QVector<AccountChats> m_accounts;
    QHash<QString, int> m_rowOfAccount; // member + '/' + account
};

} // namespace sandscope
