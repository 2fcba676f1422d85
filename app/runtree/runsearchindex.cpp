#include "runsearchindex.h"

#include "runtree/runnode.h"

#include <vector>

namespace sandscope {

QByteArray RunSearchIndex::foldedText(const RunLineReader &lines, const RunNode *node) const
{
    if (node->foldedSearchValid)
        return node->foldedSearch;
    // RunFilterProxy::searchableText, read from the node without the QVariants.
    const RunNodeDetails details = lines.detailsOf(node);
    QString text = node->summaryText();
    for (const QString *part : {&node->toolName,
             node->kind == runnode::NodeKind::ToolCall ? &details.output : &details.text})
        text += QLatin1Char('\n') + *part;
    for (const QString &part : details.searchTexts())
        text += QLatin1Char('\n') + part;
    QByteArray folded = std::move(text).toCaseFolded().toUtf8();
    if (node->textOnDisk || node->inputOnDisk || node->resultOnDisk) {
        // Nodes walked in parallel (RunFilterProxy::rebuild) count here together.
        if (m_readBackBytes.fetch_add(folded.size()) + folded.size() > m_readBackBudget)
            return folded;
    }
    node->foldedSearch = folded;
    node->foldedSearchValid = true;
    return folded;
}

void RunSearchIndex::drop(RunNode *root)
{
    std::vector<RunNode *> pending {root};
    while (!pending.empty()) {
        RunNode *node = pending.back();
        pending.pop_back();
        node->foldedSearch = QByteArray();
        node->foldedSearchValid = false;
        for (const auto &child : node->children)
            pending.push_back(child.get());
    }
    m_readBackBytes = 0;
}

int RunSearchIndex::memo(const RunNode *node, quint32 generation)
{
    return node->filterGeneration == generation ? int(node->filterMatches) : -1;
}

void RunSearchIndex::setMemo(const RunNode *node, quint32 generation, bool matches)
{
    node->filterGeneration = generation;
    node->filterMatches = matches;
}

} // namespace sandscope
