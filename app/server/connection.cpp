#include "connection.h"

#include <QStringList>
#include <QUrl>

namespace sandscope {

namespace {

// Accounts that exist on typical Debian/Ubuntu images (and the open-terminal image's
// sudo-capable "user"): an id that lands on one of them runs with its privileges.
const QStringList &wellKnownAccounts()
{
    static const QStringList accounts {
        QStringLiteral("root"),
        QStringLiteral("user"),
        QStringLiteral("daemon"),
        QStringLiteral("bin"),
        QStringLiteral("sys"),
        QStringLiteral("sync"),
        QStringLiteral("games"),
        QStringLiteral("man"),
        QStringLiteral("lp"),
        QStringLiteral("mail"),
        QStringLiteral("news"),
        QStringLiteral("uucp"),
        QStringLiteral("proxy"),
        QStringLiteral("backup"),
        QStringLiteral("list"),
        QStringLiteral("irc"),
        QStringLiteral("nobody"),
        QStringLiteral("admin"),
        QStringLiteral("ubuntu"),
        QStringLiteral("debian"),
        QStringLiteral("sudo"),
    };
    return accounts;
}

// The 0.11.x naming rule without its hash fallback: lower-case, keep [a-z0-9], first 8.
// Short ids are checked as well, being stricter than the server costs nothing.
QString legacyAccountStem(const QString &userId)
{
    QString cleaned;
    for (const QChar c : userId.toLower()) {
        if ((c >= QLatin1Char('a') && c <= QLatin1Char('z'))
            || (c >= QLatin1Char('0') && c <= QLatin1Char('9')))
            cleaned.append(c);
    }
    return cleaned.left(8);
}

bool fail(QString *why, const QString &reason)
{
    if (why)
        *why = reason;
    return false;
}

} // namespace

bool validateUserId(const QString &userId, QString *why)
{
    constexpr int maxLength = 128;
    if (userId.isEmpty())
        return fail(why,
            QStringLiteral("The user id is empty; an empty id would act as the "
                           "server's own (privileged) account"));
    if (userId.size() > maxLength)
        return fail(why, QStringLiteral("The user id is longer than %1 characters").arg(maxLength));
    for (const QChar c : userId) {
        if (c.unicode() < 0x21 || c.unicode() > 0x7e)
            return fail(why,
                QStringLiteral("The user id may only contain printable ASCII "
                               "characters without spaces or control characters"));
    }
    const QString stem = legacyAccountStem(userId);
    if (wellKnownAccounts().contains(stem))
        return fail(why,
            QStringLiteral("The user id \"%1\" would map onto the existing system "
                           "account \"%2\" on open-terminal 0.11.x")
                .arg(userId, stem));
    if (why)
        why->clear();
    return true;
}

bool validateServerUrl(const QString &text, QString *why)
{
    if (text.isEmpty())
        return fail(why, QStringLiteral("Enter the server URL, e.g. http://127.0.0.1:8000."));
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid())
        return fail(why, QStringLiteral("The URL is not valid: %1").arg(url.errorString()));
    if (url.scheme() != u"http" && url.scheme() != u"https")
        return fail(why, QStringLiteral("The URL must start with http:// or https://."));
    if (url.host().isEmpty())
        return fail(why, QStringLiteral("The URL has no host name."));
    if (!url.userInfo().isEmpty())
        return fail(
            why, QStringLiteral("Do not put credentials in the URL; use the API key field."));
    if (url.hasQuery() || url.hasFragment())
        return fail(why, QStringLiteral("The URL must not have a query or fragment."));
    return true;
}

} // namespace sandscope
