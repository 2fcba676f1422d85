#pragma once
// `sandscope chats` and `sandscope files <op>`: the chat index and the file operations of the
// browser on the command line. Exit codes as for every verb: 0 ok, 1 local error (a local
// file cannot be read or written), 2 usage error, 3 server or transport error (a refused
// move onto an existing path included).

#include <QString>
#include <QStringList>

namespace sandscope::cli {

extern const QString chatsVerb;
extern const QString filesVerb;

int runChats(const QStringList &arguments);
int runFiles(const QStringList &arguments);

// The lines of the top-level help that describe these verbs.
QString filesVerbsSummary();

} // namespace sandscope::cli
