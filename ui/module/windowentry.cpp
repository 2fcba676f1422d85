// The window's module (sandscope-window.so): what `sandscope` with no verb runs, loaded by the
// executable (ui/main.cpp, ui/launcher/windowmodule.h) so the command line never loads Widgets.
// Two C entry points, the only symbols the executable looks up.

#include "export/syntaxcodehighlighter.h"
#include "mainwindow.h"
#include "messagebar.h"
#include "runs/runtabs.h"
#include "security/profilestore.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <QUrl>

using namespace sandscope;

// Exports from the window and from `sandscope export` colour code the same way.
extern "C" Q_DECL_EXPORT const CodeHighlighter *sandscope_code_highlighter()
{
    static const SyntaxCodeHighlighter highlighter;
    return &highlighter;
}

extern "C" Q_DECL_EXPORT int sandscope_window_main(int argc, char **argv)
{
    CodeHighlighter::setInstance(sandscope_code_highlighter());

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("sandscope"));
    QApplication::setApplicationDisplayName(QStringLiteral("Sandscope"));
    QApplication::setOrganizationName(QStringLiteral("sandscope"));
    QApplication::setApplicationVersion(QStringLiteral(SANDSCOPE_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/sandscope/icons/sandscope.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Inspect and drive Claude Code sandbox sessions in open-terminal.\n"
                       "The API key is read from --api-key-file, SANDSCOPE_API_KEY or the "
                       "profile's stored key, never from the command line."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption serverOption(QStringLiteral("server"),
        QStringLiteral("Connect to this open-terminal URL."), QStringLiteral("URL"));
    const QCommandLineOption userOption(QStringLiteral("user"),
        QStringLiteral("Act as this user id (X-User-Id)."), QStringLiteral("ID"));
    const QCommandLineOption keyFileOption(QStringLiteral("api-key-file"),
        QStringLiteral("Read the API key from this file (must not be readable by others)."),
        QStringLiteral("PATH"));
    const QCommandLineOption profileOption(QStringLiteral("profile"),
        QStringLiteral("Use this saved connection profile."), QStringLiteral("NAME"));
    const QCommandLineOption adminCommandOption(QStringLiteral("admin-command"),
        QStringLiteral("With --server: the command that opens a root shell in the sandbox "
                       "(e.g. \"sudo -n\" for a server on this machine), for Cleanup and the "
                       "all-users views."),
        QStringLiteral("COMMAND"));
    const QCommandLineOption fleetOption(QStringLiteral("fleet"),
        QStringLiteral("Connect to a fleet of servers behind one router (a JSON file: router, "
                       "members); all-users views ask every member."),
        QStringLiteral("FILE"));
    parser.addOptions(
        {serverOption, userOption, keyFileOption, profileOption, adminCommandOption, fleetOption});
    parser.addPositionalArgument(QStringLiteral("files"),
        QStringLiteral("Run recordings or stream-json captures to open, each in a run tab."),
        QStringLiteral("[FILE...]"));
    parser.process(app);

    MainWindow window;
    window.show();
    const QStringList files = parser.positionalArguments();
    if (!files.isEmpty())
        QTimer::singleShot(0, &window, [&window, files] { window.runTabs()->openRunFiles(files); });

    Profile profile;
    bool haveTarget = false;
    if (parser.isSet(profileOption)) {
        ProfileStore profiles;
        const QString name = parser.value(profileOption);
        if (profiles.contains(name)) {
            profile = profiles.profile(name);
            haveTarget = true;
        } else if (!parser.isSet(serverOption)) {
            window.messageBar()->showMessage(
                QApplication::translate("main", "There is no profile named \"%1\".").arg(name),
                MessageBar::Level::Error);
        }
        profile.name = name;
    }
    if (parser.isSet(serverOption)) {
        profile.serverUrl = QUrl(parser.value(serverOption), QUrl::StrictMode);
        profile.fleetFile.clear(); // one server named: not the profile's fleet
        haveTarget = true;
    }
    if (parser.isSet(fleetOption)) {
        profile.fleetFile = parser.value(fleetOption);
        haveTarget = true;
    }
    if (parser.isSet(userOption))
        profile.defaultUserId = parser.value(userOption);
    if (parser.isSet(adminCommandOption))
        profile.adminCommand = parser.value(adminCommandOption);

    QString apiKey;
    if (parser.isSet(keyFileOption)) {
        const Result<QString> key = readApiKeyFile(parser.value(keyFileOption));
        if (!key.ok()) {
            window.messageBar()->showMessage(key.error.toString(), MessageBar::Level::Error);
            haveTarget = false;
        }
        apiKey = key.value;
    } else {
        apiKey = qEnvironmentVariable("SANDSCOPE_API_KEY");
    }

    if (haveTarget) {
        // After the window is up, so it paints before the first network round trip.
        QTimer::singleShot(
            0, &window, [&window, profile, apiKey] { window.openProfile(profile, apiKey); });
    } else {
        // Nothing named: the profile used last time, as it was left.
        QTimer::singleShot(0, &window, [&window] { window.openLastProfile(); });
    }
    return app.exec();
}
