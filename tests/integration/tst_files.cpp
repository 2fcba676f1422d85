// The file browser core against a REAL multi-user open-terminal (the pinned
// OPEN_TERMINAL_VERSION, plus OPEN_TERMINAL_LEGACY_VERSION where the versions differ): the
// lazy tree, file operations with read-only mode and audit log, the chat index and admin
// overview, and the `chats` / `files` CLI verbs of the built binary. Expected values are
// computed independently on the server (stat, sha256sum, known sizes and touch -d times).

#include "files/adminoverviewmodel.h"
#include "files/chatindexmodel.h"
#include "files/chatscan.h"
#include "files/fileoperations.h"
#include "files/remotefilemodel.h"
#include "filesfixture.h"
#include "modelwalk.h"
#include "realserver.h"
#include "server/openterminalclient.h"
#include "testing.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

namespace {

const qint64 knownTimeA = 1614834367; // 2021-03-04 05:06:07 UTC
const qint64 knownTimeB = 1656000000; // 2022-06-23

struct CliOutcome {
    int exitCode = -1;
    QByteArray out;
    QString err;
};

bool isLoaded(const QModelIndex &index)
{
    return index.isValid()
        && index.data(RemoteFileModel::LoadStateRole).toInt()
        == int(RemoteFileModel::LoadState::Loaded);
}

} // namespace

class FilesIntegration : public QObject, protected FilesFixture {
    Q_OBJECT

private:
    // The value after `marker` in the output of `command`.
    QString shellValue(const Identity &who, const QString &command, const QString &marker,
        OpenTerminalClient *client = nullptr)
    {
        for (const QString &line : shell(who, command, client)) {
            const qsizetype at = line.indexOf(marker);
            if (at >= 0)
                return line.mid(at + marker.size()).trimmed();
        }
        return QString();
    }
    FileOperationResult perform(const std::function<void(QObject *, FileOperations::Done)> &start)
    {
        QObject context;
        bool done = false;
        FileOperationResult result;
        start(&context, [&](const FileOperationResult &outcome) {
            result = outcome;
            done = true;
        });
        if (!QTest::qWaitFor([&] { return done; }, 60000))
            result.status = FileOperationResult::Status::Failed;
        return result;
    }
    CliOutcome cli(const QStringList &arguments, const RealServer &server, const QString &user)
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SANDSCOPE_API_KEY"), server.apiKey());
        env.insert(QStringLiteral("SANDSCOPE_AUDIT_LOG"), m_auditPath);
        env.remove(QStringLiteral("DISPLAY"));
        process.setProcessEnvironment(env);
        QStringList all = arguments;
        all << QStringLiteral("--server") << server.url().toString();
        if (!user.isEmpty())
            all << QStringLiteral("--user") << user;
        process.start(QStringLiteral(SANDSCOPE_BINARY), all);
        CliOutcome outcome;
        if (!process.waitForFinished(120000)) {
            process.kill();
            process.waitForFinished();
            outcome.err = QStringLiteral("did not finish");
            return outcome;
        }
        outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
        outcome.out = process.readAllStandardOutput();
        outcome.err = QString::fromUtf8(process.readAllStandardError());
        return outcome;
    }
    // A local file with these bytes, in the test's temporary folder; empty if it cannot be
    // written.
    QString writeLocal(const QString &name, const QByteArray &bytes)
    {
        QFile file(m_local.filePath(name));
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
            return QString();
        return file.fileName();
    }
    [[nodiscard]] bool waitLoaded(const QModelIndex &index)
    {
        return QTest::qWaitFor([&] { return isLoaded(index); }, 30000);
    }
    RealServer *legacyServer()
    {
        if (!m_legacy) {
            m_legacy = std::make_unique<RealServer>(
                RealServer::pinnedVersion("OPEN_TERMINAL_LEGACY_VERSION"),
                RealServer::Mode::MultiUser);
            QString error;
            if (!m_legacy->start(&error)) {
                qWarning() << "legacy server did not start:" << error;
                m_legacy.reset();
                return nullptr;
            }
            m_legacyClient = std::make_unique<OpenTerminalClient>(m_legacy->connection());
        }
        return m_legacy.get();
    }

    std::unique_ptr<RealServer> m_legacy;
    std::unique_ptr<OpenTerminalClient> m_legacyClient;

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<ApiError>();
        qRegisterMetaType<FileOperationResult>();
        SANDSCOPE_START_FILES_SERVER();
        QVERIFY(m_aliceHome != m_bobHome);
    }

    void cleanupTestCase()
    {
        m_legacyClient.reset();
        m_legacy.reset();
        stopFilesServer();
    }

    // ---------------------------------------------------------------------------------
    // The tree

    void treeIsRootedAtHomeAndListsFoldersOnlyWhenExpanded()
    {
        const QString tree = freshFolder(QStringLiteral("tree-lazy"));
        shell(
            m_alice, QStringLiteral("mkdir -p %1/a/deep %1/b && printf x > %1/file.txt").arg(tree));

        RemoteFileModel model(m_client.get());
        model.setIdentity(m_alice);
        QSignalSpy resolved(&model, &RemoteFileModel::homeResolved);
        QSignalSpy loaded(&model, &RemoteFileModel::folderLoaded);
        model.openHome();
        QTRY_COMPARE_WITH_TIMEOUT(resolved.count(), 1, 30000);
        QCOMPARE(model.homePath(), m_aliceHome);
        const QModelIndex home = model.index(0, 0);
        QCOMPARE(model.pathOf(home), m_aliceHome);
        QVERIFY(waitLoaded(home));
        QCOMPARE(loaded.count(), 1);

        const QModelIndex folder = childNamed(model, home, QStringLiteral("tree-lazy"));
        QVERIFY(folder.isValid());
        QVERIFY(folder.data(RemoteFileModel::IsDirectoryRole).toBool());
        QCOMPARE(model.loadState(folder), RemoteFileModel::LoadState::NotLoaded);
        QVERIFY(model.hasChildren(folder));
        QCOMPARE(model.rowCount(folder), 0);
        QTest::qWait(300); // nothing is fetched behind the view's back
        QCOMPARE(loaded.count(), 1);
        QVERIFY(model.canFetchMore(folder));

        model.fetchMore(folder); // what a view does on expand
        QCOMPARE(model.loadState(folder), RemoteFileModel::LoadState::Loading);
        QVERIFY(!model.canFetchMore(folder));
        QVERIFY(waitLoaded(folder));
        QCOMPARE(loaded.count(), 2);
        QCOMPARE(loaded.last().at(0).toString(), tree);
        QCOMPARE(childNames(model, folder),
            (QStringList {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("file.txt")}));
        const QModelIndex file = childNamed(model, folder, QStringLiteral("file.txt"));
        QCOMPARE(file.data(RemoteFileModel::SizeRole).toLongLong(), 1);
        QCOMPARE(file.data(RemoteFileModel::MimeTypeRole).toString(), QStringLiteral("text/plain"));
        QCOMPARE(model.loadState(childNamed(model, folder, QStringLiteral("a"))),
            RemoteFileModel::LoadState::NotLoaded);
    }

    void refreshOfOneFolderKeepsTheOtherExpandedFolders()
    {
        const QString tree = freshFolder(QStringLiteral("tree-refresh"));
        shell(m_alice,
            QStringLiteral("mkdir -p %1/a/deep %1/b && printf x > %1/a/deep/d.txt && "
                           "printf 1 > %1/b/one.txt && printf x > %1/top.txt")
                .arg(tree));
        RemoteFileModel model(m_client.get());
        model.setIdentity(m_alice);
        // The tester walks (and so fetches) every folder, and checks every signal.
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QModelIndex root = model.addLocation(tree);
        model.fetchMore(root);
        QVERIFY(waitLoaded(root));
        const QModelIndex a = childNamed(model, root, QStringLiteral("a"));
        const QModelIndex b = childNamed(model, root, QStringLiteral("b"));
        QVERIFY(waitLoaded(a));
        QVERIFY(waitLoaded(b));
        const QPersistentModelIndex deep = childNamed(model, a, QStringLiteral("deep"));
        QVERIFY(waitLoaded(deep));
        const QPersistentModelIndex deepFile = childNamed(model, deep, QStringLiteral("d.txt"));
        QVERIFY(deepFile.isValid());

        // Changes in b and in a; only b is refreshed.
        shell(m_alice,
            QStringLiteral(
                "printf 22 > %1/b/one.txt && printf n > %1/b/new.txt && printf n > %1/a/unseen.txt")
                .arg(tree));
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy loaded(&model, &RemoteFileModel::folderLoaded);
        model.refresh(b);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(removed.count(), 0);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.first().at(0).value<QModelIndex>(), b);
        QVERIFY(!changed.isEmpty()); // one.txt grew
        QCOMPARE(childNamed(model, b, QStringLiteral("one.txt"))
                     .data(RemoteFileModel::SizeRole)
                     .toLongLong(),
            2);
        QCOMPARE(childNames(model, b),
            (QStringList {QStringLiteral("new.txt"), QStringLiteral("one.txt")}));
        QVERIFY(!childNamed(model, a, QStringLiteral("unseen.txt")).isValid());
        QVERIFY(deepFile.isValid());

        // A removal in the parent: the expanded sub-folders and their rows stay.
        shell(m_alice, QStringLiteral("rm %1/top.txt").arg(tree));
        model.refreshPath(tree);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 30000);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(removed.count(), 1);
        QVERIFY(!childNamed(model, root, QStringLiteral("top.txt")).isValid());
        QVERIFY(deepFile.isValid());
        QCOMPARE(deepFile.data(RemoteFileModel::PathRole).toString(),
            tree + QStringLiteral("/a/deep/d.txt"));
        QVERIFY(isLoaded(deep));
    }

    void folderOfAnotherUserFailsNamingWhoseFilesTheyAre()
    {
        RemoteFileModel model(m_client.get());
        model.setIdentity(m_alice);
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy failed(&model, &RemoteFileModel::folderFailed);
        const QModelIndex other = model.addLocation(m_bobHome);
        model.fetchMore(other);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
        QCOMPARE(failed.first().at(1).value<ApiError>().kind, ApiError::Kind::Forbidden);
        QCOMPARE(model.loadState(other), RemoteFileModel::LoadState::Failed);
        QCOMPARE(other.data(RemoteFileModel::LoadStateRole).toInt(),
            int(RemoteFileModel::LoadState::Failed));
        const QString bobAccount = m_bobHome.section(QLatin1Char('/'), 2, 2);
        const QString error = other.data(RemoteFileModel::ErrorRole).toString();
        QVERIFY2(error.contains(QStringLiteral("files of ") + bobAccount), qPrintable(error));
        QCOMPARE(model.rowCount(other), 0);
        QVERIFY(!model.canFetchMore(other)); // no retry loop; refresh() asks again
    }

    void twentyThousandEntryFolderArrivesInOneInsertion()
    {
        const QString big = freshFolder(QStringLiteral("big"));
        shell(m_alice, QStringLiteral("cd %1 && seq -f 'f%05g' 1 20000 | xargs touch").arg(big));
        RemoteFileModel model(m_client.get());
        model.setIdentity(m_alice);
        const QModelIndex root = model.addLocation(big);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.fetchMore(root);
        QVERIFY(QTest::qWaitFor([&] { return isLoaded(root); }, 60000));
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.first().at(1).toInt(), 0);
        QCOMPARE(inserted.first().at(2).toInt(), 19999);
        QCOMPARE(model.rowCount(root), 20000);
        shell(m_alice, QStringLiteral("rm -rf %1").arg(big));
    }

    // ---------------------------------------------------------------------------------
    // Operations

    void uploadAndDownloadAreByteExact_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("all 256 byte values") << allByteValues();
        QTest::newRow("random 1 MB") << randomBytes(1024 * 1024);
    }

    void uploadAndDownloadAreByteExact()
    {
        QFETCH(QByteArray, bytes);
        const QString folder = freshFolder(QStringLiteral("binary"));
        FileOperations operations(m_client.get());
        operations.setIdentity(m_alice, FileOperations::Acting::AsSelf);
        const FileOperationResult uploaded = perform([&](QObject *context, auto done) {
            operations.uploadData(folder, QStringLiteral("data.bin"), bytes, context, done);
        });
        QVERIFY2(uploaded.ok(), qPrintable(uploaded.message()));
        // Checked on the server, independently of our download.
        const QString remoteHash = shellValue(m_alice,
            QStringLiteral("sha256sum %1/data.bin | sed 's/^/H=/'").arg(folder),
            QStringLiteral("H="));
        QCOMPARE(remoteHash.left(64), sha256(bytes));

        const FileOperationResult downloaded = perform([&](QObject *context, auto done) {
            operations.downloadFile(folder + QStringLiteral("/data.bin"), context, done);
        });
        QVERIFY2(downloaded.ok(), qPrintable(downloaded.message()));
        QCOMPARE(downloaded.bytes.size(), bytes.size());
        QVERIFY(downloaded.bytes == bytes);

        const FileOperationResult zip = perform([&](QObject *context, auto done) {
            operations.downloadFolderAsZip(folder, context, done);
        });
        QVERIFY2(zip.ok(), qPrintable(zip.message()));
        QVERIFY(zip.bytes.startsWith("PK\x03\x04"));
        QVERIFY(zip.bytes.contains("data.bin"));
    }

    void severalLocalFilesAreUploadedWithTheirNames()
    {
        const QString folder = freshFolder(QStringLiteral("multi"));
        QStringList locals;
        for (const QString &name : {QStringLiteral("one.bin"), QStringLiteral("two words.txt")}) {
            locals << writeLocal(name, name.toUtf8() + allByteValues());
            QVERIFY(!locals.last().isEmpty());
        }
        FileOperations operations(m_client.get());
        operations.setIdentity(m_alice, FileOperations::Acting::AsSelf);
        QSignalSpy finished(&operations, &FileOperations::finished);
        const FileOperationResult result = perform([&](QObject *context, auto done) {
            operations.uploadFiles(locals, folder, context, done);
        });
        QVERIFY2(result.ok(), qPrintable(result.message()));
        QCOMPARE(finished.count(), 2); // one announcement (and audit line) per file
        const QStringList sizes
            = shell(m_alice, QStringLiteral("cd %1 && stat -c '%n=%s' *").arg(folder));
        QVERIFY2(sizes.contains(QStringLiteral("one.bin=%1").arg(7 + 256)),
            qPrintable(sizes.join(u',')));
        QVERIFY2(sizes.contains(QStringLiteral("two words.txt=%1").arg(13 + 256)),
            qPrintable(sizes.join(u',')));
    }

    void moveOntoAnExistingPathIsAConflictUntilReplacingIsConfirmed()
    {
        const QString folder = freshFolder(QStringLiteral("moves"));
        shell(m_alice, QStringLiteral("printf A > %1/a.txt && printf B > %1/b.txt").arg(folder));
        const QString a = folder + QStringLiteral("/a.txt");
        const QString b = folder + QStringLiteral("/b.txt");
        FileOperations operations(m_client.get());
        operations.setIdentity(m_alice, FileOperations::Acting::AsSelf);

        const FileOperationResult conflict = perform([&](QObject *context, auto done) {
            operations.move(a, b, FileOperations::OnConflict::Report, context, done);
        });
        QCOMPARE(conflict.status, FileOperationResult::Status::Conflict);
        QCOMPARE(conflict.error.httpStatus, 409);
        QVERIFY2(conflict.message().contains(b), qPrintable(conflict.message()));
        QCOMPARE(shell(m_alice, QStringLiteral("cat %1; echo; cat %2").arg(a, b)),
            (QStringList {QStringLiteral("A"), QStringLiteral("B")}));

        const FileOperationResult replaced = perform([&](QObject *context, auto done) {
            operations.move(a, b, FileOperations::OnConflict::Replace, context, done);
        });
        QVERIFY2(replaced.ok(), qPrintable(replaced.message()));
        QCOMPARE(shell(m_alice, QStringLiteral("ls %1; cat %2").arg(folder, b)),
            (QStringList {QStringLiteral("b.txt"), QStringLiteral("A")}));

        const FileOperationResult renamed = perform([&](QObject *context, auto done) {
            operations.move(b, folder + QStringLiteral("/c.txt"),
                FileOperations::OnConflict::Report, context, done);
        });
        QVERIFY2(renamed.ok(), qPrintable(renamed.message()));
        QCOMPARE(shell(m_alice, QStringLiteral("ls %1").arg(folder)),
            QStringList {QStringLiteral("c.txt")});
    }

    void newFolderWriteAndDeleteChangeTheServer()
    {
        const QString folder = freshFolder(QStringLiteral("changes"));
        FileOperations operations(m_client.get());
        operations.setIdentity(m_alice, FileOperations::Acting::AsSelf);
        const QString nested = folder + QStringLiteral("/x/y");
        QVERIFY(perform([&](QObject *c, auto done) {
            operations.makeDirectory(nested, c, done);
        }).ok());
        const QString text = QStringLiteral("héllo\nwörld\n");
        QVERIFY(perform([&](QObject *c, auto done) {
            operations.writeText(nested + QStringLiteral("/t.txt"), text, c, done);
        }).ok());
        const auto read = await<RawFile>([&](auto done) {
            return m_client->viewFile(
                m_alice, nested + QStringLiteral("/t.txt"), m_client.get(), done);
        });
        QVERIFY(read.ok());
        QCOMPARE(QString::fromUtf8(read.value.bytes), text);
        QVERIFY(perform([&](QObject *c, auto done) {
            operations.remove(folder + QStringLiteral("/x"), c, done);
        }).ok());
        QCOMPARE(shell(m_alice, QStringLiteral("ls -A %1 | wc -l").arg(folder)),
            QStringList {QStringLiteral("0")});
        const FileOperationResult missing = perform([&](QObject *c, auto done) {
            operations.remove(folder + QStringLiteral("/x"), c, done);
        });
        QCOMPARE(missing.status, FileOperationResult::Status::Failed);
        QCOMPARE(missing.error.kind, ApiError::Kind::NotFound);
    }

    void readOnlyModeBlocksEveryChangeBeforeItReachesTheServer()
    {
        const QString folder = freshFolder(QStringLiteral("guarded"));
        shell(m_alice, QStringLiteral("printf keep > %1/keep.txt && mkdir %1/sub").arg(folder));
        const QStringList before = snapshot(folder);
        QVERIFY(before.size() >= 3);
        QFile local(m_local.filePath(QStringLiteral("local.bin")));
        QVERIFY(local.open(QIODevice::WriteOnly));
        local.write("local");
        local.close();

        FileOperations operations(m_client.get());
        QSignalSpy readOnlyChanged(&operations, &FileOperations::readOnlyChanged);
        operations.setIdentity(m_alice, FileOperations::Acting::AsOtherUser);
        QVERIFY(operations.isReadOnly()); // acting as another user starts read-only
        QCOMPARE(readOnlyChanged.count(), 1);
        const qsizetype auditBefore = auditLines().size();

        using Start = std::function<void(QObject *, FileOperations::Done)>;
        const QVector<QPair<QString, Start>> attempts {
            {QStringLiteral("upload"),
                [&](QObject *c, auto done) {
                    operations.uploadFiles({local.fileName()}, folder, c, done);
                }},
            {QStringLiteral("upload"),
                [&](QObject *c, auto done) {
                    operations.uploadData(folder, QStringLiteral("n.bin"), "x", c, done);
                }},
            {QStringLiteral("mkdir"),
                [&](QObject *c, auto done) {
                    operations.makeDirectory(folder + QStringLiteral("/new"), c, done);
                }},
            {QStringLiteral("move"),
                [&](QObject *c, auto done) {
                    operations.move(folder + QStringLiteral("/keep.txt"),
                        folder + QStringLiteral("/moved.txt"), FileOperations::OnConflict::Replace,
                        c, done);
                }},
            {QStringLiteral("delete"),
                [&](QObject *c, auto done) {
                    operations.remove(folder + QStringLiteral("/sub"), c, done);
                }},
            {QStringLiteral("write"),
                [&](QObject *c, auto done) {
                    operations.writeText(
                        folder + QStringLiteral("/keep.txt"), QStringLiteral("gone"), c, done);
                }},
        };
        for (const auto &attempt : attempts) {
            const FileOperationResult result = perform(attempt.second);
            QCOMPARE(result.status, FileOperationResult::Status::ReadOnly);
            QCOMPARE(result.action, attempt.first);
        }
        QCOMPARE(snapshot(folder), before);

        // Every refused attempt is on record.
        const QList<QJsonObject> lines = auditLines().mid(auditBefore);
        QCOMPARE(lines.size(), attempts.size());
        for (int i = 0; i < lines.size(); ++i) {
            QCOMPARE(lines.at(i).value(QStringLiteral("action")).toString(), attempts.at(i).first);
            QCOMPARE(lines.at(i).value(QStringLiteral("result")).toString(),
                QStringLiteral("refused: read-only mode"));
            QCOMPARE(lines.at(i).value(QStringLiteral("user")).toString(), m_alice.userId);
        }

        // Reading stays possible; lifting read-only mode makes changes possible again.
        const FileOperationResult read = perform([&](QObject *c, auto done) {
            operations.downloadFile(folder + QStringLiteral("/keep.txt"), c, done);
        });
        QCOMPARE(read.bytes, QByteArray("keep"));
        operations.setReadOnly(false);
        QVERIFY(perform([&](QObject *c, auto done) {
            operations.makeDirectory(folder + QStringLiteral("/new"), c, done);
        }).ok());
        QCOMPARE(snapshot(folder).size(), before.size() + 1);
    }

    void everyChangeIsAuditedWithItsResult()
    {
        const QString folder = freshFolder(QStringLiteral("audited"));
        shell(m_alice, QStringLiteral("printf A > %1/a && printf B > %1/b").arg(folder));
        FileOperations operations(m_client.get());
        operations.setIdentity(m_alice, FileOperations::Acting::AsSelf);
        operations.setAuditContext(QStringLiteral("test-profile"), m_server->url().toString());
        const qsizetype auditBefore = auditLines().size();
        perform([&](QObject *c, auto done) {
            operations.makeDirectory(folder + QStringLiteral("/d"), c, done);
        });
        perform([&](QObject *c, auto done) {
            operations.move(folder + QStringLiteral("/a"), folder + QStringLiteral("/b"),
                FileOperations::OnConflict::Report, c, done);
        });
        perform([&](QObject *c, auto done) {
            operations.remove(folder + QStringLiteral("/b"), c, done);
        });

        const QList<QJsonObject> lines = auditLines().mid(auditBefore);
        QCOMPARE(lines.size(), 3);
        const QJsonObject &mkdir = lines.at(0);
        QCOMPARE(mkdir.value(QStringLiteral("action")).toString(), QStringLiteral("mkdir"));
        QCOMPARE(mkdir.value(QStringLiteral("target")).toString(), folder + QStringLiteral("/d"));
        QCOMPARE(mkdir.value(QStringLiteral("result")).toString(), QStringLiteral("ok"));
        QCOMPARE(mkdir.value(QStringLiteral("profile")).toString(), QStringLiteral("test-profile"));
        QCOMPARE(mkdir.value(QStringLiteral("user")).toString(), m_alice.userId);
        QVERIFY(
            QDateTime::fromString(mkdir.value(QStringLiteral("time")).toString(), Qt::ISODateWithMs)
                .isValid());
        QVERIFY(lines.at(1)
                    .value(QStringLiteral("result"))
                    .toString()
                    .startsWith(QLatin1String("conflict")));
        QCOMPARE(lines.at(2).value(QStringLiteral("action")).toString(), QStringLiteral("delete"));
        for (const QJsonObject &line : lines)
            QVERIFY(!QJsonDocument(line).toJson().contains(m_server->apiKey().toUtf8()));
    }

    // ---------------------------------------------------------------------------------
    // Chats

    void chatIndexListsChatsWithSizeAndLastActivity()
    {
        // Two chats of known content and age, and a folder that is not a chat.
        const QString marker = QStringLiteral("S=");
        const QString make = QStringLiteral(
            "cd ~ && rm -rf chat-* notachat && mkdir -p chat-one/sub chat-two notachat && "
            "head -c 3000 /dev/zero > chat-one/sub/a && head -c 20000 /dev/zero > chat-two/b && "
            "find chat-one -exec touch -d @%1 {} + && find chat-two -exec touch -d @%2 {} + && "
            "echo S=$(find chat-one chat-two -type d | wc -l)")
                                 .arg(knownTimeA)
                                 .arg(knownTimeB);
        QCOMPARE(shellValue(m_alice, make, marker), QStringLiteral("3")); // three folders

        ChatIndexModel model(m_client.get());
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setIdentity(m_alice);
        QSignalSpy loaded(&model, &ChatIndexModel::loaded);
        model.reload();
        QCOMPARE(model.state(), ScanState::Loading);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QCOMPARE(model.rowCount(), 2);
        QHash<QString, ChatFolder> byId;
        for (const ChatFolder &chat : model.chats())
            byId.insert(chat.id, chat);
        // A chat's size is its content's: the folder entries (4 KiB each here) do not count.
        QCOMPARE(byId.value(QStringLiteral("one")).size, qint64(3000));
        QCOMPARE(byId.value(QStringLiteral("two")).size, qint64(20000));
        QCOMPARE(byId.value(QStringLiteral("one")).lastActivity.toSecsSinceEpoch(), knownTimeA);
        QCOMPARE(byId.value(QStringLiteral("two")).lastActivity.toSecsSinceEpoch(), knownTimeB);
        QCOMPARE(byId.value(QStringLiteral("one")).path, m_aliceHome + QStringLiteral("/chat-one"));

        QSortFilterProxyModel sorted;
        sorted.setSourceModel(&model);
        sorted.setSortRole(ChatIndexModel::SortRole);
        sorted.sort(ChatIndexModel::LastActivityColumn, Qt::DescendingOrder);
        QCOMPARE(
            sorted.index(0, ChatIndexModel::ChatColumn).data().toString(), QStringLiteral("two"));
        sorted.sort(ChatIndexModel::SizeColumn, Qt::AscendingOrder);
        QCOMPARE(
            sorted.index(0, ChatIndexModel::ChatColumn).data().toString(), QStringLiteral("one"));

        // What people read: the size as a data size, the time in the local short format, the
        // path as the tooltip.
        const QModelIndex two = sorted.index(1, ChatIndexModel::ChatColumn);
        QCOMPARE(two.data().toString(), QStringLiteral("two"));
        QCOMPARE(two.siblingAtColumn(ChatIndexModel::SizeColumn).data().toString(),
            QLocale().formattedDataSize(byId.value(QStringLiteral("two")).size));
        QCOMPARE(two.siblingAtColumn(ChatIndexModel::LastActivityColumn).data().toString(),
            QLocale().toString(
                QDateTime::fromSecsSinceEpoch(knownTimeB).toLocalTime(), QLocale::ShortFormat));
        QCOMPARE(two.data(Qt::ToolTipRole).toString(), m_aliceHome + QStringLiteral("/chat-two"));
        QCOMPARE(model.headerData(ChatIndexModel::LastActivityColumn, Qt::Horizontal).toString(),
            QStringLiteral("Last activity"));
    }

    void adminOverviewIsRefusedClearlyByANewMultiUserServer()
    {
        AdminOverviewModel model(m_client.get());
        QSignalSpy refused(&model, &AdminOverviewModel::refused);
        model.reload();
        QTRY_COMPARE_WITH_TIMEOUT(refused.count(), 1, 30000);
        QCOMPARE(model.state(), ScanState::Refused);
        QVERIFY2(model.errorText().contains(QLatin1String("only allows per-user access")),
            qPrintable(model.errorText()));
        QCOMPARE(model.rowCount(), 0);
    }

    void adminOverviewListsEveryUserOnTheLegacyServer()
    {
        RealServer *legacy = legacyServer();
        QVERIFY(legacy);
        OpenTerminalClient *client = m_legacyClient.get();
        const QString suffix = test::randomToken(4, true);
        struct Expected {
            Identity who;
            QString account;
            qint64 size = 0;
            int chats = 0;
            qint64 time = 0;
        };
        // carol: two chats; dave: one; erin: none (a home without chats is still a user).
        QVector<Expected> users {{{QStringLiteral("carol") + suffix, {}}, {}, 0, 2, knownTimeB},
            {{QStringLiteral("dave") + suffix, {}}, {}, 0, 1, knownTimeA},
            {{QStringLiteral("erin") + suffix, {}}, {}, 0, 0, 0}};
        for (Expected &user : users) {
            QString script = QStringLiteral("cd ~ && T=0");
            for (int i = 0; i < user.chats; ++i) {
                script += QStringLiteral(" && mkdir chat-%1 && head -c %2 /dev/zero > chat-%1/f && "
                                         "find chat-%1 -exec touch -d @%3 {} + && T=$((T + %2))")
                              .arg(i)
                              .arg(1000 * (i + 1))
                              .arg(i == 0 ? knownTimeA : knownTimeB);
            }
            script += QStringLiteral(" && echo \"S=$T $(id -un)\"");
            const QStringList value = shellValue(user.who, script, QStringLiteral("S="), client)
                                          .split(QLatin1Char(' '));
            QCOMPARE(value.size(), 2);
            user.size = value.at(0).toLongLong();
            user.account = value.at(1);
        }

        AdminOverviewModel model(client);
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy loaded(&model, &AdminOverviewModel::loaded);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.reload();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 120000);
        QCOMPARE(model.state(), ScanState::Loaded);
        QVERIFY(!inserted.isEmpty());
        for (const Expected &user : users) {
            const int row = model.rowOfAccount(user.account);
            QVERIFY2(row >= 0, qPrintable(user.account));
            const AccountChats &account = model.accounts().at(row);
            QCOMPARE(account.home, QStringLiteral("/home/") + user.account);
            QCOMPARE(int(account.chats.size()), user.chats);
            QCOMPARE(account.totalSize, user.size);
            if (user.chats > 0)
                QCOMPARE(account.lastActivity.toSecsSinceEpoch(), user.time);
            else
                QVERIFY(!account.lastActivity.isValid());
            QCOMPARE(
                model.index(row, AdminOverviewModel::ChatCountColumn).data().toInt(), user.chats);
        }

        // Sortable by total size through a proxy on the raw values.
        QSortFilterProxyModel sorted;
        sorted.setSourceModel(&model);
        sorted.setSortRole(AdminOverviewModel::SortRole);
        sorted.sort(AdminOverviewModel::SizeColumn, Qt::DescendingOrder);
        qint64 previous = std::numeric_limits<qint64>::max();
        for (int row = 0; row < sorted.rowCount(); ++row) {
            const qint64 size = sorted.index(row, AdminOverviewModel::SizeColumn)
                                    .data(AdminOverviewModel::SortRole)
                                    .toLongLong();
            QVERIFY(size <= previous);
            previous = size;
        }
    }

    // 1,000 homes with 50 chat folders each, measured by one command as the server account
    // (the legacy server allows that): rows arrive in slices while the scan runs, no slice
    // parses more than ChatScan::maxRecordsPerSlice records, and the event loop keeps turning.
    void adminOverviewStreamsFiftyThousandChatsInBoundedSlices()
    {
        RealServer *legacy = legacyServer();
        QVERIFY(legacy);
        OpenTerminalClient *client = m_legacyClient.get();
        // Made here so that it is removed however the test ends; the server (root, like us)
        // fills it.
        QTemporaryDir homesDir;
        QVERIFY(homesDir.isValid());
        const QString homes = homesDir.path();
        QCOMPARE(
            shell(Identity(),
                QStringLiteral("cd ") + homes
                    + QStringLiteral(" && awk 'BEGIN { for (u = 1; u <= 1000; u++) for (c = 1; "
                                     "c <= 50; c++) printf \"u%04d/chat-%02d\\n\", u, c }' "
                                     "| xargs mkdir -p && find . -mindepth 2 | wc -l"),
                client),
            QStringList {QStringLiteral("50000")});

        AdminOverviewModel model(client);
        model.setHomesRoot(homes);
        QSignalSpy loaded(&model, &AdminOverviewModel::loaded);
        QSignalSpy failed(&model, &AdminOverviewModel::failed);
        const auto countChats = [&model] {
            int chats = 0;
            for (const AccountChats &account : model.accounts())
                chats += int(account.chats.size());
            return chats;
        };
        // Each slice ends in at most one insertion and one dataChanged: the chats that came
        // since the previous signal are those of one slice.
        int updates = 0;
        int chatsAtFirstUpdate = -1;
        int chatsSeen = 0;
        int largestSlice = 0;
        const auto observe = [&] {
            const int chats = countChats();
            if (++updates == 1)
                chatsAtFirstUpdate = chats;
            largestSlice = std::max(largestSlice, chats - chatsSeen);
            chatsSeen = chats;
        };
        connect(&model, &QAbstractItemModel::rowsInserted, this, observe);
        connect(&model, &QAbstractItemModel::dataChanged, this, observe);
        // The longest pause of the event loop while the scan runs.
        QElapsedTimer clock;
        qint64 lastTick = 0;
        qint64 longestPause = 0;
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, this, [&] {
            longestPause = std::max(longestPause, clock.elapsed() - lastTick);
            lastTick = clock.elapsed();
        });
        clock.start();
        ticker.start(10);
        model.reload();
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty() || !failed.isEmpty(), 300000);
        ticker.stop();
        QVERIFY2(failed.isEmpty(), qPrintable(model.errorText()));
        qInfo() << "scan took" << clock.elapsed() << "ms in" << updates
                << "model updates; largest slice" << largestSlice
                << "chats; longest event-loop pause" << longestPause << "ms";

        QCOMPARE(model.rowCount(), 1000);
        QCOMPARE(countChats(), 50000);
        QVERIFY2(chatsAtFirstUpdate < 50000, "the rows should arrive while the scan runs");
        QVERIFY2(largestSlice <= ChatScan::maxRecordsPerSlice,
            qPrintable(QStringLiteral("%1 chats in one slice").arg(largestSlice)));
        // The longest event-loop pause is a figure to report, not an assertion: it depends on the
        // build (sanitizers) and the machine; slices are also cut after
        // ChatScan::sliceMilliseconds.
    }

    void legacyServerBrowsesAndRoundTripsBytesToo()
    {
        RealServer *legacy = legacyServer();
        QVERIFY(legacy);
        OpenTerminalClient *client = m_legacyClient.get();
        Identity frank {QStringLiteral("frank") + test::randomToken(4, true), {}};
        const QString home = homeOf(frank, client);
        QVERIFY2(home.startsWith(QLatin1String("/home/")), qPrintable(home));
        RemoteFileModel model(client);
        model.setIdentity(frank);
        QSignalSpy resolved(&model, &RemoteFileModel::homeResolved);
        model.openHome();
        QTRY_COMPARE_WITH_TIMEOUT(resolved.count(), 1, 30000);
        QCOMPARE(model.homePath(), home); // 0.11.34 has no "home" field: the cwd it is
        QVERIFY(waitLoaded(model.index(0, 0)));

        const QByteArray bytes = allByteValues() + randomBytes(4096);
        FileOperations operations(client);
        operations.setIdentity(frank, FileOperations::Acting::AsSelf);
        QVERIFY(perform([&](QObject *c, auto done) {
            operations.uploadData(home, QStringLiteral("blob.bin"), bytes, c, done);
        }).ok());
        const FileOperationResult back = perform([&](QObject *c, auto done) {
            operations.downloadFile(home + QStringLiteral("/blob.bin"), c, done);
        });
        QVERIFY(back.bytes == bytes);
        model.refresh(model.index(0, 0));
        QTRY_VERIFY_WITH_TIMEOUT(
            childNamed(model, model.index(0, 0), QStringLiteral("blob.bin")).isValid(), 30000);
    }

    // ---------------------------------------------------------------------------------
    // Command line

    void cliChatsPrintsJson()
    {
        shell(m_alice,
            QStringLiteral(
                "cd ~ && rm -rf chat-* && mkdir chat-cli && head -c 777 /dev/zero > chat-cli/f"));
        const CliOutcome outcome
            = cli({QStringLiteral("chats"), QStringLiteral("--json")}, *m_server, m_alice.userId);
        QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
        const QJsonObject json = QJsonDocument::fromJson(outcome.out).object();
        QCOMPARE(json.value(QStringLiteral("user")).toString(), m_alice.userId);
        const QJsonArray chats = json.value(QStringLiteral("chats")).toArray();
        QCOMPARE(chats.size(), 1);
        const QJsonObject chat = chats.first().toObject();
        QCOMPARE(chat.value(QStringLiteral("id")).toString(), QStringLiteral("cli"));
        QVERIFY(chat.value(QStringLiteral("size")).toDouble() >= 777);
        QVERIFY(!chat.value(QStringLiteral("last_activity")).toString().isEmpty());

        // Without --user: the overview, which this server refuses, clearly.
        const CliOutcome all = cli({QStringLiteral("chats")}, *m_server, QString());
        QCOMPARE(all.exitCode, 3);
        QVERIFY2(all.err.contains(QLatin1String("per-user access")), qPrintable(all.err));
    }

    void cliPutGetAndCatAreByteExact()
    {
        const QString folder = freshFolder(QStringLiteral("cli"));
        const QByteArray bytes = allByteValues() + randomBytes(300 * 1024);
        const QString local = writeLocal(QStringLiteral("cli-up.bin"), bytes);
        QVERIFY(!local.isEmpty());
        const QString remote = folder + QStringLiteral("/up.bin");
        const qsizetype auditBefore = auditLines().size();

        const CliOutcome put = cli({QStringLiteral("files"), QStringLiteral("put"), local, remote},
            *m_server, m_alice.userId);
        QVERIFY2(put.exitCode == 0, qPrintable(put.err));
        const QString remoteHash = shellValue(m_alice,
            QStringLiteral("sha256sum %1 | sed 's/^/H=/'").arg(remote), QStringLiteral("H="));
        QCOMPARE(remoteHash.left(64), sha256(bytes));
        const QList<QJsonObject> audit = auditLines().mid(auditBefore);
        QCOMPARE(audit.size(), 1);
        QCOMPARE(
            audit.first().value(QStringLiteral("action")).toString(), QStringLiteral("upload"));
        QCOMPARE(audit.first().value(QStringLiteral("result")).toString(), QStringLiteral("ok"));

        const QString downloaded = m_local.filePath(QStringLiteral("cli-down.bin"));
        const CliOutcome get
            = cli({QStringLiteral("files"), QStringLiteral("get"), remote, downloaded}, *m_server,
                m_alice.userId);
        QVERIFY2(get.exitCode == 0, qPrintable(get.err));
        QFile back(downloaded);
        QVERIFY(back.open(QIODevice::ReadOnly));
        QVERIFY(back.readAll() == bytes);

        const CliOutcome cat = cli(
            {QStringLiteral("files"), QStringLiteral("cat"), remote}, *m_server, m_alice.userId);
        QVERIFY2(cat.exitCode == 0, qPrintable(cat.err));
        QVERIFY(cat.out == bytes);

        const CliOutcome missing = cli(
            {QStringLiteral("files"), QStringLiteral("cat"), folder + QStringLiteral("/nope")},
            *m_server, m_alice.userId);
        QCOMPARE(missing.exitCode, 3);
        QVERIFY2(missing.err.contains(QLatin1String("Not found")), qPrintable(missing.err));
        QVERIFY(!missing.err.contains(m_server->apiKey()));
    }

    // `files get` of a folder writes the ZIP archive of /files/archive, byte for byte; its
    // members (read back with Python's zipfile) are the folder's files with their exact bytes.
    void cliGetOfAFolderWritesItsZipArchive()
    {
        const QString folder = freshFolder(QStringLiteral("cli-zip"));
        const QByteArray binary = allByteValues() + randomBytes(200 * 1024);
        const QString local = writeLocal(QStringLiteral("zip-top.bin"), binary);
        QVERIFY(!local.isEmpty());
        const CliOutcome put = cli({QStringLiteral("files"), QStringLiteral("put"), local,
                                       folder + QStringLiteral("/top.bin")},
            *m_server, m_alice.userId);
        QVERIFY2(put.exitCode == 0, qPrintable(put.err));
        shell(m_alice,
            QStringLiteral("mkdir -p %1/sub && printf 'note\\n' > %1/sub/note.txt").arg(folder));

        const QString target = m_local.filePath(QStringLiteral("zips"));
        QVERIFY(QDir().mkpath(target));
        const CliOutcome get = cli({QStringLiteral("files"), QStringLiteral("get"), folder, target,
                                       QStringLiteral("--json")},
            *m_server, m_alice.userId);
        QVERIFY2(get.exitCode == 0, qPrintable(get.err));
        const QJsonObject report = QJsonDocument::fromJson(get.out).object();
        QCOMPARE(report.value(QStringLiteral("format")).toString(), QStringLiteral("zip"));
        const QString zipPath = report.value(QStringLiteral("local")).toString();
        QCOMPARE(zipPath, target + QStringLiteral("/cli-zip.zip"));
        QFile zipFile(zipPath);
        QVERIFY(zipFile.open(QIODevice::ReadOnly));
        const QByteArray zip = zipFile.readAll();
        QCOMPARE(qint64(zip.size()), qint64(report.value(QStringLiteral("size")).toDouble()));

        // The same archive as the client's own download of it (the server builds it from the
        // same files and times, so it is the same bytes).
        FileOperations operations(m_client.get());
        operations.setIdentity(m_alice, FileOperations::Acting::AsSelf);
        const FileOperationResult direct = perform([&](QObject *context, auto done) {
            operations.downloadFolderAsZip(folder, context, done);
        });
        QVERIFY2(direct.ok(), qPrintable(direct.message()));
        QVERIFY(direct.bytes == zip);

        QProcess python;
        python.start(QStringLiteral("python3"),
            {QStringLiteral("-c"),
                QStringLiteral(
                    "import hashlib, sys, zipfile\n"
                    "with zipfile.ZipFile(sys.argv[1]) as z:\n"
                    "    assert z.testzip() is None\n"
                    "    for i in sorted(z.infolist(), key=lambda i: i.filename):\n"
                    "        print(i.filename, hashlib.sha256(z.read(i)).hexdigest())\n"),
                zipPath});
        QVERIFY(python.waitForFinished(30000));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        const QStringList members = QString::fromUtf8(python.readAllStandardOutput())
                                        .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(members,
            (QStringList {QStringLiteral("cli-zip/sub/note.txt ") + sha256("note\n"),
                QStringLiteral("cli-zip/top.bin ") + sha256(binary)}));

        // To standard output, the same bytes.
        const CliOutcome piped
            = cli({QStringLiteral("files"), QStringLiteral("get"), folder, QStringLiteral("-")},
                *m_server, m_alice.userId);
        QVERIFY2(piped.exitCode == 0, qPrintable(piped.err));
        QVERIFY(piped.out == zip);

        // A path that is neither a file nor a folder is still a clear "not found".
        const CliOutcome missing = cli({QStringLiteral("files"), QStringLiteral("get"),
                                           folder + QStringLiteral("/nope"), target},
            *m_server, m_alice.userId);
        QCOMPARE(missing.exitCode, 3);
        QVERIFY2(missing.err.contains(QLatin1String("Not found")), qPrintable(missing.err));
    }

    void cliLsMkdirMvAndRm()
    {
        const QString folder = freshFolder(QStringLiteral("cli-ops"));
        shell(
            m_alice, QStringLiteral("printf 12345 > %1/a.txt && printf B > %1/b.txt").arg(folder));
        const QString user = m_alice.userId;
        const auto files = [](std::initializer_list<QString> args) {
            return QStringList {QStringLiteral("files")} + QStringList(args);
        };

        QCOMPARE(cli(files({QStringLiteral("mkdir"), folder + QStringLiteral("/new/deeper")}),
                     *m_server, user)
                     .exitCode,
            0);
        const CliOutcome ls
            = cli(files({QStringLiteral("ls"), QStringLiteral("--json"), folder}), *m_server, user);
        QVERIFY2(ls.exitCode == 0, qPrintable(ls.err));
        QHash<QString, QJsonObject> entries;
        for (const QJsonValue &entry :
            QJsonDocument::fromJson(ls.out).object().value(QStringLiteral("entries")).toArray())
            entries.insert(
                entry.toObject().value(QStringLiteral("name")).toString(), entry.toObject());
        QCOMPARE(entries.size(), 3);
        QCOMPARE(entries.value(QStringLiteral("a.txt")).value(QStringLiteral("size")).toInt(), 5);
        QCOMPARE(entries.value(QStringLiteral("new")).value(QStringLiteral("type")).toString(),
            QStringLiteral("directory"));
        const CliOutcome lsText = cli(files({QStringLiteral("ls"), folder}), *m_server, user);
        QVERIFY(lsText.out.contains("a.txt\n"));
        QVERIFY(lsText.out.contains("new/\n"));

        const CliOutcome conflict
            = cli(files({QStringLiteral("mv"), folder + QStringLiteral("/a.txt"),
                      folder + QStringLiteral("/b.txt")}),
                *m_server, user);
        QCOMPARE(conflict.exitCode, 3);
        QVERIFY2(conflict.err.contains(QLatin1String("already exists")), qPrintable(conflict.err));
        QCOMPARE(shell(m_alice, QStringLiteral("cat %1/b.txt").arg(folder)),
            QStringList {QStringLiteral("B")});

        QCOMPARE(cli(files({QStringLiteral("mv"), folder + QStringLiteral("/a.txt"),
                         folder + QStringLiteral("/new/a.txt")}),
                     *m_server, user)
                     .exitCode,
            0);
        QCOMPARE(
            cli(files({QStringLiteral("rm"), folder + QStringLiteral("/b.txt")}), *m_server, user)
                .exitCode,
            0);
        QCOMPARE(shell(m_alice, QStringLiteral("cd %1 && find . | sort").arg(folder)),
            (QStringList {QStringLiteral("."), QStringLiteral("./new"),
                QStringLiteral("./new/a.txt"), QStringLiteral("./new/deeper")}));

        const CliOutcome usage = cli(files({QStringLiteral("mv"), folder}), *m_server, user);
        QCOMPARE(usage.exitCode, 2);
        const CliOutcome unknown = cli(files({QStringLiteral("chmod"), folder}), *m_server, user);
        QCOMPARE(unknown.exitCode, 2);
    }

    void cliChatOptionResolvesRelativePathsInTheChatFolder()
    {
        const QString chatId = QStringLiteral("c") + test::randomToken(6);
        const QString chatFolder = m_aliceHome + QStringLiteral("/chat-") + chatId;
        const QString local = writeLocal(QStringLiteral("for-chat.bin"), allByteValues());
        QVERIFY(!local.isEmpty());
        const QString user = m_alice.userId;
        const QStringList chat {QStringLiteral("--chat"), chatId};

        const CliOutcome put
            = cli(QStringList {QStringLiteral("files"), QStringLiteral("put")} + chat
                    << local << QStringLiteral("in/data.bin"),
                *m_server, user);
        QVERIFY2(put.exitCode == 0, qPrintable(put.err));
        QCOMPARE(
            shellValue(m_alice, QStringLiteral("stat -c 'S=%s' ~/chat-%1/in/data.bin").arg(chatId),
                QStringLiteral("S=")),
            QStringLiteral("256"));
        const CliOutcome ls = cli(
            QStringList {QStringLiteral("files"), QStringLiteral("ls"), QStringLiteral("--json")}
                + chat,
            *m_server, user);
        QVERIFY2(ls.exitCode == 0, qPrintable(ls.err));
        QCOMPARE(QDir::cleanPath(QJsonDocument::fromJson(ls.out)
                                     .object()
                                     .value(QStringLiteral("directory"))
                                     .toString()),
            chatFolder);
        QVERIFY(cli(QStringList {QStringLiteral("files"), QStringLiteral("mv")} + chat
                        << QStringLiteral("in/data.bin") << QStringLiteral("data.bin"),
                    *m_server, user)
                    .exitCode
            == 0);
        const CliOutcome cat
            = cli(QStringList {QStringLiteral("files"), QStringLiteral("cat")} + chat
                    << QStringLiteral("data.bin"),
                *m_server, user);
        QVERIFY(cat.out == allByteValues());
        QCOMPARE(cli(QStringList {QStringLiteral("files"), QStringLiteral("rm")} + chat
                         << QStringLiteral("in"),
                     *m_server, user)
                     .exitCode,
            0);
        // Absolute paths are left alone.
        const CliOutcome absolute
            = cli(QStringList {QStringLiteral("files"), QStringLiteral("ls")} + chat << m_aliceHome,
                *m_server, user);
        QVERIFY(absolute.out.contains(QByteArray(QByteArray("chat-") + chatId.toUtf8() + "/\n")));
        QCOMPARE(shell(m_alice, QStringLiteral("ls -A ~/chat-%1").arg(chatId)),
            QStringList {QStringLiteral("data.bin")});

        const CliOutcome badChat = cli({QStringLiteral("files"), QStringLiteral("ls"),
                                           QStringLiteral("--chat"), QStringLiteral("../x")},
            *m_server, user);
        QCOMPARE(badChat.exitCode, 2);
    }

    // ---------------------------------------------------------------------------------
    // Sandscope never carries a file across users (issues 26 and 27)

    void cliReadingAChatNeverCreatesIt_data()
    {
        QTest::addColumn<QString>("operation");
        QTest::newRow("ls") << QStringLiteral("ls");
        QTest::newRow("cat") << QStringLiteral("cat");
        QTest::newRow("get") << QStringLiteral("get");
    }

    void cliReadingAChatNeverCreatesIt()
    {
        QFETCH(QString, operation);
        const QString chatId = QStringLiteral("r") + test::randomToken(6);
        QStringList arguments {
            QStringLiteral("files"), operation, QStringLiteral("--chat"), chatId};
        if (operation != QLatin1String("ls"))
            arguments << QStringLiteral("notes.txt");
        if (operation == QLatin1String("get"))
            arguments << m_local.filePath(QStringLiteral("never-") + chatId);
        const CliOutcome outcome = cli(arguments, *m_server, m_bob.userId);
        QVERIFY(outcome.exitCode != 0);
        QVERIFY2(
            outcome.err.contains(QStringLiteral("~/chat-%1").arg(chatId)), qPrintable(outcome.err));
        QVERIFY2(!QFileInfo::exists(m_bobHome + QStringLiteral("/chat-") + chatId),
            "reading created the chat folder");
    }

    void cliCatGetAndLsThroughASymlinkOutOfTheHomeAreRefused()
    {
        const QString token = test::randomToken(8);
        const QString secret = QStringLiteral("alice-secret-") + token;
        const QString secretPath
            = m_aliceHome + QStringLiteral("/secret-") + token + QStringLiteral(".txt");
        shell(m_alice, QStringLiteral("umask 077; printf %s %1 > %2").arg(secret, secretPath));
        const QString peek = QStringLiteral("peek-") + token;
        const QString folder = QStringLiteral("alice-home-") + token;
        const QString own = QStringLiteral("own-") + token;
        shell(m_bob,
            QStringLiteral(
                "ln -s %1 ~/%2 && ln -s %3 ~/%4 && printf mine > ~/%5.txt && ln -s %5.txt ~/%5")
                .arg(secretPath, peek, m_aliceHome, folder, own));

        const auto refused
            = [&](const QStringList &arguments, const QString &link, const QString &target) {
                  const CliOutcome outcome = cli(arguments, *m_server, m_bob.userId);
                  QVERIFY2(outcome.exitCode == 1, qPrintable(outcome.err));
                  QVERIFY(!outcome.out.contains(secret.toUtf8()));
                  QVERIFY2(outcome.err.contains(link) && outcome.err.contains(target),
                      qPrintable(outcome.err));
                  QVERIFY2(outcome.err.contains(QLatin1String("outside")), qPrintable(outcome.err));
              };
        refused({QStringLiteral("files"), QStringLiteral("cat"), peek}, peek, secretPath);
        const QString local = m_local.filePath(QStringLiteral("got-") + token);
        refused({QStringLiteral("files"), QStringLiteral("get"), peek, local}, peek, secretPath);
        refused(
            {QStringLiteral("files"), QStringLiteral("get"), folder, local}, folder, m_aliceHome);
        QVERIFY(!QFileInfo::exists(local));
        refused({QStringLiteral("files"), QStringLiteral("ls"), folder}, folder, m_aliceHome);
        refused({QStringLiteral("files"), QStringLiteral("cat"),
                    m_bobHome + QLatin1Char('/') + folder + QStringLiteral("/secret-") + token
                        + QStringLiteral(".txt")},
            folder, m_aliceHome);
        // Writing, moving and removing through the link are refused too, and nothing changed.
        const QString upload = writeLocal(QStringLiteral("upload-") + token, "pwned");
        refused({QStringLiteral("files"), QStringLiteral("put"), upload, peek}, peek, secretPath);
        refused({QStringLiteral("files"), QStringLiteral("rm"),
                    folder + QStringLiteral("/secret-") + token + QStringLiteral(".txt")},
            folder, m_aliceHome);
        refused({QStringLiteral("files"), QStringLiteral("mv"),
                    folder + QStringLiteral("/secret-") + token + QStringLiteral(".txt"),
                    QStringLiteral("stolen-") + token},
            folder, m_aliceHome);
        QCOMPARE(
            shellValue(m_alice, QStringLiteral("printf 'S=%s\\n' \"$(cat %1)\"").arg(secretPath),
                QStringLiteral("S=")),
            secret);

        // A link that stays inside the home is followed as before.
        const CliOutcome mine
            = cli({QStringLiteral("files"), QStringLiteral("cat"), own}, *m_server, m_bob.userId);
        QVERIFY2(mine.exitCode == 0, qPrintable(mine.err));
        QCOMPARE(mine.out, QByteArray("mine"));
        shell(m_bob, QStringLiteral("rm -f ~/%1 ~/%2 ~/%3 ~/%3.txt").arg(peek, folder, own));
        shell(m_alice, QStringLiteral("rm -f %1").arg(secretPath));
    }

    void cliCatReadsWithTheUsersOwnPermissions()
    {
        // A file in bob's home that only root may read: the root file API would hand it out.
        const QString token = test::randomToken(8);
        const QString path = m_bobHome + QStringLiteral("/root-only-") + token;
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("root-secret-" + token.toUtf8());
        file.close();
        QVERIFY(file.setPermissions(QFile::ReadOwner | QFile::WriteOwner)); // 600, owned by root
        const CliOutcome cat
            = cli({QStringLiteral("files"), QStringLiteral("cat"), path}, *m_server, m_bob.userId);
        QFile::remove(path);
        QVERIFY(cat.exitCode != 0);
        QVERIFY(!cat.out.contains("root-secret-"));
        QVERIFY2(cat.err.contains(QLatin1String("Permission denied")), qPrintable(cat.err));
    }

    void fileOperationsRefuseALinkOutOfTheHome()
    {
        const QString token = test::randomToken(8);
        const QString link = m_bobHome + QStringLiteral("/to-alice-") + token;
        shell(m_bob, QStringLiteral("ln -s %1 %2").arg(m_aliceHome, link));
        FileOperations operations(m_client.get());
        operations.setIdentity(m_bob, FileOperations::Acting::AsSelf);
        const FileOperationResult zip = perform(
            [&](QObject *owner, auto done) { operations.downloadFolderAsZip(link, owner, done); });
        QCOMPARE(int(zip.status), int(FileOperationResult::Status::OutsideHome));
        QVERIFY(zip.bytes.isEmpty());
        QVERIFY2(zip.message().contains(link) && zip.message().contains(m_aliceHome),
            qPrintable(zip.message()));
        shell(m_bob, QStringLiteral("rm -f %1").arg(link));
    }
};

QTEST_GUILESS_MAIN(FilesIntegration)
#include "tst_files.moc"
