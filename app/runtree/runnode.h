#pragma once
// A node of the run tree: what RunModel and the classes that share its work (RunTreeState,
// RunSnapshots, RunSearchIndex, RunLineReader, RunTreeRecords) hold. Internal to
// app/runtree/: views and other rooms read nodes through RunModel's roles, details and
// records only.

#include "runtree/runnodedetails.h"
#include "runtree/runnodekind.h"
#include "streamjson/runevents.h"

#include <QSharedData>
#include <QSharedDataPointer>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <memory>
#include <vector>

namespace sandscope {

// Node stamps, unique across models and time.
inline quint64 nextStamp()
{
    static std::atomic<quint64> last {0};
    return ++last;
}

// A node's children; copying a node copies its own fields only (a snapshot links the copies),
// and assigning one node to another leaves the children where they are.
template <typename T> struct OwnedChildren : std::vector<std::unique_ptr<T>> {
    OwnedChildren() = default;
    OwnedChildren(const OwnedChildren &)
        : std::vector<std::unique_ptr<T>>()
    {
    }
    OwnedChildren(OwnedChildren &&) noexcept = default;
    OwnedChildren &operator=(OwnedChildren &&) noexcept = default;
    OwnedChildren &operator=(const OwnedChildren &) { return *this; }
    ~OwnedChildren() = default;
};

// The rows playback put aside under a node (RunNode::parked), allocated by the first jump back
// that puts any there: most nodes never have any, and a 1 GB run has 510,000 nodes. Copying a
// node leaves them where they are, as its children.
template <typename T> class ParkedChildren {
public:
    ParkedChildren() = default;
    ParkedChildren(const ParkedChildren &) { }
    ParkedChildren(ParkedChildren &&) noexcept = default;
    ParkedChildren &operator=(ParkedChildren &&) noexcept = default;
    ParkedChildren &operator=(const ParkedChildren &) { return *this; }
    ~ParkedChildren() = default;

    bool empty() const { return !m_rows || m_rows->empty(); }
    std::unique_ptr<T> &back() { return m_rows->back(); }
    void pop_back() { m_rows->pop_back(); }
    void push_back(std::unique_ptr<T> node)
    {
        if (!m_rows)
            m_rows = std::make_unique<std::vector<std::unique_ptr<T>>>();
        m_rows->push_back(std::move(node));
    }
    std::unique_ptr<T> *begin() { return m_rows ? m_rows->data() : nullptr; }
    std::unique_ptr<T> *end() { return m_rows ? m_rows->data() + m_rows->size() : nullptr; }
    void clear() { m_rows.reset(); }

private:
    std::unique_ptr<std::vector<std::unique_ptr<T>>> m_rows;
};

// What only tool calls have, apart so that the other nodes (most of a run) do not carry it.
// A node and its snapshots share it until either changes it (QSharedDataPointer).
struct RunToolCallData : QSharedData {
    ToolInput input;
    QByteArray inputJson;
    QString resultText;
    QByteArray structuredResultJson;
    QByteArray resultRaw;
    LineRef resultRawRef; // where resultRaw is in the run's files, for when it is not kept
    TaskInfo task; // merged from system/task_* events
};

struct RunNode {
    using Node = RunNode;
    using ToolCallData = RunToolCallData;
    using NodeKind = runnode::NodeKind;
    using Status = runnode::Status;
    using ToolKind = runnode::ToolKind;

    // The fields a walk over every node reads (RunFilterProxy at 100,000 nodes), together at
    // the start: the walk is bound by cache misses, one line per node instead of three. The
    // one-byte fields fill the gaps between the others (a 1 GB run has 510,000 nodes).
    NodeKind kind = NodeKind::Raw;
    Status status = Status::None;
    ToolKind toolKind = ToolKind::None;
    quint8 textKind = 0; // RunEvent::Kind
    int row = 0; // rows are only appended, so the position never changes
    Node *parent = nullptr;
    OwnedChildren<Node> children;
    // RunFilterProxy's per-node state (foldedSearchText, filterMemo); reset by changed().
    mutable quint32 filterGeneration = 0;
    mutable bool filterMatches = false;
    mutable bool foldedSearchValid = false;
    bool rawIsJson = true; // false for noise and corrupt lines
    // Content left out (RunModel::leavesOut) and read again from the node's lines when asked
    // for (RunModel::detailsOf): text (from the event of textKind), input and inputJson (the
    // tool_use line), resultText and structuredResultJson (the tool_result line).
    bool textOnDisk = false;
    mutable QByteArray foldedSearch; // UTF-8
    bool inputOnDisk = false;
    bool resultOnDisk = false;
    bool isError = false;
    // Tool calls and errors in the subtree (toolCalls, errors below) are counted where tokens
    // are; the flags make each node count once.
    bool countedAsCall = false;
    bool countedAsError = false;
    bool hasCost = false;
    bool hasInit = false; // turns: adopted by a system/init line
    bool ended = false; // turns: a result line arrived
    // Turns: their tokens are their results' usage (final counts), no longer the sum of the
    // API responses under them (provisional output counts).
    bool tokensFinal = false;
    // Playback: the rows after the last one, put aside by a jump back (highest row first, so
    // the next row is the last element) with their subtrees, for a jump forward to put back
    // without copying them from a checkpoint. Never shown, never referred to.
    ParkedChildren<Node> parked;

    QString title; // "what happened", without the tool name
    QString text;
    QString toolName;
    QString toolUseId;
    QString parentToolUseId;
    QString messageId;
    QSharedDataPointer<ToolCallData> toolCall; // tool calls only
    QByteArray raw;
    // Where raw is in the run's files (LineSource), for when it is not kept.
    LineRef rawRef;
    qint64 lineNumber = 0;
    qint64 startedMs = -1;
    qint64 endedMs = -1;
    // Claude's own duration_ms (results, their turn, the run): a fact of its own beside the
    // span, which always comes from the run's clock (docs/stream-json.md, "Figures").
    qint64 reportedDurationMs = -1;
    TokenUsage tokens;
    // Tool calls and errors in the subtree (plain fields, so a snapshot of the node keeps them).
    qint64 toolCalls = 0;
    qint64 errors = 0;
    double costUsd = 0;
    QString model;
    QString errorCode;
    // Unique to each state of the node's fields: set when it is added and by changed(), which
    // must follow every change. A snapshot's node with the same stamp holds the same fields,
    // so putting a snapshot back skips it.
    quint64 stamp = 0;

    RunNode() = default;
    // Every field but the children (snapshots; see OwnedChildren).
    RunNode(const RunNode &) = default;
    RunNode &operator=(const RunNode &) = default; // every field but the children

    // Iterative, so a pathologically deep tree (nested sub-agents from a hostile file) cannot
    // overflow the stack on destruction.
    ~RunNode()
    {
        std::vector<std::unique_ptr<Node>> pending = std::move(children);
        std::move(parked.begin(), parked.end(), std::back_inserter(pending));
        parked.clear();
        while (!pending.empty()) {
            std::unique_ptr<Node> node = std::move(pending.back());
            pending.pop_back();
            for (std::unique_ptr<Node> &child : node->children)
                pending.push_back(std::move(child));
            for (std::unique_ptr<Node> &child : node->parked)
                pending.push_back(std::move(child));
            node->children.clear();
            node->parked.clear();
        }
    }

    // Puts the rows from `keep` on aside (parked), for playback: highest row first, after the
    // rows already put aside (which come after these).
    void park(size_t keep)
    {
        for (size_t r = children.size(); r > keep; --r)
            parked.push_back(std::move(children[r - 1]));
        children.erase(
            children.begin() + std::ptrdiff_t(std::min(keep, children.size())), children.end());
    }

    // The Summary column: a tool call's name and what it does, else the title.
    QString summaryText() const
    {
        if (kind == NodeKind::ToolCall) {
            const QString name
                = toolName.isEmpty() ? QStringLiteral("(tool call %1)").arg(toolUseId) : toolName;
            return title.isEmpty() ? name : name + QStringLiteral(": ") + title;
        }
        return title;
    }

    const ToolCallData &call() const
    {
        static const ToolCallData none;
        return toolCall ? *toolCall : none;
    }
    ToolCallData &editCall() // detaches from snapshots that share it
    {
        if (!toolCall)
            toolCall = new ToolCallData;
        return *toolCall;
    }

    // The span on the run's clock; -1 while open, and for point events (a result, a text).
    qint64 durationMs() const
    {
        if (startedMs >= 0 && endedMs >= startedMs)
            return endedMs - startedMs;
        return -1;
    }

    // DetailRole: the tool call fields stay empty on other kinds of node.
    RunNodeDetails details() const
    {
        RunNodeDetails details;
        details.text = text;
        details.model = model;
        details.errorCode = errorCode;
        if (kind != NodeKind::ToolCall)
            return details;
        const ToolCallData &data = call();
        details.toolName = toolName;
        details.toolUseId = toolUseId;
        details.input = data.input;
        details.inputJson = data.inputJson;
        details.output = data.resultText;
        details.structuredResultJson = data.structuredResultJson;
        details.isError = isError;
        details.task = data.task;
        return details;
    }
};

// The run node as a run starts (its children are not touched).
template <typename Node> inline void makeEmptyRun(Node *run, Node *root)
{
    Node empty;
    empty.kind = runnode::NodeKind::Run;
    empty.status = runnode::Status::Running;
    empty.title = QStringLiteral("Run");
    empty.stamp = nextStamp();
    empty.parent = root;
    *run = empty;
}

} // namespace sandscope
