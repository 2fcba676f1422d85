// StructuralIndexer, the stage 1 of the summary fast path, against simdjson's stage 1 it
// stands in for, each of its kernels this processor runs (AVX2; AVX-512). The property, for
// every line and kernel: when the indexer gives positions, simdjson's
// stage 1 accepts the line and gives the same positions (and the same three ends); when the
// line has no backslash and simdjson's stage 1 accepts it, the indexer does too; a line with a
// backslash it always leaves. Checked on named cases (strings across the 64-byte block, each
// byte simdjson classes oddly, UTF-8 right and wrong), on every line of every capture in
// tests/data with seeded random mutations, and on random lines of every length around the
// block size, with random bytes after the line (the indexer reads whole blocks; what follows
// the line must not count). SANDSCOPE_SEED repeats a run.

#include "capturelines.h"
#include "streamjson/structuralindexer.h"

#include <QRandomGenerator>
#include <QtTest/QTest>

#include <optional>
#include <simdjson.h>
#include <vector>

using namespace sandscope;
using namespace sandscope::test;

namespace {

using Positions = std::vector<uint32_t>;

// The line followed by SIMDJSON_PADDING bytes of `after`.
std::vector<char> padded(const QByteArray &line, const QByteArray &after)
{
    std::vector<char> buffer(line.cbegin(), line.cend());
    for (size_t i = 0; i < simdjson::SIMDJSON_PADDING; ++i)
        buffer.push_back(after.isEmpty() ? ' ' : after.at(int(i % size_t(after.size()))));
    return buffer;
}

// The positions and their three ends, as each stage 1 writes them; nothing when it refuses.
std::optional<Positions> bySimdjson(const QByteArray &line)
{
    simdjson::dom::parser parser;
    if (parser.allocate(size_t(line.size()) + 1) != simdjson::SUCCESS)
        return std::nullopt;
    const std::vector<char> buffer = padded(line, {});
    auto &stage1 = *parser.implementation;
    if (stage1.stage1(reinterpret_cast<const uint8_t *>(buffer.data()), size_t(line.size()),
            simdjson::stage1_mode::regular)
        != simdjson::SUCCESS)
        return std::nullopt;
    const uint32_t *indexes = stage1.structural_indexes.get();
    return Positions(indexes, indexes + stage1.n_structural_indexes + 3);
}

using Kernel = StructuralIndexer::Kernel;

// The kernels this processor runs.
QList<Kernel> kernels()
{
    QList<Kernel> running;
    for (const Kernel kernel : {Kernel::Avx2, Kernel::Avx512}) {
        if (StructuralIndexer::runs(kernel))
            running.append(kernel);
    }
    return running;
}

std::optional<Positions> byIndexer(const QByteArray &line, const QByteArray &after, Kernel kernel)
{
    const std::vector<char> buffer = padded(line, after);
    Positions out(StructuralIndexer::capacityFor(size_t(line.size())), 0xDEADBEEF);
    const int64_t count
        = StructuralIndexer::indexWith(kernel, buffer.data(), size_t(line.size()), out.data());
    if (count < 0)
        return std::nullopt;
    out.resize(size_t(count) + 3);
    return out;
}

QByteArray shown(const QByteArray &line)
{
    return line.left(120).toPercentEncoding(" {}[]:,\"");
}

QByteArray named(Kernel kernel)
{
    return kernel == Kernel::Avx512 ? "AVX-512 kernel " : "AVX2 kernel ";
}

// Empty when the property holds for `line` with every kernel, else why not.
QByteArray disagreement(const QByteArray &line, const QByteArray &after = "\"\\\x01\x80{")
{
    const std::optional<Positions> theirs = bySimdjson(line);
    const bool backslash = line.contains('\\');
    for (const Kernel kernel : kernels()) {
        const std::optional<Positions> ours = byIndexer(line, after, kernel);
        if (ours && backslash)
            return named(kernel) + "indexed a line with a backslash: " + shown(line);
        if (ours && !theirs)
            return named(kernel) + "indexed a line simdjson's stage 1 refuses: " + shown(line);
        if (ours && *ours != *theirs)
            return named(kernel) + "positions differ from simdjson's: " + shown(line);
        if (!ours && theirs && !backslash)
            return named(kernel) + "refused a line simdjson's stage 1 accepts: " + shown(line);
    }
    return {};
}

quint32 seed()
{
    const quint32 value = qEnvironmentVariableIsSet("SANDSCOPE_SEED")
        ? quint32(qEnvironmentVariableIntValue("SANDSCOPE_SEED"))
        : QRandomGenerator::global()->generate();
    qInfo("seed %u (SANDSCOPE_SEED repeats it)", value);
    return value;
}

// Bytes that matter to a stage 1: structure, whitespace, quotes, the two control characters
// simdjson classes as operators (\f, 0x1A), other controls, and UTF-8 lead and continuation
// bytes, valid in pairs or not.
const QByteArray alphabet = QByteArrayLiteral(
    "{}[]:,\"\" \t\r\n0123456789.-etrufalsn\\\f\x1a\x01\x7f\xc3\xa9\xe2\x82\xac\xff");

} // namespace

class TestStructuralIndexer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        if (!StructuralIndexer::isAvailable())
            QSKIP("this processor has no AVX2, BMI2 or PCLMUL: JsonLineView uses simdjson's "
                  "stage 1");
    }

    void agreesWithSimdjsonOnNamedLines_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<bool>("indexed");
        const QByteArray filler(60, 'x');
        QTest::newRow("object") << QByteArray("{\"a\":1,\"b\":[true,null,\"c\"]}") << true;
        QTest::newRow("string across the block")
            << "{\"" + filler + "\":\"" + filler + "\"}" << true;
        QTest::newRow("quote at byte 63") << "{\"" + QByteArray(59, 'y') + "\":\"\"}" << true;
        QTest::newRow("line of exactly 64 bytes") << "{\"" + QByteArray(58, 'z') + "\":1}" << true;
        QTest::newRow("scalar across the block")
            << "{\"" + QByteArray(57, 'k') + "\":12345678901}" << true;
        // Every byte structural, or every other: more than 16, 32 and 48 positions in a block.
        QTest::newRow("nested arrays, every byte structural")
            << "{\"a\":" + QByteArray(150, '[') + QByteArray(150, ']') + "}" << true;
        QByteArray numbers = "{\"a\":[";
        for (int i = 0; i < 120; ++i)
            numbers += "1,";
        QTest::newRow("numbers, every other byte structural") << numbers + "1]}" << true;
        QTest::newRow("backslash") << QByteArray("{\"a\":\"b\\\"c\"}") << false;
        QTest::newRow("backslash in the last block") << "{\"" + filler + "\":\"\\n\"}" << false;
        QTest::newRow("string left open") << QByteArray("{\"a\":\"b}") << false;
        QTest::newRow("tab in a string") << QByteArray("{\"a\":\"b\tc\"}") << false;
        QTest::newRow("NUL in a string") << QByteArray("{\"a\":\"b\0c\"}", 11) << false;
        QTest::newRow("form feed outside a string") << QByteArray("{\"a\":1\f}") << true;
        QTest::newRow("0x1A outside a string") << QByteArray("{\"a\":\x1a}") << true;
        QTest::newRow("DEL in a string") << QByteArray("{\"a\":\"\x7f\"}") << true;
        QTest::newRow("valid UTF-8") << QByteArray("{\"\xc3\xa9\":\"\xe2\x82\xac\"}") << true;
        QTest::newRow("a lone continuation byte") << QByteArray("{\"a\":\"\x80\"}") << false;
        QTest::newRow("a cut sequence at the end") << QByteArray("{\"a\":1}\xe2\x82") << false;
        QTest::newRow("an overlong encoding") << QByteArray("{\"a\":\"\xc0\xaf\"}") << false;
        QTest::newRow("invalid JSON, valid stage 1") << QByteArray("{\"a\" 1 2 tru }") << true;
        QTest::newRow("whitespace only") << QByteArray(" \t ") << false;
        QTest::newRow("empty") << QByteArray() << false;
    }

    void agreesWithSimdjsonOnNamedLines()
    {
        QFETCH(QByteArray, line);
        QFETCH(bool, indexed);
        const QByteArray why = disagreement(line);
        QVERIFY2(why.isEmpty(), why.constData());
        for (const Kernel kernel : kernels())
            QCOMPARE(byIndexer(line, "\\\"", kernel).has_value(), indexed);
    }

    void everyCaptureLineAndItsMutationsAgree()
    {
        const QList<QByteArray> lines = capture::everyCaptureLine();
        QVERIFY(lines.size() > 100);
        QRandomGenerator random(seed());
        int indexed = 0;
        int withoutBackslash = 0;
        for (const QByteArray &line : lines) {
            QByteArray why = disagreement(line);
            QVERIFY2(why.isEmpty(), why.constData());
            indexed += byIndexer(line, {}, Kernel::Avx2) ? 1 : 0;
            withoutBackslash += line.contains('\\') ? 0 : 1;
            for (int m = 0; m < 20; ++m) {
                const QByteArray mutated = capture::mutatedLine(line, random, alphabet, false);
                why = disagreement(mutated);
                QVERIFY2(why.isEmpty(), why.constData());
            }
        }
        // Every real line without a backslash is the indexer's (no line there is broken).
        QCOMPARE(indexed, withoutBackslash);
    }

    void randomLinesOfEveryLengthAroundTheBlockAgree()
    {
        QRandomGenerator random(seed());
        for (int length = 0; length <= 200; ++length) {
            for (int sample = 0; sample < 40; ++sample) {
                QByteArray line(length, ' ');
                // Mostly plain text, so that strings and scalars run across block bounds; one
                // sample in four all structure, so that blocks are dense with positions.
                const QByteArray structure = "{}[]:,1 \"";
                for (char &byte : line) {
                    if (sample % 4 == 0)
                        byte = structure.at(int(random.bounded(int(structure.size()))));
                    else if (random.bounded(3) == 0)
                        byte = alphabet.at(int(random.bounded(int(alphabet.size()))));
                    else
                        byte = char('a' + random.bounded(26));
                }
                QByteArray after(8, ' ');
                for (char &byte : after)
                    byte = alphabet.at(int(random.bounded(int(alphabet.size()))));
                const QByteArray why = disagreement(line, after);
                QVERIFY2(why.isEmpty(), why.constData());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestStructuralIndexer)
#include "tst_structuralindexer.moc"
