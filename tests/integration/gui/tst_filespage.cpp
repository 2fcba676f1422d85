// The Files and Users pages against a REAL multi-user open-terminal (the pinned
// OPEN_TERMINAL_VERSION; the admin overview against OPEN_TERMINAL_LEGACY_VERSION, which allows
// requests without X-User-Id). The tests of what crosses users (another user's paths, links
// out of the home, reading with the user's own permissions) run on both pinned versions, one
// server each for the whole suite. Dialogs are answered by a scripted prompter; what the page did
// is checked on the server itself (sha256sum, cat, ls), not through the page. Previews of
// another user's files are audited.

#include "adminoverviewpage.h"
#include "files/adminoverviewmodel.h"
#include "files/breadcrumbbar.h"
#include "files/chatindexmodel.h"
#include "files/filefilterproxy.h"
#include "files/filespage.h"
#include "files/remotefilemodel.h"
#include "filesfixture.h"
#include "mainwindow.h"
#include "messagebar.h"
#include "previews/previewpane.h"
#include "previews/previewtext.h"
#include "realserver.h"
#include "runs/runtabs.h"
#include "server/accountnames.h"
#include "server/openterminalclient.h"
#include "testing.h"

#include <QAction>
#include <QBuffer>
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QMimeData>
#include <QPainter>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeView>
#include <QTreeWidget>
#include <QUuid>
#include <QtTest>

#include <memory>
#include <unistd.h>

using namespace sandscope;
using namespace sandscope::test;

namespace {

// Answers the page's questions from queues and records every question asked.
class ScriptedPrompter : public FilesPrompter {
public:
    QList<bool> confirmAnswers;
    QStringList nameAnswers;
    QStringList editedTexts; // what the "editor" returns, in order
    QStringList uploadAnswer;
    QString savePathAnswer;
    QStringList asked; // every question, in order

    bool confirm(QWidget *, const QString &, const QString &question, const QString &) override
    {
        asked << question;
        return confirmAnswers.isEmpty() ? false : confirmAnswers.takeFirst();
    }
    QString askName(QWidget *, const QString &, const QString &label, const QString &) override
    {
        asked << label;
        return nameAnswers.isEmpty() ? QString() : nameAnswers.takeFirst();
    }
    bool editText(QWidget *, const QString &title, QString *text) override
    {
        asked << title;
        if (editedTexts.isEmpty())
            return false;
        *text = editedTexts.takeFirst();
        return true;
    }
    QStringList askUploadFiles(QWidget *) override
    {
        asked << QStringLiteral("upload files");
        return uploadAnswer;
    }
    QString askSavePath(QWidget *, const QString &suggestedName) override
    {
        asked << QStringLiteral("save ") + suggestedName;
        return savePathAnswer;
    }
};

QByteArray pngBytes()
{
    QImage image(64, 40, QImage::Format_ARGB32);
    image.fill(QColor(0x1e, 0x88, 0xe5));
    QPainter painter(&image);
    painter.fillRect(8, 8, 30, 20, QColor(0xff, 0xb3, 0x00));
    painter.end();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

} // namespace

class TestFilesPage : public QObject, protected FilesFixture {
    Q_OBJECT

private:
    // Output lines of a command as `who` without empty lines (no warning about the exit code:
    // some checks expect a command to fail).
    QStringList shell(
        const Identity &who, const QString &command, OpenTerminalClient *client = nullptr)
    {
        QStringList lines = shellLines(client ? client : m_client.get(), who, command);
        lines.removeAll(QString());
        return lines;
    }

    std::unique_ptr<FilesPage> makePage(
        FileOperations::Acting acting = FileOperations::Acting::AsSelf)
    {
        auto page = std::make_unique<FilesPage>();
        page->setPrompter(&m_prompter);
        page->setClient(m_client.get());
        page->setIdentity(m_alice, acting);
        page->resize(1100, 650);
        page->show();
        if (!QTest::qWaitFor(
                [&] {
                    const QModelIndex home
                        = page->fileModel()->indexForPath(page->fileModel()->homePath());
                    return home.isValid()
                        && page->fileModel()->loadState(home) == RemoteFileModel::LoadState::Loaded;
                },
                30000))
            qWarning() << "the home folder was not listed";
        return page;
    }
    // The view index of `path`, listing the folders on the way.
    static QModelIndex reveal(FilesPage *page, const QString &path)
    {
        page->goToPath(path);
        QModelIndex found;
        (void)QTest::qWaitFor(
            [&] {
                found = page->treeView()->currentIndex();
                return found.isValid() && found.data(RemoteFileModel::PathRole).toString() == path;
            },
            30000);
        return found.isValid() && found.data(RemoteFileModel::PathRole).toString() == path
            ? found
            : QModelIndex();
    }
    static QStringList childNames(const QAbstractItemModel *model, const QModelIndex &parent)
    {
        QStringList names;
        for (int row = 0; row < model->rowCount(parent); ++row)
            names << model->index(row, 0, parent).data(Qt::EditRole).toString();
        return names;
    }
    // The page's operations ended without an error message.
    [[nodiscard]] static bool settled(FilesPage *page)
    {
        const bool ended = QTest::qWaitFor([&] { return page->pendingOperations() == 0; }, 60000);
        if (!page->messageBar()->text().isEmpty())
            qWarning() << "message:" << page->messageBar()->text();
        return ended && page->messageBar()->text().isEmpty();
    }
    static bool waitLoaded(FilesPage *page, const QString &path)
    {
        return QTest::qWaitFor(
            [&] {
                const QModelIndex folder = page->fileModel()->indexForPath(path);
                return folder.isValid()
                    && page->fileModel()->loadState(folder) == RemoteFileModel::LoadState::Loaded;
            },
            30000);
    }

    ScriptedPrompter m_prompter;

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<ApiError>();
        qRegisterMetaType<FileOperationResult>();
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        QString error;
        QVERIFY2(startFilesServer(&error), qPrintable(error));
        m_alice.sessionId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    }

    void cleanupTestCase() { stopFilesServer(); }

    void init()
    {
        m_prompter = ScriptedPrompter();
        QString error;
        QVERIFY2(useVersion(RealServer::pinnedVersions().constFirst(), &error), qPrintable(error));
    }

    void expandingAFolderListsItAndTheBreadcrumbFollowsTheSelection()
    {
        const QString folder = freshFolder(QStringLiteral("ui-browse"),
            QStringLiteral("mkdir -p sub/deeper && printf a > a.txt && printf d > sub/d.txt"));
        auto page = makePage();
        FileTreeView *tree = page->treeView();
        const QModelIndex homeView
            = page->fileProxy()->mapFromSource(page->fileModel()->indexForPath(m_aliceHome));
        QVERIFY(tree->isExpanded(homeView)); // the home opens expanded

        QModelIndex folderView;
        for (int row = 0; row < page->fileProxy()->rowCount(homeView); ++row) {
            const QModelIndex child = page->fileProxy()->index(row, 0, homeView);
            if (child.data(Qt::EditRole).toString() == QLatin1String("ui-browse"))
                folderView = child;
        }
        QVERIFY(folderView.isValid());
        QCOMPARE(page->fileProxy()->rowCount(folderView), 0); // not listed before expanding
        tree->expand(folderView);
        QTRY_COMPARE_WITH_TIMEOUT(childNames(page->fileProxy(), folderView),
            (QStringList {QStringLiteral("sub"), QStringLiteral("a.txt")}), 30000);

        // Folders first, then files; the breadcrumb shows the selection's path.
        tree->setCurrentIndex(page->fileProxy()->index(1, 0, folderView));
        const QString file = folder + QStringLiteral("/a.txt");
        QCOMPARE(page->currentPath(), file);
        QCOMPARE(page->breadcrumb()->path(), file);
        const QStringList segments = page->breadcrumb()->segmentPaths();
        QCOMPARE(segments.first(), QStringLiteral("/"));
        QCOMPARE(segments.mid(segments.size() - 2), (QStringList {folder, file}));

        // A click on a segment selects that folder.
        const QList<QToolButton *> buttons = page->breadcrumb()->segmentButtons();
        QTest::mouseClick(buttons.at(buttons.size() - 2), Qt::LeftButton);
        QCOMPARE(page->currentPath(), folder);

        // F5 on the folder lists it again; the expanded sub-folder stays expanded.
        const QModelIndex subView = page->fileProxy()->index(0, 0, folderView);
        tree->expand(subView);
        QTRY_COMPARE_WITH_TIMEOUT(page->fileProxy()->rowCount(subView), 2, 30000);
        shell(m_alice, QStringLiteral("printf n > %1/new.txt").arg(folder));
        QVERIFY(page->refreshAction()->isEnabled());
        QCOMPARE(page->refreshAction()->shortcut(), QKeySequence(Qt::Key_F5));
        page->refreshAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(
            childNames(page->fileProxy(), folderView).contains(QStringLiteral("new.txt")), 30000);
        QVERIFY(tree->isExpanded(subView));
        QVERIFY(tree->isExpanded(folderView));

        // The name filter keeps matches and the folders on the way; dot files need the toggle.
        shell(m_alice, QStringLiteral("printf h > %1/.hidden-note").arg(folder));
        page->refreshAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(
            page->fileModel()->indexForPath(folder + QStringLiteral("/.hidden-note")).isValid(),
            30000);
        QVERIFY(
            !childNames(page->fileProxy(), folderView).contains(QStringLiteral(".hidden-note")));
        page->hiddenAction()->trigger();
        QVERIFY(childNames(page->fileProxy(), folderView).contains(QStringLiteral(".hidden-note")));
        page->hiddenAction()->trigger();
        page->filterEdit()->setText(QStringLiteral("new*"));
        QCOMPARE(
            childNames(page->fileProxy(), folderView), QStringList {QStringLiteral("new.txt")});
        page->filterEdit()->clear();
        QCOMPARE(childNames(page->fileProxy(), folderView).size(), 3);
    }

    void chatSwitcherListsTheChatsAndShowsOneOfThem()
    {
        shell(m_alice,
            QStringLiteral("cd ~ && rm -rf chat-* && mkdir -p chat-uione/out chat-uitwo && "
                           "head -c 5000 /dev/zero > chat-uione/out/log.txt && "
                           "printf hi > chat-uitwo/notes.md"));
        auto page = makePage();
        QTRY_COMPARE_WITH_TIMEOUT(page->chatModel()->state(), ScanState::Loaded, 60000);
        QStringList ids;
        for (const ChatFolder &chat : page->chatModel()->chats())
            ids << chat.id;
        ids.sort();
        QCOMPARE(ids, (QStringList {QStringLiteral("uione"), QStringLiteral("uitwo")}));
        QTreeView *chats = page->chatView();
        QCOMPARE(chats->model()->rowCount(), 2);

        // A click on "uione" shows only that chat's files.
        QModelIndex one;
        for (int row = 0; row < chats->model()->rowCount(); ++row) {
            if (chats->model()->index(row, 0).data().toString() == QLatin1String("uione"))
                one = chats->model()->index(row, 0);
        }
        QVERIFY(one.isValid());
        QVERIFY(!one.siblingAtColumn(ChatIndexModel::SizeColumn).data().toString().isEmpty());
        QVERIFY(
            !one.siblingAtColumn(ChatIndexModel::LastActivityColumn).data().toString().isEmpty());
        QTest::mouseClick(chats->viewport(), Qt::LeftButton, {}, chats->visualRect(one).center());
        const QString chatPath = m_aliceHome + QStringLiteral("/chat-uione");
        QTRY_COMPARE_WITH_TIMEOUT(page->rootPath(), chatPath, 30000);
        const QModelIndex root = page->treeView()->rootIndex();
        QCOMPARE(root.data(RemoteFileModel::PathRole).toString(), chatPath);
        QTRY_COMPARE_WITH_TIMEOUT(
            childNames(page->fileProxy(), root), QStringList {QStringLiteral("out")}, 30000);
        QCOMPARE(page->breadcrumb()->path(), chatPath);

        page->showHome();
        QVERIFY(page->rootPath().isEmpty());
        QCOMPARE(page->currentPath(), m_aliceHome);
    }

    // The Chats list's size is the chat's content: files in nested folders count, the folder
    // entries (4 KiB each) do not, and an empty chat is 0 bytes.
    void aChatsSizeIsItsContentNotItsFolderEntries()
    {
        shell(m_alice,
            QStringLiteral("cd ~ && rm -rf chat-* && mkdir -p chat-sized/a/b chat-empty && "
                           "head -c 1000 /dev/zero > chat-sized/one && "
                           "head -c 234 /dev/zero > chat-sized/a/b/two && "
                           "ln -s one chat-sized/link-to-one"));
        auto page = makePage();
        QTRY_COMPARE_WITH_TIMEOUT(page->chatModel()->state(), ScanState::Loaded, 60000);
        QHash<QString, qint64> sizes;
        for (const ChatFolder &chat : page->chatModel()->chats())
            sizes.insert(chat.id, chat.size);
        // The link counts as what it is: a 3-byte name, never its target's bytes.
        QCOMPARE(sizes.value(QStringLiteral("sized"), -1), qint64(1000 + 234 + 3));
        QCOMPARE(sizes.value(QStringLiteral("empty"), -1), qint64(0));
    }

    // An upload into a chat (any change) refreshes the Chats list: its last activity and size.
    void uploadIntoAChatRefreshesTheChatsList()
    {
        shell(m_alice,
            QStringLiteral("cd ~ && rm -rf chat-* && mkdir chat-upload && printf old > "
                           "chat-upload/old.txt && touch -d '10 days ago' chat-upload/old.txt "
                           "chat-upload"));
        const QByteArray content = randomBytes(4321);
        QFile local(m_local.filePath(QStringLiteral("fresh.bin")));
        QVERIFY(local.open(QIODevice::WriteOnly));
        local.write(content);
        local.close();

        auto page = makePage();
        QTRY_COMPARE_WITH_TIMEOUT(page->chatModel()->state(), ScanState::Loaded, 60000);
        const auto chat = [&] {
            for (const ChatFolder &folder : page->chatModel()->chats()) {
                if (folder.id == QLatin1String("upload"))
                    return folder;
            }
            return ChatFolder();
        };
        const QDateTime before = chat().lastActivity;
        QVERIFY(before.isValid());
        QVERIFY(before < QDateTime::currentDateTimeUtc().addDays(-9));
        QCOMPARE(chat().size, qint64(3));

        const QString folder = m_aliceHome + QStringLiteral("/chat-upload");
        const QModelIndex target = reveal(page.get(), folder);
        QVERIFY(target.isValid());
        FileTreeView *tree = page->treeView();
        tree->scrollTo(target);
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(local.fileName())});
        const QPoint where = tree->visualRect(target).center();
        QDragEnterEvent enter(where, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(tree->viewport(), &enter);
        QDropEvent drop(where, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(tree->viewport(), &drop);
        QVERIFY(drop.isAccepted());
        QVERIFY(settled(page.get()));
        QTRY_VERIFY_WITH_TIMEOUT(
            chat().lastActivity > QDateTime::currentDateTimeUtc().addSecs(-600), 30000);
        QCOMPARE(chat().size, qint64(3 + content.size()));
    }

    // The tree has one root, the acting user's home: a folder above it ("/home", "/", as the
    // breadcrumb offered them) leads to the home instead of a second root beside it, and the
    // breadcrumb's segments above the home are not links.
    void aFolderAboveTheHomeKeepsTheHomeTheOnlyRoot_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("/home") << QStringLiteral("/home");
        QTest::newRow("/") << QStringLiteral("/");
    }
    void aFolderAboveTheHomeKeepsTheHomeTheOnlyRoot()
    {
        QFETCH(QString, path);
        auto page = makePage();
        page->goToPath(path);
        QTest::qWait(1000);
        QTRY_COMPARE_WITH_TIMEOUT(page->currentPath(), m_aliceHome, 30000);
        QStringList roots;
        for (int row = 0; row < page->fileModel()->rowCount(); ++row)
            roots << page->fileModel()->index(row, 0).data(RemoteFileModel::PathRole).toString();
        QCOMPARE(roots, QStringList {m_aliceHome});
        for (QToolButton *segment : page->breadcrumb()->findChildren<QToolButton *>()) {
            const QString segmentPath = segment->property("remotePath").toString();
            if (segmentPath.isEmpty())
                continue;
            QCOMPARE(segment->isEnabled(), segmentPath.startsWith(m_aliceHome));
        }
    }

    void previewShowsTextInPartsImagesAndRawBytes()
    {
        const QByteArray png = pngBytes();
        const QString folder = freshFolder(QStringLiteral("ui-preview"),
            QStringLiteral("seq 1 2500 > long.txt && printf '# Notes\\n\\nSome *text*.\\n' > "
                           "notes.md && head -c 3000 /dev/urandom > blob.bin"));
        QVERIFY(await<WriteResult>([&](auto done) {
            return m_client->uploadFile(
                m_alice, folder, QStringLiteral("pic.png"), png, m_client.get(), done);
        }).ok());
        auto page = makePage();
        PreviewPane *preview = page->preview();

        // Text: the first 2000 lines, then all of them.
        QVERIFY(reveal(page.get(), folder + QStringLiteral("/long.txt")).isValid());
        QTRY_VERIFY_WITH_TIMEOUT(preview->offersLoadAll(), 30000);
        QCOMPARE(preview->kind(), PreviewKind::Text);
        const QString firstPart = preview->textPage()->editor()->toPlainText();
        QVERIFY(firstPart.contains(QLatin1String("\n2000")));
        QVERIFY(!firstPart.contains(QLatin1String("2001")));
        QVERIFY2(preview->statusText().contains(QStringLiteral("2,500"))
                || preview->statusText().contains(QStringLiteral("2500")),
            qPrintable(preview->statusText()));
        page->loadAll();
        QTRY_VERIFY_WITH_TIMEOUT(!preview->offersLoadAll() && !page->isPreviewLoading(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!preview->textPage()->isLoading(), 30000);
        QVERIFY(preview->textPage()->editor()->toPlainText().startsWith(QLatin1String("1\n2\n")));
        QVERIFY(preview->textPage()->editor()->toPlainText().contains(QLatin1String("\n2500")));

        // An image arrives as bytes.
        QVERIFY(reveal(page.get(), folder + QStringLiteral("/pic.png")).isValid());
        QTRY_COMPARE_WITH_TIMEOUT(preview->kind(), PreviewKind::Image, 30000);
        QVERIFY2(preview->errorText().isEmpty(), qPrintable(preview->errorText()));

        // Random bytes: the server refuses them as text (415), the raw bytes are shown instead.
        QVERIFY(reveal(page.get(), folder + QStringLiteral("/blob.bin")).isValid());
        QTRY_COMPARE_WITH_TIMEOUT(preview->kind(), PreviewKind::Binary, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isPreviewLoading(), 30000);
        QVERIFY2(preview->errorText().isEmpty(), qPrintable(preview->errorText()));
        QVERIFY2(preview->statusText().contains(QLatin1String("application/octet-stream")),
            qPrintable(preview->statusText()));

        // A new selection abandons the previous request: the last one selected is shown.
        page->goToPath(folder + QStringLiteral("/pic.png"));
        QTRY_VERIFY_WITH_TIMEOUT(page->isPreviewLoading(), 30000);
        page->goToPath(folder + QStringLiteral("/notes.md"));
        QTRY_COMPARE_WITH_TIMEOUT(preview->kind(), PreviewKind::Markdown, 30000);
        QTest::qWait(300);
        QCOMPARE(preview->kind(), PreviewKind::Markdown);

        if (qEnvironmentVariableIsSet("SANDSCOPE_SCREENSHOT")) {
            page->goToPath(folder + QStringLiteral("/pic.png"));
            QTRY_COMPARE_WITH_TIMEOUT(preview->kind(), PreviewKind::Image, 30000);
            page->treeView()->expand(page->fileProxy()->mapFromSource(
                page->fileModel()->indexForPath(m_aliceHome + QStringLiteral("/ui-browse"))));
            QTest::qWait(1500);
            page->grab().save(qEnvironmentVariable("SANDSCOPE_SCREENSHOT"));
        }
    }

    void previewsAndListingsOfAnotherUsersFilesAreAuditedAndOnesOwnNot()
    {
        const QString folder = freshFolder(
            QStringLiteral("ui-audit"), QStringLiteral("printf 'mine\\n' > note.txt"));
        const QString file = folder + QStringLiteral("/note.txt");
        const auto count = [&](const QString &action, const QString &target) {
            qsizetype found = 0;
            for (const QJsonObject &entry : auditLines())
                found += entry.value(QStringLiteral("action")).toString() == action
                    && entry.value(QStringLiteral("target")).toString() == target
                    && entry.value(QStringLiteral("user")).toString() == m_alice.userId;
            return found;
        };
        for (const auto acting :
            {FileOperations::Acting::AsSelf, FileOperations::Acting::AsOtherUser}) {
            auto page = makePage(acting);
            QVERIFY(reveal(page.get(), file).isValid());
            QTRY_COMPARE_WITH_TIMEOUT(page->preview()->kind(), PreviewKind::Text, 30000);
            const bool self = acting == FileOperations::Acting::AsSelf;
            QCOMPARE(count(QStringLiteral("preview"), file), self ? 0 : 1);
            // Listing the folder the file is in read it too.
            const qsizetype listings = count(QStringLiteral("list-files"), folder);
            QVERIFY2(self ? listings == 0 : listings >= 1, qPrintable(QString::number(listings)));
        }
    }

    void readOnlyModeDisablesEveryChangeAndNothingReachesTheServer()
    {
        const QString folder = freshFolder(
            QStringLiteral("ui-guarded"), QStringLiteral("printf keep > keep.txt && mkdir sub"));
        const QStringList before = snapshot(folder);
        QCOMPARE(before.size(), 3);
        QFile local(m_local.filePath(QStringLiteral("guarded-upload.bin")));
        QVERIFY(local.open(QIODevice::WriteOnly));
        local.write("local");
        local.close();

        auto page = makePage(FileOperations::Acting::AsOtherUser);
        QVERIFY(page->isReadOnly()); // acting as another user starts read-only
        QVERIFY(page->readOnlyAction()->isChecked());
        QVERIFY(page->isReadOnlyBannerShown());
        QVERIFY2(page->readOnlyBannerText().contains(QLatin1String("READ-ONLY")),
            qPrintable(page->readOnlyBannerText()));
        const QModelIndex file = reveal(page.get(), folder + QStringLiteral("/keep.txt"));
        QVERIFY(file.isValid());
        for (QAction *action : page->mutatingActions()) {
            QVERIFY2(!action->isEnabled(), qPrintable(action->text()));
            QVERIFY2(action->toolTip().contains(QLatin1String("Read-only")),
                qPrintable(action->toolTip()));
        }
        QVERIFY(page->downloadAction()->isEnabled()); // reading stays possible

        // Whatever the dialogs would answer, nothing is asked and nothing is sent.
        m_prompter.confirmAnswers = {true, true, true};
        m_prompter.nameAnswers
            = QStringList {QStringLiteral("x1"), QStringLiteral("x2"), QStringLiteral("x3")};
        m_prompter.editedTexts = QStringList {QStringLiteral("changed")};
        m_prompter.uploadAnswer = QStringList {local.fileName()};
        for (QAction *action : page->mutatingActions())
            action->trigger();
        page->deleteSelected();
        page->renameSelected();
        page->editSelected();
        page->newFolder();
        page->newTextFile();
        page->upload();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(local.fileName())});
        page->dropFiles(&mime, file);
        QTest::qWait(500);
        QVERIFY2(m_prompter.asked.isEmpty(), qPrintable(m_prompter.asked.join(u'|')));
        QCOMPARE(page->pendingOperations(), 0);
        QVERIFY2(page->messageBar()->text().contains(QLatin1String("Read-only")),
            qPrintable(page->messageBar()->text()));
        QCOMPARE(snapshot(folder), before);

        // Switching to read-write is explicit and visible.
        page->readOnlyAction()->trigger();
        QVERIFY(!page->isReadOnly());
        for (QAction *action : page->mutatingActions())
            QVERIFY2(action->isEnabled(), qPrintable(action->text()));
        QVERIFY2(page->readOnlyBannerText().contains(QLatin1String("READ-WRITE")),
            qPrintable(page->readOnlyBannerText()));
    }

    void droppedFilesAreUploadedByteExact()
    {
        const QString folder = freshFolder(QStringLiteral("ui-drop"));
        const QByteArray first = allByteValues() + randomBytes(200 * 1024);
        const QByteArray second = randomBytes(777) + allByteValues();
        QStringList locals;
        for (const auto &file : {qMakePair(QStringLiteral("one.bin"), first),
                 qMakePair(QStringLiteral("two words.dat"), second)}) {
            QFile out(m_local.filePath(file.first));
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(file.second);
            locals << out.fileName();
        }
        auto page = makePage();
        QVERIFY(!page->isReadOnly());
        const QModelIndex target = reveal(page.get(), folder);
        QVERIFY(target.isValid());
        FileTreeView *tree = page->treeView();
        tree->scrollTo(target);
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(locals.at(0)), QUrl::fromLocalFile(locals.at(1))});
        const QPoint where = tree->visualRect(target).center();
        // As a real drag does: the enter picks the target widget, the drop goes there.
        QDragEnterEvent enter(where, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(tree->viewport(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(where, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(tree->viewport(), &drop);
        QVERIFY(drop.isAccepted());
        QTRY_COMPARE_WITH_TIMEOUT(page->pendingOperations(), 0, 60000);
        QVERIFY2(page->messageBar()->text().isEmpty(), qPrintable(page->messageBar()->text()));

        const QStringList hashes = shell(
            m_alice, QStringLiteral("cd %1 && sha256sum one.bin 'two words.dat'").arg(folder));
        QCOMPARE(hashes.size(), 2);
        QVERIFY2(hashes.at(0).startsWith(sha256(first)), qPrintable(hashes.at(0)));
        QVERIFY2(hashes.at(1).startsWith(sha256(second)), qPrintable(hashes.at(1)));
        // The folder is listed again, so the new files show up.
        QTRY_COMPARE_WITH_TIMEOUT(childNames(page->fileProxy(), target),
            (QStringList {QStringLiteral("one.bin"), QStringLiteral("two words.dat")}), 30000);
    }

    void newFolderRenameWithRefusedReplaceEditDownloadAndDelete()
    {
        const QString folder = freshFolder(
            QStringLiteral("ui-ops"), QStringLiteral("printf A > a.txt && printf B > b.txt"));
        auto page = makePage();
        QVERIFY(reveal(page.get(), folder).isValid());
        QVERIFY(waitLoaded(page.get(), folder));

        // New folder inside the selected folder.
        m_prompter.nameAnswers = QStringList {QStringLiteral("made")};
        page->newFolderAction()->trigger();
        QVERIFY(settled(page.get()));
        QCOMPARE(shell(m_alice, QStringLiteral("test -d %1/made && echo yes").arg(folder)),
            QStringList {QStringLiteral("yes")});
        QTRY_COMPARE_WITH_TIMEOUT(page->currentPath(), folder + QStringLiteral("/made"), 30000);

        // Renaming a.txt onto b.txt: the server reports the conflict, the page asks, "No".
        QVERIFY(reveal(page.get(), folder + QStringLiteral("/a.txt")).isValid());
        m_prompter.asked.clear();
        m_prompter.nameAnswers = QStringList {QStringLiteral("b.txt")};
        m_prompter.confirmAnswers = {false};
        page->renameAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(m_prompter.asked.size(), 2, 30000);
        QVERIFY2(m_prompter.asked.at(1).startsWith(QLatin1String("Replace b.txt?")),
            qPrintable(m_prompter.asked.at(1)));
        QVERIFY(settled(page.get()));
        QCOMPARE(shell(m_alice, QStringLiteral("cd %1 && cat a.txt; echo; cat b.txt").arg(folder)),
            (QStringList {QStringLiteral("A"), QStringLiteral("B")}));

        // A plain rename.
        m_prompter.nameAnswers = QStringList {QStringLiteral("c.txt")};
        QCOMPARE(page->currentPath(), folder + QStringLiteral("/a.txt"));
        page->renameAction()->trigger();
        QVERIFY(settled(page.get()));
        QCOMPARE(shell(m_alice, QStringLiteral("cd %1 && ls -1").arg(folder)),
            (QStringList {
                QStringLiteral("b.txt"), QStringLiteral("c.txt"), QStringLiteral("made")}));

        // Edit and save.
        QVERIFY(reveal(page.get(), folder + QStringLiteral("/b.txt")).isValid());
        QVERIFY(page->editAction()->isEnabled());
        m_prompter.editedTexts = QStringList {QStringLiteral("edited\nsecond line\n")};
        page->editAction()->trigger();
        QVERIFY(settled(page.get()));
        QCOMPARE(shell(m_alice, QStringLiteral("cat %1/b.txt").arg(folder)),
            (QStringList {QStringLiteral("edited"), QStringLiteral("second line")}));

        // Download, byte for byte.
        m_prompter.savePathAnswer = m_local.filePath(QStringLiteral("downloaded.txt"));
        page->downloadAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(m_prompter.savePathAnswer), 30000);
        QFile saved(m_prompter.savePathAnswer);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        QCOMPARE(saved.readAll(), QByteArray("edited\nsecond line\n"));

        // Delete names what goes.
        m_prompter.asked.clear();
        m_prompter.confirmAnswers = {true};
        page->deleteAction()->trigger();
        QCOMPARE(m_prompter.asked,
            QStringList {QStringLiteral("Delete the file %1/b.txt?").arg(folder)});
        QVERIFY(settled(page.get()));
        QCOMPARE(shell(m_alice, QStringLiteral("cd %1 && ls -1").arg(folder)),
            (QStringList {QStringLiteral("c.txt"), QStringLiteral("made")}));
        QTRY_VERIFY_WITH_TIMEOUT(
            !page->fileModel()->indexForPath(folder + QStringLiteral("/b.txt")).isValid(), 30000);

        // A folder's confirmation says that everything in it goes too; "Cancel" keeps it.
        QVERIFY(reveal(page.get(), folder + QStringLiteral("/made")).isValid());
        m_prompter.asked.clear();
        m_prompter.confirmAnswers = {false};
        page->deleteAction()->trigger();
        QCOMPARE(m_prompter.asked,
            QStringList {
                QStringLiteral("Delete the folder %1/made and everything in it?").arg(folder)});
        QTest::qWait(300);
        QCOMPARE(shell(m_alice, QStringLiteral("test -d %1/made && echo yes").arg(folder)),
            QStringList {QStringLiteral("yes")});
    }

    // The read-only control says the state it is in (a closed lock "Read-only", an open
    // lock "Read-write").
    void readOnlyControlSaysItsState()
    {
        auto page = makePage(FileOperations::Acting::AsOtherUser);
        QVERIFY(page->isReadOnly());
        QCOMPARE(page->readOnlyAction()->text(), QStringLiteral("Read-only"));
        page->readOnlyAction()->trigger();
        QVERIFY(!page->isReadOnly());
        QCOMPARE(page->readOnlyAction()->text(), QStringLiteral("Read-write"));
        QVERIFY(page->readOnlyAction()->toolTip().startsWith(QStringLiteral("Read-write")));
    }

    // What a command or a run changed appears without pressing Refresh: after a change the
    // open folder is listed again, and while the page is visible it is watched.
    void changesMadeElsewhereAppearWithoutRefresh()
    {
        auto page = makePage();
        const QString home = page->fileModel()->homePath();
        const QString made = QStringLiteral("made-by-console-") + test::randomToken(5, true);
        shell(m_alice, QStringLiteral("cd ~ && printf x > %1").arg(made));
        QVERIFY(!page->fileModel()->indexForPath(home + QLatin1Char('/') + made).isValid());
        page->refreshAfterChange();
        QTRY_VERIFY_WITH_TIMEOUT(
            page->fileModel()->indexForPath(home + QLatin1Char('/') + made).isValid(), 30000);

        const QString watched = QStringLiteral("made-by-a-run-") + test::randomToken(5, true);
        page->setWatchInterval(200);
        shell(m_alice, QStringLiteral("cd ~ && printf x > %1").arg(watched));
        QTRY_VERIFY_WITH_TIMEOUT(
            page->fileModel()->indexForPath(home + QLatin1Char('/') + watched).isValid(), 30000);
    }

    // Acting as bob, a path in alice's home is "not allowed", not "does not exist".
    void aPathOutsideTheHomeIsNotAllowedRatherThanMissing_data() { test::addVersionRows(); }
    void aPathOutsideTheHomeIsNotAllowedRatherThanMissing()
    {
        SANDSCOPE_USE_FETCHED_VERSION();
        auto page = makePage();
        const QString other = m_bobHome + QStringLiteral("/chat-secret/notes.txt");
        page->goToPath(other);
        QTRY_VERIFY_WITH_TIMEOUT(
            !page->messageBar()->text().isEmpty() || !page->preview()->errorText().isEmpty(),
            30000);
        const QString said = page->messageBar()->text() + page->preview()->errorText();
        QVERIFY2(!said.contains(QStringLiteral("does not exist (any more)")), qPrintable(said));
    }

    void anotherUsersFolderSaysWhoseFilesTheyAre_data() { test::addVersionRows(); }
    void anotherUsersFolderSaysWhoseFilesTheyAre()
    {
        SANDSCOPE_USE_FETCHED_VERSION();
        auto page = makePage();
        page->goToPath(m_bobHome);
        const QString bobAccount = m_bobHome.section(QLatin1Char('/'), 2, 2);
        QTRY_VERIFY_WITH_TIMEOUT(
            page->preview()->errorText().contains(QStringLiteral("files of ") + bobAccount), 30000);
        const QModelIndex bob = page->fileModel()->indexForPath(m_bobHome);
        QCOMPARE(page->fileModel()->loadState(bob), RemoteFileModel::LoadState::Failed);
        QCOMPARE(page->currentPath(), m_bobHome);
        QVERIFY(page->treeView()->isFirstColumnSpanned(
            page->treeView()->currentIndex().row(), page->treeView()->currentIndex().parent()));
    }

    // A link in alice's home to bob's file or home: the tree shows it as a link with its
    // target, the preview refuses it (the server's file API would read it as root), and the
    // folder it leads to is not listed. A link that stays in the home previews as before.
    void linksAreShownWithTheirTargetsAndNotFollowedOutOfTheHome_data() { test::addVersionRows(); }
    void linksAreShownWithTheirTargetsAndNotFollowedOutOfTheHome()
    {
        SANDSCOPE_USE_FETCHED_VERSION();
        const QString token = randomToken(8);
        const QString secret = QStringLiteral("bob-secret-") + token;
        const QString secretPath
            = m_bobHome + QStringLiteral("/secret-") + token + QStringLiteral(".txt");
        shell(m_bob, QStringLiteral("umask 077; printf %1 > %2").arg(secret, secretPath));
        const QString fileLink = QStringLiteral("to-bob-") + token + QStringLiteral(".txt");
        const QString folderLink = QStringLiteral("to-bob-home-") + token;
        const QString ownLink = QStringLiteral("own-") + token + QStringLiteral(".txt");
        shell(m_alice,
            QStringLiteral(
                "cd ~ && ln -s %1 %2 && ln -s %3 %4 && printf mine > real-%5 && ln -s real-%5 %5")
                .arg(secretPath, fileLink, m_bobHome, folderLink, ownLink));
        auto page = makePage();
        RemoteFileModel *model = page->fileModel();
        const QModelIndex link = reveal(page.get(), m_aliceHome + QLatin1Char('/') + fileLink);
        QVERIFY(link.isValid());
        const QModelIndex source = model->indexForPath(m_aliceHome + QLatin1Char('/') + fileLink);
        QCOMPARE(source.data(RemoteFileModel::LinkTargetRole).toString(), secretPath);
        QVERIFY(source.data(RemoteFileModel::LinkOutsideHomeRole).toBool());
        const QString type = source.siblingAtColumn(RemoteFileModel::TypeColumn).data().toString();
        QVERIFY2(
            type.contains(secretPath) && type.contains(QLatin1String("outside")), qPrintable(type));

        PreviewPane *preview = page->preview();
        QTRY_VERIFY_WITH_TIMEOUT(!preview->errorText().isEmpty(), 30000);
        QVERIFY2(
            preview->errorText().contains(fileLink) && preview->errorText().contains(secretPath),
            qPrintable(preview->errorText()));
        QVERIFY(preview->kind() != PreviewKind::Text);
        // Edit reads it the same way: refused, naming the link, and bob's file is unchanged.
        page->setReadOnly(false);
        m_prompter.editedTexts = QStringList {QStringLiteral("pwned")};
        page->editAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(page->pendingOperations() == 0, 30000);
        QVERIFY2(page->messageBar()->text().contains(fileLink)
                && page->messageBar()->text().contains(secretPath),
            qPrintable(page->messageBar()->text()));
        QCOMPARE(m_prompter.editedTexts.size(), 1);
        QCOMPARE(shell(m_bob, QStringLiteral("cat %1").arg(secretPath)), QStringList {secret});
        page->setReadOnly(true);

        // The link to bob's home is refused as a folder, naming the link.
        page->goToPath(m_aliceHome + QLatin1Char('/') + folderLink);
        const QString folderPath = m_aliceHome + QLatin1Char('/') + folderLink;
        QTRY_COMPARE_WITH_TIMEOUT(int(model->loadState(model->indexForPath(folderPath))),
            int(RemoteFileModel::LoadState::Failed), 30000);
        const QString refused = model->errorText(model->indexForPath(folderPath));
        QVERIFY2(refused.contains(folderLink) && refused.contains(m_bobHome), qPrintable(refused));
        QCOMPARE(model->rowCount(model->indexForPath(folderPath)), 0);

        // A link inside the home is a link too, and previews.
        QVERIFY(reveal(page.get(), m_aliceHome + QLatin1Char('/') + ownLink).isValid());
        const QModelIndex own = model->indexForPath(m_aliceHome + QLatin1Char('/') + ownLink);
        QCOMPARE(own.data(RemoteFileModel::LinkTargetRole).toString(),
            QStringLiteral("real-") + ownLink);
        QVERIFY(!own.data(RemoteFileModel::LinkOutsideHomeRole).toBool());
        QTRY_COMPARE_WITH_TIMEOUT(preview->kind(), PreviewKind::Text, 30000);
        QCOMPARE(preview->textPage()->editor()->toPlainText(), QStringLiteral("mine"));
        QVERIFY(preview->errorText().isEmpty());

        shell(m_alice,
            QStringLiteral("cd ~ && rm -f %1 %2 %3 real-%3").arg(fileLink, folderLink, ownLink));
        shell(m_bob, QStringLiteral("rm -f %1").arg(secretPath));
    }

    // A file in alice's own home that only root may read: the server's file API (root) would
    // return it, the preview reads it in alice's shell and is refused by the kernel. A file
    // alice may read previews as text and as bytes through the same path.
    void previewReadsWithTheUsersOwnPermissions_data() { test::addVersionRows(); }
    void previewReadsWithTheUsersOwnPermissions()
    {
        SANDSCOPE_USE_FETCHED_VERSION();
        const QString token = randomToken(8);
        const QString secret = QStringLiteral("root-only-") + token;
        const QString rootFile
            = m_aliceHome + QStringLiteral("/root-only-") + token + QStringLiteral(".txt");
        QFile file(rootFile);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(secret.toUtf8());
        file.close();
        QVERIFY(QFile::setPermissions(rootFile, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        QVERIFY(::chown(QFile::encodeName(rootFile).constData(), 0, 0) == 0);
        const auto page = makePage();
        PreviewPane *preview = page->preview();
        QVERIFY(reveal(page.get(), rootFile).isValid());
        QTRY_VERIFY_WITH_TIMEOUT(!preview->errorText().isEmpty(), 30000);
        QVERIFY2(preview->errorText().contains(QLatin1String("Permission denied")),
            qPrintable(preview->errorText()));
        QVERIFY(preview->kind() != PreviewKind::Text);
        QVERIFY(!preview->textPage()->editor()->toPlainText().contains(secret));
        // Edit reads the same way: refused, and nothing to edit is offered.
        page->setReadOnly(false);
        m_prompter.editedTexts = QStringList {QStringLiteral("replaced")};
        page->editAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(page->pendingOperations() == 0, 30000);
        QVERIFY2(page->messageBar()->text().contains(QLatin1String("Permission denied")),
            qPrintable(page->messageBar()->text()));
        QCOMPARE(m_prompter.editedTexts.size(), 1);
        QFile::remove(rootFile);
    }

    // "Open as run" of a file on the server reads it in the user's shell: a link to another
    // user's run file is refused naming the link and its target, no tab opens and nothing is
    // kept locally; the user's own file opens as a run tab.
    void openingARemoteRunRefusesALinkOutOfTheHome_data() { test::addVersionRows(); }
    void openingARemoteRunRefusesALinkOutOfTheHome()
    {
        SANDSCOPE_USE_FETCHED_VERSION();
        QStandardPaths::setTestModeEnabled(true); // the local copies of remote runs
        const QString token = randomToken(8);
        QFile capture(QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/stream-basic.jsonl"));
        QVERIFY(capture.open(QIODevice::ReadOnly));
        const QByteArray run = capture.readAll();
        const QString bobRun
            = m_bobHome + QStringLiteral("/run-") + token + QStringLiteral(".jsonl");
        const QString ownRun
            = m_aliceHome + QStringLiteral("/own-") + token + QStringLiteral(".jsonl");
        const QString link
            = m_aliceHome + QStringLiteral("/bobs-") + token + QStringLiteral(".jsonl");
        for (const auto &[who, path] : {std::pair {m_bob, bobRun}, std::pair {m_alice, ownRun}}) {
            const auto written = await<WriteResult>([&, who = who, path = path](auto done) {
                return m_client->uploadFile(who, QFileInfo(path).path(), QFileInfo(path).fileName(),
                    run, m_client.get(), done);
            });
            QVERIFY2(written.ok(), qPrintable(written.error.toString()));
        }
        shell(m_bob, QStringLiteral("chmod 600 %1").arg(bobRun));
        shell(m_alice, QStringLiteral("ln -s %1 %2").arg(bobRun, link));

        QTemporaryDir settings;
        QVERIFY(settings.isValid());
        MainWindow window(settings.filePath(QStringLiteral("profiles.ini")));
        QSignalSpy probed(&window, &MainWindow::serverChecked);
        window.connectToServer(m_server->connection(), m_alice.userId, QStringLiteral("lab"));
        QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 60000);
        const int tabs = window.pages()->count();
        window.runTabs()->openRemoteRun(link);
        QTRY_VERIFY_WITH_TIMEOUT(
            window.messageBar()->text().contains(QLatin1String("Cannot open")), 30000);
        const QString said = window.messageBar()->text();
        QVERIFY2(said.contains(link) && said.contains(bobRun), qPrintable(said));
        QCOMPARE(window.pages()->count(), tabs);

        window.runTabs()->openRemoteRun(ownRun);
        QTRY_COMPARE_WITH_TIMEOUT(window.pages()->count(), tabs + 1, 30000);
        QVERIFY(window.runTabs()->currentRun());
        shell(m_alice, QStringLiteral("rm -f %1 %2").arg(link, ownRun));
        shell(m_bob, QStringLiteral("rm -f %1").arg(bobRun));
    }

    void mainWindowBrowsesAsTheUserAndReadOnlyAsAnother()
    {
        QTemporaryDir settings;
        QVERIFY(settings.isValid());
        MainWindow window(settings.filePath(QStringLiteral("profiles.ini")));
        QStringList tabs;
        for (int tab = 0; tab < window.pages()->count(); ++tab)
            tabs << window.pages()->tabText(tab);
        QVERIFY2(tabs.contains(QStringLiteral("Files")) && tabs.contains(QStringLiteral("Users")),
            qPrintable(tabs.join(u',')));
        QSignalSpy probed(&window, &MainWindow::serverChecked);
        window.connectToServer(m_server->connection(), m_alice.userId, QStringLiteral("lab"));
        QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 60000);
        FilesPage *files = window.filesPage();
        QCOMPARE(files->identity().userId, m_alice.userId);
        QVERIFY(!files->isReadOnly()); // the profile's own user
        QTRY_COMPARE_WITH_TIMEOUT(files->fileModel()->homePath(), m_aliceHome, 30000);

        window.switchUser(m_bob.userId);
        QCOMPARE(files->identity().userId, m_bob.userId);
        QVERIFY(files->isReadOnly()); // someone else's files: read-only until switched
        QVERIFY2(files->readOnlyBannerText().contains(m_bob.userId),
            qPrintable(files->readOnlyBannerText()));
        QTRY_COMPARE_WITH_TIMEOUT(files->fileModel()->homePath(), m_bobHome, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 2, 60000);
        // One root, the user's home: never "/home" beside it.
        QTRY_VERIFY_WITH_TIMEOUT(
            files->fileModel()->loadState(files->fileModel()->indexForPath(m_bobHome))
                == RemoteFileModel::LoadState::Loaded,
            30000);
        QTest::qWait(500);
        QStringList roots;
        for (int row = 0; row < files->fileModel()->rowCount(); ++row)
            roots << files->fileModel()->index(row, 0).data(RemoteFileModel::PathRole).toString();
        QCOMPARE(roots, QStringList {m_bobHome});
    }

    void adminOverviewIsRefusedClearlyWhenTheServerRequiresAUser()
    {
        AdminOverviewPage page;
        page.setClient(m_client.get());
        page.setIdentity(Identity {});
        page.show();
        QTRY_COMPARE_WITH_TIMEOUT(page.model()->state(), ScanState::Refused, 30000);
        QVERIFY2(page.messageBar()->text().contains(QLatin1String("per-user access")),
            qPrintable(page.messageBar()->text()));
        QCOMPARE(page.proxy()->rowCount(), 0);
    }

    // The newer server refuses its own account; the admin command (sudo -n: this machine is
    // the sandbox host) scans every home whoever is acted as, and the page says which way.
    void adminOverviewGoesThroughTheAdminCommandOnTheNewerServer()
    {
        shell(m_bob, QStringLiteral("cd ~ && mkdir -p chat-admin1 chat-admin2"));
        const QString bobAccount = m_bobHome.section(QLatin1Char('/'), 2, 2);
        AdminAccess admin;
        QVERIFY(AdminAccess::fromCommand(QStringLiteral("sudo -n"), &admin));
        AdminOverviewPage page;
        page.setClient(m_client.get());
        page.setIdentity(m_alice);
        page.setAdminAccess(admin);
        page.resize(900, 500);
        page.show();
        QTRY_COMPARE_WITH_TIMEOUT(page.model()->state(), ScanState::Loaded, 120000);
        const int bobRow = page.model()->rowOfAccount(bobAccount);
        QVERIFY2(bobRow >= 0, qPrintable(bobAccount));
        QVERIFY(page.model()->accounts().at(bobRow).chats.size() >= 2);
        QVERIFY(page.model()->accounts().at(bobRow).diskBytes > 0);
        QVERIFY2(page.stateText().contains(QLatin1String("admin command \"sudo -n sh -s\"")),
            qPrintable(page.stateText()));
    }

    void adminOverviewListsTheUsersOfTheLegacyServerAndBrowsesAsOne()
    {
        QString error;
        QVERIFY2(useVersion(RealServer::pinnedVersion("OPEN_TERMINAL_LEGACY_VERSION"), &error),
            qPrintable(error));
        OpenTerminalClient &client = *m_client;
        const QString suffix = test::randomToken(3, true);
        const Identity carol {QStringLiteral("carol") + suffix, {}};
        const Identity dave {QStringLiteral("dave") + suffix, {}};
        shell(carol,
            QStringLiteral("cd ~ && mkdir -p chat-a chat-b && head -c 40000 /dev/zero > chat-a/f"),
            &client);
        shell(dave, QStringLiteral("cd ~ && mkdir -p chat-c && printf x > chat-c/f"), &client);
        const QString carolAccount = homeOf(carol, &client).section(QLatin1Char('/'), 2, 2);
        const QString daveAccount = homeOf(dave, &client).section(QLatin1Char('/'), 2, 2);
        QVERIFY(!carolAccount.isEmpty() && !daveAccount.isEmpty());

        AdminOverviewPage page;
        page.setClient(&client);
        page.setIdentity(Identity {});
        page.resize(900, 500);
        page.show(); // the first showing scans
        QTRY_COMPARE_WITH_TIMEOUT(page.model()->state(), ScanState::Loaded, 120000);
        const int carolRow = page.model()->rowOfAccount(carolAccount);
        const int daveRow = page.model()->rowOfAccount(daveAccount);
        QVERIFY2(carolRow >= 0, qPrintable(carolAccount));
        QVERIFY2(daveRow >= 0, qPrintable(daveAccount));
        QCOMPARE(page.model()->accounts().at(carolRow).chats.size(), 2);
        QCOMPARE(page.model()->accounts().at(daveRow).chats.size(), 1);
        QVERIFY2(page.stateText().contains(QLatin1String("user")), qPrintable(page.stateText()));

        // Sorted by size, largest first: carol before dave.
        QTreeView *view = page.accountsView();
        view->sortByColumn(AdminOverviewModel::SizeColumn, Qt::DescendingOrder);
        const auto viewRowOf = [&](const QString &account) {
            for (int row = 0; row < page.proxy()->rowCount(); ++row) {
                if (page.proxy()->index(row, 0).data(AdminOverviewModel::AccountRole).toString()
                    == account)
                    return row;
            }
            return -1;
        };
        QVERIFY(viewRowOf(carolAccount) < viewRowOf(daveAccount));

        // Selecting a user lists the chats; a double-click asks to act as that user, with an
        // id the server maps onto the same account.
        const QModelIndex carolIndex = page.proxy()->index(viewRowOf(carolAccount), 0);
        view->setCurrentIndex(carolIndex);
        QCOMPARE(page.chatsView()->topLevelItemCount(), 2);
        QSignalSpy actAs(&page, &AdminOverviewPage::actAsUserRequested);
        view->scrollTo(carolIndex);
        const QPoint carolPoint = view->visualRect(carolIndex).center();
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, carolPoint);
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, carolPoint);
        QCOMPARE(actAs.count(), 1);
        const QString userId = actAs.first().at(0).toString();
        QVERIFY(!userId.isEmpty());
        QCOMPARE(homeOf(Identity {userId, {}}, &client), QStringLiteral("/home/") + carolAccount);
    }

    void userIdForAccountUndoesTheLegacyNaming_data()
    {
        QTest::addColumn<QString>("userId");
        QTest::addColumn<QString>("prefix");
        QTest::newRow("plain") << QStringLiteral("carolxyz") << QString();
        QTest::newRow("prefixed") << QStringLiteral("davezz") << QStringLiteral("sstab_");
        QTest::newRow("leading digit") << QStringLiteral("3f2a9c1e") << QString();
        QTest::newRow("long id") << QStringLiteral("alice@example.com") << QStringLiteral("ot-");
    }

    void userIdForAccountUndoesTheLegacyNaming()
    {
        QFETCH(QString, userId);
        QFETCH(QString, prefix);
        const QString account = predictAccountName(userId, AccountRule::FirstEightAlnum, prefix);
        for (const QString &known : {prefix, QString()}) {
            const QString found = AdminOverviewPage::userIdForAccount(account, known);
            QVERIFY2(!found.isEmpty(), qPrintable(account));
            QCOMPARE(predictAccountName(found, AccountRule::FirstEightAlnum, prefix), account);
        }
        QCOMPARE(AdminOverviewPage::userIdForAccount(QStringLiteral("root")), QString());
    }
};

QTEST_MAIN(TestFilesPage)
#include "tst_filespage.moc"
