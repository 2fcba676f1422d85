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
    // toUtf8() allocates the worst case, three bytes a character, and keeps it: three times
    // what the texts kept on a 1 GB run's nodes need.
    folded.squeeze();
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
    // ASCII folded eight bytes at a time (a byte at a time was a ninth of a 1 GB run's first
    // search), which also tells whether there is anything else.
    folded->resize(line.size());
    const char *from = line.constData();
    char *to = folded->data();
    const qsizetype size = line.size();
    constexpr quint64 ones = 0x0101010101010101ull;
    constexpr quint64 highs = 0x8080808080808080ull;
    quint64 any = 0;
    qsizetype at = 0;
    for (; at + 8 <= size; at += 8) {
        quint64 bytes;
        std::memcpy(&bytes, from + at, 8);
        any |= bytes;
        const quint64 low = bytes & ~highs; // each byte's low seven bits: no carry out
        const quint64 fromA = low + ones * (0x80 - 'A'); // high bit: >= 'A'
        const quint64 pastZ = low + ones * (0x7f - 'Z'); // high bit: > 'Z'
        const quint64 upper = fromA & ~pastZ & ~bytes & highs; // ASCII 'A'..'Z'
        bytes |= upper >> 2; // 0x20: the lower case
        std::memcpy(to + at, &bytes, 8);
    }
    for (; at < size; ++at) {
        const char c = from[at];
        any |= uchar(c);
        to[at] = c >= 'A' && c <= 'Z' ? char(c + ('a' - 'A')) : c;
    }
    if (folded->contains("\\u"))
        return false;
    if (any & highs) // the same folding as the texts, a character at a time
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
    if (node->foldedSearchValid || !lines.hasSource() || !byteSearchable(words))
        return holdsAll(foldedText(lines, node), words);
    // A big run's node that keeps its content is judged on what it keeps, without a folded
    // copy of it (which was a tenth of a 1 GB run's memory while searching).
    if (!onDisk) {
        return std::all_of(words.cbegin(), words.cend(),
            [node](const QByteArray &word) { return keptHolds(node, word); });
    }
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
