#pragma once

#include <QVector>

#include <algorithm>
#include <utility>

namespace sandscope {

// A hash table from pointers to values, stored in one flat array (open addressing with linear
// probing): what RunFilterProxy keeps per shown node. At 100,000 nodes a QHash allocated and
// freed a node per entry, and clearing 35,000 of them took 17 ms (bench_runsearch); here an
// insert allocates nothing and clearing is one pass over the array. Null is a valid key.
// Copies share the array until one of them changes (QVector's implicit sharing), so a kept
// copy costs nothing until the original moves on.
template <typename Value> class PointerHash {
public:
    PointerHash() = default;
    // A copy shares the table, not a growth being prepared (see prepareGrowth()).
    PointerHash(const PointerHash &other)
        : m_slots(other.m_slots)
        , m_size(other.m_size)
    {
    }
    PointerHash &operator=(const PointerHash &other)
    {
        m_slots = other.m_slots;
        m_size = other.m_size;
        dropPreparedGrowth();
        return *this;
    }
    PointerHash(PointerHash &&other) noexcept { *this = std::move(other); }
    PointerHash &operator=(PointerHash &&other) noexcept
    {
        m_slots = std::exchange(other.m_slots, QVector<Slot>());
        m_size = std::exchange(other.m_size, 0);
        m_prepared = std::exchange(other.m_prepared, QVector<Slot>());
        m_preparedFor = std::exchange(other.m_preparedFor, 0);
        return *this;
    }

    int size() const { return m_size; }
    bool isEmpty() const { return m_size == 0; }

    // The key's value, or null. Valid until the table changes.
    const Value *constFind(const void *key) const
    {
        const qsizetype at = slotOf(key);
        return at >= 0 ? &m_slots.constData()[at].value : nullptr;
    }
    Value *find(const void *key)
    {
        const qsizetype at = slotOf(key);
        return at >= 0 ? &m_slots[at].value : nullptr; // detaches a shared array
    }
    bool contains(const void *key) const { return constFind(key) != nullptr; }
    Value value(const void *key) const
    {
        const Value *found = constFind(key);
        return found ? *found : Value();
    }

    // The key's value, inserted default-constructed when the key is new.
    Value &operator[](const void *key)
    {
        if (Value *found = find(key))
            return *found;
        return insert(key, Value());
    }
    Value &insert(const void *key, Value value)
    {
        if (Value *found = find(key)) {
            *found = std::move(value);
            return *found;
        }
        if (2 * (m_size + 1) > m_slots.size()) // at most half full: probes stay short
            rehash(std::max<qsizetype>(16, 2 * m_slots.size()));
        Slot *table = m_slots.data();
        qsizetype at = home(key);
        while (table[at].key != empty())
            at = (at + 1) & mask();
        table[at].key = key;
        table[at].value = std::move(value);
        ++m_size;
        return table[at].value;
    }
    // Removing moves later entries of the same probe run back, so no tombstones pile up.
    bool remove(const void *key)
    {
        qsizetype hole = slotOf(key);
        if (hole < 0)
            return false;
        Slot *table = m_slots.data();
        for (qsizetype at = (hole + 1) & mask(); table[at].key != empty(); at = (at + 1) & mask()) {
            const qsizetype wanted = home(table[at].key);
            // The entry may fill the hole when its home is not in (hole, at], cyclically.
            const bool stays
                = hole <= at ? (hole < wanted && wanted <= at) : (hole < wanted || wanted <= at);
            if (stays)
                continue;
            table[hole] = std::move(table[at]);
            hole = at;
        }
        table[hole] = Slot();
        --m_size;
        return true;
    }
    void clear()
    {
        m_slots = QVector<Slot>();
        m_size = 0;
        dropPreparedGrowth();
    }
    // Calls f(key, value) for every entry, in no particular order.
    template <typename F> void forEach(F f) const
    {
        for (const Slot &slot : m_slots) {
            if (slot.key != empty())
                f(slot.key, slot.value);
        }
    }
    // Builds up to `slotCount` more slots of the table the next growth moves the entries into,
    // once this one is a quarter full, so that growing touches no fresh memory. The first touch
    // of a page costs a page fault, and on a virtual machine, whose host may back memory only
    // when first touched, 10 us and more: the 12 MB table for 262,144 entries, built in the turn
    // that grew it, took 30-41 ms there (bench_runopen 1000's search). Called in slices by a
    // caller with time to spare (RunFilterProxy's sliced walk): the memory is reserved at
    // once, touched as the slots are built.
    void prepareGrowth(int slotCount)
    {
        if (m_slots.isEmpty() || 4 * qsizetype(m_size) < m_slots.size())
            return;
        const qsizetype target = 2 * m_slots.size();
        if (m_preparedFor != target) {
            m_prepared = QVector<Slot>();
            m_prepared.reserve(target);
            m_preparedFor = target;
        }
        m_prepared.resize(std::min(target, m_prepared.size() + qsizetype(slotCount)));
    }
    // How many slots of the next table are built (0: none prepared).
    qsizetype preparedSlots() const { return m_prepared.size(); }
    // Gives back a prepared table (a walk ended: the entries stay as many).
    void dropPreparedGrowth()
    {
        m_prepared = QVector<Slot>();
        m_preparedFor = 0;
    }

    // Room for `count` entries without growing.
    void reserve(int count)
    {
        qsizetype capacity = 16;
        while (capacity < 2 * qsizetype(count))
            capacity *= 2;
        if (capacity > m_slots.size())
            rehash(capacity);
    }

private:
    struct Slot {
        const void *key = empty();
        Value value;
    };

    // No object lives at the last address.
    static const void *empty() { return reinterpret_cast<const void *>(~quintptr(0)); }
    qsizetype slotOf(const void *key) const
    {
        if (m_slots.isEmpty())
            return -1;
        const Slot *table = m_slots.constData();
        for (qsizetype at = home(key);; at = (at + 1) & mask()) {
            if (table[at].key == key)
                return at;
            if (table[at].key == empty())
                return -1;
        }
    }
    qsizetype mask() const { return m_slots.size() - 1; }
    qsizetype home(const void *key) const
    {
        // Fibonacci hashing: nodes are aligned, so the low bits alone would collide.
        const quint64 mixed = quint64(quintptr(key)) * 0x9E3779B97F4A7C15ull;
        return qsizetype(mixed >> 32) & mask();
    }
    // The values are moved, not copied: a copy of a value that holds memory of its own (a
    // QVector) would touch that memory twice, to count the copy and to free the original.
    // (What made growing slow was building the new table, see prepareGrowth(); moving 131,072
    // entries took 1.5 ms.)
    void rehash(qsizetype capacity)
    {
        QVector<Slot> old = std::move(m_slots);
        Slot *from = old.data(); // a copy of it if shared (a kept copy of the table)
        const qsizetype count = old.size();
        if (m_preparedFor == capacity) { // built ahead, maybe in part
            m_prepared.resize(capacity);
            m_slots = std::move(m_prepared);
        } else {
            m_slots = QVector<Slot>(capacity);
        }
        dropPreparedGrowth();
        Slot *table = m_slots.data();
        for (qsizetype i = 0; i < count; ++i) {
            if (from[i].key == empty())
                continue;
            qsizetype at = home(from[i].key);
            while (table[at].key != empty())
                at = (at + 1) & mask();
            table[at].key = from[i].key;
            table[at].value = std::move(from[i].value);
        }
    }

    QVector<Slot> m_slots; // a power of two, or empty
    int m_size = 0;
    QVector<Slot> m_prepared; // empty slots of the next table, built ahead (prepareGrowth())
    qsizetype m_preparedFor = 0; // the size m_prepared is reserved for
};

} // namespace sandscope
