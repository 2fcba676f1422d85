#pragma once
// A hash table from ids (byte strings such as "toolu_01…") to small values, for tables that
// hold hundreds of thousands of ids (RunSummaryBuilder's calls and messages): the slots are one
// array of 8 bytes each (open addressing, linear probing), the entries one array, and the ids'
// bytes one buffer, so an id costs no allocation of its own and a lookup reads two cache lines.
// With QHash<QByteArray> (a node and a QByteArray per id), lookups, rehashes and freeing the
// nodes at exit were 12 % of `replay --summary` on 100 MB (docs/architecture.md, step 4).
// Values are not stable: insert() may move every entry.

#include <QtGlobal>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace sandscope {

template <typename Value> class FlatIdTable {
public:
    // The value of id, inserted value-initialised when it is new (*inserted is set to whether
    // it was). The reference holds until the next insert.
    Value &insert(std::string_view id, bool *inserted = nullptr)
    {
        if ((m_entries.size() + 1) * 4 > m_slots.size() * 3)
            grow();
        const size_t hash = hashOf(id);
        size_t slot = size_t(hash) & (m_slots.size() - 1);
        while (m_slots[slot] != 0) {
            if (matches(m_slots[slot], hash, id)) {
                if (inserted)
                    *inserted = false;
                return m_entries[size_t(m_slots[slot] & indexMask) - 1].value;
            }
            slot = (slot + 1) & (m_slots.size() - 1);
        }
        m_entries.push_back(Entry {m_keys.size(), uint32_t(id.size()), Value()});
        m_keys.insert(m_keys.end(), id.begin(), id.end());
        m_slots[slot] = tagOf(hash) | uint64_t(m_entries.size());
        if (inserted)
            *inserted = true;
        return m_entries.back().value;
    }

    const Value *find(std::string_view id) const
    {
        if (m_entries.empty())
            return nullptr;
        const size_t hash = hashOf(id);
        for (size_t slot = size_t(hash) & (m_slots.size() - 1); m_slots[slot] != 0;
             slot = (slot + 1) & (m_slots.size() - 1)) {
            if (matches(m_slots[slot], hash, id))
                return &m_entries[size_t(m_slots[slot] & indexMask) - 1].value;
        }
        return nullptr;
    }

    Value *find(std::string_view id)
    {
        return const_cast<Value *>(static_cast<const FlatIdTable *>(this)->find(id));
    }

    // Room for `entries` ids of `keyBytes` bytes in all, so that inserting them neither copies
    // the entries and ids to a larger array (touching fresh pages twice) nor rehashes. The
    // slots are filled now; the entries and ids take address space, pages only when used.
    void reserve(size_t entries, size_t keyBytes) { reserve(entries, keyBytes, entries); }
    // The same, with slots for only `slotsFor` of them (more grow the slots as ever): every new
    // id probes a random slot, so slots for many more ids than come leave their cache lines
    // untouched long enough to fall out of the cache while a large file streams through.
    void reserve(size_t entries, size_t keyBytes, size_t slotsFor)
    {
        m_entries.reserve(entries);
        m_keys.reserve(keyBytes);
        size_t slotCount = m_slots.empty() ? 64 : m_slots.size();
        while (slotsFor * 4 > slotCount * 3)
            slotCount *= 2;
        if (slotCount > m_slots.size())
            rehash(slotCount);
    }

    bool contains(std::string_view id) const { return find(id) != nullptr; }
    qint64 size() const { return qint64(m_entries.size()); }
    bool isEmpty() const { return m_entries.empty(); }

private:
    struct Entry {
        size_t keyOffset;
        uint32_t keyLength;
        Value value;
    };
    // A slot: 0 when empty, else the upper 32 bits of its id's hash over the entry's index + 1.
    static constexpr uint64_t indexMask = 0xffffffffu;

    // Eight bytes at a time, each folded in with one multiply (std::hash's takes three; it was
    // about 1 % of `replay --summary` on 100 MB in a profile), then mixed so that the slot (low
    // bits) and the tag (high bits) both depend on every byte. Not seeded: the ids come from
    // the files being read, and a collision costs probes, never a wrong answer.
    static size_t hashOf(std::string_view id)
    {
        auto word = [](const char *at, size_t bytes) {
            uint64_t value = 0;
            std::memcpy(&value, at, bytes);
            return value;
        };
        const char *at = id.data();
        size_t left = id.size();
        uint64_t hash = 0x9e3779b97f4a7c15ull ^ left;
        for (; left >= 8; at += 8, left -= 8) {
            hash = (hash ^ word(at, 8)) * 0xbf58476d1ce4e5b9ull;
            hash ^= hash >> 31;
        }
        if (left > 0) {
            hash = (hash ^ word(at, left)) * 0x94d049bb133111ebull;
            hash ^= hash >> 29;
        }
        hash ^= hash >> 32;
        hash *= 0xd6e8feb86659fd93ull;
        hash ^= hash >> 32;
        return size_t(hash);
    }
    static uint64_t tagOf(size_t hash) { return (uint64_t(hash) >> 32) << 32; }

    bool matches(uint64_t slot, size_t hash, std::string_view id) const
    {
        if ((slot & ~indexMask) != tagOf(hash))
            return false;
        const Entry &entry = m_entries[size_t(slot & indexMask) - 1];
        return entry.keyLength == id.size()
            && (id.empty()
                || std::memcmp(m_keys.data() + entry.keyOffset, id.data(), id.size()) == 0);
    }

    void grow() { rehash(m_slots.empty() ? 64 : m_slots.size() * 2); }

    void rehash(size_t slotCount)
    {
        std::vector<uint64_t> table(slotCount, 0);
        const size_t mask = table.size() - 1;
        for (size_t index = 0; index < m_entries.size(); ++index) {
            const Entry &entry = m_entries[index];
            const size_t hash
                = hashOf(std::string_view(m_keys.data() + entry.keyOffset, entry.keyLength));
            size_t slot = size_t(hash) & mask;
            while (table[slot] != 0)
                slot = (slot + 1) & mask;
            table[slot] = tagOf(hash) | uint64_t(index + 1);
        }
        m_slots.swap(table);
    }

    std::vector<uint64_t> m_slots;
    std::vector<Entry> m_entries;
    std::vector<char> m_keys;
};

} // namespace sandscope
