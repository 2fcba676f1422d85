// Runs the built `sandscope` binary without a display: help and version, usage errors (exit
// 2), the refusal of --api-key, and transport errors (exit 3) that name the server but never
// the key.

#include "cli/cli.h"
#include "security/profilestore.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

namespace {

const QString apiKey = QStringLiteral("cli-test-key-5f1e2d3c4b5a");

struct Outcome {
    int exitCode = -1;
    QString out;
    QString err;
    QString all() const { return out + err; }
};

} // namespace

class CliUsageTest : public QObject {
    Q_OBJECT

private:
    // No display, and data/config directories inside a temporary home.
    QProcessEnvironment environment(bool withKey = true) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM",
                 "SANDSCOPE_API_KEY", "SANDSCOPE_AUDIT_LOG", "DBUS_SESSION_BUS_ADDRESS"})
            env.remove(QString::fromLatin1(name));
        env.insert(QStringLiteral("HOME"), m_home.path());
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.filePath(QStringLiteral("data")));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_home.filePath(QStringLiteral("config")));
        if (withKey)
            env.insert(QStringLiteral("SANDSCOPE_API_KEY"), apiKey);
        return env;
    }

    Outcome run(const QStringList &arguments, const QProcessEnvironment &env) const
    {
        QProcess process;
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(SANDSCOPE_BINARY), arguments);
        Outcome outcome;
        if (!process.waitForStarted(10000) || !process.waitForFinished(60000)) {
            process.kill();
            process.waitForFinished();
            outcome.err = QStringLiteral("did not finish: ") + process.errorString();
            return outcome;
        }
        outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
        outcome.out = QString::fromUtf8(process.readAllStandardOutput());
        outcome.err = QString::fromUtf8(process.readAllStandardError());
        return outcome;
    }
    Outcome run(const QStringList &arguments) const { return run(arguments, environment()); }

    // A loopback port nobody listens on.
    static quint16 closedPort()
    {
        QTcpServer server;
        if (!server.listen(QHostAddress::LocalHost))
            return 0;
        const quint16 port = server.serverPort();
        server.close();
        return port;
    }

    QTemporaryDir m_home;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        // This process writes the profile the child reads: both use the same locations.
        qputenv("XDG_DATA_HOME", QFile::encodeName(m_home.filePath(QStringLiteral("data"))));
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_home.filePath(QStringLiteral("config"))));
    }

    void versionPrintsTheProjectVersion()
    {
        const Outcome result = run({QStringLiteral("--version")});
        QCOMPARE(result.exitCode, 0);
        QVERIFY2(result.out.contains(QStringLiteral(SANDSCOPE_VERSION)), qPrintable(result.all()));
    }

    void helpListsTheVerbsAndKeySources()
    {
        const Outcome result = run({QStringLiteral("--help")});
        QCOMPARE(result.exitCode, 0);
        for (const char *expected :
            {"server-info", "exec", "shell", "search", "SANDSCOPE_API_KEY", "--api-key-file"})
            QVERIFY2(result.out.contains(QLatin1String(expected)), expected);
    }

    void verbHelpShowsItsOptions_data()
    {
        QTest::addColumn<QString>("verb");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("exec") << QStringLiteral("exec")
                              << QStringList {QStringLiteral("sandscope exec"),
                                     QStringLiteral("--server"), QStringLiteral("--user"),
                                     QStringLiteral("--cwd"), QStringLiteral("--session"),
                                     QStringLiteral("--api-key-file"),
                                     QStringLiteral("-- COMMAND")};
        QTest::newRow("shell") << QStringLiteral("shell")
                               << QStringList {QStringLiteral("sandscope shell"),
                                      QStringLiteral("--server"), QStringLiteral("--user"),
                                      QStringLiteral("--cwd"), QStringLiteral("raw mode"),
                                      QStringLiteral("exit status"),
                                      QStringLiteral("--api-key-file")};
        QTest::newRow("server-info")
            << QStringLiteral("server-info")
            << QStringList {QStringLiteral("sandscope server-info"), QStringLiteral("--server"),
                   QStringLiteral("--json"), QStringLiteral("--profile")};
        QTest::newRow("live") << QStringLiteral("live")
                              << QStringList {QStringLiteral("sandscope live"),
                                     QStringLiteral("--all-users"), QStringLiteral("--admin-exec"),
                                     QStringLiteral("--json"), QStringLiteral("Ctrl+C")};
        QTest::newRow("search") << QStringLiteral("search")
                                << QStringList {QStringLiteral("sandscope search"),
                                       QStringLiteral("QUERY"), QStringLiteral("--tool"),
                                       QStringLiteral("--since"), QStringLiteral("--all-users"),
                                       QStringLiteral("--json")};
    }
    void verbHelpShowsItsOptions()
    {
        QFETCH(QString, verb);
        QFETCH(QStringList, expected);
        const Outcome result = run({verb, QStringLiteral("--help")});
        QCOMPARE(result.exitCode, 0);
        for (const QString &text : expected)
            QVERIFY2(
                result.out.contains(text), qPrintable(text + QStringLiteral(" in ") + result.out));
        QVERIFY2(!result.out.contains(QStringLiteral("--api-key ")),
            "a refused option must not be offered");
    }

    // The README's synopsis and each verb's --help describe the same program: every option a
    // verb declares is in the README's synopsis lines of that verb, and every option those
    // lines name is one the verb declares. (The README once called `search --all-users`
    // refused while the verb supported it.) The options every verb shares are described
    // once, below the synopsis.
    void readmeSynopsisAndVerbHelpNameTheSameOptions()
    {
        QFile readme(QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/../../README.md"));
        QVERIFY(readme.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(readme.readAll());
        const int begin = text.indexOf(QLatin1String("```text\nsandscope "));
        QVERIFY(begin >= 0);
        const int end = text.indexOf(QLatin1String("```"), begin + 3);
        const QStringList lines = text.mid(begin, end - begin).split(QLatin1Char('\n'));
        const QRegularExpression option(QStringLiteral("(?<![\\w-])(--[a-z][a-z-]*|-[a-zA-Z])\\b"));
        const QRegularExpression declared(
            QStringLiteral("^  ((?:-[a-zA-Z], )?--[a-z][a-z-]*.*?)(?:  |$)"),
            QRegularExpression::MultilineOption);
        // Connection options every server verb takes (README: "Connecting").
        const QSet<QString> shared {QStringLiteral("--profile"), QStringLiteral("--api-key-file"),
            QStringLiteral("--fleet"), QStringLiteral("--help-all"), QStringLiteral("--help"),
            QStringLiteral("-h")};

        QMap<QString, QSet<QString>> synopsis;
        QString verb;
        for (const QString &line : lines) {
            if (line.startsWith(QLatin1String("sandscope ")))
                verb = line.section(QLatin1Char(' '), 1, 1);
            auto match = option.globalMatch(line);
            while (match.hasNext())
                synopsis[verb].insert(match.next().captured(1));
        }
        synopsis.remove(QStringLiteral("--version"));
        QVERIFY(synopsis.size() >= 15);
        for (auto it = synopsis.cbegin(); it != synopsis.cend(); ++it) {
            const Outcome help = run({it.key(), QStringLiteral("--help")});
            QCOMPARE(help.exitCode, 0);
            QSet<QString> verbOptions;
            QStringList undocumented;
            auto match = declared.globalMatch(help.out);
            while (match.hasNext()) {
                // The option column of an option line: "-o, --output <FILE>", or several
                // options sharing one description ("--server URL, --profile NAME, …").
                const QString column = match.next().captured(1);
                QStringList names;
                auto inColumn = option.globalMatch(column);
                while (inColumn.hasNext())
                    names << inColumn.next().captured(1);
                verbOptions.unite(QSet<QString>(names.cbegin(), names.cend()));
                for (const QString &name : names) {
                    if (!name.startsWith(QLatin1String("--")) || shared.contains(name))
                        continue;
                    const bool inReadme = std::any_of(names.cbegin(), names.cend(),
                        [&](const QString &alias) { return it.value().contains(alias); });
                    // Every server verb takes --user; the probe acts as the users it is given.
                    const bool probeUser
                        = it.key() == QLatin1String("probe") && name == QLatin1String("--user");
                    // A fleet is named by --fleet, never --server (refused there).
                    const bool fleetServer
                        = it.key() == QLatin1String("fleet") && name == QLatin1String("--server");
                    if (!inReadme && !probeUser && !fleetServer)
                        undocumented << name;
                }
            }
            QVERIFY2(undocumented.isEmpty(),
                qPrintable(QStringLiteral("README synopsis of %1 lacks %2")
                               .arg(it.key(), undocumented.join(QLatin1String(", ")))));
            QStringList unknown;
            for (const QString &name : it.value()) {
                if (!verbOptions.contains(name))
                    unknown << name;
            }
            QVERIFY2(unknown.isEmpty(),
                qPrintable(QStringLiteral("README names %1 for %2, its help does not")
                               .arg(unknown.join(QLatin1String(", ")), it.key())));
        }
    }

    void unknownVerbIsAUsageError()
    {
        const Outcome result = run({QStringLiteral("frobnicate")});
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains(QStringLiteral("frobnicate")), qPrintable(result.err));
        QVERIFY(result.out.isEmpty());
    }

    void apiKeyOptionIsRefusedWithTheReason_data()
    {
        QTest::addColumn<QStringList>("arguments");
        const QString server = QStringLiteral("--server=http://127.0.0.1:9");
        const QString secret = QStringLiteral("argv-secret-0042");
        QTest::newRow("exec, separate value") << QStringList {QStringLiteral("exec"), server,
            QStringLiteral("--api-key"), secret, QStringLiteral("--"), QStringLiteral("true")};
        QTest::newRow("exec, joined value") << QStringList {QStringLiteral("exec"), server,
            QStringLiteral("--api-key=") + secret, QStringLiteral("--"), QStringLiteral("true")};
        QTest::newRow("server-info") << QStringList {
            QStringLiteral("server-info"), QStringLiteral("--api-key"), secret, server};
        QTest::newRow("without verb") << QStringList {QStringLiteral("--api-key"), secret};
    }
    void apiKeyOptionIsRefusedWithTheReason()
    {
        QFETCH(QStringList, arguments);
        const Outcome result = run(arguments);
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains(QStringLiteral("process list")), qPrintable(result.err));
        QVERIFY2(result.err.contains(QStringLiteral("SANDSCOPE_API_KEY")), qPrintable(result.err));
        QVERIFY(!result.all().contains(QStringLiteral("argv-secret-0042")));
    }

    void missingServerIsAUsageError_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("exec") << QStringList {
            QStringLiteral("exec"), QStringLiteral("--"), QStringLiteral("true")};
        QTest::newRow("server-info") << QStringList {QStringLiteral("server-info")};
        QTest::newRow("shell") << QStringList {
            QStringLiteral("shell"), QStringLiteral("--user=alice")};
    }
    void missingServerIsAUsageError()
    {
        QFETCH(QStringList, arguments);
        const Outcome result = run(arguments);
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains(QStringLiteral("--server")), qPrintable(result.err));
    }

    void otherUsageErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<bool>("withKey");
        QTest::addColumn<QString>("reason");
        const QString server = QStringLiteral("--server=http://127.0.0.1:9");
        QTest::newRow("no command")
            << QStringList {QStringLiteral("exec"), server} << true << QStringLiteral("command");
        QTest::newRow("shell without user")
            << QStringList {QStringLiteral("shell"), server} << true << QStringLiteral("--user");
        QTest::newRow("privileged user id") << QStringList {QStringLiteral("exec"), server,
            QStringLiteral("--user=root"), QStringLiteral("--"), QStringLiteral("id")}
                                            << true << QStringLiteral("root");
        QTest::newRow("not a URL")
            << QStringList {QStringLiteral("server-info"), QStringLiteral("--server=ftp://x")}
            << true << QStringLiteral("http");
        QTest::newRow("no key") << QStringList {QStringLiteral("server-info"), server} << false
                                << QStringLiteral("SANDSCOPE_API_KEY");
        const QString fleetFile = m_home.filePath(QStringLiteral("fleet.json"));
        QFile fleet(fleetFile);
        if (fleet.open(QIODevice::WriteOnly))
            fleet.write("{\"router\": \"http://127.0.0.1:9\", \"members\": [{\"name\": \"m0\", "
                        "\"url\": \"http://127.0.0.1:9\"}], \"api_key\": \"sk-in-file\"}");
        fleet.close();
        QTest::newRow("fleet and server") << QStringList {QStringLiteral("server-info"), server,
            QStringLiteral("--fleet=") + fleetFile}
                                          << true << QStringLiteral("--fleet and --server");
        QTest::newRow("no fleet file") << QStringList {QStringLiteral("server-info"),
            QStringLiteral("--fleet=/nonexistent/f.json")}
                                       << true << QStringLiteral("/nonexistent/f.json");
        QTest::newRow("a key in the fleet file")
            << QStringList {QStringLiteral("server-info"), QStringLiteral("--fleet=") + fleetFile}
            << true << QStringLiteral("\"api_key\" is refused");
        QFile good(m_home.filePath(QStringLiteral("good-fleet.json")));
        if (good.open(QIODevice::WriteOnly))
            good.write("{\"router\": \"http://127.0.0.1:9\", \"members\": [{\"name\": "
                       "\"m0\", \"url\": \"http://127.0.0.1:9\"}]}");
        good.close();
        const QString fleetOption = QStringLiteral("--fleet=") + good.fileName();
        // The views that fan out take each member's admin command from the fleet file.
        for (const QStringList &view :
            {QStringList {QStringLiteral("sessions"), QStringLiteral("--all-users")},
                QStringList {QStringLiteral("usage"), QStringLiteral("--all-users")},
                QStringList {
                    QStringLiteral("search"), QStringLiteral("--all-users"), QStringLiteral("x")},
                QStringList {QStringLiteral("chats")}}) {
            QTest::addRow(
                "%s of every user through a fleet with --admin-exec", qPrintable(view.first()))
                << view + QStringList {fleetOption, QStringLiteral("--admin-exec=sudo -n")} << true
                << QStringLiteral("admin_exec in the fleet file");
            QTest::addRow("%s of every user with a bad --member-timeout", qPrintable(view.first()))
                << view + QStringList {fleetOption, QStringLiteral("--member-timeout=soon")} << true
                << QStringLiteral("--member-timeout needs seconds");
        }
        QTest::newRow("live of every user through a fleet with --admin-exec")
            << QStringList {QStringLiteral("live"), QStringLiteral("--all-users"), fleetOption,
                   QStringLiteral("--admin-exec=sudo -n")}
            << true << QStringLiteral("admin_exec in the fleet file");
        QTest::newRow("probe of a fleet with --admin-exec")
            << QStringList {QStringLiteral("probe"), fleetOption, QStringLiteral("--users=a,b"),
                   QStringLiteral("--admin-exec=sudo -n")}
            << true << QStringLiteral("each member's admin command is its admin_exec");
        QTest::newRow("probe with users and fresh users")
            << QStringList {QStringLiteral("probe"), fleetOption, QStringLiteral("--users=a,b"),
                   QStringLiteral("--fresh-users=2")}
            << true << QStringLiteral("give --users or --fresh-users, not both");
        QTest::newRow("probe of a fleet with too many fresh users")
            << QStringList {QStringLiteral("probe"), fleetOption, QStringLiteral("--fresh-users=9")}
            << true << QStringLiteral("between 2 and 4");
        QTest::newRow("probe with an unknown check")
            << QStringList {QStringLiteral("probe"), server, QStringLiteral("--users=a,b"),
                   QStringLiteral("--checks=files.read,files.teleport")}
            << true << QStringLiteral("unknown check \"files.teleport\"");
        QTest::newRow("probe of one server with a check across members")
            << QStringList {QStringLiteral("probe"), server, QStringLiteral("--users=a,b"),
                   QStringLiteral("--checks=network.member-api")}
            << true << QStringLiteral("a check across members of a fleet");
        QTest::newRow("cleanup executed on a fleet without its member")
            << QStringList {QStringLiteral("cleanup"), fleetOption, QStringLiteral("--execute"),
                   QStringLiteral("--plan=x.jsonl"), QStringLiteral("--yes")}
            << true << QStringLiteral("add --member NAME");
        QTest::newRow("cleanup on a member the fleet lacks")
            << QStringList {QStringLiteral("cleanup"), fleetOption, QStringLiteral("--member=m9")}
            << true << QStringLiteral("no member \"m9\" (it has m0)");
        QTest::newRow("cleanup --member without a fleet")
            << QStringList {QStringLiteral("cleanup"), server, QStringLiteral("--member=m0")}
            << true << QStringLiteral("--member belongs to --fleet");
        QTest::newRow("unknown profile")
            << QStringList {QStringLiteral("server-info"), QStringLiteral("--profile=nope")} << true
            << QStringLiteral("nope");
        QTest::newRow("unknown option")
            << QStringList {QStringLiteral("server-info"), server, QStringLiteral("--frob")} << true
            << QStringLiteral("frob");
        const QString user = QStringLiteral("--user=alice");
        QTest::newRow("search without user") << QStringList {QStringLiteral("search"), server,
            QStringLiteral("x")} << true << QStringLiteral("--user");
        QTest::newRow("search without query") << QStringList {QStringLiteral("search"), server,
            user} << true << QStringLiteral("QUERY");
        QTest::newRow("search with a bad date") << QStringList {QStringLiteral("search"), server,
            user, QStringLiteral("x"), QStringLiteral("--since=yesterday")}
                                                << true << QStringLiteral("yesterday");
        QTest::newRow("search every user and one user") << QStringList {QStringLiteral("search"),
            server, user, QStringLiteral("x"), QStringLiteral("--all-users")}
                                                        << true << QStringLiteral("exclude");
        QTest::newRow("search with an admin command for one user") << QStringList {
            QStringLiteral("search"), server, user, QStringLiteral("x"),
            QStringLiteral("--admin-exec=sudo -n")} << true << QStringLiteral("--all-users");
        QTest::newRow("sessions of every user with an unclosed quote")
            << QStringList {QStringLiteral("sessions"), server, QStringLiteral("--all-users"),
                   QStringLiteral("--admin-exec=ssh 'host")}
            << true << QStringLiteral("unclosed single quote");
        QTest::newRow("sessions of every user in one chat") << QStringList {
            QStringLiteral("sessions"), server, QStringLiteral("--all-users"),
            QStringLiteral("--chat=c1")} << true << QStringLiteral("do not apply");
        QTest::newRow("cleanup with an empty admin command")
            << QStringList {QStringLiteral("cleanup"), server, QStringLiteral("--admin-exec= ")}
            << true << QStringLiteral("empty");
        QTest::newRow("live wall without every user") << QStringList {
            QStringLiteral("live"), server} << true << QStringLiteral("--all-users");
        QTest::newRow("live wall with an unclosed quote")
            << QStringList {QStringLiteral("live"), server, QStringLiteral("--all-users"),
                   QStringLiteral("--admin-exec=ssh 'host")}
            << true << QStringLiteral("unclosed single quote");
        QTest::newRow("live wall with an argument") << QStringList {QStringLiteral("live"), server,
            QStringLiteral("--all-users"), QStringLiteral("alice")}
                                                    << true << QStringLiteral("no arguments");
        QTest::newRow("one user's chats with an admin command") << QStringList {
            QStringLiteral("chats"), server, user,
            QStringLiteral("--admin-exec=sudo -n")} << true << QStringLiteral("without --user");
    }
    void otherUsageErrors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(bool, withKey);
        QFETCH(QString, reason);
        const Outcome result = run(arguments, environment(withKey));
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains(reason), qPrintable(result.err));
    }

    // An admin command that cannot run the follower: exit 3 with the command line named and
    // its error output, not a hang.
    void liveWallWithAFailingAdminCommandExitsThreeNamingIt()
    {
        const Outcome result = run({QStringLiteral("live"),
            QStringLiteral("--server=http://127.0.0.1:9"), QStringLiteral("--all-users"),
            QStringLiteral("--admin-exec=sh -c 'echo no-root-here >&2; exit 7' x")});
        QCOMPARE(result.exitCode, 3);
        QVERIFY2(result.err.contains(QLatin1String("no-root-here")), qPrintable(result.err));
        QVERIFY2(result.err.contains(QLatin1String("status 7")), qPrintable(result.err));
        QVERIFY2(!result.all().contains(apiKey), qPrintable(result.all()));
    }

    // On a terminal (script(1) gives it one) the wall is redrawn in place: the cursor home,
    // the table, each line's rest and the screen's rest cleared; no other escape sequence;
    // Ctrl+C typed on the terminal ends it with status 0. (The follower runs as this account
    // through the admin command `env`: no agent needs to run.)
    void liveWallOnATerminalIsRedrawnInPlaceAndEndsOnCtrlC()
    {
        const QString script = QStandardPaths::findExecutable(QStringLiteral("script"));
        QVERIFY2(!script.isEmpty(), "script (util-linux) is required");
        QProcess terminal;
        terminal.setProcessEnvironment(environment());
        terminal.start(script,
            {QStringLiteral("-qfec"),
                // exec: the CLI alone on the terminal. The shell script(1) starts ($SHELL, else
                // sh) would get the Ctrl+C as well, and dash then ends with status 130.
                QStringLiteral(
                    "exec %1 live --server http://127.0.0.1:9 --all-users --admin-exec env")
                    .arg(QStringLiteral(SANDSCOPE_BINARY)),
                QStringLiteral("/dev/null")});
        QVERIFY(terminal.waitForStarted(10000));
        QByteArray screen;
        QVERIFY(QTest::qWaitFor(
            [&] {
                screen += terminal.readAllStandardOutput();
                return screen.count("\x1b[H") >= 2; // drawn, and drawn again a second later
            },
            20000));
        terminal.write("\x03");
        QVERIFY(terminal.waitForFinished(10000));
        screen += terminal.readAllStandardOutput();
        QCOMPARE(terminal.exitCode(), 0);
        QVERIFY2(screen.contains("LAST LINE\x1b[K\r\n"), screen.constData());
        QByteArray rest = screen;
        for (const char *ours : {"\x1b[H", "\x1b[K", "\x1b[J"})
            rest.replace(ours, "");
        QVERIFY2(!rest.contains('\x1b'), rest.constData());
    }

    void worldReadableKeyFileIsAUsageError()
    {
        const QString keyFile = m_home.filePath(QStringLiteral("open.key"));
        QFile file(keyFile);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(apiKey.toUtf8());
        file.close();
        QVERIFY(file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ReadOther));
        const Outcome result
            = run({QStringLiteral("server-info"), QStringLiteral("--server=http://127.0.0.1:9"),
                      QStringLiteral("--api-key-file"), keyFile},
                environment(false));
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains(QStringLiteral("chmod 600")), qPrintable(result.err));
        QVERIFY(!result.all().contains(apiKey));
    }

    void refusedConnectionExitsThreeNamingTheServerNotTheKey_data()
    {
        QTest::addColumn<QStringList>("verbArguments");
        QTest::newRow("exec") << QStringList {QStringLiteral("exec"), QStringLiteral("--"),
            QStringLiteral("echo"), QStringLiteral("hi")};
        QTest::newRow("exec as user") << QStringList {QStringLiteral("exec"),
            QStringLiteral("--user=alice"), QStringLiteral("--"), QStringLiteral("id")};
        QTest::newRow("server-info") << QStringList {QStringLiteral("server-info")};
        QTest::newRow("server-info --json")
            << QStringList {QStringLiteral("server-info"), QStringLiteral("--json")};
    }
    void refusedConnectionExitsThreeNamingTheServerNotTheKey()
    {
        QFETCH(QStringList, verbArguments);
        const quint16 port = closedPort();
        QVERIFY(port != 0);
        const QString url = QStringLiteral("http://127.0.0.1:%1").arg(port);
        QStringList arguments = verbArguments;
        arguments.insert(1, QStringLiteral("--server=") + url);
        const Outcome result = run(arguments);
        QCOMPARE(result.exitCode, 3);
        QVERIFY2(
            result.err.contains(QStringLiteral("127.0.0.1:%1").arg(port)), qPrintable(result.err));
        QVERIFY2(!result.all().contains(apiKey), qPrintable(result.all()));
        QVERIFY2(result.out.isEmpty(), qPrintable(result.out));
    }

    void profileSuppliesServerUserAndKeyAndExecIsAudited()
    {
        const quint16 port = closedPort();
        QVERIFY(port != 0);
        sandscope::Profile profile;
        profile.name = QStringLiteral("lab");
        profile.serverUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
        profile.defaultUserId = QStringLiteral("alice");
        sandscope::ProfileStore().save(profile);
        sandscope::KeyStore keys;
        keys.setKeyringEnabled(false);
        bool stored = false;
        keys.storeKey(profile.name, apiKey, [&](sandscope::KeyStorage where, const QString &) {
            stored = where == sandscope::KeyStorage::FallbackFile;
        });
        QVERIFY(stored);

        const Outcome result = run({QStringLiteral("exec"), QStringLiteral("--profile=lab"),
                                       QStringLiteral("--"), QStringLiteral("id")},
            environment(false));
        QCOMPARE(result.exitCode, 3);
        QVERIFY2(
            result.err.contains(QStringLiteral("127.0.0.1:%1").arg(port)), qPrintable(result.err));
        QVERIFY(!result.all().contains(apiKey));

        QFile audit(m_home.filePath(QStringLiteral("data/sandscope/audit.jsonl")));
        QVERIFY2(audit.open(QIODevice::ReadOnly), qPrintable(audit.fileName()));
        const QByteArray lines = audit.readAll();
        QVERIFY(!lines.contains(apiKey.toUtf8()));
        const QJsonObject entry
            = QJsonDocument::fromJson(lines.trimmed().split('\n').last()).object();
        QCOMPARE(entry.value(QStringLiteral("profile")).toString(), QStringLiteral("lab"));
        QCOMPARE(entry.value(QStringLiteral("user")).toString(), QStringLiteral("alice"));
        QCOMPARE(entry.value(QStringLiteral("action")).toString(), QStringLiteral("exec"));
        QCOMPARE(entry.value(QStringLiteral("target")).toString(), QStringLiteral("id"));
        QVERIFY(
            entry.value(QStringLiteral("result")).toString().contains(QStringLiteral("refused")));
    }

    // The GUI takes --server/--user/--api-key-file/--profile too; only verbs, help, version
    // and the refused --api-key belong to the command line.
    void commandLineOrGuiIsDecidedByVerbAndHelpOptions_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<bool>("commandLine");
        QTest::newRow("nothing") << QStringList {} << false;
        QTest::newRow("gui options") << QStringList {QStringLiteral("--server"),
            QStringLiteral("http://h:1"), QStringLiteral("--api-key-file"), QStringLiteral("/k"),
            QStringLiteral("--user"), QStringLiteral("demo")}
                                     << false;
        QTest::newRow("gui profile")
            << QStringList {QStringLiteral("--profile"), QStringLiteral("lab")} << false;
        QTest::newRow("verb") << QStringList {QStringLiteral("exec")} << true;
        QTest::newRow("help") << QStringList {QStringLiteral("--server"), QStringLiteral("x"),
            QStringLiteral("--help")}
                              << true;
        QTest::newRow("version") << QStringList {QStringLiteral("--version")} << true;
        QTest::newRow("plain api key")
            << QStringList {QStringLiteral("--api-key"), QStringLiteral("k")} << true;
        QTest::newRow("api key with =") << QStringList {QStringLiteral("--api-key=k")} << true;
        // What the desktop file's `sandscope %F` passes: files open in the window.
        const QString capture = QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/stream-basic.jsonl");
        QTest::newRow("files to open") << QStringList {capture,
            QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/stream-subagent.jsonl")}
                                       << false;
        QTest::newRow("a file then gui options")
            << QStringList {capture, QStringLiteral("--user"), QStringLiteral("demo")} << false;
        QTest::newRow("mistyped verb") << QStringList {QStringLiteral("replya")} << true;
        QTest::newRow("a folder is no file to open")
            << QStringList {QStringLiteral(SANDSCOPE_TEST_DATA_DIR)} << true;
        QTest::newRow("help word") << QStringList {QStringLiteral("help")} << true;
    }

    void commandLineOrGuiIsDecidedByVerbAndHelpOptions()
    {
        QFETCH(QStringList, arguments);
        QFETCH(bool, commandLine);
        std::vector<QByteArray> storage {QByteArrayLiteral("sandscope")};
        for (const QString &argument : arguments)
            storage.push_back(argument.toUtf8());
        std::vector<char *> argv;
        for (QByteArray &argument : storage)
            argv.push_back(argument.data());
        QCOMPARE(sandscope::cli::wantsCommandLine(int(argv.size()), argv.data()), commandLine);
    }
};

QTEST_GUILESS_MAIN(CliUsageTest)
#include "tst_cli_usage.moc"
