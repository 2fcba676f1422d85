#include "liveagentmodel.h"

#include "runtree/runnodetext.h"
#include "util/format.h"
#include "util/terminalsafe.h"

#include <QDateTime>

#include <algorithm>
#include <vector>

namespace sandscope {

LiveAgentModel::LiveAgentModel(QObject *parent)
    : QAbstractTableModel(parent)
    , m_now([] { return QDateTime::currentMSecsSinceEpoch(); })
{
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &LiveAgentModel::tick);
}

int LiveAgentModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int LiveAgentModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString LiveAgentModel::toolText(const LiveAgentRow &row, qint64 nowMs)
{
    if (row.toolName.isEmpty())
        return {};
    if (row.toolStartedMs <= 0)
        return TerminalSafe::line(row.toolName);
    return TerminalSafe::line(row.toolName) + QStringLiteral(" · ")
        + format::duration(std::max<qint64>(0, nowMs - row.toolStartedMs));
}

QString LiveAgentModel::costText(const LiveAgentRow &row)
{
    // A transcript records its cost when a turn ends (cost-state): none before that.
    return row.summary.costUsd > 0 ? runtext::costText(row.summary.costUsd) : QString();
}

QVariant LiveAgentModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const LiveAgentRow &row = m_rows.at(index.row());
    switch (role) {
    case AgentIdRole:
        return row.info.id;
    case AccountRole:
        return row.info.account;
    case TranscriptRole:
        return row.info.transcript;
    case SessionIdRole:
        return row.info.sessionId;
    case ChatIdRole:
        return row.info.chatId();
    case CwdRole:
        return row.info.cwd;
    case HomeRole:
        return row.info.home;
    case PidRole:
        return row.info.pid;
    case ActivityRole:
        return row.lastActivityMs;
    case ProblemRole:
        return row.problem;
    case MemberRole:
        return row.info.member;
    case ToolElapsedRole:
        return row.toolName.isEmpty() || row.toolStartedMs <= 0
            ? qint64(-1)
            : std::max<qint64>(0, m_now() - row.toolStartedMs);
    default:
        break;
    }
    const auto column = Column(index.column());
    if (role == SortRole) {
        switch (column) {
        case ToolColumn:
            return row.toolName;
        case TokensColumn:
            return row.summary.inputTokens + row.summary.outputTokens;
        case CostColumn:
            return row.summary.costUsd;
        case ActivityColumn:
            return row.lastActivityMs;
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::ToolTipRole) {
        if (column == LastLineColumn && !row.problem.isEmpty())
            return TerminalSafe::name(row.problem);
        if (column == SessionColumn)
            return TerminalSafe::name(row.info.transcript);
        if (column == ChatColumn)
            return TerminalSafe::name(row.info.cwd);
        if (column == UserColumn)
            return tr("%1 (uid %2), process %3")
                .arg(TerminalSafe::name(row.info.account))
                .arg(row.info.uid)
                .arg(row.info.pid);
        return {};
    }
    if (role == Qt::TextAlignmentRole) {
        if (column == TokensColumn || column == CostColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case UserColumn:
        return TerminalSafe::line(row.info.account);
    case ChatColumn:
        return TerminalSafe::line(row.info.chatId());
    case SessionColumn:
        return TerminalSafe::line(row.info.sessionId);
    case MemberColumn:
        return TerminalSafe::line(row.info.member);
    case ToolColumn:
        return toolText(row, m_now());
    case TokensColumn:
        return row.summary.inputTokens + row.summary.outputTokens > 0 || row.summary.invalidNumbers
            ? row.summary.tokensText()
            : QString();
    case CostColumn:
        return costText(row);
    case LastLineColumn:
        return TerminalSafe::line(row.problem.isEmpty() ? row.lastLine : row.problem);
    case ActivityColumn:
        return row.lastActivityMs > 0 ? QLocale().toString(
                   QDateTime::fromMSecsSinceEpoch(row.lastActivityMs).time(), QLocale::LongFormat)
                                      : QString();
    case ColumnCount:
        break;
    }
    return {};
}

QVariant LiveAgentModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case UserColumn:
        return tr("User");
    case ChatColumn:
        return tr("Chat");
    case SessionColumn:
        return tr("Session");
    case ToolColumn:
        return tr("Current tool call");
    case TokensColumn:
        return tr("Tokens");
    case CostColumn:
        return tr("Cost");
    case LastLineColumn:
        return tr("Last line");
    case ActivityColumn:
        return tr("Last activity");
    case MemberColumn:
        return tr("Member");
    case ColumnCount:
        break;
    }
    return {};
}

void LiveAgentModel::apply(const QVector<LiveAgentRow> &changed, const QList<QByteArray> &ended)
{
    QVector<LiveAgentRow> added;
    std::vector<int> updated;
    for (const LiveAgentRow &agent : changed) {
        const int row = m_index.value(agent.info.id, -1);
        if (row >= 0) {
            m_rows[row] = agent;
            updated.push_back(row);
        } else if (!ended.contains(agent.info.id)) {
            added.append(agent);
        }
    }
    // One signal per run of neighbouring rows: a proxy sorts and a view lays out once per
    // signal, and 200 agents writing change most rows in every batch.
    std::sort(updated.begin(), updated.end());
    for (size_t at = 0; at < updated.size();) {
        size_t end = at + 1;
        while (end < updated.size() && updated[end] <= updated[end - 1] + 1)
            ++end;
        Q_EMIT dataChanged(index(updated[at], 0), index(updated[end - 1], ColumnCount - 1));
        at = end;
    }
    if (!added.isEmpty()) {
        const int first = int(m_rows.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        m_rows += added;
        reindex(first);
        endInsertRows();
    }
    for (const QByteArray &id : ended) {
        const int row = m_index.value(id, -1);
        if (row < 0)
            continue;
        beginRemoveRows({}, row, row);
        m_rows.remove(row);
        m_index.remove(id);
        reindex(row);
        endRemoveRows();
    }
    if (!m_rows.isEmpty() && !m_tick.isActive())
        m_tick.start();
    else if (m_rows.isEmpty())
        m_tick.stop();
}

void LiveAgentModel::clear()
{
    if (m_rows.isEmpty())
        return;
    beginRemoveRows({}, 0, int(m_rows.size()) - 1);
    m_rows.clear();
    m_index.clear();
    endRemoveRows();
    m_tick.stop();
}

void LiveAgentModel::reindex(int from)
{
    for (int row = from; row < m_rows.size(); ++row)
        m_index.insert(m_rows.at(row).info.id, row);
}

void LiveAgentModel::tick()
{
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, ToolColumn), index(int(m_rows.size()) - 1, ToolColumn),
            {Qt::DisplayRole, ToolElapsedRole});
}

} // namespace sandscope
