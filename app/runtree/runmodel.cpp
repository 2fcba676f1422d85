#include "runmodel.h"

#include "recordings/linesource.h"
#include "runtree/runnodetext.h"
#include "streamjson/runparser.h"
#include "util/format.h"
#include "util/jsonindent.h"

#include <QLocale>
#include <QScopeGuard>
#include <QSharedData>
#include <QThreadPool>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <unordered_set>
#include <vector>

namespace sandscope {

namespace {

RunModel::ToolKind toolKindOf(const QString &name)
{
    using Kind = RunModel::ToolKind;
    static const QHash<QString, Kind> kinds = {
        {QStringLiteral("Bash"), Kind::Shell},
        {QStringLiteral("BashOutput"), Kind::Shell},
        {QStringLiteral("KillShell"), Kind::Shell},
        {QStringLiteral("KillBash"), Kind::Shell},
        {QStringLiteral("Read"), Kind::Read},
        {QStringLiteral("Write"), Kind::Write},
        {QStringLiteral("Edit"), Kind::Edit},
        {QStringLiteral("MultiEdit"), Kind::Edit},
        {QStringLiteral("NotebookEdit"), Kind::Notebook},
        {QStringLiteral("NotebookRead"), Kind::Notebook},
        {QStringLiteral("Grep"), Kind::Search},
        {QStringLiteral("Glob"), Kind::Search},
        {QStringLiteral("LS"), Kind::Search},
        {QStringLiteral("ToolSearch"), Kind::Search},
        {QStringLiteral("WebFetch"), Kind::Web},
        {QStringLiteral("WebSearch"), Kind::Web},
        {QStringLiteral("Agent"), Kind::Agent}, // on the wire since 2.1
        {QStringLiteral("Task"), Kind::Agent}, // init.tools and older CLIs
        {QStringLiteral("TodoWrite"), Kind::Todo},
    };
    if (name.isEmpty())
        return Kind::None;
    if (name.startsWith(QLatin1String("mcp__")))
        return Kind::Mcp;
    return kinds.value(name, Kind::Other);
}

// Node stamps, unique across models and time.
quint64 nextStamp()
{
    static std::atomic<quint64> last {0};
    return ++last;
}

} // namespace

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

// What only tool calls have, apart so that the other nodes (most of a run) do not carry it.
// A node and its snapshots share it until either changes it (QSharedDataPointer).
struct RunModel::ToolCallData : QSharedData {
    ToolInput input;
    QByteArray inputJson;
    QString resultText;
    QByteArray structuredResultJson;
    QByteArray resultRaw;
    LineRef resultRawRef; // where resultRaw is in the run's files, for when it is not kept
    TaskInfo task; // merged from system/task_* events
};

struct RunModel::Node {
    // The fields a walk over every node reads (RunFilterProxy at 100,000 nodes), together at
    // the start: the walk is bound by cache misses, one line per node instead of three.
    NodeKind kind = NodeKind::Raw;
    int row = 0; // rows are only appended, so the position never changes
    Node *parent = nullptr;
    OwnedChildren<Node> children;
    // RunFilterProxy's per-node state (foldedSearchText, filterMemo); reset by changed().
    mutable quint32 filterGeneration = 0;
    mutable bool filterMatches = false;
    mutable bool foldedSearchValid = false;
    mutable QByteArray foldedSearch; // UTF-8
    // Playback: the rows after the last one, put aside by a jump back (highest row first, so
    // the next row is the last element) with their subtrees, for a jump forward to put back
    // without copying them from a checkpoint. Never shown, never referred to.
    OwnedChildren<Node> parked;

    Status status = Status::None;
    QString title; // "what happened", without the tool name
    QString text;
    QString toolName;
    ToolKind toolKind = ToolKind::None;
    QString toolUseId;
    QString parentToolUseId;
    QString messageId;
    QSharedDataPointer<ToolCallData> toolCall; // tool calls only
    QByteArray raw;
    // Where raw is in the run's files (LineSource), for when it is not kept.
    LineRef rawRef;
    bool rawIsJson = true; // false for noise and corrupt lines
    // Content left out (RunModel::leavesOut) and read again from the node's lines when asked
    // for (RunModel::detailsOf): text (from the event of textKind), input and inputJson (the
    // tool_use line), resultText and structuredResultJson (the tool_result line).
    bool textOnDisk = false;
    bool inputOnDisk = false;
    bool resultOnDisk = false;
    quint8 textKind = 0; // RunEvent::Kind
    bool isError = false;
    qint64 lineNumber = 0;
    qint64 startedMs = -1;
    qint64 endedMs = -1;
    qint64 reportedDurationMs = -1; // from a result line; wins over arrival times
    TokenUsage tokens;
    // Tool calls and errors in the subtree, counted where tokens are (plain fields, so a
    // snapshot of the node keeps them); the flags make each node count once.
    qint64 toolCalls = 0;
    qint64 errors = 0;
    bool countedAsCall = false;
    bool countedAsError = false;
    bool hasCost = false;
    double costUsd = 0;
    bool hasInit = false; // turns: adopted by a system/init line
    bool ended = false; // turns: a result line arrived
    QString model;
    QString errorCode;
    // Unique to each state of the node's fields: set when it is added and by changed(), which
    // must follow every change. A snapshot's node with the same stamp holds the same fields,
    // so putting a snapshot back skips it.
    quint64 stamp = 0;

    Node() = default;
    // Every field but the children (snapshots; see OwnedChildren).
    Node(const Node &) = default;
    Node &operator=(const Node &) = default; // every field but the children

    // Iterative, so a pathologically deep tree (nested sub-agents from a hostile file) cannot
    // overflow the stack on destruction.
    ~Node()
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

    qint64 durationMs() const
    {
        if (reportedDurationMs >= 0)
            return reportedDurationMs;
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

RunModel::RunModel(QObject *parent)
    : QAbstractItemModel(parent)
{
    makeEmptyTree();
}

// The invisible root with a running run node as its only child: a model before any event.
namespace {

// The run node as a run starts (its children are not touched).
template <typename Node> void makeEmptyRun(Node *run, Node *root)
{
    Node empty;
    empty.kind = RunModel::NodeKind::Run;
    empty.status = RunModel::Status::Running;
    empty.title = QStringLiteral("Run");
    empty.stamp = nextStamp();
    empty.parent = root;
    *run = empty;
}

} // namespace

void RunModel::makeEmptyTree()
{
    m_root = std::make_unique<Node>();
    auto run = std::make_unique<Node>();
    makeEmptyRun(run.get(), m_root.get());
    m_run = run.get();
    m_root->children.push_back(std::move(run));
}

RunModel::~RunModel() = default;

QModelIndex RunModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    const Node *parentNode
        = parent.isValid() ? static_cast<Node *>(parent.internalPointer()) : m_root.get();
    if (parent.isValid() && parent.column() != 0)
        return {};
    if (size_t(row) >= parentNode->children.size())
        return {};
    return createIndex(row, column, parentNode->children[size_t(row)].get());
}

QModelIndex RunModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const Node *node = static_cast<Node *>(child.internalPointer());
    return indexOf(node->parent);
}

int RunModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    const Node *node
        = parent.isValid() ? static_cast<Node *>(parent.internalPointer()) : m_root.get();
    return int(node->children.size());
}

int RunModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QByteArray RunModel::lineOf(const QByteArray &kept, const LineRef &ref) const
{
    if (!kept.isEmpty() || !ref.isValid() || !m_lineSource)
        return kept;
    QString why;
    const QByteArray line = m_lineSource->line(ref, &why);
    return why.isEmpty() ? line : why.toUtf8(); // what went wrong, in place of the line
}

bool RunModel::leavesOut(const RunEvent &event, qsizetype bytes) const
{
    return bytes > 0 && m_lineSource && event.raw.isEmpty() && event.rawRef.isValid();
}

const QString &RunModel::interned(const QString &text)
{
    if (text.isEmpty())
        return text;
    const auto found = m_interned.constFind(text);
    return found != m_interned.constEnd() ? *found : *m_interned.insert(text);
}

RunEvent RunModel::eventAgain(const LineRef &ref, RunEvent::Kind kind, QString *errorMessage) const
{
    if (!m_lineSource) {
        *errorMessage = tr("The run's file is no longer open.");
        return {};
    }
    QString why;
    const QByteArray again = m_lineSource->line(ref, &why);
    if (!why.isEmpty()) {
        *errorMessage = tr("Cannot read this again from the run's file: %1").arg(why);
        return {};
    }
    RunParser parser; // a line's content does not depend on the lines before it
    RunEventBatch events = parser.parseLine(again, 0);
    int seen = 0;
    for (RunEvent &event : events) {
        if (event.kind == kind && seen++ == ref.part)
            return std::move(event);
    }
    *errorMessage = tr("The run's file changed since it was read: its line no longer holds this.");
    return {};
}

RunNodeDetails RunModel::detailsOf(const Node *node) const
{
    RunNodeDetails details = node->details();
    if (node->textOnDisk) {
        const RunEvent event
            = eventAgain(node->rawRef, RunEvent::Kind(node->textKind), &details.readError);
        details.text = details.readError.isEmpty() ? event.text : details.readError;
    }
    if (node->inputOnDisk) {
        QString why;
        const RunEvent event = eventAgain(node->rawRef, RunEvent::ToolUse, &why);
        details.input = event.input;
        details.inputJson = event.inputJson;
        if (!why.isEmpty())
            details.readError = why;
    }
    if (node->resultOnDisk) {
        QString why;
        const RunEvent event = eventAgain(node->call().resultRawRef, RunEvent::ToolResult, &why);
        details.output = why.isEmpty() ? event.resultText : why;
        details.structuredResultJson = event.structuredResultJson;
        if (!why.isEmpty())
            details.readError = why;
    }
    return details;
}

void RunModel::setLineSource(std::shared_ptr<const LineSource> source)
{
    m_lineSource = std::move(source);
}

Qt::ItemFlags RunModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags flags = QAbstractItemModel::flags(index);
    if (!index.isValid())
        return flags;
    const Node *node = static_cast<const Node *>(index.internalPointer());
    switch (node->kind) {
    case NodeKind::Run:
    case NodeKind::Turn:
    case NodeKind::ToolCall: // a sub-agent's work goes under its call
        return flags;
    default: // events never add children here; a restored export might have (restore())
        return node->children.empty() ? flags | Qt::ItemNeverHasChildren : flags;
    }
}

QModelIndex RunModel::indexOf(const Node *node, int column) const
{
    if (!node || node == m_root.get())
        return {};
    return createIndex(node->row, column, const_cast<Node *>(node));
}

QByteArray RunModel::foldedSearchText(const QModelIndex &index) const
{
    const Node *node = static_cast<const Node *>(index.internalPointer());
    if (node->foldedSearchValid)
        return node->foldedSearch;
    // RunFilterProxy::searchableText, read from the node without the QVariants.
    const RunNodeDetails details = detailsOf(node);
    QString text = displayData(node, SummaryColumn).toString();
    for (const QString *part :
        {&node->toolName, node->kind == NodeKind::ToolCall ? &details.output : &details.text})
        text += QLatin1Char('\n') + *part;
    for (const QString &part : details.searchTexts())
        text += QLatin1Char('\n') + part;
    QByteArray folded = std::move(text).toCaseFolded().toUtf8();
    if (node->textOnDisk || node->inputOnDisk || node->resultOnDisk) {
        // Nodes walked in parallel (RunFilterProxy::rebuild) count here together.
        if (m_readBackSearchBytes.fetch_add(folded.size()) + folded.size() > m_readBackSearchBudget)
            return folded;
    }
    node->foldedSearch = folded;
    node->foldedSearchValid = true;
    return folded;
}

void RunModel::dropSearchTexts()
{
    std::vector<Node *> pending {m_root.get()};
    while (!pending.empty()) {
        Node *node = pending.back();
        pending.pop_back();
        node->foldedSearch = QByteArray();
        node->foldedSearchValid = false;
        for (const auto &child : node->children)
            pending.push_back(child.get());
    }
    m_readBackSearchBytes = 0;
}

int RunModel::filterMemo(const QModelIndex &index, quint32 generation) const
{
    const Node *node = static_cast<const Node *>(index.internalPointer());
    return node->filterGeneration == generation ? int(node->filterMatches) : -1;
}

void RunModel::setFilterMemo(const QModelIndex &index, quint32 generation, bool matches) const
{
    const Node *node = static_cast<const Node *>(index.internalPointer());
    node->filterGeneration = generation;
    node->filterMatches = matches;
}

RunModel::Timing RunModel::timing(const QModelIndex &index) const
{
    Timing timing;
    if (!index.isValid() || index.model() != this)
        return timing;
    const Node *node = static_cast<const Node *>(index.internalPointer());
    timing.kind = node->kind;
    timing.status = node->status;
    timing.toolKind = node->toolKind;
    timing.startedMs = node->startedMs >= 0 ? node->startedMs : -1;
    timing.durationMs = node->durationMs();
    return timing;
}

QModelIndex RunModel::runIndex() const
{
    return indexOf(m_run);
}

QModelIndex RunModel::indexForToolUseId(const QString &toolUseId, int column) const
{
    return indexOf(m_toolsById.value(toolUseId), column);
}

RunSummary RunModel::summary() const
{
    if (m_restored)
        return m_restoredSummary;
    return m_summary.summary(m_runEnded);
}

QVariant RunModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SummaryColumn:
        return tr("What happened");
    case StatusColumn:
        return tr("Status");
    case DurationColumn:
        return tr("Duration");
    case TokensColumn:
        return tr("Tokens");
    case CostColumn:
        return tr("Cost");
    case ToolCallsColumn:
        return tr("Calls");
    case ErrorsColumn:
        return tr("Errors");
    default:
        return {};
    }
}

QHash<int, QByteArray> RunModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractItemModel::roleNames();
    names.insert(KindRole, "kind");
    names.insert(StatusRole, "status");
    names.insert(ToolNameRole, "toolName");
    names.insert(ToolKindRole, "toolKind");
    names.insert(ToolUseIdRole, "toolUseId");
    names.insert(ParentToolUseIdRole, "parentToolUseId");
    names.insert(MessageIdRole, "messageId");
    names.insert(SummaryRole, "summary");
    names.insert(TextRole, "text");
    names.insert(RawJsonRole, "rawJson");
    names.insert(RawLineRole, "rawLine");
    names.insert(ResultRawJsonRole, "resultRawJson");
    names.insert(DetailRole, "detail");
    names.insert(IsErrorRole, "isError");
    names.insert(FilePathRole, "filePath");
    names.insert(DurationMsRole, "durationMs");
    names.insert(StartedAtMsRole, "startedAtMs");
    names.insert(InputTokensRole, "inputTokens");
    names.insert(OutputTokensRole, "outputTokens");
    names.insert(CostUsdRole, "costUsd");
    names.insert(LineNumberRole, "lineNumber");
    names.insert(CacheReadTokensRole, "cacheReadTokens");
    names.insert(CacheCreationTokensRole, "cacheCreationTokens");
    names.insert(ToolCallsRole, "toolCalls");
    names.insert(ErrorsRole, "errors");
    return names;
}

QVariant RunModel::displayData(const Node *node, int column) const
{
    switch (column) {
    case SummaryColumn:
        if (node->kind == NodeKind::ToolCall) {
            const QString name = node->toolName.isEmpty()
                ? QStringLiteral("(tool call %1)").arg(node->toolUseId)
                : node->toolName;
            return node->title.isEmpty() ? name : name + QStringLiteral(": ") + node->title;
        }
        return node->title;
    case StatusColumn:
        return runtext::statusText(node->status);
    case DurationColumn: {
        const qint64 ms = node->durationMs();
        return ms >= 0 ? format::duration(ms) : QString();
    }
    case TokensColumn:
        return runtext::tokenText(node->tokens);
    case CostColumn:
        return node->hasCost ? runtext::costText(node->costUsd) : QString();
    case ToolCallsColumn:
    case ErrorsColumn: {
        // Containers always show their count; a plain call or a text only when it has one.
        const qint64 count = column == ToolCallsColumn ? node->toolCalls : node->errors;
        const bool container = node->kind == NodeKind::Run || node->kind == NodeKind::Turn
            || node->toolKind == ToolKind::Agent;
        return count > 0 || container ? QLocale().toString(count) : QString();
    }
    default:
        return {};
    }
}

QVariant RunModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Node *node = static_cast<Node *>(index.internalPointer());
    switch (role) {
    case Qt::DisplayRole:
        return displayData(node, index.column());
    case Qt::ToolTipRole:
        if (index.column() == TokensColumn)
            return runtext::tokenToolTip(node->tokens);
        if (index.column() != SummaryColumn)
            return {};
        if (node->textOnDisk)
            return detailsOf(node).text;
        return !node->text.isEmpty() ? node->text : QVariant();
    case KindRole:
        return int(node->kind);
    case StatusRole:
        return int(node->status);
    case ToolNameRole:
        return node->toolName;
    case ToolKindRole:
        return int(node->toolKind);
    case ToolUseIdRole:
        return node->toolUseId;
    case ParentToolUseIdRole:
        return node->parentToolUseId;
    case MessageIdRole:
        return node->messageId;
    case SummaryRole:
        return node->title;
    case TextRole:
        if (node->kind == NodeKind::ToolCall)
            return node->resultOnDisk ? detailsOf(node).output : node->call().resultText;
        return node->textOnDisk ? detailsOf(node).text : node->text;
    case RawJsonRole: {
        const QByteArray raw = lineOf(node->raw, node->rawRef);
        return node->rawIsJson ? indentedJson(raw) : QString::fromUtf8(raw);
    }
    case RawLineRole:
        return lineOf(node->raw, node->rawRef);
    case ResultRawJsonRole: {
        const QByteArray raw = lineOf(node->call().resultRaw, node->call().resultRawRef);
        return raw.isEmpty() ? QVariant() : indentedJson(raw);
    }
    case DetailRole:
        return QVariant::fromValue(detailsOf(node));
    case IsErrorRole:
        return node->isError;
    case FilePathRole:
        switch (node->toolKind) {
        case ToolKind::Read:
        case ToolKind::Write:
        case ToolKind::Edit:
        case ToolKind::Notebook:
            return node->call().input.filePath;
        default:
            return QVariant();
        }
    case DurationMsRole: {
        const qint64 ms = node->durationMs();
        return ms >= 0 ? QVariant(ms) : QVariant();
    }
    case StartedAtMsRole:
        return node->startedMs >= 0 ? QVariant(node->startedMs) : QVariant();
    case InputTokensRole:
        return node->tokens.present ? QVariant(node->tokens.inputTokens) : QVariant();
    case OutputTokensRole:
        return node->tokens.present ? QVariant(node->tokens.outputTokens) : QVariant();
    case CostUsdRole:
        return node->hasCost ? QVariant(node->costUsd) : QVariant();
    case LineNumberRole:
        return node->lineNumber;
    case CacheReadTokensRole:
        return node->tokens.present ? QVariant(node->tokens.cacheReadInputTokens) : QVariant();
    case CacheCreationTokensRole:
        return node->tokens.present ? QVariant(node->tokens.cacheCreationInputTokens) : QVariant();
    case ToolCallsRole:
        return node->toolCalls;
    case ErrorsRole:
        return node->errors;
    default:
        return {};
    }
}

void RunModel::parkChildren(Node *node, size_t keep)
{
    auto &children = node->children;
    // Highest row first, after the rows already put aside (which come after these).
    for (size_t row = children.size(); row > keep; --row)
        node->parked.push_back(std::move(children[row - 1]));
    children.erase(
        children.begin() + std::ptrdiff_t(std::min(keep, children.size())), children.end());
}

RunModel::Node *RunModel::appendNode(Node *parent, std::unique_ptr<Node> node)
{
    const int row = int(parent->children.size());
    if (!parent->parked.empty()) {
        // Playing events again after a jump back: the node put aside at this row was most
        // likely this one later on, so its subtree stays put aside under the new node.
        const std::unique_ptr<Node> earlier = std::move(parent->parked.back());
        parent->parked.pop_back();
        parkChildren(earlier.get(), 0);
        node->parked = std::move(earlier->parked);
    }
    if (!m_rebuilding)
        beginInsertRows(indexOf(parent), row, row);
    node->parent = parent;
    node->row = row;
    Node *added = node.get();
    parent->children.push_back(std::move(node));
    ++m_nodeCount;
    added->stamp = nextStamp();
    if (!m_rebuilding)
        endInsertRows();
    return added;
}

void RunModel::changed(Node *node, int firstColumn, int lastColumn)
{
    node->foldedSearchValid = false;
    node->foldedSearch = QByteArray();
    node->filterGeneration = 0;
    node->stamp = nextStamp();
    if (!m_rebuilding)
        Q_EMIT dataChanged(indexOf(node, firstColumn), indexOf(node, lastColumn));
}

void RunModel::setStatus(Node *node, Status status)
{
    if (node->status == status)
        return;
    node->status = status;
    changed(node, StatusColumn, StatusColumn);
}

RunModel::Node *RunModel::currentTurn(qint64 arrivalMs)
{
    if (m_turn)
        return m_turn;
    if (m_runEnded) {
        // A follow-up resumed the session after a stopped turn: the run is live again, so a
        // later end marks this turn's open calls too.
        m_runEnded = false;
        m_run->status = Status::Running;
        m_run->endedMs = -1;
        changed(m_run);
    }
    // A new turn makes a settled run live again; its totals so far were the finished turns'.
    if (m_run->status != Status::Running) {
        m_run->status = Status::Running;
        m_run->reportedDurationMs = -1;
        changed(m_run);
    }
    auto turn = std::make_unique<Node>();
    turn->kind = NodeKind::Turn;
    turn->status = Status::Running;
    turn->title = QStringLiteral("Turn %1").arg(++m_turnCount);
    turn->startedMs = arrivalMs;
    m_turn = appendNode(m_run, std::move(turn));
    m_turns.push_back(m_turn);
    return m_turn;
}

// Each system/init starts a turn. Lines that came before the first init of a turn (such as
// system/status for /compact) are kept in the turn the init then adopts.
RunModel::Node *RunModel::startTurn(const RunEvent &event)
{
    if (!m_turn || m_turn->hasInit || m_turn->ended)
        m_turn = nullptr;
    Node *turn = currentTurn(event.arrivalMs);
    turn->hasInit = true;
    turn->model = interned(event.model);
    turn->raw = event.raw;
    turn->rawRef = event.rawRef;
    turn->lineNumber = event.lineNumber;
    turn->text = event.cwd;
    if (!event.model.isEmpty())
        turn->title = QStringLiteral("Turn %1 · %2").arg(m_turnCount).arg(event.model);
    changed(turn);

    if (m_run->raw.isEmpty() && !m_run->rawRef.isValid()) {
        m_run->raw = event.raw;
        m_run->rawRef = event.rawRef;
        m_run->startedMs = m_run->startedMs < 0 ? event.arrivalMs : m_run->startedMs;
    }
    m_run->model = interned(event.model);
    m_run->text = event.cwd;
    QString title = QStringLiteral("Run");
    if (!event.sessionId.isEmpty())
        title += QStringLiteral(" · session ") + event.sessionId.left(8);
    if (!event.model.isEmpty())
        title += QStringLiteral(" · ") + event.model;
    if (!event.cliVersion.isEmpty())
        title += QStringLiteral(" · claude ") + event.cliVersion;
    m_run->title = title;
    changed(m_run);
    return turn;
}

RunModel::Node *RunModel::toolNode(const QString &toolUseId, Node *placeholderParent)
{
    if (Node *existing = m_toolsById.value(toolUseId))
        return existing;
    // Seen by reference before its tool_use (a result, a sub-agent line, a task event):
    // a placeholder that the tool_use fills in when it arrives.
    auto node = std::make_unique<Node>();
    node->kind = NodeKind::ToolCall;
    node->toolUseId = toolUseId;
    Node *added = appendNode(placeholderParent, std::move(node));
    m_toolsById.insert(toolUseId, added);
    return added;
}

RunModel::Node *RunModel::contextFor(const RunEvent &event)
{
    Node *turn = currentTurn(event.arrivalMs);
    if (event.parentToolUseId.isEmpty())
        return turn;
    return toolNode(event.parentToolUseId, turn);
}

void RunModel::addTokens(Node *owner, const TokenUsage &delta)
{
    for (Node *node = owner; node && node != m_root.get(); node = node->parent) {
        node->tokens += delta;
        node->tokens.present = true;
        changed(node, TokensColumn, TokensColumn);
    }
}

void RunModel::countCall(Node *node)
{
    if (node->countedAsCall)
        return;
    node->countedAsCall = true;
    addCounts(node->parent, 1, 0);
}

void RunModel::countError(Node *node)
{
    if (node->countedAsError)
        return;
    node->countedAsError = true;
    addCounts(node->parent, 0, 1);
}

void RunModel::addCounts(Node *owner, qint64 calls, qint64 errors)
{
    for (Node *node = owner; node && node != m_root.get(); node = node->parent) {
        node->toolCalls += calls;
        node->errors += errors;
        changed(node, ToolCallsColumn, ErrorsColumn);
    }
}

RunModel::Node *RunModel::addLeaf(
    NodeKind kind, Node *parent, const RunEvent &event, const QString &title, Status status)
{
    auto node = std::make_unique<Node>();
    node->kind = kind;
    node->title = title;
    if (kind != NodeKind::ToolCall && leavesOut(event, event.text.size() * 2)) {
        node->textOnDisk = true;
        node->textKind = quint8(event.kind);
    } else {
        node->text = event.text;
    }
    node->status = status;
    node->isError = event.isError;
    node->raw = event.raw;
    node->rawRef = event.rawRef;
    node->rawIsJson = event.kind != RunEvent::NotJson;
    node->lineNumber = event.lineNumber;
    node->startedMs = event.arrivalMs;
    node->parentToolUseId = interned(event.parentToolUseId);
    node->messageId = event.messageId;
    node->model = interned(event.model);
    node->errorCode = interned(event.errorCode);
    return appendNode(parent, std::move(node));
}

void RunModel::onToolUse(const RunEvent &event)
{
    Node *node = event.toolUseId.isEmpty() ? nullptr : m_toolsById.value(event.toolUseId);
    bool created = false;
    if (!node) {
        Node *parent = contextFor(event);
        // A call naming itself as its parent got its placeholder from contextFor().
        node = event.toolUseId.isEmpty() ? nullptr : m_toolsById.value(event.toolUseId);
        if (!node) {
            node = addLeaf(NodeKind::ToolCall, parent, event, QString());
            created = true;
            node->toolUseId = event.toolUseId;
            if (!event.toolUseId.isEmpty())
                m_toolsById.insert(event.toolUseId, node);
        }
    }
    if (!created) { // fill in a placeholder (or a repeated tool_use)
        node->raw = event.raw;
        node->rawRef = event.rawRef;
        node->lineNumber = event.lineNumber;
        node->parentToolUseId = interned(event.parentToolUseId);
        node->messageId = event.messageId;
        if (node->startedMs < 0)
            node->startedMs = event.arrivalMs;
    }
    node->toolName = interned(event.toolName);
    node->toolKind = toolKindOf(event.toolName);
    countCall(node);
    node->inputOnDisk = leavesOut(event, event.inputJson.size());
    ToolCallData &data = node->editCall();
    if (node->inputOnDisk) {
        data.input = ToolInput();
        data.input.filePath = event.input.filePath; // FilePathRole
        data.inputJson = QByteArray();
    } else {
        data.input = event.input;
        data.inputJson = event.inputJson;
    }
    node->title = runtext::toolSummary(node->toolKind, event.input, event.inputJson);
    if (node->status == Status::None) {
        node->status = Status::Running;
        m_openTools.insert(node);
    }
    changed(node);
}

void RunModel::onToolResult(const RunEvent &event)
{
    if (event.toolUseId.isEmpty()) {
        addLeaf(NodeKind::Raw, contextFor(event), event,
            QStringLiteral("tool_result without tool_use_id"), Status::Error);
        return;
    }
    Node *node = toolNode(event.toolUseId, contextFor(event));
    node->resultOnDisk
        = leavesOut(event, event.resultText.size() * 2 + event.structuredResultJson.size());
    ToolCallData &data = node->editCall();
    data.resultText = node->resultOnDisk ? QString() : event.resultText;
    data.structuredResultJson = node->resultOnDisk ? QByteArray() : event.structuredResultJson;
    data.resultRaw = event.raw;
    data.resultRawRef = event.rawRef;
    node->endedMs = event.arrivalMs;
    node->isError = event.isError;
    if (node->status != Status::Denied) {
        if (event.isError)
            node->status = Status::Error;
        else if (event.structuredStatus == QLatin1String("async_launched"))
            node->status = Status::Background;
        else
            node->status = Status::Ok;
    }
    if (node->status != Status::Background)
        m_openTools.remove(node);
    if (event.isError)
        countError(node);
    changed(node);
}

void RunModel::onMessageUsage(const RunEvent &event)
{
    if (event.messageId.isEmpty()) {
        addTokens(contextFor(event), event.usage);
        return;
    }
    // Every per-block line of one API response repeats its usage: count each message.id once.
    MessageAccount *account = m_messages.find(event.messageId);
    if (!account) {
        Node *owner = contextFor(event);
        account = &m_messages.insert(event.messageId, MessageAccount {TokenUsage(), owner});
    }
    const TokenUsage merged = mergedUsage(account->counted, event.usage);
    TokenUsage delta;
    delta.inputTokens = merged.inputTokens - account->counted.inputTokens;
    delta.outputTokens = merged.outputTokens - account->counted.outputTokens;
    delta.cacheReadInputTokens
        = merged.cacheReadInputTokens - account->counted.cacheReadInputTokens;
    delta.cacheCreationInputTokens
        = merged.cacheCreationInputTokens - account->counted.cacheCreationInputTokens;
    const bool firstSighting = !account->counted.present;
    account->counted = merged;
    if (firstSighting || delta != TokenUsage())
        addTokens(account->owner, delta);
}

void RunModel::onPermissionDenied(const RunEvent &event)
{
    Node *turn = currentTurn(event.arrivalMs);
    Node *parent = turn;
    if (!event.toolUseId.isEmpty()) {
        Node *tool = toolNode(event.toolUseId, contextFor(event));
        if (tool->toolName.isEmpty() && !event.toolName.isEmpty()) {
            tool->toolName = interned(event.toolName);
            tool->toolKind = toolKindOf(event.toolName);
        }
        tool->status = Status::Denied;
        tool->isError = true;
        m_openTools.remove(tool);
        countError(tool);
        changed(tool);
        parent = tool;
    }
    addLeaf(NodeKind::PermissionDenied, parent, event,
        QStringLiteral("Permission denied: ") + runtext::oneLine(event.text), Status::Denied);
}

void RunModel::onTask(const RunEvent &event)
{
    const TaskInfo &update = event.task;
    Node *node = nullptr;
    if (!event.toolUseId.isEmpty())
        node = toolNode(event.toolUseId, currentTurn(event.arrivalMs));
    else if (!update.taskId.isEmpty())
        node = m_tasksById.value(update.taskId);
    if (!node) {
        addLeaf(NodeKind::SystemNotice, currentTurn(event.arrivalMs), event,
            event.subtype + QStringLiteral(": ") + update.status,
            event.isError ? Status::Error : Status::None);
        return;
    }
    if (!update.taskId.isEmpty())
        m_tasksById.insert(update.taskId, node);

    TaskInfo &task = node->editCall().task;
    auto merge = [](QString &field, const QString &value) {
        if (!value.isEmpty())
            field = value;
    };
    merge(task.taskId, update.taskId);
    merge(task.taskType, update.taskType);
    merge(task.status, update.status);
    merge(task.description, update.description);
    merge(task.subagentType, update.subagentType);
    merge(task.lastToolName, update.lastToolName);
    merge(task.summary, update.summary);
    merge(task.outputFile, update.outputFile);
    if (update.totalTokens >= 0)
        task.totalTokens = update.totalTokens;
    if (update.toolUses >= 0)
        task.toolUses = update.toolUses;
    if (update.durationMs >= 0)
        task.durationMs = update.durationMs;
    task.backgrounded = task.backgrounded || update.backgrounded;

    // A background agent's tool call returned at launch; its task reports the real outcome.
    if (node->status == Status::Background) {
        if (update.status == QLatin1String("completed"))
            node->status = Status::Ok;
        else if (update.status == QLatin1String("failed")) {
            node->status = Status::Error;
            countError(node);
        } else if (update.status == QLatin1String("stopped")
            || update.status == QLatin1String("killed"))
            node->status = Status::Interrupted;
        if (node->status != Status::Background) {
            node->endedMs = event.arrivalMs;
            m_openTools.remove(node);
        }
    }
    changed(node);
}

void RunModel::onResult(const RunEvent &event)
{
    const ResultInfo &result = event.result;
    // Results close turns in order: a result held back behind a background agent arrives
    // after the next turn's init and still belongs to the earlier turn.
    while (m_firstOpenTurn < m_turns.size() && m_turns[m_firstOpenTurn]->ended)
        ++m_firstOpenTurn;
    Node *turn = m_firstOpenTurn < m_turns.size() ? m_turns[m_firstOpenTurn]
                                                  : currentTurn(event.arrivalMs);

    QString title = QStringLiteral("Result: ") + result.subtype;
    if (!event.text.isEmpty())
        title += QStringLiteral(" · ") + runtext::oneLine(event.text);
    Node *leaf = addLeaf(
        NodeKind::Result, turn, event, title, result.isError ? Status::Error : Status::Ok);
    leaf->reportedDurationMs = result.durationMs;
    leaf->tokens = result.turnUsage.present ? result.turnUsage : result.usage;
    leaf->hasCost = result.hasCost;
    leaf->costUsd = result.totalCostUsd;
    changed(leaf);

    const qint64 durationBefore = turn->ended ? turn->reportedDurationMs : -1;
    markTurnEnded(turn);
    turn->status = result.isError ? Status::Error : Status::Ok;
    turn->isError = result.isError;
    turn->endedMs = event.arrivalMs;
    if (result.durationMs >= 0)
        turn->reportedDurationMs
            = std::max<qint64>(0, turn->reportedDurationMs) + result.durationMs;
    countTurnDuration(durationBefore, turn->reportedDurationMs);
    // total_cost_usd is cumulative for the process; the per-turn delta is reported separately.
    if (result.hasTurnCost || result.hasCost) {
        turn->costUsd
            += result.hasTurnCost ? result.turnCostUsd : result.totalCostUsd - m_lastTotalCost;
        turn->hasCost = true;
    }
    changed(turn);

    if (result.hasCost) {
        m_lastTotalCost = result.totalCostUsd;
        m_run->costUsd = result.totalCostUsd;
        m_run->hasCost = true;
    }
    m_run->endedMs = event.arrivalMs;
    m_run->isError = result.isError;
    settleRunIfAllTurnsEnded(result.isError);

    for (const QString &id : result.deniedToolUseIds) {
        if (Node *tool = m_toolsById.value(id)) {
            tool->isError = true;
            countError(tool);
            setStatus(tool, Status::Denied);
            m_openTools.remove(tool);
            changed(tool);
        }
    }
}

// Between turns the run is settled with its last turn's outcome, and lasted what its turns did
// (the time between a result and a follow-up is nobody's work).
// Counted as turns end, not by walking them per result: a 100 MB capture has thousands.
void RunModel::settleRunIfAllTurnsEnded(bool isError)
{
    if (m_endedTurns == m_turns.size()) {
        m_run->status = isError ? Status::Error : Status::Ok;
        m_run->reportedDurationMs = m_turnDurationKnown ? m_turnDurationSum : -1;
    }
    changed(m_run);
}

void RunModel::markTurnEnded(Node *turn)
{
    if (!turn->ended)
        ++m_endedTurns;
    turn->ended = true;
}

// The reported duration of an ended turn went from `before` to `after` (-1: none).
void RunModel::countTurnDuration(qint64 before, qint64 after)
{
    m_turnDurationSum += std::max<qint64>(0, after) - std::max<qint64>(0, before);
    m_turnDurationKnown = m_turnDurationKnown || after >= 0;
}

// A transcript has no result lines: its CLI process writes cost-state when it ends a turn.
// The turn's outcome is what happened in it (an API error or a failed call marks it).
void RunModel::onSessionCost(const RunEvent &event)
{
    Node *turn = m_turn && !m_turn->ended ? m_turn : nullptr;
    if (turn) {
        // A turn that ended on an API error failed (the stream's result would say so).
        turn->isError = turn->isError
            || (!turn->children.empty() && turn->children.back()->kind == NodeKind::ApiError);
        markTurnEnded(turn);
        countTurnDuration(-1, turn->reportedDurationMs);
        turn->status = turn->isError ? Status::Error : Status::Ok;
        turn->endedMs = event.arrivalMs;
    }
    if (event.result.hasCost) {
        // Cumulative while the process lives; a new process may start again from zero.
        const double total = event.result.totalCostUsd;
        const double delta = total >= m_lastTotalCost ? total - m_lastTotalCost : total;
        m_lastTotalCost = total;
        if (turn) {
            turn->costUsd += delta;
            turn->hasCost = true;
        }
        m_run->costUsd += delta;
        m_run->hasCost = true;
    }
    if (turn)
        changed(turn);
    m_run->endedMs = event.arrivalMs;
    m_run->isError = turn && turn->isError;
    settleRunIfAllTurnsEnded(m_run->isError);
}

// A transcript's turn learns its model from the first answer, not from an init line.
void RunModel::adoptModel(const QString &model)
{
    if (!m_turn || !m_turn->model.isEmpty() || model.isEmpty()
        || model == QLatin1String("<synthetic>"))
        return;
    m_turn->model = interned(model);
    m_turn->title = QStringLiteral("Turn %1 · %2").arg(m_turnCount).arg(model);
    changed(m_turn);
    if (m_run->model.isEmpty()) {
        m_run->model = interned(model);
        m_run->title += QStringLiteral(" · ") + model;
        changed(m_run);
    }
}

void RunModel::addEvents(const RunEventBatch &events)
{
    addEventRange(events.cbegin(), events.cend());
}

void RunModel::addEventRange(const RunEvent *first, const RunEvent *last)
{
    for (const RunEvent *event = first; event != last; ++event)
        apply(*event);
    if (!m_rebuilding)
        Q_EMIT summaryChanged();
}

void RunModel::addEvent(const RunEvent &event)
{
    apply(event);
    if (!m_rebuilding)
        Q_EMIT summaryChanged();
}

void RunModel::apply(const RunEvent &event)
{
    m_summary.add(event);
    if (m_run->startedMs < 0) {
        m_run->startedMs = event.arrivalMs;
        changed(m_run, DurationColumn, DurationColumn);
    }

    switch (event.kind) {
    case RunEvent::SessionInit:
        startTurn(event);
        break;
    case RunEvent::AssistantText:
        if (event.parentToolUseId.isEmpty())
            adoptModel(event.model);
        addLeaf(NodeKind::AssistantText, contextFor(event), event, runtext::oneLine(event.text));
        break;
    case RunEvent::Thinking:
        addLeaf(NodeKind::Thinking, contextFor(event), event,
            QStringLiteral("Thinking: ") + runtext::oneLine(event.text));
        break;
    case RunEvent::ToolUse:
        onToolUse(event);
        break;
    case RunEvent::ToolResult:
        onToolResult(event);
        break;
    case RunEvent::UserText:
        addLeaf(NodeKind::UserText, contextFor(event), event,
            (event.parentToolUseId.isEmpty() ? QStringLiteral("User: ")
                                             : QStringLiteral("Prompt: "))
                + runtext::oneLine(event.text));
        break;
    case RunEvent::MessageUsage:
        if (event.parentToolUseId.isEmpty())
            adoptModel(event.model);
        onMessageUsage(event);
        break;
    case RunEvent::ApiRetry:
        addLeaf(NodeKind::ApiRetry, contextFor(event), event,
            QStringLiteral("API retry %1/%2 in %3 ms: %4%5")
                .arg(event.attempt)
                .arg(event.maxRetries)
                .arg(event.retryDelayMs)
                .arg(event.errorCode,
                    event.errorStatus ? QStringLiteral(" (HTTP %1)").arg(event.errorStatus)
                                      : QString()),
            Status::Retrying);
        break;
    case RunEvent::ApiError:
        countError(addLeaf(NodeKind::ApiError, contextFor(event), event,
            QStringLiteral("API error: ") + runtext::oneLine(event.text)
                + (event.errorCode.isEmpty()
                        ? QString()
                        : QStringLiteral(" (") + event.errorCode + QLatin1Char(')')),
            Status::Error));
        break;
    case RunEvent::PermissionDenied:
        onPermissionDenied(event);
        break;
    case RunEvent::Task:
        onTask(event);
        break;
    case RunEvent::CompactBoundary:
        // A transcript writes /compact's boundary before the command's own prompt record:
        // after a finished turn it opens the next one (which that prompt then adopts).
        if (m_turn && m_turn->ended)
            m_turn = nullptr;
        addLeaf(NodeKind::CompactBoundary, currentTurn(event.arrivalMs), event,
            QStringLiteral("Context compacted")
                + (event.text.isEmpty() ? QString() : QStringLiteral(": ") + event.text));
        break;
    case RunEvent::SystemNotice:
        addLeaf(NodeKind::SystemNotice, contextFor(event), event,
            (event.subtype.isEmpty() ? event.type : event.subtype)
                + (event.text.isEmpty() ? QString()
                                        : QStringLiteral(": ") + runtext::oneLine(event.text)),
            event.isError ? Status::Error : Status::None);
        break;
    case RunEvent::Result:
        onResult(event);
        break;
    case RunEvent::SessionCost:
        onSessionCost(event);
        break;
    case RunEvent::Transient:
        break;
    case RunEvent::Unknown: {
        QString title = event.text;
        if (title.isEmpty()) {
            title = event.type.isEmpty()
                ? QStringLiteral("JSON object without a type")
                : QStringLiteral("Unknown line type \"%1\"")
                      .arg(event.subtype.isEmpty() ? event.type
                                                   : event.type + QLatin1Char('/') + event.subtype);
        }
        addLeaf(NodeKind::Raw, currentTurn(event.arrivalMs), event, title);
        break;
    }
    case RunEvent::NotJson: {
        Node *leaf = addLeaf(NodeKind::Raw, currentTurn(event.arrivalMs), event,
            (event.corrupt ? QStringLiteral("Corrupt JSON: ") : QStringLiteral("Not JSON: "))
                + runtext::oneLine(QString::fromUtf8(event.raw.left(runtext::titleLimit * 4))),
            event.corrupt ? Status::Error : Status::None);
        if (event.corrupt)
            countError(leaf);
        break;
    }
    }
}

void RunModel::markRunEnded(qint64 arrivalMs)
{
    if (m_runEnded)
        return;
    m_runEnded = true;
    for (Node *tool : std::as_const(m_openTools)) {
        tool->status = Status::Interrupted;
        changed(tool, StatusColumn, StatusColumn);
    }
    m_openTools.clear();
    bool anyResult = false;
    for (Node *turn : m_turns) {
        anyResult = anyResult || turn->ended;
        if (!turn->ended) {
            turn->status = Status::Interrupted;
            turn->endedMs = arrivalMs;
            changed(turn);
        }
    }
    m_run->endedMs = arrivalMs;
    if (!anyResult)
        m_run->status = Status::Interrupted;
    else
        m_run->status = m_run->isError ? Status::Error : Status::Ok;
    changed(m_run);
    if (!m_rebuilding)
        Q_EMIT summaryChanged();
}

// ---------------------------------------------------------------------------------------
// Snapshots: the tree flattened in pre-order, pointers kept as positions in that order.

class RunModel::Snapshot {
public:
    // nodes[0] is the invisible root. A node unchanged since the previous snapshot (the same
    // stamp) is that snapshot's copy.
    std::vector<std::shared_ptr<const Node>> nodes;
    std::vector<int> parents; // position of each node's parent (-1 for the root)
    int run = -1;
    int turn = -1;
    std::vector<int> turns;
    std::vector<int> openTools;
    // The slot tables: their keys in slot order, and each slot's node (its position).
    std::vector<QString> toolKeys;
    std::vector<int> tools;
    std::vector<QString> messageKeys;
    std::vector<std::pair<TokenUsage, int>> messages;
    std::vector<QString> taskKeys;
    std::vector<int> tasks;
    size_t firstOpenTurn = 0;
    size_t endedTurns = 0;
    qint64 turnDurationSum = 0;
    bool turnDurationKnown = false;
    int turnCount = 0;
    double lastTotalCost = 0;
    bool runEnded = false;
    RunSummaryBuilder summary;
};

qint64 RunModel::snapshotBytes(const Snapshot &snapshot, const Snapshot *previous)
{
    // Node copies not shared with `previous` (with their control block and allocation), the
    // slot tables' arrays, and about 96 bytes a hash entry of the summary's tables with its
    // allocation (bench_playback compares the estimate with resident memory); strings are
    // shared with the model and not counted.
    std::unordered_set<const Node *> shared;
    if (previous) {
        shared.reserve(previous->nodes.size());
        for (const auto &node : previous->nodes)
            shared.insert(node.get());
    }
    qint64 copies = 0;
    for (const auto &node : snapshot.nodes)
        copies += shared.count(node.get()) ? 0 : 1;
    const qint64 tableBytes = qint64(snapshot.toolKeys.size() + snapshot.taskKeys.size())
            * qint64(sizeof(QString) + sizeof(int))
        + qint64(snapshot.messageKeys.size())
            * qint64(sizeof(QString) + sizeof(std::pair<TokenUsage, int>));
    return copies * qint64(sizeof(Node) + 64)
        + qint64(snapshot.nodes.size() * (sizeof(std::shared_ptr<const Node>) + sizeof(int)))
        + tableBytes + snapshot.summary.entryCount() * 96;
}

qint64 RunModel::snapshotNodeCount(const Snapshot &snapshot)
{
    return qint64(snapshot.nodes.size());
}

std::shared_ptr<const RunModel::Snapshot> RunModel::saveSnapshot(const Snapshot *previous) const
{
    auto snapshot = std::make_shared<Snapshot>();
    QHash<const Node *, int> positions;
    positions.reserve(int(m_nodeCount + 1));
    snapshot->nodes.reserve(size_t(m_nodeCount + 1));
    snapshot->parents.reserve(size_t(m_nodeCount + 1));
    // The previous snapshot's children of each node, to find a node's earlier copy: its rows
    // are the first rows of the same node now.
    std::vector<int> firstChild;
    std::vector<int> childPositions;
    if (previous) {
        const size_t count = previous->nodes.size();
        std::vector<int> counts(count + 1, 0);
        for (size_t i = 1; i < count; ++i)
            ++counts[size_t(previous->parents[i]) + 1];
        for (size_t i = 1; i <= count; ++i)
            counts[i] += counts[i - 1];
        firstChild = counts; // children of p: childPositions[firstChild[p] .. firstChild[p + 1])
        childPositions.resize(count);
        for (size_t i = 1; i < count; ++i)
            childPositions[size_t(counts[size_t(previous->parents[i])]++)] = int(i);
    }
    std::vector<std::pair<const Node *, int>> pending {{m_root.get(), previous ? 0 : -1}};
    while (!pending.empty()) {
        const auto [node, earlier] = pending.back();
        pending.pop_back();
        positions.insert(node, int(snapshot->nodes.size()));
        snapshot->parents.push_back(node->parent ? positions.value(node->parent) : -1);
        if (earlier >= 0 && previous->nodes[size_t(earlier)]->stamp == node->stamp) {
            snapshot->nodes.push_back(previous->nodes[size_t(earlier)]);
        } else {
            auto copy = std::make_shared<Node>(*node);
            copy->foldedSearch = QByteArray(); // a cache; rebuilt on use
            copy->foldedSearchValid = false;
            copy->filterGeneration = 0;
            snapshot->nodes.push_back(std::move(copy));
        }
        const int earlierChildren
            = earlier >= 0 ? firstChild[size_t(earlier) + 1] - firstChild[size_t(earlier)] : 0;
        for (int row = int(node->children.size()) - 1; row >= 0; --row) {
            const int match = row < earlierChildren
                ? childPositions[size_t(firstChild[size_t(earlier)] + row)]
                : -1;
            pending.emplace_back(node->children[size_t(row)].get(), match);
        }
    }
    const auto at = [&positions](const Node *node) {
        return node ? positions.value(node) : -1;
    };
    snapshot->run = at(m_run);
    snapshot->turn = at(m_turn);
    for (const Node *turn : m_turns)
        snapshot->turns.push_back(at(turn));
    for (const Node *tool : m_openTools)
        snapshot->openTools.push_back(at(tool));
    snapshot->toolKeys = m_toolsById.keys();
    snapshot->tools.reserve(size_t(m_toolsById.size()));
    for (int slot = 0; slot < m_toolsById.size(); ++slot)
        snapshot->tools.push_back(at(m_toolsById.valueAt(slot)));
    snapshot->messageKeys = m_messages.keys();
    snapshot->messages.reserve(size_t(m_messages.size()));
    for (int slot = 0; slot < m_messages.size(); ++slot) {
        const MessageAccount &account = m_messages.valueAt(slot);
        snapshot->messages.emplace_back(account.counted, at(account.owner));
    }
    snapshot->taskKeys = m_tasksById.keys();
    snapshot->tasks.reserve(size_t(m_tasksById.size()));
    for (int slot = 0; slot < m_tasksById.size(); ++slot)
        snapshot->tasks.push_back(at(m_tasksById.valueAt(slot)));
    snapshot->firstOpenTurn = m_firstOpenTurn;
    snapshot->endedTurns = m_endedTurns;
    snapshot->turnDurationSum = m_turnDurationSum;
    snapshot->turnDurationKnown = m_turnDurationKnown;
    snapshot->turnCount = m_turnCount;
    snapshot->lastTotalCost = m_lastTotalCost;
    snapshot->runEnded = m_runEnded;
    snapshot->summary = m_summary;
    return snapshot;
}

// What replaceWith() drops: the whole tree a page built before playback took the builder's.
// Nothing refers to it any more (the reset invalidated every index), so a pool thread frees
// it. (Playback jumps drop nothing: they put rows aside, Node::parked, because freeing on a
// pool thread made the UI thread's allocations wait for the allocator's lock.)
struct RunModel::Garbage {
    std::vector<std::unique_ptr<Node>> nodes;
    SlotTable<QString, Node *> toolsById;
    SlotTable<QString, MessageAccount> messages;
    SlotTable<QString, Node *> tasksById;
};

void RunModel::releaseInBackground(Garbage &&garbage)
{
    auto dropped = std::make_shared<Garbage>(std::move(garbage));
    QThreadPool::globalInstance()->start([dropped]() mutable { dropped.reset(); });
}

void RunModel::beginRebuild(const Snapshot *snapshot)
{
    beginResetModel();
    m_rebuilding = true;
    m_openTools.clear();
    m_turns.clear();
    if (!snapshot) {
        if (!m_run) { // given away by replaceWith()
            makeEmptyTree();
        } else { // the run node again as it starts, with everything under it put aside
            parkChildren(m_run, 0);
            makeEmptyRun(m_run, m_root.get());
        }
        // Empty, but the keys stay known for the events played again.
        m_toolsById.restore({}, [](int) { return nullptr; });
        m_messages.restore({}, [](int) { return MessageAccount(); });
        m_tasksById.restore({}, [](int) { return nullptr; });
        m_turn = nullptr;
        m_nodeCount = 1;
        m_firstOpenTurn = 0;
        m_endedTurns = 0;
        m_turnDurationSum = 0;
        m_turnDurationKnown = false;
        m_turnCount = 0;
        m_lastTotalCost = 0;
        m_runEnded = false;
        m_summary = RunSummaryBuilder();
        return;
    }
    // The tree is put back over the one shown: both come from the same events, so the
    // snapshot's children of a node are the first ones the model has (rows are only ever
    // appended). Nodes with the snapshot's stamp are kept as they are; others take its fields;
    // rows beyond the snapshot's go, missing ones are added.
    const size_t count = snapshot->nodes.size();
    std::vector<Node *> nodes(count);
    std::vector<int> childCounts(count, 0);
    nodes[0] = m_root.get();
    for (size_t i = 1; i < count; ++i) {
        const Node &saved = *snapshot->nodes[i];
        const int parentPosition = snapshot->parents[i];
        Node *parent = nodes[size_t(parentPosition)];
        const size_t row = size_t(childCounts[size_t(parentPosition)]++);
        if (row < parent->children.size()) {
            Node *node = parent->children[row].get();
            if (node->stamp != saved.stamp) {
                *node = saved;
                node->parent = parent;
                node->row = int(row);
            }
            nodes[i] = node;
        } else {
            std::unique_ptr<Node> node;
            if (!parent->parked.empty()) { // put aside by an earlier jump back
                node = std::move(parent->parked.back());
                parent->parked.pop_back();
                if (node->stamp != saved.stamp)
                    *node = saved;
            } else {
                node = std::make_unique<Node>(saved);
            }
            node->parent = parent;
            node->row = int(row);
            nodes[i] = node.get();
            parent->children.push_back(std::move(node));
        }
    }
    for (size_t i = 0; i < count; ++i)
        parkChildren(nodes[i], size_t(childCounts[i]));
    const auto node = [&nodes](int position) {
        return position >= 0 ? nodes[size_t(position)] : nullptr;
    };
    m_run = node(snapshot->run);
    m_turn = node(snapshot->turn);
    for (int turn : snapshot->turns)
        m_turns.push_back(node(turn));
    for (int tool : snapshot->openTools)
        m_openTools.insert(node(tool));
    m_toolsById.restore(
        snapshot->toolKeys, [&](int slot) { return node(snapshot->tools[size_t(slot)]); });
    m_messages.restore(snapshot->messageKeys, [&](int slot) {
        const auto &[counted, owner] = snapshot->messages[size_t(slot)];
        return MessageAccount {counted, node(owner)};
    });
    m_tasksById.restore(
        snapshot->taskKeys, [&](int slot) { return node(snapshot->tasks[size_t(slot)]); });
    m_nodeCount = qint64(snapshot->nodes.size()) - 1;
    m_firstOpenTurn = snapshot->firstOpenTurn;
    m_endedTurns = snapshot->endedTurns;
    m_turnDurationSum = snapshot->turnDurationSum;
    m_turnDurationKnown = snapshot->turnDurationKnown;
    m_turnCount = snapshot->turnCount;
    m_lastTotalCost = snapshot->lastTotalCost;
    m_runEnded = snapshot->runEnded;
    m_summary = snapshot->summary;
}

void RunModel::beginRebuild()
{
    beginResetModel();
    m_rebuilding = true;
}

void RunModel::endRebuild()
{
    m_rebuilding = false;
    endResetModel();
    Q_EMIT summaryChanged();
}

void RunModel::replaceWith(RunModel &other)
{
    beginResetModel();
    Garbage garbage;
    garbage.nodes.push_back(std::move(m_root));
    garbage.toolsById = std::exchange(m_toolsById, std::move(other.m_toolsById));
    garbage.messages = std::exchange(m_messages, std::move(other.m_messages));
    garbage.tasksById = std::exchange(m_tasksById, std::move(other.m_tasksById));
    m_root = std::move(other.m_root);
    m_run = std::exchange(other.m_run, nullptr);
    m_turn = std::exchange(other.m_turn, nullptr);
    m_turns = std::move(other.m_turns);
    m_firstOpenTurn = other.m_firstOpenTurn;
    m_endedTurns = other.m_endedTurns;
    m_turnDurationSum = other.m_turnDurationSum;
    m_turnDurationKnown = other.m_turnDurationKnown;
    m_turnCount = other.m_turnCount;
    m_openTools = std::move(other.m_openTools);
    m_lastTotalCost = other.m_lastTotalCost;
    m_runEnded = other.m_runEnded;
    m_summary = std::move(other.m_summary);
    m_restored = other.m_restored;
    m_restoredSummary = other.m_restoredSummary;
    m_nodeCount = other.m_nodeCount;
    endResetModel();
    releaseInBackground(std::move(garbage));
    Q_EMIT summaryChanged();
    other.beginRebuild(nullptr); // an empty run again
    other.endRebuild();
}

namespace {

// Iterative copies both ways, so a deep tree from a hostile file cannot overflow the stack.
template <typename Node> void copyValues(const Node &from, RunNodeRecord &to)
{
    to.kind = int(from.kind);
    to.status = int(from.status);
    to.toolKind = int(from.toolKind);
    to.title = from.title;
    to.text = from.text;
    to.toolName = from.toolName;
    to.toolUseId = from.toolUseId;
    to.parentToolUseId = from.parentToolUseId;
    to.messageId = from.messageId;
    to.input = from.call().input;
    to.inputJson = from.call().inputJson;
    to.resultText = from.call().resultText;
    to.structuredResultJson = from.call().structuredResultJson;
    to.raw = from.raw;
    to.rawIsJson = from.rawIsJson;
    to.resultRaw = from.call().resultRaw;
    to.isError = from.isError;
    to.lineNumber = from.lineNumber;
    to.startedMs = from.startedMs;
    to.durationMs = from.durationMs();
    to.tokens = from.tokens;
    to.toolCalls = from.toolCalls;
    to.errors = from.errors;
    to.hasCost = from.hasCost;
    to.costUsd = from.costUsd;
    to.task = from.call().task;
    to.model = from.model;
    to.errorCode = from.errorCode;
}

} // namespace

RunNodeRecord RunModel::record(const QModelIndex &index) const
{
    const Node *top = index.isValid() ? static_cast<const Node *>(index.internalPointer()) : m_run;
    RunNodeRecord result;
    std::vector<std::pair<const Node *, RunNodeRecord *>> pending {{top, &result}};
    while (!pending.empty()) {
        const auto [node, out] = pending.back();
        pending.pop_back();
        copyValues(*node, *out);
        out->raw = lineOf(node->raw, node->rawRef); // read again when it was left out
        out->resultRaw = lineOf(node->call().resultRaw, node->call().resultRawRef);
        if (node->textOnDisk || node->inputOnDisk || node->resultOnDisk) {
            const RunNodeDetails details = detailsOf(node);
            out->text = details.text;
            out->input = details.input;
            out->inputJson = details.inputJson;
            out->resultText = details.output;
            out->structuredResultJson = details.structuredResultJson;
        }
        out->children.resize(node->children.size());
        for (size_t i = 0; i < node->children.size(); ++i)
            pending.emplace_back(node->children[i].get(), &out->children[i]);
    }
    return result;
}

bool RunModel::restore(const RunNodeRecord &run, const RunSummary &summary)
{
    if (!m_run->children.empty() || m_restored)
        return false;
    beginResetModel();
    std::vector<std::pair<const RunNodeRecord *, Node *>> pending {{&run, m_run}};
    while (!pending.empty()) {
        const auto [from, node] = pending.back();
        pending.pop_back();
        node->kind = node == m_run ? NodeKind::Run : NodeKind(from->kind);
        node->status = Status(from->status);
        node->toolKind = ToolKind(from->toolKind);
        node->title = from->title;
        node->text = from->text;
        node->toolName = from->toolName;
        node->toolUseId = from->toolUseId;
        node->parentToolUseId = from->parentToolUseId;
        node->messageId = from->messageId;
        if (node->kind == NodeKind::ToolCall) {
            ToolCallData &data = node->editCall();
            data.input = from->input;
            data.inputJson = from->inputJson;
            data.resultText = from->resultText;
            data.structuredResultJson = from->structuredResultJson;
            data.resultRaw = from->resultRaw;
            data.task = from->task;
        }
        node->raw = from->raw;
        node->rawIsJson = from->rawIsJson;
        node->isError = from->isError;
        node->lineNumber = from->lineNumber;
        node->startedMs = from->startedMs;
        node->reportedDurationMs = from->durationMs;
        node->tokens = from->tokens;
        node->hasCost = from->hasCost;
        node->costUsd = from->costUsd;
        node->toolCalls = from->toolCalls;
        node->errors = from->errors;
        node->model = from->model;
        node->errorCode = from->errorCode;
        node->ended = true;
        if (!node->toolUseId.isEmpty() && node->kind == NodeKind::ToolCall)
            m_toolsById.insert(node->toolUseId, node);
        for (size_t i = 0; i < from->children.size(); ++i) {
            auto child = std::make_unique<Node>();
            child->parent = node;
            child->row = int(node->children.size());
            node->children.push_back(std::move(child));
        }
        // Last child first onto the stack, so turns are visited (and listed) in order.
        for (size_t i = from->children.size(); i-- > 0;)
            pending.emplace_back(&from->children[i], node->children[i].get());
        if (node->parent == m_run && node->kind == NodeKind::Turn) {
            m_turns.push_back(node);
            ++m_turnCount;
        }
    }
    m_endedTurns = m_turns.size();
    m_firstOpenTurn = m_turns.size();
    m_runEnded = true;
    m_restored = true;
    m_restoredSummary = summary;
    endResetModel();
    Q_EMIT summaryChanged();
    return true;
}

} // namespace sandscope
