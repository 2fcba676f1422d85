#pragma once
// JSON string literals as the listing scripts cut them out of transcript lines, and the JSON
// form of a text that a search looks for in those lines.

#include <QString>

namespace sandscope::jsonstring {

// The text of a JSON string literal ("…" with its escapes). A literal cut short (no closing
// quote, half an escape at the end) yields what it holds up to the cut; text that does not
// start with a quote yields an empty string.
QString decode(const QString &literal);

// The text as JSON.stringify writes it inside the quotes (which Claude Code's transcripts
// use): '"' and '\' escaped, \b \f \n \r \t, other control characters as \u00xx, everything
// else (non-ASCII included) as it is.
QString escape(const QString &text);

} // namespace sandscope::jsonstring
