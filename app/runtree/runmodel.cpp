#include "runmodel.h"

#include "recordings/linesource.h"
#include "runtree/runlinereader.h"
#include "runtree/runnode.h"
#include "runtree/runnodetext.h"
#include "runtree/runsearchindex.h"
#include "runtree/runsnapshots.h"
#include "runtree/runtreerecords.h"
#include "streamjson/runparser.h"
#include "util/format.h"
#include "util/jsonindent.h"
#include "util/terminalsafe.h"

#include <QLocale>
#include <QScopeGuard>
#include <QSharedData>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <unordered_set>
#include <vector>

namespace sandscope {

RunModel::RunModel(QObject *parent)
    : QAbstractItemModel(parent)
    , m_lines(std::make_unique<RunLineReader>())
    , m_search(std::make_unique<RunSearchIndex>())
{
    m_tree.makeEmpty();
}

RunModel::~RunModel() = default;

namespace {
constexpr size_t prefetchRowsAhead = 8;
} // namespace

QModelIndex RunModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    const Node *parentNode
        = parent.isValid() ? static_cast<Node *>(parent.internalPointer()) : m_tree.root.get();
    if (parent.isValid() && parent.column() != 0)
        return {};
    const size_t count = parentNode->children.size();
    if (size_t(row) >= count)
        return {};
    // A view lays out a parent's rows in order, reading each row's node (flags, through the
    // proxy) right after asking for its index; the nodes are scattered over the heap, so the
    // one some rows ahead is fetched now (a 1 GB run's 100,000 turns: prefetchRowsAhead).
    if (size_t(row) + prefetchRowsAhead < count)
        __builtin_prefetch(parentNode->children[size_t(row) + prefetchRowsAhead].get());
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
        = parent.isValid() ? static_cast<Node *>(parent.internalPointer()) : m_tree.root.get();
    return int(node->children.size());
}

int RunModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

bool RunModel::leavesOut(const RunEvent &event, qsizetype bytes) const
{
    return bytes > 0 && m_lines->hasSource() && event.raw.isEmpty() && event.rawRef.isValid();
}

const QString &RunModel::interned(const QString &text)
{
    if (text.isEmpty())
        return text;
    const auto found = m_interned.constFind(text);
    return found != m_interned.constEnd() ? *found : *m_interned.insert(text);
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
    if (!node || node == m_tree.root.get())
        return {};
    return createIndex(node->row, column, const_cast<Node *>(node));
}

RunNodeDetails RunModel::detailsOf(const Node *node) const
{
    return m_lines->detailsOf(node);
}

QByteArray RunModel::lineOf(const QByteArray &kept, const LineRef &ref) const
{
    return m_lines->lineOf(kept, ref);
}

void RunModel::setLineSource(std::shared_ptr<const LineSource> source)
{
    m_lines->setSource(std::move(source));
}

std::shared_ptr<const LineSource> RunModel::lineSource() const
{
    return m_lines->source();
}

void RunModel::setReadBackSearchBudget(qint64 bytes)
{
    m_search->setReadBackBudget(bytes);
}

QByteArray RunModel::foldedSearchText(const QModelIndex &index) const
{
    return m_search->foldedText(*m_lines, static_cast<const Node *>(index.internalPointer()));
}

void RunModel::dropSearchTexts()
{
    m_search->drop(m_tree.root.get());
}

bool RunModel::matchesWords(const QModelIndex &index, const QList<QByteArray> &words) const
{
    return m_search->matches(*m_lines, static_cast<const Node *>(index.internalPointer()), words);
}

int RunModel::filterMemo(const QModelIndex &index, quint32 generation) const
{
    return RunSearchIndex::memo(static_cast<const Node *>(index.internalPointer()), generation);
}

void RunModel::setFilterMemo(const QModelIndex &index, quint32 generation, bool matches) const
{
    RunSearchIndex::setMemo(
        static_cast<const Node *>(index.internalPointer()), generation, matches);
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

bool RunModel::isRunning() const
{
    return !m_tree.runEnded && m_tree.run->status == Status::Running;
}

QModelIndex RunModel::runIndex() const
{
    return indexOf(m_tree.run);
}

QModelIndex RunModel::indexForToolUseId(const QString &toolUseId, int column) const
{
    return indexOf(m_tree.toolsById.value(toolUseId), column);
}

RunSummary RunModel::summary() const
{
    if (m_tree.restored)
        return m_tree.restoredSummary;
    return m_tree.summary.summary(m_tree.runEnded, m_tree.runEnded ? m_tree.run->endedMs : -1);
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
    static const std::pair<Role, const char *> roles[] = {{KindRole, "kind"},
        {StatusRole, "status"}, {ToolNameRole, "toolName"}, {ToolKindRole, "toolKind"},
        {ToolUseIdRole, "toolUseId"}, {ParentToolUseIdRole, "parentToolUseId"},
        {MessageIdRole, "messageId"}, {SummaryRole, "summary"}, {TextRole, "text"},
        {RawJsonRole, "rawJson"}, {RawLineRole, "rawLine"}, {ResultRawJsonRole, "resultRawJson"},
        {DetailRole, "detail"}, {IsErrorRole, "isError"}, {FilePathRole, "filePath"},
        {DurationMsRole, "durationMs"}, {StartedAtMsRole, "startedAtMs"},
        {InputTokensRole, "inputTokens"}, {OutputTokensRole, "outputTokens"},
        {CostUsdRole, "costUsd"}, {ClaudeDurationMsRole, "claudeDurationMs"},
        {LineNumberRole, "lineNumber"}, {CacheReadTokensRole, "cacheReadTokens"},
        {CacheCreationTokensRole, "cacheCreationTokens"}, {ToolCallsRole, "toolCalls"},
        {ErrorsRole, "errors"}};
    QHash<int, QByteArray> names = QAbstractItemModel::roleNames();
    for (const auto &[role, name] : roles)
        names.insert(role, name);
    return names;
}

QVariant RunModel::displayData(const Node *node, int column) const
{
    switch (column) {
    case SummaryColumn:
        // A file name or command from the run cannot reorder or break the row (issue 27); the
        // node keeps the exact text for exports, search and the details.
        return TerminalSafe::name(node->summaryText());
    case StatusColumn:
        return runtext::statusText(node->status);
    case DurationColumn: {
        const qint64 ms = node->durationMs();
        if (ms < 0 && node->kind == NodeKind::Result && node->reportedDurationMs >= 0)
            return QStringLiteral("claude %1").arg(format::duration(node->reportedDurationMs));
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
        if (index.column() == DurationColumn && node->reportedDurationMs >= 0)
            return tr("From its first line to its end on the run's clock; claude's own "
                      "duration_ms: %1")
                .arg(format::duration(node->reportedDurationMs));
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
    case ClaudeDurationMsRole:
        return node->reportedDurationMs >= 0 ? QVariant(node->reportedDurationMs) : QVariant();
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

RunModel::Node *RunModel::appendNode(Node *parent, std::unique_ptr<Node> node)
{
    const int row = int(parent->children.size());
    if (!parent->parked.empty()) {
        // Playing events again after a jump back: the node put aside at this row was most
        // likely this one later on, so its subtree stays put aside under the new node.
        const std::unique_ptr<Node> earlier = std::move(parent->parked.back());
        parent->parked.pop_back();
        earlier->park(0);
        node->parked = std::move(earlier->parked);
    }
    if (!m_rebuilding)
        beginInsertRows(indexOf(parent), row, row);
    node->parent = parent;
    node->row = row;
    Node *added = node.get();
    parent->children.push_back(std::move(node));
    ++m_tree.nodeCount;
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
    if (m_tree.turn)
        return m_tree.turn;
    if (m_tree.runEnded) {
        // A follow-up resumed the session after a stopped turn: the run is live again, so a
        // later end marks this turn's open calls too.
        m_tree.runEnded = false;
        m_tree.run->status = Status::Running;
        m_tree.run->endedMs = -1;
        changed(m_tree.run);
    }
    // A new turn makes a settled run live again; its totals so far were the finished turns'.
    if (m_tree.run->status != Status::Running) {
        m_tree.run->status = Status::Running;
        m_tree.run->reportedDurationMs = -1;
        changed(m_tree.run);
    }
    auto turn = std::make_unique<Node>();
    turn->kind = NodeKind::Turn;
    turn->status = Status::Running;
    turn->title = QStringLiteral("Turn %1").arg(++m_tree.turnCount);
    turn->startedMs = arrivalMs;
    m_tree.turn = appendNode(m_tree.run, std::move(turn));
    m_tree.turns.push_back(m_tree.turn);
    return m_tree.turn;
}

// Each system/init starts a turn. Lines that came before the first init of a turn (such as
// system/status for /compact) are kept in the turn the init then adopts.
RunModel::Node *RunModel::startTurn(const RunEvent &event)
{
    if (!m_tree.turn || m_tree.turn->hasInit || m_tree.turn->ended)
        m_tree.turn = nullptr;
    Node *turn = currentTurn(event.arrivalMs);
    turn->hasInit = true;
    turn->model = interned(event.model);
    turn->raw = event.raw;
    turn->rawRef = event.rawRef;
    turn->lineNumber = event.lineNumber;
    turn->text = event.cwd;
    if (!event.model.isEmpty())
        turn->title = QStringLiteral("Turn %1 · %2").arg(m_tree.turnCount).arg(event.model);
    changed(turn);

    if (m_tree.run->raw.isEmpty() && !m_tree.run->rawRef.isValid()) {
        m_tree.run->raw = event.raw;
        m_tree.run->rawRef = event.rawRef;
        m_tree.run->startedMs = m_tree.run->startedMs < 0 ? event.arrivalMs : m_tree.run->startedMs;
    }
    m_tree.run->model = interned(event.model);
    m_tree.run->text = event.cwd;
    QString title = QStringLiteral("Run");
    if (!event.sessionId.isEmpty())
        title += QStringLiteral(" · session ") + event.sessionId.left(8);
    if (!event.model.isEmpty())
        title += QStringLiteral(" · ") + event.model;
    if (!event.cliVersion.isEmpty())
        title += QStringLiteral(" · claude ") + event.cliVersion;
    m_tree.run->title = title;
    changed(m_tree.run);
    return turn;
}

RunModel::Node *RunModel::toolNode(const QString &toolUseId, Node *placeholderParent)
{
    if (Node *existing = m_tree.toolsById.value(toolUseId))
        return existing;
    // Seen by reference before its tool_use (a result, a sub-agent line, a task event):
    // a placeholder that the tool_use fills in when it arrives.
    auto node = std::make_unique<Node>();
    node->kind = NodeKind::ToolCall;
    node->toolUseId = toolUseId;
    Node *added = appendNode(placeholderParent, std::move(node));
    m_tree.toolsById.insert(toolUseId, added);
    return added;
}

RunModel::Node *RunModel::contextFor(const RunEvent &event)
{
    Node *turn = currentTurn(event.arrivalMs);
    if (event.parentToolUseId.isEmpty())
        return turn;
    return toolNode(event.parentToolUseId, turn);
}

// Up to the turn, and past it only while the turn's tokens are not its results' yet.
void RunModel::addTokens(Node *owner, const TokenUsage &delta)
{
    for (Node *node = owner; node && node != m_tree.root.get(); node = node->parent) {
        if (node->kind == NodeKind::Turn && node->tokensFinal)
            return;
        node->tokens += delta;
        node->tokens.present = true;
        changed(node, TokensColumn, TokensColumn);
    }
}

// The spans of `from` and its ancestors that ended before `ms` now end at `ms` (open ones stay
// open), so a child's span stays inside its parent's. pastOpenTurn=false stops at a turn
// still open: the run's end then stays that of its last ended turn.
void RunModel::extendEnds(Node *from, qint64 ms, bool pastOpenTurn)
{
    for (Node *node = from; node && node != m_tree.root.get(); node = node->parent) {
        if (!pastOpenTurn && node->kind == NodeKind::Turn && !node->ended)
            return;
        if (node->endedMs >= 0 && node->endedMs < ms) {
            node->endedMs = ms;
            changed(node, DurationColumn, DurationColumn);
        }
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
    for (Node *node = owner; node && node != m_tree.root.get(); node = node->parent) {
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
    Node *node = event.toolUseId.isEmpty() ? nullptr : m_tree.toolsById.value(event.toolUseId);
    bool created = false;
    if (!node) {
        Node *parent = contextFor(event);
        // A call naming itself as its parent got its placeholder from contextFor().
        node = event.toolUseId.isEmpty() ? nullptr : m_tree.toolsById.value(event.toolUseId);
        if (!node) {
            node = addLeaf(NodeKind::ToolCall, parent, event, QString());
            created = true;
            node->toolUseId = event.toolUseId;
            if (!event.toolUseId.isEmpty())
                m_tree.toolsById.insert(event.toolUseId, node);
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
    node->toolKind = runtext::toolKindOf(event.toolName);
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
        m_tree.openTools.insert(node);
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
    // A call that ends after its parent did (a background agent's, returned at launch) ends
    // inside it: the parent, its turn and the run last until then (RunSummaryBuilder alike).
    extendEnds(node->parent, event.arrivalMs, false);
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
        m_tree.openTools.remove(node);
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
    RunTreeState::MessageAccount *account = m_tree.messages.find(event.messageId);
    if (!account) {
        Node *owner = contextFor(event);
        account = &m_tree.messages.insert(
            event.messageId, RunTreeState::MessageAccount {TokenUsage(), owner});
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
            tool->toolKind = runtext::toolKindOf(event.toolName);
        }
        tool->status = Status::Denied;
        tool->isError = true;
        m_tree.openTools.remove(tool);
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
        node = m_tree.tasksById.value(update.taskId);
    if (!node) {
        addLeaf(NodeKind::SystemNotice, currentTurn(event.arrivalMs), event,
            event.subtype + QStringLiteral(": ") + update.status,
            event.isError ? Status::Error : Status::None);
        return;
    }
    if (!update.taskId.isEmpty())
        m_tree.tasksById.insert(update.taskId, node);

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

    // A task that ends after its turn (a background agent) ends inside it: the turn and the
    // run last until then (RunSummaryBuilder::addTask moves the run's end alike).
    if (runtask::isEnded(update.status))
        extendEnds(node->parent, event.arrivalMs);
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
            m_tree.openTools.remove(node);
        }
    }
    changed(node);
}

void RunModel::onResult(const RunEvent &event)
{
    const ResultInfo &result = event.result;
    // Results close turns in order: a result held back behind a background agent arrives
    // after the next turn's init and still belongs to the earlier turn.
    while (m_tree.firstOpenTurn < m_tree.turns.size() && m_tree.turns[m_tree.firstOpenTurn]->ended)
        ++m_tree.firstOpenTurn;
    Node *turn = m_tree.firstOpenTurn < m_tree.turns.size() ? m_tree.turns[m_tree.firstOpenTurn]
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

    setTurnTokens(turn, leaf->tokens);
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
            += result.hasTurnCost ? result.turnCostUsd : result.totalCostUsd - m_tree.lastTotalCost;
        turn->hasCost = true;
    }
    changed(turn);

    if (result.hasCost) {
        m_tree.lastTotalCost = result.totalCostUsd;
        m_tree.run->costUsd = result.totalCostUsd;
        m_tree.run->hasCost = true;
    }
    m_tree.run->endedMs = event.arrivalMs;
    m_tree.run->isError = result.isError;
    settleRunIfAllTurnsEnded(result.isError);

    for (const QString &id : result.deniedToolUseIds) {
        if (Node *tool = m_tree.toolsById.value(id)) {
            tool->isError = true;
            countError(tool);
            setStatus(tool, Status::Denied);
            m_tree.openTools.remove(tool);
            changed(tool);
        }
    }
}

// A turn's tokens become its results' usage (final; RunSummaryBuilder::addResult does the
// same), and the run's follow.
void RunModel::setTurnTokens(Node *turn, const TokenUsage &result)
{
    TokenUsage final = turn->tokensFinal ? turn->tokens : TokenUsage();
    final += result;
    final.present = true;
    TokenUsage &run = m_tree.run->tokens;
    const auto moved = [](qint64 total, qint64 before, qint64 after) {
        return saturatingAdd(std::max<qint64>(0, total - before), after);
    };
    run.inputTokens = moved(run.inputTokens, turn->tokens.inputTokens, final.inputTokens);
    run.outputTokens = moved(run.outputTokens, turn->tokens.outputTokens, final.outputTokens);
    run.cacheReadInputTokens = moved(
        run.cacheReadInputTokens, turn->tokens.cacheReadInputTokens, final.cacheReadInputTokens);
    run.cacheCreationInputTokens = moved(run.cacheCreationInputTokens,
        turn->tokens.cacheCreationInputTokens, final.cacheCreationInputTokens);
    run.present = true;
    run.invalid = run.invalid || final.invalid;
    turn->tokens = final;
    turn->tokensFinal = true;
    changed(m_tree.run, TokensColumn, TokensColumn);
}

// Between turns the run is settled with its last turn's outcome; claude's duration of the run is
// its turns' duration_ms summed (its span on the run's clock is another fact: durationMs()).
// Counted as turns end, not by walking them per result: a 100 MB capture has thousands.
void RunModel::settleRunIfAllTurnsEnded(bool isError)
{
    if (m_tree.endedTurns == m_tree.turns.size()) {
        m_tree.run->status = isError ? Status::Error : Status::Ok;
        m_tree.run->reportedDurationMs = m_tree.turnDurationKnown ? m_tree.turnDurationSum : -1;
    }
    changed(m_tree.run);
}

void RunModel::markTurnEnded(Node *turn)
{
    if (!turn->ended)
        ++m_tree.endedTurns;
    turn->ended = true;
}

// The reported duration of an ended turn went from `before` to `after` (-1: none).
void RunModel::countTurnDuration(qint64 before, qint64 after)
{
    m_tree.turnDurationSum += std::max<qint64>(0, after) - std::max<qint64>(0, before);
    m_tree.turnDurationKnown = m_tree.turnDurationKnown || after >= 0;
}

// A transcript turn ends at cost-state (`claude -p`) or turn_duration (the REPL); its outcome is
// what happened in it (an API error marks it). Returns the turn it ended, if one was open.
RunModel::Node *RunModel::endTranscriptTurn(const RunEvent &event)
{
    Node *turn = m_tree.turn && !m_tree.turn->ended ? m_tree.turn : nullptr;
    if (turn) {
        // A turn that ended on an API error failed (the stream's result would say so).
        turn->isError = turn->isError
            || (!turn->children.empty() && turn->children.back()->kind == NodeKind::ApiError);
        markTurnEnded(turn);
        countTurnDuration(-1, turn->reportedDurationMs);
        turn->status = turn->isError ? Status::Error : Status::Ok;
        turn->endedMs = event.arrivalMs;
        changed(turn);
    }
    m_tree.run->endedMs = event.arrivalMs;
    return turn;
}

// The REPL's own duration of the turn, summed as results' duration_ms are (RunSummaryBuilder).
void RunModel::onTurnDuration(const RunEvent &event)
{
    Node *turn = m_tree.turn;
    if (turn && event.result.durationMs >= 0) {
        const qint64 before = turn->ended ? turn->reportedDurationMs : -1;
        turn->reportedDurationMs
            = saturatingAdd(std::max<qint64>(0, turn->reportedDurationMs), event.result.durationMs);
        countTurnDuration(before, turn->ended ? turn->reportedDurationMs : -1);
        changed(turn);
    }
    Node *ended = endTranscriptTurn(event);
    m_tree.run->isError = ended ? ended->isError : m_tree.run->isError;
    settleRunIfAllTurnsEnded(m_tree.run->isError);
}

void RunModel::onSessionCost(const RunEvent &event)
{
    Node *turn = endTranscriptTurn(event);
    if (event.result.hasCost) {
        // Cumulative while the process lives; a new process may start again from zero.
        const double total = event.result.totalCostUsd;
        const double delta = total >= m_tree.lastTotalCost ? total - m_tree.lastTotalCost : total;
        m_tree.lastTotalCost = total;
        if (turn) {
            turn->costUsd += delta;
            turn->hasCost = true;
        }
        m_tree.run->costUsd += delta;
        m_tree.run->hasCost = true;
    }
    m_tree.run->isError = turn && turn->isError;
    settleRunIfAllTurnsEnded(m_tree.run->isError);
}

// A transcript's turn learns its model from the first answer, not from an init line.
void RunModel::adoptModel(const QString &model)
{
    if (!m_tree.turn || !m_tree.turn->model.isEmpty() || model.isEmpty()
        || model == QLatin1String("<synthetic>"))
        return;
    m_tree.turn->model = interned(model);
    m_tree.turn->title = QStringLiteral("Turn %1 · %2").arg(m_tree.turnCount).arg(model);
    changed(m_tree.turn);
    if (m_tree.run->model.isEmpty()) {
        m_tree.run->model = interned(model);
        m_tree.run->title += QStringLiteral(" · ") + model;
        changed(m_tree.run);
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
    m_tree.summary.add(event);
    // A transcript's records before its first timed one have no time (-1): the run, and a turn
    // they opened, start at the first time that comes.
    for (Node *node : {m_tree.run, m_tree.turn}) {
        if (node && node->startedMs < 0 && event.arrivalMs >= 0) {
            node->startedMs = event.arrivalMs;
            changed(node, DurationColumn, DurationColumn);
        }
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
        if (m_tree.turn && m_tree.turn->ended)
            m_tree.turn = nullptr;
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
    case RunEvent::TurnDuration:
        onTurnDuration(event);
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
    if (m_tree.runEnded)
        return;
    m_tree.runEnded = true;
    for (Node *tool : std::as_const(m_tree.openTools)) {
        tool->status = Status::Interrupted;
        changed(tool, StatusColumn, StatusColumn);
    }
    m_tree.openTools.clear();
    for (Node *turn : m_tree.turns) {
        if (!turn->ended) {
            turn->status = Status::Interrupted;
            turn->endedMs = arrivalMs;
            changed(turn);
        }
    }
    m_tree.run->endedMs = arrivalMs;
    // The run's outcome is its last turn's (runfacts::outcomeOf): a run that ended in the
    // middle of a turn was interrupted, whatever earlier turns did.
    if (m_tree.turns.empty() || !m_tree.turns.back()->ended)
        m_tree.run->status = Status::Interrupted;
    else
        m_tree.run->status = m_tree.run->isError ? Status::Error : Status::Ok;
    changed(m_tree.run);
    if (!m_rebuilding)
        Q_EMIT summaryChanged();
}

qint64 RunModel::snapshotBytes(const Snapshot &snapshot, const Snapshot *previous)
{
    return RunSnapshots::bytes(snapshot, previous);
}

qint64 RunModel::snapshotNodeCount(const Snapshot &snapshot)
{
    return RunSnapshots::nodeCount(snapshot);
}

std::shared_ptr<const RunModel::Snapshot> RunModel::saveSnapshot(const Snapshot *previous) const
{
    return RunSnapshots::save(m_tree, previous);
}

void RunModel::beginRebuild(const Snapshot *snapshot)
{
    beginResetModel();
    m_rebuilding = true;
    RunSnapshots::putBack(m_tree, snapshot);
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
    auto garbage = RunSnapshots::takeOver(m_tree, other.m_tree);
    endResetModel();
    RunSnapshots::releaseInBackground(std::move(garbage));
    Q_EMIT summaryChanged();
    other.beginRebuild(nullptr); // an empty run again
    other.endRebuild();
}

RunNodeRecord RunModel::record(const QModelIndex &index) const
{
    return RunTreeRecords::record(
        index.isValid() ? static_cast<const Node *>(index.internalPointer()) : m_tree.run,
        *m_lines);
}

bool RunModel::restore(const RunNodeRecord &run, const RunSummary &summary)
{
    if (!m_tree.run->children.empty() || m_tree.restored)
        return false;
    beginResetModel();
    const bool restored = RunTreeRecords::restore(m_tree, run, summary);
    endResetModel();
    Q_EMIT summaryChanged();
    return restored;
}

} // namespace sandscope
