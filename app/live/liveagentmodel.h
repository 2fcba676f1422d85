#pragma once
// The live wall's table: one row per running agent (LiveAgentRow), updated in place as the
// LiveAgentWatcher's batches arrive: rows inserted with beginInsertRows, changed with
// dataChanged, removed with beginRemoveRows, never a reset per update. The current call's
// elapsed time is kept fresh by a tick (one dataChanged of that column a second).
// LiveAgentProxy sorts it, newest activity first.

#include "live/liveagent.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QTimer>
#include <QVector>

#include <functional>

namespace sandscope {

class LiveAgentModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        UserColumn,
        ChatColumn,
        SessionColumn,
        ToolColumn,
        TokensColumn,
        CostColumn,
        LastLineColumn,
        ActivityColumn,
        MemberColumn, // a fleet's: where it runs (views hide it for one server)
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // a value per column to sort by
        AgentIdRole,
        AccountRole,
        TranscriptRole,
        SessionIdRole,
        ChatIdRole,
        CwdRole,
        HomeRole,
        PidRole,
        ActivityRole, // ms since the epoch
        ToolElapsedRole, // ms; -1 without a call running
        ProblemRole, // why its transcript cannot be read; empty when it can
        MemberRole,
    };

    explicit LiveAgentModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // A watcher's batch (LiveAgentWatcher::agentsChanged): the changes first, then the ended
    // rows removed (an agent that appeared and ended within one batch is never shown).
    void apply(const QVector<LiveAgentRow> &changed, const QList<QByteArray> &ended);
    // Every row gone (a new connection).
    void clear();
    const LiveAgentRow &agentAt(int row) const { return m_rows.at(row); }
    int rowOf(const QByteArray &id) const { return m_index.value(id, -1); }
    // The clock the elapsed times are measured on (ms since the epoch): the sandbox's
    // (LiveAgentWatcher::serverNowMs); this machine's by default.
    void setClock(std::function<qint64()> now) { m_now = std::move(now); }
    void setTickMs(int ms) { m_tick.setInterval(ms); }

    // The texts every surface shows (the CLI's table and --json use them too).
    static QString toolText(const LiveAgentRow &row, qint64 nowMs);
    static QString costText(const LiveAgentRow &row);

private:
    void tick();
    void reindex(int from);

    QVector<LiveAgentRow> m_rows;
    QHash<QByteArray, int> m_index;
    QTimer m_tick;
    std::function<qint64()> m_now;
};

} // namespace sandscope
