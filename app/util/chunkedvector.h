#pragma once
// An append-only sequence stored in fixed blocks of 2^ChunkBits elements: indexing costs a
// shift and a mask more than a std::vector's, and growing never moves what is there. A vector
// that grows an element at a time doubles now and then, asking for twice its memory at once
// and copying everything into it: at a quarter of a million 64-byte items, 16 MB of fresh
// memory and an 8 MB copy in one event loop turn (TimelineModel while a 1 GB run loads). Here
// each block is asked for when the last one is full.

#include <cstddef>
#include <utility>
#include <vector>

namespace sandscope {

template <typename T, unsigned ChunkBits = 12> class ChunkedVector {
public:
    static constexpr size_t chunkSize = size_t(1) << ChunkBits;

    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }

    T &operator[](size_t i) { return m_chunks[i >> ChunkBits][i & (chunkSize - 1)]; }
    const T &operator[](size_t i) const { return m_chunks[i >> ChunkBits][i & (chunkSize - 1)]; }
    T &back() { return (*this)[m_size - 1]; }
    const T &back() const { return (*this)[m_size - 1]; }

    void push_back(T value)
    {
        if ((m_size >> ChunkBits) == m_chunks.size()) {
            m_chunks.emplace_back();
            m_chunks.back().reserve(chunkSize); // never grown past: no element moves
        }
        m_chunks.back().push_back(std::move(value));
        ++m_size;
    }

    // Frees every block.
    void clear()
    {
        std::vector<std::vector<T>>().swap(m_chunks);
        m_size = 0;
    }

private:
    std::vector<std::vector<T>> m_chunks; // every one but the last full
    size_t m_size = 0;
};

} // namespace sandscope
