#pragma once
// Every Claude Code session of a user found on the server (sessiondiscovery::allSessions) as a
// table for the Sessions page. A refresh updates the rows in place, keyed by transcript path,
// so the view keeps its selection and scroll position while the page polls the server. Every
// user's sessions of a fleet arrive member by member (FleetFanOut): each member's rows are
// merged in as they come, keyed by member and path, and a Member column names where they live.

#include "sessions/sessiondiscovery.h"
#include "util/membercolumnmodel.h"

#include <QDateTime>
#include <QHash>
#include <QString>
#include <QVector>

namespace sandscope {

class SessionListModel : public MemberColumnTableModel {
    Q_OBJECT
public:
    enum Column {
        TitleColumn,
        ChatColumn,
        StartedColumn,
        LastActivityColumn,
        TurnsColumn,
        ToolCallsColumn,
        SizeColumn,
        ModelColumn,
        CostColumn,
        StateColumn,
        MemberColumn, // only while showsMembers(): columnCount() is ColumnCount - 1 otherwise
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // raw values: QDateTime, qint64, int, double
        SessionRole, // the DiscoveredSession
        RunningRole, // bool; the view shows running rows in bold (a font is a GUI type)
    };

    // What Sandscope itself knows of a session's process. It beats the listing's guess
    // (DiscoveredSession::running: the transcript written in the last 30 s, which a finished
    // session keeps for 30 s) until the transcript is written after the end was learnt.
    enum class Knowledge {
        Unknown, // only the guess
        RunningHere, // Sandscope runs it and its process has not ended
        EndedHere, // Sandscope ran it and its process ended
        EndSeen, // a tab following it saw its turn end (the CLI wrote its cost record)
    };

    explicit SessionListModel(QObject *parent = nullptr)
        : MemberColumnTableModel(parent)
    {
    }

    // Replaces the rows with `sessions` without a reset: rows whose transcript path is still
    // listed stay where they are (dataChanged when something changed), vanished ones are
    // removed and new ones appended. `home` turns cwds under it into ~/... in the Chat column.
    void setSessions(const QVector<DiscoveredSession> &sessions, const QString &home = {});
    void setListing(const sessiondiscovery::Listing &listing);
    // Replaces only the rows of `member` (as setSessions does for all of them): the rows of
    // the other members stay, unchanged. A member's first answer appends its rows.
    void setMemberSessions(const QString &member, const QVector<DiscoveredSession> &sessions);
    // A streamed batch of `member`'s sessions (sessiondiscovery's batches): new rows appended,
    // known ones updated in place, none removed; the cost grows with the batch, not the list.
    void addMemberSessions(const QString &member, const QVector<DiscoveredSession> &batch);
    // The Member column (a fleet): inserted or removed as a column, the rows kept.
    void setShowsMembers(bool shows);
    // Another user or server: a reset, since nothing of the old rows applies.
    void clear();

    const QVector<DiscoveredSession> &sessions() const { return m_sessions; }
    const DiscoveredSession &session(int row) const { return m_sessions.at(row); }
    QString home() const { return m_home; }
    int runningCount() const;
    // `knowledge` of the session `sessionId`, learnt `atUtc` (now when invalid); Unknown
    // forgets it. Its row changes at once.
    void setKnowledge(
        const QString &sessionId, Knowledge knowledge, const QDateTime &atUtc = QDateTime());
    Knowledge knowledge(const QString &sessionId) const;
    // Whether the row says "running now": what is known, else the listing's guess.
    bool isRunning(const DiscoveredSession &session) const;
    // Why: which of the two decided, for the State column's tool tip.
    QString runningReason(const DiscoveredSession &session) const;
    // The row of the transcript at `path`, or -1.
    int rowOfPath(const QString &path) const;
    // `bytes` were written to the transcript at `path` at `atUtc` (pushed, SessionActivity):
    // its row's last activity, size and "running now" change in place.
    void noteWritten(const QString &path, qint64 bytes, const QDateTime &atUtc);
    // Rows written last more than runningSeconds before `nowUtc` stop running; returns how
    // many rows still run by the listing's measure (0: nothing left to expire).
    int expireRunning(const QDateTime &nowUtc);

    // What the Chat column shows: the chat id, else the cwd with the home as ~.
    QString whereText(const DiscoveredSession &session) const;
    static QString timeText(const QDateTime &time);
    static QString costText(const DiscoveredSession &session);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

Q_SIGNALS:
    // setKnowledge changed what a session is known to be (its rows changed already).
    void knowledgeChanged(const QString &sessionId);

private:
    QVariant displayData(const DiscoveredSession &session, int column) const;
    QVariant sortData(const DiscoveredSession &session, int column) const;
    // Rows keyed by member and path: removes the rows (of `member` only when `oneMember`) not
    // in `sessions`, updates the changed ones in place and appends the new ones.
    void merge(const QVector<DiscoveredSession> &sessions, bool oneMember, const QString &member);
    void removeVanished(
        const QVector<DiscoveredSession> &sessions, bool oneMember, const QString &member);
    int lastColumn() const { return columnCount() - 1; }

    // The knowledge that applies to `session`: Unknown also when the transcript was written
    // after an end was learnt (a later turn, e.g. Open WebUI resuming it).
    Knowledge knowledgeFor(const DiscoveredSession &session) const;

    QVector<DiscoveredSession> m_sessions;
    QHash<QString, QHash<QString, int>> m_streamedRows; // member -> row key -> row (batches)
    QString m_home;
    struct Known {
        Knowledge knowledge = Knowledge::Unknown;
        QDateTime atUtc;
    };
    QHash<QString, Known> m_known; // by session id
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::DiscoveredSession)
