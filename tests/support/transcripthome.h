#pragma once
// A fake home with Claude Code transcripts (~/.claude/projects/<dir>/<session>.jsonl and the
// sub-agents' files) made from the captures in tests/data, and the local shell that runs the
// listing and search scripts in it the way the server would run them as the user.

#include <QByteArray>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QString>

namespace sandscope::test {

// The captures' session ids, which installed copies replace with their own.
inline const QString basicSessionId = QStringLiteral("69d37cd2-7f92-4547-b7cd-d2b4de2e2f3e");
inline const QString subagentSessionId = QStringLiteral("4babb74a-6fa5-4352-a0d3-723caf885db8");
inline const QString subagentFileName = QStringLiteral("agent-a38aee0b712458458.jsonl");

inline bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

inline bool appendToFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::Append) && file.write(bytes) == bytes.size();
}

inline QByteArray testData(const QString &name)
{
    QFile file(QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/") + name);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

inline bool setModified(const QString &path, const QDateTime &time)
{
    QFile file(path);
    return file.open(QIODevice::ReadWrite)
        && file.setFileTime(time, QFileDevice::FileModificationTime);
}

inline QString projectsDirectory(const QString &home)
{
    return home + QStringLiteral("/.claude/projects/");
}

// Installs transcript-basic.jsonl as session `sessionId` of `directory`; returns its path.
inline QString installBasicTranscript(
    const QString &home, const QString &directory, const QString &sessionId = basicSessionId)
{
    const QString path = projectsDirectory(home) + directory + QLatin1Char('/') + sessionId
        + QStringLiteral(".jsonl");
    QByteArray bytes = testData(QStringLiteral("transcript-basic.jsonl"));
    bytes.replace(basicSessionId.toUtf8(), sessionId.toUtf8());
    return writeFile(path, bytes) ? path : QString();
}

// Installs transcript-subagent/ (the main file and its sub-agent's) as session `sessionId`;
// returns the main file's path.
inline QString installSubagentTranscript(
    const QString &home, const QString &directory, const QString &sessionId = subagentSessionId)
{
    const QString base = projectsDirectory(home) + directory + QLatin1Char('/') + sessionId;
    const QString source = QStringLiteral("transcript-subagent/") + subagentSessionId;
    QByteArray main = testData(source + QStringLiteral(".jsonl"));
    QByteArray agent = testData(source + QStringLiteral("/subagents/") + subagentFileName);
    main.replace(subagentSessionId.toUtf8(), sessionId.toUtf8());
    agent.replace(subagentSessionId.toUtf8(), sessionId.toUtf8());
    const bool written = writeFile(base + QStringLiteral(".jsonl"), main)
        && writeFile(base + QStringLiteral("/subagents/") + subagentFileName, agent);
    return written ? base + QStringLiteral(".jsonl") : QString();
}

// Where record.sh ran the recorded scenarios (tests/data/transcripts): their cwd was
// <this><scenario>/chat-<scenario>.
inline const QByteArray recordedHomes = "/tmp/sandscope-transcripts.zDc3Q6/home-";

// Installs tests/data/transcripts/<scenario>/transcript as chat <scenario> of `home` (cwd
// rewritten to <home>/chat-<scenario>), last written `ageSeconds` ago; returns the main
// transcript's path, empty when a file could not be written.
inline QString installRecordedScenario(const QString &home, const QString &scenario, int ageSeconds)
{
    const QString source = QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/transcripts/") + scenario
        + QStringLiteral("/transcript");
    const QString chatDirectory = home + QStringLiteral("/chat-") + scenario;
    QString escaped = chatDirectory;
    for (QChar &c : escaped) {
        if (!(c.unicode() < 128 && c.isLetterOrNumber()))
            c = QLatin1Char('-');
    }
    const QString directory = projectsDirectory(home) + escaped;
    const QDateTime written = QDateTime::currentDateTimeUtc().addSecs(-ageSeconds);
    QString mainPath;
    QDirIterator files(source, QDir::Files, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        const QString from = files.next();
        const QString to = directory + from.mid(source.size());
        QFile file(from);
        if (!file.open(QIODevice::ReadOnly))
            return {};
        QByteArray bytes = file.readAll();
        bytes.replace(QByteArray(recordedHomes + scenario.toUtf8()), home.toUtf8());
        if (!writeFile(to, bytes) || !setModified(to, written))
            return {};
        if (to.endsWith(QLatin1String(".jsonl")) && !to.contains(QLatin1String("/subagents/")))
            mainPath = to;
    }
    return mainPath;
}

struct ShellOutput {
    int exitCode = -1;
    QString out;
    QString err;
};

// Runs `script` with `shell -c` and HOME=home, as the server runs it as the user.
inline ShellOutput runInHome(
    const QString &script, const QString &home, const QString &shell = QStringLiteral("sh"))
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("HOME"), home);
    process.setProcessEnvironment(environment);
    process.start(shell, {QStringLiteral("-c"), script});
    ShellOutput output;
    if (!process.waitForFinished(60000))
        process.kill();
    output.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    output.out = QString::fromUtf8(process.readAllStandardOutput());
    output.err = QString::fromUtf8(process.readAllStandardError());
    return output;
}

} // namespace sandscope::test
