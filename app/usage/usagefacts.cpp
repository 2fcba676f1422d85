#include "usagefacts.h"

#include "files/pathguard.h"
#include "sessions/sessiondiscovery.h"
#include "util/jsonstring.h"
#include "util/shellquote.h"

#include <QStringList>

namespace sandscope::usagefacts {

namespace {

const QString homeMarker = QStringLiteral("SANDSCOPE-HOME=");

// Reads each file given with getline (a file removed meanwhile is skipped). A record's own
// uuid and timestamp are the pair "uuid":"…","timestamp":"…" (a message's content comes
// before them and a tool's structured result after them). One fact per record and block; a
// tool_result block starts with its "type" or, for an Agent's, its "tool_use_id" (and ends
// where the next one or the record's toolUseResult starts).
const char *const factsProgram = R"awk(
function stamp(line,   p) {
  p = match(line, /"uuid":"[^"]*","timestamp":"/)
  if (p) return literal(substr(line, p + RLENGTH - 13), "\"timestamp\":\"")
  return literal(line, "\"timestamp\":\"")
}
function number(line, key,   p) {
  p = index(line, key)
  if (!p) return 0
  if (!match(substr(line, p + length(key)), /^[0-9]+/)) return 0
  return substr(line, p + length(key), RLENGTH)
}
function resultstart(s,   a, b) {
  a = index(s, "{\"type\":\"tool_result\""); b = index(s, "{\"tool_use_id\":\"")
  return !a ? b : (!b || a < b) ? a : b
}
function scan(f,   line, n, t, u, m, rest, p, q, block, prev) {
  print "SU\tF\t" f
  n = 0; prev = ""
  while ((getline line < f) > 0) {
    n++
    # Cheap first: a record starts with { and ends with } (regular expressions only otherwise).
    if (substr(line, 1, 1) != "{" || substr(line, length(line)) != "}") {
      if (line ~ /^[ \t\r]*$/) continue
      if (line !~ /^[ \t]*\{/ || line !~ /\}[ \t\r]*$/) { print "SU\tX\t" n; continue }
    }
    if (index(line, "{\"type\":\"cost-state\"") == 1) {
      # Its day is the one of the record before it (it has no timestamp of its own).
      if (match(line, /"totalCostUSD":-?[0-9][0-9.eE+-]*/)) {
        m = substr(line, RSTART + 15, RLENGTH - 15) # before stamp() moves RSTART
        print "SU\tC\t" stamp(prev) "\t" m
      }
      continue
    }
    if (index(line, "\"timestamp\":\"")) prev = line
    if (isprompt(line)) {
      p = match(line, /"uuid":"[^"]*","timestamp":"/)
      print "SU\tP\t" stamp(line) "\t" (p ? literal(substr(line, p), "\"uuid\":\"") : "")
      continue
    }
    if (index(line, "\"type\":\"assistant\"")) {
      t = stamp(line)
      p = index(line, "\"message\":{")
      m = p ? literal(substr(line, p), "\"id\":\"") : ""
      p = index(line, "\"usage\":{\"input_tokens\":")
      if (!p) p = index(line, "\"usage\":{")
      u = p ? substr(line, p) : ""
      print "SU\tU\t" t "\t" m "\t" number(u, "\"input_tokens\":") "\t" \
        number(u, "\"output_tokens\":") "\t" number(u, "\"cache_read_input_tokens\":") "\t" \
        number(u, "\"cache_creation_input_tokens\":") "\t" \
        ((index(line, "\"isApiErrorMessage\":true") || index(line, "\"model\":\"<synthetic>\"")) ? 1 : 0)
      rest = line
      while ((p = index(rest, "{\"type\":\"tool_use\",\"id\":\""))) {
        rest = substr(rest, p + 1)
        print "SU\tT\t" t "\t" literal(rest, "\"id\":\"") "\t" literal(rest, "\"name\":\"")
      }
      continue
    }
    if (index(line, "\"type\":\"user\"") && index(line, "\"type\":\"tool_result\"")) {
      t = stamp(line)
      p = index(line, "\"toolUseResult\":")
      rest = p ? substr(line, 1, p - 1) : line
      while ((p = resultstart(rest))) {
        rest = substr(rest, p + 1)
        q = resultstart(rest)
        block = q ? substr(rest, 1, q - 1) : rest
        if (index(block, "\"type\":\"tool_result\""))
          print "SU\tR\t" t "\t" literal(block, "\"tool_use_id\":\"") "\t" \
            (index(block, "\"is_error\":true") ? 1 : 0)
      }
    }
  }
  close(f)
}
BEGIN { for (i = 1; i < ARGC; i++) scan(ARGV[i]); exit }
)awk";

QString body()
{
    const QString program = sessiondiscovery::awkFunctions() + QString::fromLatin1(factsProgram);
    return QStringLiteral("usage_batch() { LC_ALL=C awk %1 \"$@\"; }; ").arg(shell::quote(program))
        + sessiondiscovery::transcriptBatches(QStringLiteral("usage_batch"))
        + QStringLiteral("true");
}

QDateTime timeOf(const QString &literal)
{
    return QDateTime::fromString(jsonstring::decode(literal), Qt::ISODateWithMs).toUTC();
}

QString accountOf(const QString &path, const QString &fallback)
{
    const qsizetype projects = path.lastIndexOf(QLatin1String("/.claude/projects/"));
    if (projects <= 0)
        return fallback;
    const QString home = path.left(projects);
    return home.mid(home.lastIndexOf(QLatin1Char('/')) + 1);
}

} // namespace

QString script()
{
    return QStringLiteral("home=$(cd ~ && pwd -P) || exit 1; "
                          "printf 'SANDSCOPE-HOME=%s\\n' \"$home\"; ")
        + body();
}

QString allUsersScript(const QString &homesRoot)
{
    return sessiondiscovery::forEveryHome(homesRoot, body());
}

bool parse(const QString &output, const QString &user, UsageAggregator *aggregator, QString *home)
{
    bool sawHome = false;
    QString found;
    for (const QString &line : output.split(QLatin1Char('\n')))
        sawHome = parseLine(line, user, aggregator, sawHome ? nullptr : &found) || sawHome;
    if (home)
        *home = found;
    return sawHome;
}

bool parseLine(QString line, const QString &user, UsageAggregator *aggregator, QString *home)
{
    if (line.endsWith(QLatin1Char('\r')))
        line.chop(1);
    if (home && line.startsWith(homeMarker) && line.size() > homeMarker.size()) {
        *home = line.mid(homeMarker.size());
        return true;
    }
    QString refusal;
    if (pathguard::outsideRefusal(line, user, &refusal)) {
        aggregator->problem(refusal); // not read: it leads out of its home
        return false;
    }
    if (!line.startsWith(QLatin1String("SU\t")) || line.size() < 5)
        return false;
    const QChar kind = line.at(3);
    const QStringList fields = line.mid(5).split(QLatin1Char('\t'));
    const auto field = [&fields](int i) {
        return i < fields.size() ? fields.at(i) : QString();
    };
    switch (kind.unicode()) {
    case 'F': {
        const QString path = line.mid(5);
        aggregator->beginFile(user.isEmpty() ? accountOf(path, QString()) : user, path);
        break;
    }
    case 'P':
        aggregator->prompt(timeOf(field(0)), jsonstring::decode(field(1)));
        break;
    case 'U': {
        TokenUsage usage;
        usage.present = true;
        usage.inputTokens = field(2).toLongLong();
        usage.outputTokens = field(3).toLongLong();
        usage.cacheReadInputTokens = field(4).toLongLong();
        usage.cacheCreationInputTokens = field(5).toLongLong();
        aggregator->assistant(
            timeOf(field(0)), jsonstring::decode(field(1)), usage, field(6) == QLatin1String("1"));
        break;
    }
    case 'T':
        aggregator->toolUse(
            timeOf(field(0)), jsonstring::decode(field(1)), jsonstring::decode(field(2)));
        break;
    case 'R':
        aggregator->toolResult(
            timeOf(field(0)), jsonstring::decode(field(1)), field(2) == QLatin1String("1"));
        break;
    case 'C': {
        bool ok = false;
        const double cost = field(1).toDouble(&ok);
        if (ok)
            aggregator->costState(timeOf(field(0)), cost);
        break;
    }
    case 'X':
        aggregator->skippedLine(field(0).toLongLong());
        break;
    default:
        break;
    }
    return false;
}

} // namespace sandscope::usagefacts
