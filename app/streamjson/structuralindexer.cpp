#include "structuralindexer.h"

#include <simdjson.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SANDSCOPE_STRUCTURAL_INDEXER 1
#endif

namespace sandscope {

#ifdef SANDSCOPE_STRUCTURAL_INDEXER

#define SANDSCOPE_TARGET __attribute__((target("avx2,bmi,bmi2,pclmul,popcnt"), always_inline))

namespace {

SANDSCOPE_TARGET inline uint64_t bitsOf(__m256i low, __m256i high)
{
    return uint64_t(uint32_t(_mm256_movemask_epi8(low)))
        | (uint64_t(uint32_t(_mm256_movemask_epi8(high))) << 32);
}

// The 64 bytes at `block`, one bit per byte for each class simdjson's stage 1 tells apart. Its
// classification, table for table: whitespace is ' ', \t, \n, \r; an operator is one of
// {}[]:, and, as there, also \f and 0x1A (a line with either outside a string is refused by
// the walk, as by the DOM parser's stage 2).
struct BlockBits {
    uint64_t whitespace;
    uint64_t op;
    uint64_t quote;
    uint64_t backslash;
    uint64_t control; // <= 0x1F
    uint64_t nonAscii;
};

// The classes of the two halves of a block that structuralOf needs as bit masks.
SANDSCOPE_TARGET inline void classifyStructure(__m256i low, __m256i high, BlockBits &bits)
{
    // Looked up by each byte's low four bits, in both 16-byte lanes (a byte >= 0x80 gives 0).
    const __m256i whitespaceTable = _mm256_broadcastsi128_si256(_mm_setr_epi8(
        ' ', 100, 100, 100, 17, 100, 113, 2, 100, '\t', '\n', 112, 100, '\r', 100, 100));
    const __m256i opTable = _mm256_broadcastsi128_si256(
        _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ':', '{', ',', '}', 0, 0));
    const __m256i curly = _mm256_set1_epi8(0x20); // '[' | 0x20 is '{', ']' | 0x20 is '}'
    const __m256i quote = _mm256_set1_epi8('"');
    bits.whitespace = bitsOf(_mm256_cmpeq_epi8(low, _mm256_shuffle_epi8(whitespaceTable, low)),
        _mm256_cmpeq_epi8(high, _mm256_shuffle_epi8(whitespaceTable, high)));
    bits.op
        = bitsOf(_mm256_cmpeq_epi8(_mm256_or_si256(low, curly), _mm256_shuffle_epi8(opTable, low)),
            _mm256_cmpeq_epi8(_mm256_or_si256(high, curly), _mm256_shuffle_epi8(opTable, high)));
    bits.quote = bitsOf(_mm256_cmpeq_epi8(low, quote), _mm256_cmpeq_epi8(high, quote));
}

SANDSCOPE_TARGET inline BlockBits classify(const char *block)
{
    const __m256i low = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(block));
    const __m256i high = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(block + 32));
    const __m256i lastControl = _mm256_set1_epi8(0x1F);
    const __m256i backslash = _mm256_set1_epi8('\\');
    BlockBits bits;
    classifyStructure(low, high, bits);
    bits.backslash = bitsOf(_mm256_cmpeq_epi8(low, backslash), _mm256_cmpeq_epi8(high, backslash));
    bits.control = bitsOf(_mm256_cmpeq_epi8(_mm256_max_epu8(low, lastControl), lastControl),
        _mm256_cmpeq_epi8(_mm256_max_epu8(high, lastControl), lastControl));
    bits.nonAscii = bitsOf(low, high);
    return bits;
}

// For each byte value, the positions of its set bits, packed to the front (8 bytes each).
struct BytePositions {
    alignas(64) uint64_t packed[256];
    constexpr BytePositions()
        : packed()
    {
        for (int value = 0; value < 256; ++value) {
            int count = 0;
            for (int bit = 0; bit < 8; ++bit) {
                if ((value >> bit) & 1)
                    packed[value] |= uint64_t(bit) << (8 * count++);
            }
        }
    }
};
constexpr BytePositions bytePositions;

// Each bit set in `bits`, as `base` plus its position, from `out` on: eight positions of one
// byte of the mask at a time, from the table, so there is no branch on the count (a block
// holds 4 to 14 structurals about as often as not, which a loop over the bits mispredicts).
// Writes 8 entries past the ones that count (capacityFor leaves room); returns their end.
SANDSCOPE_TARGET inline uint32_t *flatten(uint64_t bits, uint32_t base, uint32_t *out)
{
    __m256i offset = _mm256_set1_epi32(int(base));
    const __m256i eight = _mm256_set1_epi32(8);
    for (int i = 0; i < 8; ++i) {
        const unsigned byte = unsigned(bits >> (8 * i)) & 0xFF;
        const __m256i positions = _mm256_cvtepu8_epi32(
            _mm_loadl_epi64(reinterpret_cast<const __m128i *>(&bytePositions.packed[byte])));
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(out), _mm256_add_epi32(positions, offset));
        out += _mm_popcnt_u32(byte);
        offset = _mm256_add_epi32(offset, eight);
    }
    return out;
}

#define SANDSCOPE_TARGET_512                                                                       \
    __attribute__((target("avx512f,avx512bw,avx512vbmi2,bmi,pclmul,popcnt"), always_inline))

// GCC 12's plain forms of these three pass an "undefined" register that -Wmaybe-uninitialized
// flags once inlined at -O1 (the sanitizer and Qt 6 builds, with -Werror); the masked forms
// with every lane taken are the same instructions.
SANDSCOPE_TARGET_512 inline __m512i inEveryLane(__m128i lane)
{
    return _mm512_mask_broadcast_i32x4(_mm512_setzero_si512(), __mmask16(0xFFFF), lane);
}

SANDSCOPE_TARGET_512 inline __m512i widened(__m128i bytes)
{
    return _mm512_mask_cvtepu8_epi32(_mm512_setzero_si512(), __mmask16(0xFFFF), bytes);
}

template <int Lane> SANDSCOPE_TARGET_512 inline __m128i laneOf(__m512i bytes)
{
    return _mm512_mask_extracti32x4_epi32(_mm_setzero_si128(), __mmask8(0xF), bytes, Lane);
}

// classify() with one 64-byte register: the compares give the bit masks directly.
SANDSCOPE_TARGET_512 inline BlockBits classify512(const char *block)
{
    const __m512i whitespaceTable = inEveryLane(_mm_setr_epi8(
        ' ', 100, 100, 100, 17, 100, 113, 2, 100, '\t', '\n', 112, 100, '\r', 100, 100));
    const __m512i opTable
        = inEveryLane(_mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ':', '{', ',', '}', 0, 0));
    const __m512i bytes = _mm512_loadu_si512(block);
    BlockBits bits;
    bits.whitespace = _mm512_cmpeq_epi8_mask(bytes, _mm512_shuffle_epi8(whitespaceTable, bytes));
    bits.op = _mm512_cmpeq_epi8_mask(
        _mm512_or_si512(bytes, _mm512_set1_epi8(0x20)), _mm512_shuffle_epi8(opTable, bytes));
    bits.quote = _mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8('"'));
    bits.backslash = _mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8('\\'));
    bits.control = _mm512_cmple_epu8_mask(bytes, _mm512_set1_epi8(0x1F));
    bits.nonAscii = _mm512_movepi8_mask(bytes);
    return bits;
}

// flatten() without a loop over the bits: the set bits' byte positions packed to the front
// (VBMI2's compress), widened 16 at a time. Writes whole groups of 16 (capacityFor leaves
// room); returns the end of the ones that count.
SANDSCOPE_TARGET_512 inline uint32_t *flatten512(uint64_t bits, uint32_t base, uint32_t *out)
{
    const __m512i positions
        = _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46,
            45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24,
            23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i packed = _mm512_maskz_compress_epi8(bits, positions);
    const __m512i offset = _mm512_set1_epi32(int(base));
    const int count = int(_mm_popcnt_u64(bits));
    _mm512_storeu_si512(out, _mm512_add_epi32(widened(laneOf<0>(packed)), offset));
    if (count > 16) {
        _mm512_storeu_si512(out + 16, _mm512_add_epi32(widened(laneOf<1>(packed)), offset));
        if (count > 32) {
            _mm512_storeu_si512(out + 32, _mm512_add_epi32(widened(laneOf<2>(packed)), offset));
            if (count > 48)
                _mm512_storeu_si512(out + 48, _mm512_add_epi32(widened(laneOf<3>(packed)), offset));
        }
    }
    return out + count;
}

// What a line's blocks carry from one to the next.
struct LineState {
    uint64_t inStringBefore = 0; // all ones when the block before ended inside a string
    uint64_t scalarBefore = 0; // 1 when the byte before was a scalar's other than a quote
    uint64_t controlInString = 0;
    uint64_t nonAscii = 0;
};

#define SANDSCOPE_TARGET_BITS __attribute__((target("pclmul"), always_inline))

// The block's bits with what lies past the line's end (`left` bytes remain) as whitespace, as
// simdjson pads its last block.
SANDSCOPE_TARGET_BITS inline BlockBits withinLine(BlockBits bits, size_t left)
{
    if (left < 64) {
        const uint64_t inLine = (uint64_t(1) << left) - 1;
        bits.whitespace |= ~inLine;
        bits.op &= inLine;
        bits.quote &= inLine;
        bits.backslash &= inLine;
        bits.control &= inLine;
        bits.nonAscii &= inLine;
    }
    return bits;
}

// The structural characters of a block without a backslash, from its classes: the same for
// either kernel.
SANDSCOPE_TARGET_BITS inline uint64_t structuralOf(const BlockBits &bits, LineState &state)
{
    state.nonAscii |= bits.nonAscii;
    // Without escapes every quote toggles: a prefix XOR (carry-less multiplication by all
    // ones) marks the opening quote and what follows, up to the closing quote.
    const uint64_t inString = uint64_t(_mm_cvtsi128_si64(_mm_clmulepi64_si128(
                                  _mm_set_epi64x(0, int64_t(bits.quote)), _mm_set1_epi8(-1), 0)))
        ^ state.inStringBefore;
    state.inStringBefore = uint64_t(int64_t(inString) >> 63);
    state.controlInString |= bits.control & inString;
    // A scalar starts where a byte that is neither whitespace nor an operator follows
    // whitespace, an operator or a quote; inside strings only the opening quote counts.
    const uint64_t scalar = ~(bits.op | bits.whitespace);
    const uint64_t nonQuoteScalar = scalar & ~bits.quote;
    const uint64_t followsScalar = (nonQuoteScalar << 1) | state.scalarBefore;
    state.scalarBefore = nonQuoteScalar >> 63;
    const uint64_t stringTail = inString ^ bits.quote; // after the opening quote, closing
    return (bits.op | (scalar & ~followsScalar)) & ~stringTail;
}

// After the last block: the line's verdict, and simdjson's three ends after the positions.
int64_t finish(
    const char *json, size_t length, const LineState &state, uint32_t *out, uint32_t *next)
{
    if (state.controlInString != 0 || state.inStringBefore != 0)
        return -1;
    if (state.nonAscii != 0 && !simdjson::validate_utf8(json, length))
        return -1;
    const int64_t count = next - out;
    if (count == 0)
        return -1; // simdjson: EMPTY
    next[0] = uint32_t(length);
    next[1] = uint32_t(length);
    next[2] = 0;
    return count;
}

// One loop per kernel: each must carry its instruction sets as a target attribute for the
// kernel's helpers to be inlined into it, and a template cannot vary that attribute. What the
// loops share is in withinLine, structuralOf and finish.

// Every block with all six classes as bit masks (a line with a control character).
__attribute__((target("avx2,bmi,bmi2,pclmul,popcnt"))) int64_t indexAvx2Exact(
    const char *json, size_t length, uint32_t *out)
{
    LineState state;
    uint32_t *next = out;
    for (size_t base = 0; base < length; base += 64) {
        const BlockBits bits = withinLine(classify(json + base), length - base);
        if (bits.backslash != 0)
            return -1;
        next = flatten(structuralOf(bits, state), uint32_t(base), next);
    }
    return finish(json, length, state, out, next);
}

// A line's whole blocks need only three classes as bit masks: whether it has a backslash, a
// control character or a byte >= 0x80 anywhere is kept in registers and looked at once, at
// the end (half the movemasks of a block fewer; 1-2 ms on 100 MB, bench_summaryphases). Only a
// control character needs to know where it is (in a string or not): such a line, rare in
// stream-json, is done again by indexAvx2Exact. The last, partial block is classified whole.
__attribute__((target("avx2,bmi,bmi2,pclmul,popcnt"))) int64_t indexAvx2(
    const char *json, size_t length, uint32_t *out)
{
    const __m256i lastControl = _mm256_set1_epi8(0x1F);
    const __m256i backslash = _mm256_set1_epi8('\\');
    __m256i backslashes = _mm256_setzero_si256();
    __m256i smallest = _mm256_set1_epi8(-1);
    __m256i highBits = _mm256_setzero_si256();
    LineState state;
    uint32_t *next = out;
    size_t base = 0;
    for (; length - base >= 64; base += 64) {
        const __m256i low = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(json + base));
        const __m256i high
            = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(json + base + 32));
        backslashes = _mm256_or_si256(backslashes,
            _mm256_or_si256(_mm256_cmpeq_epi8(low, backslash), _mm256_cmpeq_epi8(high, backslash)));
        smallest = _mm256_min_epu8(smallest, _mm256_min_epu8(low, high));
        highBits = _mm256_or_si256(highBits, _mm256_or_si256(low, high));
        BlockBits bits {};
        classifyStructure(low, high, bits);
        next = flatten(structuralOf(bits, state), uint32_t(base), next);
    }
    if (!_mm256_testz_si256(backslashes, backslashes))
        return -1;
    if (_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(smallest, lastControl), lastControl))
        != 0)
        return indexAvx2Exact(json, length, out);
    state.nonAscii = uint64_t(uint32_t(_mm256_movemask_epi8(highBits)));
    if (base < length) {
        const BlockBits bits = withinLine(classify(json + base), length - base);
        if (bits.backslash != 0)
            return -1;
        next = flatten(structuralOf(bits, state), uint32_t(base), next);
    }
    return finish(json, length, state, out, next);
}

__attribute__((target("avx512f,avx512bw,avx512vbmi2,bmi,pclmul,popcnt"))) int64_t indexAvx512(
    const char *json, size_t length, uint32_t *out)
{
    LineState state;
    uint32_t *next = out;
    for (size_t base = 0; base < length; base += 64) {
        const BlockBits bits = withinLine(classify512(json + base), length - base);
        if (bits.backslash != 0)
            return -1;
        next = flatten512(structuralOf(bits, state), uint32_t(base), next);
    }
    return finish(json, length, state, out, next);
}

bool runsAvx2()
{
    static const bool runs = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi")
        && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("pclmul")
        && __builtin_cpu_supports("popcnt");
    return runs;
}

bool runsAvx512()
{
    static const bool runs = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
        && __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi")
        && __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("popcnt");
    return runs;
}

} // namespace

bool StructuralIndexer::runs(Kernel kernel)
{
    return kernel == Kernel::Avx512 ? runsAvx512() : runsAvx2();
}

int64_t StructuralIndexer::index(const char *json, size_t length, uint32_t *out)
{
    static const Kernel best = runsAvx512() ? Kernel::Avx512 : Kernel::Avx2;
    return indexWith(best, json, length, out);
}

int64_t StructuralIndexer::indexWith(Kernel kernel, const char *json, size_t length, uint32_t *out)
{
    if (length >= UINT32_MAX - 64 || !runs(kernel))
        return -1;
    return kernel == Kernel::Avx512 ? indexAvx512(json, length, out) : indexAvx2(json, length, out);
}

#else

bool StructuralIndexer::runs(Kernel)
{
    return false;
}

int64_t StructuralIndexer::index(const char *, size_t, uint32_t *)
{
    return -1;
}

int64_t StructuralIndexer::indexWith(Kernel, const char *, size_t, uint32_t *)
{
    return -1;
}

#endif

} // namespace sandscope
