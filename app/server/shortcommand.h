#pragma once
// Short commands run to completion as a user, and the listing scripts built on them (runs,
// session transcripts, artifacts): their output arrives whole, as lines.

#include "server/apierror.h"
#include "server/connection.h"
#include "server/lineassembler.h"
#include "server/openterminalclient.h"

#include <QDateTime>
#include <QObject>
#include <QStringList>

#include <functional>
#include <memory>

namespace sandscope {

struct CommandOutput {
    QStringList lines; // complete lines, CR stripped
    int exitCode = 0; // negative: killed by that signal
};

// Collects a command's output text as lines; complete() adds the unterminated rest.
class OutputLines {
public:
    void feed(const QString &text);
    CommandOutput complete(int exitCode);

private:
    std::shared_ptr<LineAssembler> m_assembler = std::make_shared<LineAssembler>();
    std::shared_ptr<QStringList> m_lines = std::make_shared<QStringList>();
};

// Runs a short command to completion and returns its output text (used by the probe and
// the CLI); output is collected through ProcessStream. Fails with Kind::Timeout after
// timeoutMs. `done` runs once, unless `context` is destroyed first.
void runShortCommand(OpenTerminalClient *client, const Identity &identity, const QString &command,
    QObject *context, std::function<void(const Result<CommandOutput> &)> done,
    int timeoutMs = 60000);

// Reads a listing script's output (CR LF and noise lines tolerated): the text after
// `homeMarker` becomes *home, and every line "<recordMarker>\t…" with at least
// `minimumFields` tab-separated fields (the marker included) goes to `record`. False when
// there is no non-empty home line.
bool forEachListingRecord(const QString &output, const QString &homeMarker,
    const QString &recordMarker, int minimumFields, QString *home,
    const std::function<void(const QStringList &fields)> &record);
// "<seconds>[.fraction] <size>" as `stat -c '%.3Y %s'` prints it; time invalid when unreadable.
void parseTimeAndSize(const QString &field, QDateTime *modified, qint64 *size);

// Runs a script that lists something (runs, session transcripts) as `identity` and parses its
// output with `parse`. `done` gets ok=false and a message naming `what` when the command
// fails, exits non-zero or prints something `parse` rejects.
// The callback of a listing script: parses the finished command's output with `parse`.
template <typename Listing>
std::function<void(const Result<CommandOutput> &)> listingParser(const QString &what,
    bool (*parse)(const QString &, Listing *),
    std::function<void(bool ok, const Listing &listing, const QString &error)> done)
{
    return [what, parse, done](const Result<CommandOutput> &result) {
        Listing listing;
        if (!result.ok()) {
            done(false, listing, result.error.toString());
            return;
        }
        const QString output = result.value.lines.join(QLatin1Char('\n'));
        if (result.value.exitCode != 0 || !parse(output, &listing)) {
            done(false, listing,
                QStringLiteral("listing %1 failed (exit status %2): %3")
                    .arg(what)
                    .arg(result.value.exitCode)
                    .arg(output.trimmed().left(500)));
            return;
        }
        done(true, listing, QString());
    };
}

template <typename Listing>
void runListingScript(OpenTerminalClient *client, const Identity &identity, const QString &script,
    const QString &what, bool (*parse)(const QString &, Listing *), QObject *context,
    std::function<void(bool ok, const Listing &listing, const QString &error)> done)
{
    runShortCommand(client, identity, script, context, listingParser(what, parse, done));
}

} // namespace sandscope
