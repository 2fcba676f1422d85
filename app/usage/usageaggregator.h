#pragma once
// Adds up the facts the usage script prints per transcript record (usagefacts) into a
// UsageReport, with the rules RunParser and RunModel apply to a transcript: a turn per typed
// prompt, tokens once per message.id (the largest value of each field), tool calls and
// errors once per tool_use id, sub-agents' files included; cost per session from its
// cumulative cost-state records. Ids are per user, so a fork's copied history counts once.

#include "streamjson/runevents.h"
#include "usage/usagereport.h"

#include <QDateTime>
#include <QHash>
#include <QMap>
#include <QSet>

namespace sandscope {

class UsageAggregator {
public:
    // The records that follow come from `path` (a main transcript, or a sub-agent's file of
    // the session named by the folder it is in) in `user`'s home.
    void beginFile(const QString &user, const QString &path);
    // The files that follow are on this fleet member (empty: a single server). Its users'
    // rows are its own: a user with homes on two members (a move not finished) is shown on
    // both, never added up into one row.
    void setMember(const QString &member) { m_member = member; }
    void prompt(const QDateTime &time, const QString &uuid);
    void assistant(
        const QDateTime &time, const QString &messageId, const TokenUsage &usage, bool apiError);
    void toolUse(const QDateTime &time, const QString &toolUseId, const QString &name);
    void toolResult(const QDateTime &time, const QString &toolUseId, bool isError);
    // `time`: the last record's timestamp before it (a cost-state record has none).
    void costState(const QDateTime &time, double totalCostUsd);
    // A line that is not a complete JSON record (cut short, corrupt): skipped and reported.
    void skippedLine(qint64 lineNumber);
    void problem(const QString &text);

    // Days before `since` (when valid) are left out.
    UsageReport report(const QDate &since = QDate()) const;

private:
    struct Key {
        QString user;
        QString member;
        QDate day;
        bool operator<(const Key &other) const
        {
            if (user != other.user)
                return user < other.user;
            return member != other.member ? member < other.member : day < other.day;
        }
    };
    struct ToolCall {
        QString name;
        QDateTime used;
        QDateTime answered;
        bool isError = false;
    };
    struct Message {
        Key key;
        TokenUsage usage;
    };
    struct Session {
        double lastCost = 0;
    };

    UsageDay &dayOf(const QDateTime &time);

    QString m_user;
    QString m_member;
    QString m_scope; // member + user: what ids are unique within
    QString m_path;
    QString m_sessionKey; // scope + session id
    QMap<Key, UsageDay> m_days;
    QMap<Key, QSet<QString>> m_sessionsPerDay;
    QHash<QString, Session> m_sessions;
    QSet<QString> m_prompts; // scope + record uuid
    QHash<QString, Message> m_messages; // scope + message.id
    QHash<QString, ToolCall> m_calls; // scope + tool_use id
    QHash<QString, Key> m_callDays;
    qint64 m_records = 0;
    QStringList m_skipped;
};

} // namespace sandscope
