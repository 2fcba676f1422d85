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

#include "server/apierror.h"
#include "server/connection.h"
#include "server/lineassembler.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QPointer>
#include <QStringList>
#include <QTimer>
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

// Runs `body` (whose output is NUL-terminated records) between a `begin` and an `end` marker
// line, each record escaped by `sed -n l` into one ASCII line ending in "$" (shared with other
// one-command scans, e.g. the run artifacts).
QString framedRecords(const QString &begin, const QString &body, const QString &end);
// One such line without its final "$" back to the bytes it stands for.
QByteArray unescapeSedLine(QStringView line);

// Follows the output of a framedRecords() command line by line (lines already reassembled,
// CR stripped): the records between the markers come back as bytes; marker lines and stray
// terminal lines (sudo or login noise) do not.
class FramedRecordReader {
public:
    FramedRecordReader(QString begin, QString end);
    // True with *record set when `line` is a record.
    bool feedLine(const QString &line, QByteArray *record);
    bool sawBegin() const { return m_state != State::BeforeBegin; }
    bool sawEnd() const { return m_state == State::Ended; }

private:
    enum class State { BeforeBegin, Inside, Ended };
    QString m_begin;
    QString m_end;
    State m_state = State::BeforeBegin;
};

// The scripts (POSIX sh, GNU find/du/xargs/sed, tr). `homesRoot` is where the admin overview
// looks for homes.
QString userScript();
QString allUsersScript(const QString &homesRoot = QStringLiteral("/home"));

// Turns the command's output lines (already reassembled, CR stripped) into records. Lines
// outside the begin/end markers (sudo or login noise) are ignored.
class Parser {
public:
    Parser();
    QVector<ChatScanRecord> feedLine(const QString &line);
    bool sawEnd() const { return m_records.sawEnd(); }

private:
    FramedRecordReader m_records;
};

// A chat record from one NUL-terminated record ("<size>\t<mtime>\t<path>"), or a home
// ("U\t<path>"). False for anything else.
bool parseRecord(const QByteArray &record, ChatScanRecord *parsed);

} // namespace chatscan

// Runs one scan script and delivers record batches as the output arrives. The output of one
// status answer can hold tens of thousands of records: they are parsed in slices of at most
// sliceMilliseconds and maxRecordsPerSlice from the event loop, so the UI thread keeps turning
// and rows keep appearing while the scan runs.
class ChatScan : public QObject {
    Q_OBJECT
public:
    static constexpr int sliceMilliseconds = 10;
    static constexpr int maxRecordsPerSlice = 1000;

    ChatScan(OpenTerminalClient *client, const Identity &identity, QObject *parent = nullptr);
    ~ChatScan() override;
    void start(const QString &script);
    bool isRunning() const;
    // Nobody waits for the answer any more: no more signals, the remote command is killed
    // and the object deletes itself once the process has ended.
    void abandon();

Q_SIGNALS:
    // At most maxRecordsPerSlice records, one batch per slice.
    void records(const QVector<sandscope::ChatScanRecord> &batch);
    void finished();
    void failed(const sandscope::ApiError &error);

private:
    void queue(const QStringList &lines);
    void parseSlice();
    bool hasQueuedLines() const { return m_nextQueued < m_queued.size(); }
    void endScan();

    OpenTerminalClient *m_client;
    Identity m_identity;
    ProcessStream *m_stream = nullptr;
    LineAssembler m_lines;
    chatscan::Parser m_parser;
    QStringList m_queued; // lines not parsed yet start at m_nextQueued
    qsizetype m_nextQueued = 0;
    QTimer m_sliceTimer;
    bool m_streamEnded = false;
    bool m_abandoned = false;
};

enum class ScanState { Idle, Loading, Loaded, Failed, Refused };

// What both scan tables share: one scan at a time, its state and error, and the cells. A
// cell's sort value is the raw value of its column; its text is formatted from that value.
class ChatScanTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int sortRole = Qt::UserRole + 1;

    ScanState state() const { return m_state; }
    // For Failed and Refused: one paragraph for people.
    QString errorText() const { return m_error; }

    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void loaded();
    void failed(const sandscope::ApiError &error);

protected:
    // `headers` name the columns; the values of `sizeColumn` are shown as data sizes.
    ChatScanTableModel(
        OpenTerminalClient *client, QStringList headers, int sizeColumn, QObject *parent);

    // Abandons the running scan (its process is killed), if any, and starts `script`.
    void startScan(const Identity &identity, const QString &script);
    void stopScan();
    void setScanState(ScanState state, const QString &error = QString());

    virtual void addRecords(const QVector<ChatScanRecord> &batch) = 0;
    // Sets Failed with failureText(); subclasses may recognise other outcomes first.
    virtual void scanFailed(const ApiError &error);
    virtual QString failureText(const ApiError &error) const = 0;
    // The raw value of a cell (also its SortRole), and the other roles of a row.
    virtual QVariant cellValue(int row, int column) const = 0;
    virtual QVariant rowValue(int row, int role) const = 0;

private:
    OpenTerminalClient *m_client;
    QStringList m_headers;
    int m_sizeColumn;
    QPointer<ChatScan> m_scan;
    ScanState m_state = ScanState::Idle;
    QString m_error;
};

// The chats of one account (the identity's), as a table: chat, size, last activity.
class ChatIndexModel : public ChatScanTableModel {
    Q_OBJECT
public:
    enum Column { ChatColumn, SizeColumn, LastActivityColumn, ColumnCount };
    enum Role {
        SortRole = sortRole, // raw value of the column: id, bytes, QDateTime
        ChatIdRole,
        PathRole,
        SizeRole,
        LastActivityRole,
    };

    explicit ChatIndexModel(OpenTerminalClient *client, QObject *parent = nullptr);

    void setIdentity(const Identity &identity); // clears
    // Starts a new scan; rows are replaced as the new answer streams in.
    void reload();
    const QVector<ChatFolder> &chats() const { return m_chats; }

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;

protected:
    void addRecords(const QVector<ChatScanRecord> &batch) override;
    QString failureText(const ApiError &error) const override;
    QVariant cellValue(int row, int column) const override;
    QVariant rowValue(int row, int role) const override;

private:
    Identity m_identity;
    QVector<ChatFolder> m_chats;
};

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

Q_DECLARE_METATYPE(sandscope::ChatScanRecord)
