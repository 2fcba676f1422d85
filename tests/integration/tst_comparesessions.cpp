// `sandscope compare` with sessions on a REAL multi-user open-terminal (the pinned
// OPEN_TERMINAL_VERSION): a recorded transcript (with its sub-agent) put in a fresh user's
// ~/.claude/projects is read as that user and matches the same file read locally (exit 0) and
// its stream-json capture; a second attempt differs (exit 1); an unknown session is a usage
// error (2) and an unreachable server a server error (3), the key never printed.

#include "putfile.h"
#include "realserver.h"
#include "server/openterminalclient.h"
#include "testing.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

namespace {

QString dataPath(const QString &name)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + name;
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

struct Cli {
    int exitCode = -1;
    QString out;
    QString err;
};

} // namespace

class CompareSessionsTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void aSessionMatchesItsFile();
    void unknownSessionAndDeadServer();

private:
    Cli compare(const QStringList &arguments, const QString &server = {});
    bool put(const Identity &who, const QString &path, const QByteArray &bytes);

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<OpenTerminalClient> m_client;
    QTemporaryDir m_local;
    Identity m_user;
    QString m_session; // the subagent scenario's session id, put in m_user's home
};

void CompareSessionsTest::initTestCase()
{
    isolateLocalState(m_local.path());
    if (!RealServer::canRunMultiUser())
        return; // each test reports the requirement itself
    m_server = std::make_unique<RealServer>(
        RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"), RealServer::Mode::MultiUser);
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));
    m_client = std::make_unique<OpenTerminalClient>(m_server->connection());

    const QString suffix = randomToken(6, true);
    m_user = {QStringLiteral("cmp") + suffix, QStringLiteral("cmp-session-") + suffix};
    const QStringList home
        = shellLines(m_client.get(), m_user, QStringLiteral("printf '%s\\n' \"$HOME\""));
    QVERIFY(!home.value(0).trimmed().isEmpty());
    const QString source = dataPath(QStringLiteral("transcripts/subagent/transcript"));
    const QString project
        = home.value(0).trimmed() + QStringLiteral("/.claude/projects/-home-x-chat-compare");
    QDirIterator files(source, QDir::Files, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        const QString local = files.next();
        const QString relative = QDir(source).relativeFilePath(local);
        QVERIFY(put(m_user, project + QLatin1Char('/') + relative, readFile(local)));
        if (!relative.contains(QLatin1Char('/')))
            m_session = QFileInfo(relative).completeBaseName();
    }
    QVERIFY(!m_session.isEmpty());
}

void CompareSessionsTest::cleanupTestCase()
{
    m_client.reset();
    m_server.reset();
}

bool CompareSessionsTest::put(const Identity &who, const QString &path, const QByteArray &bytes)
{
    return putFile(m_client.get(), who, path, bytes);
}

Cli CompareSessionsTest::compare(const QStringList &arguments, const QString &server)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_server->apiKey());
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(SANDSCOPE_BINARY),
        QStringList {QStringLiteral("compare")} + arguments
            + QStringList {QStringLiteral("--server"),
                server.isEmpty() ? m_server->url().toString() : server, QStringLiteral("--user"),
                m_user.userId});
    Cli cli;
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        return cli;
    }
    cli.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    cli.out = QString::fromUtf8(process.readAllStandardOutput());
    cli.err = QString::fromUtf8(process.readAllStandardError());
    return cli;
}

void CompareSessionsTest::aSessionMatchesItsFile()
{
    SANDSCOPE_REQUIRE(m_server, "needs root, sudo and useradd (multi-user open-terminal)");
    const QString local
        = dataPath(QStringLiteral("transcripts/subagent/transcript/%1.jsonl")).arg(m_session);
    const Cli same = compare({QStringLiteral("session:") + m_session, local});
    QVERIFY2(same.exitCode == 0, qPrintable(same.out + same.err));
    QVERIFY(same.out.contains(QStringLiteral("Calls: 2 same, 0 changed, 0 added, 0 removed")));
    QVERIFY(same.out.contains(m_user.userId + QLatin1Char('/') + m_session)
        || same.out.contains(QStringLiteral("session:") + m_session));

    // The stream-json capture of the same run: the same calls, in JSON.
    const Cli stream = compare({dataPath(QStringLiteral("transcripts/subagent/stream.jsonl")),
        QStringLiteral("session:") + m_session, QStringLiteral("--json")});
    QVERIFY2(stream.exitCode == 0, qPrintable(stream.out + stream.err));
    const QJsonObject json = QJsonDocument::fromJson(stream.out.toUtf8()).object();
    QCOMPARE(
        json.value(QStringLiteral("counts")).toObject().value(QStringLiteral("same")).toInt(), 2);

    // Another run differs.
    const Cli other = compare(
        {QStringLiteral("session:") + m_session, dataPath(QStringLiteral("stream-basic.jsonl"))});
    QVERIFY2(other.exitCode == 1, qPrintable(other.out + other.err));
    for (const Cli &cli : {same, stream, other})
        QVERIFY(!QString(cli.out + cli.err).contains(m_server->apiKey()));
}

void CompareSessionsTest::unknownSessionAndDeadServer()
{
    SANDSCOPE_REQUIRE(m_server, "needs root, sudo and useradd (multi-user open-terminal)");
    const QString local = dataPath(QStringLiteral("stream-basic.jsonl"));
    const Cli unknown = compare({QStringLiteral("session:no-such-session"), local});
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.contains(QStringLiteral("no-such-session")), qPrintable(unknown.err));

    // Nothing listens on port 1: a transport failure, named with the server.
    const Cli dead = compare(
        {QStringLiteral("session:") + m_session, local}, QStringLiteral("http://127.0.0.1:1"));
    QCOMPARE(dead.exitCode, 3);
    QVERIFY2(dead.err.contains(QStringLiteral("127.0.0.1")), qPrintable(dead.err));
    QVERIFY(!QString(dead.out + dead.err).contains(m_server->apiKey()));
}

QTEST_GUILESS_MAIN(CompareSessionsTest)
#include "tst_comparesessions.moc"
