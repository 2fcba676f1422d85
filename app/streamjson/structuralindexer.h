#pragma once
// Stage 1 of a JSON line for JsonLineView, where the processor has AVX2, BMI2 and PCLMUL (or
// AVX-512 with VBMI2): the positions of the line's structural characters, as simdjson's stage 1
// finds them, for lines without a backslash only. Without escapes every quote opens or closes a
// string, so the pass skips simdjson's escape handling, and it checks for the backslash itself
// (JsonLineView did that with a memchr of its own before). UTF-8 is checked only for lines with
// a byte >= 0x80 (simdjson::validate_utf8). On the 100 MB capture of bench/replay_vs_jq.sh: see
// docs/architecture.md.
//
// The property the view relies on, checked on every capture line, mutations of them and lines
// of every length around the block size (tests/unit/tst_structuralindexer.cpp), and by the
// fuzzer: when index() gives a count, simdjson's stage 1 accepts the line and finds the same
// positions; when the line has no backslash and simdjson's stage 1 accepts it, so does index().

#include <cstddef>
#include <cstdint>

namespace sandscope {

class StructuralIndexer {
public:
    // Two kernels, one per instruction set: the same positions (tests/unit/
    // tst_structuralindexer.cpp checks each against simdjson). AVX2 writes a block's positions
    // a mask byte at a time from a table; AVX-512 (with VBMI2) classifies a block in one
    // register and packs its positions with a compress.
    enum class Kernel { Avx2, Avx512 };
    static bool runs(Kernel kernel);

    // Whether this processor runs index() (else JsonLineView uses simdjson's stage 1).
    static bool isAvailable() { return runs(Kernel::Avx2); }

    // Room `out` needs for a line of `length` bytes: the positions, three ends as simdjson
    // writes them, and the whole blocks the pass writes ahead.
    static size_t capacityFor(size_t length) { return length + 3 + 64; }

    // The structural positions of `json` (64 readable bytes after `length`) into `out`
    // (capacityFor(length) entries), followed by `length`, `length`, 0 as simdjson's stage 1
    // ends them. Returns their count, or -1 for a line with a backslash, a control character
    // in a string, a string left open, invalid UTF-8 or nothing but whitespace (simdjson's DOM
    // parser decides those).
    // With the fastest kernel this processor runs.
    static int64_t index(const char *json, size_t length, uint32_t *out);
    // With the given one; -1 where the processor does not run it.
    static int64_t indexWith(Kernel kernel, const char *json, size_t length, uint32_t *out);
};

} // namespace sandscope
