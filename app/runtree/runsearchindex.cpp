#include "runsearchindex.h"

#include "recordings/linesource.h"
#include "runtree/runnode.h"

#include <QList>
#include <QVarLengthArray>

#include <algorithm>
#include <array>
#include <cstring> // memmem (glibc; _GNU_SOURCE is set by g++ and clang++)
#include <vector>

namespace sandscope {

QByteArray RunSearchIndex::foldedOf(const RunNode *node, const RunNodeDetails &details)
{
    // RunFilterProxy::searchableText, read from the node without the QVariants.
    QString text = node->summaryText();
    for (const QString *part : {&node->toolName,
             node->kind == runnode::NodeKind::ToolCall ? &details.output : &details.text})
        text += QLatin1Char('\n') + *part;
    for (const QString &part : details.searchTexts())
        text += QLatin1Char('\n') + part;
    return std::move(text).toCaseFolded().toUtf8();
}

QByteArray RunSearchIndex::foldedText(const RunLineReader &lines, const RunNode *node) const
{
    if (node->foldedSearchValid)
        return node->foldedSearch;
    QByteArray folded = foldedOf(node, lines.detailsOf(node));
    if (node->textOnDisk || node->inputOnDisk || node->resultOnDisk) {
        // Nodes walked in parallel (RunFilterProxy::rebuild) count here together.
        if (m_readBackBytes.fetch_add(folded.size()) + folded.size() > m_readBackBudget)
            return folded;
    }
    node->foldedSearch = folded;
    node->foldedSearchValid = true;
    return folded;
}

namespace {

bool holds(const QByteArray &text, const QByteArray &word)
{
    return memmem(text.constData(), size_t(text.size()), word.constData(), size_t(word.size()))
        != nullptr;
}

bool holdsAll(const QByteArray &text, const QList<QByteArray> &words)
{
    return std::all_of(
        words.cbegin(), words.cend(), [&](const QByteArray &word) { return holds(text, word); });
}

} // namespace

bool RunSearchIndex::byteSearchable(const QList<QByteArray> &words)
{
    return std::all_of(words.cbegin(), words.cend(), [](const QByteArray &word) {
        return std::none_of(word.cbegin(), word.cend(), [](char c) {
            return c == '"' || c == '\\' || c == '/' || uchar(c) < 0x20 || uchar(c) >= 0x80;
        });
    });
}

bool RunSearchIndex::foldLine(const QByteArray &line, QByteArray *folded)
{
    if (line.isEmpty())
        return false;
    // ASCII folded a byte at a time, which also tells whether there is anything else.
    if (folded->size() < line.size())
        folded->resize(line.size());
    char *to = folded->data();
    uchar any = 0;
    for (const char c : line) {
        any |= uchar(c);
        *to++ = c >= 'A' && c <= 'Z' ? char(c + ('a' - 'A')) : c;
    }
    folded->truncate(line.size());
    if (folded->contains("\\u"))
        return false;
    if (any & 0x80) // the same folding as the texts, a character at a time
        *folded = QString::fromUtf8(line).toCaseFolded().toUtf8();
    return true;
}

bool RunSearchIndex::keptHolds(const RunNode *node, const QByteArray &word)
{
    const QLatin1String latin1(word.constData(), int(word.size()));
    const auto holdsWord = [&latin1](const QString &part) {
        return part.contains(latin1, Qt::CaseInsensitive);
    };
    const bool isCall = node->kind == runnode::NodeKind::ToolCall;
    if (holdsWord(isCall ? node->summaryText() : node->title) || holdsWord(node->toolName))
        return true;
    const RunNodeDetails details = node->details(); // what the node keeps, shared
    return holdsWord(isCall ? details.output : details.text) || details.anySearchText(holdsWord);
}

bool RunSearchIndex::matches(
    const RunLineReader &lines, const RunNode *node, const QList<QByteArray> &words) const
{
    const bool onDisk = node->textOnDisk || node->inputOnDisk || node->resultOnDisk;
    if (!onDisk || node->foldedSearchValid || !lines.hasSource() || !byteSearchable(words))
        return holdsAll(foldedText(lines, node), words);
    // Every part kept in memory is a part of the search text.
    QVarLengthArray<const QByteArray *, 8> rest;
    for (const QByteArray &word : words) {
        if (!keptHolds(node, word))
            rest.append(&word);
    }
    if (rest.isEmpty())
        return true;
    // The other parts are parsed from the node's lines: each of their words is in the line's
    // bytes as well (JSON writes a string's characters as they are, but for escapes).
    // Buffers per thread: RunFilterProxy::rebuild walks on two, and a line is not worth an
    // allocation of its own.
    thread_local QByteArray stored;
    thread_local std::array<QByteArray, 2> folded;
    int count = 0;
    for (const LineRef *ref : {&node->rawRef, &node->call().resultRawRef}) {
        const bool read
            = ref == &node->rawRef ? node->textOnDisk || node->inputOnDisk : node->resultOnDisk;
        // Unreadable, base64 or escapes: the texts decide.
        if (read && !foldLine(lines.source()->storedBytes(*ref, &stored), &folded[count++]))
            return holdsAll(foldedText(lines, node), words);
    }
    for (const QByteArray *word : std::as_const(rest)) {
        if (std::none_of(folded.cbegin(), folded.cbegin() + count,
                [&](const QByteArray &line) { return holds(line, *word); }))
            return false;
    }
    return holdsAll(foldedText(lines, node), words);
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
