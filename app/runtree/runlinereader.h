#pragma once
// Reads a node's lines again from the files its run was read from (LineSource), for a run
// that leaves its lines and their content on disk (RunModel::setLineSource): the raw line of a
// node, and the details (text, tool input and output) parsed again from it. A line that
// cannot be read gives its reason in place of what it would have held.

#include "runtree/runnode.h"
#include "runtree/runnodedetails.h"
#include "streamjson/runevents.h"

#include <QByteArray>
#include <QCoreApplication>

#include <memory>

namespace sandscope {

class LineSource;

class RunLineReader {
    Q_DECLARE_TR_FUNCTIONS(RunModel) // its messages are the model's

public:
    void setSource(std::shared_ptr<const LineSource> source);
    const std::shared_ptr<const LineSource> &source() const { return m_source; }
    bool hasSource() const { return bool(m_source); }

    // `kept` when the node kept its line, else the line read again (or why it cannot be).
    QByteArray lineOf(const QByteArray &kept, const LineRef &ref) const;
    // The event of `kind` at ref.part of the line at ref, parsed again.
    RunEvent eventAgain(const LineRef &ref, RunEvent::Kind kind, QString *errorMessage) const;
    // node->details() with the content left out read again from the node's lines.
    RunNodeDetails detailsOf(const RunNode *node) const;

private:
    std::shared_ptr<const LineSource> m_source;
};

} // namespace sandscope
