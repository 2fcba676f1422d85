// Parses the stream-json captures from tests/data, repeated N times, with StreamLineReader
// (simdjson) and with QJsonDocument, extracting the same envelope fields, and prints the
// throughput of both.  Usage: bench_streamjson [repetitions]   (default 200)
// Only an optimised build (CMAKE_BUILD_TYPE=Release) gives meaningful numbers: simdjson's
// inline accessors compiled with -O0 are slower than the prebuilt QtCore.

#include "streamjson/streamjson.h"

#include <QByteArray>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QVector>

#include <cstdio>
#include <cstdlib>

namespace {

struct Result {
    qint64 nanoseconds = 0;
    qsizetype objects = 0;
    qsizetype checksum = 0; // keeps the extracted fields observable
};

QVector<QByteArray> loadCaptureLines(const QString &directory)
{
    QVector<QByteArray> lines;
    const QDir dir(directory);
    const QStringList files = dir.entryList({QStringLiteral("*.jsonl")}, QDir::Files, QDir::Name);
    for (const QString &name : files) {
        QFile file(dir.filePath(name));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray &line : file.readAll().split('\n')) {
            if (!line.isEmpty())
                lines.append(line);
        }
    }
    return lines;
}

Result runStreamLineReader(const QVector<QByteArray> &lines, int repetitions)
{
    sandscope::StreamLineReader reader;
    Result result;
    QElapsedTimer timer;
    timer.start();
    for (int round = 0; round < repetitions; ++round) {
        for (const QByteArray &line : lines) {
            const sandscope::StreamLine parsed = reader.parse(line);
            if (parsed.kind == sandscope::StreamLine::Json)
                ++result.objects;
            result.checksum += parsed.type.size() + parsed.subtype.size() + parsed.sessionId.size()
                + parsed.uuid.size() + parsed.parentToolUseId.size() + parsed.messageId.size();
        }
    }
    result.nanoseconds = timer.nsecsElapsed();
    return result;
}

Result runQJsonDocument(const QVector<QByteArray> &lines, int repetitions)
{
    Result result;
    QElapsedTimer timer;
    timer.start();
    for (int round = 0; round < repetitions; ++round) {
        for (const QByteArray &line : lines) {
            QJsonParseError error;
            const QJsonDocument document = QJsonDocument::fromJson(line, &error);
            if (error.error != QJsonParseError::NoError || !document.isObject())
                continue;
            ++result.objects;
            const QJsonObject object = document.object();
            result.checksum += object.value(QLatin1String("type")).toString().size()
                + object.value(QLatin1String("subtype")).toString().size()
                // Transcript records name the session "sessionId" (the reader takes either).
                + (object.contains(QLatin1String("session_id"))
                        ? object.value(QLatin1String("session_id"))
                        : object.value(QLatin1String("sessionId")))
                      .toString()
                      .size()
                + object.value(QLatin1String("uuid")).toString().size()
                + object.value(QLatin1String("parent_tool_use_id")).toString().size()
                + object.value(QLatin1String("message"))
                      .toObject()
                      .value(QLatin1String("id"))
                      .toString()
                      .size();
        }
    }
    result.nanoseconds = timer.nsecsElapsed();
    return result;
}

void print(const char *name, const Result &result, qsizetype lineCount, qint64 byteCount)
{
    const double seconds = double(result.nanoseconds) / 1e9;
    std::printf("%-16s %10.3f s  %12.0f lines/s  %8.1f MB/s  (%lld objects, checksum %lld)\n", name,
        seconds, double(lineCount) / seconds, double(byteCount) / 1e6 / seconds,
        static_cast<long long>(result.objects), static_cast<long long>(result.checksum));
}

} // namespace

int main(int argc, char **argv)
{
    const int repetitions = argc > 1 ? std::atoi(argv[1]) : 200;
    if (repetitions <= 0) {
        std::fprintf(stderr, "usage: %s [repetitions > 0]\n", argv[0]);
        return 2;
    }
    const QVector<QByteArray> lines = loadCaptureLines(QStringLiteral(SANDSCOPE_CAPTURES_DIR));
    if (lines.isEmpty()) {
        std::fprintf(stderr, "no capture lines found in %s\n", SANDSCOPE_CAPTURES_DIR);
        return 1;
    }
    qint64 bytesPerRound = 0;
    for (const QByteArray &line : lines)
        bytesPerRound += line.size();
    const qsizetype lineCount = lines.size() * repetitions;
    const qint64 byteCount = bytesPerRound * repetitions;
#ifndef NDEBUG
    std::printf("note: assertions enabled (debug build?), numbers are not representative\n");
#endif
    std::printf("%lld capture lines (%lld bytes) x %d = %lld lines\n",
        static_cast<long long>(lines.size()), static_cast<long long>(bytesPerRound), repetitions,
        static_cast<long long>(lineCount));

    const Result simd = runStreamLineReader(lines, repetitions);
    const Result qt = runQJsonDocument(lines, repetitions);
    print("StreamLineReader", simd, lineCount, byteCount);
    print("QJsonDocument", qt, lineCount, byteCount);
    if (simd.objects != qt.objects || simd.checksum != qt.checksum) {
        std::fprintf(stderr, "mismatch: the two parsers extracted different envelopes\n");
        return 1;
    }
    std::printf("speedup: %.1fx\n", double(qt.nanoseconds) / double(simd.nanoseconds));
    return 0;
}
