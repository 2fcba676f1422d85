#include "clioutput.h"

#include "util/terminalsafe.h"

namespace sandscope::cli {

bool writeBytes(FILE *stream, const QByteArray &bytes)
{
    if (!bytes.isEmpty()
        && std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stream) != size_t(bytes.size()))
        return false;
    return std::fflush(stream) == 0;
}

bool writeText(FILE *stream, const QString &text)
{
    return writeBytes(stream, text.toUtf8());
}

bool writeTerminalText(FILE *stream, const QString &text)
{
    return writeText(stream, TerminalSafe::text(text));
}

void printError(const QString &message)
{
    writeTerminalText(stderr, QStringLiteral("sandscope: ") + message + QLatin1Char('\n'));
}

int usageError(const QString &message, const QString &verb)
{
    const QString helpCommand = verb.isEmpty() ? QStringLiteral("sandscope --help")
                                               : QStringLiteral("sandscope %1 --help").arg(verb);
    printError(message + QStringLiteral(" (see '%1')").arg(helpCommand));
    return usageErrorExitCode;
}

QString firstLine(const QString &text, int limit)
{
    const QString trimmed = text.trimmed();
    QString line = trimmed.left(trimmed.indexOf(QLatin1Char('\n')));
    if (line.size() > limit)
        line = line.left(limit) + QStringLiteral("…");
    else if (line.size() < trimmed.size())
        line += QStringLiteral(" …");
    return TerminalSafe::line(line);
}

QString isoTime(const QDateTime &time)
{
    return time.isValid() ? time.toUTC().toString(Qt::ISODate) : QString();
}

QJsonValue stringOrNull(const QString &text)
{
    return text.isEmpty() ? QJsonValue() : QJsonValue(text);
}

} // namespace sandscope::cli
