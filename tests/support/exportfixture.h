#pragma once
// What the export tests share: every run file under tests/data (captures, transcripts; not
// the sub-agent files a transcript pulls in, nor the model server's request logs), the tool
// calls a file names (read with QJsonDocument, not the app's parser), and a capture with
// planted secrets, and every format's export of a capture.

#include "export/runexporter.h"
#include "runs/loadedrun.h"
#include "runtree/runmodel.h"

#include <QByteArray>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <algorithm>

namespace sandscope::test {

inline QStringList exportableRunFiles()
{
    const QString root = QStringLiteral(SANDSCOPE_TEST_DATA_DIR);
    QStringList files;
    QDirIterator it(root, {QStringLiteral("*.jsonl")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (path.contains(QLatin1String("/subagents/"))
            || path.endsWith(QLatin1String("requests.jsonl"))
            || path.contains(QLatin1String("/previews/")))
            continue;
        files.append(QDir(root).relativeFilePath(path));
    }
    std::sort(files.begin(), files.end());
    return files;
}

// tool_use id -> tool name of every tool_use block in the file's assistant messages.
inline QMap<QString, QString> toolUsesIn(const QString &path)
{
    QMap<QString, QString> uses;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return uses;
    const QList<QByteArray> lines = file.readAll().split('\n');
    for (const QByteArray &line : lines) {
        const QJsonObject json = QJsonDocument::fromJson(line).object();
        if (json.value(QStringLiteral("type")).toString() != QLatin1String("assistant"))
            continue;
        const QJsonArray content = json.value(QStringLiteral("message"))
                                       .toObject()
                                       .value(QStringLiteral("content"))
                                       .toArray();
        for (const QJsonValue &block : content) {
            const QJsonObject object = block.toObject();
            if (object.value(QStringLiteral("type")).toString() == QLatin1String("tool_use"))
                uses.insert(object.value(QStringLiteral("id")).toString(),
                    object.value(QStringLiteral("name")).toString());
        }
    }
    return uses;
}

// Secrets a run may show: a key in a command, env output in a result.
constexpr auto plantedKey = "sk-ant-api03-PLANTEDkeyPLANTEDkey0123456789";
constexpr auto plantedToken = "PLANTEDtokenVALUE42";
constexpr auto plantedLine = "GITHUB_TOKEN=PLANTEDtokenVALUE42";
constexpr auto harmlessLine = "HOME=/home/alice";

// A stream-json capture of one turn: a Bash call whose command holds plantedKey and whose
// output is env output with plantedLine, an Edit call, and a result.
inline QByteArray plantedCapture()
{
    auto line = [](const QJsonObject &object) {
        QByteArray bytes = QJsonDocument(object).toJson(QJsonDocument::Compact);
        bytes.append('\n');
        return bytes;
    };
    const QString session = QStringLiteral("11111111-2222-3333-4444-555555555555");
    auto assistant = [&](const QString &id, const QJsonArray &content) {
        return line({{QStringLiteral("type"), QStringLiteral("assistant")},
            {QStringLiteral("session_id"), session},
            {QStringLiteral("message"),
                QJsonObject {{QStringLiteral("id"), id},
                    {QStringLiteral("role"), QStringLiteral("assistant")},
                    {QStringLiteral("model"), QStringLiteral("claude-test")},
                    {QStringLiteral("content"), content},
                    {QStringLiteral("usage"),
                        QJsonObject {{QStringLiteral("input_tokens"), 10},
                            {QStringLiteral("output_tokens"), 5}}}}}});
    };
    auto result = [&](const QString &id, const QString &text, bool error) {
        return line({{QStringLiteral("type"), QStringLiteral("user")},
            {QStringLiteral("session_id"), session},
            {QStringLiteral("message"),
                QJsonObject {{QStringLiteral("role"), QStringLiteral("user")},
                    {QStringLiteral("content"),
                        QJsonArray {QJsonObject {
                            {QStringLiteral("type"), QStringLiteral("tool_result")},
                            {QStringLiteral("tool_use_id"), id}, {QStringLiteral("content"), text},
                            {QStringLiteral("is_error"), error}}}}}}});
    };
    QByteArray out = line({{QStringLiteral("type"), QStringLiteral("system")},
        {QStringLiteral("subtype"), QStringLiteral("init")},
        {QStringLiteral("session_id"), session},
        {QStringLiteral("model"), QStringLiteral("claude-test")},
        {QStringLiteral("cwd"), QStringLiteral("/home/alice")}});
    out += assistant(QStringLiteral("msg_1"),
        {QJsonObject {{QStringLiteral("type"), QStringLiteral("tool_use")},
            {QStringLiteral("id"), QStringLiteral("toolu_planted_bash")},
            {QStringLiteral("name"), QStringLiteral("Bash")},
            {QStringLiteral("input"),
                QJsonObject {{QStringLiteral("command"),
                    QStringLiteral("ANTHROPIC_API_KEY=%1 env").arg(QLatin1String(plantedKey))}}}}});
    out += result(QStringLiteral("toolu_planted_bash"),
        QStringLiteral("%1\n%2\n").arg(QLatin1String(harmlessLine), QLatin1String(plantedLine)),
        false);
    out += assistant(QStringLiteral("msg_2"),
        {QJsonObject {{QStringLiteral("type"), QStringLiteral("tool_use")},
            {QStringLiteral("id"), QStringLiteral("toolu_planted_edit")},
            {QStringLiteral("name"), QStringLiteral("Edit")},
            {QStringLiteral("input"),
                QJsonObject {{QStringLiteral("file_path"), QStringLiteral("/home/alice/app.py")},
                    {QStringLiteral("old_string"), QStringLiteral("a = 1\nb = 2\nc = 3")},
                    {QStringLiteral("new_string"),
                        QStringLiteral("a = 1\nb = 20\nc = 3\nd = <4>")}}}}});
    out += result(QStringLiteral("toolu_planted_edit"), QStringLiteral("edited"), false);
    out += line({{QStringLiteral("type"), QStringLiteral("result")},
        {QStringLiteral("subtype"), QStringLiteral("success")}, {QStringLiteral("is_error"), false},
        {QStringLiteral("session_id"), session}, {QStringLiteral("duration_ms"), 1234},
        {QStringLiteral("num_turns"), 2}, {QStringLiteral("total_cost_usd"), 0.01},
        {QStringLiteral("result"), QStringLiteral("done")}});
    return out;
}

// plantedCapture() written to directory/planted.jsonl; its path, empty when it cannot be written.
inline QString writePlantedCapture(const QString &directory)
{
    const QString path = QDir(directory).filePath(QStringLiteral("planted.jsonl"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(plantedCapture()) < 0)
        return {};
    return path;
}

// The capture written to a file, opened like File › Open and exported redacted in every
// format, in the order of RunExporter::Format (HTML, Markdown, JSON), the source named by its
// file name; knownSecret is the connection's API key. Empty when the capture cannot be read.
inline QList<QByteArray> exportsOfCapture(
    const QByteArray &capture, const QString &knownSecret = {})
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("capture.jsonl"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(capture) != capture.size())
        return {};
    file.close();
    LoadedRun run;
    QString why;
    if (!LoadedRun::fromFile(path, &run, &why))
        return {};
    RunModel model;
    run.buildModel(&model);
    RunExporter exporter;
    exporter.addSecret(knownSecret);
    const ExportedRun snapshot = exporter.snapshot(model, RunExporter::sourceOfFile(path));
    QList<QByteArray> out;
    for (RunExporter::Format format :
        {RunExporter::Format::Html, RunExporter::Format::Markdown, RunExporter::Format::Json})
        out.append(exporter.render(snapshot, format));
    return out;
}

} // namespace sandscope::test
