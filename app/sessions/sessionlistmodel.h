#pragma once
// Every Claude Code session of a user found on the server (sessiondiscovery::allSessions) as a
// table for the Sessions page. A refresh updates the rows in place, keyed by transcript path,
// so the view keeps its selection and scroll position while the page polls the server.

#include "sessions/sessiondiscovery.h"

#include <QAbstractTableModel>
#include <QString>
#include <QVector>

namespace sandscope {

class SessionListModel : public QAbstractTableModel {
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
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // raw values: QDateTime, qint64, int, double
        SessionRole, // the DiscoveredSession
        RunningRole, // bool; the view shows running rows in bold (a font is a GUI type)
    };

    using QAbstractTableModel::QAbstractTableModel;

    // Replaces the rows with `sessions` without a reset: rows whose transcript path is still
    // listed stay where they are (dataChanged when something changed), vanished ones are
    // removed and new ones appended. `home` turns cwds under it into ~/... in the Chat column.
    void setSessions(const QVector<DiscoveredSession> &sessions, const QString &home = {});
    void setListing(const sessiondiscovery::Listing &listing);
    // Another user or server: a reset, since nothing of the old rows applies.
    void clear();

    const QVector<DiscoveredSession> &sessions() const { return m_sessions; }
    const DiscoveredSession &session(int row) const { return m_sessions.at(row); }
    QString home() const { return m_home; }
    int runningCount() const;
    // The row of the transcript at `path`, or -1.
    int rowOfPath(const QString &path) const;

    // What the Chat column shows: the chat id, else the cwd with the home as ~.
    QString whereText(const DiscoveredSession &session) const;
    static QString timeText(const QDateTime &time);
    static QString costText(const DiscoveredSession &session);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QVariant displayData(const DiscoveredSession &session, int column) const;
    QVariant sortData(const DiscoveredSession &session, int column) const;
    void removeVanished(const QVector<DiscoveredSession> &sessions);

    QVector<DiscoveredSession> m_sessions;
    QString m_home;
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::DiscoveredSession)
