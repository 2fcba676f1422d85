// PointerHash: the flat pointer table behind RunFilterProxy's shown nodes. Checked against a
// QHash under seeded random inserts, removals and lookups, with keys crowded into few slots so
// that removal has long probe runs to mend.

#include "runtree/pointerhash.h"
#include "testing.h"

#include <QHash>
#include <QRandomGenerator>
#include <QVector>
#include <QtTest/QTest>

using namespace sandscope;

namespace {

using Table = PointerHash<QVector<int>>;

// Keys as RunModel's nodes are: aligned addresses, here from one array so that neighbours are
// close together (the hash must spread them).
const void *key(int i)
{
    static char base[1 << 16];
    return base + 16 * i;
}

void compare(const Table &table, const QHash<const void *, QVector<int>> &expected, int keys)
{
    QCOMPARE(table.size(), int(expected.size()));
    for (int i = 0; i < keys; ++i) {
        const auto it = expected.constFind(key(i));
        const QVector<int> *found = table.constFind(key(i));
        QCOMPARE(found != nullptr, it != expected.cend());
        if (found)
            QCOMPARE(*found, *it);
    }
}

} // namespace

class TestPointerHash : public QObject {
    Q_OBJECT

private slots:
    void findsWhatWasInsertedAndNothingElse()
    {
        Table table;
        QVERIFY(table.isEmpty());
        QVERIFY(!table.constFind(key(1)));
        table.insert(key(1), {1});
        table.insert(nullptr, {0}); // the invisible root's key
        QCOMPARE(table.size(), 2);
        QCOMPARE(table.value(key(1)), QVector<int>({1}));
        QCOMPARE(table.value(nullptr), QVector<int>({0}));
        QVERIFY(!table.contains(key(2)));
        QCOMPARE(table.value(key(2)), QVector<int>());
        table.insert(key(1), {11}); // replaces
        QCOMPARE(table.size(), 2);
        QCOMPARE(table.value(key(1)), QVector<int>({11}));
        table[key(3)].append(3); // inserts
        QCOMPARE(table.value(key(3)), QVector<int>({3}));
        QVERIFY(table.remove(key(1)));
        QVERIFY(!table.remove(key(1)));
        QCOMPARE(table.size(), 2);
        table.clear();
        QVERIFY(table.isEmpty());
        QVERIFY(!table.contains(nullptr));
    }

    void aCopyKeepsItsEntriesWhileTheOriginalChanges()
    {
        Table table;
        table.reserve(100);
        for (int i = 0; i < 100; ++i)
            table.insert(key(i), {i});
        const Table kept = table;
        for (int i = 0; i < 100; i += 2)
            table.remove(key(i));
        table[key(1)].append(-1);
        table.insert(key(500), {500});
        QCOMPARE(kept.size(), 100);
        for (int i = 0; i < 100; ++i)
            QCOMPARE(kept.value(key(i)), QVector<int>({i}));
        QCOMPARE(table.size(), 51);
        QCOMPARE(table.value(key(1)), QVector<int>({1, -1}));
    }

    // The next table is built only once the table is a quarter full, and a growth moves the
    // entries into it, whole or in part; a copy taken meanwhile keeps its entries.
    void growthBuiltAheadKeepsEveryEntry()
    {
        Table table;
        for (int i = 0; i < 8; ++i) // 8 in 16 slots: the 9th grows the table to 32
            table.insert(key(i), {i});
        table.prepareGrowth(1000);
        QCOMPARE(table.preparedSlots(), qsizetype(32));
        const Table kept = table;
        QCOMPARE(kept.preparedSlots(), qsizetype(0));
        table.insert(key(8), {8});
        QCOMPARE(table.preparedSlots(), qsizetype(0)); // taken by the growth
        for (int i = 9; i < 17; ++i)
            table.insert(key(i), {i});
        QCOMPARE(table.size(), 17);
        for (int i = 0; i < 17; ++i)
            QCOMPARE(table.value(key(i)), QVector<int>({i}));
        QCOMPARE(kept.size(), 8);
        for (int i = 0; i < 8; ++i)
            QCOMPARE(kept.value(key(i)), QVector<int>({i}));

        Table sparse;
        sparse.insert(key(0), {0});
        sparse.prepareGrowth(1000);
        QCOMPARE(sparse.preparedSlots(), qsizetype(0)); // 1 of 16: nothing to prepare yet

        Table partly;
        for (int i = 0; i < 17; ++i) {
            partly.insert(key(i), {i});
            partly.prepareGrowth(5); // a few slots at a time
        }
        for (int i = 17; i < 40; ++i)
            partly.insert(key(i), {i});
        for (int i = 0; i < 40; ++i)
            QCOMPARE(partly.value(key(i)), QVector<int>({i}));
    }

    void randomOperationsMatchAQHash_data()
    {
        QTest::addColumn<quint32>("seed");
        QTest::addColumn<int>("keys"); // few keys: the table is often near full, runs are long
        for (quint32 seed = 1; seed <= 4; ++seed) {
            QTest::addRow("seed %u, 40 keys", seed) << seed << 40;
            QTest::addRow("seed %u, 5000 keys", seed) << seed << 5000;
        }
    }
    void randomOperationsMatchAQHash()
    {
        QFETCH(quint32, seed);
        QFETCH(int, keys);
        QRandomGenerator random(seed);
        Table table;
        QHash<const void *, QVector<int>> expected;
        for (int step = 0; step < 20000; ++step) {
            const int i = int(random.bounded(keys));
            switch (random.bounded(6)) {
            case 0:
            case 1:
                table.insert(key(i), {step});
                expected.insert(key(i), {step});
                break;
            case 2:
                QCOMPARE(table.remove(key(i)), expected.remove(key(i)) > 0);
                break;
            case 3: // growth built ahead, in part or whole, or given back
                if (random.bounded(8) == 0)
                    table.dropPreparedGrowth();
                else
                    table.prepareGrowth(int(random.bounded(64)));
                break;
            default:
                QCOMPARE(table.value(key(i)), expected.value(key(i)));
                break;
            }
            if (step % 997 == 0)
                compare(table, expected, keys);
        }
        compare(table, expected, keys);
    }
};

QTEST_GUILESS_MAIN(TestPointerHash)
#include "tst_pointerhash.moc"
