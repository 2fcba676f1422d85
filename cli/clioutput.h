#pragma once
// Terminal output shared by every `sandscope <verb>`: writes that are flushed at once (live
// output must appear also through a pipe), "sandscope: " error lines, and usage errors that
// point at the verb's --help.

#include <QByteArray>
#include <QDateTime>
#include <QJsonValue>
#include <QString>

#include <cstdio>

namespace sandscope::cli {

// Every verb exits with 2 on a usage error.
constexpr int usageErrorExitCode = 2;

bool writeBytes(FILE *stream, const QByteArray &bytes);
bool writeText(FILE *stream, const QString &text);
// Text for a person at a terminal (never --json): controls and escape sequences in it are shown
// visibly (TerminalSafe::text), so nothing from the server, a transcript or a file name acts on
// the terminal.
bool writeTerminalText(FILE *stream, const QString &text);
// "sandscope: <message>" on stderr, shown terminal-safe (messages quote the server and files).
void printError(const QString &message);
// Prints the message with a pointer to `sandscope <verb> --help` (or `sandscope --help`) and
// returns usageErrorExitCode.
int usageError(const QString &message, const QString &verb = {});

// The first line of `text` (trimmed), cut at `limit` characters; "…" marks what was left out.
// Terminal-safe (TerminalSafe::line): it is a row's field.
QString firstLine(const QString &text, int limit);
// ISO 8601 in UTC; empty for an invalid time.
QString isoTime(const QDateTime &time);
// JSON null for an empty text.
QJsonValue stringOrNull(const QString &text);

} // namespace sandscope::cli
