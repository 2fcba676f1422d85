#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/verbsupport.h"
#include "runs/claudecommand.h"
#include "runs/sessionstore.h"
#include "runverbs.h"
#include "server/openterminalclient.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>

#include <cstdio>

namespace sandscope::cli {

const QString sessionsVerb = QStringLiteral("sessions");

namespace {

enum ExitCode { Ok = 0, Error = 1, UsageError = 2, ServerError = 3 };

// ---------------------------------------------------------------------------------------
// sessions

struct ChatSession {
    QString sessionId;
    QDateTime lastActivity;
    bool local = false;
    bool onServer = false;
    QString path;
    qint64 size = -1;
    QString forkedFrom;
    QString runId;
};

} // namespace

int runSessions(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Lists the user's chats with their Claude Code sessions and last activity: the\n"
        "sessions sandscope recorded on this machine and the transcripts found on the server\n"
        "(~/.claude/projects/<escaped chat directory>/<session>.jsonl). The first session of a\n"
        "chat is the one `sandscope run --resume` continues."));
    const QCommandLineOption chatOption(
        QStringLiteral("chat"), QStringLiteral("Only this chat."), QStringLiteral("ID"));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print one JSON object."));
    parser.addOptions({chatOption, jsonOption});
    ConnectionOptions options;
    const int parsed = parseUserVerbArguments(parser, sessionsVerb, arguments,
        QStringLiteral("sessions --server URL --user ID [--chat ID] [--json]"), options);
    if (parsed >= 0)
        return parsed;
    QString why;
    const QString chatId = parser.value(chatOption);
    if (parser.isSet(chatOption) && !claudecommand::isValidChatId(chatId, &why))
        return usageError(
            QStringLiteral("--chat \"%1\" refused: %2").arg(chatId, why), sessionsVerb);

    OpenTerminalClient client(options.connection);
    sessiondiscovery::Listing listing;
    if (!listAsUser(&sessiondiscovery::discover, client, options, &listing, &why))
        return listingFailed(why, options);

    // chat → sessions, merged from both sources by session id
    QMap<QString, QMap<QString, ChatSession>> chats;
    for (const SessionRecord &record : SessionStore().sessions(sessionScopeOf(options), chatId)) {
        ChatSession &session = chats[record.chatId][record.sessionId];
        session.sessionId = record.sessionId;
        session.lastActivity = record.lastActivity;
        session.local = true;
        session.forkedFrom = record.forkedFrom;
        session.runId = record.runId;
    }
    for (const DiscoveredSession &found : sessiondiscovery::chatSessions(listing, chatId)) {
        ChatSession &session = chats[found.chatId][found.sessionId];
        session.sessionId = found.sessionId;
        session.onServer = true;
        session.path = found.path;
        session.size = found.size;
        if (!session.lastActivity.isValid() || found.lastActivity > session.lastActivity)
            session.lastActivity = found.lastActivity;
    }

    const auto ordered = [](const QMap<QString, ChatSession> &sessions) {
        QVector<ChatSession> list(sessions.cbegin(), sessions.cend());
        std::stable_sort(list.begin(), list.end(), [](const ChatSession &a, const ChatSession &b) {
            return a.lastActivity > b.lastActivity;
        });
        return list;
    };

    if (parser.isSet(jsonOption)) {
        QJsonArray chatArray;
        for (auto chat = chats.cbegin(); chat != chats.cend(); ++chat) {
            QJsonArray sessionArray;
            const QVector<ChatSession> sessions = ordered(chat.value());
            for (const ChatSession &session : sessions) {
                sessionArray.append(QJsonObject {
                    {QStringLiteral("session_id"), session.sessionId},
                    {QStringLiteral("last_activity"), stringOrNull(isoTime(session.lastActivity))},
                    {QStringLiteral("local"), session.local},
                    {QStringLiteral("on_server"), session.onServer},
                    {QStringLiteral("path"), stringOrNull(session.path)},
                    {QStringLiteral("size"),
                        session.size >= 0 ? QJsonValue(double(session.size)) : QJsonValue()},
                    {QStringLiteral("forked_from"), stringOrNull(session.forkedFrom)},
                    {QStringLiteral("run_id"), stringOrNull(session.runId)},
                });
            }
            chatArray.append(QJsonObject {{QStringLiteral("chat"), chat.key()},
                {QStringLiteral("last_activity"),
                    stringOrNull(isoTime(sessions.constFirst().lastActivity))},
                {QStringLiteral("sessions"), sessionArray}});
        }
        const QJsonObject root {{QStringLiteral("user"), options.userId},
            {QStringLiteral("home"), listing.home}, {QStringLiteral("chats"), chatArray}};
        writeBytes(stdout, QJsonDocument(root).toJson(QJsonDocument::Indented));
        return Ok;
    }

    QString text = QStringLiteral("CHAT").leftJustified(24) + QLatin1Char(' ')
        + QStringLiteral("SESSION").leftJustified(36) + QStringLiteral("  ")
        + QStringLiteral("LAST ACTIVITY (UTC)").leftJustified(20) + QStringLiteral("  WHERE\n");
    for (auto chat = chats.cbegin(); chat != chats.cend(); ++chat) {
        const QVector<ChatSession> sessions = ordered(chat.value());
        for (const ChatSession &session : sessions) {
            QStringList where;
            if (session.local)
                where << QStringLiteral("local");
            if (session.onServer)
                where << QStringLiteral("server");
            QString line = chat.key().leftJustified(24) + QLatin1Char(' ')
                + session.sessionId.leftJustified(36) + QStringLiteral("  ")
                + isoTime(session.lastActivity).leftJustified(20) + QStringLiteral("  ")
                + where.join(QLatin1Char('+'));
            if (!session.forkedFrom.isEmpty())
                line += QStringLiteral(" (fork of %1)").arg(session.forkedFrom);
            text += line + QLatin1Char('\n');
        }
    }
    if (chats.isEmpty())
        text += QStringLiteral("(no sessions)\n");
    writeText(stdout, text);
    return Ok;
}

} // namespace sandscope::cli
