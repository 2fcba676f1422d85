#pragma once
// Classifies and reads the envelope of one line of `claude -p --output-format stream-json
// --verbose` output (docs/stream-json.md, "Reading one line"). simdjson does the parsing; the
// full line is validated (syntax and UTF-8), only the envelope fields are extracted. Callers
// that need the content pass a visitor to parse(line, visit), which hands them the parsed
// top-level object without a second parse; the line itself stays in StreamLine::raw.

#include <QByteArray>
#include <QString>

#include <functional>
#include <memory>
#include <string_view>

namespace simdjson::dom {
class object;
}

namespace sandscope {

struct StreamLine {
    enum Kind {
        Json, // a JSON object: the envelope fields below are filled
        NotJson, // noise (stderr text, terminal sequences), corrupt or non-object JSON
        Empty, // nothing but whitespace
    };
    Kind kind = Empty;
    QString type;
    QString subtype;
    QString sessionId;
    QString uuid;
    QString parentToolUseId; // empty for the main thread (JSON null)
    QString messageId; // message.id of assistant/user lines, when present
    QString error; // why the line is not JSON (only for NotJson)
    bool isObject = false;
    // NotJson only: the line began with "{", so it was meant to be JSON and is corrupt
    // (report it) rather than noise (skip it).
    bool corrupt = false;
    QByteArray raw; // the line as given, without a trailing "\n" / "\r\n"

    QString rawText() const { return QString::fromUtf8(raw); }
};

namespace streamjson {
// The line without one trailing "\n" and then one "\r", as StreamLine::raw keeps it.
std::string_view withoutTerminator(std::string_view line);
// Nothing but whitespace: StreamLine::Empty.
bool isBlank(std::string_view line);
// What StreamLineReader::parse hands to simdjson: the line trimmed, leading CSI sequences
// removed (docs/stream-json.md, "Reading one line"); empty when nothing is left.
std::string_view jsonText(std::string_view line);
} // namespace streamjson

// Reuses one simdjson parser and one padded input buffer across lines; not thread-safe.
class StreamLineReader {
public:
    // Lines longer than this become NotJson instead of being parsed. Image reads and large
    // tool results put megabytes on one line, so the default is generous.
    static constexpr qsizetype defaultMaxLineBytes = qsizetype(256) * 1024 * 1024;

    explicit StreamLineReader(qsizetype maxLineBytes = defaultMaxLineBytes);
    ~StreamLineReader();
    StreamLineReader(const StreamLineReader &) = delete;
    StreamLineReader &operator=(const StreamLineReader &) = delete;

    StreamLine parse(const QByteArray &line);
    StreamLine parse(const QString &line);
    // Same as parse(line); for a Json line it also hands the parsed top-level object to
    // `visit`, so callers that need the content do not parse the line a second time. The
    // object is only valid during the call (the next parse reuses the parser's buffers).
    using ObjectVisitor = std::function<void(const simdjson::dom::object &)>;
    StreamLine parse(const QByteArray &line, const ObjectVisitor &visit);

    qsizetype maxLineBytes() const { return m_maxLineBytes; }

private:
    struct Parser;
    std::unique_ptr<Parser> m_parser;
    qsizetype m_maxLineBytes;
};

} // namespace sandscope
