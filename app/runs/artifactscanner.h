#pragma once
// The artifacts of a run: the files in a chat's workdir created or modified since the run
// started, measured on the server by ONE command as the run's user. `find` compares each
// file with a reference file the launcher wrote right before claude started (the run's
// prompt file, see RunPaths::promptFile), by modification time and by status-change time, so
// files that were moved in or extracted with an old mtime count too; the server's clock is
// the only one involved. Records are NUL-terminated and travel escaped like the chat scan
// (chatscan::framedRecords), so any file name survives the text-only terminal.
// Newest first, at most `limit` entries (the rest is only counted as "more").

#include "files/framedrecordreader.h"
#include "server/connection.h"
#include "server/lineassembler.h"
#include "server/processstream.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QObject>
#include <QPointer>
#include <QVector>

#include <memory>

namespace sandscope {

class OpenTerminalClient;

struct ArtifactFile {
    QString relativePath; // inside the workdir
    QString absolutePath;
    qint64 size = 0;
    QDateTime modified;

    bool operator==(const ArtifactFile &other) const
    {
        return absolutePath == other.absolutePath && size == other.size
            && modified == other.modified;
    }
};

namespace artifactscan {

// POSIX sh with GNU find, sort, head, sed and tr. At most limit + 1 records, newest first.
// `reference` is a file (changed since it was written) or "@<seconds since the epoch>".
QString script(const QString &workDirectory, const QString &reference, int limit);

// Turns the command's output lines into files; lines outside the markers are ignored.
class Parser {
public:
    explicit Parser(QString workDirectory);
    QVector<ArtifactFile> feedLine(const QString &line);
    bool sawEnd() const { return m_records.sawEnd(); }
    // The reference file was gone: "since the run started" cannot be told.
    bool referenceMissing() const { return m_referenceMissing; }
    // Not listed: the workdir leads out of the home (the message names the link and target).
    QString refusal() const { return m_refusal; }

private:
    QString m_workDirectory;
    chatscan::FramedRecordReader m_records;
    bool m_referenceMissing = false;
    QString m_refusal;
};

// One record "<mtime seconds.fraction>\t<size>\t<relative path>". False for anything else.
bool parseRecord(const QByteArray &record, const QString &workDirectory, ArtifactFile *parsed);

} // namespace artifactscan

// Runs scans one at a time; a scan asked for while one runs starts when it ends (the latest
// request wins), so refreshing on every turn end never piles up commands.
class ArtifactScanner : public QObject {
    Q_OBJECT
public:
    static constexpr int defaultLimit = 5000;

    explicit ArtifactScanner(OpenTerminalClient *client, QObject *parent = nullptr);
    ~ArtifactScanner() override;

    void setLimit(int limit) { m_limit = limit; }
    void scan(const Identity &identity, const QString &workDirectory, const QString &referenceFile);
    bool isRunning() const { return m_stream != nullptr; }

Q_SIGNALS:
    // truncated: more files changed than the limit; `files` holds the newest of them.
    void finished(const QVector<sandscope::ArtifactFile> &files, bool truncated);
    void failed(const QString &message);

private:
    struct Request {
        Identity identity;
        QString workDirectory;
        QString referenceFile;
    };
    void startScan(const Request &request);
    void scanEnded();

    QPointer<OpenTerminalClient> m_client;
    int m_limit = defaultLimit;
    QPointer<ProcessStream> m_stream;
    LineAssembler m_lines;
    std::unique_ptr<artifactscan::Parser> m_parser;
    QVector<ArtifactFile> m_found;
    bool m_hasQueued = false;
    Request m_queued;
};

// The artifacts as a table: path, size, modified. A new scan result is merged in (rows of
// files that are gone are removed, changed ones updated, new ones appended), so selection and
// scroll position survive refreshes.
class ArtifactListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { PathColumn, SizeColumn, ModifiedColumn, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1, // path, bytes or QDateTime
        AbsolutePathRole,
    };

    explicit ArtifactListModel(QObject *parent = nullptr);

    void setFiles(const QVector<ArtifactFile> &files);
    void clear() { setFiles({}); }
    const QVector<ArtifactFile> &files() const { return m_files; }
    int rowOfPath(const QString &absolutePath) const;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVector<ArtifactFile> m_files;
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::ArtifactFile)
