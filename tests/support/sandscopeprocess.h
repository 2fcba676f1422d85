#pragma once
// The built `sandscope` binary run as a process by the verb tests: exit code (-1 when it
// crashed or did not end within the time), standard output and error.

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace sandscope::test {

struct Outcome {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

inline Outcome runSandscope(const QStringList &arguments, int timeoutMs = 30000)
{
    QProcess process;
    process.start(QStringLiteral(SANDSCOPE_BINARY), arguments);
    Outcome outcome;
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

} // namespace sandscope::test
