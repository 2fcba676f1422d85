#include "jsonlineview.h"

#include "streamjson/structuralindexer.h"

#include <charconv>
#include <cstring>

namespace sandscope {

namespace {

// What may follow a number or a literal for this view: JSON's whitespace and the structural
// characters that can come after a value. (The DOM parser also lets a quote follow, which is
// never valid JSON there: such a line is left to it.)
constexpr auto endsValue = [] {
    struct Table {
        bool at[256] = {};
    } table;
    for (const unsigned char c : {'\t', '\n', '\r', ' ', ',', ':', ']', '}'})
        table.at[c] = true;
    return table;
}();

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// The longest integer read exactly (as an int64, as the DOM parser stores it) and the longest
// plain decimal this view reads (from_chars rounds it as the DOM parser does).
constexpr int maxIntegerDigits = 18;
constexpr ptrdiff_t maxNumberLength = 64;
constexpr int maxDepth = 1000; // levels read: fewer (the DOM parser: 1,023)

// Whether the value at `text` is a number this view reads (see the header), or a literal.
[[gnu::always_inline]] inline bool scalarReadable(const char *text)
{
    const char c = *text;
    const char *p = text;
    if (isDigit(c)) {
        if (c == '0') {
            ++p;
        } else {
            while (isDigit(*p))
                ++p;
            if (p - text > maxIntegerDigits)
                return false;
        }
        if (*p == '.') {
            ++p;
            if (!isDigit(*p))
                return false;
            while (isDigit(*p))
                ++p;
            if (p - text > maxNumberLength)
                return false;
        }
        return endsValue.at[static_cast<unsigned char>(*p)];
    }
    if (c == 't')
        return std::memcmp(text, "true", 4) == 0
            && endsValue.at[static_cast<unsigned char>(text[4])];
    if (c == 'f')
        return std::memcmp(text, "false", 5) == 0
            && endsValue.at[static_cast<unsigned char>(text[5])];
    if (c == 'n')
        return std::memcmp(text, "null", 4) == 0
            && endsValue.at[static_cast<unsigned char>(text[4])];
    return false;
}

// The value of an integer's digits (at most maxIntegerDigits: no overflow).
int64_t integerOf(std::string_view digits)
{
    int64_t value = 0;
    for (const char digit : digits)
        value = value * 10 + (digit - '0');
    return value;
}

} // namespace

JsonLineView::JsonLineView(simdjson::dom::parser *parser, Stage1 stage1)
    : m_parser(parser)
    , m_ownStage1(stage1 == Stage1::Fastest && StructuralIndexer::isAvailable())
{
}

bool JsonLineView::indexWithSimdjson(const char *json, size_t length)
{
    if (std::memchr(json, '\\', length))
        return false;
    if (length > m_parser->capacity() && m_parser->allocate(length) != simdjson::SUCCESS)
        return false;
    auto &stage1 = *m_parser->implementation;
    if (stage1.stage1(
            reinterpret_cast<const uint8_t *>(json), length, simdjson::stage1_mode::regular)
        != simdjson::SUCCESS)
        return false;
    m_indexes = stage1.structural_indexes.get();
    m_tokens = stage1.n_structural_indexes;
    return true;
}

bool JsonLineView::read(const char *json, size_t length, Object *root)
{
    if (length == 0 || json[0] != '{')
        return false;
    if (m_ownStage1) {
        const size_t capacity = StructuralIndexer::capacityFor(length);
        if (m_ownIndexes.size() < capacity)
            m_ownIndexes.resize(capacity);
        const int64_t count = StructuralIndexer::index(json, length, m_ownIndexes.data());
        if (count < 0)
            return false;
        m_indexes = m_ownIndexes.data();
        m_tokens = uint32_t(count);
    } else if (!indexWithSimdjson(json, length)) {
        return false;
    }
    m_json = json;
    if (m_close.size() < m_tokens)
        m_close.resize(m_tokens);
    if (!walk())
        return false;
    root->m_view = this;
    root->m_open = 0;
    return true;
}

void JsonLineView::releaseLargeBuffers()
{
    if (m_close.capacity() > 1024 * 1024)
        std::vector<uint32_t>().swap(m_close);
    if (m_ownIndexes.capacity() > 1024 * 1024)
        std::vector<uint32_t>().swap(m_ownIndexes);
}

// The DOM parser's stage 2 without its tape: the same grammar, each token looked at once. The
// last token being the root's '}' bounds every look at the next token within the line's tokens
// (and its ends: a stage 1 writes three after them). After a value, a comma or the container's
// own closer must follow. Runs of members and elements that are strings or scalars (most of
// stream-json: system/init's lists, usage objects) are passed in a loop of their own, a few
// tokens at a time, without going round the general path for each (on the 100 MB capture of
// bench/replay_vs_jq.sh, the lines were decided in 38.5 ms instead of 43.0).
bool JsonLineView::walk()
{
    const uint32_t count = m_tokens;
    if (count < 2 || charAt(0) != '{' || charAt(count - 1) != '}')
        return false;
    const uint32_t last = count - 1;
    uint32_t open[maxDepth];
    char closer[maxDepth]; // '}' or ']'
    int depth = 1;
    open[0] = 0;
    closer[0] = '}';
    if (charAt(1) == '}') {
        m_close[0] = 1;
        return count == 2;
    }
    uint32_t i = 1;
    char c = 0;
    goto member;
value: // at i: a container is entered; anything else is checked and passed
    c = charAt(i);
    if (c == '{' || c == '[') {
        if (depth == maxDepth - 1)
            return false;
        const char close = char(c + 2); // '{' + 2 is '}', '[' + 2 is ']'
        open[depth] = i++;
        closer[depth++] = close;
        if (charAt(i) == close) {
            m_close[open[depth - 1]] = i++;
            goto scope_end;
        }
        if (c == '{')
            goto member;
        goto elements;
    }
    if (c != '"' && !scalarReadable(m_json + m_indexes[i]))
        return false;
    ++i;
value_end: // the container at depth goes on, or ends
    if (i > last)
        return false;
    c = charAt(i++);
    if (c == ',') {
        if (closer[depth - 1] == '}')
            goto member;
        goto elements;
    }
    if (c != closer[depth - 1])
        return false;
    m_close[open[depth - 1]] = i - 1;
scope_end:
    if (--depth == 0)
        return i == count;
    goto value_end;
member: // at i: an object's key, then its value
    if (charAt(i) != '"' || charAt(i + 1) != ':')
        return false;
    i += 2;
    // Members whose value is a string or a scalar, four tokens each, passed in one loop (a
    // token before a comma is before the root's close, so the next two are there to look at).
    while (charAt(i + 1) == ',' && charAt(i + 2) == '"' && charAt(i + 3) == ':'
        && (charAt(i) == '"' || scalarReadable(m_json + m_indexes[i])))
        i += 4;
    goto value;
elements: // at i: an array's element; strings followed by a comma passed in one loop
    while (charAt(i) == '"' && charAt(i + 1) == ',')
        i += 2;
    goto value;
}

std::string_view JsonLineView::numberAt(uint32_t token, bool *integer) const
{
    const char *text = m_json + m_indexes[token];
    const char *p = text;
    while (isDigit(*p))
        ++p;
    *integer = *p != '.';
    if (!*integer) {
        ++p;
        while (isDigit(*p))
            ++p;
    }
    return {text, size_t(p - text)};
}

simdjson::error_code JsonLineView::Value::get(int64_t &out) const
{
    if (!m_view)
        return simdjson::NO_SUCH_FIELD;
    if (!isDigit(first()))
        return simdjson::INCORRECT_TYPE;
    bool integer = false;
    const std::string_view digits = m_view->numberAt(m_token, &integer);
    if (!integer)
        return simdjson::INCORRECT_TYPE; // a decimal is a double, as in the DOM
    out = integerOf(digits);
    return simdjson::SUCCESS;
}

simdjson::error_code JsonLineView::Value::get(uint64_t &out) const
{
    int64_t value = 0;
    const simdjson::error_code error = get(value);
    if (error == simdjson::SUCCESS)
        out = uint64_t(value); // never negative here
    return error;
}

simdjson::error_code JsonLineView::Value::get(double &out) const
{
    if (!m_view)
        return simdjson::NO_SUCH_FIELD;
    if (!isDigit(first()))
        return simdjson::INCORRECT_TYPE;
    bool integer = false;
    const std::string_view text = m_view->numberAt(m_token, &integer);
    if (integer) { // as the DOM's get_double of an int64
        out = double(integerOf(text));
        return simdjson::SUCCESS;
    }
    // Correctly rounded, as the DOM parser's number parsing is.
    double value = 0;
    const auto parsed = std::from_chars(text.data(), text.data() + text.size(), value);
    if (parsed.ec != std::errc())
        return simdjson::NUMBER_ERROR; // not reached: the walk checked the form
    out = value;
    return simdjson::SUCCESS;
}

JsonLineView::Value JsonLineView::Object::at_key(std::string_view key) const
{
    for (const Field field : *this) {
        if (field.key == key)
            return field.value;
    }
    return {};
}

} // namespace sandscope
