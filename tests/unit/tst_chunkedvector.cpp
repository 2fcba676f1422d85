// ChunkedVector (TimelineModel's items): the same elements in the same order as a std::vector
// under seeded random appends, writes and clears, across block boundaries (blocks of 4 here),
// and no element ever moves while the sequence grows.

#include "util/chunkedvector.h"

#include <QRandomGenerator>
#include <QString>
#include <QtTest/QTest>

#include <vector>

using namespace sandscope;

class TestChunkedVector : public QObject {
    Q_OBJECT

private slots:
    void matchesAVectorUnderRandomOperations_data()
    {
        QTest::addColumn<quint32>("seed");
        for (quint32 seed = 1; seed <= 4; ++seed)
            QTest::addRow("seed %u", seed) << seed;
    }
    void matchesAVectorUnderRandomOperations()
    {
        QFETCH(quint32, seed);
        QRandomGenerator random(seed);
        ChunkedVector<QString, 2> chunked; // blocks of 4: many boundaries
        std::vector<QString> expected;
        for (int step = 0; step < 5000; ++step) {
            const quint32 op = random.bounded(100);
            if (op < 60) {
                const QString value = QString::number(step);
                chunked.push_back(value);
                expected.push_back(value);
            } else if (op < 90 && !expected.empty()) {
                const size_t at = random.bounded(quint32(expected.size()));
                chunked[at] += QLatin1Char('+');
                expected[at] += QLatin1Char('+');
            } else if (op < 92) {
                chunked.clear();
                expected.clear();
            }
            QCOMPARE(chunked.size(), expected.size());
            QCOMPARE(chunked.empty(), expected.empty());
            if (!expected.empty())
                QCOMPARE(chunked.back(), expected.back());
        }
        const ChunkedVector<QString, 2> &readOnly = chunked;
        for (size_t i = 0; i < expected.size(); ++i)
            QCOMPARE(readOnly[i], expected[i]);
    }

    void elementsStayWhereTheyAreWhileItGrows()
    {
        ChunkedVector<int, 3> chunked;
        std::vector<const int *> addresses;
        for (int i = 0; i < 1000; ++i) {
            chunked.push_back(i);
            addresses.push_back(&chunked[size_t(i)]);
        }
        for (int i = 0; i < 1000; ++i) {
            QCOMPARE(&chunked[size_t(i)], addresses[size_t(i)]);
            QCOMPARE(chunked[size_t(i)], i);
        }
    }
};

QTEST_GUILESS_MAIN(TestChunkedVector)
#include "tst_chunkedvector.moc"
