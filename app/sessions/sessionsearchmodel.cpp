#include "sessionsearchmodel.h"

#include "util/terminalsafe.h"

namespace sandscope {

namespace {

constexpr int shortIdLength = 8;

QString oneLine(QString text)
{
    for (QChar &c : text) {
        if (c == QLatin1Char('\n') || c == QLatin1Char('\r') || c == QLatin1Char('\t'))
            c = QLatin1Char(' ');
    }
    return text;
}

} // namespace

void SessionSearchModel::setResult(const QVector<SessionSearchHit> &hits, bool truncated)
{
    beginResetModel();
    m_hits = hits;
    m_truncated = truncated;
    endResetModel();
}

void SessionSearchModel::appendHits(const QVector<SessionSearchHit> &hits, bool truncated)
{
    m_truncated = m_truncated || truncated;
    if (hits.isEmpty())
        return;
    const int first = int(m_hits.size());
    beginInsertRows({}, first, first + int(hits.size()) - 1);
    m_hits += hits;
    endInsertRows();
}

void SessionSearchModel::setShowsMembers(bool shows)
{
    showMemberColumn(shows, MemberColumn);
}

void SessionSearchModel::setTitles(const QHash<QString, QString> &titles)
{
    if (titles == m_titles)
        return;
    m_titles = titles;
    if (!m_hits.isEmpty())
        Q_EMIT dataChanged(index(0, SessionColumn), index(rowCount() - 1, SessionColumn));
}

QString SessionSearchModel::sessionText(const SessionSearchHit &hit) const
{
    const QString title = m_titles.value(hit.sessionId);
    return title.isEmpty() ? hit.sessionId.left(shortIdLength) : title;
}

int SessionSearchModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_hits.size());
}

int SessionSearchModel::columnCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    return showsMembers() ? ColumnCount : ColumnCount - 1;
}

QVariant SessionSearchModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SessionSearchHit &hit = m_hits.at(index.row());
    if (role == HitRole)
        return QVariant::fromValue(hit);
    if (role == Qt::ToolTipRole)
        return tr("%1, line %2\n\n%3").arg(hit.path).arg(hit.line).arg(hit.excerpt);
    if (role == Qt::TextAlignmentRole && index.column() == TurnColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    // Titles, names and excerpts come from the transcripts: nothing in them may reorder, hide
    // or break the row (issue 27).
    return TerminalSafe::name(displayText(hit, index.column()));
}

QString SessionSearchModel::displayText(const SessionSearchHit &hit, int column) const
{
    switch (column) {
    case SessionColumn:
        return sessionText(hit);
    case TurnColumn:
        return hit.turn > 0 ? QString::number(hit.turn) : QString(); // sub-agent files: none
    case ToolColumn:
        return hit.toolName;
    case RecordColumn:
        return hit.agentId.isEmpty() ? hit.recordType : tr("%1 (sub-agent)").arg(hit.recordType);
    case MatchColumn:
        return oneLine(hit.excerpt);
    case MemberColumn:
        return hit.member;
    }
    return {};
}

QVariant SessionSearchModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SessionColumn:
        return tr("Session");
    case TurnColumn:
        return tr("Turn");
    case ToolColumn:
        return tr("Tool");
    case RecordColumn:
        return tr("Record");
    case MatchColumn:
        return tr("Match");
    case MemberColumn:
        return showsMembers() ? tr("Member") : QVariant();
    }
    return {};
}

} // namespace sandscope
