#pragma once
// One stream-json line read without simdjson's DOM: simdjson's stage 1 (the structural index,
// which also checks UTF-8, strings and control characters) and then one pass here that checks
// the JSON grammar and pairs the brackets, without building the tape or copying strings (the
// DOM's stage 2 was 35 % of `replay --summary` on 100 MB). Only lines it can read exactly as
// the DOM would are indexed: an object, no backslash anywhere (strings are their bytes), plain
// numbers (integers up to 18 digits, decimals without exponent), depth below maxDepth. For any
// other line, or one that is not JSON, index() says no and the caller parses it with the DOM,
// which gives the verdict and the values. Internal to app/streamjson: includes simdjson.
//
// Object, Value and Array mimic the few simdjson::dom calls the summary reads (get, at_key,
// is_null, iteration), so RunSummaryScanner reads both through the same code.

#include <cstdint>
#include <simdjson.h>
#include <string_view>
#include <vector>

namespace sandscope {

class JsonLineIndex {
public:
    // Deeper lines go to the DOM (its own limit is 1024).
    static constexpr uint32_t maxDepth = 512;

    class Object;
    class Array;

    class Value {
    public:
        Value() = default;
        simdjson::error_code get(std::string_view &out) const;
        simdjson::error_code get(bool &out) const;
        simdjson::error_code get(int64_t &out) const;
        simdjson::error_code get(uint64_t &out) const;
        simdjson::error_code get(double &out) const;
        simdjson::error_code get(Object &out) const { return scope(out, '{'); }
        simdjson::error_code get(Array &out) const { return scope(out, '['); }
        simdjson::error_code get(Value &out) const
        {
            out = *this;
            return simdjson::SUCCESS;
        }
        bool is_null() const { return first() == 'n'; }

    private:
        friend class JsonLineIndex;
        Value(const JsonLineIndex *index, uint32_t at)
            : m_index(index)
            , m_at(at)
        {
        }
        char first() const { return m_index ? m_index->charAt(m_at) : '\0'; }
        template <class Scoped> simdjson::error_code scope(Scoped &out, char opening) const;
        const JsonLineIndex *m_index = nullptr;
        uint32_t m_at = 0; // its structural
    };

    // at_key's answer: the first member of that name, or NO_SUCH_FIELD.
    class Member {
    public:
        template <class T> simdjson::error_code get(T &out) const
        {
            return m_found ? m_value.get(out) : simdjson::NO_SUCH_FIELD;
        }
        simdjson::error_code error() const
        {
            return m_found ? simdjson::SUCCESS : simdjson::NO_SUCH_FIELD;
        }

    private:
        friend class Object;
        Value m_value;
        bool m_found = false;
    };

    struct Field {
        std::string_view key;
        Value value;
    };

    // An object (members: Field, key and value) or an array (elements: Value) and its
    // iterator: `at` is its '{' or '['; an iterator's, the member's key or the element, and
    // at the end the closing bracket (right after the opening one when it is empty).
    template <bool members> class Scope {
    public:
        class iterator {
        public:
            auto operator*() const
            {
                if constexpr (members)
                    return Field {m_index->stringAt(m_at), Value(m_index, m_at + 2)};
                else
                    return Value(m_index, m_at);
            }
            iterator &operator++()
            {
                m_at = m_index->next(members ? m_at + 2 : m_at);
                return *this;
            }
            bool operator!=(const iterator &other) const { return m_at != other.m_at; }

        private:
            friend class Scope;
            iterator(const JsonLineIndex *index, uint32_t at)
                : m_index(index)
                , m_at(at)
            {
            }
            const JsonLineIndex *m_index;
            uint32_t m_at;
        };
        iterator begin() const { return iterator(m_index, m_index ? m_at + 1 : 0); }
        iterator end() const { return iterator(m_index, m_index ? m_index->m_close[m_at] : 0); }

    protected:
        friend class Value;
        friend class JsonLineIndex;
        const JsonLineIndex *m_index = nullptr;
        uint32_t m_at = 0;
    };

    class Object : public Scope<true> {
    public:
        Member at_key(std::string_view key) const;
    };

    class Array : public Scope<false> { };

    // Indexes `size` bytes of JSON followed by simdjson::SIMDJSON_PADDING readable bytes,
    // using the parser's buffers; false when the line is not one it reads (see above). The
    // text and the parser must outlive the index's use.
    bool index(simdjson::dom::parser &parser, const char *json, size_t size);
    Object root() const { return objectAt(0); }

    // Several lines at once (stage 1 once for all of them costs less than once per line):
    // indexText() runs stage 1 over the text, false when it finds an error anywhere; then
    // each line's object is walked from its first structural. walk() returns the structural
    // after the object's '}' when the index reads the object, else 0.
    bool indexText(simdjson::dom::parser &parser, const char *text, size_t size);
    uint32_t walk(uint32_t first);
    uint32_t structuralCount() const { return m_count; }
    size_t position(uint32_t structural) const { return m_positions[structural]; }
    Object objectAt(uint32_t structural) const;

private:
    char charAt(uint32_t at) const { return m_json[m_positions[at]]; }
    // The member or element after the value that starts at `at`, or its scope's closing
    // bracket.
    uint32_t next(uint32_t at) const
    {
        const char c = charAt(at);
        const uint32_t after = (c == '{' || c == '[' ? m_close[at] : at) + 1; // ',' or closing
        return charAt(after) == ',' ? after + 1 : after;
    }
    std::string_view stringAt(uint32_t at) const;

    const char *m_json = nullptr;
    size_t m_size = 0;
    uint32_t *m_positions = nullptr; // the parser's structural index
    uint32_t m_count = 0;
    std::vector<uint32_t> m_close; // per '{' / '[' structural: its closing one's
    std::vector<uint32_t> m_open; // the walk's open brackets (bit 31: an array)
};

inline JsonLineIndex::Object JsonLineIndex::objectAt(uint32_t structural) const
{
    Object object;
    object.m_index = this;
    object.m_at = structural;
    return object;
}

// The bytes between the quotes (no backslash in an indexed line): the closing quote is the
// last non-space before the next structural, which a string always has (at least the root's
// '}').
inline std::string_view JsonLineIndex::stringAt(uint32_t at) const
{
    const size_t start = m_positions[at] + 1;
    size_t close = m_positions[at + 1] - 1;
    while (m_json[close] == ' ' || m_json[close] == '\t' || m_json[close] == '\n'
        || m_json[close] == '\r')
        --close;
    return std::string_view(m_json + start, close - start);
}

inline simdjson::error_code JsonLineIndex::Value::get(std::string_view &out) const
{
    if (first() != '"')
        return simdjson::INCORRECT_TYPE;
    out = m_index->stringAt(m_at);
    return simdjson::SUCCESS;
}

template <class Scoped>
inline simdjson::error_code JsonLineIndex::Value::scope(Scoped &out, char opening) const
{
    if (first() != opening)
        return simdjson::INCORRECT_TYPE;
    out.m_index = m_index;
    out.m_at = m_at;
    return simdjson::SUCCESS;
}

inline JsonLineIndex::Member JsonLineIndex::Object::at_key(std::string_view key) const
{
    Member member;
    for (const Field field : *this) {
        if (field.key == key) {
            member.m_value = field.value;
            member.m_found = true;
            break;
        }
    }
    return member;
}

} // namespace sandscope
