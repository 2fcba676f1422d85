// The client, process streaming, probe and CLI against a REAL open-terminal server.
// CTest runs this suite once per pinned server version and mode (SANDSCOPE_OT_VERSION,
// SANDSCOPE_OT_MODE=single|multi); see tests/CMakeLists.txt.

#include "realserver.h"
#include "server/accountnames.h"
#include "server/lineassembler.h"
#include "server/openterminalclient.h"
#include "server/processstream.h"
#include "server/remotestdin.h"
#include "server/servercheck.h"
#include "testing.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QtTest>

using namespace sandscope;
using sandscope::test::RealServer;

namespace {

// Collects everything a ProcessStream reports, for assertions.
struct WatchedStream {
    explicit WatchedStream(ProcessStream *s)
        : stream(s)
        , finished(s, &ProcessStream::finished)
        , failed(s, &ProcessStream::failed)
    {
        QObject::connect(s, &ProcessStream::output, s, [this](const QString &text) {
            raw += text;
            for (const QString &line : assembler.feed(text))
                lines.append(line);
        });
    }
    // Waits for the end (finished or failed); false on timeout.
    bool waitForEnd(int timeoutMs)
    {
        QElapsedTimer timer;
        timer.start();
        while (finished.isEmpty() && failed.isEmpty() && timer.elapsed() < timeoutMs)
            QTest::qWait(20);
        return !finished.isEmpty() || !failed.isEmpty();
    }
    // Like waitForEnd, but only gives up when no output arrived for `stallMs`: a slow
    // machine may take long for big outputs, a stuck stream stops producing.
    bool waitForEndWhileProgressing(int stallMs)
    {
        QElapsedTimer sinceProgress;
        sinceProgress.start();
        qsizetype seen = raw.size();
        while (finished.isEmpty() && failed.isEmpty()) {
            QTest::qWait(50);
            if (raw.size() != seen) {
                seen = raw.size();
                sinceProgress.restart();
            } else if (sinceProgress.elapsed() > stallMs) {
                return false;
            }
        }
        return true;
    }
    int exitCode() const { return finished.isEmpty() ? 0 : finished.first().at(0).toInt(); }
    QString failure() const
    {
        return failed.isEmpty() ? QString() : failed.first().at(0).value<ApiError>().toString();
    }

    ProcessStream *stream;
    QSignalSpy finished;
    QSignalSpy failed;
    LineAssembler assembler;
    QString raw;
    QStringList lines;
};

} // namespace

class OpenTerminalIntegration : public QObject {
    Q_OBJECT

private:
    bool multiUser() const { return m_mode == RealServer::Mode::MultiUser; }
    // Runs a command to its end as `who` and returns the lines of its output.
    QStringList runToEnd(const Identity &who, const QString &command, int *exitCode = nullptr)
    {
        ProcessStream stream(m_client.get(), who);
        stream.setPollIntervals(20, 200);
        WatchedStream watch(&stream);
        stream.start(command);
        if (!watch.waitForEnd(60000) || !watch.failed.isEmpty()) {
            qWarning() << "command failed:" << command << watch.failure();
            return {};
        }
        if (exitCode)
            *exitCode = watch.exitCode();
        QStringList lines = watch.lines;
        const QString rest = watch.assembler.flush();
        if (!rest.isEmpty())
            lines.append(rest);
        return lines;
    }
    // How many input folders (RemoteStdin) alice's home holds, counted through the CLI.
    QByteArray stdinFoldersLeft()
    {
        QProcess *left = startCli(
            {QStringLiteral("exec"), QStringLiteral("--server"), m_server->url().toString(),
                QStringLiteral("--user"), m_alice.userId, QStringLiteral("--"),
                QStringLiteral("ls -A ~/.sandscope/stdin 2>/dev/null | wc -l")},
            m_server->apiKey());
        return left->waitForFinished(30000) ? left->readAllStandardOutput().trimmed()
                                            : QByteArray("the count did not finish");
    }

    QProcess *startCli(const QStringList &arguments, const QString &apiKey)
    {
        auto *cli = new QProcess(this);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SANDSCOPE_API_KEY"), apiKey);
        env.insert(QStringLiteral("SANDSCOPE_AUDIT_LOG"),
            m_auditDir.filePath(QStringLiteral("audit.jsonl")));
        cli->setProcessEnvironment(env);
        cli->start(QStringLiteral(SANDSCOPE_BINARY), arguments);
        return cli;
    }

    RealServer::Mode m_mode = RealServer::Mode::SingleUser;
    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<OpenTerminalClient> m_client;
    Identity m_alice;
    Identity m_bob;
    QTemporaryDir m_auditDir;

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<ApiError>();
        qRegisterMetaType<ProcessStatus>();
        const QString version
            = envOr("SANDSCOPE_OT_VERSION", RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"));
        m_mode = envOr("SANDSCOPE_OT_MODE", QStringLiteral("single")) == QLatin1String("multi")
            ? RealServer::Mode::MultiUser
            : RealServer::Mode::SingleUser;
        if (multiUser()) {
            QString why;
            SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        }
        m_server = std::make_unique<RealServer>(version, m_mode);
        QString error;
        QVERIFY2(m_server->start(&error), qPrintable(error));
        m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
        const QString suffix = test::randomToken(6);
        m_alice = {QStringLiteral("alice") + suffix, QStringLiteral("chat-a")};
        m_bob = {QStringLiteral("bob") + suffix, QStringLiteral("chat-b")};
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.reset(); // stops the server and removes the test accounts
    }

    void discoveryReportsPinnedVersionAndFeatures()
    {
        const auto info = await<ServerInfo>(
            [&](auto done) { return m_client->serverInfo(m_client.get(), done); });
        QVERIFY2(info.ok(), qPrintable(info.error.toString()));
        QCOMPARE(info.value.version, m_server->version());
        QVERIFY(info.value.hasPath(QStringLiteral("/execute")) || !info.value.paths.isEmpty());
        QVERIFY(info.value.features.terminal); // on by default
        const auto health = await<OpenTerminalClient::Empty>(
            [&](auto done) { return m_client->health(m_client.get(), done); });
        QVERIFY2(health.ok(), qPrintable(health.error.toString()));
    }

    void wrongKeyIsReportedAsInvalidApiKeyWithoutTheKey()
    {
        ServerConnection wrong = m_server->connection();
        wrong.apiKey = QStringLiteral("wrong-") + test::randomToken(20);
        OpenTerminalClient client(wrong);
        const auto result
            = await<CwdInfo>([&](auto done) { return client.cwd(m_alice, &client, done); });
        QCOMPARE(result.error.kind, ApiError::Kind::InvalidApiKey);
        QCOMPARE(result.error.httpStatus, 401);
        QVERIFY(!result.error.toString().contains(wrong.apiKey));
        QVERIFY(!result.error.toString().contains(m_server->apiKey()));
    }

    void connectionRefusedNamesTheUrl()
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        const quint16 port = probe.serverPort();
        probe.close(); // nobody listens there now
        ServerConnection nowhere = m_server->connection();
        nowhere.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
        OpenTerminalClient client(nowhere);
        const auto result
            = await<CwdInfo>([&](auto done) { return client.cwd(m_alice, &client, done); });
        QCOMPARE(result.error.kind, ApiError::Kind::ConnectionRefused);
        QVERIFY2(result.error.toString().contains(QStringLiteral("127.0.0.1:%1").arg(port)),
            qPrintable(result.error.toString()));
    }

    void executeStreamsOutputAndExitCode()
    {
        ProcessStream stream(m_client.get(), m_alice);
        WatchedStream watch(&stream);
        QSignalSpy started(&stream, &ProcessStream::started);
        stream.start(QStringLiteral("echo first; sleep 1; echo 'second é€'; exit 7"));
        QTRY_VERIFY_WITH_TIMEOUT(watch.lines.contains(QStringLiteral("first")), 20000);
        QVERIFY(watch.finished.isEmpty()); // still running: output arrived live
        QVERIFY(watch.waitForEnd(30000));
        QVERIFY2(watch.failed.isEmpty(), qPrintable(watch.failure()));
        QCOMPARE(watch.lines, (QStringList {QStringLiteral("first"), QStringLiteral("second é€")}));
        QCOMPARE(watch.exitCode(), 7);
        QCOMPARE(started.size(), 1);
        QCOMPARE(stream.finalStatus(), ProcessStatus::Done);
    }

    void statusAndListReflectTheProcess()
    {
        ProcessStream stream(m_client.get(), m_alice);
        WatchedStream watch(&stream);
        stream.start(QStringLiteral("echo listed; sleep 30"));
        QTRY_VERIFY_WITH_TIMEOUT(watch.lines.contains(QStringLiteral("listed")), 20000);
        const auto list = await<QVector<ProcessInfo>>(
            [&](auto done) { return m_client->listProcesses(m_alice, m_client.get(), done); });
        QVERIFY2(list.ok(), qPrintable(list.error.toString()));
        bool found = false;
        for (const ProcessInfo &p : list.value) {
            if (p.id == stream.processId()) {
                found = true;
                QCOMPARE(p.status, ProcessStatus::Running);
                QVERIFY(p.command.contains(QStringLiteral("sleep 30")));
            }
        }
        QVERIFY(found);
        const auto status = await<ProcessSnapshot>([&](auto done) {
            return m_client->processStatus(m_alice, stream.processId(), 0, 0, m_client.get(), done);
        });
        QVERIFY2(status.ok(), qPrintable(status.error.toString()));
        QCOMPARE(status.value.info.status, ProcessStatus::Running);
        QVERIFY(!status.value.info.hasExitCode);
        QVERIFY(status.value.nextOffset >= 1);
        stream.kill();
        QVERIFY(watch.waitForEnd(30000));
    }

    void inputWithBackslashesArrivesVerbatim()
    {
        ProcessStream stream(m_client.get(), m_alice);
        WatchedStream watch(&stream);
        stream.start(QStringLiteral("IFS= read -r line; printf 'got[%s]\\n' \"$line\""));
        QTRY_COMPARE_WITH_TIMEOUT(stream.state(), ProcessStream::State::Running, 20000);
        const QString typed = QStringLiteral("C:\\new\\x41 \\u00e9 é€😀");
        const auto sent = await<OpenTerminalClient::Empty>([&](auto done) {
            return m_client->sendInput(
                m_alice, stream.processId(), typed + QLatin1Char('\n'), m_client.get(), done);
        });
        QVERIFY2(sent.ok(), qPrintable(sent.error.toString()));
        QVERIFY(watch.waitForEnd(30000));
        QVERIFY2(watch.lines.contains(QStringLiteral("got[") + typed + QLatin1Char(']')),
            qPrintable(watch.lines.join(QLatin1Char('|'))));
    }

    void stopEndsWithSigtermExitCode()
    {
        ProcessStream stream(m_client.get(), m_alice);
        WatchedStream watch(&stream);
        stream.start(QStringLiteral("echo ready; sleep 60"));
        QTRY_VERIFY_WITH_TIMEOUT(watch.lines.contains(QStringLiteral("ready")), 20000);
        stream.stop(10000);
        QVERIFY(watch.waitForEnd(30000));
        QVERIFY2(watch.failed.isEmpty(), qPrintable(watch.failure()));
        // 0.11.34 multi-user: SIGTERM reaches the sudo wrapper, which relays it.
        QCOMPARE(watch.exitCode(), -15);
        QCOMPARE(stream.finalStatus(), ProcessStatus::Killed);
    }

    void killSendsSigkill()
    {
        ProcessStream stream(m_client.get(), m_alice);
        WatchedStream watch(&stream);
        stream.start(QStringLiteral("echo ready; sleep 60"));
        QTRY_VERIFY_WITH_TIMEOUT(watch.lines.contains(QStringLiteral("ready")), 20000);
        stream.kill();
        QVERIFY(watch.waitForEnd(30000));
        QVERIFY2(watch.failed.isEmpty(), qPrintable(watch.failure()));
        QCOMPARE(watch.exitCode(), -9);
    }

    void stopOfTermIgnoringProcessIsEscalatedOrReported()
    {
        ProcessStream stream(m_client.get(), m_alice);
        WatchedStream watch(&stream);
        QSignalSpy notices(&stream, &ProcessStream::notice);
        stream.start(QStringLiteral("trap '' TERM; echo ready; sleep 30; echo survived"));
        QTRY_VERIFY_WITH_TIMEOUT(watch.lines.contains(QStringLiteral("ready")), 20000);
        stream.stop(1500);
        QVERIFY(watch.waitForEnd(45000));
        // Either SIGKILL after the grace period ended it, or the server made that impossible
        // (0.11.x drops the record of a process that ignored SIGTERM) and the stream says the
        // process may still be running. It never claims a clean exit and never hangs.
        if (!watch.failed.isEmpty()) {
            const ApiError error = watch.failed.first().at(0).value<ApiError>();
            QCOMPARE(error.kind, ApiError::Kind::ProcessExpired);
            QVERIFY2(error.message.contains(QLatin1String("may still be running")),
                qPrintable(error.message));
            return;
        }
        if (!stream.hasExitCode()) { // newer servers: "killed", but no exit ever reported
            QCOMPARE(stream.finalStatus(), ProcessStatus::Killed);
            QVERIFY(!notices.isEmpty());
            QVERIFY(
                notices.last().at(0).toString().contains(QLatin1String("may still be running")));
            return;
        }
        QVERIFY(!watch.lines.contains(QStringLiteral("survived")));
        QVERIFY(watch.exitCode() != 0);
    }

    void tenMegabytesArriveInOrderWithoutLossOrDuplication()
    {
        // 1,000,000 numbered lines of 10 bytes: 10 MB, about 11 MB with the PTY's CRLF.
        constexpr int lineCount = 1000000;
        ProcessStream stream(m_client.get(), m_alice);
        WatchedStream watch(&stream);
        QElapsedTimer timer;
        timer.start();
        stream.start(QStringLiteral("seq -f '%09.0f' 1 %1").arg(lineCount));
        QVERIFY2(watch.waitForEndWhileProgressing(120000), "output stalled for 2 minutes");
        QVERIFY2(watch.failed.isEmpty(), qPrintable(watch.failure()));
        QCOMPARE(watch.exitCode(), 0);
        QCOMPARE(watch.lines.size(), lineCount);
        for (int i = 0; i < lineCount; ++i) {
            const QString expected = QStringLiteral("%1").arg(i + 1, 9, 10, QLatin1Char('0'));
            if (watch.lines.at(i) != expected)
                QFAIL(qPrintable(QStringLiteral("line %1 is '%2', expected '%3'")
                                     .arg(i + 1)
                                     .arg(watch.lines.at(i), expected)));
        }
        qInfo("10 MB streamed in %lld ms (%lld chunks)", static_cast<long long>(timer.elapsed()),
            static_cast<long long>(stream.offset()));
    }

    void expiredRecordIsRecoveredFromTheLogAfterRestart()
    {
        ProcessStream first(m_client.get(), m_alice);
        WatchedStream watchFirst(&first);
        first.start(QStringLiteral("echo one; echo two; exit 5"));
        QVERIFY(watchFirst.waitForEnd(30000));
        QCOMPARE(watchFirst.exitCode(), 5);
        const QString id = first.processId();
        const QString logPath = first.logPath();
        QVERIFY(!logPath.isEmpty());

        QString error;
        QVERIFY2(m_server->restart(&error), qPrintable(error)); // in-memory records are gone
        ProcessStream again(m_client.get(), m_alice);
        WatchedStream watch(&again);
        QSignalSpy notices(&again, &ProcessStream::notice);
        again.attach(id, 0, logPath);
        QVERIFY(watch.waitForEnd(30000));
        QVERIFY2(watch.failed.isEmpty(), qPrintable(watch.failure()));
        QCOMPARE(watch.lines, (QStringList {QStringLiteral("one"), QStringLiteral("two")}));
        QCOMPARE(watch.exitCode(), 5);
        QVERIFY(!notices.isEmpty()); // the recovery is visible, not silent
    }

    void unknownProcessWithoutLogReportsExpiryInsteadOfHanging()
    {
        ProcessStream stream(m_client.get(), m_alice);
        WatchedStream watch(&stream);
        stream.attach(QStringLiteral("20200101-000000-abcdef"));
        QVERIFY(watch.waitForEnd(30000));
        QCOMPARE(watch.failed.size(), 1);
        QCOMPARE(watch.failed.first().at(0).value<ApiError>().kind, ApiError::Kind::ProcessExpired);
    }

    void fileOperationsRoundTrip()
    {
        auto *c = m_client.get();
        const auto cwd = await<CwdInfo>([&](auto done) { return c->cwd(m_alice, c, done); });
        QVERIFY2(cwd.ok(), qPrintable(cwd.error.toString()));
        const QString base = cwd.value.cwd + QStringLiteral("/sst-files-") + test::randomToken(5);

        QVERIFY(await<OpenTerminalClient::Empty>([&](auto done) {
            return c->makeDirectory(m_alice, base + QStringLiteral("/sub"), c, done);
        }).ok());
        const QString text = QStringLiteral("line 1\nzwei é€😀\nthree\n");
        const auto written = await<WriteResult>([&](auto done) {
            return c->writeFile(m_alice, base + QStringLiteral("/notes.txt"), text, c, done);
        });
        QVERIFY2(written.ok(), qPrintable(written.error.toString()));
        QCOMPARE(written.value.size, text.toUtf8().size());

        const auto listing = await<DirectoryListing>(
            [&](auto done) { return c->listDirectory(m_alice, base, c, done); });
        QVERIFY2(listing.ok(), qPrintable(listing.error.toString()));
        QStringList names;
        for (const FileEntry &e : listing.value.entries)
            names << e.name + (e.isDirectory ? QStringLiteral("/") : QString());
        names.sort();
        QCOMPARE(names, (QStringList {QStringLiteral("notes.txt"), QStringLiteral("sub/")}));

        const auto whole = await<FileContent>([&](auto done) {
            return c->readFile(m_alice, base + QStringLiteral("/notes.txt"), 0, 0, c, done);
        });
        QVERIFY2(whole.ok(), qPrintable(whole.error.toString()));
        QVERIFY(whole.value.isText);
        QCOMPARE(whole.value.text, text);
        QCOMPARE(whole.value.totalLines, 3);
        const auto slice = await<FileContent>([&](auto done) {
            return c->readFile(m_alice, base + QStringLiteral("/notes.txt"), 2, 2, c, done);
        });
        QVERIFY2(slice.ok(), qPrintable(slice.error.toString()));
        QCOMPARE(slice.value.text, QStringLiteral("zwei é€😀\n"));

        // Binary-safe upload: all 256 byte values, then view and serve return them unchanged.
        QByteArray binary;
        for (int i = 0; i < 256; ++i)
            binary.append(static_cast<char>(i));
        const auto uploaded = await<WriteResult>([&](auto done) {
            return c->uploadFile(m_alice, base + QStringLiteral("/sub"),
                QStringLiteral("all bytes.bin"), binary, c, done);
        });
        QVERIFY2(uploaded.ok(), qPrintable(uploaded.error.toString()));
        const QString binPath = base + QStringLiteral("/sub/all bytes.bin");
        const auto viewed
            = await<RawFile>([&](auto done) { return c->viewFile(m_alice, binPath, c, done); });
        QVERIFY2(viewed.ok(), qPrintable(viewed.error.toString()));
        QCOMPARE(viewed.value.bytes, binary);
        const auto served
            = await<RawFile>([&](auto done) { return c->serveFile(m_alice, binPath, c, done); });
        QVERIFY2(served.ok(), qPrintable(served.error.toString()));
        QCOMPARE(served.value.bytes, binary);
        const auto unreadable = await<FileContent>(
            [&](auto done) { return c->readFile(m_alice, binPath, 0, 0, c, done); });
        QCOMPARE(unreadable.error.kind, ApiError::Kind::UnsupportedMediaType);

        // An image comes back from /files/read as raw bytes with its content type.
        const QByteArray png
            = QByteArray::fromBase64("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z"
                                     "8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==");
        QVERIFY(await<WriteResult>([&](auto done) {
            return c->uploadFile(m_alice, base, QStringLiteral("dot.png"), png, c, done);
        }).ok());
        const auto image = await<FileContent>([&](auto done) {
            return c->readFile(m_alice, base + QStringLiteral("/dot.png"), 0, 0, c, done);
        });
        QVERIFY2(image.ok(), qPrintable(image.error.toString()));
        QVERIFY(!image.value.isText);
        QCOMPARE(image.value.bytes, png);
        QVERIFY(image.value.contentType.startsWith(QLatin1String("image/png")));

        // Move refuses to replace an existing target.
        QVERIFY(await<WriteResult>([&](auto done) {
            return c->writeFile(
                m_alice, base + QStringLiteral("/other.txt"), QStringLiteral("x"), c, done);
        }).ok());
        const auto clash = await<MoveResult>([&](auto done) {
            return c->movePath(m_alice, base + QStringLiteral("/other.txt"),
                base + QStringLiteral("/notes.txt"), c, done);
        });
        QCOMPARE(clash.error.kind, ApiError::Kind::Conflict);
        const auto moved = await<MoveResult>([&](auto done) {
            return c->movePath(m_alice, base + QStringLiteral("/other.txt"),
                base + QStringLiteral("/renamed.txt"), c, done);
        });
        QVERIFY2(moved.ok(), qPrintable(moved.error.toString()));

        const auto zip = await<RawFile>([&](auto done) {
            return c->archive(m_alice, {base + QStringLiteral("/sub")}, c, done);
        });
        QVERIFY2(zip.ok(), qPrintable(zip.error.toString()));
        QVERIFY(zip.value.bytes.startsWith("PK"));
        QCOMPARE(zip.value.fileName, QStringLiteral("sub.zip"));

        GlobOptions globOptions;
        globOptions.path = base;
        const auto globbed = await<GlobResult>([&](auto done) {
            return c->glob(m_alice, QStringLiteral("*.txt"), globOptions, c, done);
        });
        QVERIFY2(globbed.ok(), qPrintable(globbed.error.toString()));
        QStringList globNames;
        for (const GlobMatch &m : globbed.value.matches)
            globNames << m.path.section(QLatin1Char('/'), -1);
        globNames.sort();
        QCOMPARE(
            globNames, (QStringList {QStringLiteral("notes.txt"), QStringLiteral("renamed.txt")}));

        GrepOptions grepOptions;
        grepOptions.path = base;
        grepOptions.regex = false;
        const auto grepped = await<GrepResult>([&](auto done) {
            return c->grep(m_alice, QStringLiteral("zwei é€"), grepOptions, c, done);
        });
        QVERIFY2(grepped.ok(), qPrintable(grepped.error.toString()));
        QCOMPARE(grepped.value.matches.size(), 1);
        QCOMPARE(grepped.value.matches.first().line, 2);

        QVERIFY(await<OpenTerminalClient::Empty>([&](auto done) {
            return c->deletePath(m_alice, base, c, done);
        }).ok());
        const auto gone = await<DirectoryListing>(
            [&](auto done) { return c->listDirectory(m_alice, base, c, done); });
        QCOMPARE(gone.error.kind, ApiError::Kind::NotFound);
    }

    void sessionCwdFollowsSetCwd()
    {
        auto *c = m_client.get();
        Identity session = m_alice;
        session.sessionId = QStringLiteral("cwd-") + test::randomToken(6);
        const auto home = await<CwdInfo>([&](auto done) { return c->cwd(session, c, done); });
        QVERIFY2(home.ok(), qPrintable(home.error.toString()));
        const QString dir = home.value.cwd + QStringLiteral("/sst-cwd-") + test::randomToken(5);
        QVERIFY(await<OpenTerminalClient::Empty>([&](auto done) {
            return c->makeDirectory(session, dir, c, done);
        }).ok());
        const auto changed
            = await<CwdInfo>([&](auto done) { return c->setCwd(session, dir, c, done); });
        QVERIFY2(changed.ok(), qPrintable(changed.error.toString()));
        QCOMPARE(runToEnd(session, QStringLiteral("pwd")), QStringList {dir});
        await<OpenTerminalClient::Empty>(
            [&](auto done) { return c->deletePath(session, dir, c, done); });
    }

    void crossUserPathsAreForbiddenAndNamed()
    {
        if (!multiUser()) {
            // Single-user servers have one account: the id changes nothing.
            QCOMPARE(runToEnd(m_alice, QStringLiteral("id -un")),
                runToEnd(m_bob, QStringLiteral("id -un")));
            return;
        }
        auto *c = m_client.get();
        const auto aliceHome = await<CwdInfo>([&](auto done) { return c->cwd(m_alice, c, done); });
        QVERIFY2(aliceHome.ok(), qPrintable(aliceHome.error.toString()));
        const QString secret = aliceHome.value.cwd + QStringLiteral("/private.txt");
        QVERIFY(await<WriteResult>([&](auto done) {
            return c->writeFile(m_alice, secret, QStringLiteral("alice only"), c, done);
        }).ok());
        const auto read = await<FileContent>(
            [&](auto done) { return c->readFile(m_bob, secret, 0, 0, c, done); });
        QCOMPARE(read.error.kind, ApiError::Kind::Forbidden);
        const QString owner = aliceHome.value.cwd.section(QLatin1Char('/'), -1);
        QVERIFY2(read.error.toString().contains(owner), qPrintable(read.error.toString()));
        const auto write = await<WriteResult>([&](auto done) {
            return c->writeFile(m_bob, aliceHome.value.cwd + QStringLiteral("/planted.txt"),
                QStringLiteral("bob was here"), c, done);
        });
        QCOMPARE(write.error.kind, ApiError::Kind::Forbidden);
        // And through the shell: bob's account cannot read alice's home either.
        int exitCode = 0;
        runToEnd(m_bob, QStringLiteral("cat '%1' 2>/dev/null").arg(secret), &exitCode);
        QVERIFY(exitCode != 0);
    }

    void idleKeptAliveConnectionIsRetried()
    {
        auto *c = m_client.get();
        QVERIFY(await<CwdInfo>([&](auto done) { return c->cwd(m_alice, c, done); }).ok());
        QTest::qWait(6500); // uvicorn closes idle kept-alive connections after 5 s
        const auto again = await<CwdInfo>([&](auto done) { return c->cwd(m_alice, c, done); });
        QVERIFY2(again.ok(), qPrintable(again.error.toString()));
    }

    void probeObservesAccountsAndMode()
    {
        ServerCheck probe(m_client.get());
        QSignalSpy finished(&probe, &ServerCheck::finished);
        QSignalSpy failed(&probe, &ServerCheck::failed);
        probe.run(m_alice.userId);
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 60000);
        QVERIFY2(
            failed.isEmpty(), qPrintable(failed.value(0).value(0).value<ApiError>().toString()));
        const auto report = finished.first().at(0).value<ServerReport>();
        QCOMPARE(report.info.version, m_server->version());
        QVERIFY(report.keyAccepted);
        QCOMPARE(report.multiUser, multiUser());
        QVERIFY(!report.multiUserEvidence.isEmpty());
        const QStringList whoami = runToEnd(m_alice, QStringLiteral("id -un"));
        QCOMPARE(report.observedAccount, whoami.value(0));
        if (multiUser()) {
            QVERIFY(report.observedAccount.startsWith(m_server->prefix()));
            QVERIFY2(report.ruleKnown, qPrintable(report.observedAccount));
            QCOMPARE(predictAccountName(m_alice.userId, report.rule, m_server->prefix()),
                report.observedAccount);
        }
    }

    void cliExecStreamsOutputAndPassesTheExitCode()
    {
        QProcess *cli = startCli(
            {QStringLiteral("exec"), QStringLiteral("--server"), m_server->url().toString(),
                QStringLiteral("--user"), m_alice.userId, QStringLiteral("--"),
                QStringLiteral("echo live; sleep 2; echo done; exit 4")},
            m_server->apiKey());
        // "live" is printed while the command still runs (streamed, not buffered).
        QByteArray seen;
        QTRY_VERIFY2_WITH_TIMEOUT((seen += cli->readAllStandardOutput()).contains("live"),
            qPrintable(QString::fromUtf8(seen + cli->readAllStandardError())), 20000);
        QCOMPARE(cli->state(), QProcess::Running);
        QVERIFY(cli->waitForFinished(30000));
        QCOMPARE(cli->exitCode(), 4);
    }

    void cliExecReportsSignalDeathAs128PlusN()
    {
        QProcess *cli
            = startCli({QStringLiteral("exec"), QStringLiteral("--server"),
                           m_server->url().toString(), QStringLiteral("--user"), m_alice.userId,
                           QStringLiteral("--"), QStringLiteral("kill -9 $$")},
                m_server->apiKey());
        QVERIFY(cli->waitForFinished(30000));
        QCOMPARE(cli->exitCode(), 128 + 9);
    }

    void cliExecRunsSeveralWordsAsExactlyThatArgv()
    {
        const QStringList connection {QStringLiteral("exec"), QStringLiteral("--server"),
            m_server->url().toString(), QStringLiteral("--user"), m_alice.userId,
            QStringLiteral("--")};
        QProcess *exitSeven = startCli(connection
                + QStringList {QStringLiteral("sh"), QStringLiteral("-c"),
                    QStringLiteral("exit 7")},
            m_server->apiKey());
        QVERIFY(exitSeven->waitForFinished(30000));
        QCOMPARE(exitSeven->exitCode(), 7);

        QProcess *spaced = startCli(connection
                + QStringList {QStringLiteral("printf"), QStringLiteral("<%s>"),
                    QStringLiteral("my dir"), QStringLiteral("$HOME;x")},
            m_server->apiKey());
        QVERIFY(spaced->waitForFinished(30000));
        QCOMPARE(spaced->exitCode(), 0);
        QCOMPARE(spaced->readAllStandardOutput(), QByteArray("<my dir><$HOME;x>"));
    }

    // A command that reads its input ends: its input is empty unless -i is given (the server's
    // terminal never ends it, so `cat` used to wait forever). The CLI's own stdin stays open.
    void cliExecGivesTheCommandAnEmptyInputWithoutDashI()
    {
        QProcess *cli
            = startCli({QStringLiteral("exec"), QStringLiteral("--server"),
                           m_server->url().toString(), QStringLiteral("--user"), m_alice.userId,
                           QStringLiteral("--"), QStringLiteral("cat; echo \"read: $?\"")},
                m_server->apiKey());
        QVERIFY2(cli->waitForFinished(30000), "a command reading stdin waited for input");
        QCOMPARE(cli->exitCode(), 0);
        QCOMPARE(cli->readAllStandardOutput().trimmed(), QByteArray("read: 0"));
    }

    // With -i every byte of the CLI's stdin reaches the command (all 256 byte values, more
    // than one chunk), its end ends the command's input, the command's exit code comes back,
    // and the chunks' folder is gone afterwards.
    void cliExecWithDashIPassesStandardInputByteForByte()
    {
        QByteArray payload;
        for (int i = 0; i < 150000; ++i)
            payload += char((i * 7 + i / 256) & 0xff);
        const QByteArray expected
            = QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex();
        QProcess *cli
            = startCli({QStringLiteral("exec"), QStringLiteral("-i"), QStringLiteral("--server"),
                           m_server->url().toString(), QStringLiteral("--user"), m_alice.userId,
                           QStringLiteral("--"), QStringLiteral("sha256sum; exit 5")},
                m_server->apiKey());
        QVERIFY(cli->waitForStarted());
        cli->write(payload);
        cli->closeWriteChannel();
        QVERIFY(cli->waitForFinished(60000));
        const QByteArray out = cli->readAllStandardOutput();
        QVERIFY2(
            out.startsWith(expected), QByteArray(out + cli->readAllStandardError()).constData());
        QCOMPARE(cli->exitCode(), 5);

        QCOMPARE(stdinFoldersLeft(), QByteArray("0"));
    }

    // A command that ends before reading its input ends the run at once, though the CLI's
    // input is still open.
    void cliExecWithDashIEndsWhenTheCommandEndsFirst()
    {
        QProcess *cli
            = startCli({QStringLiteral("exec"), QStringLiteral("-i"), QStringLiteral("--server"),
                           m_server->url().toString(), QStringLiteral("--user"), m_alice.userId,
                           QStringLiteral("--"), QStringLiteral("echo early; exit 2")},
                m_server->apiKey());
        QVERIFY(cli->waitForStarted());
        cli->write("typed but never read\n");
        QVERIFY2(cli->waitForFinished(30000), "the run waited for input the command never read");
        QCOMPARE(cli->exitCode(), 2);
        QCOMPARE(cli->readAllStandardOutput().trimmed(), QByteArray("early"));
    }

    // A command that stops reading partway (head): the chunks still on their way are not
    // passed (its folder went with it, and is not made again), which is no error: nothing on
    // stderr, the command's own exit status, and no folder left behind.
    void cliExecWithDashIStopsPassingInputOnceTheCommandStopsReading()
    {
        const QByteArray payload(8 * RemoteStdin::chunkBytes, 'x');
        QProcess *cli
            = startCli({QStringLiteral("exec"), QStringLiteral("-i"), QStringLiteral("--server"),
                           m_server->url().toString(), QStringLiteral("--user"), m_alice.userId,
                           QStringLiteral("--"), QStringLiteral("head -c 10")},
                m_server->apiKey());
        QVERIFY(cli->waitForStarted());
        cli->write(payload);
        cli->closeWriteChannel();
        QVERIFY(cli->waitForFinished(60000));
        const QByteArray err = cli->readAllStandardError();
        QVERIFY2(err.isEmpty(), err.constData());
        QCOMPARE(cli->readAllStandardOutput(), payload.left(10));
        QCOMPARE(cli->exitCode(), 0);
        QCOMPARE(stdinFoldersLeft(), QByteArray("0"));
    }

    // The same in the core: readerGone() (no failed()) once a step finds the command's folder
    // gone, and discard() afterwards still ends in discarded(), which the CLI waits for.
    void remoteStdinSaysItsReaderIsGoneAndDiscardsAtOnce()
    {
        RemoteStdin input(m_client.get(), m_alice);
        QSignalSpy gone(&input, &RemoteStdin::readerGone);
        QSignalSpy failed(&input, &RemoteStdin::failed);
        QSignalSpy discarded(&input, &RemoteStdin::discarded);
        ProcessStream stream(m_client.get(), m_alice);
        QSignalSpy finished(&stream, &ProcessStream::finished);
        stream.start(input.wrap(QStringLiteral("head -c 10")));
        input.write(QByteArray(8 * RemoteStdin::chunkBytes, 'x'));
        input.close();
        QVERIFY(QTest::qWaitFor([&] { return finished.count() == 1; }, 60000));
        QVERIFY(QTest::qWaitFor([&] { return gone.count() == 1; }, 60000));
        QVERIFY(failed.isEmpty());
        QVERIFY(!input.isClosed());
        QCOMPARE(input.pendingBytes(), qint64(0));
        input.discard();
        QVERIFY(discarded.wait(10000));
        QCOMPARE(gone.count(), 1);
    }

    void cliServerInfoReportsVersionModeAndAccount()
    {
        QProcess *cli = startCli(
            {QStringLiteral("server-info"), QStringLiteral("--server"), m_server->url().toString(),
                QStringLiteral("--user"), m_alice.userId, QStringLiteral("--json")},
            m_server->apiKey());
        QVERIFY(cli->waitForFinished(60000));
        const QByteArray out = cli->readAllStandardOutput();
        QCOMPARE(cli->exitCode(), 0);
        const QJsonObject report = QJsonDocument::fromJson(out).object();
        QVERIFY2(!report.isEmpty(), out.constData());
        QCOMPARE(report.value(QLatin1String("version")).toString(), m_server->version());
        QCOMPARE(report.value(QLatin1String("multi_user")).toBool(), multiUser());
        QCOMPARE(report.value(QLatin1String("user"))
                     .toObject()
                     .value(QLatin1String("observed_account"))
                     .toString(),
            runToEnd(m_alice, QStringLiteral("id -un")).value(0));
    }

    void cliNeverPrintsTheApiKey()
    {
        // Single-user servers hand their key to commands; the CLI masks it on the way out.
        // (Multi-user servers need a user id, and their users' commands don't see the key.)
        QStringList arguments {
            QStringLiteral("exec"), QStringLiteral("--server"), m_server->url().toString()};
        if (multiUser())
            arguments << QStringLiteral("--user") << m_alice.userId;
        arguments << QStringLiteral("--")
                  << QStringLiteral("echo \"key=$OPEN_TERMINAL_API_KEY\"; echo 'typed %1'; exit 9")
                         .arg(m_server->apiKey());
        QProcess *cli = startCli(arguments, m_server->apiKey());
        QVERIFY(cli->waitForFinished(30000));
        const QByteArray all = cli->readAllStandardOutput() + cli->readAllStandardError();
        QVERIFY2(all.contains("typed "), all.constData());
        QVERIFY(!all.contains(m_server->apiKey().toUtf8()));
        QCOMPARE(cli->exitCode(), 9);
    }
};

QTEST_GUILESS_MAIN(OpenTerminalIntegration)
#include "tst_openterminal.moc"
