// FlatIdTable (util/flatidtable.h) holds the same ids and values as a QHash fed the same
// inserts, under seeded random ids that make it grow many times (also after reserving room for
// fewer or more ids, at the start or with ids held), ids that differ only in their last byte or
// in their length, the empty id, ids holding NUL bytes and a long id; the entries it reserved
// room for stay where they are.

#include "util/flatidtable.h"

#include <QHash>
#include <QRandomGenerator>
#include <QtTest/QTest>

#include <string>

using namespace sandscope;

namespace {

std::string_view viewOf(const QByteArray &bytes)
{
    return {bytes.constData(), size_t(bytes.size())};
}

} // namespace

class TestFlatIdTable : public QObject {
    Q_OBJECT

private slots:
    void holdsWhatAHashHolds_data()
    {
        QTest::addColumn<quint32>("seed");
        QTest::addColumn<int>("distinct"); // how many ids the inserts draw from
        QTest::addColumn<int>("reserved"); // room reserved for this many ids (0: none)
        QTest::addColumn<int>("reserveAtStep"); // after this many steps
        QTest::addColumn<int>("slotsFor"); // slots reserved for this many (-1: as `reserved`)
        QTest::newRow("few ids, many repeats") << 1u << 50 << 0 << 0 << -1;
        QTest::newRow("grows many times") << 2u << 40000 << 0 << 0 << -1;
        QTest::newRow("grows, other seed") << 3u << 40000 << 0 << 0 << -1;
        QTest::newRow("room for all, reserved first") << 4u << 40000 << 50000 << 0 << -1;
        QTest::newRow("room for some, grows past it") << 5u << 40000 << 3000 << 0 << -1;
        QTest::newRow("room reserved with ids held") << 6u << 40000 << 60000 << 20000 << -1;
        QTest::newRow("less room than held") << 7u << 40000 << 100 << 20000 << -1;
        QTest::newRow("room for all, slots for a tenth, reserved first")
            << 8u << 40000 << 50000 << 0 << 5000;
        QTest::newRow("room for all, slots for a quarter, ids held")
            << 9u << 40000 << 60000 << 20000 << 15000;
    }

    void holdsWhatAHashHolds()
    {
        QFETCH(quint32, seed);
        QFETCH(int, distinct);
        QFETCH(int, reserved);
        QFETCH(int, reserveAtStep);
        QFETCH(int, slotsFor);
        QRandomGenerator random(seed);
        FlatIdTable<qint64> table;
        QHash<QByteArray, qint64> reference;
        auto idOf = [](int n) {
            // toolu_-like ids, some with a NUL byte inside, some a prefix of others
            QByteArray id = "toolu_" + QByteArray::number(n);
            if (n % 7 == 0)
                id.insert(3, '\0');
            if (n % 11 == 0)
                id.chop(1);
            return id;
        };
        for (int step = 0; step < 60000; ++step) {
            if (reserved > 0 && step == reserveAtStep && slotsFor < 0)
                table.reserve(size_t(reserved), size_t(reserved) * 16);
            else if (reserved > 0 && step == reserveAtStep)
                table.reserve(size_t(reserved), size_t(reserved) * 16, size_t(slotsFor));
            const QByteArray id = idOf(int(random.bounded(distinct)));
            if (random.bounded(3) == 0) {
                const qint64 *found = table.find(viewOf(id));
                QCOMPARE(found != nullptr, reference.contains(id));
                if (found)
                    QCOMPARE(*found, reference.value(id));
                continue;
            }
            bool inserted = false;
            qint64 &value = table.insert(viewOf(id), &inserted);
            QCOMPARE(inserted, !reference.contains(id));
            QCOMPARE(value, reference.value(id, 0)); // new ones are value-initialised
            value += step;
            reference[id] += step;
        }
        QCOMPARE(table.size(), qint64(reference.size()));
        for (auto it = reference.cbegin(); it != reference.cend(); ++it) {
            const qint64 *found = table.find(viewOf(it.key()));
            QVERIFY2(found, it.key().constData());
            QCOMPARE(*found, it.value());
        }
        for (int n = distinct; n < distinct + 1000; ++n) // some are ids held, most are not
            QCOMPARE(table.contains(viewOf(idOf(n))), reference.contains(idOf(n)));
    }

    // What reserve() is for: inserting as many ids as it made room for moves no entry, also
    // when the slots were reserved for fewer and grow meanwhile.
    void entriesStayWhereTheyAreWhileTheReservedRoomLasts_data()
    {
        QTest::addColumn<int>("slotsFor");
        QTest::newRow("slots for all") << 5000;
        QTest::newRow("slots for a tenth") << 500;
    }

    void entriesStayWhereTheyAreWhileTheReservedRoomLasts()
    {
        QFETCH(int, slotsFor);
        constexpr int room = 5000;
        FlatIdTable<qint64> table;
        table.reserve(room, room * 16, size_t(slotsFor));
        auto idOf = [](int n) -> QByteArray {
            return "toolu_" + QByteArray::number(n);
        };
        const qint64 *first = &table.insert(viewOf(idOf(0)));
        for (int n = 1; n < room; ++n)
            table.insert(viewOf(idOf(n))) = n;
        QCOMPARE(table.find(viewOf(idOf(0))), first);
        for (int n = 0; n < room; ++n)
            QCOMPARE(*table.find(viewOf(idOf(n))), qint64(n));
    }

    void tellsApartIdsThatDifferInOneByteOrTheirLength()
    {
        FlatIdTable<int> table;
        const QByteArray longId(1024 * 1024, 'x');
        const QList<QByteArray> ids {QByteArray(), QByteArray(1, '\0'), QByteArray(2, '\0'), "a",
            "ab", "abc", "abd", longId, longId + 'y', QByteArray(longId).replace(0, 1, "z")};
        for (int i = 0; i < ids.size(); ++i)
            table.insert(viewOf(ids.at(i))) = i + 1;
        QCOMPARE(table.size(), qint64(ids.size()));
        for (int i = 0; i < ids.size(); ++i) {
            const int *found = table.find(viewOf(ids.at(i)));
            QVERIFY(found);
            QCOMPARE(*found, i + 1);
        }
        QVERIFY(!table.contains("abe"));
        QVERIFY(!table.contains(std::string(3, '\0')));
    }

    void anEmptyTableFindsNothing()
    {
        const FlatIdTable<int> table;
        QVERIFY(table.isEmpty());
        QVERIFY(!table.contains(""));
        QVERIFY(!table.contains("toolu_1"));
    }
};

QTEST_GUILESS_MAIN(TestFlatIdTable)
#include "tst_flatidtable.moc"
