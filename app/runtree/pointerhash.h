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
        m_slots.clear();
        m_size = 0;
    }
    // Calls f(key, value) for every entry, in no particular order.
    template <typename F> void forEach(F f) const
    {
        for (const Slot &slot : m_slots) {
            if (slot.key != empty())
                f(slot.key, slot.value);
        }
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
    void rehash(qsizetype capacity)
    {
        const QVector<Slot> old = std::move(m_slots); // may be shared: only read
        m_slots = QVector<Slot>(capacity);
        m_size = 0;
        for (const Slot &slot : old) {
            if (slot.key != empty())
                insert(slot.key, slot.value);
        }
    }

    QVector<Slot> m_slots; // a power of two, or empty
    int m_size = 0;
};

} // namespace sandscope
