#pragma once
// Field readers over simdjson DOM objects shared by RunParser (events) and RunSummaryScanner
// (the summary fast path), so both read numbers, booleans and usage the same way. The readers
// the summary uses take JsonLineView's objects too (the fast path reads most lines through it):
// one definition for both. Internal to app/streamjson: includes simdjson.

#include "streamjson/jsonlineview.h"
#include "streamjson/runevents.h"

#include <QDate>
#include <QDateTime>
#include <QString>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <simdjson.h>
#include <string_view>

namespace sandscope::jsonfields {

// Line buffers grow to the longest line seen; after a line above this size they are given
// back, so one huge tool result does not pin hundreds of megabytes for the rest of a session.
inline constexpr size_t retainedCapacity = size_t(4) * 1024 * 1024;

// Whether text is the literal `name`: a length check, then the bytes compared as a few words
// (overlapping ones for the last), the literal's words being constants. GCC 12 calls memcmp
// for a constant size above 8 bytes, and most member names the summary path reads are longer.
template <size_t N> inline bool is(std::string_view text, const char (&name)[N])
{
    constexpr size_t length = N - 1;
    if (text.size() != length)
        return false;
    const char *bytes = text.data();
    if constexpr (length < 8) {
        return std::memcmp(bytes, name, length) == 0; // inlined at this size
    } else {
        auto word = [](const char *at) {
            uint64_t value;
            std::memcpy(&value, at, sizeof value);
            return value;
        };
        uint64_t differ = 0;
        for (size_t at = 0; at + 8 < length; at += 8)
            differ |= word(bytes + at) ^ word(name + at);
        return (differ | (word(bytes + length - 8) ^ word(name + length - 8))) == 0;
    }
}

// The element and array types of an object type: simdjson's DOM, or JsonLineView's.
template <typename Object> struct JsonOf;
template <> struct JsonOf<simdjson::dom::object> {
    using Element = simdjson::dom::element;
    using Array = simdjson::dom::array;
};
template <> struct JsonOf<JsonLineView::Object> {
    using Element = JsonLineView::Value;
    using Array = JsonLineView::Array;
};

inline QString toQString(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// A string member as text; empty when missing, null or not a string.
inline QString stringField(const simdjson::dom::object &o, std::string_view key)
{
    std::string_view value;
    if (o.at_key(key).get(value) != simdjson::SUCCESS)
        return {};
    return toQString(value);
}

template <typename Object> inline std::string_view stringView(const Object &o, std::string_view key)
{
    std::string_view value;
    if (o.at_key(key).get(value) != simdjson::SUCCESS)
        return {}; // missing, null or not a string
    return value;
}

template <typename Object> inline bool boolField(const Object &o, std::string_view key)
{
    bool value = false;
    return o.at_key(key).get(value) == simdjson::SUCCESS && value;
}

// Numbers may come as int64, uint64 or double (costs, and some CLIs write 12.0); values out
// of range are clamped instead of overflowing.
template <typename Element> inline qint64 integerValue(const Element &value, qint64 fallback)
{
    int64_t signedValue = 0;
    if (value.get(signedValue) == simdjson::SUCCESS)
        return signedValue;
    uint64_t unsignedValue = 0;
    if (value.get(unsignedValue) == simdjson::SUCCESS)
        return unsignedValue > uint64_t(std::numeric_limits<qint64>::max())
            ? std::numeric_limits<qint64>::max()
            : qint64(unsignedValue);
    double doubleValue = 0;
    if (value.get(doubleValue) == simdjson::SUCCESS && std::isfinite(doubleValue)) {
        constexpr double limit = 9.0e18;
        return qint64(std::fmax(-limit, std::fmin(limit, doubleValue)));
    }
    return fallback;
}

inline qint64 integerField(const simdjson::dom::object &o, std::string_view key, qint64 fallback)
{
    simdjson::dom::element value;
    if (o.at_key(key).get(value) != simdjson::SUCCESS)
        return fallback;
    return integerValue(value, fallback);
}

// A record's "timestamp" in ms since the epoch: "2026-11-29T09:28:56.815Z" (what the CLI
// writes) without building a QDateTime per record; other ISO 8601 forms go through QDateTime.
// -1 when it is not a time. RunParser (transcripts), RecordingReader and the summary fast path
// (captures) read times through it, so their clocks agree.
inline qint64 isoTimeMs(std::string_view text)
{
    // "YYYY-MM-DDTHH:MM:SS.mmmZ" read at fixed places, every digit checked in one pass: the
    // per-field loops were 2 % of the summary path (one line in three has a timestamp).
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, millis = 0;
    bool simple = text.size() == 24 && text[4] == '-' && text[7] == '-' && text[10] == 'T'
        && text[13] == ':' && text[16] == ':' && text[19] == '.' && text[23] == 'Z';
    if (simple) {
        static constexpr unsigned char digitAt[]
            = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22};
        unsigned bad = 0;
        for (const unsigned char at : digitAt)
            bad |= unsigned(text[at] - '0') > 9u ? 1u : 0u;
        simple = bad == 0;
        auto two = [&text](size_t at) {
            return (text[at] - '0') * 10 + (text[at + 1] - '0');
        };
        year = two(0) * 100 + two(2);
        month = two(5);
        day = two(8);
        hour = two(11);
        minute = two(14);
        second = two(17);
        millis = two(20) * 10 + (text[22] - '0');
    }
    static constexpr int monthDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (simple && year >= 1 && month >= 1 && month <= 12 && day >= 1
        && day <= monthDays[month - 1] + (month == 2 && leap ? 1 : 0) && hour < 24 && minute < 60
        && second < 61) {
        // Days since 1970-01-01 in the proleptic Gregorian calendar (QDate's, from year 1),
        // counted from March so that the leap day comes last (H. Hinnant's days_from_civil):
        // QDate's julianFromParts was 1 % of the summary path.
        const int y = year - (month <= 2 ? 1 : 0);
        const int era = y / 400;
        const int yearOfEra = y - era * 400;
        const int dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
        const int dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        const qint64 days = qint64(era) * 146097 + dayOfEra - 719468;
        return days * 86400000LL + ((hour * 60LL + minute) * 60 + second) * 1000 + millis;
    }
    const QDateTime time = QDateTime::fromString(
        QString::fromUtf8(text.data(), qsizetype(text.size())), Qt::ISODateWithMs);
    return time.isValid() ? time.toMSecsSinceEpoch() : -1;
}

template <typename Element> inline int intValue(const Element &element, int fallback)
{
    const qint64 value = integerValue(element, fallback);
    if (value > std::numeric_limits<int>::max())
        return std::numeric_limits<int>::max();
    if (value < std::numeric_limits<int>::min())
        return std::numeric_limits<int>::min();
    return int(value);
}

inline int intField(const simdjson::dom::object &o, std::string_view key, int fallback)
{
    simdjson::dom::element value;
    if (o.at_key(key).get(value) != simdjson::SUCCESS)
        return fallback;
    return intValue(value, fallback);
}

inline bool doubleField(const simdjson::dom::object &o, std::string_view key, double *out)
{
    double value = 0;
    if (o.at_key(key).get(value) != simdjson::SUCCESS || !std::isfinite(value))
        return false;
    *out = value;
    return true;
}

// Token counts no run reaches: 10^15 (a million billion).
inline constexpr double maxValidCount = 1e15;
// Costs no run reaches: a billion dollars.
inline constexpr double maxValidCost = 1e9;

// A token count: a whole number from 0 to below maxValidCount. Anything else that is there
// (negative, fractional, 1e308, 18 digits, not a number) counts as 0 and sets *invalid.
template <typename Element> inline qint64 countValue(const Element &value, bool *invalid)
{
    if (value.is_null())
        return 0;
    int64_t signedValue = 0;
    if (value.get(signedValue) == simdjson::SUCCESS && signedValue >= 0
        && double(signedValue) < maxValidCount)
        return signedValue;
    uint64_t unsignedValue = 0;
    double doubleValue = 0;
    if (value.get(signedValue) != simdjson::SUCCESS && value.get(unsignedValue) != simdjson::SUCCESS
        && value.get(doubleValue) == simdjson::SUCCESS && doubleValue >= 0
        && doubleValue < maxValidCount && std::floor(doubleValue) == doubleValue)
        return qint64(doubleValue); // 12.0
    *invalid = true;
    return 0;
}

template <typename Object>
inline qint64 countField(const Object &o, std::string_view key, bool *invalid)
{
    typename JsonOf<Object>::Element value;
    if (o.at_key(key).get(value) != simdjson::SUCCESS)
        return 0;
    return countValue(value, invalid);
}

// A cost in dollars: finite, from 0 to maxValidCost; false when missing or out of range, which
// also sets *invalid.
template <typename Element>
inline bool costValue(const Element &element, double *out, bool *invalid)
{
    if (element.is_null())
        return false;
    double value = 0;
    if (element.get(value) != simdjson::SUCCESS || !std::isfinite(value) || value < 0
        || value > maxValidCost) {
        *invalid = true;
        return false;
    }
    *out = value;
    return true;
}

template <typename Object>
inline bool costField(const Object &o, std::string_view key, double *out, bool *invalid)
{
    typename JsonOf<Object>::Element element;
    if (o.at_key(key).get(element) != simdjson::SUCCESS)
        return false;
    return costValue(element, out, invalid);
}

// The four counts in one pass over the object, each the first member of its name (as at_key
// finds it): one at_key per count walked the object four times.
template <typename Object> inline TokenUsage usageFrom(const Object &usage)
{
    TokenUsage result;
    result.present = true;
    bool seen[4] = {false, false, false, false};
    auto take = [&](int which, const typename JsonOf<Object>::Element &value, qint64 *out) {
        if (seen[which])
            return;
        seen[which] = true;
        *out = countValue(value, &result.invalid);
    };
    for (const auto field : usage) {
        const std::string_view key = field.key;
        if (is(key, "input_tokens"))
            take(0, field.value, &result.inputTokens);
        else if (is(key, "output_tokens"))
            take(1, field.value, &result.outputTokens);
        else if (is(key, "cache_read_input_tokens"))
            take(2, field.value, &result.cacheReadInputTokens);
        else if (is(key, "cache_creation_input_tokens"))
            take(3, field.value, &result.cacheCreationInputTokens);
    }
    return result;
}

// model_usage_since_last_result: {model: {inputTokens, outputTokens, costUSD, ...}}. Each
// model's five members in one pass, each the first of its name (as at_key finds it): one at_key
// per member walked the object five times, on every result line.
template <typename Object> inline void addModelUsage(const Object &perModel, ResultInfo &result)
{
    for (auto field : perModel) {
        Object usage;
        if (field.value.get(usage) != simdjson::SUCCESS)
            continue;
        enum { Input, Output, CacheRead, CacheCreation, Cost, Members };
        typename JsonOf<Object>::Element values[Members];
        bool seen[Members] = {false, false, false, false, false};
        for (const auto member : usage) {
            const std::string_view key = member.key;
            const int which = is(key, "inputTokens")  ? Input
                : is(key, "outputTokens")             ? Output
                : is(key, "cacheReadInputTokens")     ? CacheRead
                : is(key, "cacheCreationInputTokens") ? CacheCreation
                : is(key, "costUSD")                  ? Cost
                                                      : -1;
            if (which >= 0 && !seen[which]) {
                seen[which] = true;
                values[which] = member.value;
            }
        }
        TokenUsage model;
        model.present = true;
        qint64 *const counts[] = {&model.inputTokens, &model.outputTokens,
            &model.cacheReadInputTokens, &model.cacheCreationInputTokens};
        for (int count = Input; count < Cost; ++count) {
            if (seen[count])
                *counts[count] = countValue(values[count], &model.invalid);
        }
        result.turnUsage += model;
        double cost = 0;
        if (seen[Cost] && costValue(values[Cost], &cost, &result.invalidCost)) {
            result.hasTurnCost = true;
            result.turnCostUsd += cost;
        }
    }
}

// Record types only session transcripts have (docs/stream-json.md, "Transcripts on disk").
inline constexpr std::string_view transcriptOnlyTypes[]
    = {"queue-operation", "attachment", "last-prompt", "cost-state", "file-history-snapshot",
        "summary", "api-request", "api-request-shape", "api-request-blob", "tools-used",
        "atis-latch", "mode", "permission-mode", "agent-setting", "agent-name", "agent-color",
        "bridge-session", "pr-link", "ai-title", "custom-title"};

inline bool isTranscriptOnlyType(std::string_view type)
{
    // Read for every line of a capture: only the known types of the line's length are
    // compared (stream-json's "user" and "stream_event" share a length with one each; walking
    // the whole list for them was half a percent of the summary path).
    constexpr size_t count = std::size(transcriptOnlyTypes);
    static_assert(count <= 32);
    constexpr auto ofLength = [] {
        struct Table {
            uint32_t at[64] = {};
        } table;
        for (size_t index = 0; index < count; ++index)
            table.at[transcriptOnlyTypes[index].size()] |= uint32_t(1) << index;
        return table;
    }();
    if (type.size() >= 64)
        return false;
    for (uint32_t candidates = ofLength.at[type.size()]; candidates != 0;
         candidates &= candidates - 1) {
        if (type == transcriptOnlyTypes[__builtin_ctz(candidates)])
            return true;
    }
    return false;
}

// A transcript record rather than a stream-json line: it names the session "sessionId"
// (stream-json: "session_id") or has a transcript-only type.
inline bool isTranscriptRecord(const simdjson::dom::object &line, std::string_view type)
{
    return line.at_key("sessionId").error() == simdjson::SUCCESS || isTranscriptOnlyType(type);
}

} // namespace sandscope::jsonfields
