#pragma once
// Frames of the file follower in agents mode (app/terminal/followprotocol.h), written the way
// the follower writes them (tests/unit/tst_follower proves the follower's own), for the tests
// of the live wall's core and its page.

#include "terminal/followprotocol.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

namespace sandscope::test {

inline QByteArray frame(const QByteArray &fields)
{
    return followprotocol::frameLine(fields);
}

// The frames the follower sends for an agent of `account` that appears in chat `chat` with
// session `session` (home /home/<account>), and opens its transcript.
inline QByteArray appearFrames(const QByteArray &id, qint64 pid, const QString &account,
    const QString &chat, const QString &session)
{
    const QString home = QStringLiteral("/home/") + account;
    QJsonObject object {{QStringLiteral("pid"), double(pid)}, {QStringLiteral("uid"), 1000},
        {QStringLiteral("account"), account}, {QStringLiteral("home"), home},
        {QStringLiteral("cwd"), QString(home + QStringLiteral("/chat-") + chat)},
        {QStringLiteral("transcript"),
            QString(home + QStringLiteral("/.claude/projects/x/") + session
                + QStringLiteral(".jsonl"))},
        {QStringLiteral("session"), session}, {QStringLiteral("started"), 1764608632.5}};
    return frame("A " + id + ' ' + QJsonDocument(object).toJson(QJsonDocument::Compact).toBase64())
        + frame("N " + id + " 77 0 0");
}

inline QByteArray dataFrames(
    const QByteArray &id, qint64 offset, const QByteArray &bytes, int chunk)
{
    QByteArray out;
    for (qint64 at = 0; at < bytes.size(); at += chunk)
        out += frame("D " + id + ' ' + QByteArray::number(offset + at) + ' '
            + bytes.mid(int(at), chunk).toBase64());
    return out;
}

} // namespace sandscope::test
