#pragma once
// Turns Claude Code stream-json output, and the records of its session transcripts, into
// RunEvent values (docs/stream-json.md, "Line types and the events they become" and
// "Transcripts on disk"). Every line yields events: unknown types become Unknown, noise and
// corrupt JSON become NotJson, so nothing a stream contains can stop a run from being shown.
// A transcript's turns start at each real prompt, and its events take the records' times.

#include "streamjson/runevents.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>

#include <memory>

namespace sandscope {

class RunParser : public QObject {
    Q_OBJECT

public:
    explicit RunParser(QObject *parent = nullptr);
    ~RunParser() override;

    // One complete line (a trailing "\n" / "\r\n" is allowed). arrivalMs is when the line
    // arrived, in the caller's clock; it becomes RunEvent::arrivalMs. Emits eventsReady once
    // (unless the line is empty).
    void feedLine(const QByteArray &line, qint64 arrivalMs);
    void feedLine(const QString &line, qint64 arrivalMs);
    // Several complete lines, emitted as one batch.
    void feedLines(const QList<QByteArray> &lines, qint64 arrivalMs);
    // Raw output split anywhere (process pipe, PTY chunks): complete lines are parsed and
    // emitted as one batch; the unterminated rest waits for the next chunk or finish().
    void feedBytes(const QByteArray &chunk, qint64 arrivalMs);
    // Parses an unterminated last line (the CLI's ESC[?25h under a PTY has no newline).
    void finish(qint64 arrivalMs);

    // The synchronous core without signals, for summaries and tools that do not need a model.
    RunEventBatch parseLine(const QByteArray &line, qint64 arrivalMs);

    qint64 linesParsed() const { return m_lineNumber; }

Q_SIGNALS:
    void eventsReady(const sandscope::RunEventBatch &events);

private:
    void appendLine(const QByteArray &line, qint64 arrivalMs, RunEventBatch &out);
    void emitIfAny(const RunEventBatch &events);

    struct Impl;
    std::unique_ptr<Impl> m_impl;
    QByteArray m_pending; // feedBytes: bytes after the last "\n"
    qint64 m_lineNumber = 0;
    qint64 m_lastRecordMs = -1; // the newest transcript record time seen
};

} // namespace sandscope
