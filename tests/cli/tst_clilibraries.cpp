// The one `sandscope` command, two programs: every verb runs without loading a GUI library
// (the dynamic loader's own list of the files it opened, LD_DEBUG=files, names no Qt Widgets,
// Gui, Svg, Pdf, Charts, KSyntaxHighlighting or QTermWidget; an HTML export loads the window
// module for its code highlighter, and only it), while `sandscope` with no verb
// loads the window module and keeps running with its window; a copy of the executable
// without the module says so and still runs every verb. No verb that needs no API key loads
// the keyring (QtKeychain, Qt D-Bus and what they link); one that reads a profile's key loads it
// from beside the core.

#include "sandscopecli.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest/QTest>

#include <algorithm>
#include <iterator>

using namespace sandscope;

namespace {

// ld.so's "file=NAME [0];  needed by ..." and "file=NAME [0];  dynamically loaded by ..." lines.
QStringList loadedFiles(const QByteArray &loaderLog)
{
    static const QRegularExpression fileLine(
        QStringLiteral("^\\s*\\d+:\\s+file=(\\S+) \\[\\d+\\];\\s+(needed|dynamically loaded) by"),
        QRegularExpression::MultilineOption);
    QStringList files;
    auto matches = fileLine.globalMatch(QString::fromLocal8Bit(loaderLog));
    while (matches.hasNext())
        files << matches.next().captured(1);
    return files;
}

// ld.so's "calling init: PATH" lines: the full path of each file it initialised.
QStringList initialisedFiles(const QByteArray &loaderLog)
{
    static const QRegularExpression initLine(
        QStringLiteral("^\\s*\\d+:\\s+calling init: (\\S+)$"), QRegularExpression::MultilineOption);
    QStringList files;
    auto matches = initLine.globalMatch(QString::fromLocal8Bit(loaderLog));
    while (matches.hasNext())
        files << matches.next().captured(1);
    return files;
}

bool isGuiLibrary(const QString &file)
{
    static const QRegularExpression gui(
        QStringLiteral("libQt\\d(Gui|Widgets|Svg|Pdf|PdfWidgets|Charts|XcbQpa)|SyntaxHighlighting|"
                       "qtermwidget|sandscope-window"),
        QRegularExpression::CaseInsensitiveOption);
    return gui.match(file).hasMatch();
}

// QtKeychain and what it brings (Qt D-Bus, libdbus, libsystemd ...), or the module holding it.
bool isKeyringLibrary(const QString &file)
{
    static const QRegularExpression keyring(
        QStringLiteral("keychain|libQt\\dDBus|libdbus-1|libsystemd|sandscope-keyring"),
        QRegularExpression::CaseInsensitiveOption);
    return keyring.match(file).hasMatch();
}

// A home of its own, no display, and the loader's list of files on stderr.
QProcessEnvironment loaderLogEnvironment(const QString &home)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("LD_DEBUG"), QStringLiteral("files"));
    environment.insert(QStringLiteral("HOME"), home);
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/.config"));
    environment.insert(QStringLiteral("XDG_DATA_HOME"), home + QStringLiteral("/.local/share"));
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    environment.remove(QStringLiteral("DISPLAY"));
    environment.remove(QStringLiteral("WAYLAND_DISPLAY"));
    return environment;
}

} // namespace

class CliLibrariesTest : public QObject {
    Q_OBJECT

private slots:
    void everyVerbRunsWithoutGuiOrKeyringLibraries_data()
    {
        const QString capture = QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/stream-basic.jsonl");
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("--version") << QStringList {QStringLiteral("--version")};
        QTest::newRow("--help") << QStringList {QStringLiteral("--help")};
        QTest::newRow("replay --help")
            << QStringList {QStringLiteral("replay"), QStringLiteral("--help")};
        QTest::newRow("replay --summary --json") << QStringList {QStringLiteral("replay"), capture,
            QStringLiteral("--summary"), QStringLiteral("--json")};
        QTest::newRow("replay outline") << QStringList {QStringLiteral("replay"), capture};
        QTest::newRow("export --format json") << QStringList {
            QStringLiteral("export"), capture, QStringLiteral("--format"), QStringLiteral("json")};
        QTest::newRow("export --format md") << QStringList {
            QStringLiteral("export"), capture, QStringLiteral("--format"), QStringLiteral("md")};
        QTest::newRow("unknown verb") << QStringList {QStringLiteral("no-such-verb")};
    }

    void everyVerbRunsWithoutGuiOrKeyringLibraries()
    {
        QFETCH(QStringList, arguments);
        QTemporaryDir home;
        QVERIFY(home.isValid());
        const test::CliOutcome outcome
            = test::runSandscope(arguments, loaderLogEnvironment(home.path()));
        QVERIFY2(
            outcome.exitCode >= 0 && outcome.exitCode <= 2, outcome.err.right(2000).constData());
        const QStringList files = loadedFiles(outcome.err);
        // The log is there (so an empty list of GUI libraries means something): the core is in it.
        QVERIFY2(files.filter(QStringLiteral("libsandscope_core")).size() == 1,
            outcome.err.left(2000).constData());
        QVERIFY2(files.filter(QStringLiteral("libQt")).size() >= 2, qPrintable(files.join(u' ')));
        QStringList gui;
        std::copy_if(files.cbegin(), files.cend(), std::back_inserter(gui), isGuiLibrary);
        QVERIFY2(gui.isEmpty(), qPrintable(QStringLiteral("loaded: ") + gui.join(u' ')));
        // None of these stores or reads an API key: the keyring is loaded when a key is
        // (tst_keyfile_profiles), not by every start (about 2 ms of each).
        QStringList keyring;
        std::copy_if(files.cbegin(), files.cend(), std::back_inserter(keyring), isKeyringLibrary);
        QVERIFY2(keyring.isEmpty(), qPrintable(QStringLiteral("loaded: ") + keyring.join(u' ')));
    }

    // --profile NAME reads the profile's key: the core loads the keyring module from beside
    // itself, and a keyring that cannot be reached is named in the error with the reason the
    // session bus gives (QtKeychain alone says "Unknown error"), not taken for a missing key.
    void aProfileKeyIsReadThroughTheKeyringModule_data()
    {
        QTest::addColumn<bool>("busAddressSet");
        QTest::addColumn<QString>("missingSocket");
        QTest::newRow("no bus address") << false << QString();
        QTest::newRow("a bus address with no bus") << true << QStringLiteral("no-bus");
    }

    void aProfileKeyIsReadThroughTheKeyringModule()
    {
        QFETCH(bool, busAddressSet);
        QFETCH(QString, missingSocket);
        QTemporaryDir home;
        QVERIFY(home.isValid());
        const QString config = home.filePath(QStringLiteral(".config/sandscope"));
        QVERIFY(QDir().mkpath(config));
        QFile profiles(config + QStringLiteral("/profiles.ini"));
        QVERIFY(profiles.open(QIODevice::WriteOnly));
        profiles.write("[profiles]\nkeyless\\url=http://127.0.0.1:9\n"
                       "keyless\\defaultUserId=keyring-test\n");
        profiles.close();
        QProcessEnvironment environment = loaderLogEnvironment(home.path());
        environment.remove(QStringLiteral("SANDSCOPE_API_KEY"));
        // No bus anywhere: not at the address, not in the runtime directory, no X11 to
        // autolaunch one through.
        environment.insert(QStringLiteral("XDG_RUNTIME_DIR"), home.path());
        environment.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"));
        if (busAddressSet)
            environment.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"),
                QStringLiteral("unix:path=") + home.filePath(missingSocket));
        const test::CliOutcome outcome = test::runSandscope(
            {QStringLiteral("server-info"), QStringLiteral("--profile"), QStringLiteral("keyless")},
            environment);
        QCOMPARE(outcome.exitCode, 2);
        const QStringList initialised = initialisedFiles(outcome.err);
        const QStringList modules = initialised.filter(QStringLiteral("/sandscope-keyring.so"));
        const QStringList cores = initialised.filter(QStringLiteral("/libsandscope_core.so"));
        QVERIFY2(modules.size() == 1 && cores.size() == 1, outcome.err.right(3000).constData());
        QCOMPARE(
            QFileInfo(modules.first()).canonicalPath(), QFileInfo(cores.first()).canonicalPath());
        const QString message = QString::fromLocal8Bit(outcome.err)
                                    .split(u'\n')
                                    .filter(QStringLiteral("sandscope:"))
                                    .join(u'\n');
        QVERIFY2(
            message.contains(QStringLiteral("no API key is stored for the profile \"keyless\"")),
            qPrintable(message));
        QVERIFY2(
            message.contains(QStringLiteral(
                "(keyring: no D-Bus session bus to reach the Secret Service or KWallet through: ")),
            qPrintable(message));
        if (busAddressSet)
            QVERIFY2(message.contains(home.filePath(missingSocket)), qPrintable(message));
    }

    // An HTML export colours code as the window does: with the module's highlighter, so the
    // module is loaded for it (and only for it: the Markdown and JSON rows above load none).
    void htmlExportColoursCodeThroughTheModule()
    {
        QTemporaryDir home;
        QVERIFY(home.isValid());
        const test::CliOutcome outcome
            = test::runSandscope({QStringLiteral("export"),
                                     QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/stream-basic.jsonl"),
                                     QStringLiteral("--format"), QStringLiteral("html")},
                loaderLogEnvironment(home.path()));
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY(outcome.out.contains("<pre"));
        QVERIFY2(!outcome.err.contains("not coloured"), outcome.err.right(2000).constData());
        QVERIFY(!loadedFiles(outcome.err).filter(QStringLiteral("sandscope-window.so")).isEmpty());
    }

    // No verb: the window. The module and Qt Widgets are loaded, and the window's event loop
    // keeps the process running (it does not exit or crash) until it is asked to stop.
    void noVerbOpensTheWindowFromTheModule()
    {
        QTemporaryDir home;
        QVERIFY(home.isValid());
        QProcess window;
        window.setProcessEnvironment(loaderLogEnvironment(home.path()));
        window.start(QStringLiteral(SANDSCOPE_BINARY), QStringList {});
        QVERIFY(window.waitForStarted());
        QByteArray log;
        const auto loaded = [&log](const QString &name) {
            return !loadedFiles(log).filter(name).isEmpty();
        };
        const auto windowLoaded = [&] {
            log += window.readAllStandardError();
            return loaded(QStringLiteral("sandscope-window.so"))
                && loaded(QStringLiteral("Widgets")) && loaded(QStringLiteral("offscreen"));
        };
        QTRY_VERIFY_WITH_TIMEOUT(windowLoaded(), 20000);
        // The platform plugin is loaded by QApplication: give the window time to fail if it would.
        QVERIFY2(!window.waitForFinished(1500), log.right(2000).constData());
        QCOMPARE(window.state(), QProcess::Running);
        window.terminate();
        QVERIFY(window.waitForFinished(10000));
    }

    void withoutTheModuleTheWindowSaysWhyAndVerbsStillRun()
    {
        QTemporaryDir directory;
        QVERIFY(directory.isValid());
        // A copy of the executable alone (its build RPATH still finds the core).
        const QString copy = directory.filePath(QStringLiteral("sandscope"));
        QVERIFY(QFile::copy(QStringLiteral(SANDSCOPE_BINARY), copy));
        QVERIFY(QFile::setPermissions(copy, QFile::permissions(copy) | QFile::ExeOwner));
        QProcess process;
        process.setProcessEnvironment(loaderLogEnvironment(directory.path()));
        process.start(copy, QStringList {});
        QVERIFY(process.waitForFinished(20000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 1);
        const QString err = QString::fromLocal8Bit(process.readAllStandardError());
        const QString message = err.split(u'\n').filter(QStringLiteral("sandscope:")).join(u'\n');
        QVERIFY2(message.contains(QStringLiteral("the window is not installed")),
            qPrintable(err.right(2000)));
        QVERIFY2(message.contains(QStringLiteral("sandscope --help")), qPrintable(message));
        const QString canonical = QFileInfo(directory.path()).canonicalFilePath();
        QVERIFY2(message.contains(QDir::cleanPath(canonical + QStringLiteral("/../lib/sandscope"))),
            qPrintable(message));

        process.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
        process.start(copy, QStringList {QStringLiteral("--version")});
        QVERIFY(process.waitForFinished(20000));
        QCOMPARE(process.exitCode(), 0);
        QVERIFY(process.readAllStandardOutput().startsWith("sandscope "));
    }
};

QTEST_GUILESS_MAIN(CliLibrariesTest)
#include "tst_clilibraries.moc"
