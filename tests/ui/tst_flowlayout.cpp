// FlowLayout: items keep their size hints, in order, left to right, and wrap onto more lines
// when the width runs out; the layout never asks for more width than its widest item, and the
// height it asks for grows as the width shrinks. Widgets of fixed sizes, so that no font or
// style decides the figures.

#include "flowlayout.h"

#include <QWidget>
#include <QtTest>

#include <algorithm>

using namespace sandscope;

namespace {

constexpr int spacing = 10;
constexpr int lineSpacing = 2;

} // namespace

class TestFlowLayout : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void itemsWrapOntoMoreLinesWhenTheWidthRunsOut_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<QVector<QPoint>>("positions");
        // Items 100x20, 50x30, 120x20 and 60x20, no margins; each centred on its line.
        QTest::newRow("one line") << 400 << QVector<QPoint> {{0, 5}, {110, 0}, {170, 5}, {300, 5}};
        QTest::newRow("two lines") << 300 << QVector<QPoint> {{0, 5}, {110, 0}, {170, 5}, {0, 32}};
        QTest::newRow("as wide as the widest item")
            << 120 << QVector<QPoint> {{0, 0}, {0, 22}, {0, 54}, {0, 76}};
    }

    void itemsWrapOntoMoreLinesWhenTheWidthRunsOut()
    {
        QFETCH(int, width);
        QFETCH(QVector<QPoint>, positions);
        QWidget host;
        auto *layout = new FlowLayout(&host, spacing, lineSpacing);
        layout->setContentsMargins(0, 0, 0, 0);
        QVector<QWidget *> items;
        for (const QSize size : {QSize(100, 20), QSize(50, 30), QSize(120, 20), QSize(60, 20)}) {
            auto *item = new QWidget(&host);
            item->setFixedSize(size);
            layout->addWidget(item);
            items.append(item);
        }
        layout->setGeometry(QRect(0, 0, width, layout->heightForWidth(width)));
        for (int i = 0; i < items.size(); ++i)
            QCOMPARE(items.at(i)->pos(), positions.at(i));
        int bottom = 0;
        for (const QWidget *item : std::as_const(items))
            bottom = std::max(bottom, item->geometry().bottom() + 1);
        QCOMPARE(layout->heightForWidth(width), bottom);
        QCOMPARE(layout->minimumSize().width(), 120);
        QCOMPARE(layout->sizeHint().width(), 100 + 50 + 120 + 60 + 3 * spacing);
    }

    void hiddenItemsTakeNoPlace()
    {
        QWidget host;
        auto *layout = new FlowLayout(&host, spacing, lineSpacing);
        layout->setContentsMargins(4, 3, 4, 3);
        auto *first = new QWidget(&host);
        auto *hidden = new QWidget(&host);
        auto *last = new QWidget(&host);
        for (QWidget *item : {first, hidden, last}) {
            item->setFixedSize(40, 10);
            layout->addWidget(item);
        }
        hidden->hide();
        layout->setGeometry(QRect(0, 0, 200, layout->heightForWidth(200)));
        QCOMPARE(first->pos(), QPoint(4, 3));
        QCOMPARE(last->pos(), QPoint(4 + 40 + spacing, 3));
        QCOMPARE(layout->heightForWidth(200), 3 + 10 + 3);
        QCOMPARE(layout->sizeHint().width(), 4 + 40 + spacing + 40 + 4);
    }
};

QTEST_MAIN(TestFlowLayout)
#include "tst_flowlayout.moc"
