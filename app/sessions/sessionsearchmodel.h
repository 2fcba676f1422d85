#pragma once
// The lines a transcript search found (sessionsearch), as a table in file order. Each search
// replaces the list; the session titles come from the session listing when it knows them. A
// search of a fleet's members appends each member's hits as they come, with a Member column.

#include "sessions/sessionsearch.h"
#include "util/membercolumnmodel.h"

#include <QHash>
#include <QString>
#include <QVector>

namespace sandscope {

class SessionSearchModel : public MemberColumnTableModel {
    Q_OBJECT
public:
    enum Column {
        SessionColumn,
        TurnColumn,
        ToolColumn,
        RecordColumn,
        MatchColumn,
        MemberColumn, // only while showsMembers(): columnCount() is ColumnCount - 1 otherwise
        ColumnCount
    };
    enum Role { HitRole = Qt::UserRole + 1 };

    explicit SessionSearchModel(QObject *parent = nullptr)
        : MemberColumnTableModel(parent)
    {
    }

    // A new search is a new list: a reset.
    void setResult(const QVector<SessionSearchHit> &hits, bool truncated);
    void clear() { setResult({}, false); }
    // One member's hits after those already shown (inserted rows, no reset); `truncated` when
    // that member had more.
    void appendHits(const QVector<SessionSearchHit> &hits, bool truncated);
    // The Member column (a fleet): inserted or removed as a column.
    void setShowsMembers(bool shows);
    // Session id -> title; rows of sessions without one show the id's start.
    void setTitles(const QHash<QString, QString> &titles);

    const QVector<SessionSearchHit> &hits() const { return m_hits; }
    const SessionSearchHit &hit(int row) const { return m_hits.at(row); }
    bool isTruncated() const { return m_truncated; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QString sessionText(const SessionSearchHit &hit) const;
    QString displayText(const SessionSearchHit &hit, int column) const;

    QVector<SessionSearchHit> m_hits;
    bool m_truncated = false;
    QHash<QString, QString> m_titles;
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::SessionSearchHit)
