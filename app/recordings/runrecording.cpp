#include "runrecording.h"

#include "recordings/linesource.h"
#include "recordings/localfilecheck.h"
#include "streamjson/runparser.h"
#include "streamjson/runsummary.h"
#include "streamjson/simdjsonfields.h"
#include "streamjson/streamjson.h"
#include "streamjson/summaryscanner.h"
#include "util/format.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QStandardPaths>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <memory>
#include <poll.h>
#include <simdjson.h>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace sandscope {

namespace {

const QLatin1String headerKey("sandscope_recording");
// A capture whose head holds no timestamp is read this far ahead to find one.
constexpr qsizetype maxLinesWithoutTimestamp = 1000;
// The summary fast path reads this much per read() call.
constexpr qint64 summaryBlockBytes = qint64(4) * 1024 * 1024;
// How far ahead of the line being scanned the mapped fast path asks for the file's bytes: the
// hardware prefetcher stops at each 4 KiB page, so without it every page began with a wait
// for memory.
constexpr size_t prefetchBytes = 4096;
// What readRawLine reads ahead at a time.
constexpr qsizetype readAheadBlockBytes = 256 * 1024;

// Up to `size` bytes of the file; 0 at its end. A pipe gives what it holds as soon as it holds
// anything (QFile's read waits until the whole size has come or the writer is gone, so a quiet
// writer held the reader there), is at its end once its writer is gone, and, with a stop flag,
// gives up when the flag is set (0 bytes). -1 with *error set when reading fails.
qint64 readSome(QFile &file, char *data, qint64 size, const std::atomic<bool> *stop, QString *error)
{
    if (!file.isSequential()) {
        const qint64 got = file.read(data, size);
        if (got < 0)
            *error = file.errorString();
        return got;
    }
    pollfd descriptor {file.handle(), POLLIN, 0};
    ssize_t got = -1;
    for (;;) {
        const int ready = ::poll(&descriptor, 1, stop ? 100 : -1);
        if (ready == 0 && stop && stop->load())
            return 0;
        if (ready > 0)
            got = ::read(file.handle(), data, size_t(size));
        if (ready == 0 || ((ready < 0 || got < 0) && errno == EINTR))
            continue;
        if (ready < 0 || got < 0)
            *error = QString::fromLocal8Bit(std::strerror(errno));
        return ready < 0 ? -1 : qint64(got);
    }
}

void appendJsonString(QByteArray &out, const QByteArray &utf8)
{
    static const char hex[] = "0123456789abcdef";
    out += '"';
    for (const char c : utf8) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                out += "\\u00";
                out += hex[(c >> 4) & 0xf];
                out += hex[c & 0xf];
            } else {
                out += c;
            }
        }
    }
    out += '"';
}

QByteArray withoutTerminator(QByteArray line)
{
    if (line.endsWith('\n'))
        line.chop(1);
    if (line.endsWith('\r'))
        line.chop(1);
    return line;
}

QString safeLabel(const QString &label)
{
    QString out;
    for (const QChar c : label) {
        if (c.isLetterOrNumber() && c.unicode() < 128)
            out += c;
        else if (!out.endsWith(QLatin1Char('-')))
            out += QLatin1Char('-');
    }
    return out.left(40);
}

} // namespace

// ---------------------------------------------------------------------------------------
// RunRecorder

RunRecorder::RunRecorder() = default;

RunRecorder::~RunRecorder()
{
    close();
}

bool RunRecorder::open(const QString &path, const QJsonObject &metadata)
{
    close();
    m_path = path;
    m_error.clear();
    m_lines = 0;
    m_lastArrivalMs = 0;
    QDir().mkpath(QFileInfo(path).absolutePath());
    m_file.setFileName(path);
    // Unbuffered: every write goes straight to the OS, so a crash loses nothing written.
    if (!m_file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Unbuffered)) {
        m_error = QStringLiteral("cannot create %1: %2").arg(path, m_file.errorString());
        return false;
    }
    // Recordings hold everything the agent read and wrote: owner only.
    m_file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QJsonObject header = metadata;
    header.insert(headerKey, formatVersion);
    header.insert(QStringLiteral("created_ms"), QDateTime::currentMSecsSinceEpoch());
    const QByteArray bytes = QJsonDocument(header).toJson(QJsonDocument::Compact) + '\n';
    if (m_file.write(bytes) != bytes.size()) {
        m_error = QStringLiteral("cannot write %1: %2").arg(path, m_file.errorString());
        m_file.close();
        return false;
    }
    return true;
}

void RunRecorder::close()
{
    if (m_file.isOpen())
        m_file.close();
}

bool RunRecorder::isOpen() const
{
    return m_file.isOpen();
}

qint64 RunRecorder::record(const QByteArray &rawLine, qint64 arrivalMs)
{
    if (!m_file.isOpen()) {
        if (m_error.isEmpty())
            m_error = QStringLiteral("the recording is not open");
        return -1;
    }
    const QByteArray line = withoutTerminator(rawLine);
    const qint64 arrival = std::max(arrivalMs, m_lastArrivalMs);
    QByteArray entry;
    entry.reserve(line.size() + line.size() / 8 + 48);
    entry += "{\"t\":";
    entry += QByteArray::number(arrival);
    if (simdjson::validate_utf8(line.constData(), size_t(line.size()))) {
        entry += ",\"line\":";
        appendJsonString(entry, line);
    } else {
        entry += ",\"line_base64\":\"";
        entry += line.toBase64();
        entry += '"';
    }
    entry += "}\n";
    // One write per entry; the file is unbuffered, flush() is for devices that buffer anyway.
    if (m_file.write(entry) != entry.size() || !m_file.flush()) {
        m_error = QStringLiteral("cannot write %1: %2").arg(m_path, m_file.errorString());
        return -1;
    }
    m_lastArrivalMs = arrival;
    ++m_lines;
    return arrival;
}

QString RunRecorder::defaultDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
        + QStringLiteral("/recordings");
}

QString RunRecorder::newRecordingPath(const QString &directory, const QString &label)
{
    QString base = QStringLiteral("run-")
        + QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    const QString suffix = safeLabel(label);
    if (!suffix.isEmpty())
        base += QLatin1Char('-') + suffix;
    QString candidate = directory + QLatin1Char('/') + base + QStringLiteral(".jsonl");
    for (int n = 2; QFileInfo::exists(candidate); ++n)
        candidate = directory + QLatin1Char('/') + base + QStringLiteral("-%1.jsonl").arg(n);
    return candidate;
}

// ---------------------------------------------------------------------------------------
// RecordingFeed

RecordingFeed::RecordingFeed(RunParser *parser, RunRecorder *recorder, QObject *parent)
    : QObject(parent)
    , m_parser(parser)
    , m_recorder(recorder)
{
}

qint64 RecordingFeed::recordOne(const QByteArray &line, qint64 arrivalMs)
{
    if (!m_recorder || !m_recorder->isOpen())
        return arrivalMs;
    const qint64 written = m_recorder->record(line, arrivalMs);
    if (written < 0) {
        if (!m_failing)
            Q_EMIT recordingFailed(m_recorder->errorString());
        m_failing = true;
        return arrivalMs;
    }
    m_failing = false;
    return written;
}

void RecordingFeed::feedLine(const QByteArray &line, qint64 arrivalMs)
{
    const qint64 arrival = recordOne(line, arrivalMs);
    m_parser->feedLine(line, arrival);
}

void RecordingFeed::feedLines(const QList<QByteArray> &lines, qint64 arrivalMs)
{
    qint64 arrival = arrivalMs;
    for (const QByteArray &line : lines)
        arrival = std::max(arrival, recordOne(line, arrivalMs));
    m_parser->feedLines(lines, arrival);
}

// ---------------------------------------------------------------------------------------
// RecordingReader

struct RecordingReader::Json {
    simdjson::dom::parser parser;
};

RecordingReader::RecordingReader(QObject *parent)
    : QObject(parent)
    , m_json(std::make_unique<Json>())
{
}

RecordingReader::~RecordingReader() = default;

bool RecordingReader::readRawLine(QByteArray *line)
{
    if (m_hasFirstLine) {
        *line = m_firstLine;
        m_firstLine.clear();
        m_hasFirstLine = false;
        m_rawOffset = m_firstLineOffset;
        ++m_fileLine;
        return true;
    }
    // A pipe says it is at its end whenever nothing is buffered yet: it is read (and waited
    // for) until a read gives nothing.
    if (!m_file.isOpen() || (!m_file.isSequential() && fileAtEnd()))
        return false;
    m_rawOffset = m_file.isSequential() ? m_file.pos() : m_file.pos() - readAheadBytes();
    // A pipe hands out what has arrived: a line is read until its newline or the end. Lines
    // are cut from blocks read ahead: QIODevice::readLine took 0.3-0.7 s per 100 MB (it reads
    // what its buffer does not hold byte by byte, and readLine(n) allocates n bytes up front).
    QByteArray bytes;
    while (!bytes.endsWith('\n')) {
        const qsizetype available = readAheadBytes();
        if (available > 0) {
            const char *begin = m_readAhead.constData() + m_readAheadPos;
            const void *newline = std::memchr(begin, '\n', size_t(available));
            const qsizetype taken
                = newline ? qsizetype(static_cast<const char *>(newline) - begin) + 1 : available;
            bytes.append(begin, taken);
            m_readAheadPos += taken;
            m_bytesRead += taken;
            if (overLimit(bytes.endsWith('\n') ? 0 : bytes.size()))
                return false;
            continue;
        }
        m_readAhead.resize(readAheadBlockBytes);
        m_readAheadPos = 0;
        QString error;
        const qint64 got
            = readSome(m_file, m_readAhead.data(), readAheadBlockBytes, m_stop, &error);
        m_readAhead.resize(got > 0 ? qsizetype(got) : 0);
        if (got < 0) { // what was read of the line is still handed out; the next read ends
            m_readError = QStringLiteral("cannot read %1: %2").arg(m_file.fileName(), error);
            m_file.close();
        }
        if (got <= 0)
            break;
    }
    if (bytes.isEmpty())
        return false;
    ++m_fileLine;
    m_lastLineTerminated = bytes.endsWith('\n');
    *line = withoutTerminator(bytes);
    return true;
}

bool RecordingReader::open(const QString &path, QString *errorMessage)
{
    auto fail = [&](const QString &message) {
        if (errorMessage)
            *errorMessage = message;
        m_file.close();
        m_format = Format::Unknown;
        return false;
    };
    m_file.setFileName(path);
    const QString kind = LocalFileCheck::whyNotRead(path, QString(), true);
    if (!kind.isEmpty())
        return fail(QStringLiteral("%1 %2").arg(path, kind));
    if (!openFile(path))
        return fail(QStringLiteral("cannot read %1: %2").arg(path, m_file.errorString()));
    m_totalBytes = m_file.size();

    // The first non-blank line tells the format (from a pipe, it is waited for: readSome).
    QByteArray first;
    bool gotLine = false;
    while (!gotLine && readRawLine(&first))
        gotLine = !first.trimmed().isEmpty();
    if (!m_readError.isEmpty())
        return fail(m_readError);
    m_format = Format::StreamJson;
    simdjson::dom::object object;
    const QByteArray trimmed = first.trimmed();
    if (!trimmed.isEmpty()
        && m_json->parser.parse(trimmed.constData(), size_t(trimmed.size())).get(object)
            == simdjson::SUCCESS) {
        auto has = [&](const char *key) {
            return object[key].error() == simdjson::SUCCESS;
        };
        std::string_view type;
        if (object["type"].get(type) != simdjson::SUCCESS)
            type = {};
        if (has("sandscope_recording")) {
            m_format = Format::Recording;
            m_header = QJsonDocument::fromJson(trimmed).object();
            m_lineSource = std::make_shared<LineSource>();
            m_lineSource->addFile(path, m_format, lineSourceHold());
            return true; // the header is not a line of the run
        }
        if (has("t") && (has("line") || has("line_base64")) && !has("type")) {
            m_format = Format::Recording; // a recording whose header is missing
        } else if (has("sessionId") || type == "queue-operation" || type == "attachment"
            || type == "last-prompt" || type == "summary" || type == "file-history-snapshot") {
            m_format = Format::Transcript;
            for (const SubagentTranscript &subagent : SubagentSplicer::findLocal(path))
                m_subagents.add(subagent);
        }
    }
    m_lineSource = std::make_shared<LineSource>();
    m_lineSource->addFile(path, m_format, lineSourceHold());
    m_subagents.setLineSource(m_lineSource);
    if (gotLine) { // handed out again, with the same line number, by the next read
        m_firstLine = first;
        m_firstLineOffset = m_rawOffset;
        m_hasFirstLine = true;
        --m_fileLine;
    }
    return true;
}

// A named pipe is opened without waiting for a writer (open(2) would block until one comes,
// out of reach of the stop flag): its reads then wait in readSome, which a stop ends.
bool RecordingReader::openFile(const QString &path)
{
    if (!LocalFileCheck::isNamedPipe(path))
        return m_file.open(QIODevice::ReadOnly);
    const int descriptor
        = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (descriptor < 0)
        return m_file.open(QIODevice::ReadOnly); // says why
    const int flags = ::fcntl(descriptor, F_GETFL);
    if (flags >= 0)
        ::fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK);
    if (!m_file.open(descriptor, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(descriptor);
        return false;
    }
    return true;
}

LineSource::Hold RecordingReader::lineSourceHold() const
{
    return m_file.isSequential() ? LineSource::Hold::Never : LineSource::Hold::Open;
}

// A line (its part read so far, lineBytes) or the file over the limits: reading ends, why is
// readError().
bool RecordingReader::overLimit(qint64 lineBytes)
{
    if (lineBytes <= m_maxLineBytes && m_bytesRead <= m_maxFileBytes)
        return false;
    m_readError = lineBytes > m_maxLineBytes
        ? QStringLiteral("%1: line %2 is longer than %3, which no run file has: stopped reading")
              .arg(m_file.fileName())
              .arg(m_fileLine + 1)
              .arg(format::byteSize(m_maxLineBytes))
        : QStringLiteral("%1 is larger than %2, which no run file is: stopped reading")
              .arg(m_file.fileName(), format::byteSize(m_maxFileBytes));
    m_file.close();
    return true;
}

bool RecordingReader::wouldWait() const
{
    if (!m_file.isOpen() || !m_file.isSequential() || m_hasFirstLine || readAheadBytes() > 0)
        return false;
    pollfd descriptor {m_file.handle(), POLLIN, 0};
    return ::poll(&descriptor, 1, 0) == 0;
}

bool RecordingReader::atEnd() const
{
    return !m_hasFirstLine && m_plainQueue.empty() && (!m_file.isOpen() || fileAtEnd());
}

bool RecordingReader::fileAtEnd() const
{
    return readAheadBytes() == 0 && m_file.atEnd();
}

bool RecordingReader::decodeRecordingEntry(const QByteArray &line, RecordedLine *out)
{
    auto problem = [&](const QString &why) {
        addProblem(QStringLiteral("line %1: %2").arg(m_fileLine).arg(why));
        return false;
    };
    simdjson::dom::object object;
    if (m_json->parser.parse(line.constData(), size_t(line.size())).get(object)
        != simdjson::SUCCESS)
        return problem(QStringLiteral("not a recording entry (corrupt or cut short)"));
    if (object["sandscope_recording"].error() == simdjson::SUCCESS)
        return false; // a header: nothing to replay
    simdjson::dom::element time;
    if (object["t"].get(time) != simdjson::SUCCESS || !time.is_number())
        return problem(QStringLiteral("entry without an arrival time \"t\""));
    const qint64 arrival
        = time.is_int64() ? qint64(time.get_int64().value()) : qint64(time.get_double().value());
    std::string_view text;
    if (object["line"].get(text) == simdjson::SUCCESS) {
        out->line = QByteArray(text.data(), qsizetype(text.size()));
    } else if (object["line_base64"].get(text) == simdjson::SUCCESS) {
        out->line = QByteArray::fromBase64(QByteArray(text.data(), qsizetype(text.size())));
    } else {
        return problem(QStringLiteral("entry without \"line\""));
    }
    m_lastArrivalMs = std::max(m_lastArrivalMs, arrival);
    out->arrivalMs = m_lastArrivalMs;
    out->fileLine = m_fileLine;
    return true;
}

void RecordingReader::locate(RecordedLine *out, const QByteArray &raw) const
{
    out->fileOffset = m_rawOffset;
    out->fileLength = raw.size();
}

void RecordingReader::addProblem(const QString &problem)
{
    m_problems.append(problem);
    Q_EMIT problemFound(problem);
}

qint64 RecordingReader::timestampOf(const QByteArray &line) const
{
    simdjson::dom::object object;
    std::string_view text;
    if (m_json->parser.parse(line.constData(), size_t(line.size())).get(object) != simdjson::SUCCESS
        || object["timestamp"].get(text) != simdjson::SUCCESS)
        return -1;
    return jsonfields::isoTimeMs(text);
}

// Plain captures: lines take their own "timestamp"; lines without one (system, result) take
// the latest time seen, and the head of the file, before any timestamp, takes the first one.
bool RecordingReader::fillPlainQueue()
{
    QByteArray line;
    qsizetype waiting = 0;
    while (readRawLine(&line)) {
        RecordedLine entry {line, -1, m_fileLine};
        locate(&entry, line);
        const qint64 stamp = line.trimmed().isEmpty() ? -1 : timestampOf(line);
        if (stamp >= 0) {
            const qint64 arrival = std::max(stamp, m_lastArrivalMs);
            for (RecordedLine &earlier : m_plainQueue) {
                if (earlier.arrivalMs < 0)
                    earlier.arrivalMs = m_lastArrivalMs > 0 ? m_lastArrivalMs : arrival;
            }
            entry.arrivalMs = arrival;
            m_lastArrivalMs = arrival;
            m_plainQueue.push_back(entry);
            return true;
        }
        if (m_lastArrivalMs > 0) {
            entry.arrivalMs = m_lastArrivalMs;
            m_plainQueue.push_back(entry);
            return true;
        }
        m_plainQueue.push_back(entry);
        if (++waiting >= maxLinesWithoutTimestamp)
            break;
    }
    for (RecordedLine &earlier : m_plainQueue) {
        if (earlier.arrivalMs < 0)
            earlier.arrivalMs = m_lastArrivalMs;
    }
    return !m_plainQueue.empty();
}

bool RecordingReader::readLine(RecordedLine *out)
{
    if (m_format == Format::StreamJson) {
        if (m_plainQueue.empty() && !fillPlainQueue())
            return false;
        *out = m_plainQueue.front();
        m_plainQueue.pop_front();
        return true;
    }
    QByteArray line;
    if (m_format == Format::Transcript) {
        // Records carry their own times (RunParser reads them). A last line without its
        // newline is still being written: it is left for a later read, unless it is whole.
        while (readRawLine(&line)) {
            if (line.trimmed().isEmpty())
                continue;
            simdjson::dom::element parsed;
            if (!m_lastLineTerminated && fileAtEnd()
                && m_json->parser.parse(line.constData(), size_t(line.size())).get(parsed)
                    != simdjson::SUCCESS) {
                addProblem(QStringLiteral("line %1: incomplete, still being written (not shown)")
                               .arg(m_fileLine));
                return false;
            }
            // No time of its own: RunParser gives each record its timestamp, and those before
            // the first timed one (the REPL's files start with mode, permission-mode, …) none,
            // so the run starts at its first timed record, not at the epoch.
            *out = RecordedLine {line, -1, m_fileLine};
            locate(out, line);
            return true;
        }
        return false;
    }
    if (m_format != Format::Recording)
        return false;
    while (readRawLine(&line)) {
        if (line.trimmed().isEmpty())
            continue;
        if (decodeRecordingEntry(line, out)) {
            locate(out, line);
            return true;
        }
    }
    return false;
}

RunEventBatch RecordingReader::eventsOf(RunParser &parser, const RecordedLine &line)
{
    RunEventBatch events = parser.parseLine(line.line, line.arrivalMs);
    if (line.fileOffset >= 0) {
        LineSource::locate(events.begin(), events.end(),
            LineRef {0, 0, line.fileOffset, line.fileLength}, m_keepLines);
    }
    if (m_format == Format::Transcript)
        m_subagents.splice(events);
    return events;
}

// -1: a transcript record (the caller takes the event path); 0: nothing of the run; 1: a line
// of the run. [begin, end) is one raw line without its "\n", followed by padding.
int RecordingReader::scanLine(RunSummaryScanner &scanner, const char *begin, const char *end)
{
    const std::string_view raw
        = streamjson::withoutTerminator(std::string_view(begin, size_t(end - begin)));
    auto counted = [](RunSummaryScanner::Line line) {
        return line == RunSummaryScanner::Line::NeedsEvents ? -1
            : line == RunSummaryScanner::Line::Counted      ? 1
                                                            : 0;
    };
    if (m_format == Format::StreamJson)
        return counted(scanner.scanPadded(raw));
    // A recording entry, decoded as decodeRecordingEntry does (same problems reported).
    if (streamjson::isBlank(raw))
        return 0;
    auto problem = [&](const QString &why) {
        addProblem(QStringLiteral("line %1: %2").arg(m_fileLine).arg(why));
        return 0;
    };
    simdjson::dom::object object;
    if (m_json->parser.parse(raw.data(), raw.size(), false).get(object) != simdjson::SUCCESS)
        return problem(QStringLiteral("not a recording entry (corrupt or cut short)"));
    if (object["sandscope_recording"].error() == simdjson::SUCCESS)
        return 0;
    simdjson::dom::element time;
    if (object["t"].get(time) != simdjson::SUCCESS || !time.is_number())
        return problem(QStringLiteral("entry without an arrival time \"t\""));
    std::string_view text;
    const bool hasLine = object["line"].get(text) == simdjson::SUCCESS;
    if (hasLine || object["line_base64"].error() == simdjson::SUCCESS) {
        // The entry's arrival time, never less than the one before (decodeRecordingEntry).
        m_lastArrivalMs = std::max(m_lastArrivalMs,
            time.is_int64() ? qint64(time.get_int64().value()) : qint64(time.get_double().value()));
        scanner.setLineTime(m_lastArrivalMs);
    }
    if (hasLine)
        return counted(scanner.scan(text));
    if (object["line_base64"].get(text) == simdjson::SUCCESS) {
        const QByteArray decoded
            = QByteArray::fromBase64(QByteArray::fromRawData(text.data(), qsizetype(text.size())));
        return counted(scanner.scan(std::string_view(decoded.constData(), size_t(decoded.size()))));
    }
    return problem(QStringLiteral("entry without \"line\""));
}

bool RecordingReader::summarize(RunSummaryBuilder *builder, qint64 *lines, qint64 blockBytes)
{
    *lines = 0;
    if (m_format != Format::StreamJson && m_format != Format::Recording)
        return false;
    RunSummaryScanner scanner(builder);
    builder->reserveForInput(m_totalBytes); // 0 for a pipe: it grows as it reads
    auto take = [&](int scanned) {
        if (scanned < 0)
            return false;
        *lines += scanned;
        return true;
    };
    if (m_hasFirstLine) {
        m_hasFirstLine = false;
        ++m_fileLine;
        const QByteArray first = m_firstLine + QByteArray(qsizetype(scanner.padding), '\0');
        m_firstLine.clear();
        if (!take(scanLine(scanner, first.constData(),
                first.constData() + first.size() - qsizetype(scanner.padding))))
            return false;
    }
    // Mapped, the lines are parsed where they are; only those too close to the end of the
    // mapping for simdjson's padding are copied.
    // What open() read ahead: mapped, from where it starts; else the first block's start.
    const qint64 start = m_file.pos() - readAheadBytes();
    const qint64 length = m_totalBytes - start;
    if (length > 0 && m_file.isOpen() && blockBytes <= 0) {
        if (uchar *mapped = m_file.map(start, length)) {
            const char *data = reinterpret_cast<const char *>(mapped);
            const size_t end = size_t(length);
            std::vector<char> tail;
            size_t position = 0;
            size_t prefetched = 0;
            while (position < end) {
                for (const size_t ahead = std::min(end, position + prefetchBytes);
                     prefetched < ahead; prefetched += 64)
                    __builtin_prefetch(data + prefetched);
                const void *found = std::memchr(data + position, '\n', end - position);
                const size_t lineEnd
                    = found ? size_t(static_cast<const char *>(found) - data) : end;
                ++m_fileLine;
                m_lastLineTerminated = found != nullptr;
                const char *begin = data + position;
                if (lineEnd + scanner.padding > end) {
                    tail.assign(begin, data + lineEnd);
                    tail.resize(tail.size() + scanner.padding, '\0');
                    begin = tail.data();
                }
                if (!take(scanLine(scanner, begin, begin + (lineEnd - position)))) {
                    m_file.unmap(mapped);
                    return false;
                }
                position = lineEnd + 1;
            }
            m_bytesRead += length;
            m_file.unmap(mapped);
            m_file.seek(m_totalBytes);
            m_readAhead.clear();
            m_readAheadPos = 0;
            return true;
        }
    }
    // A file open() read whole (most small ones) needs no 4 MiB buffer for the read that finds
    // its end: zeroing one was a fifth of `replay --summary --json` on a one-line file. Should
    // that read find more (the file grew), the next ones take full blocks again, as a pipe's
    // do: a long line is searched again after every block.
    const bool readWhole
        = m_file.isOpen() && !m_file.isSequential() && m_file.pos() >= m_totalBytes;
    qint64 block = blockBytes > 0 ? blockBytes : readWhole ? qint64(64) * 1024 : summaryBlockBytes;
    std::vector<char> buffer(
        m_readAhead.constData() + m_readAheadPos, m_readAhead.constData() + m_readAhead.size());
    size_t used = buffer.size(); // the start of a line not yet complete
    m_bytesRead += qint64(used);
    m_readAhead.clear();
    m_readAheadPos = 0;
    while (m_file.isOpen()) {
        if (buffer.size() < used + size_t(block) + scanner.padding)
            buffer.resize(used + size_t(block) + scanner.padding);
        QString error;
        const qint64 got = readSome(m_file, buffer.data() + used, block, m_stop, &error);
        if (got < 0) {
            m_readError = QStringLiteral("cannot read %1: %2").arg(m_file.fileName(), error);
            m_file.close();
            return true;
        }
        m_bytesRead += got;
        const char *data = buffer.data();
        const size_t end = used + size_t(got);
        size_t position = 0;
        while (position < end) {
            const void *found = std::memchr(data + position, '\n', end - position);
            if (!found)
                break;
            const size_t newline = size_t(static_cast<const char *>(found) - data);
            ++m_fileLine;
            if (!take(scanLine(scanner, data + position, data + newline)))
                return false;
            position = newline + 1;
        }
        if (got == 0) { // end of file: an unterminated last line counts as it is
            if (position < end) {
                ++m_fileLine;
                m_lastLineTerminated = false;
                if (!take(scanLine(scanner, data + position, data + end)))
                    return false;
            }
            break;
        }
        if (blockBytes <= 0)
            block = summaryBlockBytes;
        std::memmove(buffer.data(), data + position, end - position);
        used = end - position;
        if (overLimit(qint64(used)))
            return true;
        scanner.releaseLargeBuffers();
    }
    return true;
}

RunEventBatch RecordingReader::finishReading()
{
    if (m_finishedReading)
        return {};
    m_finishedReading = true;
    const RunEventBatch held = m_subagents.finish();
    for (const QString &missing : m_subagents.missingSubagents())
        addProblem(missing);
    return held;
}

bool summarizeRunFile(
    const QString &path, RunSummary *summary, QString *errorMessage, QStringList *problems)
{
    auto reader = std::make_unique<RecordingReader>();
    if (!reader->open(path, errorMessage))
        return false;
    RunSummaryBuilder builder;
    qint64 lines = 0;
    if (!reader->summarize(&builder, &lines)) {
        // A transcript (its sub-agents are spliced in) or a capture with transcript records:
        // the event path, from the start.
        reader = std::make_unique<RecordingReader>();
        if (!reader->open(path, errorMessage))
            return false;
        builder = RunSummaryBuilder();
        lines = 0;
        RunParser parser;
        RecordedLine line;
        while (reader->readLine(&line)) {
            if (!line.line.trimmed().isEmpty())
                ++lines;
            builder.add(reader->eventsOf(parser, line));
        }
    }
    builder.add(reader->finishReading());
    if (problems)
        *problems = reader->problems();
    if (!reader->readError().isEmpty()) {
        if (errorMessage)
            *errorMessage = reader->readError();
        return false;
    }
    if (summary) {
        *summary = builder.summary();
        summary->lines = lines;
    }
    return true;
}

} // namespace sandscope
