#include "sessionstore.h"

#include "runs/claudecommand.h"
#include "server/openterminalclient.h"
#include "server/shortcommand.h"
#include "util/shellquote.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTimer>

#include <algorithm>
#include <memory>

namespace sandscope {

namespace {

constexpr int formatVersion = 1;
constexpr int lockTimeoutMs = 10000;
constexpr int projectNameLimit = 200;

const QString homeMarker = QStringLiteral("SANDSCOPE-HOME=");
const QString transcriptMarker = QStringLiteral("SANDSCOPE-TRANSCRIPT");

QString key(const char *name)
{
    return QString::fromLatin1(name);
}

bool sameScope(const QJsonObject &object, const SessionScope &scope)
{
    if (object.value(key("user")).toString() != scope.userId)
        return false;
    const QString profile = object.value(key("profile")).toString();
    if (!scope.profile.isEmpty())
        return profile == scope.profile;
    return profile.isEmpty() && object.value(key("server")).toString() == scope.server;
}

QJsonObject recordToJson(const SessionRecord &session)
{
    QJsonObject object {{key("session_id"), session.sessionId},
        {key("last_activity"), session.lastActivity.toUTC().toString(Qt::ISODateWithMs)}};
    if (!session.runId.isEmpty())
        object.insert(key("run_id"), session.runId);
    if (!session.forkedFrom.isEmpty())
        object.insert(key("forked_from"), session.forkedFrom);
    return object;
}

SessionRecord recordFromJson(const QString &chatId, const QJsonObject &object)
{
    SessionRecord session;
    session.chatId = chatId;
    session.sessionId = object.value(key("session_id")).toString();
    session.lastActivity
        = QDateTime::fromString(object.value(key("last_activity")).toString(), Qt::ISODateWithMs)
              .toUTC();
    session.runId = object.value(key("run_id")).toString();
    session.forkedFrom = object.value(key("forked_from")).toString();
    return session;
}

bool newerFirst(const SessionRecord &a, const SessionRecord &b)
{
    return a.lastActivity > b.lastActivity;
}

// Reads the whole store; a missing file is an empty store, an unreadable or corrupt one an
// error (it is never overwritten silently).
bool readStore(const QString &path, QJsonObject *root, QString *error)
{
    QFile file(path);
    if (!file.exists()) {
        *root = QJsonObject {{key("format"), formatVersion}, {key("scopes"), QJsonArray()}};
        return true;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        *error
            = QStringLiteral("cannot read the session store %1: %2").arg(path, file.errorString());
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (!document.isObject()) {
        *error = QStringLiteral("the session store %1 is not valid JSON (%2)")
                     .arg(path, parseError.errorString());
        return false;
    }
    *root = document.object();
    return true;
}

bool writeStore(const QString &path, const QJsonObject &root, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error
            = QStringLiteral("cannot write the session store %1: %2").arg(path, file.errorString());
        return false;
    }
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(root).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        *error
            = QStringLiteral("cannot write the session store %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

QString decodeJsonString(const QString &quoted)
{
    const QJsonDocument document
        = QJsonDocument::fromJson(QByteArray("[") + quoted.toUtf8() + QByteArray("]"));
    return document.array().at(0).toString();
}

} // namespace

// --- SessionStore ----------------------------------------------------------------------------

QString SessionStore::defaultPath()
{
    const QString overridden = qEnvironmentVariable("SANDSCOPE_SESSION_STORE");
    if (!overridden.isEmpty())
        return overridden;
    // Shared by the GUI and the CLI, like the audit log.
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
        + QStringLiteral("/sandscope/sessions.json");
}

SessionStore::SessionStore(const QString &path)
    : m_path(path)
{
}

bool SessionStore::record(const SessionScope &scope, const SessionRecord &session, QString *error)
{
    QString why;
    if (!claudecommand::isValidChatId(session.chatId, &why) || session.sessionId.isEmpty()) {
        if (error)
            *error = session.sessionId.isEmpty() ? QStringLiteral("no session id to record") : why;
        return false;
    }
    if (!QDir().mkpath(QFileInfo(m_path).absolutePath())) {
        if (error)
            *error = QStringLiteral("cannot create the directory of %1").arg(m_path);
        return false;
    }
    QLockFile lock(m_path + QStringLiteral(".lock"));
    if (!lock.tryLock(lockTimeoutMs)) {
        if (error)
            *error = QStringLiteral("the session store %1 stays locked by another process")
                         .arg(m_path);
        return false;
    }
    QJsonObject root;
    if (!readStore(m_path, &root, error ? error : &why))
        return false;

    QJsonArray scopes = root.value(key("scopes")).toArray();
    qsizetype scopeIndex = 0;
    while (scopeIndex < scopes.size() && !sameScope(scopes.at(scopeIndex).toObject(), scope))
        ++scopeIndex;
    QJsonObject scopeObject = scopeIndex < scopes.size()
        ? scopes.at(scopeIndex).toObject()
        : QJsonObject {{key("profile"), scope.profile}, {key("server"), scope.server},
            {key("user"), scope.userId}, {key("chats"), QJsonObject()}};

    QJsonObject chats = scopeObject.value(key("chats")).toObject();
    SessionRecord updated = session;
    if (!updated.lastActivity.isValid())
        updated.lastActivity = QDateTime::currentDateTimeUtc();
    QVector<SessionRecord> list;
    const QJsonArray stored = chats.value(session.chatId).toArray();
    for (const QJsonValue &value : stored) {
        const SessionRecord existing = recordFromJson(session.chatId, value.toObject());
        if (existing.sessionId != session.sessionId) {
            list.append(existing);
            continue;
        }
        // An update that does not say keeps what is known about the session.
        if (updated.forkedFrom.isEmpty())
            updated.forkedFrom = existing.forkedFrom;
        if (updated.runId.isEmpty())
            updated.runId = existing.runId;
    }
    list.append(updated);
    std::stable_sort(list.begin(), list.end(), newerFirst);
    if (list.size() > maxSessionsPerChat)
        list.resize(maxSessionsPerChat);

    QJsonArray array;
    for (const SessionRecord &entry : std::as_const(list))
        array.append(recordToJson(entry));
    chats.insert(session.chatId, array);
    scopeObject.insert(key("chats"), chats);
    if (scopeIndex < scopes.size())
        scopes.replace(scopeIndex, scopeObject);
    else
        scopes.append(scopeObject);
    root.insert(key("format"), formatVersion);
    root.insert(key("scopes"), scopes);
    return writeStore(m_path, root, error ? error : &why);
}

QVector<SessionRecord> SessionStore::sessions(
    const SessionScope &scope, const QString &chatId) const
{
    QJsonObject root;
    QString error;
    if (!readStore(m_path, &root, &error))
        return {};
    QVector<SessionRecord> found;
    const QJsonArray scopes = root.value(key("scopes")).toArray();
    for (const QJsonValue &scopeValue : scopes) {
        const QJsonObject scopeObject = scopeValue.toObject();
        if (!sameScope(scopeObject, scope))
            continue;
        const QJsonObject chats = scopeObject.value(key("chats")).toObject();
        for (auto chat = chats.constBegin(); chat != chats.constEnd(); ++chat) {
            if (!chatId.isEmpty() && chat.key() != chatId)
                continue;
            const QJsonArray stored = chat.value().toArray();
            for (const QJsonValue &value : stored) {
                const SessionRecord session = recordFromJson(chat.key(), value.toObject());
                if (!session.sessionId.isEmpty())
                    found.append(session);
            }
        }
    }
    std::stable_sort(found.begin(), found.end(), newerFirst);
    return found;
}

SessionRecord SessionStore::latest(const SessionScope &scope, const QString &chatId) const
{
    if (chatId.isEmpty())
        return {};
    const QVector<SessionRecord> found = sessions(scope, chatId);
    return found.isEmpty() ? SessionRecord() : found.constFirst();
}

// --- discovery -------------------------------------------------------------------------------

namespace sessiondiscovery {

QString projectDirectoryName(const QString &cwd)
{
    QString name = cwd;
    for (QChar &c : name) {
        const char16_t unit = c.unicode();
        const bool alphanumeric = (unit >= u'a' && unit <= u'z') || (unit >= u'A' && unit <= u'Z')
            || (unit >= u'0' && unit <= u'9');
        if (!alphanumeric)
            c = QLatin1Char('-');
    }
    if (name.size() <= projectNameLimit)
        return name;
    // Java's String.hashCode over the UTF-16 code units, wrapping at 32 bits.
    quint32 hash = 0;
    for (const QChar c : cwd)
        hash = hash * 31u + c.unicode();
    const qint64 magnitude = qAbs(qint64(qint32(hash)));
    return name.left(projectNameLimit) + QLatin1Char('-') + QString::number(magnitude, 36);
}

QString chatWorkDirectory(const QString &home, const QString &chatId)
{
    return home + QStringLiteral("/chat-") + chatId;
}

QString script()
{
    // The grep pattern cannot match inside a JSON string value (quotes there are escaped),
    // so the first hit is the cwd field of the first record that has one.
    return QStringLiteral(
        "home=$(cd ~ && pwd -P) || exit 1; "
        "printf 'SANDSCOPE-HOME=%s\\n' \"$home\"; "
        "for f in \"$home\"/.claude/projects/*/*.jsonl; do "
        "[ -f \"$f\" ] || continue; "
        "info=$(stat -c '%.3Y %s' -- \"$f\" 2>/dev/null) || continue; "
        "cwd=$(grep -m 1 -o '\"cwd\":\"[^\"]*\"' -- \"$f\" 2>/dev/null | head -n 1); "
        "printf 'SANDSCOPE-TRANSCRIPT\\t%s\\t%s\\t%s\\n' \"$info\" \"$cwd\" \"$f\"; "
        "done; true");
}

bool parse(const QString &output, Listing *listing)
{
    *listing = Listing();
    // marker, "mtime size", cwd field, path (last: the only part that could hold a tab)
    return forEachListingRecord(output, homeMarker, transcriptMarker, 4, &listing->home,
        [listing](const QStringList &fields) {
            DiscoveredSession transcript;
            transcript.path = fields.mid(3).join(QLatin1Char('\t'));
            const QFileInfo info(transcript.path);
            transcript.sessionId = info.completeBaseName();
            transcript.projectDirectory = QFileInfo(info.path()).fileName();
            parseTimeAndSize(fields.at(1), &transcript.lastActivity, &transcript.size);
            const QString cwdField = fields.at(2);
            const qsizetype colon = cwdField.indexOf(QLatin1Char(':'));
            if (colon > 0)
                transcript.cwd = decodeJsonString(cwdField.mid(colon + 1));
            if (!transcript.sessionId.isEmpty())
                listing->transcripts.append(transcript);
        });
}

QVector<DiscoveredSession> chatSessions(const Listing &listing, const QString &chatId)
{
    const QString chatPrefix = listing.home + QStringLiteral("/chat-");
    QVector<DiscoveredSession> found;
    for (DiscoveredSession transcript : listing.transcripts) {
        if (!chatId.isEmpty()) {
            const QString workDirectory = chatWorkDirectory(listing.home, chatId);
            if (transcript.projectDirectory != projectDirectoryName(workDirectory)
                || (!transcript.cwd.isEmpty() && transcript.cwd != workDirectory))
                continue;
            transcript.chatId = chatId;
        } else {
            // Without a chat to look for, only the recorded cwd can name the chat.
            if (!transcript.cwd.startsWith(chatPrefix))
                continue;
            const QString candidate = transcript.cwd.mid(chatPrefix.size());
            if (!claudecommand::isValidChatId(candidate)
                || transcript.projectDirectory != projectDirectoryName(transcript.cwd))
                continue;
            transcript.chatId = candidate;
        }
        found.append(transcript);
    }
    std::stable_sort(
        found.begin(), found.end(), [](const DiscoveredSession &a, const DiscoveredSession &b) {
            return a.lastActivity > b.lastActivity;
        });
    return found;
}

void discover(OpenTerminalClient *client, const Identity &identity, QObject *context, Callback done)
{
    runListingScript<Listing>(client, identity, script(), QStringLiteral("the session transcripts"),
        &parse, context, done);
}

} // namespace sessiondiscovery

} // namespace sandscope
