#include "claudecommand.h"

#include "util/shellquote.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QRegularExpression>

#include <algorithm>

namespace sandscope {

namespace {

constexpr int maxAppendedSystemPromptBytes = 16 * 1024;
constexpr int maxOptionValueLength = 4096;

QString quote(const QString &text)
{
    return shell::quote(text);
}

bool hasControlCharacters(const QString &text)
{
    return std::any_of(text.cbegin(), text.cend(),
        [](QChar c) { return c.unicode() < 0x20 || c.unicode() == 0x7f; });
}

// A short, single-line option value: the model, a tool rule, a directory, a session id.
QString checkValue(const QString &what, const QString &value)
{
    if (value.isEmpty())
        return QStringLiteral("%1 is empty").arg(what);
    if (hasControlCharacters(value))
        return QStringLiteral("%1 contains control characters").arg(what);
    if (value.size() > maxOptionValueLength)
        return QStringLiteral("%1 is longer than %2 characters")
            .arg(what)
            .arg(maxOptionValueLength);
    return {};
}

bool matchesIdRule(
    const QString &text, const QRegularExpression &rule, const QString &what, QString *why)
{
    if (rule.match(text).hasMatch())
        return true;
    if (why)
        *why = QStringLiteral("%1 must be 1-64 characters of A-Z, a-z, 0-9, '-' and '_', starting "
                              "with a letter or digit")
                   .arg(what);
    return false;
}

} // namespace

RunPaths RunPaths::make(
    const QString &home, const QString &chatId, const QString &runId, const QString &envFileName)
{
    RunPaths paths;
    paths.home = home;
    paths.workDirectory = home + QLatin1String("/chat-") + chatId;
    paths.envFile = home + QLatin1String("/.sandscope/") + envFileName;
    paths.runDirectory = home + QLatin1String("/.sandscope/runs/") + chatId;
    const QString base = paths.runDirectory + QLatin1Char('/') + runId;
    paths.promptFile = base + QLatin1String(".prompt");
    paths.teeFile = base + QLatin1String(".jsonl");
    paths.stderrFile = base + QLatin1String(".stderr");
    paths.exitFile = base + QLatin1String(".exit");
    paths.pidFile = base + QLatin1String(".pid");
    return paths;
}

namespace claudecommand {

QString beginMarker(const QString &runId)
{
    return QLatin1String("SANDSCOPE-RUN-BEGIN ") + runId;
}

bool isValidChatId(const QString &chatId, QString *why)
{
    static const QRegularExpression rule(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"));
    return matchesIdRule(chatId, rule, QStringLiteral("A chat id"), why);
}

bool isValidRunId(const QString &runId, QString *why)
{
    static const QRegularExpression rule(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"));
    return matchesIdRule(runId, rule, QStringLiteral("A run id"), why);
}

bool isValidEnvFileName(const QString &name, QString *why)
{
    static const QRegularExpression rule(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"));
    return matchesIdRule(name, rule, QStringLiteral("An env file name"), why);
}

bool isValidEnvName(const QString &name)
{
    static const QRegularExpression rule(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    return rule.match(name).hasMatch();
}

QString newRunId()
{
    const QString stamp
        = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    const quint32 random = QRandomGenerator::global()->generate();
    return stamp + QLatin1Char('-') + QStringLiteral("%1").arg(random, 8, 16, QLatin1Char('0'));
}

QStringList permissionModes()
{
    return {QStringLiteral("acceptEdits"), QStringLiteral("auto"),
        QStringLiteral("bypassPermissions"), QStringLiteral("default"), QStringLiteral("dontAsk"),
        QStringLiteral("manual"), QStringLiteral("plan")};
}

QString validate(const ClaudeRunOptions &options)
{
    QString problem;
    if (!options.model.isEmpty()
        && !(problem = checkValue(QStringLiteral("The model"), options.model)).isEmpty())
        return problem;
    if (!options.permissionMode.isEmpty() && !permissionModes().contains(options.permissionMode))
        return QStringLiteral("Unknown permission mode (expected one of %1)")
            .arg(permissionModes().join(QLatin1String(", ")));
    for (const QString &tool : options.allowedTools) {
        if (!(problem = checkValue(QStringLiteral("An allowed tool"), tool)).isEmpty())
            return problem;
    }
    for (const QString &tool : options.disallowedTools) {
        if (!(problem = checkValue(QStringLiteral("A disallowed tool"), tool)).isEmpty())
            return problem;
    }
    if (options.maxTurns < 0)
        return QStringLiteral("The maximum number of turns must not be negative");
    if (!shell::isPassable(options.appendSystemPrompt))
        return QStringLiteral("The appended system prompt contains a NUL character");
    if (options.appendSystemPrompt.toUtf8().size() > maxAppendedSystemPromptBytes)
        return QStringLiteral("The appended system prompt is longer than %1 bytes")
            .arg(maxAppendedSystemPromptBytes);
    for (const QString &directory : options.extraDirectories) {
        if (!(problem = checkValue(QStringLiteral("An extra directory"), directory)).isEmpty())
            return problem;
    }
    if (!options.resumeSessionId.isEmpty()) {
        static const QRegularExpression sessionRule(
            QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"));
        if (!sessionRule.match(options.resumeSessionId).hasMatch())
            return QStringLiteral("The session to resume must be a session id (letters, digits, "
                                  "'.', '-', '_')");
    }
    if (options.forkSession && options.resumeSessionId.isEmpty())
        return QStringLiteral("Forking needs a session to resume");
    return {};
}

// Every value is attached with '=' (--model=x): commander then never mistakes a value that
// starts with '-' for an option, and a list is the same flag repeated (the CLI accumulates
// repeated --allowedTools / --add-dir, checked with 2.1.332).
QStringList arguments(const ClaudeRunOptions &options)
{
    QStringList args {QStringLiteral("-p"), QStringLiteral("--output-format=stream-json"),
        QStringLiteral("--verbose")};
    if (!options.model.isEmpty())
        args << QLatin1String("--model=") + options.model;
    if (!options.permissionMode.isEmpty())
        args << QLatin1String("--permission-mode=") + options.permissionMode;
    for (const QString &tool : options.allowedTools)
        args << QLatin1String("--allowedTools=") + tool;
    for (const QString &tool : options.disallowedTools)
        args << QLatin1String("--disallowedTools=") + tool;
    if (options.maxTurns > 0)
        args << QLatin1String("--max-turns=") + QString::number(options.maxTurns);
    if (!options.appendSystemPrompt.isEmpty())
        args << QLatin1String("--append-system-prompt=") + options.appendSystemPrompt;
    for (const QString &directory : options.extraDirectories)
        args << QLatin1String("--add-dir=") + directory;
    if (options.includePartialMessages)
        args << QStringLiteral("--include-partial-messages");
    if (options.forwardSubagentText)
        args << QStringLiteral("--forward-subagent-text");
    if (!options.resumeSessionId.isEmpty())
        args << QLatin1String("--resume=") + options.resumeSessionId;
    if (options.forkSession)
        args << QStringLiteral("--fork-session");
    return args;
}

bool envFileContent(const QHash<QString, QString> &environment, QString *content, QString *why)
{
    QStringList names = environment.keys();
    std::sort(names.begin(), names.end());
    QString text;
    for (const QString &name : std::as_const(names)) {
        if (!isValidEnvName(name)) {
            if (why)
                *why = QStringLiteral("Not a valid environment variable name: %1").arg(name);
            return false;
        }
        const QString value = environment.value(name);
        if (!shell::isPassable(value)) {
            if (why)
                *why = QStringLiteral("The value of %1 contains a NUL character").arg(name);
            return false;
        }
        text += name + QLatin1Char('=') + quote(value) + QLatin1Char('\n');
    }
    *content = text;
    return true;
}

QString prepareScript(const QString &chatId, const QString &envFileName)
{
    // Tilde expands only unquoted, so ~/ stays outside the quoted part.
    const QString chat = QLatin1String("~/") + quote(QLatin1String("chat-") + chatId);
    const QString runs = QLatin1String("~/") + quote(QLatin1String(".sandscope/runs/") + chatId);
    const QString env = QLatin1String("~/") + quote(QLatin1String(".sandscope/") + envFileName);
    // 007: the server account shares each user's group and reads the runs through it (a
    // multi-user server that is not root has no other way in; its file API also sets 2770 on
    // every folder it writes into). Folders an older version or the user left open to others
    // are closed. The env file is created 0600 by its owner and then opened for the server's
    // group to write only (0620): /files/write keeps the mode of an existing file (adding
    // g+w), so the secret never sits in a file anyone but the owner can read.
    return QLatin1String("umask 007 && mkdir -p ") + chat + QLatin1Char(' ') + runs
        + QLatin1String(" && chmod o-rwx ~/.sandscope ~/.sandscope/runs ") + runs
        + QLatin1String(" && rm -f ") + env + QLatin1String(" && (umask 077 && : > ") + env
        + QLatin1String(") && chmod 620 ") + env
        + QLatin1String(" && printf 'SANDSCOPE-HOME=%s\\n' \"$HOME\"");
}

QString verifyScript(const RunPaths &paths)
{
    // The server never reads either again: both become the owner's alone (an upload is 0664).
    return QLatin1String("chmod 600 ") + quote(paths.envFile) + QLatin1Char(' ')
        + quote(paths.promptFile) + QLatin1String(" && stat -c 'SANDSCOPE-STAT %a %s %n' ")
        + quote(paths.envFile) + QLatin1Char(' ') + quote(paths.promptFile);
}

QString runScript(const ClaudeRunOptions &options, const RunPaths &paths, const QString &runId)
{
    const QString exitPart = paths.exitFile + QLatin1String(".part");
    // POSIX sh only (single-user servers run dash, without pipefail or PIPESTATUS): claude's
    // own status is kept in a file, which is renamed into place once tee has written all.
    // stdin, stdout and stderr of claude are all redirected, so it writes no terminal
    // control sequences into the PTY stream.
    // The env file holds the agent's secrets: it is removed as soon as it is read, also when
    // the run cannot start, so none is left on the server after the run.
    // The run's own files are made first, closed to others (the server's group reads the tee,
    // stderr and exit files back), without changing the umask claude and its tools run with.
    return QLatin1String("cd ") + quote(paths.workDirectory)
        + QLatin1String(" && (umask 027 && : > ") + quote(paths.pidFile) + QLatin1String(" && : > ")
        + quote(paths.stderrFile) + QLatin1String(" && : > ") + quote(paths.teeFile)
        + QLatin1String(" && : > ") + quote(exitPart) + QLatin1String(") && set -a && . ")
        + quote(paths.envFile) + QLatin1String(" && set +a && rm -f ") + quote(paths.envFile)
        + QLatin1String(" && echo $$ > ") + quote(paths.pidFile) + QLatin1String(" || { rm -f ")
        + quote(paths.envFile) + QLatin1String("; exit 125; }; printf '\\n%s\\n' ")
        + quote(beginMarker(runId)) + QLatin1String("; { claude ") + shell::join(arguments(options))
        + QLatin1String(" < ") + quote(paths.promptFile) + QLatin1String(" 2> ")
        + quote(paths.stderrFile) + QLatin1String("; echo $? > ") + quote(exitPart)
        + QLatin1String("; } | tee ") + quote(paths.teeFile) + QLatin1String("; s=$(cat ")
        + quote(exitPart) + QLatin1String(") && mv -f ") + quote(exitPart) + QLatin1Char(' ')
        + quote(paths.exitFile) + QLatin1String(" && exit \"$s\"; exit 125");
}

QString detachedCommand(const QString &script)
{
    return QLatin1String("s=") + quote(script)
        + QLatin1String("; if command -v setsid >/dev/null 2>&1; then exec setsid -w sh -c "
                        "\"$s\"; fi; exec sh -c \"$s\"");
}

namespace {
// Succeeds while the run's shell runs, with its pid in $p. The pid alone could have been
// reused; the run's shell has the run id in its command line.
QString runShellCheck(const RunPaths &paths, const QString &runId)
{
    return QLatin1String("p=$(cat ") + quote(paths.pidFile)
        + QLatin1String(" 2>/dev/null) && tr '\\000' ' ' < /proc/\"$p\"/cmdline 2>/dev/null | "
                        "grep -qF -- ")
        + quote(runId);
}
} // namespace

QString livenessScript(const RunPaths &paths, const QString &runId)
{
    return runShellCheck(paths, runId) + QLatin1String(" && echo SANDSCOPE-ALIVE || { [ -e ")
        + quote(paths.pidFile)
        + QLatin1String(" ] && echo SANDSCOPE-GONE || echo SANDSCOPE-NEVER-RAN; }");
}

QString discardScript(const RunPaths &paths)
{
    return QLatin1String("rm -f -- ") + quote(paths.envFile)
        + QLatin1String(" && echo SANDSCOPE-DISCARDED");
}

QString signalScript(const RunPaths &paths, const QString &runId, const QString &signalName)
{
    // The group id is field 5 of /proc/<pid>/stat; the fields before it end with ") ", as the
    // command name in parentheses may itself contain spaces.
    return runShellCheck(paths, runId)
        + QLatin1String(" && g=$(sed 's/.*) //' /proc/\"$p\"/stat | cut -d' ' -f3) && "
                        "[ \"$g\" -gt 1 ] && kill -s ")
        + quote(signalName)
        + QLatin1String(" -- \"-$g\" && echo SANDSCOPE-SIGNALLED || echo SANDSCOPE-GONE");
}

} // namespace claudecommand
} // namespace sandscope
