#include "shortcommand.h"

#include "server/lineassembler.h"
#include "server/processstream.h"

#include <QPointer>
#include <QTimer>

#include <memory>

namespace sandscope {

bool forEachListingRecord(const QString &output, const QString &homeMarker,
    const QString &recordMarker, int minimumFields, QString *home,
    const std::function<void(const QStringList &fields)> &record)
{
    home->clear();
    const QString recordPrefix = recordMarker + QLatin1Char('\t');
    const QStringList lines = output.split(QLatin1Char('\n'));
    for (QString line : lines) {
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        if (line.startsWith(homeMarker)) {
            *home = line.mid(homeMarker.size());
        } else if (line.startsWith(recordPrefix)) {
            const QStringList fields = line.split(QLatin1Char('\t'));
            if (fields.size() >= minimumFields)
                record(fields);
        }
    }
    return !home->isEmpty();
}

void parseTimeAndSize(const QString &field, QDateTime *modified, qint64 *size)
{
    // Milliseconds: a resume and a fork within one second must still order correctly.
    const QStringList numbers = field.split(QLatin1Char(' '));
    bool timeOk = false;
    const double seconds = numbers.value(0).toDouble(&timeOk);
    *modified = timeOk ? QDateTime::fromMSecsSinceEpoch(qint64(seconds * 1000.0 + 0.5), Qt::UTC)
                       : QDateTime();
    *size = numbers.value(1).toLongLong();
}

void OutputLines::feed(const QString &text)
{
    m_lines->append(m_assembler->feed(text));
}

CommandOutput OutputLines::complete(int exitCode)
{
    QString rest = m_assembler->flush();
    if (rest.endsWith(QLatin1Char('\r')))
        rest.chop(1);
    if (!rest.isEmpty())
        m_lines->append(rest);
    CommandOutput output;
    output.lines = *m_lines;
    output.exitCode = exitCode;
    return output;
}

void runShortCommand(OpenTerminalClient *client, const Identity &identity, const QString &command,
    QObject *context, std::function<void(const Result<CommandOutput> &)> done, int timeoutMs)
{
    auto *stream = new ProcessStream(client, identity, context);
    stream->useShortCommandCadence();
    auto *timer = new QTimer(stream);
    timer->setSingleShot(true);
    OutputLines output;
    // The stream is the context's child: when the context is destroyed first, deleting the
    // stream aborts the call, which fails it, and `done` must not reach into the half-destroyed
    // context (UBSan caught a TerminalSession's resize callback doing so).
    const QPointer<QObject> alive(context);
    const bool hasContext = context != nullptr;
    // Delivers exactly once, then lets the stream go (it may be inside its own signal).
    auto deliver = [stream, done, alive, hasContext](const Result<CommandOutput> &result) {
        QObject::disconnect(stream, nullptr, nullptr, nullptr);
        stream->detach();
        stream->deleteLater();
        if (!hasContext || alive)
            done(result);
    };
    QObject::connect(stream, &ProcessStream::output, stream,
        [output](const QString &text) mutable { output.feed(text); });
    QObject::connect(stream, &ProcessStream::finished, stream,
        [output, deliver](int exitCode, ProcessStatus) mutable {
            deliver(Result<CommandOutput>::success(output.complete(exitCode)));
        });
    QObject::connect(stream, &ProcessStream::failed, stream,
        [deliver](const ApiError &error) { deliver(Result<CommandOutput>::failure(error)); });
    QObject::connect(timer, &QTimer::timeout, stream, [stream, command, timeoutMs, deliver] {
        stream->kill();
        ApiError error;
        error.kind = ApiError::Kind::Timeout;
        error.message = QStringLiteral("\"%1\" did not finish within %2 s")
                            .arg(command)
                            .arg(timeoutMs / 1000);
        deliver(Result<CommandOutput>::failure(error));
    });
    timer->start(timeoutMs);
    stream->start(command);
}

} // namespace sandscope
