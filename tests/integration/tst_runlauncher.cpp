// RunLauncher end to end: a REAL multi-user open-terminal (the pinned OPEN_TERMINAL_VERSION)
// runs the REAL claude CLI as a sandbox account against the scripted model server.
//  * a prompt full of quotes, $(), backticks, newlines, controls and unicode plus 100 kB of
//    filler reaches the model byte for byte (the model server logs the prompt's text blocks
//    unchanged with --log-prompt-blocks), and never appears on a command line;
//  * the env file is written 0600 and removed once the agent has read it, and the key appears
//    on no command line the server lists;
//  * the tee file equals the streamed lines;
//  * a run survives its launcher: re-attached by process id, and by following the tee file;
//  * rundiscovery finds a running run of a user, following it works and Stop ends it;
//  * a kill whose answer is lost on the network is sent again and ends the run as killed;
//  * lines whose multibyte characters the PTY split (9 000 €) are repaired from the tee file;
//  * by push (the default where the terminal opens) the lines are the tee file's, and a run
//    busy in a long tool call costs no request at all; re-attaching and Stop work by push too;
//  * what a run leaves in ~/.sandscope, stat'ed by the agent itself while it runs and after it
//    ended, belongs to the account and is closed to others (issue 27).

#include "networkcut.h"
#include "realserver.h"
#include "runs/rundiscovery.h"
#include "runs/runlauncher.h"
#include "server/lineassembler.h"
#include "server/openterminalclient.h"
#include "server/openterminalprotocol.h"
#include "server/processstream.h"
#include "testing.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <algorithm>
#include <memory>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int runTimeoutMs = 240000;

// Everything a launcher reported.
struct Recorder {
    QMap<qint64, QString> received;
    QMap<qint64, QString> repaired;
    QList<qint64> damaged; // numbers of received lines that carried U+FFFD
    QStringList notices;
    QVector<RunLauncher::State> states;
    RunHandle handle;
    bool started = false;
    int startedCount = 0;
    bool startedAfterTheEnd = false;
    bool finished = false;
    int exitCode = -1;
    QString failure;
    QString interrupted;

    void watch(RunLauncher *launcher)
    {
        QObject::connect(launcher, &RunLauncher::started, launcher, [this](const RunHandle &h) {
            handle = h;
            started = true;
            ++startedCount;
            startedAfterTheEnd = startedAfterTheEnd || ended();
        });
        QObject::connect(launcher, &RunLauncher::lineReceived, launcher,
            [this](qint64 number, const QString &line) {
                received.insert(number, line);
                if (line.contains(QChar(0xFFFD)))
                    damaged.append(number);
            });
        QObject::connect(launcher, &RunLauncher::lineRepaired, launcher,
            [this](qint64 number, const QString &line) { repaired.insert(number, line); });
        QObject::connect(launcher, &RunLauncher::notice, launcher,
            [this](const QString &message) { notices.append(message); });
        QObject::connect(launcher, &RunLauncher::stateChanged, launcher,
            [this](RunLauncher::State state) { states.append(state); });
        QObject::connect(launcher, &RunLauncher::finished, launcher, [this](int code) {
            finished = true;
            exitCode = code;
        });
        QObject::connect(launcher, &RunLauncher::failed, launcher,
            [this](const QString &message) { failure = message; });
        QObject::connect(launcher, &RunLauncher::interrupted, launcher,
            [this](const QString &message) { interrupted = message; });
    }
    bool ended() const { return finished || !failure.isEmpty() || !interrupted.isEmpty(); }
    bool hasLineWith(const char *needle) const
    {
        return std::any_of(received.cbegin(), received.cend(),
            [needle](const QString &l) { return l.contains(QLatin1String(needle)); });
    }
    // The received lines with the repairs applied.
    QStringList finalLines() const
    {
        QStringList lines;
        for (auto it = received.cbegin(); it != received.cend(); ++it)
            lines.append(repaired.value(it.key(), it.value()));
        return lines;
    }
};

QJsonObject parse(const QString &line)
{
    return QJsonDocument::fromJson(line.toUtf8()).object();
}

QString contentText(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    QString text;
    const QJsonArray blocks = content.toArray();
    for (const QJsonValue &block : blocks)
        text += block.toObject().value(QLatin1String("text")).toString();
    return text;
}

// Whether some line is a tool_result (type "user") whose text contains `needle`.
bool hasToolResultWith(const QStringList &lines, const QString &needle)
{
    for (const QString &line : lines) {
        const QJsonObject object = parse(line);
        if (object.value(QLatin1String("type")).toString() != QLatin1String("user"))
            continue;
        const QJsonArray content = object.value(QLatin1String("message"))
                                       .toObject()
                                       .value(QLatin1String("content"))
                                       .toArray();
        for (const QJsonValue &block : content) {
            if (block.toObject().value(QLatin1String("type")).toString()
                    == QLatin1String("tool_result")
                && contentText(block.toObject().value(QLatin1String("content"))).contains(needle))
                return true;
        }
    }
    return false;
}

bool hasSuccessResult(const QStringList &lines)
{
    for (const QString &line : lines) {
        const QJsonObject object = parse(line);
        if (object.value(QLatin1String("type")).toString() == QLatin1String("result")
            && object.value(QLatin1String("subtype")).toString() == QLatin1String("success")
            && !object.value(QLatin1String("is_error")).toBool())
            return true;
    }
    return false;
}

// Text that a shell, JSON, a terminal and UTF-8 handling could each get wrong.
QString nastyText()
{
    return QStringLiteral("Nasty: single ' double \" escaped '\\'' $(touch /tmp/sandscope-pwned) "
                          "${HOME} `id` !! !$ \\ \\n \\\\ \t tab \x01\x02\x1b[31mred\x1b[0m \x7f"
                          "\r\nCRLF line, unicode é € 😀 中文 \u2028 \u2029 \u0085 \ufeff \ufffd "
                          "combining e\u0301\n\n  indented line  \n");
}

// ~100 kB of seeded lines of lowercase words, digits, punctuation and multibyte characters;
// never an upper-case keyword the model server reacts to.
QString filler(qsizetype bytes)
{
    QRandomGenerator random(20260101);
    const QString alphabet
        = QStringLiteral("abcdefghijklmnopqrstuvwxyz0123456789 .,;:-_'\"$`!()[]{}"
                         "<>|&*?~#%^=+\\/éü€😀中");
    QString text;
    qsizetype size = 0;
    while (size < bytes) {
        QString line;
        const int length = int(random.bounded(20, 200));
        for (int i = 0; i < length; ++i) {
            const int index = int(random.bounded(quint32(alphabet.size())));
            if (alphabet.at(index).isHighSurrogate())
                line += alphabet.mid(index, 2);
            else if (!alphabet.at(index).isLowSurrogate())
                line += alphabet.at(index);
        }
        line += QLatin1Char('\n');
        size += line.toUtf8().size();
        text += line;
    }
    return text;
}

} // namespace

class RunLauncherTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void invalidChatIdIsRefused();
    void nastyPromptArrivesByteForByte();
    void reattachByProcessIdAfterLauncherDestroyed();
    void aPushedRunIsTheTeeFileAndCostsNoRequestWhileBusy();
    void reattachByFollowingTeeFile_data() { transports(); }
    void reattachByFollowingTeeFile();
    void discoveredRunIsFollowedAndStopped_data() { transports(); }
    void discoveredRunIsFollowedAndStopped();
    void aKillWhoseAnswerIsLostIsSentAgainAndEndsTheRunAsKilled();
    void startedComesOnceBeforeTheEndWhenTheStartAnswersLate_data();
    void startedComesOnceBeforeTheEndWhenTheStartAnswersLate();
    void aRefusedStartEndsTheRunWithTheReason_data() { transports(); }
    void aRefusedStartEndsTheRunWithTheReason();
    void splitMultibyteCharactersAreRepairedFromTee();
    void filesLeftOnTheServerAreClosedToOthers();
    // Last: it leaves the server without a free terminal (giving 16 back takes half a minute).
    void withNoTerminalLeftTheRunIsPolledAndSaysSo();

private:
    bool ready() const { return m_server && m_model; }
    Identity newIdentity(const QString &stem) const;
    // Push allowed (the product's default) or polling only (the fallback).
    // Through `client` when given (e.g. one whose connection goes through a NetworkCut).
    std::unique_ptr<RunLauncher> newLauncher(
        const Identity &identity, bool push = true, OpenTerminalClient *client = nullptr) const;
    // The server's connection, through `network`.
    ServerConnection connectionThrough(const NetworkCut &network) const;
    static void transports()
    {
        QTest::addColumn<bool>("push");
        QTest::newRow("push") << true;
        QTest::newRow("polling") << false;
    }
    QHash<QString, QString> environment() const;
    bool waitForEnd(const Recorder &recorder) const;
    // Launches `prompt` (a Bash call that does not end by itself) as `identity`, waits for its
    // tool call, and leaves the run going without a launcher.
    bool startSleepingRun(const Identity &identity, const QString &chatId, const QString &prompt,
        RunHandle *handle, QString *why);
    // Runs a command as `identity` to its end and returns its terminal output.
    QString execute(const Identity &identity, const QString &command);
    QList<QByteArray> teeLines(const RunHandle &handle);

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<ScriptedModelServer> m_model;
    std::unique_ptr<OpenTerminalClient> m_client;
    QString m_secret;
};

void RunLauncherTest::initTestCase()
{
    QString error;
    QVERIFY2(
        startAgentSandbox(&m_server, &m_model, &error, {QStringLiteral("--log-prompt-blocks")}),
        qPrintable(error));
    if (!ready())
        return; // every test reports the requirement itself
    m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
    m_secret = QLatin1String("sk-ant-runlauncher-") + randomToken(32);
}

void RunLauncherTest::cleanupTestCase()
{
    m_client.reset();
    m_model.reset();
    m_server.reset();
}

ServerConnection RunLauncherTest::connectionThrough(const NetworkCut &network) const
{
    ServerConnection connection = m_server->connection();
    connection.baseUrl = network.url();
    return connection;
}

Identity RunLauncherTest::newIdentity(const QString &stem) const
{
    const QString suffix = randomToken(6, true);
    return {stem + suffix, stem + QLatin1String("-session-") + suffix};
}

std::unique_ptr<RunLauncher> RunLauncherTest::newLauncher(
    const Identity &identity, bool push, OpenTerminalClient *client) const
{
    auto launcher = std::make_unique<RunLauncher>(client ? client : m_client.get(), identity);
    launcher->setPushAllowed(push);
    launcher->setPollIntervals(50, 500);
    launcher->setLivenessInterval(500);
    return launcher;
}

QHash<QString, QString> RunLauncherTest::environment() const
{
    return m_model->agentEnvironment(m_secret);
}

bool RunLauncherTest::waitForEnd(const Recorder &recorder) const
{
    return QTest::qWaitFor([&recorder] { return recorder.ended(); }, runTimeoutMs);
}

bool RunLauncherTest::startSleepingRun(const Identity &identity, const QString &chatId,
    const QString &prompt, RunHandle *handle, QString *why)
{
    auto launcher = newLauncher(identity);
    Recorder recorder;
    recorder.watch(launcher.get());
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash")};
    launcher->launch(chatId, prompt, options, environment());
    // The handle comes with started(), which pushed lines can precede.
    const bool called = QTest::qWaitFor(
        [&recorder] {
            return recorder.ended() || (recorder.started && recorder.hasLineWith("tool_use"));
        },
        runTimeoutMs);
    if (!called || recorder.ended()) {
        *why = QStringLiteral("the Bash call did not start: ") + recorder.failure;
        return false;
    }
    *handle = recorder.handle;
    return true;
}

QString RunLauncherTest::execute(const Identity &identity, const QString &command)
{
    ProcessStream stream(m_client.get(), identity);
    stream.setPollIntervals(50, 500);
    QString output;
    bool ended = false;
    connect(&stream, &ProcessStream::output, &stream,
        [&output](const QString &text) { output += text; });
    connect(&stream, &ProcessStream::finished, &stream, [&ended] { ended = true; });
    connect(&stream, &ProcessStream::failed, &stream, [&ended, &output](const ApiError &error) {
        output += QLatin1String("FAILED: ") + error.toString();
        ended = true;
    });
    stream.start(command);
    if (!QTest::qWaitFor([&ended] { return ended; }, 60000))
        output += QLatin1String("TIMED OUT");
    return output;
}

QList<QByteArray> RunLauncherTest::teeLines(const RunHandle &handle)
{
    const auto tee = await<RawFile>([&](auto done) {
        return m_client->viewFile(handle.identity, handle.teePath(), m_client.get(), done);
    });
    if (!tee.ok())
        return {"tee file unreadable: " + tee.error.toString().toUtf8()};
    QList<QByteArray> lines = tee.value.bytes.split('\n');
    if (lines.constLast().isEmpty())
        lines.removeLast();
    return lines;
}

void RunLauncherTest::invalidChatIdIsRefused()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    auto launcher = newLauncher(newIdentity(QStringLiteral("rlbad")));
    QSignalSpy failed(launcher.get(), &RunLauncher::failed);
    launcher->launch(QStringLiteral("../escape"), QStringLiteral("hi"), {}, environment());
    QCOMPARE(failed.count(), 0); // reported asynchronously, never from inside launch()
    QVERIFY(failed.wait(5000));
    QVERIFY(failed.at(0).at(0).toString().contains(QLatin1String("chat id")));
    QVERIFY(!failed.at(0).at(0).toString().contains(m_secret));
}

void RunLauncherTest::nastyPromptArrivesByteForByte()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const Identity identity = newIdentity(QStringLiteral("rlnasty"));
    const QString token = QLatin1String("tok") + randomToken(12);
    const QString promptMarker = QLatin1String("promptonly") + randomToken(12);
    const QString prompt = nastyText() + promptMarker + QLatin1Char('\n') + filler(100 * 1024)
        + QLatin1String("CMD: echo ") + token;
    QVERIFY(prompt.toUtf8().size() > 100 * 1024);

    auto launcher = newLauncher(identity);
    Recorder recorder;
    recorder.watch(launcher.get());
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash")};
    launcher->launch(QStringLiteral("nasty-1"), prompt, options, environment());
    QVERIFY2(waitForEnd(recorder), "the run did not end in time");
    const QByteArray diagnostics
        = (recorder.failure + QLatin1Char('\n') + recorder.finalLines().join(QLatin1Char('\n'))
            + QLatin1String("\n--- stderr:\n") + launcher->standardError())
              .toUtf8();
    QVERIFY2(recorder.failure.isEmpty(), diagnostics.constData());
    QCOMPARE(recorder.exitCode, 0);
    QVERIFY(recorder.started);

    // The model received the prompt exactly: one text block equal to it, byte for byte.
    bool promptArrivedExactly = false;
    const QStringList requests = m_model->requestLog().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (const QString &request : requests) {
        const QJsonArray blocks = parse(request).value(QLatin1String("prompt_blocks")).toArray();
        QString sent;
        for (const QJsonValue &block : blocks)
            sent += block.toString();
        if (sent.contains(promptMarker)) {
            QCOMPARE(sent.toUtf8(), prompt.toUtf8());
            promptArrivedExactly = true;
        }
    }
    QVERIFY2(promptArrivedExactly, "no request carried the prompt");

    const QStringList lines = recorder.finalLines();
    QVERIFY2(hasToolResultWith(lines, token), diagnostics.constData());
    QVERIFY2(hasSuccessResult(lines), diagnostics.constData());

    // The tee file is the stream: same lines, same order, same bytes.
    const QList<QByteArray> tee = teeLines(recorder.handle);
    QCOMPARE(tee.size(), lines.size());
    for (qsizetype i = 0; i < tee.size(); ++i)
        QCOMPARE(QString::fromUtf8(tee.at(i)), lines.at(i));
    QCOMPARE(launcher->lines(), lines);

    // The env file is gone once the agent has read it (issue 27); neither the key nor the
    // prompt is on any command line.
    const QString left = execute(identity,
        QLatin1String("test -e ") + recorder.handle.paths().envFile
            + QLatin1String(" && echo ENV-LEFT || echo ENV-GONE"));
    QVERIFY2(left.contains(QLatin1String("ENV-GONE")), qPrintable(left));
    const auto processes = await<QVector<ProcessInfo>>(
        [&](auto done) { return m_client->listProcesses(identity, m_client.get(), done); });
    QVERIFY2(processes.ok(), qPrintable(processes.error.toString()));
    bool listedRun = false;
    for (const ProcessInfo &process : processes.value) {
        QVERIFY2(!process.command.contains(m_secret), "the API key appeared on a command line");
        QVERIFY2(!process.command.contains(promptMarker), "the prompt appeared on a command line");
        if (process.command.contains(recorder.handle.runId))
            listedRun = true;
    }
    QVERIFY(listedRun);

    // The handle survives persisting.
    const RunHandle restored = RunHandle::fromJson(recorder.handle.toJson());
    QCOMPARE(restored.teePath(), recorder.handle.teePath());
    QCOMPARE(restored.processId, recorder.handle.processId);
    QVERIFY(restored.identity == identity);
}

void RunLauncherTest::reattachByProcessIdAfterLauncherDestroyed()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const Identity identity = newIdentity(QStringLiteral("rlattach"));
    const QString token = QLatin1String("done") + randomToken(10);
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash")};

    Recorder first;
    qint64 seen = 0;
    {
        auto launcher = newLauncher(identity);
        first.watch(launcher.get());
        launcher->launch(QStringLiteral("attach-1"), QLatin1String("CMD: sleep 3; echo ") + token,
            options, environment());
        // Mid-run: the Bash call was announced but its result is 3 s away.
        QVERIFY2(QTest::qWaitFor(
                     [&first] {
                         return first.ended()
                             || (first.started
                                 && std::any_of(first.received.cbegin(), first.received.cend(),
                                     [](const QString &l) {
                                         return l.contains(QLatin1String("tool_use"));
                                     }));
                     },
                     runTimeoutMs),
            "the Bash call did not start");
        QVERIFY2(!first.ended(), qPrintable(first.failure));
        seen = first.received.size();
    } // the launcher is gone; the run goes on in the sandbox
    QVERIFY(!first.handle.processId.isEmpty());
    QVERIFY(!hasToolResultWith(first.received.values(), token));

    auto launcher = newLauncher(identity);
    Recorder second;
    second.watch(launcher.get());
    launcher->reattach(first.handle, seen);
    QVERIFY2(waitForEnd(second), "the re-attached run did not end in time");
    QVERIFY2(second.failure.isEmpty(), qPrintable(second.failure));
    QCOMPARE(second.exitCode, 0);
    QVERIFY(!second.received.isEmpty());
    QCOMPARE(second.received.firstKey(), seen + 1); // continues where the first one stopped
    QVERIFY(hasToolResultWith(second.received.values(), token));
    QVERIFY(hasSuccessResult(second.received.values()));
    QVERIFY(!second.states.contains(RunLauncher::State::FollowingTee));

    const QList<QByteArray> tee = teeLines(first.handle);
    QCOMPARE(qsizetype(tee.size()), qsizetype(launcher->lines().size()));
    for (qsizetype i = 0; i < tee.size(); ++i)
        QCOMPARE(launcher->lines().at(i), QString::fromUtf8(tee.at(i)));
}

void RunLauncherTest::aPushedRunIsTheTeeFileAndCostsNoRequestWhileBusy()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const Identity identity = newIdentity(QStringLiteral("rlpush"));
    const QString token = QLatin1String("pushed") + randomToken(10);
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash")};
    // A client of its own: the requests counted are this run's only (the suite's other
    // channels close their terminals with a request when they go idle).
    OpenTerminalClient client(m_server->connection());
    auto launcher = std::make_unique<RunLauncher>(&client, identity);
    Recorder recorder;
    recorder.watch(launcher.get());
    // 9 000 euro signs: what the PTY split for the polling path arrives whole by push.
    launcher->launch(QStringLiteral("push-1"),
        QLatin1String("CMD: sleep 4; echo ") + token
            + QStringLiteral("; printf '€%.0s' $(seq 9000)"),
        options, environment());
    const auto hasLine = [&recorder](const char *needle) {
        return std::any_of(recorder.received.cbegin(), recorder.received.cend(),
            [needle](const QString &l) { return l.contains(QLatin1String(needle)); });
    };
    QVERIFY2(QTest::qWaitFor([&] { return recorder.ended() || hasLine("tool_use"); }, runTimeoutMs),
        qPrintable(recorder.failure));
    QVERIFY(launcher->isPushed());
    // Busy in its tool call: nothing is polled (the process was until its pid was known).
    QTest::qWait(500);
    const qint64 before = client.requestCount();
    QVERIFY(QTest::qWaitFor([&] { return recorder.ended() || hasLine("tool_result"); }, 30000));
    const qint64 during = client.requestCount() - before;
    QVERIFY2(waitForEnd(recorder), "the run did not end in time");
    QVERIFY2(recorder.failure.isEmpty() && recorder.interrupted.isEmpty(),
        qPrintable(recorder.failure + recorder.interrupted));
    QCOMPARE(recorder.exitCode, 0);
    QCOMPARE(during, qint64(0));
    QVERIFY(recorder.damaged.isEmpty());
    QVERIFY(recorder.repaired.isEmpty());
    const QList<QByteArray> tee = teeLines(recorder.handle);
    QCOMPARE(tee.size(), recorder.received.size());
    for (qsizetype i = 0; i < tee.size(); ++i)
        QCOMPARE(tee.at(i), recorder.received.value(i + 1).toUtf8());
    QVERIFY2(hasToolResultWith(recorder.finalLines(), token),
        qPrintable(
            recorder.finalLines().filter(QStringLiteral("tool_result")).join(QLatin1Char('\n'))));
}

void RunLauncherTest::withNoTerminalLeftTheRunIsPolledAndSaysSo()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    // Another user takes every terminal the server has left (16 server-wide).
    const Identity taker = newIdentity(QStringLiteral("rltaker"));
    QCOMPARE(takeEveryTerminal(m_client.get(), taker.userId), 429);
    // A terminal of an earlier test may be freed a while later (its close was still on its
    // way: the run was then pushed, in CI runs with the suites side by side under the
    // sanitizers, once more than a second after the last refusal). The server is full once
    // one more request is refused three seconds in a row.
    int refusedInARow = 0;
    for (int settle = 0; settle < 30 && refusedInARow < 3; ++settle) {
        QTest::qWait(1000);
        if (takeEveryTerminal(m_client.get(), taker.userId, 1) == 429) {
            ++refusedInARow;
            continue;
        }
        refusedInARow = 0;
        QCOMPARE(takeEveryTerminal(m_client.get(), taker.userId), 429);
    }
    QCOMPARE(refusedInARow, 3);

    const Identity identity = newIdentity(QStringLiteral("rlpoll"));
    const QString token = QLatin1String("polled") + randomToken(10);
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash")};
    auto launcher = newLauncher(identity);
    Recorder recorder;
    recorder.watch(launcher.get());
    launcher->launch(
        QStringLiteral("poll-1"), QLatin1String("CMD: echo ") + token, options, environment());
    QVERIFY2(waitForEnd(recorder), "the run did not end in time");
    QVERIFY2(recorder.failure.isEmpty(), qPrintable(recorder.failure));
    QCOMPARE(recorder.exitCode, 0);
    QVERIFY(!launcher->isPushed());
    QVERIFY(hasToolResultWith(recorder.finalLines(), token));
    QVERIFY2(std::any_of(recorder.notices.cbegin(), recorder.notices.cend(),
                 [](const QString &notice) {
                     return notice.startsWith(
                         QLatin1String("Live output is polled: push is not available"));
                 }),
        qPrintable(recorder.notices.join(QLatin1Char('\n'))));
    const QList<QByteArray> tee = teeLines(recorder.handle);
    QCOMPARE(tee.size(), recorder.received.size());
}

void RunLauncherTest::reattachByFollowingTeeFile()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    QFETCH(bool, push);
    const Identity identity = newIdentity(QStringLiteral("rlfollow"));
    const QString token = QLatin1String("done") + randomToken(10);
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash")};

    Recorder first;
    {
        auto launcher = newLauncher(identity, push);
        first.watch(launcher.get());
        launcher->launch(QStringLiteral("follow-1"), QLatin1String("CMD: sleep 3; echo ") + token,
            options, environment());
        QVERIFY2(
            QTest::qWaitFor(
                [&first] { return first.ended() || (first.started && first.received.size() >= 1); },
                runTimeoutMs),
            "no start and line arrived");
        QVERIFY2(!first.ended(), qPrintable(first.failure));
    }
    // As if the server had forgotten the process (restart, expiry): only the files remain.
    RunHandle handle = first.handle;
    handle.processId.clear();
    handle.logPath.clear();

    auto launcher = newLauncher(identity, push);
    Recorder second;
    second.watch(launcher.get());
    launcher->reattach(handle, 0);
    QVERIFY2(waitForEnd(second), "the followed run did not end in time");
    QVERIFY2(second.failure.isEmpty(), qPrintable(second.failure));
    QCOMPARE(second.states.contains(RunLauncher::State::FollowingTee), !push);
    QCOMPARE(launcher->isPushed(), push);
    QCOMPARE(second.exitCode, 0);
    QCOMPARE(second.received.firstKey(), 1);
    QVERIFY(hasToolResultWith(second.received.values(), token));
    QVERIFY(hasSuccessResult(second.received.values()));
    const QList<QByteArray> tee = teeLines(handle);
    QCOMPARE(qsizetype(tee.size()), qsizetype(second.received.size()));
}

void RunLauncherTest::discoveredRunIsFollowedAndStopped()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    QFETCH(bool, push);
    const Identity identity = newIdentity(QStringLiteral("rldisc"));
    const QString chatId = QStringLiteral("disc-") + randomToken(4, true);
    const QString marker = randomToken(8, true);
    RunHandle started;
    QString notStarted;
    // The command sleeps long; its argument marks the process to look for afterwards. The
    // launcher is gone then, the run sleeps on in the sandbox.
    QVERIFY2(startSleepingRun(identity, chatId,
                 QLatin1String("Long task\nCMD: tail -f /dev/null; echo ") + marker, &started,
                 &notStarted),
        qPrintable(notStarted));

    const auto listRuns = [&](rundiscovery::Listing *listing) {
        bool done = false;
        bool ok = false;
        QString error;
        rundiscovery::list(m_client.get(), identity, m_client.get(),
            [&](bool success, const rundiscovery::Listing &found, const QString &why) {
                ok = success;
                *listing = found;
                error = why;
                done = true;
            });
        if (!QTest::qWaitFor([&done] { return done; }, 60000))
            return QStringLiteral("the listing did not finish");
        return ok ? QString() : error;
    };
    rundiscovery::Listing listing;
    QString error = listRuns(&listing);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(listing.home, started.home);
    QCOMPARE(listing.runs.size(), 1);
    const DiscoveredRun run = listing.runs.first();
    QCOMPARE(run.chatId, chatId);
    QCOMPARE(run.runId, started.runId);
    QCOMPARE(run.teePath, started.teePath());
    QCOMPARE(run.state, DiscoveredRun::State::Running);
    QVERIFY(run.size > 0);
    QCOMPARE(run.promptStart, QStringLiteral("Long task CMD: tail -f /dev/null; echo ") + marker);

    // Followed by its tee file (no process id), then stopped: SIGTERM to its process group.
    auto launcher = newLauncher(identity, push);
    Recorder second;
    second.watch(launcher.get());
    launcher->reattach(rundiscovery::handleFor(identity, listing.home, run), 0);
    QVERIFY(QTest::qWaitFor([&second] { return !second.received.isEmpty(); }, 30000));
    QCOMPARE(
        launcher->state(), push ? RunLauncher::State::Streaming : RunLauncher::State::FollowingTee);
    QCOMPARE(launcher->isPushed(), push);
    QVERIFY(std::any_of(second.received.cbegin(), second.received.cend(),
        [](const QString &l) { return l.contains(QLatin1String("tool_use")); }));
    launcher->stop(2000);
    QVERIFY2(waitForEnd(second), "the stopped run did not end");
    QVERIFY2(second.failure.isEmpty(), qPrintable(second.failure));
    QVERIFY2(second.exitCode != 0, "a stopped run must not look successful");
    QVERIFY(!hasSuccessResult(second.received.values()));

    // Nothing of the run is left running, and the listing says so.
    const QString processes = execute(identity, QStringLiteral("ps -eo args || true"));
    QVERIFY2(!processes.contains(marker), qPrintable(processes));
    error = listRuns(&listing);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(listing.runs.size(), 1);
    QVERIFY(listing.runs.first().state != DiscoveredRun::State::Running);
}

// The signal script's answer lost (the network down, then back; the request may have reached
// the server or not): the launcher sends it again instead of leaving the run going behind a
// Kill, and a run found gone meanwhile ends as killed, not as a mystery.
void RunLauncherTest::aKillWhoseAnswerIsLostIsSentAgainAndEndsTheRunAsKilled()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const Identity identity = newIdentity(QStringLiteral("rlkill"));
    const QString marker = randomToken(8, true);
    RunHandle handle;
    QString why;
    QVERIFY2(startSleepingRun(identity, QStringLiteral("kill-") + randomToken(4, true),
                 QLatin1String("CMD: tail -f /dev/null; echo ") + marker, &handle, &why),
        qPrintable(why));
    handle.processId.clear(); // followed by its tee file, through the relay below

    NetworkCut network(m_server->url());
    QVERIFY(network.listen());
    ServerConnection connection = connectionThrough(network);
    OpenTerminalClient client(connection);
    const auto launcher = newLauncher(identity, false, &client);
    Recorder second;
    second.watch(launcher.get());
    launcher->reattach(handle, 0);
    QVERIFY2(
        QTest::qWaitFor([&second] { return !second.received.isEmpty() || second.ended(); }, 60000),
        "no line and no end 60 s after reattaching");
    QVERIFY2(!second.received.isEmpty(), qPrintable(second.failure));
    QCOMPARE(launcher->state(), RunLauncher::State::FollowingTee);

    // Only now are requests given up after 2 s: the reattach, which checks the run's files with
    // a command as the user, had the usual time (on a loaded machine such a command took longer
    // than 2 s, and the reattach failed before the kill was tried).
    connection.timeoutMs = 2000; // a request the cut holds fails after this
    client.setConnection(connection);
    network.setDown(true);
    launcher->kill();
    // The first signal request times out while the network is down (the relay may still
    // hand it to the server once it is back); the next one goes through.
    QTest::qWait(connection.timeoutMs + 500);
    QVERIFY(!second.ended());
    network.setDown(false);
    QVERIFY2(QTest::qWaitFor([&second] { return second.ended(); }, 60000),
        qPrintable(second.notices.join(QLatin1Char('\n'))));
    QVERIFY2(second.failure.isEmpty(), qPrintable(second.failure));
    QVERIFY2(second.exitCode != 0, "a killed run must not look successful");
    for (const QString &notice : std::as_const(second.notices))
        QVERIFY2(!notice.contains(QLatin1String("Could not send")), qPrintable(notice));
    const QString processes = execute(identity, QStringLiteral("ps -eo args || true"));
    QVERIFY2(!processes.contains(marker), qPrintable(processes));
}

// The start request answers late (a busy server) while push already delivers the run: that
// request is not cut short, started() comes once and before the end, and no line comes twice.
// Answered while the run goes on, the handle has the process id; answered only after the run
// ended, started() came without it (the run's files are all a reattach needs).
void RunLauncherTest::startedComesOnceBeforeTheEndWhenTheStartAnswersLate_data()
{
    QTest::addColumn<bool>("answeredWhileRunning");
    QTest::newRow("answered while the run goes on") << true;
    QTest::newRow("answered after the run ended") << false;
}

void RunLauncherTest::startedComesOnceBeforeTheEndWhenTheStartAnswersLate()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    QFETCH(bool, answeredWhileRunning);
    const Identity identity = newIdentity(QStringLiteral("rllate"));
    const QString token = QLatin1String("late") + randomToken(10);

    NetworkCut network(m_server->url());
    QVERIFY(network.listen());
    network.holdAnswersToRequestsContaining("setsid -w"); // the run's start, not its scripts
    ServerConnection connection = connectionThrough(network);
    connection.timeoutMs = runTimeoutMs; // the held answer must outlast the whole run
    OpenTerminalClient client(connection);
    const auto launcher = newLauncher(identity, true, &client);
    Recorder recorder;
    recorder.watch(launcher.get());
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash")};
    launcher->launch(QStringLiteral("late-1"), QLatin1String("CMD: sleep 3; echo ") + token,
        options, environment());
    QVERIFY2(QTest::qWaitFor(
                 [&recorder] { return recorder.ended() || recorder.hasLineWith("tool_use"); },
                 runTimeoutMs),
        qPrintable(recorder.failure));
    QVERIFY(launcher->isPushed());
    QVERIFY2(!recorder.started, "started() before the start request answered");

    if (answeredWhileRunning) {
        network.releaseAnswers();
        QVERIFY(QTest::qWaitFor(
            [&recorder] { return recorder.started || recorder.ended(); }, connection.timeoutMs));
        QVERIFY2(!recorder.handle.processId.isEmpty(), "the start's answer was not taken");
    }
    QVERIFY2(waitForEnd(recorder), "the run did not end in time");
    QVERIFY2(recorder.failure.isEmpty() && recorder.interrupted.isEmpty(),
        qPrintable(recorder.failure + recorder.interrupted));
    QCOMPARE(recorder.exitCode, 0);
    QCOMPARE(recorder.startedCount, 1);
    QVERIFY2(!recorder.startedAfterTheEnd, "started() came after finished()");
    QString why;
    QVERIFY2(recorder.handle.isValid(&why), qPrintable(why));
    if (!answeredWhileRunning) {
        QVERIFY(recorder.handle.processId.isEmpty());
        network.releaseAnswers(); // the late answer is taken, and announces nothing again
        QVERIFY(QTest::qWaitFor(
            [&launcher] { return !launcher->handle().processId.isEmpty(); }, connection.timeoutMs));
        QTest::qWait(100);
        QCOMPARE(recorder.startedCount, 1);
    }
    const QList<QByteArray> tee = teeLines(recorder.handle);
    QCOMPARE(qsizetype(tee.size()), qsizetype(recorder.received.size()));
    QVERIFY(hasToolResultWith(recorder.finalLines(), token));
}

// The run's start refused by a proxy in front of the server (a 502 page): the run never
// started, and the launcher says so, with the reason, instead of waiting for it forever (by
// push, or by its tee file).
void RunLauncherTest::aRefusedStartEndsTheRunWithTheReason()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    QFETCH(bool, push);
    const Identity identity = newIdentity(QStringLiteral("rlrefused"));
    NetworkCut network(m_server->url());
    QVERIFY(network.listen());
    network.refuseRequestsContaining("setsid -w"); // the run's start, not its scripts
    OpenTerminalClient client(connectionThrough(network));
    const auto launcher = newLauncher(identity, push, &client);
    Recorder recorder;
    recorder.watch(launcher.get());
    launcher->launch(
        QStringLiteral("refused-1"), QStringLiteral("Hello"), ClaudeRunOptions(), environment());
    QVERIFY2(QTest::qWaitFor([&recorder] { return recorder.ended(); }, 60000),
        "60 s on, the launcher still waits for a run that never started");
    QVERIFY(!recorder.finished);
    QVERIFY2(recorder.failure.contains(QLatin1String("502")), qPrintable(recorder.failure));
    QVERIFY2(
        recorder.failure.contains(QLatin1String("did not start")), qPrintable(recorder.failure));
    QCOMPARE(recorder.startedCount, 0);
    QVERIFY(recorder.received.isEmpty());
    // The secrets written for it are not left on disk.
    const QString envFile = launcher->handle().paths().envFile;
    QCOMPARE(
        execute(identity,
            QLatin1String("test -e ") + envFile + QLatin1String(" && echo PRESENT || echo ABSENT"))
            .trimmed(),
        QStringLiteral("ABSENT"));
}

void RunLauncherTest::splitMultibyteCharactersAreRepairedFromTee()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const Identity identity = newIdentity(QStringLiteral("rleuro"));
    auto launcher = newLauncher(identity, false); // what a PTY does to text: polling only
    Recorder recorder;
    recorder.watch(launcher.get());
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash")};
    // 27 000 bytes of 3-byte characters (below the CLI's 30 000-character limit for inline tool
    // output), twice per line: 4096-byte PTY reads split some of them.
    launcher->launch(QStringLiteral("euro-1"), QStringLiteral("CMD: printf '€%.0s' $(seq 9000)"),
        options, environment());
    QVERIFY2(waitForEnd(recorder), "the run did not end in time");
    QVERIFY2(recorder.failure.isEmpty(), qPrintable(recorder.failure));
    QCOMPARE(recorder.exitCode, 0);

    QVERIFY2(!recorder.damaged.isEmpty(), "the PTY split no character; nothing to repair");
    for (const qint64 number : std::as_const(recorder.damaged)) {
        QVERIFY2(recorder.repaired.contains(number), qPrintable(QString::number(number)));
        QVERIFY(!recorder.repaired.value(number).contains(QChar(0xFFFD)));
    }
    const QStringList lines = launcher->lines();
    const QString euros(9000, QChar(0x20AC));
    QVERIFY2(hasToolResultWith(lines, euros), qPrintable(lines.join(QLatin1Char('\n')).left(3000)));
    for (const QString &line : lines)
        QVERIFY(!line.contains(QChar(0xFFFD)));
    const QList<QByteArray> tee = teeLines(recorder.handle);
    QCOMPARE(qsizetype(tee.size()), qsizetype(lines.size()));
    for (qsizetype i = 0; i < tee.size(); ++i)
        QCOMPARE(lines.at(i), QString::fromUtf8(tee.at(i)));
    QCOMPARE(recorder.finalLines(), lines);
}

namespace {

// "STAT <octal mode> <owner> <type> <path>" lines as printed by the stat commands below.
struct StatLine {
    int mode = -1;
    QString owner;
    QString path;
};

QVector<StatLine> statLines(const QString &text)
{
    static const QRegularExpression line(QStringLiteral("STAT ([0-7]+) (\\S+) (/\\S+)"));
    QVector<StatLine> lines;
    auto matches = line.globalMatch(text);
    while (matches.hasNext()) {
        const QRegularExpressionMatch match = matches.next();
        lines.append({match.captured(1).toInt(nullptr, 8), match.captured(2), match.captured(3)});
    }
    return lines;
}

// Files the server never reads again once the run started (the agent's secrets, the prompt)
// are the owner's alone; nothing a run leaves can be reached by another account.
QString closedToOthersProblem(const QVector<StatLine> &lines, const QString &account)
{
    for (const StatLine &line : lines) {
        const QString where = QStringLiteral("%1 (mode %2, owner %3)")
                                  .arg(line.path, QString::number(line.mode, 8), line.owner);
        if (line.owner != account)
            return QStringLiteral("not the account's: ") + where;
        if (line.mode & 0007)
            return QStringLiteral("open to others: ") + where;
        const bool secret = line.path.endsWith(QLatin1String(".prompt"))
            || line.path.endsWith(QLatin1String("/agent.env"));
        if (secret && (line.mode & 07777) != 0600)
            return QStringLiteral("not 0600: ") + where;
    }
    return {};
}

// The text of every tool result in the lines.
QString toolResults(const QStringList &lines)
{
    QString text;
    for (const QString &line : lines) {
        const QJsonArray content = parse(line)
                                       .value(QLatin1String("message"))
                                       .toObject()
                                       .value(QLatin1String("content"))
                                       .toArray();
        for (const QJsonValue &block : content)
            if (block.toObject().value(QLatin1String("type")).toString()
                == QLatin1String("tool_result"))
                text += contentText(block.toObject().value(QLatin1String("content")))
                    + QLatin1Char('\n');
    }
    return text;
}

} // namespace

void RunLauncherTest::filesLeftOnTheServerAreClosedToOthers()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const Identity identity = newIdentity(QStringLiteral("rlmode"));
    const QString chatId = QStringLiteral("modes-1");
    const QString runs = QLatin1String("~/.sandscope/runs/") + chatId;
    const QString look = QLatin1String("id -un | sed 's/^/ACCOUNT /'; stat -c 'STAT %a %U %n' "
                                       "~/.sandscope ~/.sandscope/* ")
        + runs + QLatin1Char(' ') + runs + QLatin1String("/*");
    // An older Sandscope (or the user) may have left the folders open: a run closes them.
    const QString opened = execute(identity,
        QLatin1String("mkdir -p ") + runs + QLatin1String(" && chmod 777 ~/.sandscope ")
            + QLatin1String("~/.sandscope/runs ") + runs + QLatin1String(" && echo OPENED"));
    QVERIFY2(opened.contains(QLatin1String("OPENED")), qPrintable(opened));

    auto launcher = newLauncher(identity);
    Recorder recorder;
    recorder.watch(launcher.get());
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash")};
    launcher->launch(chatId, QLatin1String("CMD: ") + look, options, environment());
    QVERIFY2(waitForEnd(recorder), "the run did not end in time");
    QVERIFY2(recorder.failure.isEmpty(), qPrintable(recorder.failure));

    // While it ran, as the agent saw it: the env file already gone, the prompt private.
    const QString during = toolResults(recorder.finalLines());
    static const QRegularExpression accountLine(QStringLiteral("ACCOUNT (\\S+)"));
    const QString account = accountLine.match(during).captured(1);
    QVERIFY2(!account.isEmpty(), qPrintable(recorder.finalLines().join(QLatin1Char('\n'))));
    const QVector<StatLine> whileRunning = statLines(during);
    QVERIFY2(whileRunning.size() >= 6, qPrintable(during)); // 3 folders, prompt, tee, stderr
    QVERIFY2(std::none_of(whileRunning.cbegin(), whileRunning.cend(),
                 [](const StatLine &l) { return l.path.endsWith(QLatin1String("agent.env")); }),
        qPrintable(during));
    const QString problem = closedToOthersProblem(whileRunning, account);
    QVERIFY2(problem.isEmpty(), qPrintable(problem + QLatin1Char('\n') + during));

    // After the end: the exit file too, and still nothing open.
    const QString after = execute(identity, look);
    const QVector<StatLine> leftBehind = statLines(after);
    QVERIFY2(std::any_of(leftBehind.cbegin(), leftBehind.cend(),
                 [](const StatLine &l) { return l.path.endsWith(QLatin1String(".exit")); }),
        qPrintable(after));
    const QString problemAfter = closedToOthersProblem(leftBehind, account);
    QVERIFY2(problemAfter.isEmpty(), qPrintable(problemAfter + QLatin1Char('\n') + after));
}

QTEST_GUILESS_MAIN(RunLauncherTest)
#include "tst_runlauncher.moc"
