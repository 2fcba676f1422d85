// SlotTable: keys at the slots they were added at, values by slot, and restore() putting back
// an earlier state (playback's checkpoints) while remembering the keys beyond it.

#include "runtree/slottable.h"
#include "testing.h"

#include <QRandomGenerator>
#include <QtTest/QTest>

using namespace sandscope;

namespace {

using Table = SlotTable<QString, int>;

// A state as restore() takes it: keys in slot order, and a value per slot.
struct State {
    std::vector<QString> keys;
    std::vector<int> values;
};

State stateOf(const Table &table)
{
    State state {table.keys(), {}};
    for (int slot = 0; slot < table.size(); ++slot)
        state.values.push_back(table.valueAt(slot));
    return state;
}

void restore(Table *table, const State &state)
{
    table->restore(state.keys, [&state](int slot) { return state.values[size_t(slot)]; });
}

QString key(int i)
{
    return QStringLiteral("toolu_%1").arg(i);
}

// Keys 1, 2, 3 added, then the state after key 1 put back.
void jumpBackToTheFirstOfThree(Table *table)
{
    table->insert(key(1), 10);
    const State early = stateOf(*table);
    table->insert(key(2), 20);
    table->insert(key(3), 30);
    restore(table, early);
}

} // namespace

class TestSlotTable : public QObject {
    Q_OBJECT

private slots:
    void keysGetTheNextSlotAndKeepIt()
    {
        Table table;
        table.insert(key(1), 10);
        table.insert(key(2), 20);
        table.insert(key(1), 11); // a new value, the same slot
        QCOMPARE(table.size(), 2);
        QCOMPARE(table.slotOf(key(1)), 0);
        QCOMPARE(table.slotOf(key(2)), 1);
        QCOMPARE(table.value(key(1)), 11);
        QCOMPARE(table.value(key(3), -1), -1);
        QVERIFY(!table.find(key(3)));
    }

    // After a jump back, the keys beyond the restored state are not in the table, and the
    // same events played again put each key back at its old slot.
    void aRestoredStateHidesLaterKeysAndReplayReusesTheirSlots()
    {
        Table table;
        jumpBackToTheFirstOfThree(&table);
        QCOMPARE(table.size(), 1);
        QCOMPARE(table.slotOf(key(2)), -1);
        QCOMPARE(table.value(key(3), -1), -1);
        table.insert(key(2), 21);
        table.insert(key(3), 31);
        QCOMPARE(table.slotOf(key(2)), 1);
        QCOMPARE(table.slotOf(key(3)), 2);
        QCOMPARE(table.value(key(3)), 31);
    }

    // Keys that come in another order after a jump back: the remembered ones from there on
    // are forgotten, so no key is found at a slot another key now holds.
    void anotherOrderAfterAJumpBackForgetsTheRest()
    {
        Table table;
        jumpBackToTheFirstOfThree(&table);
        table.insert(key(3), 31);
        QCOMPARE(table.slotOf(key(3)), 1);
        QCOMPARE(table.slotOf(key(2)), -1);
        table.insert(key(2), 21);
        QCOMPARE(table.slotOf(key(2)), 2);
        QCOMPARE(table.keys(), (std::vector<QString> {key(1), key(3), key(2)}));
    }

    // A state from further on than the table ever was (a checkpoint ahead), and one from a
    // different history than the table remembers.
    void restoreAddsUnknownKeysAndReplacesAnotherHistory()
    {
        Table table;
        restore(&table, State {{key(1), key(2)}, {10, 20}});
        QCOMPARE(table.size(), 2);
        QCOMPARE(table.value(key(2)), 20);
        table.insert(key(3), 30);
        restore(&table, State {{key(1), key(9)}, {11, 90}});
        QCOMPARE(table.size(), 2);
        QCOMPARE(table.slotOf(key(9)), 1);
        QCOMPARE(table.slotOf(key(2)), -1);
        QCOMPARE(table.slotOf(key(3)), -1);
        QCOMPARE(table.value(key(1)), 11);
    }

    // Random inserts and restores of earlier states, checked after every step against a plain
    // list of (key, value) in insertion order.
    void behavesLikeAnOrderedListUnderRandomJumps_data()
    {
        QTest::addColumn<quint32>("seed");
        for (quint32 seed : {1u, 2u, 3u, 42u, 2026u})
            QTest::addRow("seed %u", seed) << seed;
    }
    void behavesLikeAnOrderedListUnderRandomJumps()
    {
        QFETCH(quint32, seed);
        QRandomGenerator random(seed);
        Table table;
        std::vector<std::pair<QString, int>> reference;
        std::vector<std::pair<State, std::vector<std::pair<QString, int>>>> saved;
        for (int step = 0; step < 2000; ++step) {
            const int what = int(random.bounded(10));
            if (what < 7) {
                const QString name = key(int(random.bounded(60)));
                const int value = int(random.bounded(1000));
                table.insert(name, value);
                const auto it = std::find_if(reference.begin(), reference.end(),
                    [&name](const auto &entry) { return entry.first == name; });
                if (it != reference.end())
                    it->second = value;
                else
                    reference.emplace_back(name, value);
            } else if (what == 7) {
                saved.emplace_back(stateOf(table), reference);
            } else if (!saved.empty()) {
                const auto &[state, then] = saved[size_t(random.bounded(int(saved.size())))];
                restore(&table, state);
                reference = then;
            }
            QCOMPARE(table.size(), int(reference.size()));
            for (int i = 0; i < 60; ++i) {
                const auto it = std::find_if(reference.begin(), reference.end(),
                    [&](const auto &entry) { return entry.first == key(i); });
                const int slot = it == reference.end() ? -1 : int(it - reference.begin());
                QCOMPARE(table.slotOf(key(i)), slot);
                QCOMPARE(table.value(key(i), -1), slot < 0 ? -1 : it->second);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestSlotTable)
#include "tst_slottable.moc"
