#include "sessiondiscovery.h"

#include "claude/claudecommand.h"
#include "files/pathguard.h"
#include "fleet/fleetfanout.h"
#include "server/adminscript.h"
#include "server/lineassembler.h"
#include "server/openterminalclient.h"
#include "server/shortcommand.h"
#include "util/jsonstring.h"
#include "util/shellquote.h"

#include <QFileInfo>
#include <QTimer>

#include <algorithm>

namespace sandscope::sessiondiscovery {

namespace {

constexpr int projectNameLimit = 200;
constexpr int filesPerBatch = 400;
// Enough raw JSON for titleLimit characters even when each is a \uXXXX escape.
constexpr int titleLiteralBytes = 1300;

const QString homeMarker = QStringLiteral("SANDSCOPE-HOME=");
const QString transcriptMarker = QStringLiteral("SANDSCOPE-TRANSCRIPT");

// Reads a batch: first stat's "mtime size path" lines on stdin, then (END) each file itself
// with getline, so a file removed meanwhile is skipped instead of stopping awk. Sub-agent files
// follow their main transcript; the counters are that session's.
const char *const listingProgram = R"awk(
function emit() {
  if (main == "") return
  printf "SANDSCOPE-TRANSCRIPT\t%s %.0f\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n", mtime, size, cwd,
    started, turns, tools, (mtime != "" && now - mtime <= running), model, cost, title, main
  main = ""
}
function scan(f, agent,   line, t, p) {
  while ((getline line < f) > 0) {
    if (index(line, "\"type\":\"assistant\"")) {
      if (index(line, "\"type\":\"tool_use\"")) tools++
      if (!agent && model == "") {
        t = literal(line, "\"role\":\"assistant\",\"model\":\"")
        if (t != "\"<synthetic>\"") model = t
      }
    }
    if (agent) continue
    if (cwd == "") cwd = literal(line, "\"cwd\":\"")
    if (started == "") started = literal(line, "\"timestamp\":\"")
    if (isprompt(line)) {
      turns++
      if (title == "") {
        p = index(line, "\"message\":{\"role\":\"user\",\"content\":\"")
        t = p ? substr(line, p) : line
        title = substr(literal(t, "\"content\":\""), 1, titlebytes)
      }
    } else if (index(line, "{\"type\":\"cost-state\"") == 1 \
      && match(line, /"totalCostUSD":-?[0-9][0-9.eE+-]*/)) {
      cost = substr(line, RSTART + 15, RLENGTH - 15)
    }
  }
  close(f)
}
BEGIN { for (i = 1; i < ARGC; i++) file[i] = ARGV[i]; n = ARGC - 1; ARGC = 1 }
{ i = index($0, " "); j = index(substr($0, i + 1), " "); st[substr($0, i + j + 1)] = substr($0, 1, i + j - 1) }
END {
  for (i = 1; i <= n; i++) {
    f = file[i]
    known = (f in st) # not when removed since the glob saw it
    if (known) split(st[f], s, " ")
    if (base != "" && index(f, base "/subagents/agent-") == 1) {
      if (main == "" || !known) continue
      size += s[2]
      if (s[1] > mtime) mtime = s[1]
      scan(f, 1)
      continue
    }
    emit()
    base = substr(f, 1, length(f) - 6)
    if (!known) continue
    main = f; mtime = s[1]; size = s[2] + 0
    cwd = ""; started = ""; turns = 0; tools = 0; model = ""; cost = ""; title = ""
    scan(f, 0)
  }
  emit()
}
)awk";

const char *const sharedAwkFunctions = R"awk(
function clean(s) {
  gsub(/\t/, "\\t", s); gsub(/\r/, "\\r", s); gsub(/[\001-\010\013-\037]/, "?", s)
  return s
}
function literal(line, key,   p, rest) {
  p = index(line, key)
  if (!p) return ""
  rest = substr(line, p + length(key) - 1)
  if (!match(rest, /^"([^"\\]|\\.)*"?/)) return ""
  return clean(substr(rest, 1, RLENGTH))
}
function isprompt(line) {
  return index(line, "\"type\":\"user\"") \
    && (index(line, "\"message\":{\"role\":\"user\",\"content\":\"") \
      || index(line, "\"message\":{\"content\":\"")) \
    && !index(line, "\"isMeta\":true") && !index(line, "\"isCompactSummary\":true") \
    && !index(line, "\"isSidechain\":true") \
    && !index(line, "\"content\":\"<local-command-") \
    && !index(line, "\"content\":\"[Request interrupted")
}
)awk";

QDateTime parseTime(const QString &literal)
{
    return QDateTime::fromString(jsonstring::decode(literal), Qt::ISODateWithMs).toUTC();
}

// The prompt's first line, without control characters (it is printed to terminals).
QString titleOf(const QString &literal)
{
    const QString prompt = jsonstring::decode(literal).trimmed();
    QString title = prompt.left(prompt.indexOf(QLatin1Char('\n')));
    for (QChar &c : title) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            c = QLatin1Char(' ');
    }
    title = title.trimmed();
    if (title.size() > titleLimit) {
        title.truncate(titleLimit);
        if (title.at(title.size() - 1).isHighSurrogate())
            title.chop(1);
    }
    return title;
}

// The chat a transcript's recorded cwd names, or an empty string.
QString chatNamedByCwd(const QString &home, const DiscoveredSession &transcript)
{
    const QString chatPrefix = home + QStringLiteral("/chat-");
    if (!transcript.cwd.startsWith(chatPrefix))
        return {};
    const QString candidate = transcript.cwd.mid(chatPrefix.size());
    if (!claudecommand::isValidChatId(candidate)
        || transcript.projectDirectory != projectDirectoryName(transcript.cwd))
        return {};
    return candidate;
}

void newestFirst(QVector<DiscoveredSession> *sessions)
{
    std::stable_sort(sessions->begin(), sessions->end(),
        [](const DiscoveredSession &a, const DiscoveredSession &b) {
            return a.lastActivity > b.lastActivity;
        });
}

} // namespace

QString projectDirectoryName(const QString &cwd)
{
    QString name = cwd;
    for (QChar &c : name) {
        const char16_t unit = c.unicode();
        const bool alphanumeric = (unit >= u'a' && unit <= u'z') || (unit >= u'A' && unit <= u'Z')
            || (unit >= u'0' && unit <= u'9');
        if (!alphanumeric)
            c = QLatin1Char('-');
    }
    if (name.size() <= projectNameLimit)
        return name;
    // Java's String.hashCode over the UTF-16 code units, wrapping at 32 bits.
    quint32 hash = 0;
    for (const QChar c : cwd)
        hash = hash * 31u + c.unicode();
    const qint64 magnitude = qAbs(qint64(qint32(hash)));
    return name.left(projectNameLimit) + QLatin1Char('-') + QString::number(magnitude, 36);
}

QString chatWorkDirectory(const QString &home, const QString &chatId)
{
    return home + QStringLiteral("/chat-") + chatId;
}

QString transcriptBatches(const QString &function)
{
    // Only builtins run per file; the patterns cannot match inside a JSON string value, where
    // quotes are escaped, so every hit is a real field. A transcript, a sub-agent's file or a
    // folder above them that is a link out of the home is not read (realpath runs only for
    // links), nor is a projects folder that lies outside it.
    return pathguard::outsideFunctions()
        + QStringLiteral("hr=$(cd -- \"$home\" 2>/dev/null && pwd -P) || hr=$home; "
                         "sandscope_outside \"$hr\" \"$home/.claude/projects\" || { "
                         "nl=$(printf '\\n.'); nl=${nl%.}; set --; "
                         "for f in \"$home\"/.claude/projects/*/*.jsonl; do "
                         "case $f in *\"$nl\"*) continue ;; esac; "
                         "if [ -L \"$f\" ] || [ -L \"${f%/*}\" ]; then "
                         "sandscope_outside \"$hr\" \"$f\" && continue; fi; "
                         "[ -f \"$f\" ] || continue; set -- \"$@\" \"$f\"; "
                         "for a in \"${f%.jsonl}\"/subagents/agent-*.jsonl; do "
                         "case $a in *\"$nl\"*) continue ;; esac; "
                         "if [ -L \"$a\" ] || [ -L \"${a%/*}\" ] || [ -L \"${f%.jsonl}\" ]; then "
                         "sandscope_outside \"$hr\" \"$a\" && continue; fi; "
                         "[ -f \"$a\" ] && set -- \"$@\" \"$a\"; "
                         "done; "
                         "if [ $# -ge %2 ]; then %1 \"$@\"; set --; fi; "
                         "done; "
                         "[ $# -eq 0 ] || %1 \"$@\"; }; ")
              .arg(function)
              .arg(filesPerBatch);
}

QString awkFunctions()
{
    return QString::fromLatin1(sharedAwkFunctions);
}

QString forEveryHome(const QString &homesRoot, const QString &perHome)
{
    // The root is printed as the home line, so a root without any sessions still parses.
    return QStringLiteral("printf 'SANDSCOPE-HOME=%s\\n' %1; "
                          "for home in %1/*/; do home=${home%/}; "
                          "[ -d \"$home/.claude/projects\" ] || continue; ( %2 ); done; true")
        .arg(shell::quote(homesRoot), perHome);
}

QString script()
{
    return QStringLiteral("home=$(cd ~ && pwd -P) || exit 1; "
                          "printf 'SANDSCOPE-HOME=%s\\n' \"$home\"; ")
        + listingBody();
}

QString allUsersScript(const QString &homesRoot)
{
    return forEveryHome(homesRoot, listingBody());
}

QString listingBody()
{
    const QString program = awkFunctions() + QString::fromLatin1(listingProgram);
    return QStringLiteral(
               "now=$(date +%s); "
               "scan_batch() { stat -c '%.3Y %s %n' -- \"$@\" 2>/dev/null | LC_ALL=C awk "
               "-v now=\"$now\" -v running=%1 -v titlebytes=%2 %3 \"$@\"; }; ")
               .arg(runningSeconds)
               .arg(titleLiteralBytes)
               .arg(shell::quote(program))
        + transcriptBatches(QStringLiteral("scan_batch")) + QStringLiteral("true");
}

bool parse(const QString &output, Listing *listing)
{
    *listing = Listing();
    listing->refused = pathguard::outsideRefusals(output);
    // marker, "mtime size", cwd, started, turns, tool calls, running, model, cost, title, path
    // (last: the only part that could hold a tab)
    return forEachListingRecord(output, homeMarker, transcriptMarker, 11, &listing->home,
        [listing](const QStringList &fields) {
            DiscoveredSession transcript;
            transcript.path = fields.mid(10).join(QLatin1Char('\t'));
            const QFileInfo info(transcript.path);
            if (info.suffix() != QLatin1String("jsonl"))
                return;
            transcript.sessionId = info.completeBaseName();
            transcript.projectDirectory = QFileInfo(info.path()).fileName();
            parseTimeAndSize(fields.at(1), &transcript.lastActivity, &transcript.size);
            transcript.cwd = jsonstring::decode(fields.at(2));
            transcript.started = parseTime(fields.at(3));
            transcript.turns = qMax(0, fields.at(4).toInt());
            transcript.toolCalls = qMax(0, fields.at(5).toInt());
            transcript.running = fields.at(6) == QLatin1String("1");
            transcript.model = jsonstring::decode(fields.at(7));
            transcript.costUsd = fields.at(8).toDouble(&transcript.hasCost);
            transcript.title = titleOf(fields.at(9));
            const qsizetype projects
                = transcript.path.lastIndexOf(QLatin1String("/.claude/projects/"));
            transcript.home = projects > 0 ? transcript.path.left(projects) : listing->home;
            if (!transcript.sessionId.isEmpty())
                listing->transcripts.append(transcript);
        });
}

// A listing of every home names each transcript's own home.
static QString homeOf(const Listing &listing, const DiscoveredSession &transcript)
{
    return transcript.home.isEmpty() ? listing.home : transcript.home;
}

QVector<DiscoveredSession> chatSessions(const Listing &listing, const QString &chatId)
{
    QVector<DiscoveredSession> found;
    for (DiscoveredSession transcript : listing.transcripts) {
        if (!chatId.isEmpty()) {
            const QString workDirectory = chatWorkDirectory(homeOf(listing, transcript), chatId);
            if (transcript.projectDirectory != projectDirectoryName(workDirectory)
                || (!transcript.cwd.isEmpty() && transcript.cwd != workDirectory))
                continue;
            transcript.chatId = chatId;
        } else {
            // Without a chat to look for, only the recorded cwd can name the chat.
            transcript.chatId = chatNamedByCwd(homeOf(listing, transcript), transcript);
            if (transcript.chatId.isEmpty())
                continue;
        }
        found.append(transcript);
    }
    newestFirst(&found);
    return found;
}

QVector<DiscoveredSession> allSessions(const Listing &listing)
{
    QVector<DiscoveredSession> found = listing.transcripts;
    for (DiscoveredSession &transcript : found)
        transcript.chatId = chatNamedByCwd(homeOf(listing, transcript), transcript);
    newestFirst(&found);
    return found;
}

void discover(OpenTerminalClient *client, const Identity &identity, QObject *context, Callback done)
{
    runListingScript<Listing>(client, identity, script(), QStringLiteral("the session transcripts"),
        &parse, context, done);
}

void discoverAllUsers(OpenTerminalClient *client, const AdminAccess &admin,
    const QString &homesRoot, QObject *context, Callback done)
{
    runAdminListingScript<Listing>(client, admin, allUsersScript(homesRoot),
        QStringLiteral("every user's session transcripts"), &parse, context, done);
}

void discoverAllUsers(FleetFanOut *fanOut, const QString &homesRoot, MemberCallback onMember)
{
    // The batches of each member gathered, handed over when the member ends.
    auto gathered = std::make_shared<QHash<QString, QVector<DiscoveredSession>>>();
    discoverAllUsers(
        fanOut, homesRoot,
        [gathered](const QString &member, const QVector<DiscoveredSession> &sessions) {
            (*gathered)[member] += sessions;
        },
        [gathered, onMember](const FanOutMemberResult &result, const QVector<DiscoveredSession> &,
            const QStringList &refused) {
            QVector<DiscoveredSession> sessions
                = result.ok ? gathered->take(result.member) : QVector<DiscoveredSession>();
            gathered->remove(result.member);
            newestFirst(&sessions);
            onMember(result, sessions, refused);
        });
}

namespace {

// One member's listing as its script prints it: complete lines parsed in batches.
struct ListingStream {
    LineAssembler lines;
    QString homeLine;
    QStringList pending;
    QStringList refused;
    QStringList head; // the first lines, for an error message
    QTimer flushTimer;
};

} // namespace

void discoverAllUsers(
    FleetFanOut *fanOut, const QString &homesRoot, BatchCallback onBatch, MemberCallback onMember)
{
    auto refusedOf = std::make_shared<QHash<QString, QStringList>>();
    fanOut->runForValues<QStringList>(
        [homesRoot, onBatch, refusedOf](const FanOutTarget &target, QObject *context,
            const FleetFanOut::ValueDone<QStringList> &done) {
            auto *run = new AdminScript(target.client, target.admin, context);
            auto stream = std::make_shared<ListingStream>();
            const QString member = target.member;
            const auto flush = [stream, onBatch, member, refusedOf] {
                stream->flushTimer.stop();
                if (stream->pending.isEmpty() || stream->homeLine.isEmpty())
                    return;
                Listing listing;
                const QString text = stream->homeLine + QLatin1Char('\n')
                    + stream->pending.join(QLatin1Char('\n'));
                stream->pending.clear();
                if (!parse(text, &listing))
                    return;
                (*refusedOf)[member] += listing.refused;
                QVector<DiscoveredSession> sessions = allSessions(listing);
                for (DiscoveredSession &session : sessions)
                    session.member = member;
                if (!sessions.isEmpty())
                    onBatch(member, sessions);
            };
            stream->flushTimer.setSingleShot(true);
            stream->flushTimer.setInterval(batchMs);
            QObject::connect(&stream->flushTimer, &QTimer::timeout, run, flush);
            QObject::connect(run, &AdminScript::output, run, [stream](const QString &text) {
                for (QString line : stream->lines.feed(text)) {
                    if (line.endsWith(QLatin1Char('\r')))
                        line.chop(1);
                    if (stream->head.size() < 5)
                        stream->head.append(line);
                    if (stream->homeLine.isEmpty() && line.startsWith(homeMarker))
                        stream->homeLine = line;
                    else
                        stream->pending.append(line);
                }
                if (!stream->flushTimer.isActive())
                    stream->flushTimer.start();
            });
            QObject::connect(
                run, &AdminScript::finished, run, [run, stream, flush, done](int exitCode) {
                    const QString rest = stream->lines.flush();
                    if (!rest.trimmed().isEmpty())
                        stream->pending.append(rest);
                    flush();
                    QObject::disconnect(run, nullptr, nullptr, nullptr);
                    run->deleteLater();
                    if (exitCode != 0 || stream->homeLine.isEmpty())
                        return done(false, {},
                            QStringLiteral("listing every user's session transcripts failed (exit "
                                           "status %1): %2")
                                .arg(exitCode)
                                .arg(stream->head.join(QLatin1Char('\n')).trimmed().left(500)));
                    done(true, {}, QString());
                });
            QObject::connect(run, &AdminScript::failed, run, [run, done](const ApiError &error) {
                QObject::disconnect(run, nullptr, nullptr, nullptr);
                run->deleteLater();
                done(false, {}, error.toString());
            });
            run->start(allUsersScript(homesRoot));
        },
        [onMember, refusedOf](const FanOutMemberResult &result, const QStringList &) {
            onMember(result, {}, refusedOf->take(result.member));
        });
}

} // namespace sandscope::sessiondiscovery
