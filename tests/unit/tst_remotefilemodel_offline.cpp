// The remote file tree, its filter proxy and the chat-scan parser without a server: listings
// are fed with applyListing (what the model does with every server answer), so the diffing,
// batching and proxy rules can be checked exactly. The server round trips are in
// tests/integration/tst_files.cpp.

#include "files/chatscan.h"
#include "files/filefilterproxy.h"
#include "files/remotefilemodel.h"
#include "modelwalk.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

namespace {

FileEntry file(const QString &name, qint64 size = 1, qint64 mtime = 1700000000)
{
    FileEntry entry;
    entry.name = name;
    entry.size = size;
    entry.modified = QDateTime::fromSecsSinceEpoch(mtime);
    return entry;
}

FileEntry folder(const QString &name)
{
    FileEntry entry = file(name, 4096);
    entry.isDirectory = true;
    return entry;
}

QStringList namesUnder(const QAbstractItemModel &model, const QModelIndex &parent)
{
    QStringList names;
    for (int row = 0; row < model.rowCount(parent); ++row)
        names << model.index(row, 0, parent).data(Qt::EditRole).toString();
    return names;
}

// What the server's terminal carries for `bytes`: the escaping stage of the scan scripts,
// run by the local GNU sed.
QStringList escapedLines(const QByteArray &bytes)
{
    QProcess sed;
    sed.start(QStringLiteral("/bin/sh"),
        {QStringLiteral("-c"), QStringLiteral("LC_ALL=C sed -z -n 'l 0' | tr '\\000' '\\n'")});
    sed.write(bytes);
    sed.closeWriteChannel();
    if (!sed.waitForFinished(10000))
        return {};
    return QString::fromLatin1(sed.readAllStandardOutput())
        .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

} // namespace

class RemoteFileModelOfflineTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void locationStartsUnlistedAndListingMarksItLoaded()
    {
        RemoteFileModel model(nullptr);
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QModelIndex home = model.addLocation(QStringLiteral("/home/alice/"));
        QCOMPARE(model.pathOf(home), QStringLiteral("/home/alice"));
        QCOMPARE(model.loadState(home), RemoteFileModel::LoadState::NotLoaded);
        QVERIFY(model.hasChildren(home)); // an expander before anything is known
        QCOMPARE(model.rowCount(home), 0); // and no placeholder row
        QVERIFY(!model.canFetchMore(home)); // without a client nothing is fetched
        QCOMPARE(model.addLocation(QStringLiteral("/home/alice")), home);

        model.applyListing(home, {folder(QStringLiteral("src")), file(QStringLiteral("a.txt"), 5)});
        QCOMPARE(home.data(RemoteFileModel::LoadStateRole).toInt(),
            int(RemoteFileModel::LoadState::Loaded));
        QCOMPARE(namesUnder(model, home),
            (QStringList {QStringLiteral("src"), QStringLiteral("a.txt")}));
        const QModelIndex src = childNamed(model, home, QStringLiteral("src"));
        QCOMPARE(model.loadState(src), RemoteFileModel::LoadState::NotLoaded);
        QCOMPARE(src.data(RemoteFileModel::PathRole).toString(), QStringLiteral("/home/alice/src"));
        QCOMPARE(
            src.data(RemoteFileModel::MimeTypeRole).toString(), QStringLiteral("inode/directory"));
        const QModelIndex text = childNamed(model, home, QStringLiteral("a.txt"));
        QCOMPARE(text.data(RemoteFileModel::MimeTypeRole).toString(), QStringLiteral("text/plain"));
        QCOMPARE(text.data(RemoteFileModel::SizeRole).toLongLong(), 5);
        QVERIFY(model.flags(text).testFlag(Qt::ItemNeverHasChildren));
        QCOMPARE(model.indexForPath(QStringLiteral("/home/alice/a.txt")), text);
        QVERIFY(!model.indexForPath(QStringLiteral("/home/alice/missing")).isValid());
    }

    // A name shows every control and invisible character as <U+XXXX>, so a file cannot pretend
    // to be another; its path stays exact for every action (issue 27).
    void hostileNamesAreShownVisiblyAndKeptExact()
    {
        RemoteFileModel model(nullptr);
        const QModelIndex home = model.addLocation(QStringLiteral("/h"));
        QString reordered = QStringLiteral("invoice");
        reordered.append(QChar(0x202e)).append(QStringLiteral("fdp.exe"));
        QString hidden = QStringLiteral("ok");
        hidden.append(QString::fromUcs4(U"\U000E0041"));
        model.applyListing(home,
            {file(reordered), file(QStringLiteral("a\nb")), file(hidden),
                file(QStringLiteral("\x1b]0;t\x07"))});
        QStringList shown;
        for (int row = 0; row < model.rowCount(home); ++row)
            shown << model.index(row, 0, home).data(Qt::DisplayRole).toString();
        shown.sort();
        QCOMPARE(shown,
            (QStringList {QStringLiteral("<U+001B>]0;t<U+0007>"), QStringLiteral("a<U+000A>b"),
                QStringLiteral("invoice<U+202E>fdp.exe"), QStringLiteral("ok<U+E0041>")}));
        QCOMPARE(model.indexForPath(QStringLiteral("/h/") + reordered)
                     .data(RemoteFileModel::PathRole)
                     .toString(),
            QStringLiteral("/h/") + reordered);
    }

    void emptyFolderHasNoChildrenOnceListed()
    {
        RemoteFileModel model(nullptr);
        const QModelIndex home = model.addLocation(QStringLiteral("/h"));
        model.applyListing(home, {});
        QVERIFY(!model.hasChildren(home));
    }

    void twentyThousandEntriesArriveInOneInsertion()
    {
        RemoteFileModel model(nullptr);
        const QModelIndex home = model.addLocation(QStringLiteral("/h"));
        QVector<FileEntry> entries;
        for (int i = 0; i < 20000; ++i)
            entries.append(file(QStringLiteral("f%1.dat").arg(i, 5, 10, QLatin1Char('0')), i));
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QElapsedTimer timer;
        timer.start();
        model.applyListing(home, entries);
        const qint64 insertMs = timer.elapsed();
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.first().at(1).toInt(), 0);
        QCOMPARE(inserted.first().at(2).toInt(), 19999);
        QCOMPARE(model.rowCount(home), 20000);

        FileFilterProxy proxy;
        timer.restart();
        proxy.setSourceModel(&model);
        proxy.sort(RemoteFileModel::NameColumn, Qt::DescendingOrder);
        const QModelIndex proxyHome = proxy.index(0, 0);
        QCOMPARE(proxy.rowCount(proxyHome), 20000);
        QCOMPARE(proxy.index(0, 0, proxyHome).data(Qt::EditRole).toString(),
            QStringLiteral("f19999.dat"));
        // Figures only (bench_filebrowser measures them against the real page).
        qInfo("insertion %lld ms, sorting %lld ms", insertMs, timer.elapsed());
    }

    void refreshAppliesTheDifferenceAndKeepsExpandedFolders()
    {
        RemoteFileModel model(nullptr);
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QModelIndex home = model.addLocation(QStringLiteral("/h"));
        model.applyListing(home,
            {folder(QStringLiteral("keep")), file(QStringLiteral("gone1")),
                file(QStringLiteral("gone2")), file(QStringLiteral("grows"), 10),
                file(QStringLiteral("same"), 3), file(QStringLiteral("flips"))});
        const QModelIndex keep = childNamed(model, home, QStringLiteral("keep"));
        model.applyListing(keep, {file(QStringLiteral("inner.txt"))});
        const QPersistentModelIndex inner = childNamed(model, keep, QStringLiteral("inner.txt"));
        const QPersistentModelIndex same = childNamed(model, home, QStringLiteral("same"));
        QVERIFY(inner.isValid());

        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.applyListing(home,
            {folder(QStringLiteral("keep")), file(QStringLiteral("grows"), 99),
                file(QStringLiteral("same"), 3), folder(QStringLiteral("flips")),
                file(QStringLiteral("new1")), file(QStringLiteral("new2"))});

        QCOMPARE(reset.count(), 0);
        // gone1+gone2 are one run, flips (file -> folder) another.
        QCOMPARE(removed.count(), 2);
        QCOMPARE(inserted.count(), 1); // flips, new1, new2 in one insertion
        QCOMPARE(inserted.first().at(2).toInt() - inserted.first().at(1).toInt() + 1, 3);
        QVERIFY(!changed.isEmpty());
        QCOMPARE(childNamed(model, home, QStringLiteral("grows"))
                     .data(RemoteFileModel::SizeRole)
                     .toLongLong(),
            99);
        QVERIFY(childNamed(model, home, QStringLiteral("flips"))
                    .data(RemoteFileModel::IsDirectoryRole)
                    .toBool());
        QVERIFY(!childNamed(model, home, QStringLiteral("gone1")).isValid());
        // The expanded folder and its rows survived, and kept rows kept their identity.
        QVERIFY(inner.isValid());
        QCOMPARE(
            inner.data(RemoteFileModel::PathRole).toString(), QStringLiteral("/h/keep/inner.txt"));
        QVERIFY(same.isValid());
        QCOMPARE(same.data(Qt::EditRole).toString(), QStringLiteral("same"));
        QCOMPARE(model.rowCount(home), 6);
    }

    void unchangedListingEmitsNothing()
    {
        RemoteFileModel model(nullptr);
        const QModelIndex home = model.addLocation(QStringLiteral("/h"));
        const QVector<FileEntry> listing {file(QStringLiteral("a")), folder(QStringLiteral("b"))};
        model.applyListing(home, listing);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.applyListing(home, listing);
        QCOMPARE(removed.count() + inserted.count() + changed.count(), 0);
    }

    void refusedFolderOfAnotherUserNamesThem()
    {
        ApiError error;
        error.kind = ApiError::Kind::Forbidden;
        error.httpStatus = 403;
        const QString text
            = RemoteFileModel::listingErrorText(error, QStringLiteral("/home/bob_1234/projects"));
        QVERIFY2(text.contains(QStringLiteral("files of bob_1234")), qPrintable(text));
        error.kind = ApiError::Kind::NotFound;
        QVERIFY(RemoteFileModel::listingErrorText(error, QStringLiteral("/x"))
                    .contains(QStringLiteral("/x")));
    }

    void proxyPutsFoldersFirstInBothOrders_data()
    {
        QTest::addColumn<int>("column");
        QTest::addColumn<int>("order");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("name ascending")
            << int(RemoteFileModel::NameColumn) << int(Qt::AscendingOrder)
            << QStringList {QStringLiteral("Dir2"), QStringLiteral("dir10"), QStringLiteral("a"),
                   QStringLiteral("B"), QStringLiteral("file2"), QStringLiteral("file10")};
        QTest::newRow("name descending")
            << int(RemoteFileModel::NameColumn) << int(Qt::DescendingOrder)
            << QStringList {QStringLiteral("dir10"), QStringLiteral("Dir2"),
                   QStringLiteral("file10"), QStringLiteral("file2"), QStringLiteral("B"),
                   QStringLiteral("a")};
        QTest::newRow("size ascending")
            << int(RemoteFileModel::SizeColumn) << int(Qt::AscendingOrder)
            << QStringList {QStringLiteral("Dir2"), QStringLiteral("dir10"),
                   QStringLiteral("file10"), QStringLiteral("B"), QStringLiteral("file2"),
                   QStringLiteral("a")};
    }

    void proxyPutsFoldersFirstInBothOrders()
    {
        QFETCH(int, column);
        QFETCH(int, order);
        QFETCH(QStringList, expected);
        RemoteFileModel model(nullptr);
        const QModelIndex home = model.addLocation(QStringLiteral("/h"));
        model.applyListing(home,
            {file(QStringLiteral("file10"), 1), folder(QStringLiteral("dir10")),
                file(QStringLiteral("a"), 40), file(QStringLiteral("B"), 2),
                folder(QStringLiteral("Dir2")), file(QStringLiteral("file2"), 30)});
        FileFilterProxy proxy;
        QAbstractItemModelTester tester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.sort(column, Qt::SortOrder(order));
        QCOMPARE(namesUnder(proxy, proxy.index(0, 0)), expected);
    }

    void proxyHidesDotEntriesAndWhatIsInsideThem()
    {
        RemoteFileModel model(nullptr);
        const QModelIndex home = model.addLocation(QStringLiteral("/h"));
        model.applyListing(home,
            {folder(QStringLiteral(".cache")), file(QStringLiteral(".bashrc")),
                file(QStringLiteral("notes.md"))});
        model.applyListing(
            childNamed(model, home, QStringLiteral(".cache")), {file(QStringLiteral("notes.bin"))});
        FileFilterProxy proxy;
        QAbstractItemModelTester tester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.sort(0);
        const QModelIndex proxyHome = proxy.index(0, 0);
        QCOMPARE(namesUnder(proxy, proxyHome), QStringList {QStringLiteral("notes.md")});
        // A match inside a hidden folder does not bring the folder back.
        proxy.setNameFilter(QStringLiteral("notes"));
        QCOMPARE(namesUnder(proxy, proxy.index(0, 0)), QStringList {QStringLiteral("notes.md")});
        proxy.setShowHidden(true);
        QCOMPARE(namesUnder(proxy, proxy.index(0, 0)),
            (QStringList {QStringLiteral(".cache"), QStringLiteral("notes.md")}));
    }

    void nameFilterKeepsFoldersOnTheWayToAMatch()
    {
        RemoteFileModel model(nullptr);
        const QModelIndex home = model.addLocation(QStringLiteral("/h"));
        model.applyListing(home,
            {folder(QStringLiteral("src")), folder(QStringLiteral("docs")),
                file(QStringLiteral("README"))});
        model.applyListing(childNamed(model, home, QStringLiteral("src")),
            {file(QStringLiteral("main.cpp")), file(QStringLiteral("util.h"))});
        FileFilterProxy proxy;
        QAbstractItemModelTester tester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.sort(0);
        proxy.setNameFilter(QStringLiteral("*.CPP"));
        const QModelIndex proxyHome = proxy.index(0, 0);
        QCOMPARE(namesUnder(proxy, proxyHome), QStringList {QStringLiteral("src")});
        QCOMPARE(namesUnder(proxy, proxy.index(0, 0, proxyHome)),
            QStringList {QStringLiteral("main.cpp")});
        proxy.setNameFilter(QStringLiteral("read"));
        QCOMPARE(namesUnder(proxy, proxy.index(0, 0)), QStringList {QStringLiteral("README")});
        proxy.setNameFilter(QString());
        QCOMPARE(proxy.rowCount(proxy.index(0, 0)), 3);
    }

    void chatScanDecodesAnyNameAndIgnoresNoise()
    {
        // A home record, a chat whose name holds a newline, a tab and a backslash, and one
        // with a non-ASCII name.
        // (Built with append(): GCC 12 -O2 misreports QStringBuilder with '\0' operands.)
        QByteArray stream;
        stream.append("U\t/home/alice").append('\0');
        stream.append("8195\t1577934245\t/home/alice//chat-a\nb\tc\\").append('\0');
        stream.append("12\t1700000000\t/home/alice/chat-\xc3\xa9").append('\0');
        chatscan::Parser parser;
        QVector<ChatScanRecord> records;
        records += parser.feedLine(QStringLiteral("sudo: some warning"));
        records
            += parser.feedLine(QStringLiteral("U\\t/home/mallory$")); // before the marker: noise
        records += parser.feedLine(QStringLiteral("SANDSCOPE-CHATS-BEGIN"));
        const QStringList lines = escapedLines(stream);
        QCOMPARE(lines.size(), 3);
        for (const QString &line : lines)
            records += parser.feedLine(line);
        records += parser.feedLine(QStringLiteral("du: cannot read directory"));
        QVERIFY(!parser.sawEnd());
        records += parser.feedLine(QStringLiteral("SANDSCOPE-CHATS-END"));
        QVERIFY(parser.sawEnd());

        QCOMPARE(records.size(), 3);
        QVERIFY(records.at(0).isHome());
        QCOMPARE(records.at(0).homePath, QStringLiteral("/home/alice"));
        const ChatFolder &odd = records.at(1).chat;
        QCOMPARE(odd.id, QStringLiteral("a\nb\tc\\"));
        QCOMPARE(odd.account, QStringLiteral("alice"));
        QCOMPARE(odd.path, QStringLiteral("/home/alice/chat-a\nb\tc\\"));
        QCOMPARE(odd.size, 8195);
        QCOMPARE(odd.lastActivity.toSecsSinceEpoch(), 1577934245);
        QCOMPARE(records.at(2).chat.id, QString(QChar(0xe9)));
    }

    // The admin script run by the local shell (the same GNU tools the server has) over a
    // fabricated /home: names with quotes, spaces and newlines, a home without chats.
    void allUsersScriptMeasuresEveryChatInOneRun()
    {
        QTemporaryDir homes;
        QVERIFY(homes.isValid());
        const QString root = homes.filePath(QStringLiteral("it's homes"));
        const QString odd = QStringLiteral("chat-x y\nz'");
        QVERIFY(QDir().mkpath(root + QStringLiteral("/alice/chat-1")));
        QVERIFY(QDir().mkpath(root + QStringLiteral("/alice/") + odd));
        QVERIFY(QDir().mkpath(root + QStringLiteral("/bob")));
        // Sessions: bob has one written now (running) and one from yesterday.
        const QString project = root + QStringLiteral("/bob/.claude/projects/-home-bob-chat-1");
        QVERIFY(QDir().mkpath(project));
        for (const char *name : {"/s-now.jsonl", "/s-old.jsonl"}) {
            QFile transcript(project + QLatin1String(name));
            QVERIFY(transcript.open(QIODevice::WriteOnly));
            transcript.write("{}\n");
            QVERIFY(transcript.flush());
            if (QByteArray(name).contains("old"))
                QVERIFY(transcript.setFileTime(
                    QDateTime::currentDateTime().addDays(-1), QFileDevice::FileModificationTime));
        }
        QFile payload(root + QStringLiteral("/alice/chat-1/out.bin"));
        QVERIFY(payload.open(QIODevice::WriteOnly));
        payload.write(QByteArray(1000, 'x'));
        QVERIFY(payload.flush()); // a later flush would set the time to now again
        const QDateTime later = QDateTime::currentDateTime().addDays(3);
        QVERIFY(payload.setFileTime(later, QFileDevice::FileModificationTime));
        payload.close();

        QProcess shell;
        shell.start(
            QStringLiteral("/bin/sh"), {QStringLiteral("-c"), chatscan::allUsersScript(root)});
        QVERIFY(shell.waitForFinished(30000));
        chatscan::Parser parser(root);
        QVector<ChatScanRecord> records;
        for (const QByteArray &line : shell.readAllStandardOutput().split('\n'))
            records += parser.feedLine(QString::fromUtf8(line));
        QVERIFY(parser.sawEnd());

        QStringList homesSeen;
        QHash<QString, ChatFolder> chats;
        QHash<QString, qint64> disk;
        QStringList sessionHomes;
        QDateTime clock;
        for (const ChatScanRecord &record : records) {
            switch (record.kind) {
            case ChatScanRecord::Kind::Home:
                homesSeen << record.homePath;
                break;
            case ChatScanRecord::Kind::Chat:
                chats.insert(record.chat.id, record.chat);
                break;
            case ChatScanRecord::Kind::HomeUsage:
                disk.insert(record.homePath, record.bytes);
                break;
            case ChatScanRecord::Kind::Session:
                sessionHomes << record.homePath;
                break;
            case ChatScanRecord::Kind::Clock:
                clock = record.modified;
                break;
            }
        }
        QVERIFY(qAbs(clock.secsTo(QDateTime::currentDateTimeUtc())) < 60);
        QCOMPARE(sessionHomes,
            (QStringList {root + QStringLiteral("/bob"), root + QStringLiteral("/bob")}));
        QCOMPARE(disk.size(), 2);
        QVERIFY(disk.value(root + QStringLiteral("/alice")) > 1000); // the chat's file and more
        QVERIFY(disk.value(root + QStringLiteral("/bob")) > 6); // two transcripts
        homesSeen.sort();
        QCOMPARE(homesSeen,
            (QStringList {root + QStringLiteral("/alice"), root + QStringLiteral("/bob")}));
        QCOMPARE(chats.size(), 2);
        const ChatFolder one = chats.value(QStringLiteral("1"));
        QCOMPARE(one.account, QStringLiteral("alice"));
        QCOMPARE(one.path, root + QStringLiteral("/alice/chat-1"));
        // The content only: the folder entry's own size (du -sb's 4 KiB) does not count.
        QCOMPARE(one.size, qint64(1000));
        QCOMPARE(one.lastActivity.toSecsSinceEpoch(), later.toSecsSinceEpoch());
        QVERIFY(chats.contains(odd.mid(5)));
        QCOMPARE(chats.value(odd.mid(5)).size, qint64(0)); // an empty chat
    }
};

QTEST_GUILESS_MAIN(RemoteFileModelOfflineTest)
#include "tst_remotefilemodel_offline.moc"
