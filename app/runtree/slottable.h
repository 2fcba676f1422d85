#pragma once

#include <QHash>

#include <algorithm>
#include <vector>

namespace sandscope {

// A table whose keys are only ever added, each at the next slot, with its value by slot: what
// RunModel keeps per tool_use id, message id and task id. Playback puts a checkpoint's table
// back by setting the slot count and the values (restore), without hashing a key again: the
// keys beyond the count stay known, so replaying the same events after a jump back finds each
// key at the slot it had. Keys that come in another order than the ones remembered make the
// table forget what it remembered from that slot on.
template <typename Key, typename Value> class SlotTable {
public:
    int size() const { return m_count; }
    bool isEmpty() const { return m_count == 0; }
    const Key &keyAt(int slot) const { return m_keys[size_t(slot)]; }
    const Value &valueAt(int slot) const { return m_values[size_t(slot)]; }

    // -1 when the key is not in the table.
    int slotOf(const Key &key) const
    {
        const auto it = m_slotOf.constFind(key);
        return it != m_slotOf.cend() && *it < m_count ? *it : -1;
    }
    Value *find(const Key &key)
    {
        const int slot = slotOf(key);
        return slot >= 0 ? &m_values[size_t(slot)] : nullptr;
    }
    Value value(const Key &key, const Value &fallback = Value()) const
    {
        const int slot = slotOf(key);
        return slot >= 0 ? m_values[size_t(slot)] : fallback;
    }

    // Sets the key's value, adding the key at the next slot when it is new.
    Value &insert(const Key &key, const Value &value)
    {
        const auto it = m_slotOf.constFind(key);
        if (it != m_slotOf.cend() && *it < m_count)
            return m_values[size_t(*it)] = value;
        if (it == m_slotOf.cend() || *it != m_count) { // new, or not where it was last time
            forgetFrom(m_count);
            m_slotOf.insert(key, m_count);
            m_keys.push_back(key);
        }
        if (m_values.size() <= size_t(m_count))
            m_values.resize(size_t(m_count) + 1);
        return m_values[size_t(m_count++)] = value;
    }

    // Puts back a table that held `keys` (a state of this table's run: the keys it had then,
    // in slot order), with valueOf(slot) for each slot's value. Costs the keys compared and
    // the values set; keys are hashed only where the table did not know them.
    template <typename ValueOf> void restore(const std::vector<Key> &keys, ValueOf valueOf)
    {
        const size_t count = keys.size();
        const size_t common = std::min(count, m_keys.size());
        size_t same = 0;
        while (same < common && sameKey(m_keys[same], keys[same]))
            ++same;
        if (same < common)
            forgetFrom(int(same));
        for (size_t slot = m_keys.size(); slot < count; ++slot) {
            m_slotOf.insert(keys[slot], int(slot));
            m_keys.push_back(keys[slot]);
        }
        if (m_values.size() < count)
            m_values.resize(count);
        for (size_t slot = 0; slot < count; ++slot)
            m_values[slot] = valueOf(int(slot));
        m_count = int(count);
    }

    // The keys in slot order (a state restore() can put back).
    std::vector<Key> keys() const
    {
        return std::vector<Key>(m_keys.begin(), m_keys.begin() + m_count);
    }

private:
    // Keys are usually the same shared string: compare the data pointers first.
    static bool sameKey(const Key &a, const Key &b)
    {
        return a.constData() == b.constData() || a == b;
    }
    void forgetFrom(int slot)
    {
        for (size_t i = size_t(slot); i < m_keys.size(); ++i)
            m_slotOf.remove(m_keys[i]);
        m_keys.resize(size_t(slot));
    }

    QHash<Key, int> m_slotOf; // every key remembered, also those at slots beyond m_count
    std::vector<Key> m_keys; // by slot, every key remembered
    std::vector<Value> m_values; // by slot; those at m_count and beyond mean nothing
    int m_count = 0;
};

} // namespace sandscope
