#pragma once
// Every account under /home with its chats, measured by one chat scan (see chatscan.h) acting
// as the server's own account (no X-User-Id). Newer servers refuse that in multi-user mode;
// the overview then says the server allows per-user access only.

#include "files/chatfolder.h"
#include "files/chatscantablemodel.h"

#include <QDateTime>
#include <QHash>
#include <QVector>

namespace sandscope {

class OpenTerminalClient;

struct AccountChats {
    QString account;
    QString home;
    QVector<ChatFolder> chats;
    qint64 totalSize = 0;
    QDateTime lastActivity; // invalid when the account has no chats
};

// Every account under /home with its chats, total size and last activity.
class AdminOverviewModel : public ChatScanTableModel {
    Q_OBJECT
public:
    enum Column { AccountColumn, ChatCountColumn, SizeColumn, LastActivityColumn, ColumnCount };
    enum Role {
        SortRole = sortRole, // raw value of the column: name, count, bytes, QDateTime
        AccountRole,
        HomeRole,
    };

    explicit AdminOverviewModel(OpenTerminalClient *client, QObject *parent = nullptr);

    void setHomesRoot(const QString &path) { m_homesRoot = path; }
    void reload();
    const QVector<AccountChats> &accounts() const { return m_accounts; }
    int rowOfAccount(const QString &account) const { return m_rowOfAccount.value(account, -1); }

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
    int ensureAccount(const QString &home, QVector<AccountChats> &added);

    QString m_homesRoot = QStringLiteral("/home");
    QVector<AccountChats> m_accounts;
    QHash<QString, int> m_rowOfAccount;
};

} // namespace sandscope
