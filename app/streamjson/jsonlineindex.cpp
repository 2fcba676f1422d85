#include "jsonlineindex.h"

#include <charconv>
#include <cstring>

namespace sandscope {

namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// What may follow a value: whitespace, or the comma or bracket after it (both structurals).
bool endsValue(char c)
{
    return isSpace(c) || c == ',' || c == '}' || c == ']';
}

bool isDigit(char c)
{
    return unsigned(c - '0') <= 9u;
}

// A number the index reads itself: -?(0|[1-9][0-9]{0,17})(\.[0-9]+)?, no exponent, no
// negative decimal or -0 (the DOM's own rules there are left to it). Sets *decimal.
bool plainNumber(const char *p, const char *end, bool *decimal)
{
    const bool negative = *p == '-';
    if (negative)
        ++p;
    if (p < end && *p == '0') {
        ++p;
        if (negative && (p >= end || *p != '.'))
            return false; // -0
    } else {
        int digits = 0;
        while (p < end && isDigit(*p)) {
            ++p;
            if (++digits > 18)
                return false;
        }
        if (digits == 0)
            return false;
    }
    *decimal = p < end && *p == '.';
    if (*decimal) {
        if (negative)
            return false;
        const char *fraction = ++p;
        while (p < end && isDigit(*p))
            ++p;
        if (p == fraction)
            return false;
    }
    return p < end && endsValue(*p);
}

bool isAtom(const char *p, const char *end, const char *atom, size_t size)
{
    return size_t(end - p) > size && std::memcmp(p, atom, size) == 0 && endsValue(p[size]);
}

// A scalar's token (a number is read up to the first character that cannot be in it).
std::string_view numberToken(const char *p, const char *end)
{
    const char *start = p;
    while (p < end && (isDigit(*p) || *p == '-' || *p == '.'))
        ++p;
    return std::string_view(start, size_t(p - start));
}

} // namespace

bool JsonLineIndex::index(simdjson::dom::parser &parser, const char *json, size_t size)
{
    if (size == 0 || json[0] != '{' || !indexText(parser, json, size))
        return false;
    return m_count >= 2 && m_positions[0] == 0 && walk(0) == m_count; // nothing after the root
}

bool JsonLineIndex::indexText(simdjson::dom::parser &parser, const char *text, size_t size)
{
    if (parser.capacity() < size && parser.allocate(size) != simdjson::SUCCESS)
        return false;
    simdjson::internal::dom_parser_implementation &stage1 = *parser.implementation;
    if (stage1.stage1(reinterpret_cast<const uint8_t *>(text), size, simdjson::stage1_mode::regular)
        != simdjson::SUCCESS)
        return false;
    m_json = text;
    m_size = size;
    m_positions = stage1.structural_indexes.get();
    m_count = stage1.n_structural_indexes;
    if (m_close.size() < m_count)
        m_close.resize(m_count);
    return true;
}

// A scalar that starts with c at p: a string (checked by stage 1), an atom, a plain number.
static inline __attribute__((always_inline)) bool plainScalar(
    char c, const char *p, const char *end)
{
    bool decimal = false;
    switch (c) {
    case '"':
        return true;
    case 't':
        return isAtom(p, end, "true", 4);
    case 'f':
        return isAtom(p, end, "false", 5);
    case 'n':
        return isAtom(p, end, "null", 4);
    default:
        return c != '\0' && plainNumber(p, end, &decimal);
    }
}

// The grammar, as a state machine over the structurals (the DOM's stage 2 without its tape).
uint32_t JsonLineIndex::walk(uint32_t first)
{
    const uint32_t count = m_count;
    if (first >= count || m_json[m_positions[first]] != '{')
        return 0;
    if (m_open.size() < maxDepth + 1)
        m_open.resize(maxDepth + 1);
    const char *const json = m_json;
    const char *const end = json + m_size;
    // Past the last structural, two that point at the root's '{': every state turns it down
    // within two steps (stage 1 leaves room for three after the last).
    uint32_t *const positions = m_positions;
    positions[count] = positions[count + 1] = positions[first];
    uint32_t *const open = m_open.data();
    uint32_t *const close = m_close.data();
    constexpr uint32_t arrayBit = 0x80000000u;
    uint32_t depth = 0;
    uint32_t k = first;
    char c = 0;
#define SANDSCOPE_AT(structural) json[positions[structural]]
    open[depth++] = k++;
objectBegin:
    if (SANDSCOPE_AT(k) == '}')
        goto scopeEnd;
objectField:
    if (SANDSCOPE_AT(k) != '"' || SANDSCOPE_AT(k + 1) != ':')
        return 0;
    k += 2;
value: // in an object after its key's ':', or in an array
    c = SANDSCOPE_AT(k);
    if (c == '{' || c == '[') {
        if (depth >= maxDepth)
            return 0;
        open[depth++] = c == '[' ? k++ | arrayBit : k++;
        if (c == '{')
            goto objectBegin;
        goto arrayBegin;
    }
    if (!plainScalar(c, json + positions[k], end))
        return 0;
    ++k;
afterValue: // a ',' to the next member or element, or the scope's end (scopeEnd checks which)
    c = SANDSCOPE_AT(k);
    if (c == ',') {
        ++k;
        if (open[depth - 1] & arrayBit)
            goto value;
        goto objectField;
    }
    if (c == '}' || c == ']')
        goto scopeEnd;
    return 0;
arrayBegin:
    if (SANDSCOPE_AT(k) == ']')
        goto scopeEnd;
    goto value;
scopeEnd : {
    const uint32_t opened = open[--depth];
    if (((opened & arrayBit) != 0) != (SANDSCOPE_AT(k) == ']'))
        return 0;
    close[opened & ~arrayBit] = k++;
    if (depth == 0)
        return k;
    goto afterValue;
}
#undef SANDSCOPE_AT
}

simdjson::error_code JsonLineIndex::Value::get(bool &out) const
{
    const char c = first();
    if (c != 't' && c != 'f')
        return simdjson::INCORRECT_TYPE;
    out = c == 't';
    return simdjson::SUCCESS;
}

simdjson::error_code JsonLineIndex::Value::get(int64_t &out) const
{
    const char c = first();
    if (c != '-' && !isDigit(c))
        return simdjson::INCORRECT_TYPE;
    const std::string_view token = numberToken(
        m_index->m_json + m_index->m_positions[m_at], m_index->m_json + m_index->m_size);
    if (token.find('.') != std::string_view::npos)
        return simdjson::INCORRECT_TYPE; // a double, as the DOM has it
    // Up to 18 digits: always an int64.
    std::from_chars(token.data(), token.data() + token.size(), out);
    return simdjson::SUCCESS;
}

simdjson::error_code JsonLineIndex::Value::get(uint64_t &out) const
{
    int64_t value = 0;
    const simdjson::error_code error = get(value);
    if (error != simdjson::SUCCESS)
        return error;
    if (value < 0)
        return simdjson::NUMBER_OUT_OF_RANGE;
    out = uint64_t(value);
    return simdjson::SUCCESS;
}

simdjson::error_code JsonLineIndex::Value::get(double &out) const
{
    int64_t integer = 0;
    const simdjson::error_code error = get(integer);
    if (error == simdjson::SUCCESS) {
        out = double(integer);
        return error;
    }
    if (first() == '"' || first() == '{' || first() == '[' || first() == 't' || first() == 'f'
        || first() == 'n')
        return simdjson::INCORRECT_TYPE;
    // A plain decimal: both this and the DOM round correctly, so they agree.
    const std::string_view token = numberToken(
        m_index->m_json + m_index->m_positions[m_at], m_index->m_json + m_index->m_size);
    std::from_chars(token.data(), token.data() + token.size(), out);
    return simdjson::SUCCESS;
}

} // namespace sandscope
