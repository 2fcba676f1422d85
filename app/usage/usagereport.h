#pragma once
// Usage over time (docs/stream-json.md, "Usage over time"): per user and per UTC day the
// sessions, turns, tool calls, errors, tokens and cost taken from the transcripts on the
// server, and the tools used most. Built by UsageAggregator; shown by the Usage page and
// printed by `sandscope usage`.

#include <QDate>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

namespace sandscope {

// One user's figures on one day (or, from UsageReport::total, over every row).
struct UsageDay {
    QString user;
    QString member; // the fleet member whose homes the figures come from; empty: one server
    QDate day; // UTC
    qint64 sessions = 0; // sessions with a record that day
    qint64 turns = 0; // typed prompts
    qint64 toolCalls = 0; // tool_use blocks, sub-agents included
    qint64 errors = 0; // tool results with is_error, and API error messages
    qint64 inputTokens = 0; // once per message.id, sub-agents included
    qint64 outputTokens = 0;
    qint64 cacheReadTokens = 0;
    qint64 cacheCreationTokens = 0;
    double costUsd = 0; // increments of the sessions' cumulative cost-state

    UsageDay &operator+=(const UsageDay &other);
};

struct ToolUsage {
    QString name;
    qint64 calls = 0;
    qint64 errors = 0;
    qint64 timedCalls = 0; // calls whose result was found: they make up totalMs
    qint64 totalMs = 0; // from each tool_use record's timestamp to its tool_result's
};

struct UsageReport {
    QVector<UsageDay> days; // by user, then member, then day
    QVector<ToolUsage> tools; // most calls first
    qint64 sessions = 0; // distinct sessions with a record in the period
    qint64 records = 0; // facts read
    QStringList skipped; // lines that were not complete records, and facts that made no sense

    UsageDay total() const; // sessions: the distinct ones, not the days' sum
    bool hasMembers() const; // the rows come from a fleet's members
    // Several members' reports as one: their rows side by side (by user, member, day), the
    // tools' figures added up by name, the sessions and records summed (a member's sessions are
    // its own), what each skipped kept.
    static UsageReport merged(const QVector<UsageReport> &reports);
    QStringList users() const;
    // Every home's rows name their account (the all-users collection): a row whose account
    // one of `userIds` gets (explainAccountName, with the server's account `prefix`) is named
    // by that user id instead, the others keep their account, so each user is named the same
    // way in every row and surface (issue 25: the prefix alone stripped gave neither).
    void nameUsers(const QStringList &userIds, const QString &prefix);

    // {"type":"sandscope_usage","days":[…],"tools":[…],"total":{…},"skipped":[…]}
    QJsonObject toJson() const;
    // user,day,sessions,turns,tool_calls,errors,input_tokens,output_tokens,
    // cache_read_tokens,cache_creation_tokens,cost_usd — with that header row; a fleet's
    // rows start with a member column
    QByteArray toCsv() const;
    static QStringList csvHeader();
    // The tools, most calls first: tool,calls,errors,timed_calls,total_ms,mean_ms (mean over
    // the timed calls, empty without one) — with that header row
    QByteArray toolsCsv() const;
    static QStringList toolsCsvHeader();
};

} // namespace sandscope
