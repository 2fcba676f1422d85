// The Sessions table's columns at the window sizes people use: every model name is shown whole
// (running rows are bold), and a wider window gives its room to the titles.

#include "runs/sessionspage.h"
#include "sessions/sessiondiscovery.h"
#include "sessions/sessionlistmodel.h"

#include <QHeaderView>
#include <QTreeView>
#include <QtTest>

using namespace sandscope;

namespace {

QVector<DiscoveredSession> sessionsWithModels(const QStringList &models)
{
    QVector<DiscoveredSession> sessions;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (int i = 0; i < models.size(); ++i) {
        DiscoveredSession s;
        s.chatId = QStringLiteral("chat%1").arg(i);
        s.sessionId = QStringLiteral("00000000-0000-0000-0000-00000000000%1").arg(i);
        s.path = QStringLiteral("/home/u/.claude/projects/p/%1.jsonl").arg(s.sessionId);
        s.home = QStringLiteral("/home/u");
        s.title = QStringLiteral("Refactor the login form so that the session survives a reload");
        s.started = now.addSecs(-600);
        s.lastActivity = now.addSecs(-i);
        s.turns = 3;
        s.toolCalls = 12;
        s.model = models.at(i);
        s.running = i % 2 == 0;
        sessions.append(s);
    }
    return sessions;
}

} // namespace

class TestSessionsLayout : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyModelNameIsShownWhole_data()
    {
        QTest::addColumn<int>("width");
        for (int width : {1100, 1366, 1920})
            QTest::addRow("%d px", width) << width;
    }
    void everyModelNameIsShownWhole()
    {
        QFETCH(int, width);
        const QStringList models {QStringLiteral("claude-opus-4-5-20251101"),
            QStringLiteral("claude-sonnet-4-5-20250929"), QStringLiteral("claude-opus-5-5")};
        SessionsPage page;
        page.resize(width, 700);
        page.model()->setSessions(sessionsWithModels(models), QStringLiteral("/home/u"));
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QTreeView *view = page.view();
        QFont bold = view->font();
        bold.setBold(true);
        const int shown = view->header()->sectionSize(SessionListModel::ModelColumn);
        for (int i = 0; i < models.size(); ++i) {
            const QString &model = models.at(i);
            const QFontMetrics metrics(i % 2 == 0 ? bold : view->font()); // running: bold
            QVERIFY2(metrics.horizontalAdvance(model) <= shown,
                qPrintable(QStringLiteral("%1 needs %2 px, the column has %3")
                               .arg(model)
                               .arg(metrics.horizontalAdvance(model))
                               .arg(shown)));
        }
        // The times, bold in a running row, too.
        const QString time = QLocale::c().toString(
            QDateTime(QDate(2026, 12, 31), QTime(23, 59)), QStringLiteral("yyyy-MM-dd HH:mm"));
        for (int column :
            {int(SessionListModel::StartedColumn), int(SessionListModel::LastActivityColumn)})
            QVERIFY2(
                QFontMetrics(bold).horizontalAdvance(time) < view->header()->sectionSize(column),
                qPrintable(QString::number(column)));
    }

    // At every width the titles get what the other columns leave, never less than their
    // minimum: the table fills the view when it can and scrolls sideways when it cannot.
    void theTitlesTakeTheSpareWidth()
    {
        SessionsPage page;
        page.model()->setSessions(
            sessionsWithModels({QStringLiteral("claude-opus-5-5")}), QStringLiteral("/home/u"));
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QTreeView *view = page.view();
        QHeaderView *header = view->header();
        const int minimum
            = view->fontMetrics().averageCharWidth() * SessionsPage::titleMinimumCharacters;
        int previous = 0;
        for (int width : {900, 1100, 1280, 1366, 1920, 2560}) {
            page.resize(width, 700);
            QTRY_COMPARE(view->viewport()->width() > 0, true);
            QCoreApplication::processEvents();
            const int title = header->sectionSize(SessionListModel::TitleColumn);
            const int others = header->length() - title;
            QVERIFY2(title >= minimum, qPrintable(QString::number(title)));
            QVERIFY2(
                title >= previous, qPrintable(QStringLiteral("%1 < %2").arg(title).arg(previous)));
            // From a 1280 px screen on, every column is in view without scrolling sideways.
            QVERIFY2(width < 1280 || header->length() <= view->viewport()->width(),
                qPrintable(QStringLiteral("%1 px: the columns need %2 of %3 px")
                               .arg(width)
                               .arg(header->length())
                               .arg(view->viewport()->width())));
            if (view->viewport()->width() - others >= minimum)
                QCOMPARE(header->length(), view->viewport()->width());
            else
                QCOMPARE(title, minimum);
            previous = title;
        }
        QVERIFY2(previous > minimum * 2, qPrintable(QString::number(previous)));
    }
};

QTEST_MAIN(TestSessionsLayout)
#include "tst_sessionslayout.moc"
