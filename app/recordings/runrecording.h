#pragma once
// Run recordings: every stream-json line a run produced, with its arrival time, written to a
// local file as it arrives and before the view shows it, so nothing that was seen is lost when
// the app (or the machine's session) dies. Each line is flushed to the OS on its own; after
// a crash the file holds every line that was shown, at most the line being written is cut.
//
// Format (JSON lines, UTF-8, one object per line):
//   {"sandscope_recording":1,"created_ms":<ms since epoch>, ...metadata}      header
//   {"t":<arrival, ms since epoch>,"line":"<the raw line, JSON-escaped>"}      one per line
//   {"t":<arrival>,"line_base64":"<base64>"}       a raw line that is not valid UTF-8
// Arrival times never decrease. The raw line has no line terminator.
//
// RecordingReader opens a recording, a plain stream-json capture or a Claude Code session
// transcript (detected from the first line; a transcript's sub-agent files are spliced in) and
// hands out its lines and their events one at a time; RecordingLoader does that on a worker
// thread, so a large file loads with progress and can be cancelled without freezing the UI.

#include "recordings/linesource.h"
#include "recordings/recordingformat.h"
#include "recordings/subagentsplicer.h"
#include "streamjson/runevents.h"
#include "streamjson/runsummary.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <deque>
#include <memory>

namespace sandscope {

class LineSource;
class RunParser;
class RunSummaryBuilder;
class RunSummaryScanner;

class RunRecorder {
public:
    static constexpr int formatVersion = 1;

    RunRecorder();
    ~RunRecorder();
    RunRecorder(const RunRecorder &) = delete;
    RunRecorder &operator=(const RunRecorder &) = delete;

    // Creates (or truncates) path with owner-only permissions and writes the header.
    bool open(const QString &path, const QJsonObject &metadata = {});
    void close();
    bool isOpen() const;
    QString path() const { return m_path; }
    QString errorString() const { return m_error; }
    qint64 linesRecorded() const { return m_lines; }

    // Appends one line and hands it to the OS before returning. Returns the arrival time
    // written (arrivalMs, raised to the previous one if the clock went back), or -1 when the
    // file could not be written (errorString() says why).
    qint64 record(const QByteArray &line, qint64 arrivalMs);

    // Where the app keeps recordings: <app data>/recordings.
    static QString defaultDirectory();
    // A new file name in directory for a run, e.g. "run-20261129-093012-4babb74a.jsonl".
    static QString newRecordingPath(const QString &directory, const QString &label = {});

private:
    QFile m_file;
    QString m_path;
    QString m_error;
    qint64 m_lines = 0;
    qint64 m_lastArrivalMs = 0;
};

// The one way live lines should reach the parser: each line is recorded first (when a
// recorder is open), then parsed; the view can only show what is already on disk.
class RecordingFeed : public QObject {
    Q_OBJECT

public:
    RecordingFeed(RunParser *parser, RunRecorder *recorder, QObject *parent = nullptr);

    void setRecorder(RunRecorder *recorder) { m_recorder = recorder; }
    RunRecorder *recorder() const { return m_recorder; }

    // One complete line (no terminator needed).
    void feedLine(const QByteArray &line, qint64 arrivalMs);
    // Several complete lines, parsed as one batch after all of them were recorded.
    void feedLines(const QList<QByteArray> &lines, qint64 arrivalMs);

Q_SIGNALS:
    // Once per failure streak: the lines are still shown, but no longer recorded.
    void recordingFailed(const QString &message);

private:
    qint64 recordOne(const QByteArray &line, qint64 arrivalMs);

    RunParser *m_parser;
    RunRecorder *m_recorder;
    bool m_failing = false;
};

struct RecordedLine {
    QByteArray line;
    qint64 arrivalMs = 0;
    qint64 fileLine = 0; // 1-based line in the file it came from
    // Where the line is in that file, as written (a recording's entry, a capture's or a
    // transcript's line), without its terminator: RecordingReader::lineAt reads it again.
    qint64 fileOffset = -1;
    qint64 fileLength = 0;
};

class RecordingReader : public QObject {
    Q_OBJECT

public:
    using Format = RecordingFormat;

    explicit RecordingReader(QObject *parent = nullptr);
    ~RecordingReader() override;

    // Limits no real run file reaches (the longest line of a real transcript, an image-laden
    // message, is tens of MiB; docs/stream-json.md): a longer line or more bytes end the
    // reading with readError(), so endless inputs (a pipe that never ends) stop.
    static constexpr qint64 maxLineBytes = qint64(256) * 1024 * 1024;
    static constexpr qint64 maxFileBytes = qint64(64) * 1024 * 1024 * 1024;
    // Smaller limits (tests).
    void setLimits(qint64 lineBytes, qint64 fileBytes)
    {
        m_maxLineBytes = lineBytes;
        m_maxFileBytes = fileBytes;
    }

    // Opens path and detects its format; unreadable files are refused with a message, and so
    // are devices, sockets and folders (a pipe is read, within the limits). A named pipe's
    // first line is waited for here (until the stop flag is set, setStopFlag).
    bool open(const QString &path, QString *errorMessage = nullptr);
    Format format() const { return m_format; }
    // The file this reader reads, as LineSource source 0, and a transcript's sub-agent files
    // after it: the events eventsOf returns carry where their line is (RunEvent::rawRef).
    std::shared_ptr<LineSource> lineSource() const { return m_lineSource; }
    // Whether eventsOf's events keep their line (RunEvent::raw) when it can be read again
    // from the file (the default), or leave it out (a big file: RunModel::setLineSource).
    // Lines that are not JSON are kept either way (their node's title is made from them).
    void setKeepLines(bool keep)
    {
        m_keepLines = keep;
        m_subagents.setKeepLines(keep);
    }
    QString path() const { return m_file.fileName(); }
    QJsonObject header() const { return m_header; } // recordings only

    // The line `line` was, read again from the file (the run's view need not keep every line
    // in memory): the bytes at [offset, offset + length) of `file`, decoded when `format` is a
    // recording. Empty with *errorMessage set when they cannot be read or decoded. The file's
    // position does not move (pread), so several threads may read one open file at once.
    static QByteArray lineAt(
        QFile &file, Format format, qint64 offset, qint64 length, QString *errorMessage = nullptr)
    {
        return LineSource::readAt(file, format, offset, length, errorMessage);
    }

    // Synchronous reading (CLI, tests). Plain captures have no arrival times: the lines' own
    // "timestamp" fields are used where present, and lines without one take the nearest.
    bool readLine(RecordedLine *out);
    // The events of one line read by readLine, with a transcript's sub-agents spliced in
    // where they happened (a sub-agent's events can wait for a later line).
    RunEventBatch eventsOf(RunParser &parser, const RecordedLine &line);
    // Once all lines are read: the sub-agent events still waiting (they follow the last
    // line's), and what could not be shown, e.g. a sub-agent without its file (added to
    // problems()).
    [[nodiscard]] RunEventBatch finishReading();
    bool atEnd() const;
    qint64 bytesRead() const { return m_bytesRead; }
    qint64 totalBytes() const { return m_totalBytes; }
    // Entries of a recording that could not be read (e.g. the line a crash cut short); they
    // are skipped and reported, never fatal. Each is "line N: why".
    QStringList problems() const { return m_problems; }
    QString readError() const { return m_readError; }

    // The summary fast path for recordings and plain captures: reads the rest of the file in
    // 4 MiB blocks and hands each line to a RunSummaryScanner (one simdjson parse per line,
    // no RunEvents). Returns false, with the reader spent, for transcripts and for files that
    // turn out to hold transcript records: summarise those through readLine/eventsOf (a new
    // reader). *lines gets the run's non-blank lines. The file is mapped when it can be;
    // blockBytes > 0 reads it in blocks of that size instead (tests: lines split anywhere).
    bool summarize(RunSummaryBuilder *builder, qint64 *lines, qint64 blockBytes = 0);

    // Waits for a pipe (readLine) give up once *stop is set (RecordingLoader's worker).
    void setStopFlag(const std::atomic<bool> *stop) { m_stop = stop; }
    // Whether the next readLine would wait: a pipe with nothing read ahead and nothing to read
    // now (a writer that is quiet for a while).
    bool wouldWait() const;
    qint64 lastArrivalMs() const { return m_lastArrivalMs; }

Q_SIGNALS:
    void problemFound(const QString &problem);

private:
    bool readRawLine(QByteArray *line);
    qsizetype readAheadBytes() const { return m_readAhead.size() - m_readAheadPos; }
    bool fileAtEnd() const; // nothing read ahead is left either
    void locate(RecordedLine *out, const QByteArray &raw) const;
    bool decodeRecordingEntry(const QByteArray &line, RecordedLine *out);
    int scanLine(RunSummaryScanner &scanner, const char *begin, const char *end);
    qint64 timestampOf(const QByteArray &line) const;
    bool fillPlainQueue();
    void addProblem(const QString &problem);

    struct Json;
    std::unique_ptr<Json> m_json;
    QFile m_file;
    QByteArray m_readAhead; // read from m_file, not yet handed out (readRawLine)
    qsizetype m_readAheadPos = 0;
    std::shared_ptr<LineSource> m_lineSource;
    bool m_keepLines = true;
    Format m_format = Format::Unknown;
    QJsonObject m_header;
    QByteArray m_firstLine; // looked at for detection, not yet returned
    bool m_hasFirstLine = false;
    qint64 m_firstLineOffset = -1;
    qint64 m_rawOffset = -1; // of the line readRawLine returned last
    qint64 m_fileLine = 0;
    qint64 m_bytesRead = 0;
    qint64 m_totalBytes = 0;
    qint64 m_maxLineBytes = maxLineBytes;
    qint64 m_maxFileBytes = maxFileBytes;
    bool openFile(const QString &path); // m_file, a named pipe without waiting for a writer
    LineSource::Hold lineSourceHold() const; // a pipe's lines cannot be read again
    bool overLimit(qint64 lineBytes);
    qint64 m_lastArrivalMs = 0;
    QStringList m_problems;
    QString m_readError;
    std::deque<RecordedLine> m_plainQueue; // plain lines waiting for a known timestamp
    SubagentSplicer m_subagents; // transcripts only
    bool m_lastLineTerminated = true;
    bool m_finishedReading = false;
    const std::atomic<bool> *m_stop = nullptr;
};

// Summarises a capture, recording or transcript through RecordingReader::summarize (the fast
// path: big blocks, one parse per line; transcripts with their sub-agents spliced). Returns
// false and sets *errorMessage when the file cannot be read.
// *problems gets what RecordingReader::problems() reports (skipped entries, missing sub-agents).
bool summarizeRunFile(const QString &path, RunSummary *summary, QString *errorMessage = nullptr,
    QStringList *problems = nullptr);

} // namespace sandscope
