#pragma once
// What RunFilterProxy searches and remembers per node, kept on the nodes themselves so that a
// walk over 100,000 nodes needs no lookups: each node's search text, case-folded, as UTF-8
// (built on first use, dropped when the node changes), and whether it matched the filter of a
// generation. The texts of nodes whose content stays on disk are kept only up to a budget and
// read again beyond it, so that searching a 1 GB run does not hold all its text.
// A search of such a run reads the nodes' lines as bytes first (matches()): a node whose lines
// hold none of a word cannot match it, and most nodes are passed over without parsing their
// lines or keeping their texts.

#include "runtree/runlinereader.h"
#include "runtree/runnode.h"

#include <QByteArray>

#include <atomic>

namespace sandscope {

class RunSearchIndex {
public:
    QByteArray foldedText(const RunLineReader &lines, const RunNode *node) const;
    // Whether foldedText() holds every word (case-folded UTF-8, without white space). Decided
    // without parsing the node's lines when it can be: from the parts kept in memory, and from
    // the lines' bytes, which hold every word the texts parsed from them hold unless JSON
    // escapes could hide one.
    bool matches(
        const RunLineReader &lines, const RunNode *node, const QList<QByteArray> &words) const;
    // Whether matches() can pass over a node by its lines' bytes: no word holds what JSON may
    // write escaped (a quote, a backslash, a slash, a control character), nor anything but
    // ASCII (whose folding matches() leaves to the texts).
    static bool byteSearchable(const QList<QByteArray> &words);
    // Every node's text under root dropped, and the budget's count with them.
    void drop(RunNode *root);
    void setReadBackBudget(qint64 bytes) { m_readBackBudget = bytes; }

    // -1 when not known for `generation` (another filter, or the node changed since).
    static int memo(const RunNode *node, quint32 generation);
    static void setMemo(const RunNode *node, quint32 generation, bool matches);

private:
    static QByteArray foldedOf(const RunNode *node, const RunNodeDetails &details);
    // A line's stored bytes (LineSource::storedBytes) into *folded as matches() compares them:
    // case-folded like the texts, without parsing; false when they are empty or hold an
    // escape sequence (\uXXXX) a word could hide behind.
    static bool foldLine(const QByteArray &line, QByteArray *folded);
    // Whether a part of the search text the node keeps in memory holds the (ASCII) word.
    static bool keptHolds(const RunNode *node, const QByteArray &word);

    qint64 m_readBackBudget = qint64(256) << 20;
    mutable std::atomic<qint64> m_readBackBytes {0}; // kept of the budget
};

} // namespace sandscope
