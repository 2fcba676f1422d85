#pragma once
// Stream-json lines for tests that build a capture around the text they need (hostile names,
// planted secrets, odd numbers): each function gives one line, newline included; and the
// lines of the real captures in tests/data.

#include <QByteArray>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QRandomGenerator>
#include <QString>

namespace sandscope::test::capture {

// The lines of a capture in tests/data, without their newlines (none after the last line).
inline QList<QByteArray> captureLines(const QString &name)
{
    QFile file(QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + name);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<QByteArray> lines = file.readAll().split('\n');
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

// Every non-blank line of every .jsonl file under tests/data, its subfolders too.
inline QList<QByteArray> everyCaptureLine()
{
    QList<QByteArray> lines;
    QDirIterator files(QStringLiteral(SANDSCOPE_TEST_DATA_DIR), {QStringLiteral("*.jsonl")},
        QDir::Files, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        QFile file(files.next());
        if (!file.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray &line : file.readAll().split('\n')) {
            if (!line.trimmed().isEmpty())
                lines.append(line);
        }
    }
    return lines;
}

// `line` after one to three random edits: a byte changed or inserted (from `bytes`, or any
// byte one time in four when `anyByte`), one to three bytes removed, or the line cut short.
inline QByteArray mutatedLine(
    const QByteArray &line, QRandomGenerator &random, const QByteArray &bytes, bool anyByte)
{
    QByteArray mutated = line;
    for (int edits = 1 + int(random.bounded(3)); edits > 0 && !mutated.isEmpty(); --edits) {
        const int at = int(random.bounded(int(mutated.size())));
        const char byte = anyByte && random.bounded(4) == 0
            ? char(random.bounded(256))
            : bytes.at(int(random.bounded(int(bytes.size()))));
        switch (random.bounded(4)) {
        case 0:
            mutated[at] = byte;
            break;
        case 1:
            mutated.insert(at, byte);
            break;
        case 2:
            mutated.remove(at, 1 + int(random.bounded(3)));
            break;
        default:
            mutated.truncate(at);
            break;
        }
    }
    return mutated;
}

inline QByteArray line(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

inline QByteArray systemInit(
    const QString &session, const QString &model = QStringLiteral("claude-test"))
{
    return line({{QStringLiteral("type"), QStringLiteral("system")},
        {QStringLiteral("subtype"), QStringLiteral("init")},
        {QStringLiteral("session_id"), session}, {QStringLiteral("model"), model}});
}

inline QJsonObject textBlock(const QString &text)
{
    return {{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), text}};
}

inline QJsonObject toolUseBlock(const QString &id, const QString &name, const QJsonObject &input)
{
    return {{QStringLiteral("type"), QStringLiteral("tool_use")}, {QStringLiteral("id"), id},
        {QStringLiteral("name"), name}, {QStringLiteral("input"), input}};
}

inline QByteArray assistant(const QString &session, const QJsonArray &content)
{
    return line({{QStringLiteral("type"), QStringLiteral("assistant")},
        {QStringLiteral("session_id"), session},
        {QStringLiteral("message"),
            QJsonObject {{QStringLiteral("id"), QStringLiteral("msg_1")},
                {QStringLiteral("role"), QStringLiteral("assistant")},
                {QStringLiteral("model"), QStringLiteral("claude-test")},
                {QStringLiteral("content"), content}}}});
}

inline QByteArray toolResult(
    const QString &session, const QString &toolUseId, const QString &output, bool isError = false)
{
    return line(
        {{QStringLiteral("type"), QStringLiteral("user")}, {QStringLiteral("session_id"), session},
            {QStringLiteral("message"),
                QJsonObject {{QStringLiteral("role"), QStringLiteral("user")},
                    {QStringLiteral("content"),
                        QJsonArray {
                            QJsonObject {{QStringLiteral("type"), QStringLiteral("tool_result")},
                                {QStringLiteral("tool_use_id"), toolUseId},
                                {QStringLiteral("content"), output},
                                {QStringLiteral("is_error"), isError}}}}}}});
}

inline QByteArray result(const QString &session, const QString &subtype = QStringLiteral("success"),
    bool isError = false, const QString &text = QStringLiteral("done"))
{
    return line({{QStringLiteral("type"), QStringLiteral("result")},
        {QStringLiteral("subtype"), subtype}, {QStringLiteral("is_error"), isError},
        {QStringLiteral("session_id"), session}, {QStringLiteral("result"), text}});
}

} // namespace sandscope::test::capture
