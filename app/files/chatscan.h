#pragma once
// Chat folders (~/chat-<id>) with their size and last activity, measured on the server by
// ONE command per listing: GNU du prints size, newest modification time and path for every
// chat (`du -0 -sb --time`), fed by one find through xargs, so nothing is requested per
// folder. The records are NUL-separated and travel escaped to ASCII by `sed -n l` (see
// framedrecordreader.h), because the terminal the server runs commands in is text-only. The
// output is parsed as it streams, so rows appear while du runs.
//
// The scripts, their parser and ChatScan, which runs one script; ChatIndexModel and
// AdminOverviewModel show the results.

#include "files/chatfolder.h"
#include "files/framedrecordreader.h"
#include "server/adminaccess.h"
#include "server/apierror.h"
#include "server/connection.h"
#include "server/lineassembler.h"

#include <QByteArray>
#include <QDateTime>
#include <QMetaType>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTimer>
#include <QVector>

namespace sandscope {

class AdminScript;
class OpenTerminalClient;
class ProcessStream;

// One record of the scan: a chat folder, or (admin scans) a home folder, its disk use, one of
// its session transcripts, or the server's clock.
struct ChatScanRecord {
    enum class Kind {
        Chat,
        Home, // every home is listed, also those without chats
        HomeUsage, // homePath: its bytes and newest modification
        Session, // homePath: one ~/.claude/projects/*/*.jsonl, modified at `modified`
        Clock, // the server's time when the scan started (for "running now")
    };
    Kind kind = Kind::Chat;
    QString homePath; // Home, HomeUsage, Session
    qint64 bytes = 0; // HomeUsage
    QDateTime modified; // HomeUsage, Session, Clock
    ChatFolder chat; // Chat
    QString member; // the fleet member it was found on; empty for one server

    bool isHome() const { return kind == Kind::Home; }
};

namespace chatscan {

// The scripts (POSIX sh, GNU find/du/xargs/sed, tr). `homesRoot` is where the admin overview
// looks for homes; it also lists each home's disk use and session transcripts.
QString userScript();
QString allUsersScript(const QString &homesRoot = QStringLiteral("/home"));

// Turns the command's output lines (already reassembled, CR stripped) into records. Lines
// outside the begin/end markers (sudo or login noise) are ignored.
class Parser {
public:
    explicit Parser(QString homesRoot = QStringLiteral("/home"));
    QVector<ChatScanRecord> feedLine(const QString &line);
    bool sawEnd() const { return m_records.sawEnd(); }

private:
    FramedRecordReader m_records;
    QString m_homesRoot;
};

// A chat record from one NUL-terminated record ("<size>\t<mtime>\t<path>"), a home
// ("U\t<path>"), a home's disk use ("<size>\t<mtime>\t./<name>", relative to the homes
// root, which `homesRoot` turns absolute), a session ("S\t<mtime>\t<path>") or the clock
// ("N\t<seconds>"). False for anything else.
bool parseRecord(const QByteArray &record, ChatScanRecord *parsed,
    const QString &homesRoot = QStringLiteral("/home"));

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

    // An empty identity scans as root: through `admin` (the server account, or the local
    // admin command).
    ChatScan(OpenTerminalClient *client, const Identity &identity, QObject *parent = nullptr);
    void setAdminAccess(const AdminAccess &admin) { m_admin = admin; }
    // Where the homes are (records of disk use name them relative to it).
    void setHomesRoot(const QString &homesRoot) { m_parser = chatscan::Parser(homesRoot); }
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
    void streamEnded();
    void parseSlice();
    bool hasQueuedLines() const { return m_nextQueued < m_queued.size(); }
    void endScan();

    OpenTerminalClient *m_client;
    Identity m_identity;
    QPointer<ProcessStream> m_stream;
    QPointer<AdminScript> m_adminScript;
    AdminAccess m_admin;
    LineAssembler m_lines;
    chatscan::Parser m_parser;
    QStringList m_queued; // lines not parsed yet start at m_nextQueued
    qsizetype m_nextQueued = 0;
    QTimer m_sliceTimer;
    bool m_streamEnded = false;
    bool m_abandoned = false;
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::ChatScanRecord)
