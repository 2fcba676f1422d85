// The run artifact scan and the prompt attachment helpers, without a server: the scan script
// runs through the local sh with GNU find (what the server's shell runs), on files made
// before and after a reference file; names with newlines, tabs and non-UTF-8-safe bytes come
// back exactly; files moved in with an old mtime count (status change); the list model merges
// a new scan without a reset (QAbstractItemModelTester).

#include "runs/artifactscanner.h"
#include "runs/promptattachments.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;

namespace {

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

// The kernel stamps files with a coarse clock: steps this far apart get distinct times.
void letTheClockTick()
{
    QTest::qSleep(60);
}

// Runs the script like the server does (sh -c, as the user whose home is `home`, by default
// the workdir's parent) and parses its output lines.
QVector<ArtifactFile> runScan(const QString &workDirectory, const QString &reference, int limit,
    bool *referenceMissing = nullptr, QString *refusal = nullptr, QString home = {})
{
    QProcess shell;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(
        QStringLiteral("HOME"), home.isEmpty() ? QFileInfo(workDirectory).absolutePath() : home);
    shell.setProcessEnvironment(environment);
    shell.start(QStringLiteral("sh"),
        {QStringLiteral("-c"), artifactscan::script(workDirectory, reference, limit)});
    if (!shell.waitForFinished(20000))
        return {};
    const QString output = QString::fromUtf8(shell.readAllStandardOutput());
    artifactscan::Parser parser(workDirectory);
    QVector<ArtifactFile> files;
    for (const QString &line : output.split(QLatin1Char('\n')))
        files += parser.feedLine(line);
    if (referenceMissing)
        *referenceMissing = parser.referenceMissing();
    if (refusal)
        *refusal = parser.refusal();
    if (!parser.sawEnd() && !parser.referenceMissing() && parser.refusal().isEmpty())
        qWarning("scan output without end marker: %s", qPrintable(output));
    return files;
}

QStringList relativePaths(const QVector<ArtifactFile> &files)
{
    QStringList paths;
    for (const ArtifactFile &file : files)
        paths << file.relativePath;
    return paths;
}

ArtifactFile artifact(const QString &relative, qint64 size, qint64 msecs)
{
    ArtifactFile file;
    file.relativePath = relative;
    file.absolutePath = QStringLiteral("/home/u/chat-1/") + relative;
    file.size = size;
    file.modified = QDateTime::fromMSecsSinceEpoch(msecs);
    return file;
}

} // namespace

class ArtifactScanTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void scanListsOnlyFilesChangedAfterTheReference();
    void scanKeepsEveryByteOfOddNames();
    void scanIsNewestFirstAndTruncatedAtTheLimit();
    void missingReferenceIsReported();
    void aMomentCanBeTheReference();
    void aWorkdirLinkedOutOfTheHomeIsNotListed();
    void parserIgnoresNoiseAndBrokenRecords();
    void modelMergesANewScanWithoutReset();
    void uniqueNameNeverReusesATakenName_data();
    void uniqueNameNeverReusesATakenName();
    void promptReferencesEachAttachmentOnItsOwnLine();
    void localFilesThatCannotBeAttachedAreNamed();

private:
    QTemporaryDir m_dir;
};

// A chat folder that is a link to a folder outside the user's home (another user's) is not
// listed; the refusal names the link and its target. The same folder inside the home is.
void ArtifactScanTest::aWorkdirLinkedOutOfTheHomeIsNotListed()
{
    const QString home = m_dir.filePath(QStringLiteral("home-linked"));
    const QString elsewhere = m_dir.filePath(QStringLiteral("elsewhere"));
    QVERIFY(QDir().mkpath(home) && QDir().mkpath(elsewhere));
    QVERIFY(writeFile(elsewhere + QStringLiteral("/theirs.txt"), "not yours"));
    const QString link = home + QStringLiteral("/chat-linked");
    QVERIFY(QFile::link(elsewhere, link));
    const QString moment = QStringLiteral("@0");
    QString refusal;
    QVERIFY(runScan(link, moment, 10, nullptr, &refusal, home).isEmpty());
    QVERIFY2(refusal.contains(link) && refusal.contains(elsewhere)
            && refusal.contains(QLatin1String("outside the home")),
        qPrintable(refusal));
    // Seen from a home that holds the target, the same folder lists.
    QCOMPARE(relativePaths(runScan(link, moment, 10, nullptr, &refusal, m_dir.path())),
        QStringList {QStringLiteral("theirs.txt")});
    QVERIFY(refusal.isEmpty());
}

// A session found on disk has no reference file: "@<seconds>" (its first record's time).
void ArtifactScanTest::aMomentCanBeTheReference()
{
    const QString work = m_dir.filePath(QStringLiteral("chat-moment"));
    QVERIFY(QDir().mkpath(work));
    QVERIFY(writeFile(work + QStringLiteral("/before.txt"), "old"));
    QFile before(work + QStringLiteral("/before.txt"));
    const QDateTime past = QDateTime::currentDateTimeUtc().addSecs(-3600);
    QVERIFY(before.open(QIODevice::ReadWrite));
    QVERIFY(before.setFileTime(past, QFileDevice::FileModificationTime));
    before.close();
    QVERIFY(writeFile(work + QStringLiteral("/after.txt"), "new"));
    const QString moment
        = QLatin1Char('@') + QString::number(QDateTime::currentSecsSinceEpoch() - 60);

    bool missing = true;
    const QVector<ArtifactFile> files = runScan(work, moment, 10, &missing);
    QVERIFY(!missing);
    // before.txt's status changed now (setFileTime), so only its modification time is old:
    // a moment compares both, as the file reference does.
    QVERIFY(relativePaths(files).contains(QStringLiteral("after.txt")));
    const QString future
        = QLatin1Char('@') + QString::number(QDateTime::currentSecsSinceEpoch() + 3600);
    QCOMPARE(runScan(work, future, 10).size(), 0);
}

void ArtifactScanTest::scanListsOnlyFilesChangedAfterTheReference()
{
    const QString work = m_dir.filePath(QStringLiteral("chat-a"));
    QVERIFY(QDir().mkpath(work + QStringLiteral("/old-dir")));
    QVERIFY(writeFile(work + QStringLiteral("/old.txt"), "old"));
    QVERIFY(writeFile(work + QStringLiteral("/old-dir/kept.txt"), "kept"));
    letTheClockTick();
    const QString reference = m_dir.filePath(QStringLiteral("a.prompt"));
    QVERIFY(writeFile(reference, "prompt"));
    letTheClockTick();
    QVERIFY(writeFile(work + QStringLiteral("/new.txt"), "12345"));
    QVERIFY(QDir().mkpath(work + QStringLiteral("/made/deep")));
    QVERIFY(writeFile(work + QStringLiteral("/made/deep/.hidden"), ""));
    QVERIFY(writeFile(work + QStringLiteral("/old-dir/kept.txt"), "changed!"));
    // Extracted or moved in with an old modification time: its status change is new.
    QVERIFY(writeFile(work + QStringLiteral("/unpacked.txt"), "u"));
    QFile unpacked(work + QStringLiteral("/unpacked.txt"));
    QVERIFY(unpacked.open(QIODevice::ReadWrite));
    QVERIFY(unpacked.setFileTime(
        QDateTime::fromSecsSinceEpoch(978307200), QFileDevice::FileModificationTime));
    unpacked.close();

    const QVector<ArtifactFile> files = runScan(work, reference, 100);
    QStringList paths = relativePaths(files);
    paths.sort();
    QCOMPARE(paths,
        QStringList({QStringLiteral("made/deep/.hidden"), QStringLiteral("new.txt"),
            QStringLiteral("old-dir/kept.txt"), QStringLiteral("unpacked.txt")}));
    for (const ArtifactFile &file : files) {
        QCOMPARE(file.absolutePath, work + QLatin1Char('/') + file.relativePath);
        QCOMPARE(file.size, QFileInfo(file.absolutePath).size());
    }
    const ArtifactFile fresh
        = files.at(int(relativePaths(files).indexOf(QStringLiteral("new.txt"))));
    QCOMPARE(fresh.size, 5);
    QVERIFY(qAbs(fresh.modified.msecsTo(QFileInfo(fresh.absolutePath).lastModified())) <= 1);
}

void ArtifactScanTest::scanKeepsEveryByteOfOddNames()
{
    const QString work = m_dir.filePath(QStringLiteral("chat-b"));
    QVERIFY(QDir().mkpath(work));
    const QString reference = m_dir.filePath(QStringLiteral("b.prompt"));
    QVERIFY(writeFile(reference, "prompt"));
    letTheClockTick();
    const QStringList names {QStringLiteral("line\nbreak.txt"), QStringLiteral("tab\there"),
        QStringLiteral("back\\slash $(x) `y` 'q' \"d\""), QStringLiteral("ünïcødé ✓.md"),
        QStringLiteral("ends with $"), QStringLiteral("-starts-with-dash")};
    for (const QString &name : names)
        QVERIFY2(writeFile(work + QLatin1Char('/') + name, name.toUtf8()), qPrintable(name));

    QStringList found = relativePaths(runScan(work, reference, 100));
    found.sort();
    QStringList expected = names;
    expected.sort();
    QCOMPARE(found, expected);
}

void ArtifactScanTest::scanIsNewestFirstAndTruncatedAtTheLimit()
{
    const QString work = m_dir.filePath(QStringLiteral("chat-c"));
    QVERIFY(QDir().mkpath(work));
    const QString reference = m_dir.filePath(QStringLiteral("c.prompt"));
    QVERIFY(writeFile(reference, "prompt"));
    for (const char *name : {"first", "second", "third"}) {
        letTheClockTick();
        QVERIFY(writeFile(work + QLatin1Char('/') + QLatin1String(name), name));
    }
    // limit + 1 records come back, so the scanner can tell that more changed.
    QCOMPARE(relativePaths(runScan(work, reference, 2)),
        QStringList({QStringLiteral("third"), QStringLiteral("second"), QStringLiteral("first")}));
    QCOMPARE(relativePaths(runScan(work, reference, 1)),
        QStringList({QStringLiteral("third"), QStringLiteral("second")}));
}

void ArtifactScanTest::missingReferenceIsReported()
{
    const QString work = m_dir.filePath(QStringLiteral("chat-d"));
    QVERIFY(QDir().mkpath(work));
    QVERIFY(writeFile(work + QStringLiteral("/x"), "x"));
    bool missing = false;
    QVERIFY(runScan(work, m_dir.filePath(QStringLiteral("gone.prompt")), 10, &missing).isEmpty());
    QVERIFY(missing);
}

void ArtifactScanTest::parserIgnoresNoiseAndBrokenRecords()
{
    artifactscan::Parser parser(QStringLiteral("/home/u/chat-1/"));
    QVERIFY(parser.feedLine(QStringLiteral("1700000000.5\t3\tbefore-begin$")).isEmpty());
    QVERIFY(parser.feedLine(QStringLiteral("SANDSCOPE-ARTIFACTS-BEGIN")).isEmpty());
    QVERIFY(parser.feedLine(QStringLiteral("sudo: unable to resolve host")).isEmpty());
    QVERIFY(parser.feedLine(QStringLiteral("notanumber\t3\tx$")).isEmpty());
    QVERIFY(parser.feedLine(QStringLiteral("1700000000.5\t3\t$")).isEmpty()); // no path
    const QVector<ArtifactFile> files
        = parser.feedLine(QStringLiteral("1700000000.25\t42\tsub/a\\tb\\303\\274$"));
    QCOMPARE(files.size(), 1);
    QCOMPARE(files.at(0).relativePath, QStringLiteral("sub/a\tbü"));
    QCOMPARE(files.at(0).absolutePath, QStringLiteral("/home/u/chat-1/sub/a\tbü"));
    QCOMPARE(files.at(0).size, 42);
    QCOMPARE(files.at(0).modified.toMSecsSinceEpoch(), Q_INT64_C(1700000000250));
    QVERIFY(!parser.sawEnd());
    QVERIFY(parser.feedLine(QStringLiteral("SANDSCOPE-ARTIFACTS-END")).isEmpty());
    QVERIFY(parser.sawEnd());
    QVERIFY(parser.feedLine(QStringLiteral("1700000000.5\t3\tafter-end$")).isEmpty());
}

void ArtifactScanTest::modelMergesANewScanWithoutReset()
{
    ArtifactListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    model.setFiles({artifact(QStringLiteral("a"), 1, 1000), artifact(QStringLiteral("b"), 2, 2000),
        artifact(QStringLiteral("c"), 3, 3000)});
    QCOMPARE(model.rowCount(), 3);
    const QPersistentModelIndex b = model.index(1, ArtifactListModel::SizeColumn);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

    model.setFiles(
        {artifact(QStringLiteral("d"), 4, 4000), artifact(QStringLiteral("b"), 20, 2500)});
    QCOMPARE(model.rowCount(), 2);
    QVERIFY(b.isValid()); // the kept row survived, updated in place
    QCOMPARE(b.data(ArtifactListModel::SortRole).toLongLong(), 20);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(model.index(1, 0).data(ArtifactListModel::AbsolutePathRole).toString(),
        QStringLiteral("/home/u/chat-1/d"));
    QCOMPARE(model.rowOfPath(QStringLiteral("/home/u/chat-1/d")), 1);
    QCOMPARE(model.index(0, ArtifactListModel::ModifiedColumn)
                 .data(ArtifactListModel::SortRole)
                 .toDateTime()
                 .toMSecsSinceEpoch(),
        2500);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(resets.count(), 0);
}

void ArtifactScanTest::uniqueNameNeverReusesATakenName_data()
{
    QTest::addColumn<QString>("wanted");
    QTest::addColumn<QStringList>("taken");
    QTest::addColumn<QString>("expected");
    QTest::newRow("free") << QStringLiteral("a.png") << QStringList() << QStringLiteral("a.png");
    QTest::newRow("taken once") << QStringLiteral("a.png") << QStringList {QStringLiteral("a.png")}
                                << QStringLiteral("a-2.png");
    QTest::newRow("taken twice") << QStringLiteral("a.png")
                                 << QStringList {QStringLiteral("a.png"), QStringLiteral("a-2.png")}
                                 << QStringLiteral("a-3.png");
    QTest::newRow("double suffix")
        << QStringLiteral("x.tar.gz") << QStringList {QStringLiteral("x.tar.gz")}
        << QStringLiteral("x-2.tar.gz");
    QTest::newRow("hidden file") << QStringLiteral(".env") << QStringList {QStringLiteral(".env")}
                                 << QStringLiteral(".env-2");
    QTest::newRow("no suffix") << QStringLiteral("README") << QStringList {QStringLiteral("README")}
                               << QStringLiteral("README-2");
    QTest::newRow("control characters")
        << QStringLiteral("a\nb\tc") << QStringList() << QStringLiteral("a_b_c");
    QTest::newRow("dot dot") << QStringLiteral("..") << QStringList()
                             << QStringLiteral("attachment");
}

void ArtifactScanTest::uniqueNameNeverReusesATakenName()
{
    QFETCH(QString, wanted);
    QFETCH(QStringList, taken);
    QFETCH(QString, expected);
    const QSet<QString> set(taken.cbegin(), taken.cend());
    QCOMPARE(promptattachments::uniqueName(wanted, set), expected);
}

void ArtifactScanTest::promptReferencesEachAttachmentOnItsOwnLine()
{
    QCOMPARE(
        promptattachments::promptWithReferences(QStringLiteral("hi"), {}), QStringLiteral("hi"));
    QCOMPARE(promptattachments::promptWithReferences(QStringLiteral("Look at these\n\n"),
                 {QStringLiteral("attachments/a b.png"), QStringLiteral("attachments/c.csv")}),
        QStringLiteral("Look at these\n\nAttached file: attachments/a b.png\n"
                       "Attached file: attachments/c.csv"));
}

void ArtifactScanTest::localFilesThatCannotBeAttachedAreNamed()
{
    const QString good = m_dir.filePath(QStringLiteral("good.bin"));
    QVERIFY(writeFile(good, QByteArray("\0\1\2", 3)));
    QCOMPARE(promptattachments::checkLocalFiles({good}), QString());
    const QString missing = m_dir.filePath(QStringLiteral("missing.bin"));
    QVERIFY(promptattachments::checkLocalFiles({good, missing}).contains(missing));
    QVERIFY(
        promptattachments::checkLocalFiles({m_dir.path()}).contains(QLatin1String("not a file")));
}

QTEST_GUILESS_MAIN(ArtifactScanTest)
#include "tst_artifactscan.moc"
