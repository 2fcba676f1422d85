#include "sessionstore.h"

#include "claude/claudecommand.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QSaveFile>
#include <QStandardPaths>

#include <algorithm>

namespace sandscope {

namespace {

constexpr int formatVersion = 1;
constexpr int lockTimeoutMs = 10000;

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

} // namespace sandscope
