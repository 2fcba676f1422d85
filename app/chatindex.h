#pragma once
// Chat folders (~/chat-<id>) with their size and last activity, measured on the server by
// ONE command per listing: GNU du prints size, newest modification time and path for every
// chat (`du -0 -sb --time`), fed by one find through xargs, so nothing is requested per
// folder. The records are NUL-separated and travel escaped to ASCII by `sed -n l`, because
// the terminal the server runs commands in is text-only (names may hold newlines, tabs or
// bytes that are not UTF-8). The output is parsed as it streams, so rows appear while du
// runs.
//
// ChatIndexModel lists one account's chats; AdminOverviewModel lists every account under
// /home with its chats, acting as the server's own account (no X-User-Id). Newer servers
// refuse that in multi-user mode; the overview then says the server allows per-user access
// only.

#include "apierror.h"
#include "connection.h"
#include "lineassembler.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QPointer>
#include <QVector>

namespace sandscope {

class OpenTerminalClient;
class ProcessStream;

struct ChatFolder {
    QString account; // the home folder's name (the Linux account in multi-user mode)
    QString id; // the name without "chat-"
    QString path; // absolute
    qint64 size = 0; // bytes, apparent sizes of everything inside (du -sb)
    QDateTime lastActivity; // newest modification time inside (du --time)
};

// One record of the scan: a home folder (admin scans list every home, also those without
// chats) or a chat folder.
struct ChatScanRecord {
    bool isHome = false;
    QString homePath; // isHome
    ChatFolder chat; // !isHome
};

namespace chatscan {

// The scripts (POSIX sh, GNU find/du/xargs/sed, tr). `homesRoot` is where the admin overview
// looks for homes.
QString userScript();
QString allUsersScript(const QString &homesRoot = QStringLiteral("/home"));

// Turns the command's output lines (already reassembled, CR stripped) into records. Lines
// outside the begin/end markers (sudo or login noise) are ignored.
class Parser {
public:
    QVector<ChatScanRecord> feedLine(const QString &line);
    bool sawEnd() const { return m_state == State::Ended; }

private:
    enum class State { BeforeBegin, Inside, Ended };
    State m_state = State::BeforeBegin;
};

// A chat record from one NUL-terminated record ("<size>\t<mtime>\t<path>"), or a home
// ("U\t<path>"). False for anything else.
bool parseRecord(const QByteArray &record, ChatScanRecord *parsed);

} // namespace chatscan

// Runs one scan script and delivers record batches as the output arrives.
class ChatScan : public QObject {
    Q_OBJECT
public:
    ChatScan(OpenTerminalClient *client, const Identity &identity, QObject *parent = nullptr);
    ~ChatScan() override;
    void start(const QString &script);
    bool isRunning() const;
    // Nobody waits for the answer any more: no more signals, the remote command is killed
    // and the object deletes itself once the process has ended.
    void abandon();

Q_SIGNALS:
    void records(const QVector<sandscope::ChatScanRecord> &batch);
    void finished();
    void failed(const sandscope::ApiError &error);

private:
    void consume(const QStringList &lines);

    OpenTerminalClient *m_client;
    Identity m_identity;
    ProcessStream *m_stream = nullptr;
    LineAssembler m_lines;
    chatscan::Parser m_parser;
    bool m_abandoned = false;
};

enum class ScanState { Idle, Loading, Loaded, Failed, Refused };

// The chats of one account (the identity's), as a table: chat, size, last activity.
class ChatIndexModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { ChatColumn, SizeColumn, LastActivityColumn, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1, // raw value of the column: id, bytes, QDateTime
        ChatIdRole,
        PathRole,
        SizeRole,
        LastActivityRole,
    };

    explicit ChatIndexModel(OpenTerminalClient *client, QObject *parent = nullptr);

    void setIdentity(const Identity &identity); // clears
    // Starts a new scan; rows are replaced as the new answer streams in.
    void reload();
    ScanState state() const { return m_state; }
    QString errorText() const { return m_error; }
    const QVector<ChatFolder> &chats() const { return m_chats; }

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void loaded();
    void failed(const sandscope::ApiError &error);

private:
    void addRecords(const QVector<ChatScanRecord> &batch);

    OpenTerminalClient *m_client;
    Identity m_identity;
    QPointer<ChatScan> m_scan;
    QVector<ChatFolder> m_chats;
    ScanState m_state = ScanState::Idle;
    QString m_error;
};

struct AccountChats {
    QString account;
    QString home;
    QVector<ChatFolder> chats;
    qint64 totalSize = 0;
    QDateTime lastActivity; // invalid when the account has no chats
};

// Every account under /home with its chats, total size and last activity.
class AdminOverviewModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { AccountColumn, ChatCountColumn, SizeColumn, LastActivityColumn, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1, // raw value of the column: name, count, bytes, QDateTime
        AccountRole,
        HomeRole,
    };

    explicit AdminOverviewModel(OpenTerminalClient *client, QObject *parent = nullptr);

    void setHomesRoot(const QString &path) { m_homesRoot = path; }
    void reload();
    ScanState state() const { return m_state; }
    // For Failed and Refused: one paragraph for people.
    QString errorText() const { return m_error; }
    const QVector<AccountChats> &accounts() const { return m_accounts; }
    int rowOfAccount(const QString &account) const { return m_rowOfAccount.value(account, -1); }

    // True for the refusal of newer multi-user servers ("X-User-Id is required").
    static bool isServerAccountRefusal(const ApiError &error);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void loaded();
    void failed(const sandscope::ApiError &error);
    void refused(const QString &explanation);

private:
    void addRecords(const QVector<ChatScanRecord> &batch);
    int ensureAccount(const QString &home, QVector<AccountChats> &added);

    OpenTerminalClient *m_client;
    QString m_homesRoot = QStringLiteral("/home");
    QPointer<ChatScan> m_scan;
    QVector<AccountChats> m_accounts;
    QHash<QString, int> m_rowOfAccount;
    ScanState m_state = ScanState::Idle;
    QString m_error;
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::ChatScanRecord)
