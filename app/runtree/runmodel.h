#pragma once
// The live run tree (docs/stream-json.md, "The run tree"): run → turns → text, thinking and
// tool calls; sub-agent work nested under its Agent/Task call; results matched by
// tool_use_id. Updated incrementally from RunEvent batches: rows are only ever appended
// (beginInsertRows/endInsertRows) and changed in place (dataChanged); the model never resets
// while events arrive.

#include "runtree/runnodedetails.h"
#include "runtree/runnodekind.h"
#include "runtree/runnoderecord.h"
#include "runtree/runsnapshots.h"
#include "runtree/runtreestate.h"
#include "streamjson/runevents.h"
#include "streamjson/runsummary.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QSet>

#include <atomic>
#include <memory>
#include <vector>

namespace sandscope {

class LineSource;
class RunLineReader;
class RunSearchIndex;

class RunModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column {
        SummaryColumn,
        StatusColumn,
        DurationColumn,
        TokensColumn,
        CostColumn,
        ToolCallsColumn, // tool calls under the node: a turn's, a sub-agent's (its Agent call)
        ErrorsColumn, // failed calls, API errors and corrupt lines under the node
        ColumnCount
    };

    using NodeKind = runnode::NodeKind;

    using Status = runnode::Status;

    using ToolKind = runnode::ToolKind;

    enum Role {
        KindRole = Qt::UserRole + 1, // NodeKind as int
        StatusRole, // Status as int
        ToolNameRole,
        ToolKindRole, // ToolKind as int
        ToolUseIdRole,
        ParentToolUseIdRole, // the spawning Agent call of sub-agent nodes
        MessageIdRole,
        SummaryRole, // the one-line summary without the tool name
        TextRole, // full text of text/thinking/error nodes; the result text of tool calls
        RawJsonRole, // the originating line, pretty-printed when it is JSON
        RawLineRole, // the originating line as bytes
        ResultRawJsonRole, // tool calls: the tool_result line, pretty-printed
        DetailRole, // RunNodeDetails (runs/runnodedetails.h), through QVariant::fromValue
        IsErrorRole,
        FilePathRole, // Read/Write/Edit/NotebookEdit
        DurationMsRole, // qint64, invalid while unknown
        StartedAtMsRole, // arrival time of the line that created the node
        InputTokensRole, // qint64, invalid when the node has no usage
        OutputTokensRole,
        CostUsdRole, // double, invalid when unknown
        LineNumberRole,
        CacheReadTokensRole, // qint64, invalid when the node has no usage
        CacheCreationTokensRole,
        ToolCallsRole, // qint64: tool calls in the node's subtree (not the node itself)
        ErrorsRole, // qint64: errors in the node's subtree (not the node itself)
        ClaudeDurationMsRole, // qint64: claude's own duration_ms (turns, results), else invalid
    };

    explicit RunModel(QObject *parent = nullptr);
    ~RunModel() override;

    QModelIndex index(
        int row, int column, const QModelIndex &parent = QModelIndex()) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    // Nodes that can never have children say so: an expanding view then skips them (a
    // QTreeView's expandAll keeps a persistent index for every other node).
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    // For RunFilterProxy at 100,000 nodes: state kept on the node itself, so filtering needs
    // no lookups. The node's search text (RunFilterProxy::searchableText), case-folded, as
    // UTF-8 (half the memory of UTF-16 for most text, and memmem searches it; a substring of
    // valid UTF-8 matches whole characters), built on first use and kept until the node
    // changes; dropSearchTexts() frees them all.
    // The text of a node whose content was left out (setLineSource) is read again from its
    // lines; such texts are kept only up to a budget (256 MiB by default) in all, and read
    // again on each use beyond it, so that searching a 1 GB run does not hold all its text.
    QByteArray foldedSearchText(const QModelIndex &index) const;
    void setReadBackSearchBudget(qint64 bytes);
    // The index of the node that is another index's internalPointer() (RunFilterProxy keeps
    // those); invalid for null.
    QModelIndex indexForInternalPointer(const void *node, int column = 0) const
    {
        return indexOf(static_cast<const Node *>(node), column);
    }
    void dropSearchTexts();
    // Whether the node's folded search text holds every word (case-folded UTF-8): a node whose
    // content was left out is first looked for in its lines' bytes (RunSearchIndex::matches),
    // so that most of a big run's nodes are passed over without parsing their lines.
    bool matchesWords(const QModelIndex &index, const QList<QByteArray> &words) const;
    // Whether the node matched the filter of `generation` (> 0): -1 when not known (another
    // filter, or the node changed since).
    int filterMemo(const QModelIndex &index, quint32 generation) const;
    void setFilterMemo(const QModelIndex &index, quint32 generation, bool matches) const;

    // A node's kind, status and times at once, as the roles give them but without a QVariant
    // each: for views that lay out every node in one pass (the timeline at 100,000 calls).
    struct Timing {
        NodeKind kind = NodeKind::Raw;
        Status status = Status::None;
        ToolKind toolKind = ToolKind::None;
        qint64 startedMs = -1; // StartedAtMsRole; -1 while unknown
        qint64 durationMs = -1; // DurationMsRole; -1 while unknown
    };
    Timing timing(const QModelIndex &index) const;

    QModelIndex runIndex() const;
    QModelIndex indexForToolUseId(const QString &toolUseId, int column = 0) const;
    RunSummary summary() const;
    bool runEnded() const { return m_tree.runEnded; }
    // A turn is still open and the run has not ended (a live chat between turns is not).
    bool isRunning() const;

    // The node at index (the run node when invalid) and everything under it, as plain values.
    RunNodeRecord record(const QModelIndex &index = QModelIndex()) const;
    // Builds an exported run's tree (docs/export.md) in an empty model and ends the run: the
    // run node takes run's values, its children become the turns. summary() then returns
    // `summary`, as the exported run had no events to count. False when the model is not empty.
    bool restore(const RunNodeRecord &run, const RunSummary &summary);
    // The whole state (tree and bookkeeping) as a value, for playback's checkpoints. Nodes are
    // copied whole (any field a node has comes along); their strings are implicitly shared
    // with the model's, so a snapshot costs about the nodes' own size.
    using Snapshot = RunSnapshot;
    // Nodes unchanged since `previous` (an earlier snapshot of this model) are shared with it.
    std::shared_ptr<const Snapshot> saveSnapshot(const Snapshot *previous = nullptr) const;
    // About what a snapshot holds beyond `previous` (whose unchanged nodes it shares; strings
    // are shared with the model and not counted), and its nodes (with the root).
    static qint64 snapshotBytes(const Snapshot &snapshot, const Snapshot *previous = nullptr);
    static qint64 snapshotNodeCount(const Snapshot &snapshot);
    // Playback: one model reset that puts `snapshot`'s state back (null: an empty run);
    // addEvents and markRunEnded until endRebuild() then change the tree without row or data
    // signals. endRebuild() ends the reset, so views, proxies and the summary follow once.
    void beginRebuild(const Snapshot *snapshot);
    void beginRebuild(); // from the state the model is in
    void endRebuild();
    // One model reset in which this model takes `other`'s whole state (the same run built
    // elsewhere: playback's own model, whose nodes carry the stamps its snapshots share, so
    // that putting a snapshot back later costs what changed). `other` is left empty.
    void replaceWith(RunModel &other);
    bool isRebuilding() const { return m_rebuilding; }
    // The files the run's events were read from: a node whose event left its line out (raw
    // empty, RunEvent::rawRef set) reads it from there when a role asks for it. Nodes such
    // events make keep no content either (texts, tool input and output): it is read again from
    // their lines when a role asks for it, so a 1 GB recording's memory is its rows.
    void setLineSource(std::shared_ptr<const LineSource> source);
    std::shared_ptr<const LineSource> lineSource() const;
    qint64 nodeCount() const { return m_tree.nodeCount; }

Q_SIGNALS:
    // After each batch and at the end of the run: summary() may have changed.
    void summaryChanged();

public slots:
    void addEvents(const sandscope::RunEventBatch &events);
    void addEvent(const sandscope::RunEvent &event);
    // The events in [first, last), read in place (RunEventBatcher applies a backlog a slice at
    // a time without copying it).
    void addEventRange(const sandscope::RunEvent *first, const sandscope::RunEvent *last);
    // The process exited (or the replay file ended): calls without a result become
    // Interrupted, turns without a result line too. Idempotent.
    void markRunEnded(qint64 arrivalMs);

private:
    using Node = RunNode;
    using ToolCallData = RunToolCallData;

    void apply(const RunEvent &event);
    Node *appendNode(Node *parent, std::unique_ptr<Node> node);
    void changed(Node *node, int firstColumn = SummaryColumn, int lastColumn = ColumnCount - 1);
    Node *currentTurn(qint64 arrivalMs);
    Node *startTurn(const RunEvent &event);
    Node *contextFor(const RunEvent &event);
    Node *toolNode(const QString &toolUseId, Node *placeholderParent);
    void addTokens(Node *owner, const TokenUsage &delta);
    void setTurnTokens(Node *turn, const TokenUsage &result);
    void extendEnds(Node *from, qint64 ms, bool pastOpenTurn = true);
    // Counts a node once as a tool call / an error of its ancestors.
    void countCall(Node *node);
    void countError(Node *node);
    void addCounts(Node *owner, qint64 calls, qint64 errors);
    void setStatus(Node *node, Status status);

    void onToolUse(const RunEvent &event);
    void onToolResult(const RunEvent &event);
    void onMessageUsage(const RunEvent &event);
    void onPermissionDenied(const RunEvent &event);
    void onTask(const RunEvent &event);
    void onResult(const RunEvent &event);
    void onSessionCost(const RunEvent &event);
    void onTurnDuration(const RunEvent &event);
    Node *endTranscriptTurn(const RunEvent &event);
    void adoptModel(const QString &model);
    void settleRunIfAllTurnsEnded(bool isError);
    void markTurnEnded(Node *turn);
    void countTurnDuration(qint64 before, qint64 after);
    Node *addLeaf(NodeKind kind, Node *parent, const RunEvent &event, const QString &title,
        Status status = Status::None);

    QModelIndex indexOf(const Node *node, int column = 0) const;
    QByteArray lineOf(const QByteArray &kept, const LineRef &ref) const;
    // One copy of strings many nodes repeat (model, tool name, parent call), shared by them.
    const QString &interned(const QString &text);
    // Whether an event's content of about `bytes` stays on disk rather than in the node.
    bool leavesOut(const RunEvent &event, qsizetype bytes) const;
    // node->details() with the content left out read again from the node's lines; a line that
    // cannot be read gives its reason in place of the text, the output and the input.
    RunNodeDetails detailsOf(const Node *node) const;
    QVariant displayData(const Node *node, int column) const;

    RunTreeState m_tree;
    bool m_rebuilding = false;
    std::unique_ptr<RunLineReader> m_lines;
    QSet<QString> m_interned;
    std::unique_ptr<RunSearchIndex> m_search;
};

} // namespace sandscope
