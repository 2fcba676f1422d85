#pragma once
// Quoting for POSIX shells (bash, dash): every argument becomes one single-quoted word that
// the shell passes on byte for byte. Inside single quotes nothing is special except the quote
// itself, which is written as '\'' (close, escaped quote, reopen). No $, `, \, ! or newline
// needs escaping there, and the result does not depend on the shell's options or locale.

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace sandscope::shell {

// Always the single-quoted form: '' for an empty argument, 'it'\''s' for "it's".
// A NUL cannot be passed in argv at all; callers reject it first (see isPassable).
QByteArray quote(const QByteArray &argument);
QString quote(const QString &argument);

// Quotes each argument and joins them with single spaces.
QString join(const QStringList &arguments);

// The command line that runs `words` the way `docker exec` and `kubectl exec` do: one word is
// a shell command line and stays as it is; several words are one argv, each word quoted.
QString commandLine(const QStringList &words);

// True when the text can travel as one argv element (it contains no NUL).
bool isPassable(const QString &argument);

} // namespace sandscope::shell
