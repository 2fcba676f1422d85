#include "runinput.h"

#include "cli/clioutput.h"
#include "cli/verbsupport.h"
#include "security/secretredactor.h"
#include "server/openterminalclient.h"
#include "sessions/sessiondiscovery.h"
#include "sessions/transcriptfollower.h"

#include <QEventLoop>
#include <QSocketNotifier>

namespace sandscope::cli {

bool findSessionTranscript(OpenTerminalClient &client, const ConnectionOptions &options,
    const QString &sessionId, QString *path, QString *error, bool *listingFailed)
{
    sessiondiscovery::Listing listing;
    const bool listed = listAsUser(&sessiondiscovery::discover, client, options, &listing, error);
    if (listingFailed)
        *listingFailed = !listed;
    if (!listed)
        return false;
    path->clear();
    QDateTime newest;
    for (const DiscoveredSession &session : std::as_const(listing.transcripts)) {
        if (session.sessionId == sessionId && (path->isEmpty() || session.lastActivity > newest)) {
            *path = session.path;
            newest = session.lastActivity;
        }
    }
    // A session whose transcript leads out of the home is named by its refusal.
    const QString fileName = QLatin1Char('/') + sessionId + QStringLiteral(".jsonl");
    for (const QString &refusal : std::as_const(listing.refused)) {
        if (path->isEmpty() && refusal.contains(fileName)) {
            *error = refusal;
            return false;
        }
    }
    if (path->isEmpty()) {
        *error = serverMessage(
            QStringLiteral(
                "user %1 has no session %2 (no transcript ~/.claude/projects/*/%2.jsonl)")
                .arg(options.userId, sessionId),
            options);
        return false;
    }
    return true;
}

TranscriptReading readTranscript(OpenTerminalClient &client, const ConnectionOptions &options,
    const QString &path, bool follow, int settleMs,
    const std::function<void(const RunEventBatch &)> &onEvents,
    const std::function<void(const QString &)> &onNotice)
{
    SecretRedactor redactor;
    redactor.addSecret(options.connection.apiKey);
    Identity identity;
    identity.userId = options.userId;
    TranscriptFollower follower(&client, identity, path);
    TranscriptReading reading;
    QEventLoop loop;
    QObject::connect(&follower, &TranscriptFollower::eventsReady, &loop, onEvents);
    QObject::connect(&follower, &TranscriptFollower::notice, &loop,
        [&](const QString &message) { onNotice(redactor.redact(message)); });
    QObject::connect(
        &follower, &TranscriptFollower::finished, &loop, [&](bool ok, const QString &message) {
            reading.completed = ok;
            if (!ok)
                reading.failure = redactor.redact(serverMessage(message, options));
            loop.quit();
        });
    const auto stopWatcher = onStopSignals([&](int) { follower.stop(); });
    follower.start(follow, settleMs);
    loop.exec();
    reading.linesParsed = follower.linesParsed();
    reading.bytesRead = follower.bytesRead();
    return reading;
}

int loadSessionRun(const ConnectionOptions &options, const QString &sessionId, LoadedRun *run)
{
    SecretRedactor redactor;
    redactor.addSecret(options.connection.apiKey);
    OpenTerminalClient client(options.connection);
    auditRead(options, QStringLiteral("read-session"), sessionId);
    QString path;
    QString why;
    bool listingFailed = false;
    if (!findSessionTranscript(client, options, sessionId, &path, &why, &listingFailed)) {
        printError(redactor.redact(why));
        return listingFailed ? serverErrorExitCode : 1;
    }
    *run = LoadedRun();
    run->source = options.userId + QLatin1Char('/') + sessionId;
    run->format = RecordingReader::Format::Transcript;
    const TranscriptReading reading = readTranscript(
        client, options, path, false, 0, [&](const RunEventBatch &events) { run->append(events); },
        [&](const QString &message) { run->problems << message; });
    run->lines = reading.linesParsed;
    if (!reading.completed) {
        printError(reading.failure);
        return reading.bytesRead == 0 ? serverErrorExitCode : 1;
    }
    for (const QString &problem : std::as_const(run->problems))
        printError(QStringLiteral("warning: %1: %2").arg(run->source, problem));
    return -1;
}

int loadFileRun(const QString &path, LoadedRun *run)
{
    QString why;
    const bool read = LoadedRun::fromFile(path, run, &why);
    for (const QString &problem : std::as_const(run->problems))
        printError(QStringLiteral("warning: %1: %2").arg(path, problem));
    if (!read) {
        printError(why);
        return 1;
    }
    return -1;
}

} // namespace sandscope::cli
