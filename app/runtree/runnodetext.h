#pragma once
// The texts RunModel shows for a node: one-line titles, a tool call's summary, and the status,
// token and cost columns. Fixed English (not the locale's words), like util/format.h, which
// gives the duration column.

#include "runtree/runnodekind.h"
#include "streamjson/runevents.h"

#include <QByteArray>
#include <QString>

namespace sandscope::runtext {

// Titles are cut to this many characters.
constexpr int titleLimit = 200;

// The first line of the trimmed text, at most titleLimit characters; "…" marks a cut.
QString oneLine(const QString &text);

// The kind of a tool by its name (Bash: Shell, mcp__…: Mcp, an unknown name: Other).
runnode::ToolKind toolKindOf(const QString &name);

// What a tool call does, without the tool name: the command, the file, "pattern in path", the
// URL, "description (agent type)", "N todo(s)"; for other tools the first input field that is
// set, else the input JSON (nothing for "{}").
QString toolSummary(runnode::ToolKind kind, const ToolInput &input, const QByteArray &inputJson);

// "running", "ok", "error", ...; empty for Status::None.
QString statusText(runnode::Status status);

// "1,234 in · 56 out · 7,890 cache" (the locale's digit grouping; cache: read plus written,
// left out when zero); empty when the usage is not present.
QString tokenText(const TokenUsage &tokens);
// Every field on its own line, for the Tokens column's tooltip; empty without usage.
QString tokenToolTip(const TokenUsage &tokens);

// "$0.012345".
QString costText(double usd);

} // namespace sandscope::runtext
