#pragma once
// Usage figures computed independently of the usage script and UsageAggregator, straight from
// transcript files with QJsonDocument (docs/stream-json.md, "Usage over time"): the unit,
// UI and integration tests compare Sandscope's figures with these.

#include <QDate>
#include <QDateTime>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QSet>
#include <QString>

#include <algorithm>

namespace sandscope::test {

struct ExpectedDay {
    QSet<QString> sessions;
    qint64 turns = 0;
    qint64 toolCalls = 0;
    qint64 errors = 0;
    qint64 input = 0;
    qint64 output = 0;
    qint64 cacheRead = 0;
    qint64 cacheCreation = 0;
    double cost = 0;
};

struct ExpectedTool {
    qint64 calls = 0;
    qint64 errors = 0;
    qint64 answered = 0; // calls with a tool_result: the timed ones
};

// Everything one user's transcripts say, per UTC day.
class ExpectedUsage {
public:
    QMap<QDate, ExpectedDay> days;
    QHash<QString, ExpectedTool> tools;
    qint64 unparsable = 0;

    // Every *.jsonl under `projects` (a ~/.claude/projects), main files before sub-agents'.
    void addProjects(const QString &projects)
    {
        QStringList files;
        QDirIterator it(
            projects, {QStringLiteral("*.jsonl")}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext())
            files.append(it.next());
        std::sort(files.begin(), files.end());
        for (const QString &file : std::as_const(files))
            addFile(file);
    }

    ExpectedDay total() const
    {
        ExpectedDay sum;
        for (const ExpectedDay &day : days) {
            sum.sessions += day.sessions;
            sum.turns += day.turns;
            sum.toolCalls += day.toolCalls;
            sum.errors += day.errors;
            sum.input += day.input;
            sum.output += day.output;
            sum.cacheRead += day.cacheRead;
            sum.cacheCreation += day.cacheCreation;
            sum.cost += day.cost;
        }
        return sum;
    }

private:
    struct Message {
        QDate day;
        QHash<QString, qint64> usage;
    };
    QSet<QString> m_prompts;
    QSet<QString> m_calls;
    QSet<QString> m_failed;
    QSet<QString> m_answered;
    QHash<QString, QString> m_toolNames;
    QHash<QString, Message> m_messages;
    bool m_tokensAdded = false;

public:
    // Call once after the files: the messages' tokens go to the day each was first seen.
    void finish()
    {
        if (m_tokensAdded)
            return;
        m_tokensAdded = true;
        for (const QString &id : std::as_const(m_answered))
            if (m_calls.contains(id))
                ++tools[m_toolNames.value(id)].answered;
        for (const Message &message : std::as_const(m_messages)) {
            ExpectedDay &day = days[message.day];
            day.input += message.usage.value(QStringLiteral("input_tokens"));
            day.output += message.usage.value(QStringLiteral("output_tokens"));
            day.cacheRead += message.usage.value(QStringLiteral("cache_read_input_tokens"));
            day.cacheCreation += message.usage.value(QStringLiteral("cache_creation_input_tokens"));
        }
    }

    void addFile(const QString &path)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return;
        const QFileInfo info(path);
        const bool subagent = info.path().endsWith(QLatin1String("/subagents"));
        const QString session = subagent ? QFileInfo(QFileInfo(info.path()).path()).fileName()
                                         : info.completeBaseName();
        QDateTime latest;
        double lastCost = 0;
        for (const QByteArray &line : file.readAll().split('\n')) {
            if (line.trimmed().isEmpty())
                continue;
            QJsonParseError error;
            const QJsonObject record = QJsonDocument::fromJson(line, &error).object();
            if (error.error != QJsonParseError::NoError) {
                ++unparsable;
                continue;
            }
            const QString type = record.value(QLatin1String("type")).toString();
            const QDateTime time = QDateTime::fromString(
                record.value(QLatin1String("timestamp")).toString(), Qt::ISODateWithMs)
                                       .toUTC();
            if (time.isValid())
                latest = time; // the last record's: the day of a cost-state
            if (type == QLatin1String("cost-state")) {
                const double total = record.value(QLatin1String("totalCostUSD")).toDouble();
                ExpectedDay &day = days[latest.date()];
                day.cost += total >= lastCost ? total - lastCost : total;
                day.sessions.insert(session);
                lastCost = total;
                continue;
            }
            const QJsonObject message = record.value(QLatin1String("message")).toObject();
            const QJsonValue content = message.value(QLatin1String("content"));
            if (type == QLatin1String("user")) {
                const QString text = content.toString();
                const bool prompt = content.isString()
                    && !record.value(QLatin1String("isMeta")).toBool()
                    && !record.value(QLatin1String("isCompactSummary")).toBool()
                    && !record.value(QLatin1String("isSidechain")).toBool()
                    && !text.startsWith(QLatin1String("<local-command-"))
                    && !text.startsWith(QLatin1String("[Request interrupted"));
                if (prompt) {
                    days[time.date()].sessions.insert(session);
                    const QString uuid = record.value(QLatin1String("uuid")).toString();
                    if (!m_prompts.contains(uuid)) {
                        m_prompts.insert(uuid);
                        ++days[time.date()].turns;
                    }
                }
                for (const QJsonValue &value : content.toArray()) {
                    const QJsonObject block = value.toObject();
                    if (block.value(QLatin1String("type")).toString()
                        != QLatin1String("tool_result"))
                        continue;
                    days[time.date()].sessions.insert(session);
                    const QString id = block.value(QLatin1String("tool_use_id")).toString();
                    m_answered.insert(id);
                    if (block.value(QLatin1String("is_error")).toBool() && !m_failed.contains(id)) {
                        m_failed.insert(id);
                        ++days[time.date()].errors;
                        ++tools[m_toolNames.value(id)].errors;
                    }
                }
            }
            if (type != QLatin1String("assistant"))
                continue;
            ExpectedDay &day = days[time.date()];
            day.sessions.insert(session);
            if (record.value(QLatin1String("isApiErrorMessage")).toBool()
                || message.value(QLatin1String("model")).toString()
                    == QLatin1String("<synthetic>")) {
                ++day.errors;
                continue;
            }
            const QString id = message.value(QLatin1String("id")).toString();
            Message &counted = m_messages[id];
            if (!counted.day.isValid())
                counted.day = time.date();
            const QJsonObject usage = message.value(QLatin1String("usage")).toObject();
            for (const char *field : {"input_tokens", "output_tokens", "cache_read_input_tokens",
                     "cache_creation_input_tokens"}) {
                const qint64 value = qint64(usage.value(QLatin1String(field)).toDouble());
                qint64 &seen = counted.usage[QLatin1String(field)];
                seen = std::max(seen, value);
            }
            for (const QJsonValue &value : content.toArray()) {
                const QJsonObject block = value.toObject();
                const QString callId = block.value(QLatin1String("id")).toString();
                if (block.value(QLatin1String("type")).toString() != QLatin1String("tool_use")
                    || m_calls.contains(callId))
                    continue;
                m_calls.insert(callId);
                ++day.toolCalls;
                const QString name = block.value(QLatin1String("name")).toString();
                m_toolNames.insert(callId, name);
                ++tools[name].calls;
            }
        }
    }
};

} // namespace sandscope::test
