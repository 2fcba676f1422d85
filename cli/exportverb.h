#pragma once
// `sandscope export INPUT --format html|md|json [-o OUT] [--no-redact]` and
// `sandscope export --server URL --user ID --session SID --format ...`: the run of any file
// the app opens (recording, stream-json capture, transcript, a JSON export) or of a session
// in the sandbox, written as HTML, Markdown or normalised JSON (docs/export.md). Secrets are
// redacted unless --no-redact. Exit code 0 written, 1 the input cannot be read or the output
// cannot be written, 2 usage error, 3 server error.

#include <QString>
#include <QStringList>

namespace sandscope::cli {

extern const QString exportVerb;
int runExport(const QStringList &arguments);
QString exportVerbSummary();

} // namespace sandscope::cli
