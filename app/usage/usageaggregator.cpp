#include "usageaggregator.h"

#include "streamjson/runsummary.h"

#include <QFileInfo>

#include <algorithm>

namespace sandscope {

namespace {

// The session a file belongs to: <session>.jsonl, or <session>/subagents/agent-<id>.jsonl.
QString sessionOf(const QString &path)
{
    const QFileInfo info(path);
    const QString folder = QFileInfo(info.path()).fileName();
    if (folder == QLatin1String("subagents"))
        return QFileInfo(QFileInfo(info.path()).path()).fileName();
    return info.completeBaseName();
}

} // namespace

void UsageAggregator::beginFile(const QString &user, const QString &path)
{
    m_user = user;
    m_path = path;
    m_scope = m_member.isEmpty() ? user : m_member + QLatin1Char('\x1f') + user;
    m_sessionKey = m_scope + QLatin1Char('\n') + sessionOf(path);
}

UsageDay &UsageAggregator::dayOf(const QDateTime &time)
{
    const Key key {m_user, m_member, time.toUTC().date()};
    m_sessionsPerDay[key].insert(m_sessionKey);
    UsageDay &day = m_days[key];
    day.user = key.user;
    day.member = key.member;
    day.day = key.day;
    return day;
}

void UsageAggregator::prompt(const QDateTime &time, const QString &uuid)
{
    ++m_records;
    if (!time.isValid())
        return problem(QStringLiteral("%1: a prompt without a timestamp").arg(m_path));
    UsageDay &day = dayOf(time);
    // A fork copies the prompts of its origin: the record uuid counts once per user.
    if (!uuid.isEmpty()) {
        const QString key = m_scope + QLatin1Char('\n') + uuid;
        if (m_prompts.contains(key))
            return;
        m_prompts.insert(key);
    }
    ++day.turns;
}

void UsageAggregator::assistant(
    const QDateTime &time, const QString &messageId, const TokenUsage &usage, bool apiError)
{
    ++m_records;
    if (!time.isValid())
        return problem(QStringLiteral("%1: an answer without a timestamp").arg(m_path));
    UsageDay &day = dayOf(time);
    if (apiError) { // its zero usage is not counted, as RunParser's ApiError
        ++day.errors;
        return;
    }
    if (messageId.isEmpty())
        return;
    // Every record of one response repeats its usage: once per message.id, on the day it
    // was first seen, with the largest value of each field.
    const QString key = m_scope + QLatin1Char('\n') + messageId;
    auto it = m_messages.find(key);
    if (it == m_messages.end())
        it = m_messages.insert(key, Message {Key {m_user, m_member, day.day}, TokenUsage()});
    it->usage = mergedUsage(it->usage, usage);
}

void UsageAggregator::toolUse(const QDateTime &time, const QString &toolUseId, const QString &name)
{
    ++m_records;
    if (!time.isValid() || toolUseId.isEmpty())
        return problem(QStringLiteral("%1: a tool call without a timestamp or id").arg(m_path));
    const QString key = m_scope + QLatin1Char('\n') + toolUseId;
    UsageDay &day = dayOf(time);
    if (m_callDays.contains(key))
        return;
    m_callDays.insert(key, Key {m_user, m_member, day.day});
    ++day.toolCalls;
    ToolCall &call = m_calls[key];
    call.name = name;
    call.used = time;
}

void UsageAggregator::toolResult(const QDateTime &time, const QString &toolUseId, bool isError)
{
    ++m_records;
    if (toolUseId.isEmpty() || !time.isValid())
        return problem(QStringLiteral("%1: a tool result without a timestamp or id").arg(m_path));
    dayOf(time); // the session was active that day
    ToolCall &call = m_calls[m_scope + QLatin1Char('\n') + toolUseId];
    if (call.answered.isValid())
        return;
    call.answered = time;
    call.isError = isError;
    if (isError)
        ++dayOf(time).errors;
}

void UsageAggregator::costState(const QDateTime &time, double totalCostUsd)
{
    ++m_records;
    if (!time.isValid())
        return problem(QStringLiteral("%1: a cost-state record before any timestamp").arg(m_path));
    // Cumulative while the CLI process lives; a resumed process may start again from zero.
    Session &session = m_sessions[m_sessionKey];
    const double delta
        = totalCostUsd >= session.lastCost ? totalCostUsd - session.lastCost : totalCostUsd;
    session.lastCost = totalCostUsd;
    dayOf(time).costUsd += delta;
}

void UsageAggregator::skippedLine(qint64 lineNumber)
{
    m_skipped.append(
        QStringLiteral("%1: line %2 is not a complete JSON record").arg(m_path).arg(lineNumber));
}

void UsageAggregator::problem(const QString &text)
{
    m_skipped.append(text);
}

UsageReport UsageAggregator::report(const QDate &since) const
{
    QMap<Key, UsageDay> days = m_days;
    for (const Message &message : m_messages) {
        UsageDay &day = days[message.key];
        day.inputTokens += message.usage.inputTokens;
        day.outputTokens += message.usage.outputTokens;
        day.cacheReadTokens += message.usage.cacheReadInputTokens;
        day.cacheCreationTokens += message.usage.cacheCreationInputTokens;
    }
    UsageReport report;
    report.records = m_records;
    report.skipped = m_skipped;
    QSet<QString> sessions;
    for (auto it = days.begin(); it != days.end(); ++it) {
        if (since.isValid() && it.key().day < since)
            continue;
        const QSet<QString> &active = m_sessionsPerDay.value(it.key());
        it->sessions = active.size();
        sessions += active;
        report.days.append(*it);
    }
    report.sessions = sessions.size();

    QHash<QString, ToolUsage> tools;
    for (auto it = m_calls.cbegin(); it != m_calls.cend(); ++it) {
        const ToolCall &call = it.value();
        if (!call.used.isValid() || (since.isValid() && call.used.toUTC().date() < since))
            continue;
        ToolUsage &tool = tools[call.name];
        tool.name = call.name;
        ++tool.calls;
        tool.errors += call.isError ? 1 : 0;
        if (call.answered.isValid() && call.answered >= call.used) {
            ++tool.timedCalls;
            tool.totalMs += call.used.msecsTo(call.answered);
        }
    }
    report.tools = QVector<ToolUsage>(tools.cbegin(), tools.cend());
    std::sort(report.tools.begin(), report.tools.end(), [](const ToolUsage &a, const ToolUsage &b) {
        return a.calls != b.calls ? a.calls > b.calls : a.name < b.name;
    });
    return report;
}

} // namespace sandscope
