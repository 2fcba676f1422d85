#include "fleetconfig.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

namespace sandscope {

namespace {

bool httpUrl(const QJsonValue &value, QUrl *url)
{
    *url = QUrl(value.toString(), QUrl::StrictMode);
    return value.isString() && url->isValid() && !url->host().isEmpty()
        && (url->scheme() == QLatin1String("http") || url->scheme() == QLatin1String("https"))
        && url->userInfo().isEmpty();
}

// A key in the file would sit in plain text beside the members' addresses: refused, with the
// ways the key does come.
bool looksLikeSecret(const QString &name)
{
    static const QRegularExpression secret(
        QStringLiteral("key|token|secret|password"), QRegularExpression::CaseInsensitiveOption);
    return secret.match(name).hasMatch();
}

const QString keyAdvice = QStringLiteral(
    "the API key is never in the fleet file: give it as SANDSCOPE_API_KEY, --api-key-file or "
    "a profile");

} // namespace

bool FleetConfig::fromJson(const QByteArray &json, FleetConfig *fleet, QString *error)
{
    QJsonParseError parse {};
    const QJsonDocument document = QJsonDocument::fromJson(json, &parse);
    if (parse.error != QJsonParseError::NoError || !document.isObject()) {
        *error = parse.error != QJsonParseError::NoError
            ? QStringLiteral("not JSON: %1 at byte %2").arg(parse.errorString()).arg(parse.offset)
            : QStringLiteral("not a JSON object");
        return false;
    }
    const QJsonObject object = document.object();
    FleetConfig out;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        if (looksLikeSecret(it.key())) {
            *error = QStringLiteral("\"%1\" is refused: %2").arg(it.key(), keyAdvice);
            return false;
        }
        if (it.key() != QLatin1String("router") && it.key() != QLatin1String("members")) {
            *error = QStringLiteral("unknown key \"%1\" (a fleet has \"router\" and "
                                    "\"members\")")
                         .arg(it.key());
            return false;
        }
    }
    if (!httpUrl(object.value(QLatin1String("router")), &out.router)) {
        *error = QStringLiteral("\"router\" must be an http:// or https:// URL without "
                                "credentials");
        return false;
    }
    const QJsonValue members = object.value(QLatin1String("members"));
    if (!members.isArray() || members.toArray().isEmpty()) {
        *error = QStringLiteral("\"members\" must be a list of at least one member");
        return false;
    }
    static const QRegularExpression goodName(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$"));
    QSet<QString> names;
    const QJsonArray list = members.toArray();
    for (int i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("member %1").arg(i + 1);
        if (!list.at(i).isObject()) {
            *error = where + QStringLiteral(" is not an object");
            return false;
        }
        const QJsonObject entry = list.at(i).toObject();
        for (auto it = entry.constBegin(); it != entry.constEnd(); ++it) {
            if (looksLikeSecret(it.key())) {
                *error
                    = QStringLiteral("%1: \"%2\" is refused: %3").arg(where, it.key(), keyAdvice);
                return false;
            }
            if (it.key() != QLatin1String("name") && it.key() != QLatin1String("url")
                && it.key() != QLatin1String("admin_exec")) {
                *error = QStringLiteral("%1: unknown key \"%2\" (a member has \"name\", \"url\" "
                                        "and \"admin_exec\")")
                             .arg(where, it.key());
                return false;
            }
        }
        FleetMember member;
        member.name = entry.value(QLatin1String("name")).toString();
        if (!goodName.match(member.name).hasMatch()) {
            *error = QStringLiteral("%1: \"name\" must be 1 to 63 letters, digits, '.', '_' or "
                                    "'-'")
                         .arg(where);
            return false;
        }
        if (names.contains(member.name)) {
            *error = QStringLiteral("%1: the name \"%2\" is used twice").arg(where, member.name);
            return false;
        }
        names.insert(member.name);
        if (!httpUrl(entry.value(QLatin1String("url")), &member.url)) {
            *error = QStringLiteral("%1 (%2): \"url\" must be an http:// or https:// URL without "
                                    "credentials")
                         .arg(where, member.name);
            return false;
        }
        const QJsonValue admin = entry.value(QLatin1String("admin_exec"));
        if (!admin.isUndefined() && !admin.isNull()) {
            QString why;
            member.adminExec = admin.toString();
            if (!admin.isString()
                || !AdminAccess::fromCommand(member.adminExec, &member.admin, &why)) {
                *error = QStringLiteral("%1 (%2): \"admin_exec\": %3")
                             .arg(where, member.name,
                                 admin.isString() ? why : QStringLiteral("must be a string"));
                return false;
            }
        }
        out.members.append(member);
    }
    *fleet = out;
    return true;
}

bool FleetConfig::load(const QString &path, FleetConfig *fleet, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error
            = QStringLiteral("the fleet file %1 cannot be read: %2").arg(path, file.errorString());
        return false;
    }
    if (file.size() > (1 << 20)) {
        *error = QStringLiteral("the fleet file %1 is over 1 MiB: not a fleet file").arg(path);
        return false;
    }
    QString why;
    if (!fromJson(file.readAll(), fleet, &why)) {
        *error = QStringLiteral("the fleet file %1: %2").arg(path, why);
        return false;
    }
    return true;
}

const FleetMember *FleetConfig::member(const QString &name) const
{
    for (const FleetMember &member : members) {
        if (member.name == name)
            return &member;
    }
    return nullptr;
}

QStringList FleetConfig::memberNames() const
{
    QStringList names;
    for (const FleetMember &member : members)
        names << member.name;
    return names;
}

} // namespace sandscope
