#pragma once
// One JSON line read in place for the summary fast path (RunSummaryScanner), without
// simdjson's DOM: a stage 1 finds the line's structural characters (and checks its UTF-8,
// strings and control characters as the DOM parser does; StructuralIndexer's where the
// processor runs it, else simdjson's, which the DOM parser's stage 2 reads), then one walk over
// them checks the grammar and notes where each object and array ends. Values are read straight
// from the line. On the 100 MB capture of bench/replay_vs_jq.sh, mapped and cut into lines
// (9-14 ms of CPU), reading every line this way takes about 30 ms more (37-42 ms before the walk
// passed runs of strings and scalars in loops of their own), the DOM parse 62 ms more.
//
// It accepts only what it can read exactly as the DOM parser would: an object whose line has no
// backslash (so no string needs unescaping), whose numbers are non-negative integers of up to
// 18 digits or plain decimals of up to 64 characters (no sign, no exponent), fewer than 1,000
// levels deep. Anything else, valid or not, it leaves (read() says false): the caller parses
// that line with the DOM parser, which decides. So a line it accepts is one the DOM parser
// accepts, and every value reads the same (tests/unit/tst_jsonlineview.cpp, and the fuzzer,
// check this on every line; tests/support/jsonlineviewcheck.h).
//
// The types mirror the part of simdjson's DOM API the scanner reads (get, at_key, iteration),
// so that the same field readers (simdjsonfields.h) serve both. Internal to app/streamjson:
// includes simdjson, and reads its parser's stage 1 output (structural_indexes), which the
// DOM parser's own stage 2 reads.

#include <cstdint>
#include <simdjson.h>
#include <string_view>
#include <vector>

namespace sandscope {

class JsonLineView {
public:
    class Value;
    class Object;
    class Array;

    // Whose stage 1 finds the structural characters: StructuralIndexer's where the processor
    // runs it (one pass that also refuses a backslash), else simdjson's.
    enum class Stage1 { Fastest, Simdjson };

    // Uses `parser` (its stage 1 and its buffers; the DOM fallback uses the same parser).
    explicit JsonLineView(simdjson::dom::parser *parser, Stage1 stage1 = Stage1::Fastest);

    // Reads `json` (simdjson::SIMDJSON_PADDING readable bytes after it). True with the root
    // object when the line is one this view reads exactly; false when the DOM parser must
    // decide. The Object and its values stay valid until the next read().
    bool read(const char *json, size_t length, Object *root);

    // Gives back the memory held for a huge line (the parser's is the caller's).
    void releaseLargeBuffers();

    class Value {
    public:
        Value() = default;

        simdjson::error_code error() const
        {
            return m_view ? simdjson::SUCCESS : simdjson::NO_SUCH_FIELD;
        }
        bool is_null() const { return first() == 'n'; }
        simdjson::error_code get(std::string_view &out) const
        {
            const simdjson::error_code error = typeIs('"');
            if (error == simdjson::SUCCESS)
                out = m_view->stringAt(m_token);
            return error;
        }
        simdjson::error_code get(bool &out) const
        {
            if (!m_view)
                return simdjson::NO_SUCH_FIELD;
            const char c = first();
            if (c != 't' && c != 'f')
                return simdjson::INCORRECT_TYPE;
            out = c == 't';
            return simdjson::SUCCESS;
        }
        simdjson::error_code get(int64_t &out) const;
        simdjson::error_code get(uint64_t &out) const;
        simdjson::error_code get(double &out) const;
        inline simdjson::error_code get(Object &out) const;
        inline simdjson::error_code get(Array &out) const;
        simdjson::error_code get(Value &out) const
        {
            out = *this;
            return error();
        }

    private:
        friend class JsonLineView;
        Value(const JsonLineView *view, uint32_t token)
            : m_view(view)
            , m_token(token)
        {
        }
        char first() const { return m_view ? m_view->charAt(m_token) : '\0'; }
        simdjson::error_code typeIs(char c) const
        {
            if (!m_view)
                return simdjson::NO_SUCH_FIELD;
            return first() == c ? simdjson::SUCCESS : simdjson::INCORRECT_TYPE;
        }
        const JsonLineView *m_view = nullptr; // null: missing (at_key found nothing)
        uint32_t m_token = 0;
    };

    struct Field {
        std::string_view key;
        Value value;
    };

    class Object {
    public:
        Object() = default;

        class Iterator {
        public:
            Field operator*() const
            {
                return {m_view->stringAt(m_token), Value(m_view, m_token + 2)};
            }
            Iterator &operator++()
            {
                m_token = m_view->next(m_token + 2);
                return *this;
            }
            bool operator!=(const Iterator &other) const { return m_token != other.m_token; }

        private:
            friend class Object;
            Iterator(const JsonLineView *view, uint32_t token)
                : m_view(view)
                , m_token(token)
            {
            }
            const JsonLineView *m_view;
            uint32_t m_token; // a key's, or the closing brace's
        };
        Iterator begin() const { return {m_view, m_view ? m_open + 1 : 0}; }
        Iterator end() const { return {m_view, m_view ? m_view->closeOf(m_open) : 0}; }
        // The first member named `key` (as the DOM's at_key: keys here have no escapes).
        Value at_key(std::string_view key) const;

    private:
        friend class JsonLineView;
        const JsonLineView *m_view = nullptr;
        uint32_t m_open = 0;
    };

    class Array {
    public:
        Array() = default;

        class Iterator {
        public:
            Value operator*() const { return {m_view, m_token}; }
            Iterator &operator++()
            {
                m_token = m_view->next(m_token);
                return *this;
            }
            bool operator!=(const Iterator &other) const { return m_token != other.m_token; }

        private:
            friend class Array;
            Iterator(const JsonLineView *view, uint32_t token)
                : m_view(view)
                , m_token(token)
            {
            }
            const JsonLineView *m_view;
            uint32_t m_token; // an element's, or the closing bracket's
        };
        Iterator begin() const { return {m_view, m_view ? m_open + 1 : 0}; }
        Iterator end() const { return {m_view, m_view ? m_view->closeOf(m_open) : 0}; }

    private:
        friend class JsonLineView;
        const JsonLineView *m_view = nullptr;
        uint32_t m_open = 0;
    };

private:
    bool walk();
    char charAt(uint32_t token) const { return m_json[m_indexes[token]]; }
    uint32_t closeOf(uint32_t open) const { return m_close[open]; }
    // The token after the value at `token` (an object or array: after its close).
    uint32_t after(uint32_t token) const
    {
        const char c = charAt(token);
        return (c == '{' || c == '[') ? m_close[token] + 1 : token + 1;
    }
    // A container's next member or element after the one whose value is at `token`, or its
    // close.
    uint32_t next(uint32_t token) const
    {
        const uint32_t following = after(token);
        return charAt(following) == ',' ? following + 1 : following;
    }
    // The closing quote is the last character before the next token that is not whitespace
    // (the walk saw a token follow every string; the line has no backslash).
    std::string_view stringAt(uint32_t token) const
    {
        const uint32_t start = m_indexes[token] + 1;
        uint32_t end = m_indexes[token + 1] - 1;
        while (m_json[end] != '"')
            --end;
        return {m_json + start, end - start};
    }
    // A number's text (digits, maybe one '.' and digits), and whether it has no '.'.
    std::string_view numberAt(uint32_t token, bool *integer) const;

    bool indexWithSimdjson(const char *json, size_t length);

    simdjson::dom::parser *m_parser;
    bool m_ownStage1 = false;
    std::vector<uint32_t> m_ownIndexes; // StructuralIndexer's
    const char *m_json = nullptr;
    const uint32_t *m_indexes = nullptr; // the structural indexes of m_json
    uint32_t m_tokens = 0;
    std::vector<uint32_t> m_close; // per token: for '{' and '[', the token that closes it
};

inline simdjson::error_code JsonLineView::Value::get(Object &out) const
{
    const simdjson::error_code error = typeIs('{');
    if (error == simdjson::SUCCESS) {
        out.m_view = m_view;
        out.m_open = m_token;
    }
    return error;
}

inline simdjson::error_code JsonLineView::Value::get(Array &out) const
{
    const simdjson::error_code error = typeIs('[');
    if (error == simdjson::SUCCESS) {
        out.m_view = m_view;
        out.m_open = m_token;
    }
    return error;
}

} // namespace sandscope
