#pragma once
// The options every `sandscope <verb>` shares to say where to connect, as whom, and where the
// API key comes from. The key is never accepted as an argument: arguments are visible to
// every user in the process list.

#include "fleet/fleetconfig.h"
#include "server/connection.h"

#include <QCommandLineOption>
#include <QString>
#include <QStringList>

class QCommandLineParser;

namespace sandscope::cli {

class ConnectionOptions {
public:
    ConnectionOptions();

    void addTo(QCommandLineParser &parser) const;

    // Fills the fields below from the parsed options, the profile store and the key sources.
    // Returns false with a message for people when the invocation is unusable.
    bool resolve(const QCommandLineParser &parser, QString *error);

    ServerConnection connection;
    QString userId; // empty = the server account
    QString profileName; // empty when no --profile was given
    QString profileAdminCommand; // the profile's admin command, if any
    FleetConfig fleet; // with --fleet: its router is `connection.baseUrl`
    bool hasFleet = false;
    QString serverText() const; // the URL without credentials, for messages

    // Text for --help: where the key may come from.
    static QString keySourcesHelp();

private:
    bool resolveKey(const QCommandLineParser &parser, QString *error);

    QCommandLineOption m_server;
    QCommandLineOption m_user;
    QCommandLineOption m_profile;
    QCommandLineOption m_fleet;
    QCommandLineOption m_apiKeyFile;
};

// Finds `--api-key` / `--api-key=...` among the options (before a lone "--"); `why` explains
// the refusal and the alternatives.
bool containsRefusedApiKeyOption(const QStringList &arguments, QString *why);

} // namespace sandscope::cli
