#include "connectionoptions.h"

#include "fleet/fleetconfig.h"
#include "security/profilestore.h"

#include <QCommandLineParser>
#include <QUrl>

namespace sandscope::cli {

namespace {
const QString keyEnvironmentVariable = QStringLiteral("SANDSCOPE_API_KEY");
}

ConnectionOptions::ConnectionOptions()
    : m_server(QStringLiteral("server"),
        QStringLiteral("open-terminal server URL, e.g. http://127.0.0.1:8000."),
        QStringLiteral("URL"))
    , m_user(QStringLiteral("user"),
          QStringLiteral("Act as this user id (X-User-Id). Without it, commands run as the "
                         "server's own account."),
          QStringLiteral("ID"))
    , m_profile(QStringLiteral("profile"),
          QStringLiteral("Use a saved profile: its URL and default user, and its key from "
                         "the keyring."),
          QStringLiteral("NAME"))
    , m_fleet(QStringLiteral("fleet"),
          QStringLiteral("A fleet of servers behind one router (a JSON file: router, members): "
                         "per-user actions go through the router, all-users ones to each "
                         "member. Instead of --server."),
          QStringLiteral("FILE"))
    , m_apiKeyFile(QStringLiteral("api-key-file"),
          QStringLiteral("Read the API key from this file (must be chmod 600)."),
          QStringLiteral("PATH"))
{
}

void ConnectionOptions::addTo(QCommandLineParser &parser) const
{
    parser.addOption(m_server);
    parser.addOption(m_fleet);
    parser.addOption(m_user);
    parser.addOption(m_profile);
    parser.addOption(m_apiKeyFile);
}

QString ConnectionOptions::keySourcesHelp()
{
    return QStringLiteral(
        "API key, first found wins (never as an argument: the process list shows arguments\n"
        "to every user of the machine):\n"
        "  --api-key-file PATH      a file only you can read (chmod 600)\n"
        "  SANDSCOPE_API_KEY        environment variable\n"
        "  --profile NAME           the key saved with that profile (keyring)\n");
}

QString ConnectionOptions::serverText() const
{
    return connection.baseUrl.adjusted(QUrl::RemoveUserInfo).toString();
}

bool ConnectionOptions::resolve(const QCommandLineParser &parser, QString *error)
{
    Profile profile;
    if (parser.isSet(m_profile)) {
        profileName = parser.value(m_profile);
        ProfileStore store;
        if (!store.contains(profileName)) {
            *error = QStringLiteral("no profile named \"%1\"").arg(profileName);
            return false;
        }
        profile = store.profile(profileName);
        connection.baseUrl = profile.serverUrl;
        connection.timeoutMs = profile.timeoutMs;
        userId = profile.defaultUserId;
        profileAdminCommand = profile.adminCommand;
    }

    if (parser.isSet(m_server)) {
        const QString text = parser.value(m_server);
        connection.baseUrl = QUrl(text, QUrl::StrictMode);
        if (!connection.baseUrl.isValid()
            || (connection.baseUrl.scheme() != QLatin1String("http")
                && connection.baseUrl.scheme() != QLatin1String("https"))
            || connection.baseUrl.host().isEmpty()) {
            *error = QStringLiteral("--server needs an http:// or https:// URL, got \"%1\"")
                         .arg(QUrl(text).adjusted(QUrl::RemoveUserInfo).toString());
            return false;
        }
        if (!connection.baseUrl.userInfo().isEmpty()) {
            *error = QStringLiteral("--server must not carry credentials in the URL; see --help "
                                    "for where the API key may come from");
            return false;
        }
    }
    if (parser.isSet(m_fleet)) {
        if (parser.isSet(m_server)) {
            *error = QStringLiteral("--fleet and --server exclude each other: a fleet's "
                                    "per-user actions go to its router");
            return false;
        }
        if (!FleetConfig::load(parser.value(m_fleet), &fleet, error))
            return false;
        hasFleet = true;
        connection.baseUrl = fleet.router;
    }
    if (connection.baseUrl.isEmpty()) {
        *error = QStringLiteral("missing --server URL (or --fleet FILE, or --profile NAME)");
        return false;
    }

    if (parser.isSet(m_user))
        userId = parser.value(m_user);
    QString why;
    if (!userId.isEmpty() && !validateUserId(userId, &why)) {
        *error = QStringLiteral("--user \"%1\" refused: %2").arg(userId, why);
        return false;
    }
    return resolveKey(parser, error);
}

bool ConnectionOptions::resolveKey(const QCommandLineParser &parser, QString *error)
{
    if (parser.isSet(m_apiKeyFile)) {
        const Result<QString> key = readApiKeyFile(parser.value(m_apiKeyFile));
        if (!key.ok()) {
            *error = key.error.message;
            return false;
        }
        connection.apiKey = key.value;
        return true;
    }
    const QString fromEnvironment = qEnvironmentVariable("SANDSCOPE_API_KEY").trimmed();
    if (!fromEnvironment.isEmpty()) {
        connection.apiKey = fromEnvironment;
        return true;
    }
    if (!profileName.isEmpty()) {
        KeyStore keys;
        KeyStorage where = KeyStorage::None;
        QString keyError;
        connection.apiKey = keys.readKeyBlocking(profileName, &where, &keyError);
        if (connection.apiKey.isEmpty()) {
            *error = keyError;
            return false;
        }
        return true;
    }
    *error = QStringLiteral("no API key: set %1, or use --api-key-file PATH or --profile NAME")
                 .arg(keyEnvironmentVariable);
    return false;
}

bool containsRefusedApiKeyOption(const QStringList &arguments, QString *why)
{
    for (const QString &argument : arguments) {
        if (argument == QLatin1String("--"))
            break;
        if (argument == QLatin1String("--api-key") || argument == QLatin1String("-api-key")
            || argument.startsWith(QLatin1String("--api-key="))
            || argument.startsWith(QLatin1String("-api-key="))) {
            *why = QStringLiteral(
                "--api-key is refused: command-line arguments are visible to every user of "
                "this machine in the process list. Set %1 in the environment, or use "
                "--api-key-file PATH (chmod 600) or --profile NAME.")
                       .arg(keyEnvironmentVariable);
            return true;
        }
    }
    return false;
}

} // namespace sandscope::cli
