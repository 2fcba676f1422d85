// The field readers of streamjson/simdjsonfields.h that read faster than the obvious way agree
// with it: isoTimeMs (days counted by hand) with QDateTime on seeded random dates, valid and
// not, and on valid ones with one byte changed; and usageFrom (one pass over the object) with
// countField (one at_key per count) on usage objects with repeated, missing, null and out-of-range
// counts; addModelUsage (one pass per model) with one at_key per member likewise; and is()
// (words compared) with string_view's == for member names of every length
// the readers use, against every text of their length with one byte changed, and shorter and
// longer texts; isTranscriptOnlyType (by length) with a search of its whole list.

#include "streamjson/simdjsonfields.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QtTest/QTest>

#include <array>
#include <simdjson.h>
#include <string>
#include <vector>

using namespace sandscope;

class TestSimdjsonFields : public QObject {
    Q_OBJECT

    // A text, each byte of it changed (also to a NUL), the text cut short or followed by a
    // byte, and the empty text.
    static std::vector<std::string> nearTexts(const std::string &exact)
    {
        std::vector<std::string> texts {exact, exact + 'x', exact + '\0', std::string()};
        if (!exact.empty())
            texts.push_back(exact.substr(0, exact.size() - 1));
        for (size_t at = 0; at < exact.size(); ++at) {
            for (const char other : {'\0', 'x', char(exact[at] ^ 0x20)}) {
                std::string changed = exact;
                changed[at] = other;
                texts.push_back(changed);
            }
        }
        return texts;
    }

    // is(text, name) against text == name, for the texts near the name.
    template <size_t N> static void checkIs(const char (&name)[N])
    {
        const std::string exact(name, N - 1);
        for (const std::string &text : nearTexts(exact)) {
            const std::string_view view(text);
            QVERIFY2(jsonfields::is(view, name) == (view == std::string_view(exact)),
                qPrintable(
                    QStringLiteral("%1 against %2")
                        .arg(QString::fromStdString(exact),
                            QString::fromLatin1(
                                QByteArray(text.data(), int(text.size())).toPercentEncoding()))));
        }
    }

private slots:
    void isAgreesWithEquality()
    {
        checkIs("");
        checkIs("id");
        checkIs("type");
        checkIs("usage");
        checkIs("message");
        checkIs("is_error");
        checkIs("timestamp");
        checkIs("session_id");
        checkIs("duration_ms");
        checkIs("input_tokens");
        checkIs("output_tokens");
        checkIs("api_message_id");
        checkIs("isApiErrorMessage");
        checkIs("parent_tool_use_id");
        checkIs("is_api_error_message");
        checkIs("cache_read_input_tokens");
        checkIs("cache_creation_input_tokens");
        checkIs("model_usage_since_last_result");
        checkIs("costUSD");
        checkIs("inputTokens");
        checkIs("outputTokens");
        checkIs("cacheReadInputTokens");
        checkIs("cacheCreationInputTokens");
        checkIs("status");
        checkIs("patch");
        checkIs("task_id");
        checkIs("tool_use_id");
    }

    void isoTimeAgreesWithQDateTime()
    {
        QRandomGenerator random(20261204);
        int valid = 0;
        for (int i = 0; i < 200000; ++i) {
            // Years 1 to 9999 (QDate has no year 0); days to 31 in every month, so that
            // 30 February and 31 April come up; leap years by every rule.
            const int year = i < 4 ? std::array<int, 4> {1, 1900, 2000, 9999}[size_t(i)]
                                   : 1 + int(random.bounded(9999));
            const QByteArray text = QStringLiteral("%1-%2-%3T%4:%5:%6.%7Z")
                                        .arg(year, 4, 10, QLatin1Char('0'))
                                        .arg(1 + int(random.bounded(12)), 2, 10, QLatin1Char('0'))
                                        .arg(1 + int(random.bounded(31)), 2, 10, QLatin1Char('0'))
                                        .arg(int(random.bounded(24)), 2, 10, QLatin1Char('0'))
                                        .arg(int(random.bounded(60)), 2, 10, QLatin1Char('0'))
                                        .arg(int(random.bounded(60)), 2, 10, QLatin1Char('0'))
                                        .arg(int(random.bounded(1000)), 3, 10, QLatin1Char('0'))
                                        .toLatin1();
            const QDateTime reference
                = QDateTime::fromString(QString::fromLatin1(text), Qt::ISODateWithMs);
            const qint64 expected = reference.isValid() ? reference.toMSecsSinceEpoch() : -1;
            valid += reference.isValid() ? 1 : 0;
            QCOMPARE(jsonfields::isoTimeMs(std::string_view(text.constData(), size_t(text.size()))),
                expected);
        }
        QVERIFY(valid > 150000); // most are dates, some are not
        QVERIFY(valid < 200000);
        QCOMPARE(jsonfields::isoTimeMs("2024-02-29T00:00:00.000Z"),
            QDateTime(QDate(2024, 2, 29), QTime(0, 0), Qt::UTC).toMSecsSinceEpoch());
        QCOMPARE(jsonfields::isoTimeMs("2023-02-29T00:00:00.000Z"), -1);
        QCOMPARE(jsonfields::isoTimeMs("0000-01-01T00:00:00.000Z"), -1);
    }

    // One byte of a valid time replaced by another (the digits' neighbours '/' and ':', the
    // separators, bytes above 127): the fixed-place reader reads a time only where QDateTime
    // does, and the same one.
    void isoTimeWithOneByteChangedAgreesWithQDateTime()
    {
        QRandomGenerator random(20261205);
        const char replacements[]
            = {'/', ':', '0', '9', '-', 'T', '.', 'Z', ' ', 'a', '\x80', '\xff', '\0', '5'};
        int changed = 0;
        for (int i = 0; i < 100000; ++i) {
            QByteArray text("2026-11-29T09:28:56.815Z");
            const int at = int(random.bounded(text.size()));
            text[at] = replacements[random.bounded(int(sizeof replacements))];
            const QDateTime reference // the text is UTF-8, as in a line
                = QDateTime::fromString(
                    QString::fromUtf8(text.constData(), text.size()), Qt::ISODateWithMs);
            const qint64 expected = reference.isValid() ? reference.toMSecsSinceEpoch() : -1;
            changed += expected == -1 ? 1 : 0;
            QCOMPARE(jsonfields::isoTimeMs(std::string_view(text.constData(), size_t(text.size()))),
                expected);
        }
        QVERIFY(changed > 10000); // many are no time any more
    }

    void usageFromReadsWhatCountFieldReads()
    {
        const char *const names[] = {"input_tokens", "output_tokens", "cache_read_input_tokens",
            "cache_creation_input_tokens", "service_tier", "input_token"};
        const char *const values[] = {"0", "12", "12.0", "-1", "1e308", "null", "\"7\"", "2.5",
            "999999999999999999", "18446744073709551615", "{\"a\":1}", "[3]", "true"};
        QRandomGenerator random(7);
        simdjson::dom::parser parser;
        for (int i = 0; i < 5000; ++i) {
            std::string json = "{";
            const int members = int(random.bounded(9));
            for (int m = 0; m < members; ++m) {
                json += m ? "," : "";
                json += std::string("\"") + names[random.bounded(6)] + "\":";
                json += values[random.bounded(13)];
            }
            json += "}";
            simdjson::dom::object usage;
            QVERIFY(parser.parse(json).get(usage) == simdjson::SUCCESS);
            const TokenUsage fast = jsonfields::usageFrom(usage);
            TokenUsage expected;
            expected.present = true;
            expected.inputTokens = jsonfields::countField(usage, "input_tokens", &expected.invalid);
            expected.outputTokens
                = jsonfields::countField(usage, "output_tokens", &expected.invalid);
            expected.cacheReadInputTokens
                = jsonfields::countField(usage, "cache_read_input_tokens", &expected.invalid);
            expected.cacheCreationInputTokens
                = jsonfields::countField(usage, "cache_creation_input_tokens", &expected.invalid);
            QVERIFY2(fast == expected && fast.invalid == expected.invalid, json.c_str());
        }
    }

    // addModelUsage (each model's members in one pass) against one at_key per member, on
    // per-model objects with repeated, missing, null and out-of-range counts and costs, and
    // models that are no object.
    void addModelUsageReadsWhatAtKeyReads()
    {
        const char *const names[] = {"inputTokens", "outputTokens", "cacheReadInputTokens",
            "cacheCreationInputTokens", "costUSD", "webSearchRequests", "costUsd"};
        const char *const values[] = {"0", "12", "12.0", "-1", "1e308", "null", "\"7\"", "2.5",
            "0.125", "999999999999999999", "{\"a\":1}", "[3]", "true"};
        QRandomGenerator random(11);
        simdjson::dom::parser parser;
        int withCost = 0;
        for (int i = 0; i < 5000; ++i) {
            std::string json = "{";
            const int models = int(random.bounded(4));
            for (int m = 0; m < models; ++m) {
                json += m ? "," : "";
                json += "\"model-" + std::to_string(random.bounded(3)) + "\":";
                if (random.bounded(8) == 0) { // a model that is no object
                    json += values[random.bounded(13)];
                    continue;
                }
                json += "{";
                const int members = int(random.bounded(9));
                for (int k = 0; k < members; ++k) {
                    json += k ? "," : "";
                    json += std::string("\"") + names[random.bounded(7)] + "\":";
                    json += values[random.bounded(13)];
                }
                json += "}";
            }
            json += "}";
            simdjson::dom::object perModel;
            QVERIFY(parser.parse(json).get(perModel) == simdjson::SUCCESS);
            ResultInfo fast;
            jsonfields::addModelUsage(perModel, fast);
            ResultInfo expected;
            for (const auto field : perModel) {
                simdjson::dom::object usage;
                if (field.value.get(usage) != simdjson::SUCCESS)
                    continue;
                TokenUsage model;
                model.present = true;
                model.inputTokens = jsonfields::countField(usage, "inputTokens", &model.invalid);
                model.outputTokens = jsonfields::countField(usage, "outputTokens", &model.invalid);
                model.cacheReadInputTokens
                    = jsonfields::countField(usage, "cacheReadInputTokens", &model.invalid);
                model.cacheCreationInputTokens
                    = jsonfields::countField(usage, "cacheCreationInputTokens", &model.invalid);
                expected.turnUsage += model;
                double cost = 0;
                if (jsonfields::costField(usage, "costUSD", &cost, &expected.invalidCost)) {
                    expected.hasTurnCost = true;
                    expected.turnCostUsd += cost;
                }
            }
            withCost += expected.hasTurnCost ? 1 : 0;
            QVERIFY2(fast.turnUsage == expected.turnUsage
                    && fast.turnUsage.present == expected.turnUsage.present
                    && fast.turnUsage.invalid == expected.turnUsage.invalid
                    && fast.hasTurnCost == expected.hasTurnCost
                    && fast.turnCostUsd == expected.turnCostUsd
                    && fast.invalidCost == expected.invalidCost,
                json.c_str());
        }
        QVERIFY(withCost > 500); // the cost is read, not only its absence
    }

    // isTranscriptOnlyType (only the listed types of the text's length compared) against a
    // search of the whole list: every listed type, each with one byte changed, cut short or
    // followed by a byte, stream-json's own types, and texts too long for any.
    void isTranscriptOnlyTypeAgreesWithTheList()
    {
        const auto listed = [](std::string_view text) {
            for (const std::string_view known : jsonfields::transcriptOnlyTypes) {
                if (text == known)
                    return true;
            }
            return false;
        };
        std::vector<std::string> texts {"", "user", "assistant", "system", "result", "stream_event",
            "keep_alive", std::string(63, 'a'), std::string(64, 'a'), std::string(200, 'm')};
        for (const std::string_view known : jsonfields::transcriptOnlyTypes) {
            for (std::string &text : nearTexts(std::string(known)))
                texts.push_back(std::move(text));
        }
        int found = 0;
        for (const std::string &text : texts) {
            const bool expected = listed(text);
            found += expected ? 1 : 0;
            QVERIFY2(jsonfields::isTranscriptOnlyType(text) == expected, text.c_str());
        }
        QVERIFY(found >= int(std::size(jsonfields::transcriptOnlyTypes))); // each listed one
    }
};

QTEST_GUILESS_MAIN(TestSimdjsonFields)
#include "tst_simdjsonfields.moc"
