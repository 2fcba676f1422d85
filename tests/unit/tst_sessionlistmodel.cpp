// The Sessions page's models without a server: SessionListModel under QAbstractItemModelTester,
// its refresh in place (unchanged rows and their persistent indexes stay, others are inserted
// and removed, never a reset), raw sort values that order dates and sizes as values through a
// proxy, the filter over title/chat/model/session id, the texts for unknown cost and model, the
// running flag; a fleet's members merged one by one (each member's rows replaced without
// touching the others', the Member column inserted and removed as a column); and
// SessionSearchModel (titles, sub-agent records, one-line excerpts, members' hits appended).

#include "sessions/sessionfilterproxy.h"
#include "sessions/sessionlistmodel.h"
#include "sessions/sessionsearchmodel.h"

#include <QAbstractItemModelTester>
#include <QPersistentModelIndex>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QtTest>

using namespace sandscope;

namespace {

const QString home = QStringLiteral("/home/alice");

DiscoveredSession session(const QString &id, qint64 size = 100, int minute = 0)
{
    DiscoveredSession found;
    found.sessionId = id;
    found.path = home + QStringLiteral("/.claude/projects/-home-alice-chat-a/") + id
        + QStringLiteral(".jsonl");
    found.projectDirectory = QStringLiteral("-home-alice-chat-a");
    found.chatId = QStringLiteral("a");
    found.cwd = home + QStringLiteral("/chat-a");
    found.title = QStringLiteral("Prompt of ") + id;
    found.size = size;
    found.turns = 1;
    found.toolCalls = 2;
    found.model = QStringLiteral("claude-opus-5-5");
    found.started = QDateTime(QDate(2026, 11, 30), QTime(10, minute), Qt::UTC);
    found.lastActivity = found.started.addSecs(30);
    return found;
}

DiscoveredSession onMember(const QString &member, const QString &id, qint64 size = 100)
{
    DiscoveredSession found = session(id, size);
    found.member = member;
    found.home = home;
    return found;
}

QStringList columnTexts(const QAbstractItemModel *model, int column, int role = Qt::DisplayRole)
{
    QStringList texts;
    for (int row = 0; row < model->rowCount(); ++row)
        texts << model->index(row, column).data(role).toString();
    return texts;
}

QStringList idsInOrder(const QAbstractItemModel *model)
{
    QStringList ids;
    for (int row = 0; row < model->rowCount(); ++row) {
        ids << model->index(row, 0)
                   .data(SessionListModel::SessionRole)
                   .value<DiscoveredSession>()
                   .sessionId;
    }
    return ids;
}

SessionSearchHit hit(const QString &sessionId, const QString &agentId = {})
{
    SessionSearchHit found;
    found.sessionId = sessionId;
    found.agentId = agentId;
    found.path = home + QStringLiteral("/.claude/projects/p/") + sessionId
        + (agentId.isEmpty()
                ? QStringLiteral(".jsonl")
                : QStringLiteral("/subagents/agent-") + agentId + QStringLiteral(".jsonl"));
    found.line = 7;
    found.turn = agentId.isEmpty() ? 2 : 0;
    found.toolUseId = QStringLiteral("toolu_1");
    found.toolName = QStringLiteral("Bash");
    found.recordType = QStringLiteral("assistant");
    found.excerpt = QStringLiteral("{\"command\":\"echo hi\"}\nnext\tline");
    return found;
}

} // namespace

class SessionListModelTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void listModelPassesTheModelTesterThroughRefreshes()
    {
        SessionListModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSessions({session(QStringLiteral("a")), session(QStringLiteral("b")),
                              session(QStringLiteral("c")), session(QStringLiteral("d"))},
            home);
        DiscoveredSession changed = session(QStringLiteral("c"), 999);
        model.setSessions(
            {session(QStringLiteral("a")), changed, session(QStringLiteral("e"))}, home);
        model.setSessions({}, home);
        model.setSessions({session(QStringLiteral("x"))}, home);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void membersPassTheModelTesterAsTheyArriveAndTheColumnComesAndGoes()
    {
        SessionListModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.columnCount(), int(SessionListModel::ColumnCount) - 1);
        model.setShowsMembers(true);
        QCOMPARE(model.columnCount(), int(SessionListModel::ColumnCount));
        model.setMemberSessions(QStringLiteral("m1"),
            {onMember(QStringLiteral("m1"), QStringLiteral("a")),
                onMember(QStringLiteral("m1"), QStringLiteral("b"))});
        model.setMemberSessions(
            QStringLiteral("m2"), {onMember(QStringLiteral("m2"), QStringLiteral("c"))});
        model.setMemberSessions(
            QStringLiteral("m1"), {onMember(QStringLiteral("m1"), QStringLiteral("b"), 5000)});
        model.setKnowledge(QStringLiteral("c"), SessionListModel::Knowledge::RunningHere);
        model.setShowsMembers(false);
        model.setMemberSessions(QStringLiteral("m2"), {});
        model.setShowsMembers(true);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    // Streamed batches, cut anywhere, interleaved between members, with a row sent again
    // changed: the same rows as each member's whole list set at once, and only inserts and
    // in-place changes on the way (the model tester watches every step).
    void streamedBatchesGiveTheRowsOfTheWholeList_data()
    {
        QTest::addColumn<int>("batchSize");
        QTest::newRow("one at a time") << 1;
        QTest::newRow("threes") << 3;
        QTest::newRow("all at once") << 100;
    }
    void streamedBatchesGiveTheRowsOfTheWholeList()
    {
        QFETCH(int, batchSize);
        QHash<QString, QVector<DiscoveredSession>> lists;
        for (const QString &member : {QStringLiteral("m1"), QStringLiteral("m2")})
            for (int i = 0; i < 10; ++i)
                lists[member].append(onMember(member, member + QString::number(i), 100 + i));
        SessionListModel streamed;
        QAbstractItemModelTester tester(
            &streamed, QAbstractItemModelTester::FailureReportingMode::QtTest);
        streamed.setShowsMembers(true);
        // A member's rows before any batch (an earlier listing) are kept and updated.
        streamed.setMemberSessions(QStringLiteral("m2"), {lists[QStringLiteral("m2")].at(0)});
        QSignalSpy removed(&streamed, &QAbstractItemModel::rowsRemoved);
        QSignalSpy reset(&streamed, &QAbstractItemModel::modelReset);
        for (int from = 0; from < 10; from += batchSize) {
            for (const QString &member : {QStringLiteral("m1"), QStringLiteral("m2")})
                streamed.addMemberSessions(member, lists[member].mid(from, batchSize));
        }
        DiscoveredSession changed = lists[QStringLiteral("m1")].at(4);
        changed.size = 99999;
        streamed.addMemberSessions(QStringLiteral("m1"), {changed});
        lists[QStringLiteral("m1")][4] = changed;
        QCOMPARE(removed.count(), 0);
        QCOMPARE(reset.count(), 0);

        SessionListModel whole;
        whole.setShowsMembers(true);
        whole.setMemberSessions(QStringLiteral("m1"), lists[QStringLiteral("m1")]);
        whole.setMemberSessions(QStringLiteral("m2"), lists[QStringLiteral("m2")]);
        const auto rowsOf = [](const SessionListModel &model) {
            QStringList rows;
            for (int row = 0; row < model.rowCount(); ++row) {
                QStringList cells;
                for (int column = 0; column < model.columnCount(); ++column)
                    cells << model.index(row, column).data().toString();
                rows << cells.join(QLatin1Char('|'));
            }
            rows.sort();
            return rows;
        };
        QCOMPARE(streamed.rowCount(), 20);
        QCOMPARE(rowsOf(streamed), rowsOf(whole));
    }

    void eachMembersRowsAreMergedInWithoutTouchingTheOthers()
    {
        SessionListModel model;
        model.setShowsMembers(true);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

        // The faster member's rows first, then the other's after them: inserts, no reset.
        model.setMemberSessions(QStringLiteral("open-terminal-1"),
            {onMember(QStringLiteral("open-terminal-1"), QStringLiteral("b1")),
                onMember(QStringLiteral("open-terminal-1"), QStringLiteral("b2"))});
        const QPersistentModelIndex b1 = model.index(0, SessionListModel::TitleColumn);
        model.setMemberSessions(QStringLiteral("open-terminal-0"),
            {onMember(QStringLiteral("open-terminal-0"), QStringLiteral("a1"))});
        QCOMPARE(resets.count(), 0);
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(inserted.at(1).at(1).toInt(), 2);
        QCOMPARE(columnTexts(&model, SessionListModel::MemberColumn),
            QStringList({QStringLiteral("open-terminal-1"), QStringLiteral("open-terminal-1"),
                QStringLiteral("open-terminal-0")}));
        QCOMPARE(model.headerData(SessionListModel::MemberColumn, Qt::Horizontal, Qt::DisplayRole)
                     .toString(),
            QStringLiteral("Member"));
        QVERIFY(model.index(2, SessionListModel::TitleColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .endsWith(QStringLiteral("on member open-terminal-0")));

        // The next listing of member 1: b2 is gone and b1 grew; member 0's row stays as it was.
        changed.clear();
        model.setMemberSessions(QStringLiteral("open-terminal-1"),
            {onMember(QStringLiteral("open-terminal-1"), QStringLiteral("b1"), 4096)});
        QCOMPARE(removed.count(), 1);
        QCOMPARE(changed.count(), 1);
        QVERIFY(b1.isValid());
        QCOMPARE(b1.row(), 0);
        QCOMPARE(idsInOrder(&model), QStringList({QStringLiteral("b1"), QStringLiteral("a1")}));

        // A member whose listing failed is not asked to change anything: its rows stay. A
        // user with a home on both members (after a resize) has the same path twice: two rows.
        model.setMemberSessions(QStringLiteral("open-terminal-0"),
            {onMember(QStringLiteral("open-terminal-0"), QStringLiteral("a1")),
                onMember(QStringLiteral("open-terminal-0"), QStringLiteral("b1"))});
        QCOMPARE(idsInOrder(&model),
            QStringList({QStringLiteral("b1"), QStringLiteral("a1"), QStringLiteral("b1")}));
        QCOMPARE(resets.count(), 0);
    }

    void theMemberColumnIsAColumnOfItsOwnWhileShown()
    {
        SessionListModel model;
        model.setSessions({session(QStringLiteral("a"))}, home);
        QSignalSpy columnsInserted(&model, &QAbstractItemModel::columnsInserted);
        QSignalSpy columnsRemoved(&model, &QAbstractItemModel::columnsRemoved);
        model.setShowsMembers(true);
        model.setShowsMembers(true);
        QCOMPARE(columnsInserted.count(), 1);
        QCOMPARE(columnsInserted.first().at(1).toInt(), int(SessionListModel::MemberColumn));
        QCOMPARE(model.rowCount(), 1); // the rows stay
        QVERIFY(model.index(0, SessionListModel::MemberColumn).data().toString().isEmpty());
        model.setShowsMembers(false);
        QCOMPARE(columnsRemoved.count(), 1);
        QVERIFY(!model.index(0, SessionListModel::MemberColumn).isValid());
    }

    void searchModelAppendsEachMembersHitsWithTheirMember()
    {
        SessionSearchModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setShowsMembers(true);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        SessionSearchHit first = hit(QStringLiteral("s1"));
        first.member = QStringLiteral("m1");
        SessionSearchHit second = hit(QStringLiteral("s2"));
        second.member = QStringLiteral("m0");
        model.appendHits({first}, false);
        model.appendHits({}, false);
        model.appendHits({second}, true);
        QCOMPARE(resets.count(), 0);
        QVERIFY(model.isTruncated());
        QCOMPARE(columnTexts(&model, SessionSearchModel::MemberColumn),
            QStringList({QStringLiteral("m1"), QStringLiteral("m0")}));
        model.setShowsMembers(false);
        QCOMPARE(model.columnCount(), int(SessionSearchModel::ColumnCount) - 1);
        model.clear();
        QVERIFY(!model.isTruncated());
    }

    void searchModelPassesTheModelTester()
    {
        SessionSearchModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResult(
            {hit(QStringLiteral("s1")), hit(QStringLiteral("s1"), QStringLiteral("x"))}, false);
        model.setTitles({{QStringLiteral("s1"), QStringLiteral("Title")}});
        model.setResult({}, false);
        QCOMPARE(model.rowCount(), 0);
    }

    void refreshUpdatesInPlaceWithoutReset()
    {
        SessionListModel model;
        model.setSessions({session(QStringLiteral("a")), session(QStringLiteral("b")),
                              session(QStringLiteral("c")), session(QStringLiteral("d"))},
            home);
        const QPersistentModelIndex b = model.index(1, SessionListModel::TitleColumn);
        const QPersistentModelIndex c = model.index(2, SessionListModel::SizeColumn);
        const QPersistentModelIndex d = model.index(3, SessionListModel::TitleColumn);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

        // a and c vanish, b is unchanged, d grew, e and f are new.
        DiscoveredSession grown = session(QStringLiteral("d"), 5000);
        grown.turns = 3;
        model.setSessions({session(QStringLiteral("f")), grown, session(QStringLiteral("b")),
                              session(QStringLiteral("e"))},
            home);

        QCOMPARE(resets.count(), 0);
        QCOMPARE(removed.count(), 2); // a and c are not contiguous
        QCOMPARE(inserted.count(), 1); // e and f together, at the end
        QCOMPARE(inserted.first().at(1).toInt(), 2);
        QCOMPARE(inserted.first().at(2).toInt(), 3);
        QCOMPARE(changed.count(), 1); // d only; b did not change
        QCOMPARE(changed.first().at(0).toModelIndex().row(), d.row());
        QVERIFY(b.isValid());
        QCOMPARE(b.data().toString(), QStringLiteral("Prompt of b"));
        QVERIFY(!c.isValid());
        QVERIFY(d.isValid());
        QCOMPARE(model.index(d.row(), SessionListModel::TurnsColumn).data().toInt(), 3);
        QCOMPARE(idsInOrder(&model),
            QStringList({QStringLiteral("b"), QStringLiteral("d"), QStringLiteral("f"),
                QStringLiteral("e")}));
    }

    void identicalRefreshEmitsNothing()
    {
        SessionListModel model;
        const QVector<DiscoveredSession> sessions {
            session(QStringLiteral("a")), session(QStringLiteral("b"))};
        model.setSessions(sessions, home);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        model.setSessions(sessions, home);
        QCOMPARE(changed.count() + inserted.count() + removed.count(), 0);
    }

    void sortRoleOrdersSizesAndDatesAsValues()
    {
        // As texts, "1.0 GiB" < "100 bytes" < "2.0 KiB" < "9 bytes".
        DiscoveredSession small = session(QStringLiteral("small"), 9);
        DiscoveredSession medium = session(QStringLiteral("medium"), 100);
        DiscoveredSession large = session(QStringLiteral("large"), 2048);
        DiscoveredSession huge = session(QStringLiteral("huge"), qint64(1) << 30);
        // The same minute, as shown, but seconds apart.
        const QDateTime minute(QDate(2026, 11, 30), QTime(12, 0), Qt::UTC);
        small.lastActivity = minute.addSecs(50);
        medium.lastActivity = minute.addSecs(5);
        large.lastActivity = minute.addSecs(20);
        huge.lastActivity = minute.addSecs(35);
        SessionListModel model;
        model.setSessions({large, huge, small, medium}, home);
        SessionFilterProxy proxy;
        proxy.setSourceModel(&model);

        proxy.sort(SessionListModel::SizeColumn, Qt::AscendingOrder);
        QCOMPARE(idsInOrder(&proxy),
            QStringList({QStringLiteral("small"), QStringLiteral("medium"), QStringLiteral("large"),
                QStringLiteral("huge")}));
        QCOMPARE(columnTexts(&proxy, SessionListModel::SizeColumn),
            QStringList({QStringLiteral("9 bytes"), QStringLiteral("100 bytes"),
                QStringLiteral("2.0 KiB"), QStringLiteral("1.0 GiB")}));

        proxy.sort(SessionListModel::LastActivityColumn, Qt::DescendingOrder);
        QCOMPARE(idsInOrder(&proxy),
            QStringList({QStringLiteral("small"), QStringLiteral("huge"), QStringLiteral("large"),
                QStringLiteral("medium")}));
        QStringList shownTimes = columnTexts(&proxy, SessionListModel::LastActivityColumn);
        shownTimes.removeDuplicates();
        QCOMPARE(shownTimes.size(), 1);
    }

    void filterLooksAtTitleChatModelAndSessionIdIgnoringCase()
    {
        DiscoveredSession elsewhere = session(QStringLiteral("0f3e-other"));
        elsewhere.chatId.clear();
        elsewhere.cwd = home + QStringLiteral("/projects/web");
        elsewhere.model = QStringLiteral("claude-haiku-9");
        elsewhere.title = QStringLiteral("Fix the login form");
        SessionListModel model;
        model.setSessions({session(QStringLiteral("1a2b")), elsewhere}, home);
        SessionFilterProxy proxy;
        proxy.setSourceModel(&model);
        const auto matching = [&](const QString &text) {
            proxy.setFilterText(text);
            return idsInOrder(&proxy);
        };
        QCOMPARE(matching(QStringLiteral("LOGIN")), QStringList {elsewhere.sessionId});
        QCOMPARE(matching(QStringLiteral("~/projects")), QStringList {elsewhere.sessionId});
        QCOMPARE(matching(QStringLiteral("haiku")), QStringList {elsewhere.sessionId});
        QCOMPARE(matching(QStringLiteral("1A2B")), QStringList {QStringLiteral("1a2b")});
        QCOMPARE(matching(QStringLiteral("nothing like it")), QStringList());
        QCOMPARE(matching(QString()).size(), 2);
    }

    void unknownCostModelAndTitleShowAsSuch()
    {
        DiscoveredSession unknown = session(QStringLiteral("u"));
        unknown.model.clear();
        unknown.title.clear();
        unknown.chatId.clear();
        unknown.cwd = home + QStringLiteral("/work/site");
        unknown.started = QDateTime();
        DiscoveredSession priced = session(QStringLiteral("p"));
        priced.hasCost = true;
        priced.costUsd = 0.0012;
        SessionListModel model;
        model.setSessions({unknown, priced}, home);
        const auto text = [&](int row, int column) {
            return model.index(row, column).data().toString();
        };
        QCOMPARE(text(0, SessionListModel::CostColumn), QString());
        QCOMPARE(text(0, SessionListModel::ModelColumn), QString());
        QCOMPARE(text(0, SessionListModel::TitleColumn), QStringLiteral("(no prompt)"));
        QCOMPARE(text(0, SessionListModel::ChatColumn), QStringLiteral("~/work/site"));
        QCOMPARE(text(0, SessionListModel::StartedColumn), QString());
        QCOMPARE(text(1, SessionListModel::CostColumn), QStringLiteral("$0.0012"));
        QCOMPARE(text(1, SessionListModel::ModelColumn), QStringLiteral("claude-opus-5-5"));
        QCOMPARE(text(1, SessionListModel::ChatColumn), QStringLiteral("a"));
        QCOMPARE(text(1, SessionListModel::StartedColumn),
            priced.started.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
        // Unknown cost sorts below a free session.
        QVERIFY(
            model.index(0, SessionListModel::CostColumn).data(SessionListModel::SortRole).toDouble()
            < 0);
        const QString tip
            = model.index(1, SessionListModel::TitleColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(priced.title) && tip.contains(priced.path), qPrintable(tip));
    }

    // What a transcript says of itself (its prompt, working directory, model) cannot reorder,
    // hide or break the row (issue 27).
    void hostileTitleFolderAndModelAreShownVisibly()
    {
        DiscoveredSession hostile = session(QStringLiteral("h"));
        hostile.chatId.clear();
        hostile.title = QStringLiteral("Run \x1b[31mRED\nFAKE ROW");
        hostile.title.append(QChar(0x202e));
        hostile.cwd = home + QStringLiteral("/work/a");
        hostile.cwd.append(QChar(0x2067)).append(QStringLiteral("b"));
        hostile.model = QStringLiteral("claude");
        hostile.model.append(QString::fromUcs4(U"\U000E0041")).append(QChar(0x9b));
        SessionListModel model;
        model.setSessions({hostile}, home);
        const auto text = [&](int column) {
            return model.index(0, column).data().toString();
        };
        QCOMPARE(text(SessionListModel::TitleColumn),
            QStringLiteral("Run <U+001B>[31mRED<U+000A>FAKE ROW<U+202E>"));
        QCOMPARE(text(SessionListModel::ChatColumn), QStringLiteral("~/work/a<U+2067>b"));
        QCOMPARE(text(SessionListModel::ModelColumn), QStringLiteral("claude<U+E0041><U+009B>"));
    }

    void runningSessionIsFlagged()
    {
        DiscoveredSession running = session(QStringLiteral("r"));
        running.running = true;
        SessionListModel model;
        model.setSessions({session(QStringLiteral("idle")), running}, home);
        QCOMPARE(model.runningCount(), 1);
        QCOMPARE(model.index(0, SessionListModel::StateColumn).data().toString(), QString());
        QCOMPARE(model.index(1, SessionListModel::StateColumn).data().toString(),
            QStringLiteral("running now"));
        QVERIFY(!model.index(0, SessionListModel::TitleColumn)
                     .data(SessionListModel::RunningRole)
                     .toBool());
        QVERIFY(model.index(1, SessionListModel::TitleColumn)
                    .data(SessionListModel::RunningRole)
                    .toBool());

        // It stops running: the row changes in place.
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        running.running = false;
        model.setSessions({session(QStringLiteral("idle")), running}, home);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(model.runningCount(), 0);
    }

    // A pushed write runs the row at once (size and last activity grow in place); it stops
    // running exactly when runningSeconds have passed without another.
    void aPushedWriteRunsTheRowUntilItIsQuietForRunningSeconds()
    {
        SessionListModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSessions({session(QStringLiteral("a")), session(QStringLiteral("b"))}, home);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        const QDateTime written = QDateTime(QDate(2026, 12, 4), QTime(8, 0), Qt::UTC);
        model.noteWritten(model.session(1).path, 42, written);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).toModelIndex().row(), 1);
        QCOMPARE(model.session(1).size, qint64(142));
        QCOMPARE(model.session(1).lastActivity, written);
        QCOMPARE(model.runningCount(), 1);
        model.noteWritten(QStringLiteral("/not/listed.jsonl"), 1, written);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(model.expireRunning(written.addSecs(sessiondiscovery::runningSeconds)), 1);
        QCOMPARE(model.runningCount(), 1);
        QCOMPARE(model.expireRunning(written.addSecs(sessiondiscovery::runningSeconds + 1)), 0);
        QCOMPARE(model.runningCount(), 0);
        QCOMPARE(changed.count(), 2);
    }

    // What Sandscope knows of a session's process decides "running now" over the listing's
    // guess (written in the last 30 s), until the transcript is written again after an end;
    // the State column's tool tip says which decided.
    void knowledgeBeatsTheGuessUntilTheTranscriptIsWrittenAgain_data()
    {
        using Knowledge = SessionListModel::Knowledge;
        QTest::addColumn<bool>("guess");
        QTest::addColumn<int>("knowledge");
        QTest::addColumn<int>("writtenAfterSeconds"); // last write, after the knowledge
        QTest::addColumn<bool>("running");
        QTest::addColumn<QString>("reason");
        const auto row = [](const char *name, bool guess, Knowledge knowledge, int after,
                             bool running, const char *reason) {
            QTest::newRow(name) << guess << int(knowledge) << after << running
                                << QString::fromLatin1(reason);
        };
        row("nothing known, written lately", true, Knowledge::Unknown, -10, true, "by a guess");
        row("nothing known, quiet", false, Knowledge::Unknown, -60, false, "by a guess");
        row("run here ended, written lately", true, Knowledge::EndedHere, -1, false,
            "Sandscope ran this session");
        row("followed end, written lately", true, Knowledge::EndSeen, 0, false,
            "tab following this session");
        row("run here running, quiet", false, Knowledge::RunningHere, -60, true,
            "Sandscope runs this session");
        row("run here running, written since", true, Knowledge::RunningHere, 60, true,
            "Sandscope runs this session");
        // A later turn (e.g. Open WebUI resuming it) wrote after the end: the guess again.
        row("run here ended, written since", true, Knowledge::EndedHere, 60, true, "by a guess");
        row("followed end, written since", true, Knowledge::EndSeen, 60, true, "by a guess");
    }

    void knowledgeBeatsTheGuessUntilTheTranscriptIsWrittenAgain()
    {
        QFETCH(bool, guess);
        QFETCH(int, knowledge);
        QFETCH(int, writtenAfterSeconds);
        QFETCH(bool, running);
        QFETCH(QString, reason);
        const QDateTime learnt(QDate(2026, 12, 4), QTime(3, 0), Qt::UTC);
        DiscoveredSession listed = session(QStringLiteral("s"));
        listed.running = guess;
        listed.lastActivity = learnt.addSecs(writtenAfterSeconds);
        SessionListModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSessions({session(QStringLiteral("other")), listed}, home);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setKnowledge(QStringLiteral("s"), SessionListModel::Knowledge(knowledge), learnt);
        // The row changes at once (whole, the view paints running rows bold), no other.
        if (SessionListModel::Knowledge(knowledge) != SessionListModel::Knowledge::Unknown) {
            QCOMPARE(changed.count(), 1);
            QCOMPARE(changed.at(0).at(0).toModelIndex(), model.index(1, 0));
            QCOMPARE(changed.at(0).at(1).toModelIndex(), model.index(1, model.columnCount() - 1));
        }
        const QModelIndex state = model.index(1, SessionListModel::StateColumn);
        QCOMPARE(state.data(SessionListModel::RunningRole).toBool(), running);
        QCOMPARE(state.data().toString(), running ? QStringLiteral("running now") : QString());
        QCOMPARE(state.data(SessionListModel::SortRole).toInt(), running ? 1 : 0);
        QCOMPARE(model.runningCount(), running ? 1 : 0);
        QVERIFY2(state.data(Qt::ToolTipRole).toString().contains(reason),
            qPrintable(state.data(Qt::ToolTipRole).toString()));
        // Forgotten (the tab closed): the guess again.
        model.setKnowledge(QStringLiteral("s"), SessionListModel::Knowledge::Unknown);
        QCOMPARE(state.data(SessionListModel::RunningRole).toBool(), guess);
        QVERIFY(state.data(Qt::ToolTipRole).toString().contains(QLatin1String("by a guess")));
    }

    void searchModelShowsTitlesSubAgentsAndOneLineMatches()
    {
        SessionSearchModel model;
        model.setResult({hit(QStringLiteral("0123456789abcdef")),
                            hit(QStringLiteral("0123456789abcdef"), QStringLiteral("a1"))},
            true);
        QVERIFY(model.isTruncated());
        const auto text = [&](int row, int column) {
            return model.index(row, column).data().toString();
        };
        QCOMPARE(text(0, SessionSearchModel::SessionColumn), QStringLiteral("01234567"));
        QCOMPARE(text(0, SessionSearchModel::TurnColumn), QStringLiteral("2"));
        QCOMPARE(text(0, SessionSearchModel::ToolColumn), QStringLiteral("Bash"));
        QCOMPARE(text(0, SessionSearchModel::RecordColumn), QStringLiteral("assistant"));
        QCOMPARE(text(0, SessionSearchModel::MatchColumn),
            QStringLiteral("{\"command\":\"echo hi\"} next line"));
        QCOMPARE(text(1, SessionSearchModel::TurnColumn), QString());
        QCOMPARE(
            text(1, SessionSearchModel::RecordColumn), QStringLiteral("assistant (sub-agent)"));
        QCOMPARE(
            model.index(1, 0).data(SessionSearchModel::HitRole).value<SessionSearchHit>().agentId,
            QStringLiteral("a1"));

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setTitles({{QStringLiteral("0123456789abcdef"), QStringLiteral("Deploy it")}});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(text(1, SessionSearchModel::SessionColumn), QStringLiteral("Deploy it"));
    }
};

QTEST_GUILESS_MAIN(SessionListModelTest)
#include "tst_sessionlistmodel.moc"
