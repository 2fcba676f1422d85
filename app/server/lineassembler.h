#pragma once
// Reassembles PTY output chunks (split anywhere, CRLF line ends) into complete lines.

#include <QString>
#include <QStringList>

namespace sandscope {

class LineAssembler {
public:
    // Returns the lines completed by this chunk, without "\n" and one trailing "\r".
    QStringList feed(const QString &chunk);
    // The unterminated rest (e.g. at process exit), then resets. Empty if nothing pending.
    QString flush();
    bool hasPending() const { return !m_pending.isEmpty(); }
    qsizetype pendingSize() const { return m_pending.size(); }

private:
    QString m_pending;
};

} // namespace sandscope
