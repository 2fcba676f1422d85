#include "sessionfilterproxy.h"

#include "sessions/sessionlistmodel.h"

namespace sandscope {

SessionFilterProxy::SessionFilterProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(SessionListModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    // Refreshed rows move to their sorted place, and rows that start to match appear.
    setDynamicSortFilter(true);
}

void SessionFilterProxy::setFilterText(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (trimmed == m_filterText)
        return;
    m_filterText = trimmed;
    invalidateFilter();
}

bool SessionFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_filterText.isEmpty())
        return true;
    const auto *sessions = qobject_cast<const SessionListModel *>(sourceModel());
    if (!sessions || sourceParent.isValid())
        return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
    const DiscoveredSession &session = sessions->session(sourceRow);
    for (const QString &text : {session.title, sessions->whereText(session), session.cwd,
             session.model, session.sessionId, session.member}) {
        if (text.contains(m_filterText, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

} // namespace sandscope
