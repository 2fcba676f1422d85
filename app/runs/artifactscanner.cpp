#include "artifactscanner.h"

#include "files/framedrecordreader.h"
#include "files/pathguard.h"
#include "server/openterminalclient.h"
#include "server/processstream.h"
#include "util/shellquote.h"

#include <QHash>
#include <QLocale>

#include <cmath>
#include <utility>

namespace sandscope {

namespace artifactscan {

namespace {

const QString beginMarker = QStringLiteral("SANDSCOPE-ARTIFACTS-BEGIN");
const QString endMarker = QStringLiteral("SANDSCOPE-ARTIFACTS-END");
const QString missingMarker = QStringLiteral("SANDSCOPE-ARTIFACTS-NO-REFERENCE");

} // namespace

QString script(const QString &workDirectory, const QString &reference, int limit)
{
    // "@<seconds since the epoch>": a moment instead of a file (a session found on disk has
    // no reference file, only its first record's time).
    bool isMoment = false;
    if (reference.startsWith(QLatin1Char('@')))
        reference.mid(1).toLongLong(&isMoment);
    const QString quoted = shell::quote(reference);
    const QString newer = isMoment ? QStringLiteral("-newermt %1 -o -newerct %1").arg(quoted)
                                   : QStringLiteral("-newer %1 -o -cnewer %1").arg(quoted);
    // Everything but directories (files, links, fifos…): what the run made is shown, whatever
    // it is. %T@ first so that a numeric sort puts the newest first; %P is the path below ".".
    const QString body
        = QStringLiteral("cd -- %1 && find . -mindepth 1 ! -type d \\( %2 \\) "
                         "-printf '%T@\\t%s\\t%P\\0' | LC_ALL=C sort -z -r -n | head -z -n %3")
              .arg(shell::quote(workDirectory), newer)
              .arg(limit + 1);
    const QString check = isMoment
        ? QString()
        : QStringLiteral("[ -e %1 ] || printf '%2\\n'; ").arg(quoted, missingMarker);
    // A workdir that is a link out of the home (to another user's folder) is not listed.
    const QString confined = pathguard::outsideFunctions()
        + QStringLiteral("h=$(cd ~ && pwd -P) || exit 1; sandscope_outside \"$h\" %1 && exit 0; ")
              .arg(shell::quote(workDirectory));
    return confined + check + chatscan::framedRecords(beginMarker, body, endMarker);
}

bool parseRecord(const QByteArray &record, const QString &workDirectory, ArtifactFile *parsed)
{
    const qsizetype firstTab = record.indexOf('\t');
    const qsizetype secondTab = firstTab < 0 ? -1 : record.indexOf('\t', firstTab + 1);
    if (secondTab < 0 || secondTab + 1 == record.size())
        return false;
    bool timeOk = false;
    bool sizeOk = false;
    const double seconds = record.left(firstTab).toDouble(&timeOk);
    const qint64 size = record.mid(firstTab + 1, secondTab - firstTab - 1).toLongLong(&sizeOk);
    if (!timeOk || !sizeOk || !std::isfinite(seconds) || size < 0)
        return false;
    ArtifactFile file;
    file.relativePath = QString::fromUtf8(record.mid(secondTab + 1));
    QString directory = workDirectory;
    while (directory.size() > 1 && directory.endsWith(QLatin1Char('/')))
        directory.chop(1);
    file.absolutePath = directory == QLatin1String("/")
        ? QString(directory + file.relativePath)
        : QString(directory + QLatin1Char('/') + file.relativePath);
    file.size = size;
    file.modified = QDateTime::fromMSecsSinceEpoch(qint64(std::floor(seconds * 1000.0)));
    *parsed = file;
    return true;
}

Parser::Parser(QString workDirectory)
    : m_workDirectory(std::move(workDirectory))
    , m_records(beginMarker, endMarker)
{
}

QVector<ArtifactFile> Parser::feedLine(const QString &line)
{
    if (!m_records.sawBegin() && line.trimmed() == missingMarker)
        m_referenceMissing = true;
    if (!m_records.sawBegin() && pathguard::outsideRefusal(line.trimmed(), {}, &m_refusal))
        return {};
    QByteArray bytes;
    ArtifactFile file;
    if (!m_records.feedLine(line, &bytes) || !parseRecord(bytes, m_workDirectory, &file))
        return {};
    return {file};
}

} // namespace artifactscan

// ---------------------------------------------------------------------------------------
// ArtifactScanner

ArtifactScanner::ArtifactScanner(OpenTerminalClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
}

ArtifactScanner::~ArtifactScanner()
{
    if (!m_stream)
        return;
    // Nothing is reported from here on (the stream's aborted request answers synchronously);
    // a listing nobody waits for is not left running on the server.
    QObject::disconnect(m_stream, nullptr, this, nullptr);
    // The client may be gone already (its owner is being destroyed): then so is the chance.
    if (m_client && m_stream->state() == ProcessStream::State::Running)
        m_stream->kill();
}

void ArtifactScanner::scan(
    const Identity &identity, const QString &workDirectory, const QString &referenceFile)
{
    const Request request {identity, workDirectory, referenceFile};
    if (m_stream) {
        m_queued = request;
        m_hasQueued = true;
        return;
    }
    startScan(request);
}

void ArtifactScanner::startScan(const Request &request)
{
    if (!m_client)
        return;
    m_lines = LineAssembler();
    m_parser = std::make_unique<artifactscan::Parser>(request.workDirectory);
    m_found.clear();
    auto *stream = new ProcessStream(m_client, request.identity, this);
    m_stream = stream;
    stream->setPollIntervals(50, 500); // a short command someone waits for
    connect(stream, &ProcessStream::output, this, [this](const QString &text) {
        const QStringList lines = m_lines.feed(text);
        for (const QString &line : lines)
            m_found += m_parser->feedLine(line);
    });
    connect(stream, &ProcessStream::finished, this, [this] {
        const QString rest = m_lines.flush();
        if (!rest.isEmpty())
            m_found += m_parser->feedLine(rest);
        const bool complete = m_parser->sawEnd();
        const bool missing = m_parser->referenceMissing();
        const QString refusal = m_parser->refusal();
        const bool truncated = m_found.size() > m_limit;
        if (truncated)
            m_found.resize(m_limit);
        const QVector<ArtifactFile> found = std::exchange(m_found, {});
        scanEnded();
        if (!refusal.isEmpty())
            Q_EMIT failed(refusal);
        else if (missing)
            Q_EMIT failed(tr("The run's start marker (its prompt file) is gone, so the files it "
                             "changed cannot be told apart"));
        else if (!complete)
            Q_EMIT failed(tr("The artifact scan ended early (are GNU find, sort and sed "
                             "installed?)"));
        else
            Q_EMIT finished(found, truncated);
    });
    connect(stream, &ProcessStream::failed, this, [this](const ApiError &error) {
        scanEnded();
        Q_EMIT failed(tr("Could not list the run's files: %1").arg(error.toString()));
    });
    stream->start(artifactscan::script(request.workDirectory, request.referenceFile, m_limit));
}

void ArtifactScanner::scanEnded()
{
    if (m_stream)
        m_stream->deleteLater();
    m_stream = nullptr;
    if (m_hasQueued) {
        m_hasQueued = false;
        // After the signals of this scan, so its receivers see the order of the requests.
        const Request next = m_queued;
        QMetaObject::invokeMethod(
            this, [this, next] { startScan(next); }, Qt::QueuedConnection);
    }
}

// ---------------------------------------------------------------------------------------
// ArtifactListModel

ArtifactListModel::ArtifactListModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

int ArtifactListModel::rowOfPath(const QString &absolutePath) const
{
    for (int row = 0; row < m_files.size(); ++row) {
        if (m_files.at(row).absolutePath == absolutePath)
            return row;
    }
    return -1;
}

void ArtifactListModel::setFiles(const QVector<ArtifactFile> &files)
{
    QHash<QString, qsizetype> incoming;
    for (qsizetype i = 0; i < files.size(); ++i)
        incoming.insert(files.at(i).absolutePath, i);

    // Gone: removed from the bottom up, runs of adjacent rows at once.
    for (int row = int(m_files.size()) - 1; row >= 0;) {
        if (incoming.contains(m_files.at(row).absolutePath)) {
            --row;
            continue;
        }
        int first = row;
        while (first > 0 && !incoming.contains(m_files.at(first - 1).absolutePath))
            --first;
        beginRemoveRows(QModelIndex(), first, row);
        m_files.remove(first, row - first + 1);
        endRemoveRows();
        row = first - 1;
    }
    // Kept: updated in place.
    QHash<QString, int> kept;
    for (int row = 0; row < m_files.size(); ++row) {
        const ArtifactFile &now = files.at(incoming.value(m_files.at(row).absolutePath));
        kept.insert(now.absolutePath, row);
        if (!(now == m_files.at(row))) {
            m_files[row] = now;
            Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        }
    }
    // New: appended in the scan's order.
    QVector<ArtifactFile> added;
    for (const ArtifactFile &file : files) {
        if (!kept.contains(file.absolutePath))
            added.append(file);
    }
    if (added.isEmpty())
        return;
    beginInsertRows(QModelIndex(), int(m_files.size()), int(m_files.size() + added.size()) - 1);
    m_files += added;
    endInsertRows();
}

int ArtifactListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_files.size());
}

int ArtifactListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ArtifactListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const ArtifactFile &file = m_files.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case PathColumn:
            return file.relativePath;
        case SizeColumn:
            return QLocale().formattedDataSize(file.size);
        case ModifiedColumn:
            return QLocale().toString(file.modified.toLocalTime(), QLocale::ShortFormat);
        default:
            return QVariant();
        }
    case Qt::ToolTipRole:
        return file.absolutePath;
    case Qt::TextAlignmentRole:
        return index.column() == SizeColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                                            : QVariant();
    case SortRole:
        switch (index.column()) {
        case PathColumn:
            return file.relativePath;
        case SizeColumn:
            return file.size;
        case ModifiedColumn:
            return file.modified;
        default:
            return QVariant();
        }
    case AbsolutePathRole:
        return file.absolutePath;
    default:
        return QVariant();
    }
}

QVariant ArtifactListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QVariant();
    switch (section) {
    case PathColumn:
        return tr("File");
    case SizeColumn:
        return tr("Size");
    case ModifiedColumn:
        return tr("Modified");
    default:
        return QVariant();
    }
}

} // namespace sandscope
