// What a real agent run leaves where every user looks: the REAL claude CLI started through
// Sandscope's own run use case (RunController, as the window and `sandscope run` start it) as
// a user of a REAL multi-user open-terminal (the pinned OPEN_TERMINAL_VERSION) against the
// scripted model server, with /tmp and /dev/shm listed during the run and after it by a second
// real user's shell. A file of the running user's that the second user can read is a finding
// (the probe's shared.tmp, for an agent run); the run's prompt and environment (the agent's key)
// must not be readable in any of them. The findings are printed as measured, with the CLI's
// version (docs/server-behaviour.md).

#include "probefixture.h"
#include "realserver.h"
#include "runs/runcontroller.h"
#include "server/openterminalclient.h"
#include "testing.h"
#include "util/shellquote.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int runTimeoutMs = 240000;

// The files below /tmp and /dev/shm owned by `account` that the shell's own user can read.
QString readableFilesOf(const QString &account)
{
    return QStringLiteral("find /tmp /dev/shm -xdev -user %1 -type f -readable 2>/dev/null")
        .arg(shell::quote(account));
}

} // namespace

class TestRunSharedPlaces : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_local;
    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<ScriptedModelServer> m_model;
    QString m_account; // of the running user, once known

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_local.isValid());
        isolateLocalState(m_local.path());
        QString error;
        QVERIFY2(startAgentSandbox(&m_server, &m_model, &error), qPrintable(error));
    }

    void cleanupTestCase()
    {
        // What the run left in the shared places goes with its account (the fixture removes
        // the accounts, not their files outside the homes).
        if (!m_account.isEmpty())
            runAsRoot(QStringLiteral("find /tmp /dev/shm -xdev -mindepth 1 -user %1 -delete")
                          .arg(shell::quote(m_account)));
        m_model.reset();
        m_server.reset();
    }

    void agentRunLeavesNothingOfItsPromptOrKeyReadable()
    {
        SANDSCOPE_REQUIRE(
            m_server && m_model, "needs root, sudo, useradd (multi-user open-terminal) and claude");
        QProcess version;
        version.start(QStandardPaths::findExecutable(QStringLiteral("claude")),
            {QStringLiteral("--version")});
        QVERIFY(version.waitForFinished(30000));
        const QString cliVersion = QString::fromUtf8(version.readAllStandardOutput()).trimmed();

        const QString runner = QStringLiteral("shr") + randomToken(6, true);
        const QString other = QStringLiteral("sho") + randomToken(6, true);
        m_account = shellAs(*m_server, runner, QStringLiteral("id -un")).trimmed();
        const QString otherAccount = shellAs(*m_server, other, QStringLiteral("id -un")).trimmed();
        QVERIFY2(m_account.startsWith(m_server->prefix()), qPrintable(m_account));
        QVERIFY2(otherAccount.startsWith(m_server->prefix()) && otherAccount != m_account,
            qPrintable(otherAccount));

        // The prompt and the key are unique, so a copy of either anywhere is recognised.
        const QString promptToken = QStringLiteral("prompt-") + randomToken(16);
        const QString secret = QStringLiteral("sk-ant-shared-") + randomToken(32);
        OpenTerminalClient client(m_server->connection());
        RunController controller(&client);
        QList<RunOutcome> outcomes;
        connect(&controller, &RunController::turnEnded, &controller,
            [&](const RunOutcome &outcome) { outcomes.append(outcome); });
        LiveRunRequest request;
        request.identity = {runner, QString()};
        request.scope = {QString(), m_server->url().toString(), runner};
        request.chatId = QStringLiteral("shared-") + randomToken(6, true);
        // The Bash call marks that it is under way and then waits for the test's go-ahead, so
        // the places are listed while the CLI works however slowly the host starts it.
        request.prompt = QStringLiteral("CMD: touch running; for i in $(seq 600); do [ -e go ] && "
                                        "break; sleep 0.2; done; echo %1")
                             .arg(promptToken);
        request.options.allowedTools = QStringList {QStringLiteral("Bash")};
        request.environment = m_model->agentEnvironment(secret);
        controller.startTurn(request);

        const QString workdir = QStringLiteral("~/chat-") + request.chatId + QLatin1Char('/');
        QSet<QString> during;
        int looksWhileRunning = 0;
        bool toolRunning = false;
        QElapsedTimer waited;
        waited.start();
        while (outcomes.isEmpty() && waited.elapsed() < runTimeoutMs) {
            const QStringList seen = shellAs(*m_server, other, readableFilesOf(m_account))
                                         .split(u'\n', Qt::SkipEmptyParts);
            for (const QString &path : seen)
                during.insert(path.trimmed());
            // A look counts when the Bash call was known to be under way before it began.
            if (toolRunning && ++looksWhileRunning == 2)
                shellAs(
                    *m_server, runner, QStringLiteral("touch ") + workdir + QStringLiteral("go"));
            if (!toolRunning) {
                toolRunning = shellAs(*m_server, runner,
                                  QStringLiteral("test -e ") + workdir
                                      + QStringLiteral("running && echo yes"))
                                  .trimmed()
                    == QLatin1String("yes");
            }
            QTest::qWait(300);
        }
        QVERIFY2(!outcomes.isEmpty(), "the run did not end");
        QVERIFY2(outcomes.at(0).ok(), qPrintable(RunOutcome::kindName(outcomes.at(0).kind)));
        QVERIFY2(looksWhileRunning >= 2, "no look while the Bash call was under way");
        const QStringList after = shellAs(*m_server, other, readableFilesOf(m_account))
                                      .split(u'\n', Qt::SkipEmptyParts);
        QSet<QString> findings = during;
        for (const QString &path : after)
            findings.insert(path.trimmed());
        QStringList sorted(findings.cbegin(), findings.cend());
        sorted.sort();
        // Every mode and owner, as root sees them, for the record.
        QString modes;
        runAsRoot(QStringLiteral("find /tmp /dev/shm -xdev -user %1 -printf '%m %u %p\\n'")
                      .arg(shell::quote(m_account)),
            &modes);
        qInfo("claude %s, %d looks during the run: readable by another user: %s\nafter the run, "
              "owned by the runner:\n%s",
            qPrintable(cliVersion), looksWhileRunning,
            sorted.isEmpty() ? "none" : qPrintable(sorted.join(QStringLiteral(", "))),
            qPrintable(modes));

        // None of them is, or holds, the run's prompt or its environment.
        for (const QString &path : std::as_const(sorted)) {
            QVERIFY2(
                !path.endsWith(QLatin1String(".prompt")) && !path.endsWith(QLatin1String(".env")),
                qPrintable(path));
            const QString content
                = shellAs(*m_server, other, QStringLiteral("cat -- ") + shell::quote(path));
            QVERIFY2(!content.contains(secret), qPrintable(path));
            QVERIFY2(!content.contains(promptToken), qPrintable(path));
        }
    }
};

QTEST_GUILESS_MAIN(TestRunSharedPlaces)
#include "tst_runsharedplaces.moc"
