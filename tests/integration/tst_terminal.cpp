// Interactive terminals (TerminalSession and `sandscope shell`) against a REAL multi-user
// open-terminal. CTest runs this suite once per pinned server version (SANDSCOPE_OT_VERSION);
// see tests/CMakeLists.txt. Waits are bounded only to end a stuck test, never to judge speed.
#include "realserver.h"
#include "server/openterminalclient.h"
#include "server/openterminalprotocol.h"
#include "terminal/terminalsession.h"
#include "testing.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QtTest>

using namespace sandscope;
using sandscope::test::RealServer;

namespace {

// A terminal and everything it said.
struct LiveTerminal {
    LiveTerminal(OpenTerminalClient *client, const Identity &who)
        : session(client, who)
        , opened(&session, &TerminalSession::opened)
        , ended(&session, &TerminalSession::ended)
        , failed(&session, &TerminalSession::failed)
    {
        session.setLivenessInterval(300);
        QObject::connect(&session, &TerminalSession::output, &session,
            [this](const QByteArray &bytes) { received += bytes; });
    }
    QString text() const { return QString::fromUtf8(received); }
    QString failure() const
    {
        return failed.isEmpty() ? QString() : failed.first().at(0).value<ApiError>().toString();
    }
    // Waits while output keeps coming (or something else happens) until `done`; gives up only
    // after 60 s without any new output.
    bool waitFor(const std::function<bool()> &done)
    {
        QElapsedTimer sinceProgress;
        sinceProgress.start();
        qsizetype seen = received.size();
        while (!done()) {
            if (!failed.isEmpty())
                return false;
            QTest::qWait(20);
            if (received.size() != seen) {
                seen = received.size();
                sinceProgress.restart();
            } else if (sinceProgress.elapsed() > 60000) {
                return false;
            }
        }
        return true;
    }
    bool waitForText(const QString &needle)
    {
        return waitFor([&] { return text().contains(needle); });
    }
    // Opens the terminal and waits for the shell's first prompt ("$ ").
    bool open()
    {
        session.start();
        return waitFor([&] { return !opened.isEmpty() && text().contains(QLatin1String("$ ")); });
    }
    // Sends a command line and waits for `marker` in the output (markers are built so that
    // only the command's output, not its echo, contains them).
    bool run(const QString &command, const QString &marker)
    {
        session.write(command.toUtf8() + '\r');
        return waitForText(marker);
    }

    TerminalSession session;
    QSignalSpy opened;
    QSignalSpy ended;
    QSignalSpy failed;
    QByteArray received;
};

} // namespace

class TerminalIntegration : public QObject {
    Q_OBJECT
private:
    QProcess *startShell(const QStringList &extra)
    {
        auto *cli = new QProcess(this);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_server->apiKey());
        env.insert(QStringLiteral("SANDSCOPE_AUDIT_LOG"), auditPath());
        cli->setProcessEnvironment(env);
        cli->start(QStringLiteral(SANDSCOPE_BINARY),
            QStringList {QStringLiteral("shell"), QStringLiteral("--server"),
                m_server->url().toString(), QStringLiteral("--user"), m_alice.userId}
                + extra);
        return cli;
    }
    QString auditPath() const { return m_auditDir.filePath(QStringLiteral("audit.jsonl")); }
    // HTTP status of GET /api/terminals/{id} as the terminal's own identity.
    int terminalStatus(const TerminalSession &session)
    {
        protocol::RequestSpec spec;
        spec.path = QStringLiteral("/api/terminals/") + session.terminalId();
        int status = -1;
        m_client->send(session.identity(), spec, m_client.get(),
            [&](const protocol::HttpResponse &response) { status = response.status; });
        if (!QTest::qWaitFor([&] { return status != -1; }, 30000))
            qWarning("no answer to GET /api/terminals/{id}");
        return status;
    }

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<OpenTerminalClient> m_client;
    Identity m_alice;
    Identity m_bob;
    QString m_aliceAccount;
    QString m_bobAccount;
    QTemporaryDir m_auditDir;

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<ApiError>();
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        const QString version
            = envOr("SANDSCOPE_OT_VERSION", RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"));
        m_server = std::make_unique<RealServer>(version, RealServer::Mode::MultiUser);
        QString error;
        QVERIFY2(m_server->start(&error), qPrintable(error));
        m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
        const QString suffix = test::randomToken(4, true);
        m_alice = {QStringLiteral("alice") + suffix, {}};
        m_bob = {QStringLiteral("bob") + suffix, {}};
        // The accounts as the server names them (this also creates them).
        const QStringList alice = shellLines(m_client.get(), m_alice, QStringLiteral("id -un"));
        const QStringList bob = shellLines(m_client.get(), m_bob, QStringLiteral("id -un"));
        QVERIFY(!alice.isEmpty() && !bob.isEmpty());
        m_aliceAccount = alice.constFirst().trimmed();
        m_bobAccount = bob.constFirst().trimmed();
        QVERIFY(m_aliceAccount != m_bobAccount);
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.reset();
    }

    void whoamiIsTheUsersAccount()
    {
        LiveTerminal terminal(m_client.get(), m_alice);
        QVERIFY2(terminal.open(), qPrintable(terminal.failure()));
        QVERIFY(terminal.run(QStringLiteral("echo \"ME=$(whoami)\""),
            QStringLiteral("ME=") + m_aliceAccount + QLatin1Char('\r')));
        QVERIFY(terminal.run(
            QStringLiteral("echo \"HOME=$HOME\""), QStringLiteral("HOME=/home/") + m_aliceAccount));
    }

    void sttySizeFollowsResize()
    {
        LiveTerminal terminal(m_client.get(), m_alice);
        QSignalSpy applied(&terminal.session, &TerminalSession::sizeApplied);
        terminal.session.setInitialSize(91, 27);
        QVERIFY2(terminal.open(), qPrintable(terminal.failure()));
        const auto appliedSize = [&](int columns, int rows) {
            return terminal.waitFor([&] {
                return !applied.isEmpty() && applied.last().at(0).toInt() == columns
                    && applied.last().at(1).toInt() == rows;
            });
        };
        QVERIFY(appliedSize(91, 27));
        QVERIFY(terminal.run(
            QStringLiteral("echo \"SIZE=$(stty size)\""), QStringLiteral("SIZE=27 91")));
        terminal.session.resize(132, 43);
        QVERIFY(appliedSize(132, 43));
        QVERIFY(terminal.run(
            QStringLiteral("echo \"SIZE=$(stty size)\""), QStringLiteral("SIZE=43 132")));
        terminal.session.resize(40, 10);
        QVERIFY(appliedSize(40, 10));
        QVERIFY(terminal.run(
            QStringLiteral("echo \"SIZE=$(stty size)\""), QStringLiteral("SIZE=10 40")));
    }

    void utf8RoundTrip()
    {
        LiveTerminal terminal(m_client.get(), m_alice);
        QVERIFY2(terminal.open(), qPrintable(terminal.failure()));
        const QString text = QStringLiteral("Grüße ✓ 日本語 🙂 ½");
        // Typed in as UTF-8, printed back by the shell; the output is decoded as a whole.
        QVERIFY(terminal.run(
            QStringLiteral("printf 'U8=%s=%d\\n' '") + text + QStringLiteral("' $((40+2))"),
            QStringLiteral("U8=") + text + QStringLiteral("=42")));
        QVERIFY(!terminal.text().contains(QChar::ReplacementCharacter));
        // The byte count as the remote sees it: the bytes arrived unchanged.
        QVERIFY(terminal.run(QStringLiteral("printf '%s' '") + text
                + QStringLiteral("' | wc -c | sed 's/^/BYTES=/'"),
            QStringLiteral("BYTES=%1").arg(text.toUtf8().size())));
    }

    void largeOutputArrivesWithoutLossOrReordering()
    {
        LiveTerminal terminal(m_client.get(), m_alice);
        QVERIFY2(terminal.open(), qPrintable(terminal.failure()));
        terminal.received.clear();
        QVERIFY(terminal.run(QStringLiteral("seq 1 100000; echo \"SEQ-$((40+2))-END\""),
            QStringLiteral("SEQ-42-END")));
        const QString all = terminal.text();
        const int end = all.indexOf(QLatin1String("SEQ-42-END"));
        QVector<int> numbers;
        static const QRegularExpression number(QStringLiteral("^[0-9]+$"));
        const QStringList lines = all.left(end).split(QLatin1Char('\n'));
        for (QString line : lines) {
            // What the terminal shows: the text after the last carriage return.
            if (line.endsWith(QLatin1Char('\r')))
                line.chop(1);
            line = line.mid(line.lastIndexOf(QLatin1Char('\r')) + 1);
            if (number.match(line).hasMatch())
                numbers.append(line.toInt());
        }
        QCOMPARE(numbers.size(), 100000);
        for (int i = 0; i < numbers.size(); ++i) {
            if (numbers.at(i) != i + 1)
                QFAIL(qPrintable(QStringLiteral("line %1 is %2").arg(i + 1).arg(numbers.at(i))));
        }
    }

    void anotherUsersHomeIsRefused()
    {
        LiveTerminal terminal(m_client.get(), m_alice);
        QVERIFY2(terminal.open(), qPrintable(terminal.failure()));
        const QString home = QStringLiteral("/home/") + m_bobAccount;
        // The marker is split in the command so that the echoed command line does not match
        // it: only the output does.
        QVERIFY(
            terminal.run(QStringLiteral("ls ") + home + QStringLiteral("; echo \"LS-\"\"RC=$?\""),
                QStringLiteral("LS-RC=")));
        QVERIFY2(terminal.text().contains(QLatin1String("Permission denied")),
            qPrintable(terminal.text().right(400)));
        QVERIFY(terminal.text().contains(QLatin1String("LS-RC=2")));
        QVERIFY(terminal.run(QStringLiteral("touch ") + home
                + QStringLiteral("/x 2>/dev/null; echo \"TOUCH-RC=$?\""),
            QStringLiteral("TOUCH-RC=1")));
    }

    void ctrlCInterruptsCat()
    {
        LiveTerminal terminal(m_client.get(), m_alice);
        QVERIFY2(terminal.open(), qPrintable(terminal.failure()));
        QVERIFY(
            terminal.run(QStringLiteral("echo \"CAT-$((1+1))\"; cat"), QStringLiteral("CAT-2")));
        // cat reads once it copies a line back (the echo plus cat's own copy). Lines typed
        // while the shell hands the terminal over may be dropped, so type until one arrives.
        const auto copies = [&] {
            const QString text = terminal.text();
            return text.mid(text.indexOf(QLatin1String("CAT-2"))).count(QLatin1String("ping-cat"));
        };
        for (int attempt = 0; attempt < 100 && copies() < 2; ++attempt) {
            terminal.session.write("ping-cat\r");
            QTest::qWait(200);
        }
        QVERIFY2(copies() >= 2, qPrintable(terminal.text().right(300)));
        const qsizetype beforeInterrupt = terminal.received.size();
        terminal.session.write("\x03");
        // The shell prompts again once cat has died; keys typed before that may be dropped.
        QVERIFY(terminal.waitFor(
            [&] { return terminal.received.mid(beforeInterrupt).contains("$ "); }));
        QVERIFY(terminal.run(QStringLiteral("echo \"CAT-RC=$?\""), QStringLiteral("CAT-RC=130")));
    }

    void exitEndsTheSessionAndClosingEndsTheRemoteTerminal()
    {
        {
            LiveTerminal terminal(m_client.get(), m_alice);
            QVERIFY2(terminal.open(), qPrintable(terminal.failure()));
            terminal.session.write("exit\r");
            // 0.14.5 closes the socket; 0.11.34 keeps it open and the liveness check finds
            // the terminal gone.
            QVERIFY(terminal.waitFor([&] { return !terminal.ended.isEmpty(); }));
            QCOMPARE(terminal.session.state(), TerminalSession::State::Ended);
            QVERIFY(!terminal.session.hasExitStatus()); // neither version reports it
        }
        LiveTerminal terminal(m_client.get(), m_alice);
        QVERIFY2(terminal.open(), qPrintable(terminal.failure()));
        QCOMPARE(terminalStatus(terminal.session), 200);
        terminal.session.close();
        QVERIFY(QTest::qWaitFor([&] { return terminalStatus(terminal.session) == 404; }, 30000));
    }

    // Without a terminal on stdin, as ssh without one: the script's output and nothing else
    // (no echo of the typed lines, no prompts, no window-title or bracketed-paste sequences),
    // LF line ends, a CR of the program's own kept, and the shell's exit status.
    void cliLineModeRunsAScript_data()
    {
        QTest::addColumn<QByteArray>("script");
        QTest::addColumn<QByteArray>("expected"); // %1: the account
        QTest::addColumn<int>("exitCode");
        QTest::newRow("issue's script") << QByteArray("whoami\nseq 1 30000 | tail -1\nexit\n")
                                        << QByteArray("%1\n30000\n") << 0;
        QTest::newRow("exit status")
            << QByteArray("echo \"CLI=$(whoami)\"\nexit 3\n") << QByteArray("CLI=%1\n") << 3;
        QTest::newRow("own CR, no final newline")
            << QByteArray("printf 'a\\r\\nb\\rc'") << QByteArray("a\r\nb\rc") << 0;
        QTest::newRow("end of input ends the shell") << QByteArray("false") << QByteArray("") << 1;
    }
    void cliLineModeRunsAScript()
    {
        QFETCH(QByteArray, script);
        QFETCH(QByteArray, expected);
        QFETCH(int, exitCode);
        QFile::remove(auditPath());
        QProcess *cli = startShell({});
        cli->write(script);
        cli->closeWriteChannel();
        QVERIFY(cli->waitForFinished(120000));
        const QByteArray out = cli->readAllStandardOutput();
        const QByteArray err = cli->readAllStandardError();
        QCOMPARE(out, QString::fromUtf8(expected).arg(m_aliceAccount).toUtf8());
        QVERIFY2(err.isEmpty(), err.constData());
        QCOMPARE(cli->exitCode(), exitCode);
        QVERIFY(!out.contains(m_server->apiKey().toUtf8()));
        const QList<QJsonObject> entries = test::auditEntries(auditPath());
        QCOMPARE(entries.size(), 1);
        QCOMPARE(entries.at(0).value(QLatin1String("action")).toString(), QStringLiteral("shell"));
        QCOMPARE(entries.at(0).value(QLatin1String("user")).toString(), m_alice.userId);
        QCOMPARE(entries.at(0).value(QLatin1String("result")).toString(), QStringLiteral("ok"));
    }

    void cliStartsInTheGivenDirectory()
    {
        QProcess *cli = startShell({QStringLiteral("--cwd"), QStringLiteral("/tmp")});
        cli->write("echo \"PWD=$(pwd)\"\nexit\n");
        cli->closeWriteChannel();
        QVERIFY(cli->waitForFinished(120000));
        QVERIFY(
            QString::fromUtf8(cli->readAllStandardOutput()).contains(QLatin1String("PWD=/tmp")));
        QCOMPARE(cli->exitCode(), 0);
    }

    // Last: stops the server.
    void serverStoppedMidSessionIsReportedWithExit3()
    {
        QProcess *cli = startShell({});
        cli->write("echo \"READY-$((1+1))\"\n");
        QByteArray out;
        QVERIFY(QTest::qWaitFor(
            [&] {
                out += cli->readAllStandardOutput();
                return out.contains("READY-2");
            },
            120000));
        m_server->stop();
        QVERIFY(cli->waitForFinished(120000));
        const QString err = QString::fromUtf8(cli->readAllStandardError());
        QCOMPARE(cli->exitCode(), 3);
        // The script's output is polled through /execute: the next poll is refused.
        QVERIFY2(err.contains(QLatin1String("Connection refused")), qPrintable(err));
        QVERIFY2(err.contains(m_server->url().toString(QUrl::StripTrailingSlash)), qPrintable(err));
        QVERIFY(!err.contains(m_server->apiKey()));
    }
};

QTEST_GUILESS_MAIN(TerminalIntegration)
#include "tst_terminal.moc"
