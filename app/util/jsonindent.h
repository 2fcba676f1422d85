#pragma once
// JSON text re-indented for reading, without building a DOM: keeps the writer's key order and
// duplicate keys (QJsonDocument sorts and drops them) and stays linear on multi-megabyte lines.

#include <QByteArray>
#include <QString>

namespace sandscope {

// Two spaces per level (deeper than 32 levels stays flat), one member or element per line,
// ": " after keys, "{}" and "[]" kept on one line; strings are copied as they are. Text that is
// not JSON is re-spaced the same way, never rejected.
QString indentedJson(const QByteArray &json);

} // namespace sandscope
