#pragma once
// The facts usage is counted from, printed on the server by one short command per user (or
// per home, as root through the admin channel): per transcript record that matters its
// timestamp and what it adds (a prompt, an answer's message.id and usage, a tool call, a
// tool result, a cost-state). Field patterns, not parsing, like sessiondiscovery: the sandbox
// may have neither python nor jq, and a pattern such as "type":"tool_use" cannot match inside
// a JSON string value. The core adds the facts up (UsageAggregator).

#include "server/adminaccess.h"
#include "server/connection.h"
#include "usage/usageaggregator.h"

#include <QObject>
#include <QString>

#include <functional>

namespace sandscope {

class OpenTerminalClient;

namespace usagefacts {

// One sh command (sh and awk) run as a user: SANDSCOPE-HOME=<home>, then per file (a
// main transcript followed by its sub-agents' files) "SU\tF\t<path>" and per record
// "SU\t<P|U|T|R|C|X>\t…" (docs/stream-json.md, "Usage over time").
QString script();
// The same for every home under `homesRoot`, as root.
QString allUsersScript(const QString &homesRoot = QStringLiteral("/home"));

// Feeds the script's output to `aggregator`. `user` names the records of a single user's
// listing; empty: each file's home's account (the all-users listing). False without the
// home line. *home gets it.
bool parse(const QString &output, const QString &user, UsageAggregator *aggregator,
    QString *home = nullptr);
// One line of that output (for reading it in slices); true when it was the home line, which
// *home then gets.
bool parseLine(QString line, const QString &user, UsageAggregator *aggregator, QString *home);

} // namespace usagefacts

} // namespace sandscope
