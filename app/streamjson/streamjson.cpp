#include "streamjson.h"

#include "streamjson/simdjsonfields.h"

#include <cstring>
#include <simdjson.h>
#include <string_view>
#include <vector>

namespace sandscope {

namespace {

using jsonfields::retainedCapacity;
constexpr size_t initialCapacity = size_t(256) * 1024;

bool isAsciiSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string_view trimmed(std::string_view text)
{
    while (!text.empty() && isAsciiSpace(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isAsciiSpace(text.back()))
        text.remove_suffix(1);
    return text;
}

// Under a PTY the CLI writes ESC[?25h at exit without a newline, so it can end up in front
// of the next line. Drops CSI sequences (ESC [ parameters intermediates final) at the start.
std::string_view withoutLeadingCsi(std::string_view text)
{
    while (text.size() >= 2 && text[0] == '\x1b' && text[1] == '[') {
        size_t end = 2;
        while (end < text.size() && text[end] >= 0x20 && text[end] <= 0x3f)
            ++end;
        if (end == text.size() || text[end] < 0x40 || text[end] > 0x7e)
            break; // incomplete or malformed: leave it, the line is not JSON anyway
        text.remove_prefix(end + 1);
        text = trimmed(text);
    }
    return text;
}

using jsonfields::stringField;
using jsonfields::toQString;

QString typeName(simdjson::dom::element_type type)
{
    using simdjson::dom::element_type;
    switch (type) {
    case element_type::ARRAY:
        return QStringLiteral("an array");
    case element_type::OBJECT:
        return QStringLiteral("an object");
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE:
        return QStringLiteral("a number");
    case element_type::STRING:
        return QStringLiteral("a string");
    case element_type::BOOL:
        return QStringLiteral("a boolean");
    case element_type::NULL_VALUE:
        return QStringLiteral("null");
    }
    return QStringLiteral("an unknown value");
}

} // namespace

namespace streamjson {

std::string_view withoutTerminator(std::string_view line)
{
    if (!line.empty() && line.back() == '\n')
        line.remove_suffix(1);
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    return line;
}

bool isBlank(std::string_view line)
{
    return trimmed(line).empty();
}

std::string_view jsonText(std::string_view line)
{
    return withoutLeadingCsi(trimmed(line));
}

} // namespace streamjson

struct StreamLineReader::Parser {
    simdjson::dom::parser parser;
    std::vector<char> input; // the JSON text followed by SIMDJSON_PADDING bytes

    // simdjson reads up to SIMDJSON_PADDING bytes past the end, which a QByteArray does not
    // guarantee to own: copy into a buffer that does.
    simdjson::simdjson_result<simdjson::dom::element> parse(std::string_view json)
    {
        const size_t needed = json.size() + simdjson::SIMDJSON_PADDING;
        if (input.size() < needed)
            input.resize(needed);
        std::memcpy(input.data(), json.data(), json.size());
        std::memset(input.data() + json.size(), 0, simdjson::SIMDJSON_PADDING);
        return parser.parse(input.data(), json.size(), false);
    }

    // A failed allocation is harmless: parse() allocates on demand and reports MEMALLOC.
    void reserve(size_t capacity)
    {
        const simdjson::error_code error = parser.allocate(capacity);
        Q_UNUSED(error)
    }

    void releaseLargeBuffers()
    {
        if (input.size() > retainedCapacity + simdjson::SIMDJSON_PADDING)
            std::vector<char>().swap(input);
        if (parser.capacity() > retainedCapacity)
            reserve(initialCapacity);
    }
};

StreamLineReader::StreamLineReader(qsizetype maxLineBytes)
    : m_parser(std::make_unique<Parser>())
    , m_maxLineBytes(maxLineBytes)
{
    m_parser->reserve(initialCapacity);
}

StreamLineReader::~StreamLineReader() = default;

StreamLine StreamLineReader::parse(const QString &line)
{
    return parse(line.toUtf8());
}

StreamLine StreamLineReader::parse(const QByteArray &line)
{
    return parse(line, ObjectVisitor());
}

StreamLine StreamLineReader::parse(const QByteArray &line, const ObjectVisitor &visit)
{
    StreamLine result;
    result.raw = line;
    if (result.raw.endsWith('\n'))
        result.raw.chop(1);
    if (result.raw.endsWith('\r'))
        result.raw.chop(1);

    const std::string_view whole(result.raw.constData(), static_cast<size_t>(result.raw.size()));
    if (trimmed(whole).empty())
        return result; // Empty

    result.kind = StreamLine::NotJson;
    if (result.raw.size() > m_maxLineBytes) {
        result.error = QStringLiteral("line of %1 bytes exceeds the limit of %2 bytes")
                           .arg(result.raw.size())
                           .arg(m_maxLineBytes);
        return result;
    }
    const std::string_view json = withoutLeadingCsi(trimmed(whole));
    if (json.empty()) {
        result.error = QStringLiteral("terminal control sequence only");
        return result;
    }
    const bool meantAsObject = json.front() == '{';

    simdjson::dom::element root;
    const simdjson::error_code parseError = m_parser->parse(json).get(root);
    if (parseError != simdjson::SUCCESS) {
        result.corrupt = meantAsObject;
        result.error = meantAsObject ? QStringLiteral("corrupt JSON: ")
                + QString::fromUtf8(simdjson::error_message(parseError))
                                     : QStringLiteral("not JSON: does not start with \"{\"");
    } else if (simdjson::dom::object object; root.get(object) != simdjson::SUCCESS) {
        result.error = QStringLiteral("top-level JSON value is ") + typeName(root.type())
            + QStringLiteral(", not an object");
    } else {
        result.kind = StreamLine::Json;
        result.isObject = true;
        result.type = stringField(object, "type");
        result.subtype = stringField(object, "subtype");
        result.sessionId = stringField(object, "session_id");
        if (result.sessionId.isEmpty()) // transcript records (docs/stream-json.md)
            result.sessionId = stringField(object, "sessionId");
        result.uuid = stringField(object, "uuid");
        result.parentToolUseId = stringField(object, "parent_tool_use_id");
        simdjson::dom::object message;
        if (object.at_key("message").get(message) == simdjson::SUCCESS)
            result.messageId = stringField(message, "id");
        if (visit)
            visit(object);
    }
    m_parser->releaseLargeBuffers();
    return result;
}

} // namespace sandscope
