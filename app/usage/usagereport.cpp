#include "usagereport.h"

#include "server/accountnames.h"

#include <QHash>
#include <QJsonArray>
#include <QSet>

#include <algorithm>

namespace sandscope {

UsageDay &UsageDay::operator+=(const UsageDay &other)
{
    sessions += other.sessions;
    turns += other.turns;
    toolCalls += other.toolCalls;
    errors += other.errors;
    inputTokens += other.inputTokens;
    outputTokens += other.outputTokens;
    cacheReadTokens += other.cacheReadTokens;
    cacheCreationTokens += other.cacheCreationTokens;
    costUsd += other.costUsd;
    return *this;
}

UsageDay UsageReport::total() const
{
    UsageDay sum;
    for (const UsageDay &day : days)
        sum += day;
    sum.sessions = sessions;
    return sum;
}

QStringList UsageReport::users() const
{
    QStringList names;
    for (const UsageDay &day : days)
        if (names.isEmpty() || names.last() != day.user)
            names.append(day.user);
    return names;
}

static QJsonObject dayJson(const UsageDay &day)
{
    QJsonObject json {
        {QStringLiteral("sessions"), day.sessions},
        {QStringLiteral("turns"), day.turns},
        {QStringLiteral("tool_calls"), day.toolCalls},
        {QStringLiteral("errors"), day.errors},
        {QStringLiteral("input_tokens"), day.inputTokens},
        {QStringLiteral("output_tokens"), day.outputTokens},
        {QStringLiteral("cache_read_tokens"), day.cacheReadTokens},
        {QStringLiteral("cache_creation_tokens"), day.cacheCreationTokens},
        {QStringLiteral("cost_usd"), day.costUsd},
    };
    if (!day.user.isEmpty())
        json.insert(QStringLiteral("user"), day.user);
    if (!day.member.isEmpty())
        json.insert(QStringLiteral("member"), day.member);
    if (day.day.isValid())
        json.insert(QStringLiteral("day"), day.day.toString(Qt::ISODate));
    return json;
}

QJsonObject UsageReport::toJson() const
{
    QJsonArray dayArray;
    for (const UsageDay &day : days)
        dayArray.append(dayJson(day));
    QJsonArray toolArray;
    for (const ToolUsage &tool : tools) {
        toolArray.append(QJsonObject {
            {QStringLiteral("name"), tool.name},
            {QStringLiteral("calls"), tool.calls},
            {QStringLiteral("errors"), tool.errors},
            {QStringLiteral("timed_calls"), tool.timedCalls},
            {QStringLiteral("total_ms"), tool.totalMs},
        });
    }
    return QJsonObject {
        {QStringLiteral("type"), QStringLiteral("sandscope_usage")},
        {QStringLiteral("days"), dayArray},
        {QStringLiteral("tools"), toolArray},
        {QStringLiteral("total"), dayJson(total())},
        {QStringLiteral("records"), records},
        {QStringLiteral("skipped"), QJsonArray::fromStringList(skipped)},
    };
}

QStringList UsageReport::csvHeader()
{
    return {QStringLiteral("user"), QStringLiteral("day"), QStringLiteral("sessions"),
        QStringLiteral("turns"), QStringLiteral("tool_calls"), QStringLiteral("errors"),
        QStringLiteral("input_tokens"), QStringLiteral("output_tokens"),
        QStringLiteral("cache_read_tokens"), QStringLiteral("cache_creation_tokens"),
        QStringLiteral("cost_usd")};
}

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
static QString csvField(const QString &text)
{
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"'))
        && !text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

UsageReport UsageReport::merged(const QVector<UsageReport> &reports)
{
    if (reports.size() == 1)
        return reports.constFirst();
    UsageReport all;
    QHash<QString, ToolUsage> tools;
    for (const UsageReport &report : reports) {
        all.days += report.days;
        all.sessions += report.sessions;
        all.records += report.records;
        all.skipped += report.skipped;
        for (const ToolUsage &tool : report.tools) {
            ToolUsage &sum = tools[tool.name];
            sum.name = tool.name;
            sum.calls += tool.calls;
            sum.errors += tool.errors;
            sum.timedCalls += tool.timedCalls;
            sum.totalMs += tool.totalMs;
        }
    }
    std::stable_sort(all.days.begin(), all.days.end(), [](const UsageDay &a, const UsageDay &b) {
        if (a.user != b.user)
            return a.user < b.user;
        return a.member != b.member ? a.member < b.member : a.day < b.day;
    });
    all.tools = QVector<ToolUsage>(tools.cbegin(), tools.cend());
    std::sort(all.tools.begin(), all.tools.end(), [](const ToolUsage &a, const ToolUsage &b) {
        return a.calls != b.calls ? a.calls > b.calls : a.name < b.name;
    });
    return all;
}

bool UsageReport::hasMembers() const
{
    return std::any_of(
        days.cbegin(), days.cend(), [](const UsageDay &day) { return !day.member.isEmpty(); });
}

QByteArray UsageReport::toCsv() const
{
    const bool members = hasMembers();
    QString text = (members ? QStringLiteral("member,") : QString())
        + csvHeader().join(QLatin1Char(',')) + QStringLiteral("\r\n");
    for (const UsageDay &day : days) {
        if (members)
            text += csvField(day.member) + QLatin1Char(',');
        const QStringList fields {csvField(day.user), day.day.toString(Qt::ISODate),
            QString::number(day.sessions), QString::number(day.turns),
            QString::number(day.toolCalls), QString::number(day.errors),
            QString::number(day.inputTokens), QString::number(day.outputTokens),
            QString::number(day.cacheReadTokens), QString::number(day.cacheCreationTokens),
            QString::number(day.costUsd, 'f', 6)};
        text += fields.join(QLatin1Char(',')) + QStringLiteral("\r\n");
    }
    return text.toUtf8();
}

QStringList UsageReport::toolsCsvHeader()
{
    return {QStringLiteral("tool"), QStringLiteral("calls"), QStringLiteral("errors"),
        QStringLiteral("timed_calls"), QStringLiteral("total_ms"), QStringLiteral("mean_ms")};
}

QByteArray UsageReport::toolsCsv() const
{
    QString text = toolsCsvHeader().join(QLatin1Char(',')) + QStringLiteral("\r\n");
    for (const ToolUsage &tool : tools) {
        const QStringList fields {csvField(tool.name), QString::number(tool.calls),
            QString::number(tool.errors), QString::number(tool.timedCalls),
            QString::number(tool.totalMs),
            tool.timedCalls > 0 ? QString::number(tool.totalMs / tool.timedCalls) : QString()};
        text += fields.join(QLatin1Char(',')) + QStringLiteral("\r\n");
    }
    return text.toUtf8();
}

void UsageReport::nameUsers(const QStringList &userIds, const QString &prefix)
{
    QHash<QString, QString> names; // account -> what its rows say
    for (UsageDay &day : days) {
        auto found = names.constFind(day.user);
        if (found == names.constEnd()) {
            QString name = day.user;
            for (const QString &id : userIds) {
                AccountRule rule;
                if (!id.isEmpty() && explainAccountName(id, day.user, prefix, &rule)) {
                    name = id;
                    break;
                }
            }
            found = names.insert(day.user, name);
        }
        day.user = found.value();
    }
}

} // namespace sandscope
