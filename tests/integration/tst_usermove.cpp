// Moving a user's home between two fleet members (UserMove), against two REAL multi-user
// open-terminal servers of the pinned version, each in a mount namespace of its own with a
// private /home and its own account prefix, reached as root through `nsenter -t PID -m --`
// (the admin command of a member on this machine):
//  * the dry run says what moves (files, bytes) and changes nothing on either member;
//  * the move makes the account on the new member through its own URL, and the new home then
//    holds exactly what the old one did (names with spaces and newlines, a binary file, an
//    empty one, modes, a link), as the new account, read by the user's own shell there; the
//    old account and home are gone; the report was written step by step;
//  * a home the new member has already keeps its files; the old home's differing ones are set
//    aside in it, so nothing of either is lost;
//  * a failure at any step (injected just before it runs) ends the move with the old home
//    exactly as it was, no staging folder left, and the report naming the step;
//  * a member whose admin command does not work is named, and nothing moves.

#include "fleetmembers.h"
#include "server/accountnames.h"
#include "server/openterminalclient.h"
#include "testing.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

namespace {

// What a home holds, as the user's own shell sees it: each entry's path, type, mode, size and
// content (a file's sha256, a link's target), sorted; owners are checked separately.
const QString listing = QStringLiteral(
    "cd ~ && python3 -c '\n"
    "import os, stat, hashlib\n"
    "out = []\n"
    "for root, dirs, files in os.walk(\".\"):\n"
    "    dirs[:] = [d for d in dirs if not d.startswith(\".sandscope-moved-\")]\n"
    "    for name in dirs + files:\n"
    "        p = os.path.join(root, name)\n"
    "        st = os.lstat(p)\n"
    "        if stat.S_ISLNK(st.st_mode): c = os.readlink(p)\n"
    "        elif stat.S_ISREG(st.st_mode): c = hashlib.sha256(open(p, "
    "\"rb\").read()).hexdigest()\n"
    "        else: c = \"-\"\n"
    "        size = st.st_size if stat.S_ISREG(st.st_mode) else 0\n"
    "        out.append(repr((p, stat.S_IFMT(st.st_mode), oct(st.st_mode & 0o7777), size, c)))\n"
    "print(chr(10).join(sorted(out)))\n"
    "'");

} // namespace

class UserMoveTest : public QObject {
    Q_OBJECT

private:
    TestMember m_a;
    TestMember m_b;
    QTemporaryDir m_local;

    QString accountOn(const TestMember &member, const QString &userId)
    {
        return shellLines(member.client.get(), {userId, QString()}, QStringLiteral("id -un"))
            .value(0)
            .trimmed();
    }

    QStringList candidates(const TestMember &member, const QString &userId) const
    {
        return {predictAccountName(userId, AccountRule::SlugWithHash, member.server->prefix()),
            predictAccountName(userId, AccountRule::FirstEightAlnum, member.server->prefix())};
    }

    // A user with a home on A holding awkward names and kinds of files.
    QString userWithHomeOnA(const QString &tag)
    {
        const QString userId = tag + randomToken(6, true);
        const QStringList made = shellLines(m_a.client.get(), {userId, QString()},
            QStringLiteral("set -e; cd ~; mkdir -p 'chat-1/deep dir' .claude/projects; "
                           "printf 'hello\\n' > 'chat-1/deep dir/a file.txt'; "
                           "printf 'x' > \"$(printf 'new\\nline')\"; : > empty; "
                           "head -c 70000 /dev/urandom > chat-1/blob.bin; "
                           "printf 'secret' > private; chmod 600 private; "
                           "ln -s 'chat-1/deep dir' link; echo made"));
        return made.contains(QStringLiteral("made")) ? userId : QString();
    }

    QStringList listingOn(const TestMember &member, const QString &userId)
    {
        return shellLines(member.client.get(), {userId, QString()}, listing);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        SANDSCOPE_REQUIRE(!QStandardPaths::findExecutable(QStringLiteral("nsenter")).isEmpty(),
            "needs nsenter (util-linux)");
        QString error;
        QVERIFY2(startMembers({&m_a, &m_b},
                     {QStringLiteral("member-a"), QStringLiteral("member-b")}, &error),
            qPrintable(error));
        QVERIFY(m_a.server->prefix() != m_b.server->prefix());
    }

    void cleanupTestCase() { stopMembers({&m_a, &m_b}); }

    void theDryRunSaysWhatMovesAndChangesNothing()
    {
        const QString userId = userWithHomeOnA(QStringLiteral("dry"));
        QVERIFY(!userId.isEmpty());
        const QStringList before = listingOn(m_a, userId);
        UserMove move(
            m_a.side(), m_b.side(), userId, accountOn(m_a, userId), candidates(m_b, userId));
        QSignalSpy planned(&move, &UserMove::planned);
        move.plan();
        QTRY_VERIFY_WITH_TIMEOUT(planned.count() == 1, 60000);
        const UserMovePlan plan = move.currentPlan();
        QVERIFY2(plan.ok(), qPrintable(plan.blockers.join(u'\n')));
        QVERIFY(plan.fromAccount.exists);
        QVERIFY(!plan.toAccount.exists);
        // Counted by the user's own shell (the account's skeleton files too).
        const QStringList counted = shellLines(m_a.client.get(), {userId, QString()},
            QStringLiteral("find ~ -type f -printf x | wc -c; find ~ -type f -printf '%s\\n' | "
                           "awk '{s += $1} END {print s}'"));
        QCOMPARE(counted.size(), 2);
        QVERIFY(counted.at(0).toInt() >= 5); // a file.txt, new\nline, empty, blob.bin, private
        QCOMPARE(plan.files, counted.at(0).toInt());
        QCOMPARE(plan.bytes, counted.at(1).toLongLong());
        QCOMPARE(plan.conflicts, 0);
        QVERIFY(plan.warnings.join(u' ').contains(QLatin1String("creates it")));
        // Nothing changed: A's home is the same, and B made no account for the user.
        QCOMPARE(listingOn(m_a, userId), before);
        for (const QString &name : candidates(m_b, userId))
            QVERIFY(m_b.asRoot(QStringLiteral("getent passwd ") + name).isEmpty());
    }

    void theHomeMovesWholeAndTheOldOneGoesOnlyAfterItWasVerified()
    {
        const QString userId = userWithHomeOnA(QStringLiteral("mv"));
        QVERIFY(!userId.isEmpty());
        const QString fromAccount = accountOn(m_a, userId);
        const QStringList before = listingOn(m_a, userId);
        QVERIFY(before.size() >= 9);
        UserMove move(m_a.side(), m_b.side(), userId, fromAccount, candidates(m_b, userId));
        move.setPieceBytes(40000); // the archive travels in several pieces
        QSignalSpy finished(&move, &UserMove::finished);
        const QString reportPath = m_local.filePath(userId + QStringLiteral(".jsonl"));
        move.execute(reportPath);
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));

        const QString toAccount = accountOn(m_b, userId);
        QVERIFY(!toAccount.isEmpty());
        QCOMPARE(listingOn(m_b, userId), before);
        // Everything is the new account's.
        QCOMPARE(
            m_b.asRoot(QStringLiteral("find /home/%1 ! -user %1 | wc -l").arg(toAccount)).trimmed(),
            QStringLiteral("0"));
        QVERIFY(m_a.asRoot(QStringLiteral("getent passwd ") + fromAccount).isEmpty());
        QCOMPARE(m_a.asRoot(QStringLiteral("ls -a /home/%1 2>/dev/null | wc -l").arg(fromAccount))
                     .trimmed(),
            QStringLiteral("0"));
        QVERIFY(
            !m_b.asRoot(QStringLiteral("ls -a /home")).contains(QLatin1String(".sandscope-move-")));

        // The report: each step said before it ran, then done, in order; the end last.
        QFile report(reportPath);
        QVERIFY(report.open(QIODevice::ReadOnly));
        QStringList steps;
        for (const QByteArray &line : report.readAll().split('\n')) {
            const QJsonObject entry = QJsonDocument::fromJson(line).object();
            if (entry.value(QLatin1String("event")) == QLatin1String("step"))
                steps << entry.value(QLatin1String("step")).toString() + QLatin1Char(':')
                        + entry.value(QLatin1String("state")).toString();
            if (entry.value(QLatin1String("event")) == QLatin1String("end"))
                steps << QStringLiteral("end:")
                        + entry.value(QLatin1String("ok")).toVariant().toString();
        }
        QCOMPARE(steps,
            QStringList({QStringLiteral("plan:starting"), QStringLiteral("account:starting"),
                QStringLiteral("account:done"), QStringLiteral("archive:starting"),
                QStringLiteral("archive:done"), QStringLiteral("transfer:starting"),
                QStringLiteral("transfer:done"), QStringLiteral("unpack:starting"),
                QStringLiteral("unpack:done"), QStringLiteral("merge:starting"),
                QStringLiteral("merge:done"), QStringLiteral("verify:starting"),
                QStringLiteral("verify:done"), QStringLiteral("remove:starting"),
                QStringLiteral("remove:done"), QStringLiteral("end:true")}));
    }

    void aHomeTheNewMemberHasKeepsItsFilesAndTheOldOnesAreSetAside()
    {
        const QString userId = userWithHomeOnA(QStringLiteral("both"));
        QVERIFY(!userId.isEmpty());
        // After a resize the user worked on B for a while.
        QVERIFY(shellLines(m_b.client.get(), {userId, QString()},
            QStringLiteral("cd ~ && mkdir -p 'chat-1/deep dir' && printf 'changed on b\\n' > "
                           "'chat-1/deep dir/a file.txt' && printf 'x' > \"$(printf "
                           "'new\\nline')\" && printf 'b only\\n' > b.txt && echo ok"))
                    .contains(QStringLiteral("ok")));
        const QString fromAccount = accountOn(m_a, userId);
        UserMove move(m_a.side(), m_b.side(), userId, fromAccount, candidates(m_b, userId));
        QSignalSpy planned(&move, &UserMove::planned);
        QSignalSpy finished(&move, &UserMove::finished);
        move.execute(m_local.filePath(userId + QStringLiteral(".jsonl")));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(move.currentPlan().conflicts, 1); // the same "new\nline" is not one
        const QStringList files = shellLines(m_b.client.get(), {userId, QString()},
            QStringLiteral("cd ~ && cat 'chat-1/deep dir/a file.txt' b.txt && "
                           "cat .sandscope-moved-from-member-a-*/'chat-1/deep dir/a file.txt' && "
                           "cat chat-1/blob.bin | wc -c"));
        QCOMPARE(files,
            QStringList({QStringLiteral("changed on b"), QStringLiteral("b only"),
                QStringLiteral("hello"), QStringLiteral("70000")}));
    }

    void aFailureAtAnyStepLeavesTheOldHomeAsItWas_data()
    {
        QTest::addColumn<int>("step");
        for (const auto step : {UserMove::Step::Plan, UserMove::Step::Account,
                 UserMove::Step::Archive, UserMove::Step::Transfer, UserMove::Step::Unpack,
                 UserMove::Step::Merge, UserMove::Step::Verify, UserMove::Step::Remove})
            QTest::newRow(qPrintable(UserMove::stepName(step))) << int(step);
    }
    void aFailureAtAnyStepLeavesTheOldHomeAsItWas()
    {
        QFETCH(int, step);
        const auto failing = UserMove::Step(step);
        const QString userId = userWithHomeOnA(QStringLiteral("f"));
        QVERIFY(!userId.isEmpty());
        const QStringList before = listingOn(m_a, userId);
        UserMove move(
            m_a.side(), m_b.side(), userId, accountOn(m_a, userId), candidates(m_b, userId));
        move.setFailureInjection([failing](UserMove::Step at) { return at != failing; });
        QSignalSpy finished(&move, &UserMove::finished);
        const QString reportPath = m_local.filePath(userId + QStringLiteral(".jsonl"));
        move.execute(reportPath);
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
        QVERIFY(!finished.at(0).at(0).toBool());
        const QString why = finished.at(0).at(1).toString();
        QVERIFY2(why.startsWith(UserMove::stepName(failing) + QStringLiteral(" failed")),
            qPrintable(why));
        QCOMPARE(listingOn(m_a, userId), before);
        QVERIFY(
            !m_b.asRoot(QStringLiteral("ls -a /home")).contains(QLatin1String(".sandscope-move-")));
        QFile report(reportPath);
        QVERIFY(report.open(QIODevice::ReadOnly));
        const QByteArray text = report.readAll();
        QVERIFY(text.contains(
                    "\"state\":\"failed\",\"step\":\"" + UserMove::stepName(failing).toUtf8() + '"')
            || text.contains("\"step\":\"" + UserMove::stepName(failing).toUtf8() + "\""));
        QVERIFY(text.contains("\"ok\":false"));
    }

    void aMemberWhoseAdminCommandFailsIsNamedAndNothingMoves()
    {
        const QString userId = userWithHomeOnA(QStringLiteral("adm"));
        QVERIFY(!userId.isEmpty());
        UserMoveSide broken = m_b.side();
        QVERIFY(
            AdminAccess::fromCommand(QStringLiteral("nsenter -t 999999999 -m --"), &broken.admin));
        UserMove move(m_a.side(), broken, userId, accountOn(m_a, userId), candidates(m_b, userId));
        QSignalSpy finished(&move, &UserMove::finished);
        move.execute(m_local.filePath(userId + QStringLiteral(".jsonl")));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 60000);
        QVERIFY(!finished.at(0).at(0).toBool());
        QVERIFY2(finished.at(0).at(1).toString().contains(QLatin1String("member-b")),
            qPrintable(finished.at(0).at(1).toString()));
        for (const QString &name : candidates(m_b, userId))
            QVERIFY(m_b.asRoot(QStringLiteral("getent passwd ") + name).isEmpty());
    }
};

QTEST_GUILESS_MAIN(UserMoveTest)
#include "tst_usermove.moc"
