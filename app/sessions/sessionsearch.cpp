#include "sessionsearch.h"

#include "files/pathguard.h"
#include "fleet/fleetfanout.h"
#include "server/adminscript.h"
#include "server/shortcommand.h"
#include "sessions/sessiondiscovery.h"
#include "util/jsonstring.h"
#include "util/shellquote.h"

#include <QFileInfo>

#include <algorithm>

namespace sandscope::sessionsearch {

namespace {

const QString homeMarker = QStringLiteral("SANDSCOPE-HOME=");
const QString hitMarker = QStringLiteral("SANDSCOPE-HIT");
const QString truncatedMarker = QStringLiteral("SANDSCOPE-TRUNCATED");
const QString agentPrefix = QStringLiteral("agent-");

// Reads a batch: stat's "mtime path" lines, a separator, then grep's "path:line:text" lines.
// The file names come from the argument list (grep prints them raw and they may hold a ':'),
// in the order grep reads them. A file's hits are buffered until grep moves on, then the file
// is read up to its last hit for the turns (prompts so far) and the names of its tool calls
// (a tool_result names only the id of its tool_use, which comes earlier in the same file).
const char *const searchProgram = R"awk(
function rtype(line,   t) {
  if (index(line, "{\"type\":\"") == 1) return literal(line, "\"type\":\"")
  for (t = 1; t <= 4; t++) if (index(line, "\"type\":\"" chain[t] "\"")) return "\"" chain[t] "\""
  return literal(line, "\"type\":\"")
}
function flush(f,   i, line, ln, turn, agent, session) {
  if (hits == 0) return
  agent = index(f, "/subagents/agent-")
  if (agent) { session = substr(f, 1, agent - 1); sub(/.*\//, "", session) }
  else { session = f; sub(/.*\//, "", session); sub(/\.jsonl$/, "", session) }
  ln = 0; turn = 0; i = 1
  if (!agent || results) {
    while (i <= hits && (getline line < f) > 0) {
      ln++
      if (!agent && isprompt(line)) turn++
      if (index(line, "\"type\":\"tool_use\"") && index(line, "\"type\":\"assistant\"")) {
        line = substr(line, index(line, "\"type\":\"tool_use\""))
        names[literal(line, "\"id\":\"")] = literal(line, "\"name\":\"")
      }
      for (; i <= hits && hl[i] <= ln; i++) ht[i] = turn
    }
    close(f)
  }
  for (i = 1; i <= hits; i++) {
    if (hn[i] == "" && hid[i] != "" && (hid[i] in names)) hn[i] = names[hid[i]]
    if (tool != "" && hn[i] != tool) continue
    if (++printed > max) { print "SANDSCOPE-TRUNCATED"; exit }
    printf "SANDSCOPE-HIT\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", hl[i], clean(session), hu[i],
      (agent ? 0 : ht[i]), hid[i], hn[i], hy[i], he[i], f
  }
  hits = 0; results = 0
  for (i in names) delete names[i]
}
BEGIN {
  for (i = 1; i < ARGC; i++) file[i] = ARGV[i]
  n = ARGC - 1; ARGC = 1; k = 1
  split("user assistant attachment system", chain, " ")
  q = tolower(ENVIRON["SANDSCOPE_QUERY"]); since = ENVIRON["SANDSCOPE_SINCE"] + 0
  tool = ENVIRON["SANDSCOPE_TOOL"]
  if (tool != "") tool = "\"" tool "\""
}
!grepping {
  if ($0 == "SANDSCOPE-GREP") grepping = 1
  else { p = index($0, " "); mt[substr($0, p + 1)] = substr($0, 1, p - 1) }
  next
}
{
  if (index($0, file[k] ":") != 1) {
    for (j = k + 1; j <= n && index($0, file[j] ":") != 1; j++) ;
    if (j > n) next
    flush(file[k]); k = j
  }
  if (since && !((file[k] in mt) && mt[file[k]] >= since)) next
  rest = substr($0, length(file[k]) + 2)
  p = index(rest, ":"); ln = substr(rest, 1, p - 1) + 0; line = substr(rest, p + 1)
  y = rtype(line); id = ""; nm = ""
  if (y == "\"assistant\"" && (p = index(line, "\"type\":\"tool_use\""))) {
    id = literal(substr(line, p), "\"id\":\""); nm = literal(substr(line, p), "\"name\":\"")
  } else if (y == "\"user\"" && (id = literal(line, "\"tool_use_id\":\"")) != "") results++
  if (tool != "" && (id == "" || (nm != "" && nm != tool))) next
  u = ""
  if (p = index(line, "\"type\":" y)) u = literal(substr(line, p), "\"uuid\":\"")
  p = index(tolower(line), q); p = p > excerptlead ? p - excerptlead : 1
  hits++; hl[hits] = ln; hid[hits] = id; hn[hits] = nm; hy[hits] = y; hu[hits] = u
  he[hits] = clean(substr(line, p, excerpt))
}
END { flush(file[k]) }
)awk";

// Passes the hits of every batch on, up to the limit.
const char *const limitProgram = R"awk(
$0 == "SANDSCOPE-TRUNCATED" { cut = 1; next }
index($0, "SANDSCOPE-HIT\t") == 1 && ++hits > max { cut = 1; exit }
{ print }
END { if (cut) print "SANDSCOPE-TRUNCATED" }
)awk";

// A cut through a UTF-8 sequence at either end of the excerpt decodes as U+FFFD.
QString trimmedExcerpt(QString excerpt)
{
    while (excerpt.startsWith(QChar::ReplacementCharacter))
        excerpt.remove(0, 1);
    while (excerpt.endsWith(QChar::ReplacementCharacter))
        excerpt.chop(1);
    return excerpt.left(excerptLimit);
}

} // namespace

QString script(const QString &query, const QString &toolName, const QDateTime &sinceUtc)
{
    return QStringLiteral("home=$(cd ~ && pwd -P) || exit 1; "
                          "printf 'SANDSCOPE-HOME=%s\\n' \"$home\"; ")
        + body(query, toolName, sinceUtc);
}

QString allUsersScript(const QString &homesRoot, const QString &query, const QString &toolName,
    const QDateTime &sinceUtc)
{
    return sessiondiscovery::forEveryHome(homesRoot, body(query, toolName, sinceUtc));
}

QString body(const QString &query, const QString &toolName, const QDateTime &sinceUtc)
{
    const QString program = sessiondiscovery::awkFunctions() + QString::fromLatin1(searchProgram);
    // Through the environment, not awk -v (which would interpret backslashes in the query).
    // One arg() call: a query holding "%1" must not be substituted again.
    return QStringLiteral(
        "SANDSCOPE_QUERY=%1; SANDSCOPE_TOOL=%2; SANDSCOPE_SINCE=%3; "
        "export SANDSCOPE_QUERY SANDSCOPE_TOOL SANDSCOPE_SINCE; "
        "scan_batch() { { stat -c '%Y %n' -- \"$@\" 2>/dev/null; echo SANDSCOPE-GREP; "
        "grep -a -F -i -n -H -e \"$SANDSCOPE_QUERY\" -- \"$@\" 2>/dev/null; } | "
        "LC_ALL=C awk -v max=%4 -v excerpt=%5 -v excerptlead=%6 %7 \"$@\"; }; { %8} | "
        "LC_ALL=C awk -v max=%4 %9")
        .arg(shell::quote(jsonstring::escape(query)), shell::quote(jsonstring::escape(toolName)),
            sinceUtc.isValid() ? QString::number(sinceUtc.toSecsSinceEpoch())
                               : QStringLiteral("''"),
            QString::number(maxHits), QString::number(excerptLimit),
            QString::number(excerptLimit * 3 / 8), shell::quote(program),
            sessiondiscovery::transcriptBatches(QStringLiteral("scan_batch")),
            shell::quote(QString::fromLatin1(limitProgram)));
}

bool parse(const QString &output, Result *result)
{
    *result = Result();
    const auto decoded = [](const QString &field) {
        return field.startsWith(QLatin1Char('"')) ? jsonstring::decode(field) : field;
    };
    // marker, line, session, uuid, turn, tool_use id, tool name, type, excerpt, path
    const bool sawHome = forEachListingRecord(
        output, homeMarker, hitMarker, 10, &result->home, [&](const QStringList &fields) {
            SessionSearchHit hit;
            hit.line = fields.at(1).toLongLong();
            hit.path = fields.mid(9).join(QLatin1Char('\t'));
            const QFileInfo file(hit.path);
            if (hit.line <= 0 || file.suffix() != QLatin1String("jsonl"))
                return;
            hit.sessionId = fields.at(2);
            if (file.completeBaseName().startsWith(agentPrefix)
                && QFileInfo(file.path()).fileName() == QLatin1String("subagents"))
                hit.agentId = file.completeBaseName().mid(agentPrefix.size());
            hit.uuid = decoded(fields.at(3));
            hit.turn = qMax(0, fields.at(4).toInt());
            hit.toolUseId = decoded(fields.at(5));
            hit.toolName = decoded(fields.at(6));
            hit.recordType = decoded(fields.at(7));
            hit.excerpt = trimmedExcerpt(fields.at(8));
            result->hits.append(hit);
        });
    const QStringList lines = output.split(QLatin1Char('\n'));
    result->refused = pathguard::outsideRefusals(output);
    result->truncated = std::any_of(lines.cbegin(), lines.cend(),
        [](const QString &line) { return line.trimmed() == truncatedMarker; });
    return sawHome;
}

void search(OpenTerminalClient *client, const Identity &identity, const QString &query,
    const Options &options, QObject *context, Callback done)
{
    runListingScript<Result>(client, identity, script(query, options.toolName, options.since),
        QStringLiteral("the transcripts' matching lines"), &parse, context, done);
}

void searchAllUsers(OpenTerminalClient *client, const AdminAccess &admin, const QString &homesRoot,
    const QString &query, const Options &options, QObject *context, Callback done)
{
    runAdminListingScript<Result>(client, admin,
        allUsersScript(homesRoot, query, options.toolName, options.since),
        QStringLiteral("every user's matching transcript lines"), &parse, context, done);
}

void searchAllUsers(FleetFanOut *fanOut, const QString &homesRoot, const QString &query,
    const Options &options, MemberCallback onMember)
{
    fanOut->runForValues<Result>(
        [homesRoot, query, options](const FanOutTarget &target, QObject *context,
            const FleetFanOut::ValueDone<Result> &done) {
            searchAllUsers(target.client, target.admin, homesRoot, query, options, context, done);
        },
        [onMember](const FanOutMemberResult &member, Result result) {
            for (SessionSearchHit &hit : result.hits)
                hit.member = member.member;
            onMember(member, result);
        });
}

} // namespace sandscope::sessionsearch
