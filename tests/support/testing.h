#pragma once
// Small helpers shared by the Qt Test suites: waiting for one asynchronous client call,
// running a short command, reading the audit log, and requirements that skip locally but must
// hold in CI.

#include "server/apierror.h"
#include "server/openterminalclient.h"
#include "server/openterminalprotocol.h"
#include "server/shortcommand.h"

#include <QAbstractItemModel>
#include <QByteArray>
#include <QDebug>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QPointer>
#include <QRandomGenerator>
#include <QString>
#include <QTimer>
#include <QtTest/QTest>

#include <algorithm>
#include <ctime>
#include <functional>
#include <limits>
#include <memory>

namespace sandscope::test {

// CI=true means nothing may be skipped: missing prerequisites are failures there.
inline bool runningInCi()
{
    return qgetenv("CI") == "true";
}

inline QByteArray reasonBytes(const char *reason)
{
    return QByteArray(reason);
}
inline QByteArray reasonBytes(const QString &reason)
{
    return reason.toUtf8();
}

// How much longer `work(largeSize)` takes than `work(smallSize)`, in this thread's CPU time
// (time spent waiting for a core another process holds does not count; a CI run's -j and its
// background builds made wall-clock ratios swing past the bound), each the best of three runs.
// Linear work grows like largeSize / smallSize, quadratic work like its square: tests compare
// the ratio with a generous bound between the two instead of a threshold that depends on the
// machine and the build.
inline double growthRatio(const std::function<void(int)> &work, int smallSize, int largeSize)
{
    const auto threadCpuNs = [] {
        timespec now {};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        return qint64(now.tv_sec) * 1000000000 + now.tv_nsec;
    };
    const auto best = [&](int size) {
        qint64 fastest = std::numeric_limits<qint64>::max();
        for (int attempt = 0; attempt < 3; ++attempt) {
            const qint64 start = threadCpuNs();
            work(size);
            fastest = std::min(fastest, threadCpuNs() - start);
        }
        return std::max<qint64>(fastest, 1);
    };
    const qint64 small = best(smallSize);
    const qint64 large = best(largeSize);
    qInfo("growth %d -> %d: %.2f ms -> %.2f ms of CPU (x%.1f)", smallSize, largeSize, small / 1e6,
        large / 1e6, double(large) / double(small));
    return double(large) / double(small);
}

// The entries of an audit log (one JSON object per line); none when it cannot be read.
inline QList<QJsonObject> auditEntries(const QString &path)
{
    QFile file(path);
    QList<QJsonObject> entries;
    if (!file.open(QIODevice::ReadOnly))
        return entries;
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (!line.isEmpty())
            entries << QJsonDocument::fromJson(line).object();
    }
    return entries;
}

// What in text printed for a terminal a terminal would act on: a C0 control other than \n
// and \t, DEL, a C1 control, a bidi override or isolate ("byte 0x1b", "U+202e"); empty when
// nothing.
inline QString terminalActiveIn(const QByteArray &bytes)
{
    for (const char c : bytes) {
        const auto byte = static_cast<unsigned char>(c);
        if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f)
            return QStringLiteral("byte 0x%1").arg(byte, 2, 16, QLatin1Char('0'));
    }
    for (const QChar c : QString::fromUtf8(bytes)) {
        const char16_t unit = c.unicode();
        if ((unit >= 0x80 && unit <= 0x9f) || (unit >= 0x202a && unit <= 0x202e)
            || (unit >= 0x2066 && unit <= 0x2069))
            return QStringLiteral("U+%1").arg(uint(unit), 4, 16, QLatin1Char('0'));
    }
    return {};
}

// The recorded scenarios under tests/data/transcripts that have the stream-json of the same run
// (`interactive`, recorded from the REPL, has only its transcript).
inline QStringList scenariosWithStream()
{
    const QDir transcripts(QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/transcripts"));
    QStringList names;
    for (const QString &name : transcripts.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        if (QFileInfo::exists(transcripts.filePath(name + QStringLiteral("/stream.jsonl"))))
            names.append(name);
    return names;
}

// Every run file in tests/data: stream captures and transcripts, each transcript folder's files
// (sub-agent files included), and each recorded scenario's capture and transcript files.
inline QStringList runFilesInTestData()
{
    const QDir data(QStringLiteral(SANDSCOPE_TEST_DATA_DIR));
    QStringList files;
    for (const QString &name : data.entryList(
             {QStringLiteral("stream-*.jsonl"), QStringLiteral("transcript-*.jsonl")}, QDir::Files))
        files.append(data.filePath(name));
    for (const QString &name : data.entryList({QStringLiteral("transcript-*")}, QDir::Dirs)) {
        const QDir dir(data.filePath(name));
        for (const QString &file : dir.entryList({QStringLiteral("*.jsonl")}, QDir::Files))
            files.append(dir.filePath(file));
    }
    const QDir transcripts(data.filePath(QStringLiteral("transcripts")));
    for (const QString &name : transcripts.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        const QString stream = transcripts.filePath(name + QStringLiteral("/stream.jsonl"));
        if (QFileInfo::exists(stream)) // the interactive REPL writes none
            files.append(stream);
        const QDir dir(transcripts.filePath(name + QStringLiteral("/transcript")));
        for (const QString &file : dir.entryList({QStringLiteral("*.jsonl")}, QDir::Files))
            files.append(dir.filePath(file));
    }
    const QDir recordings(data.filePath(QStringLiteral("recordings")));
    for (const QString &name : recordings.entryList({QStringLiteral("*.jsonl")}, QDir::Files))
        files.append(recordings.filePath(name));
    return files;
}

} // namespace sandscope::test

namespace sandscope {

// Runs `call` (which starts one client request and passes the given callback to it) and spins
// an event loop until that callback fires or timeoutMs elapse. On timeout the request is
// aborted and a Kind::Timeout failure is returned. T must be given explicitly:
//   auto r = sandscope::await<ProcessSnapshot>(
//       [&](auto done) { return client.execute(id, cmd, {}, &client, done); });
// The callback only touches shared state, so a late answer after a timeout is harmless.
template <typename T>
Result<T> await(
    std::function<CallHandle(OpenTerminalClient::Callback<T>)> call, int timeoutMs = 60000)
{
    struct Outcome {
        bool done = false;
        Result<T> result;
        QPointer<QEventLoop> loop;
    };
    auto outcome = std::make_shared<Outcome>();
    QEventLoop loop;
    outcome->loop = &loop;

    CallHandle handle = call([outcome](const Result<T> &result) {
        if (outcome->done)
            return;
        outcome->done = true;
        outcome->result = result;
        if (outcome->loop)
            outcome->loop->quit();
    });

    if (!outcome->done) {
        QTimer timer;
        timer.setSingleShot(true);
        QObject::connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
        timer.start(timeoutMs);
        loop.exec();
    }
    outcome->loop = nullptr;

    if (!outcome->done) {
        outcome->done = true; // ignore the Cancelled answer that abort() may trigger
        handle.abort();
        ApiError error;
        error.kind = ApiError::Kind::Timeout;
        error.message = QStringLiteral("No answer within %1 ms (test timeout)").arg(timeoutMs);
        return Result<T>::failure(error);
    }
    return outcome->result;
}

// Every index of column 0 below `parent`, depth first.
inline QList<QModelIndex> allIndexes(
    const QAbstractItemModel *model, const QModelIndex &parent = QModelIndex())
{
    QList<QModelIndex> indexes;
    for (int row = 0; row < model->rowCount(parent); ++row) {
        const QModelIndex index = model->index(row, 0, parent);
        indexes << index << allIndexes(model, index);
    }
    return indexes;
}

// An environment variable, or `fallback` when unset or empty.
inline QString envOr(const char *name, const QString &fallback)
{
    const QString value = qEnvironmentVariable(name);
    return value.isEmpty() ? fallback : value;
}

// `size` bytes of every value, the same for the same seed.
inline QByteArray seededBytes(int size, quint32 seed)
{
    QRandomGenerator random(seed);
    QByteArray bytes(size, Qt::Uninitialized);
    for (char &byte : bytes)
        byte = char(random.bounded(256));
    return bytes;
}

// Creates terminals as `userId` (a session id each) until the server refuses one; returns the
// last status: 429 when every terminal of the server is taken (at most `attempts` tries).
inline int takeEveryTerminal(OpenTerminalClient *client, const QString &userId, int attempts = 20)
{
    int status = 200;
    for (int i = 0; i < attempts && status != 429; ++i) {
        const Identity owner {userId, QStringLiteral("fill-") + QString::number(i)};
        protocol::RequestSpec spec;
        spec.method = "POST";
        spec.path = QStringLiteral("/api/terminals");
        spec.idempotent = false;
        status = -1;
        client->send(owner, spec, client,
            [&](const protocol::HttpResponse &response) { status = response.status; });
        if (!QTest::qWaitFor([&] { return status != -1; }, 60000))
            return -1;
    }
    return status;
}

// Runs a short command as `who` to completion and returns its output lines; empty, with a
// warning naming the command, when it could not run (a warning too when it exits non-zero).
// `exitCode`, if given, gets the command's exit code (left as it is when it could not run).
inline QStringList shellLines(OpenTerminalClient *client, const Identity &who,
    const QString &command, int timeoutMs = 90000, int *exitCode = nullptr)
{
    bool done = false;
    Result<CommandOutput> output;
    runShortCommand(client, who, command, client, [&](const Result<CommandOutput> &result) {
        output = result;
        done = true;
    });
    if (!QTest::qWaitFor([&] { return done; }, timeoutMs) || !output.ok()) {
        qWarning() << "command failed:" << command << output.error.toString();
        return {};
    }
    if (output.value.exitCode != 0)
        qWarning() << "command exited with" << output.value.exitCode << command
                   << output.value.lines;
    if (exitCode)
        *exitCode = output.value.exitCode;
    return output.value.lines;
}

} // namespace sandscope

// Use directly in a test function (it returns from it). `reason` is a string literal,
// const char * or QString. Outside CI an unmet condition skips; with CI=true it fails.
#define SANDSCOPE_REQUIRE(condition, reason)                                                       \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            const QByteArray sandscopeRequireReason = sandscope::test::reasonBytes(reason);        \
            if (sandscope::test::runningInCi())                                                    \
                QTest::qFail(QByteArray("required in CI: " + sandscopeRequireReason).constData(),  \
                    __FILE__, __LINE__);                                                           \
            else                                                                                   \
                QTest::qSkip(sandscopeRequireReason.constData(), __FILE__, __LINE__);              \
            return;                                                                                \
        }                                                                                          \
    } while (false)
