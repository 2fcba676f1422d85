#pragma once
// One chat folder (~/chat-<id>) as the chat scan measured it.

#include <QDateTime>
#include <QString>

namespace sandscope {

struct ChatFolder {
    QString account; // the home folder's name (the Linux account in multi-user mode)
    QString id; // the name without "chat-"
    QString path; // absolute
    qint64 size = 0; // bytes: the apparent sizes of everything inside but folders (the content)
    QDateTime lastActivity; // newest modification time inside, the folder included
};

} // namespace sandscope
