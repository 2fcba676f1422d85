#pragma once
// What the file browser's tests share (tst_files for the core and the CLI, tst_filespage for
// the page): file contents to upload and compare, and a real multi-user open-terminal with two
// fresh accounts and an audit log.

#include "realserver.h"
#include "server/connection.h"
#include "server/openterminalclient.h"
#include "testing.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>
#include <vector>

// For initTestCase: requires what a multi-user server needs (failing in CI, skipping
// elsewhere), then starts it with startFilesServer.
#define SANDSCOPE_START_FILES_SERVER()                                                             \
    do {                                                                                           \
        QString filesServerWhy;                                                                    \
        SANDSCOPE_REQUIRE(                                                                         \
            sandscope::test::RealServer::canRunMultiUser(&filesServerWhy), filesServerWhy);        \
        QVERIFY2(startFilesServer(&filesServerWhy), qPrintable(filesServerWhy));                   \
    } while (false)

// For a test with a "version" column (addVersionRows): makes that version's
// server current, failing the test when it does not start.
#define SANDSCOPE_USE_FETCHED_VERSION()                                                            \
    do {                                                                                           \
        QFETCH(QString, version);                                                                  \
        QString useVersionWhy;                                                                     \
        QVERIFY2(useVersion(version, &useVersionWhy), qPrintable(useVersionWhy));                  \
    } while (false)

namespace sandscope::test {

// Every byte value once, from 0 to 255.
QByteArray allByteValues();
QByteArray randomBytes(qsizetype size);
// Lower-case hex, as sha256sum prints it.
QString sha256(const QByteArray &bytes);

// The pinned OPEN_TERMINAL_VERSION in multi-user mode, a client for it, two fresh accounts
// (alice and bob, with a random suffix) and their homes, and the audit log
// (SANDSCOPE_AUDIT_LOG) in a temporary folder. A test class derives from it next to QObject:
//   class FilesTest : public QObject, protected sandscope::test::FilesFixture
// Tests that must hold on both pinned versions take a "version" column (addVersionRows in
// realserver.h) and
// call useVersion first: each version's server is started once per suite and kept.
class FilesFixture {
protected:
    // Makes `version`'s server current: m_server, m_client, m_alice, m_bob and their homes.
    // The first time, it starts that server with two fresh accounts; the other version's stays
    // running (and keeps its accounts) until stopFilesServer. False with `error` when it did
    // not start.
    bool useVersion(const QString &version, QString *error);
    // For initTestCase, once the test has required RealServer::canRunMultiUser: starts the
    // server and resolves the homes (both below /home/); false with `error` otherwise.
    bool startFilesServer(QString *error);
    // For cleanupTestCase: the client, then the server.
    void stopFilesServer();

    // Runs a command as `who` (through `client`, else m_client) and returns its output lines;
    // empty with a warning when it could not run, with a warning when it exited non-zero.
    QStringList shell(
        const Identity &who, const QString &command, OpenTerminalClient *client = nullptr);
    QString homeOf(const Identity &who, OpenTerminalClient *client = nullptr);
    // A fresh folder in alice's home, created empty, then filled by `fill` (run inside it).
    QString freshFolder(const QString &name, const QString &fill = {});
    // A fingerprint of everything below `path` on the server: names, sizes, times and types.
    QStringList snapshot(const QString &path);
    // Every entry of the audit log so far, one object a line.
    QList<QJsonObject> auditLines() const;

    // Swaps the server, its client, the users and their homes with `other`'s.
    void swapCurrent(FilesFixture &other);
    bool startServer(const QString &version, QString *error);
    // The other versions' servers while another is current.
    std::vector<std::unique_ptr<FilesFixture>> m_parked;

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<OpenTerminalClient> m_client;
    Identity m_alice;
    Identity m_bob;
    QString m_aliceHome;
    QString m_bobHome;
    QTemporaryDir m_local;
    QString m_auditPath;
};

} // namespace sandscope::test
