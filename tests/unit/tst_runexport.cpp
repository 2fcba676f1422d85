// Exports of every capture and transcript in tests/data: the HTML loads nothing (no URL in
// src/href/url(), no <link>, no @import) and names every tool call, the Markdown too; the
// JSON export opens again (LoadedRun, like File › Open) as the same tree, compared node by
// node through the model's roles; secrets are masked by default and kept with redaction off,
// also in the re-opened tree; a recording with damaged entries exports what it has and lists
// what was skipped; a failed write leaves nothing behind.

#include "export/exportedrun.h"
#include "export/runexporter.h"
#include "export/runjsonformat.h"
#include "exportfixture.h"
#include "recordings/runrecording.h"
#include "runs/loadedrun.h"
#include "runtree/runmodel.h"
#include "security/credentialredactor.h"
#include "security/secretredactor.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest/QTest>

#include <functional>

using namespace sandscope;

namespace {

QString dataPath(const QString &relative)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + relative;
}

struct Loaded {
    LoadedRun run;
    std::unique_ptr<RunModel> model = std::make_unique<RunModel>();
    std::unique_ptr<QAbstractItemModelTester> tester;
};

bool load(const QString &path, Loaded *loaded)
{
    QString why;
    if (!LoadedRun::fromFile(path, &loaded->run, &why)) {
        qWarning() << why;
        return false;
    }
    loaded->tester = std::make_unique<QAbstractItemModelTester>(
        loaded->model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    loaded->run.buildModel(loaded->model.get());
    return true;
}

// tool_use id -> name of every tool call node in the model.
QMap<QString, QString> toolCallsOf(const RunModel &model)
{
    QMap<QString, QString> calls;
    std::function<void(const QModelIndex &)> walk = [&](const QModelIndex &parent) {
        for (int row = 0; row < model.rowCount(parent); ++row) {
            const QModelIndex index = model.index(row, 0, parent);
            if (index.data(RunModel::KindRole).toInt() == int(RunModel::NodeKind::ToolCall))
                calls.insert(index.data(RunModel::ToolUseIdRole).toString(),
                    index.data(RunModel::ToolNameRole).toString());
            walk(index);
        }
    };
    walk(QModelIndex());
    return calls;
}

// One line per node, depth-first, with everything a view shows of it: the rows of every
// column, the roles, and the node's depth (nesting).
QStringList treeLines(const RunModel &model)
{
    const QList<int> roles {RunModel::KindRole, RunModel::StatusRole, RunModel::ToolNameRole,
        RunModel::ToolKindRole, RunModel::ToolUseIdRole, RunModel::ParentToolUseIdRole,
        RunModel::MessageIdRole, RunModel::SummaryRole, RunModel::TextRole, RunModel::RawJsonRole,
        RunModel::ResultRawJsonRole, RunModel::IsErrorRole, RunModel::FilePathRole,
        RunModel::DurationMsRole, RunModel::StartedAtMsRole, RunModel::InputTokensRole,
        RunModel::OutputTokensRole, RunModel::CostUsdRole, RunModel::LineNumberRole};
    QStringList lines;
    std::function<void(const QModelIndex &, int)> walk = [&](const QModelIndex &parent, int depth) {
        for (int row = 0; row < model.rowCount(parent); ++row) {
            const QModelIndex index = model.index(row, 0, parent);
            QStringList fields {QString::number(depth), QString::number(model.rowCount(index))};
            for (int column = 0; column < RunModel::ColumnCount; ++column)
                fields.append(index.siblingAtColumn(column).data().toString());
            for (int role : roles) {
                const QVariant value = index.data(role);
                fields.append(value.isValid() ? value.toString() : QStringLiteral("<none>"));
            }
            const RunNodeDetails details = index.data(RunModel::DetailRole).value<RunNodeDetails>();
            fields.append(details.searchTexts());
            // The input JSON is normalised (key order) by the export: compare it parsed.
            fields.append(QString::fromUtf8(
                QJsonDocument::fromJson(details.inputJson).toJson(QJsonDocument::Compact)));
            lines.append(fields.join(QLatin1Char('|')));
            walk(index, depth + 1);
        }
    };
    walk(QModelIndex(), 0);
    return lines;
}

QByteArray exportOf(const Loaded &loaded, RunExporter::Format format, bool redact)
{
    RunExporter exporter;
    exporter.setRedacting(redact);
    // A re-opened export names the run it came from, as the export did.
    const bool reopened = bool(loaded.run.exported);
    return exporter.render(
        exporter.snapshot(*loaded.model, reopened ? loaded.run.exported->source : loaded.run.source,
            reopened ? loaded.run.exported->skipped : loaded.run.problems),
        format);
}

} // namespace

class TestRunExport : public QObject {
    Q_OBJECT

private slots:
    void everyRun_data();
    void htmlLoadsNothingAndNamesEveryCall_data() { everyRun_data(); }
    void htmlLoadsNothingAndNamesEveryCall();
    void markdownHoldsEveryCall_data() { everyRun_data(); }
    void markdownHoldsEveryCall();
    void jsonRoundTripsToTheSameTree_data() { everyRun_data(); }
    void jsonRoundTripsToTheSameTree();
    void secretsAreRedactedByDefault_data();
    void secretsAreRedactedByDefault();
    void redactedJsonReopensRedacted();
    void redactorPatterns_data();
    void redactorPatterns();
    void editIsShownAsDiff();
    void damagedRecordingExportsWhatItHas();
    void failedWriteLeavesNothing();
    void formatNames();
};

void TestRunExport::everyRun_data()
{
    QTest::addColumn<QString>("file");
    const QStringList files = test::exportableRunFiles();
    QVERIFY(files.size() >= 15); // the captures and the transcripts fixtures
    for (const QString &file : files)
        QTest::newRow(qPrintable(file)) << file;
}

void TestRunExport::htmlLoadsNothingAndNamesEveryCall()
{
    QFETCH(QString, file);
    Loaded loaded;
    QVERIFY(load(dataPath(file), &loaded));
    const QString html = QString::fromUtf8(exportOf(loaded, RunExporter::Format::Html, true));
    QVERIFY(html.startsWith(QLatin1String("<!DOCTYPE html>")));
    QVERIFY(html.trimmed().endsWith(QLatin1String("</html>")));
    // Nothing that a browser would fetch.
    static const QRegularExpression fetching(
        QStringLiteral("(?:\\b(?:src|href|action|poster|srcset)\\s*=|url\\s*\\(|@import|<link\\b|<"
                       "iframe|<img|<object|<embed)"),
        QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch match = fetching.match(html);
    QVERIFY2(!match.hasMatch(),
        qPrintable(html.mid(std::max<qsizetype>(0, match.capturedStart() - 60), 160)));
    QVERIFY(!html.contains(QLatin1String("<script src")));

    // Every call the file names (read here with QJsonDocument) and every call of the tree.
    QMap<QString, QString> calls = test::toolUsesIn(dataPath(file));
    const QMap<QString, QString> inTree = toolCallsOf(*loaded.model);
    for (auto it = inTree.cbegin(); it != inTree.cend(); ++it)
        calls.insert(it.key(), it.value());
    for (auto it = calls.cbegin(); it != calls.cend(); ++it) {
        QVERIFY2(
            html.contains(QStringLiteral("data-tool-use-id=\"%1\"").arg(it.key().toHtmlEscaped())),
            qPrintable(it.key()));
        QVERIFY2(
            html.contains(
                QStringLiteral("<span class=\"tname\">%1</span>").arg(it.value().toHtmlEscaped()))
                || it.value().isEmpty(),
            qPrintable(it.value()));
    }
    // Balanced: every node opened is closed.
    QCOMPARE(html.count(QStringLiteral("<details")), html.count(QStringLiteral("</details>")));
}

void TestRunExport::markdownHoldsEveryCall()
{
    QFETCH(QString, file);
    Loaded loaded;
    QVERIFY(load(dataPath(file), &loaded));
    const QString markdown
        = QString::fromUtf8(exportOf(loaded, RunExporter::Format::Markdown, true));
    QVERIFY(markdown.startsWith(QLatin1String("# Sandscope run")));
    QMap<QString, QString> calls = test::toolUsesIn(dataPath(file));
    const QMap<QString, QString> inTree = toolCallsOf(*loaded.model);
    for (auto it = inTree.cbegin(); it != inTree.cend(); ++it)
        calls.insert(it.key(), it.value());
    // Markdown escapes '_' in inline text.
    auto escaped = [](QString text) {
        return text.replace(QLatin1Char('_'), QLatin1String("\\_"));
    };
    for (auto it = calls.cbegin(); it != calls.cend(); ++it) {
        QVERIFY2(markdown.contains(escaped(it.key())), qPrintable(it.key()));
        QVERIFY2(markdown.contains(QStringLiteral("**%1**").arg(escaped(it.value()))),
            qPrintable(it.value()));
    }
    // Fences come in pairs.
    static const QRegularExpression fence(
        QStringLiteral("^\\s*```"), QRegularExpression::MultilineOption);
    QCOMPARE(markdown.count(fence) % 2, 0);
}

void TestRunExport::jsonRoundTripsToTheSameTree()
{
    QFETCH(QString, file);
    Loaded original;
    QVERIFY(load(dataPath(file), &original));
    const QByteArray json = exportOf(original, RunExporter::Format::Json, false);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString exported = dir.filePath(QStringLiteral("run.json"));
    QString why;
    QVERIFY2(RunExporter::writeFile(exported, json, &why), qPrintable(why));
    QVERIFY(RunJsonFormat::looksLikeExport(exported));

    Loaded reopened;
    QVERIFY(load(exported, &reopened));
    QVERIFY(reopened.run.exported);
    QVERIFY(reopened.run.events.isEmpty());
    const QStringList before = treeLines(*original.model);
    const QStringList after = treeLines(*reopened.model);
    QVERIFY(!before.isEmpty());
    QCOMPARE(after.size(), before.size());
    for (int i = 0; i < before.size(); ++i)
        QCOMPARE(after.at(i), before.at(i));
    QCOMPARE(toolCallsOf(*reopened.model), toolCallsOf(*original.model));
    QCOMPARE(reopened.model->summary().toJson(), original.model->summary().toJson());
    QCOMPARE(reopened.model->summary().durationMs, original.model->summary().durationMs);
    QCOMPARE(reopened.model->summary().turns, original.model->summary().turns);
    QCOMPARE(reopened.model->summary().roundTrips, original.model->summary().roundTrips);
    QVERIFY(reopened.model->runEnded());

    // And once more: an export of the re-opened run is the same file.
    QCOMPARE(exportOf(reopened, RunExporter::Format::Json, false), json);
}

void TestRunExport::secretsAreRedactedByDefault_data()
{
    QTest::addColumn<int>("format");
    QTest::newRow("html") << int(RunExporter::Format::Html);
    QTest::newRow("markdown") << int(RunExporter::Format::Markdown);
    QTest::newRow("json") << int(RunExporter::Format::Json);
}

void TestRunExport::secretsAreRedactedByDefault()
{
    QFETCH(int, format);
    QTemporaryDir dir;
    const QString capture = test::writePlantedCapture(dir.path());
    QVERIFY(!capture.isEmpty());
    Loaded loaded;
    QVERIFY(load(capture, &loaded));
    QCOMPARE(toolCallsOf(*loaded.model).size(), 2);

    RunExporter exporter; // redacting unless told otherwise
    QVERIFY(exporter.redacting());
    const QByteArray redacted
        = exporter.render(exporter.snapshot(*loaded.model, capture), RunExporter::Format(format));
    QVERIFY(!redacted.contains(test::plantedKey));
    QVERIFY(!redacted.contains(test::plantedToken));
    QVERIFY(redacted.contains("GITHUB_TOKEN="));
    QVERIFY(redacted.contains(test::harmlessLine)); // not everything with "=" is a secret
    const QByteArray mask = QString::fromUtf16(SecretRedactor::mask).toUtf8();
    QVERIFY(redacted.contains(mask));

    exporter.setRedacting(false);
    const QByteArray plain
        = exporter.render(exporter.snapshot(*loaded.model, capture), RunExporter::Format(format));
    QVERIFY(plain.contains(test::plantedKey));
    QVERIFY(plain.contains(test::plantedLine));
    QVERIFY(!plain.contains(mask));
}

void TestRunExport::redactedJsonReopensRedacted()
{
    QTemporaryDir dir;
    const QString capture = test::writePlantedCapture(dir.path());
    QVERIFY(!capture.isEmpty());
    Loaded loaded;
    QVERIFY(load(capture, &loaded));
    RunExporter exporter;
    const QString exported = dir.filePath(QStringLiteral("run.json"));
    QVERIFY(RunExporter::writeFile(exported,
        exporter.render(exporter.snapshot(*loaded.model, capture), RunExporter::Format::Json),
        nullptr));
    Loaded reopened;
    QVERIFY(load(exported, &reopened));
    QVERIFY(reopened.run.exported->redacted);
    const QModelIndex bash
        = reopened.model->indexForToolUseId(QStringLiteral("toolu_planted_bash"));
    QVERIFY(bash.isValid());
    const QString mask = QString::fromUtf16(SecretRedactor::mask);
    const RunNodeDetails details = bash.data(RunModel::DetailRole).value<RunNodeDetails>();
    QVERIFY(!details.input.command.contains(QLatin1String(test::plantedKey)));
    QVERIFY(details.input.command.contains(mask));
    QVERIFY(details.output.contains(QStringLiteral("GITHUB_TOKEN=") + mask));
    QVERIFY(!bash.data(RunModel::RawJsonRole).toString().contains(QLatin1String(test::plantedKey)));
    QVERIFY(!bash.data(Qt::DisplayRole).toString().contains(QLatin1String(test::plantedKey)));
}

void TestRunExport::redactorPatterns_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("secret"); // must be gone; empty: nothing to mask
    QTest::addColumn<QString>("kept"); // must stay

    QTest::newRow("env line") << "PATH=/bin\nAWS_SECRET_ACCESS_KEY=abcDEF123/xyz\n"
                              << "abcDEF123/xyz"
                              << "AWS_SECRET_ACCESS_KEY=";
    QTest::newRow("export") << "export GITHUB_TOKEN=\"gho_abc\" && run"
                            << "gho_abc"
                            << "&& run";
    QTest::newRow("lowercase") << "db_password=hunter2x"
                               << "hunter2x"
                               << "db_password=";
    QTest::newRow("json member") << R"({"api_key": "s3cr3t-value", "name": "x"})"
                                 << "s3cr3t-value"
                                 << R"("name": "x")";
    QTest::newRow("escaped json") << R"({\"auth_token\":\"abc.def\"})"
                                  << "abc.def"
                                  << "auth_token";
    QTest::newRow("anthropic key") << "key sk-ant-api03-AbCdEf0123456789AbCd end"
                                   << "sk-ant-api03-AbCdEf0123456789AbCd"
                                   << " end";
    QTest::newRow("github token") << "ghp_0123456789abcdefghij0123"
                                  << "ghp_0123456789abcdefghij0123"
                                  << "";
    QTest::newRow("bearer") << "Authorization: Bearer abcdefghijklmnop123"
                            << "abcdefghijklmnop123"
                            << "Authorization: Bearer ";
    QTest::newRow("aws id") << "id AKIAABCDEFGHIJKLMNOP ok"
                            << "AKIAABCDEFGHIJKLMNOP"
                            << " ok";
    QTest::newRow("count") << "max_tokens=4096 MY_KEY=12"
                           << ""
                           << "max_tokens=4096 MY_KEY=12";
    QTest::newRow("plain") << "HOME=/root USER=alice"
                           << ""
                           << "HOME=/root USER=alice";
    QTest::newRow("key source") << R"("apiKeySource":"ANTHROPIC_API_KEY")"
                                << ""
                                << R"("apiKeySource":"ANTHROPIC_API_KEY")";
}

void TestRunExport::redactorPatterns()
{
    QFETCH(QString, text);
    QFETCH(QString, secret);
    QFETCH(QString, kept);
    const CredentialRedactor redactor;
    const QString out = redactor.redact(text);
    if (!secret.isEmpty()) {
        QVERIFY2(!out.contains(secret), qPrintable(out));
        QVERIFY(out.contains(QString::fromUtf16(SecretRedactor::mask)));
    } else {
        QCOMPARE(out, text);
    }
    QVERIFY2(out.contains(kept), qPrintable(out));
    QCOMPARE(QString::fromUtf8(redactor.redact(text.toUtf8())), out);

    // A known secret with no shape of its own.
    CredentialRedactor known;
    known.addSecret(QStringLiteral("plainword-known"));
    QVERIFY(!known.redact(text + QStringLiteral(" plainword-known"))
                 .contains(QLatin1String("plainword-known")));
}

void TestRunExport::editIsShownAsDiff()
{
    QTemporaryDir dir;
    const QString capture = test::writePlantedCapture(dir.path());
    QVERIFY(!capture.isEmpty());
    Loaded loaded;
    QVERIFY(load(capture, &loaded));
    const QString html = QString::fromUtf8(exportOf(loaded, RunExporter::Format::Html, true));
    QVERIFY(html.contains(QLatin1String("<span class=\"del\">- b = 2</span>")));
    QVERIFY(html.contains(QLatin1String("<span class=\"add\">+ b = 20</span>")));
    QVERIFY(html.contains(QLatin1String("<span class=\"add\">+ d = &lt;4&gt;</span>")));
    QVERIFY(html.contains(QLatin1String("<span class=\"same\">  a = 1</span>")));
    const QString markdown
        = QString::fromUtf8(exportOf(loaded, RunExporter::Format::Markdown, true));
    QVERIFY(markdown.contains(
        QLatin1String("  ```diff\n   a = 1\n  -b = 2\n  +b = 20\n   c = 3\n  +d = <4>\n  ```")));
}

void TestRunExport::damagedRecordingExportsWhatItHas()
{
    // A recording of stream-basic with a damaged entry in the middle and the last one cut.
    QFile source(dataPath(QStringLiteral("stream-basic.jsonl")));
    QVERIFY(source.open(QIODevice::ReadOnly));
    QList<QByteArray> lines = source.readAll().split('\n');
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("damaged.jsonl"));
    {
        RunRecorder recorder;
        QVERIFY(recorder.open(path));
        qint64 t = 1'700'000'000'000;
        for (const QByteArray &line : std::as_const(lines))
            recorder.record(line, t += 10);
        recorder.close();
    }
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QList<QByteArray> entries = file.readAll().split('\n');
    while (!entries.isEmpty() && entries.last().isEmpty())
        entries.removeLast();
    entries.insert(3, QByteArray("{\"t\":1700000000025,\"line\":\"unterminated"));
    entries.last().chop(entries.last().size() / 2); // cut, as by a crash
    file.resize(0);
    file.write(entries.join('\n') + '\n');
    file.close();

    Loaded loaded;
    QVERIFY(load(path, &loaded));
    QVERIFY(loaded.run.problems.size() >= 2);
    // The first tool call was in an intact entry.
    QVERIFY(!toolCallsOf(*loaded.model).isEmpty());
    const QString html = QString::fromUtf8(exportOf(loaded, RunExporter::Format::Html, true));
    QVERIFY(html.contains(QLatin1String("id=\"skipped\"")));
    for (const QString &problem : std::as_const(loaded.run.problems))
        QVERIFY2(html.contains(problem.toHtmlEscaped()), qPrintable(problem));
    const QString markdown
        = QString::fromUtf8(exportOf(loaded, RunExporter::Format::Markdown, true));
    QVERIFY(markdown.contains(QStringLiteral("Not exported (%1)").arg(loaded.run.problems.size())));
    const QByteArray json = exportOf(loaded, RunExporter::Format::Json, true);
    ExportedRun back;
    QString why;
    QVERIFY2(RunJsonFormat::fromJson(QJsonDocument::fromJson(json).object(), &back, &why),
        qPrintable(why));
    QCOMPARE(back.skipped, loaded.run.problems);
    QCOMPARE(toolCallsOf(*loaded.model).size(),
        qsizetype(test::toolUsesIn(dataPath(QStringLiteral("stream-basic.jsonl"))).size()));
}

void TestRunExport::failedWriteLeavesNothing()
{
    QTemporaryDir dir;
    const QString existing = dir.filePath(QStringLiteral("kept.html"));
    QVERIFY(RunExporter::writeFile(existing, "before", nullptr));
    // A target in a folder that does not exist, and one where nothing can be created.
    for (const QString &target : {dir.filePath(QStringLiteral("missing/run.html")),
             QStringLiteral("/proc/sandscope-export-test.html")}) {
        QString why;
        QVERIFY(!RunExporter::writeFile(target, "after", &why));
        QVERIFY(why.contains(target));
        QVERIFY(!QFile::exists(target));
    }
    QFile kept(existing);
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QCOMPARE(kept.readAll(), QByteArray("before"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList {QStringLiteral("kept.html")});
}

void TestRunExport::formatNames()
{
    QCOMPARE(RunExporter::formatNamed(QStringLiteral("HTML")), RunExporter::Format::Html);
    QCOMPARE(RunExporter::formatNamed(QStringLiteral("md")), RunExporter::Format::Markdown);
    QCOMPARE(RunExporter::formatNamed(QStringLiteral("markdown")), RunExporter::Format::Markdown);
    QCOMPARE(RunExporter::formatNamed(QStringLiteral("json")), RunExporter::Format::Json);
    QVERIFY(!RunExporter::formatNamed(QStringLiteral("pdf")));
    for (auto format :
        {RunExporter::Format::Html, RunExporter::Format::Markdown, RunExporter::Format::Json})
        QCOMPARE(RunExporter::formatNamed(RunExporter::suffix(format)), format);
}

QTEST_GUILESS_MAIN(TestRunExport)
#include "tst_runexport.moc"
