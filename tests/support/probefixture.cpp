#include "probefixture.h"

#include "isolation/probesharedcheck.h"
#include "probing/probecalls.h"
#include "realserver.h"
#include "server/openterminalclient.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTimer>
#include <QtTest/QTest>

namespace sandscope::test {

ProbeRun runProbe(const RealServer &server, const ProbeOptions &options, int cancelAfterResults)
{
    OpenTerminalClient client(server.connection());
    IsolationProbe probe(&client);
    ProbeRun run;
    QEventLoop loop;
    QObject::connect(&probe, &IsolationProbe::resultReady, &loop, [&](const CheckResult &) {
        ++run.resultsEmitted;
        if (cancelAfterResults > 0 && run.resultsEmitted == cancelAfterResults)
            probe.cancel();
    });
    QObject::connect(&probe, &IsolationProbe::finished, &loop, [&](const ProbeReport &report) {
        run.report = report;
        run.finished = true;
        loop.quit();
    });
    QString why;
    if (!probe.start(options, &why)) {
        qWarning("probe refused to start: %s", qPrintable(why));
        return run;
    }
    QTimer::singleShot(120000, &loop, &QEventLoop::quit);
    loop.exec();
    return run;
}

QString verdictOf(const ProbeReport &report, CheckId check, const QString &subject)
{
    const CheckResult *result = report.find(check, subject);
    return result ? verdictName(result->verdict) : QStringLiteral("(missing)");
}

QStringList leftovers(const RealServer &server)
{
    QStringList found;
    const QStringList homes
        = QDir(QStringLiteral("/home")).entryList({server.prefix() + QLatin1Char('*')}, QDir::Dirs);
    for (const QString &home : homes) {
        const QStringList entries = QDir(QStringLiteral("/home/") + home)
                                        .entryList({QStringLiteral("*sandscope-probe-*")},
                                            QDir::AllEntries | QDir::Hidden);
        for (const QString &entry : entries)
            found << home + QLatin1Char('/') + entry;
    }
    // The root-only folder (sandscope-probe-root-*) and the shared-place markers.
    for (const QString &place : ProbeSharedCheck::places()) {
        const QStringList entries = QDir(place).entryList(
            {QStringLiteral("sandscope-probe-*")}, QDir::AllEntries | QDir::Hidden);
        for (const QString &entry : entries)
            found << place + QLatin1Char('/') + entry;
    }
    const QStringList processes = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &pid : processes) {
        QFile cmdline(QStringLiteral("/proc/") + pid + QStringLiteral("/cmdline"));
        if (cmdline.open(QIODevice::ReadOnly)) {
            const QByteArray text = cmdline.readAll();
            if (text.contains("sandscope-command-") || text.contains("sandscope-net-"))
                found << QStringLiteral("process %1: %2")
                             .arg(pid, QString::fromUtf8(text).replace(QChar(0), u' '));
        }
    }
    return found;
}

QStringList accountsOf(const RealServer &server)
{
    QFile passwd(QStringLiteral("/etc/passwd"));
    QStringList names;
    if (!passwd.open(QIODevice::ReadOnly))
        return names;
    for (const QByteArray &line : passwd.readAll().split('\n')) {
        const QString name = QString::fromUtf8(line.left(line.indexOf(':')));
        if (!server.prefix().isEmpty() && name.startsWith(server.prefix()))
            names << name;
    }
    names.sort();
    return names;
}

protocol::HttpResponse sendAs(
    const RealServer &server, const QString &user, const protocol::RequestSpec &spec)
{
    OpenTerminalClient client(server.connection());
    QEventLoop loop;
    protocol::HttpResponse response;
    client.send(Identity {user, QString()}, spec, &loop, [&](const protocol::HttpResponse &r) {
        response = r;
        loop.quit();
    });
    loop.exec();
    return response;
}

QString shellAs(const RealServer &server, const QString &user, const QString &command)
{
    return probe::joinedOutput(sendAs(server, user,
        probe::sendSpec("POST", QStringLiteral("/execute"), {{QStringLiteral("command"), command}},
            {{QStringLiteral("wait"), QStringLiteral("20")}})));
}

QString homeOf(const RealServer &server, const QString &user)
{
    return shellAs(server, user, QStringLiteral("printf %s \"$HOME\"")).trimmed();
}

bool nothingLeft(const RealServer &server)
{
    return QTest::qWaitFor([&] { return leftovers(server).isEmpty(); }, 5000);
}

bool PinnedProbeServers::start(QString *why)
{
    const QString suffix = randomToken(6);
    alice = QStringLiteral("probe-alice-") + suffix;
    bob = QStringLiteral("probe-bob-") + suffix;
    legacy = std::make_unique<RealServer>(
        versionOf(QStringLiteral("legacy")), RealServer::Mode::MultiUser);
    current = std::make_unique<RealServer>(
        versionOf(QStringLiteral("current")), RealServer::Mode::MultiUser);
    return legacy->start(why) && current->start(why);
}

RealServer &PinnedProbeServers::server(const QString &which) const
{
    return which == QLatin1String("legacy") ? *legacy : *current;
}

QString PinnedProbeServers::versionOf(const QString &which)
{
    return RealServer::pinnedVersion(which == QLatin1String("legacy")
            ? "OPEN_TERMINAL_LEGACY_VERSION"
            : "OPEN_TERMINAL_VERSION");
}

void PinnedProbeServers::addServerRows()
{
    QTest::addColumn<QString>("which");
    QTest::newRow("0.11.34") << QStringLiteral("legacy");
    QTest::newRow("0.14.5") << QStringLiteral("current");
}

int runAsRoot(const QString &script, QString *output)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(QStringLiteral("sudo"),
        {QStringLiteral("-n"), QStringLiteral("sh"), QStringLiteral("-c"), script});
    if (!process.waitForFinished(60000))
        return -1;
    if (output)
        *output = QString::fromUtf8(process.readAllStandardOutput());
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

} // namespace sandscope::test
