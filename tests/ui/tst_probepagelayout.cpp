// The Isolation tab laid out in the real window at the sizes people use (1280×800 and
// 1100×700), offscreen, with a real probe report (tests/data/probe-report-0.14.5.json, written
// by `sandscope probe` against the pinned multi-user server: 88 results, 2 users). Everything
// must be readable without scrolling sideways: the summary line whole, every scorecard row and
// column, and every pair's column of the matrix (check titles elided to fit, whole in their
// tooltips). SANDSCOPE_LAYOUT_SHOTS=DIR writes what was checked as PNGs, to look at.

#include "isolation/probepage.h"
#include "mainwindow.h"
#include "probereport/probematrixmodel.h"
#include "testing.h"

#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;

namespace {

const QString reportFile
    = QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QStringLiteral("/probe-report-0.14.5.json");

// The width the label's text needs on one line.
int oneLineWidth(const QLabel *label)
{
    return label->fontMetrics().horizontalAdvance(label->text());
}

// The table's columns end inside its viewport: nothing to scroll to sideways.
void expectColumnsFit(const QTableView *view)
{
    const int last = view->model()->columnCount() - 1;
    QVERIFY(last >= 0);
    const int right = view->columnViewportPosition(last) + view->columnWidth(last);
    QVERIFY2(right <= view->viewport()->width(),
        qPrintable(QStringLiteral("%1: columns end at %2, the viewport is %3 wide")
                       .arg(view->objectName())
                       .arg(right)
                       .arg(view->viewport()->width())));
    QCOMPARE(view->horizontalScrollBar()->maximum(), 0);
}

} // namespace

class ProbePageLayoutTest : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("SANDSCOPE_AUDIT_LOG", m_dir.filePath(QStringLiteral("audit.jsonl")).toUtf8());
        QVERIFY2(QFile::exists(reportFile), qPrintable(reportFile));
    }

    void everythingFitsTheWindow_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1100x700") << QSize(1100, 700);
    }

    void everythingFitsTheWindow()
    {
        QFETCH(QSize, size);
        MainWindow window(m_dir.filePath(QStringLiteral("profiles.ini")));
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        ProbePage *page = window.isolationPage();
        window.pages()->setCurrentWidget(page);
        QString error;
        QVERIFY2(page->openReport(reportFile, &error), qPrintable(error));
        QCoreApplication::processEvents();
        QTest::qWait(50); // queued layout requests
        QCOMPARE(window.size(), size);

        const QByteArray shots = qgetenv("SANDSCOPE_LAYOUT_SHOTS");
        if (!shots.isEmpty())
            window.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/isolation-")
                + QString::fromLatin1(QTest::currentDataTag()) + QStringLiteral(".png"));

        // The summary line: whole, on one line at 1280 px, wrapped (never cut) when narrower.
        const auto *summary = page->findChild<QLabel *>(QStringLiteral("summaryLabel"));
        QVERIFY(summary);
        QCOMPARE(summary->text(), page->summaryText());
        QVERIFY(summary->text().contains(QLatin1String("users alice, bob")));
        if (size.width() >= 1280)
            QVERIFY2(oneLineWidth(summary) <= summary->contentsRect().width(),
                qPrintable(QStringLiteral("%1 px of text in %2 px")
                               .arg(oneLineWidth(summary))
                               .arg(summary->contentsRect().width())));
        QVERIFY(summary->height() >= summary->heightForWidth(summary->width()));

        // The scorecard: every category and column, no scroll bar.
        QTableWidget *scorecard = page->scorecardView();
        QVERIFY(scorecard->rowCount() >= 7);
        QCOMPARE(scorecard->verticalScrollBar()->maximum(), 0);
        expectColumnsFit(scorecard);
        // ... and no empty band below it: its pane is as tall as its tallest child needs.
        const QWidget *pane = scorecard->parentWidget();
        int tallest = scorecard->height();
        for (const QWidget *child :
            pane->findChildren<QWidget *>(QString(), Qt::FindDirectChildrenOnly))
            tallest = std::max(tallest,
                !child->isVisible()              ? 0
                    : child->hasHeightForWidth() ? child->heightForWidth(child->width())
                                                 : child->sizeHint().height());
        QVERIFY2(pane->height() <= tallest + 2 * pane->fontMetrics().height(),
            qPrintable(QStringLiteral("pane %1 px, tallest child %2 px")
                           .arg(pane->height())
                           .arg(tallest)));

        // The matrix: every pair's column and the server's in view, rows as tall as a line,
        // the titles elided rather than pushing the columns out, and whole in their tooltips.
        QTableView *matrix = page->matrixView();
        QCOMPARE(matrix->model()->columnCount(), 3);
        expectColumnsFit(matrix);
        QVERIFY(matrix->verticalHeader()->width() >= matrix->viewport()->width() / 4);
        const int longest = int(matrix->model()->rowCount()) - 1;
        for (int row = 0; row <= longest; ++row) {
            const QString tip
                = matrix->model()->headerData(row, Qt::Vertical, Qt::ToolTipRole).toString();
            const QString title
                = matrix->model()->headerData(row, Qt::Vertical, Qt::DisplayRole).toString();
            QVERIFY2(tip.contains(title.section(QStringLiteral(" · "), 0, 0)), qPrintable(tip));
        }
        // A selected cell's details beside the matrix, its evidence readable.
        matrix->setCurrentIndex(matrix->model()->index(0, 0));
        QCoreApplication::processEvents();
        QPlainTextEdit *evidence = page->evidenceView();
        QVERIFY(!evidence->toPlainText().isEmpty());
        QVERIFY(evidence->isVisible());
        QVERIFY2(
            evidence->width() >= 300 && evidence->height() >= 3 * evidence->fontMetrics().height(),
            qPrintable(
                QStringLiteral("evidence %1x%2").arg(evidence->width()).arg(evidence->height())));
        if (!shots.isEmpty())
            window.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/isolation-")
                + QString::fromLatin1(QTest::currentDataTag()) + QStringLiteral("-cell.png"));

        // The scorecard leaves the matrix room for several checks at once.
        QVERIFY2(matrix->viewport()->height() >= 5 * matrix->rowHeight(0),
            qPrintable(QStringLiteral("%1 px for rows of %2 px")
                           .arg(matrix->viewport()->height())
                           .arg(matrix->rowHeight(0))));
    }
};

QTEST_MAIN(ProbePageLayoutTest)
#include "tst_probepagelayout.moc"
