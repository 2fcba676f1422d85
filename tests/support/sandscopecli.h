#pragma once
// Runs the built `sandscope` binary for the command-line tests: its exit code (-1 when it
// crashed or did not finish within `timeoutMs`, 30 s unless given) and everything it wrote.

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

namespace sandscope::test {

struct CliOutcome {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

inline CliOutcome runSandscope(const QStringList &arguments,
    const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment(),
    int timeoutMs = 30000)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(SANDSCOPE_BINARY), arguments);
    CliOutcome outcome;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        return outcome;
    }
    outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    outcome.out = process.readAllStandardOutput();
    outcome.err = process.readAllStandardError();
    return outcome;
}

// The same as text, for tests that read what a person or a JSON consumer reads.
struct CliText {
    int exitCode = -1;
    QString out;
    QString err;
    QString all() const { return out + err; }
    QJsonObject json() const { return QJsonDocument::fromJson(out.toUtf8()).object(); }
};

inline CliText cliText(const CliOutcome &outcome)
{
    return {outcome.exitCode, QString::fromUtf8(outcome.out), QString::fromUtf8(outcome.err)};
}

} // namespace sandscope::test
