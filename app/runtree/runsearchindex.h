#pragma once
// What RunFilterProxy searches and remembers per node, kept on the nodes themselves so that a
// walk over 100,000 nodes needs no lookups: each node's search text, case-folded, as UTF-8
// (built on first use, dropped when the node changes), and whether it matched the filter of a
// generation. The texts of nodes whose content stays on disk are kept only up to a budget and
// read again beyond it, so that searching a 1 GB run does not hold all its text.

#include "runtree/runlinereader.h"
#include "runtree/runnode.h"

#include <QByteArray>

#include <atomic>

namespace sandscope {

class RunSearchIndex {
public:
    QByteArray foldedText(const RunLineReader &lines, const RunNode *node) const;
    // Every node's text under root dropped, and the budget's count with them.
    void drop(RunNode *root);
    void setReadBackBudget(qint64 bytes) { m_readBackBudget = bytes; }

    // -1 when not known for `generation` (another filter, or the node changed since).
    static int memo(const RunNode *node, quint32 generation);
    static void setMemo(const RunNode *node, quint32 generation, bool matches);

private:
    qint64 m_readBackBudget = qint64(256) << 20;
    mutable std::atomic<qint64> m_readBackBytes {0}; // kept of the budget
};

} // namespace sandscope
