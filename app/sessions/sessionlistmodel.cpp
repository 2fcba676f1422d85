#include "sessionlistmodel.h"

#include "claude/demomodel.h"
#include "util/format.h"
#include "util/terminalsafe.h"

#include <QDir>
#include <QHash>
#include <QSet>

#include <algorithm>

namespace sandscope {

namespace {

bool sameSession(const DiscoveredSession &a, const DiscoveredSession &b)
{
    return a.chatId == b.chatId && a.sessionId == b.sessionId && a.cwd == b.cwd && a.path == b.path
        && a.projectDirectory == b.projectDirectory && a.lastActivity == b.lastActivity
        && a.size == b.size && a.title == b.title && a.started == b.started && a.turns == b.turns
        && a.toolCalls == b.toolCalls && a.model == b.model && a.hasCost == b.hasCost
        && a.costUsd == b.costUsd && a.running == b.running && a.home == b.home
        && a.member == b.member;
}

// Two members may hold the same path (a user with a home on both, after a resize).
QString rowKey(const DiscoveredSession &session)
{
    return session.member + QLatin1Char('\n') + session.path;
}

} // namespace

void SessionListModel::setListing(const sessiondiscovery::Listing &listing)
{
    setSessions(sessiondiscovery::allSessions(listing), listing.home);
}

void SessionListModel::setSessions(const QVector<DiscoveredSession> &sessions, const QString &home)
{
    const bool homeChanged = home != m_home;
    m_home = home;
    merge(sessions, false, QString());
    if (homeChanged && !m_sessions.isEmpty())
        Q_EMIT dataChanged(index(0, ChatColumn), index(int(m_sessions.size()) - 1, ChatColumn));
}

void SessionListModel::setMemberSessions(
    const QString &member, const QVector<DiscoveredSession> &sessions)
{
    merge(sessions, true, member);
}

void SessionListModel::addMemberSessions(
    const QString &member, const QVector<DiscoveredSession> &batch)
{
    // Only the batch's keys are looked up: the rows of this member so far are indexed once.
    QHash<QString, int> &rows = m_streamedRows[member];
    if (rows.isEmpty()) {
        for (int row = 0; row < m_sessions.size(); ++row) {
            if (m_sessions.at(row).member == member)
                rows.insert(rowKey(m_sessions.at(row)), row);
        }
    }
    QVector<DiscoveredSession> added;
    for (const DiscoveredSession &session : batch) {
        if (session.member != member)
            continue;
        const QString key = rowKey(session);
        const auto known = rows.constFind(key);
        if (known == rows.constEnd()) {
            rows.insert(key, int(m_sessions.size() + added.size()));
            added.append(session);
        } else if (!sameSession(m_sessions.at(known.value()), session)) {
            m_sessions[known.value()] = session;
            Q_EMIT dataChanged(index(known.value(), 0), index(known.value(), lastColumn()));
        }
    }
    if (added.isEmpty())
        return;
    const int first = int(m_sessions.size());
    beginInsertRows({}, first, first + int(added.size()) - 1);
    m_sessions += added;
    endInsertRows();
}

void SessionListModel::setShowsMembers(bool shows)
{
    showMemberColumn(shows, MemberColumn);
}

void SessionListModel::merge(
    const QVector<DiscoveredSession> &sessions, bool oneMember, const QString &member)
{
    m_streamedRows.clear(); // indexed again by the next batch
    removeVanished(sessions, oneMember, member);

    QHash<QString, int> rowByKey;
    for (int row = 0; row < m_sessions.size(); ++row)
        rowByKey.insert(rowKey(m_sessions.at(row)), row);

    QVector<DiscoveredSession> added;
    QSet<QString> seen;
    for (const DiscoveredSession &session : sessions) {
        if (oneMember && session.member != member)
            continue; // not this member's to change
        const QString key = rowKey(session);
        if (seen.contains(key))
            continue; // a path is one row
        seen.insert(key);
        const auto existing = rowByKey.constFind(key);
        if (existing == rowByKey.constEnd()) {
            added.append(session);
            continue;
        }
        const int row = existing.value();
        if (sameSession(m_sessions.at(row), session))
            continue;
        m_sessions[row] = session;
        Q_EMIT dataChanged(index(row, 0), index(row, lastColumn()));
    }

    if (!added.isEmpty()) {
        const int first = int(m_sessions.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        m_sessions += added;
        endInsertRows();
    }
}

void SessionListModel::removeVanished(
    const QVector<DiscoveredSession> &sessions, bool oneMember, const QString &member)
{
    QSet<QString> listed;
    for (const DiscoveredSession &session : sessions)
        listed.insert(rowKey(session));
    const auto stays = [&](const DiscoveredSession &session) {
        return (oneMember && session.member != member) || listed.contains(rowKey(session));
    };
    // From the end, one contiguous range at a time, so the rows before stay valid.
    int row = int(m_sessions.size()) - 1;
    while (row >= 0) {
        if (stays(m_sessions.at(row))) {
            --row;
            continue;
        }
        const int last = row;
        while (row >= 0 && !stays(m_sessions.at(row)))
            --row;
        const int first = row + 1;
        beginRemoveRows({}, first, last);
        m_sessions.remove(first, last - first + 1);
        m_streamedRows.clear(); // the rows after moved
        endRemoveRows();
    }
}

void SessionListModel::clear()
{
    beginResetModel();
    m_sessions.clear();
    m_streamedRows.clear();
    m_home.clear();
    endResetModel();
}

void SessionListModel::setKnowledge(
    const QString &sessionId, Knowledge knowledge, const QDateTime &atUtc)
{
    if (knowledge == Knowledge::Unknown)
        m_known.remove(sessionId);
    else
        m_known.insert(
            sessionId, {knowledge, atUtc.isValid() ? atUtc : QDateTime::currentDateTimeUtc()});
    for (int row = 0; row < m_sessions.size(); ++row) {
        if (m_sessions.at(row).sessionId == sessionId)
            Q_EMIT dataChanged(index(row, 0), index(row, lastColumn()));
    }
    Q_EMIT knowledgeChanged(sessionId);
}

void SessionListModel::noteWritten(const QString &path, qint64 bytes, const QDateTime &atUtc)
{
    const int row = rowOfPath(path);
    if (row < 0)
        return;
    DiscoveredSession &session = m_sessions[row];
    session.size += bytes;
    session.lastActivity = atUtc;
    session.running = true;
    Q_EMIT dataChanged(index(row, 0), index(row, lastColumn()));
}

int SessionListModel::expireRunning(const QDateTime &nowUtc)
{
    int stillRunning = 0;
    for (int row = 0; row < m_sessions.size(); ++row) {
        DiscoveredSession &session = m_sessions[row];
        if (!session.running)
            continue;
        if (session.lastActivity.secsTo(nowUtc) <= sessiondiscovery::runningSeconds) {
            ++stillRunning;
            continue;
        }
        session.running = false;
        Q_EMIT dataChanged(index(row, 0), index(row, lastColumn()));
    }
    return stillRunning;
}

SessionListModel::Knowledge SessionListModel::knowledge(const QString &sessionId) const
{
    return m_known.value(sessionId).knowledge;
}

SessionListModel::Knowledge SessionListModel::knowledgeFor(const DiscoveredSession &session) const
{
    const auto known = m_known.constFind(session.sessionId);
    if (known == m_known.constEnd())
        return Knowledge::Unknown;
    // The end's last writes (the cost record, the result) land at about the same moment; a
    // write well after it is a later turn. The two clocks (the server's modification time,
    // this machine's) are allowed to differ by that margin.
    constexpr int afterEndSeconds = 5;
    if (known->knowledge != Knowledge::RunningHere && session.lastActivity.isValid()
        && session.lastActivity > known->atUtc.addSecs(afterEndSeconds))
        return Knowledge::Unknown;
    return known->knowledge;
}

bool SessionListModel::isRunning(const DiscoveredSession &session) const
{
    switch (knowledgeFor(session)) {
    case Knowledge::RunningHere:
        return true;
    case Knowledge::EndedHere:
    case Knowledge::EndSeen:
        return false;
    case Knowledge::Unknown:
        break;
    }
    return session.running;
}

QString SessionListModel::runningReason(const DiscoveredSession &session) const
{
    switch (knowledgeFor(session)) {
    case Knowledge::RunningHere:
        return tr("Running now: Sandscope runs this session and its process has not ended.");
    case Knowledge::EndedHere:
        return tr("Not running: Sandscope ran this session and its process has ended.");
    case Knowledge::EndSeen:
        return tr("Not running: the tab following this session saw its turn end.");
    case Knowledge::Unknown:
        break;
    }
    return session.running
        ? tr("Running now, by a guess: the transcript was written in the last %1 s (nothing "
             "else is known of its process).")
              .arg(sessiondiscovery::runningSeconds)
        : tr("Not running, by a guess: the transcript was not written in the last %1 s "
             "(nothing else is known of its process).")
              .arg(sessiondiscovery::runningSeconds);
}

int SessionListModel::runningCount() const
{
    return int(std::count_if(m_sessions.cbegin(), m_sessions.cend(),
        [this](const DiscoveredSession &session) { return isRunning(session); }));
}

int SessionListModel::rowOfPath(const QString &path) const
{
    for (int row = 0; row < m_sessions.size(); ++row) {
        if (m_sessions.at(row).path == path)
            return row;
    }
    return -1;
}

QString SessionListModel::whereText(const DiscoveredSession &session) const
{
    // Rows of several homes (every user's sessions) name their account first.
    if (!session.home.isEmpty() && session.home != m_home) {
        const QString account = session.home.mid(session.home.lastIndexOf(QLatin1Char('/')) + 1);
        if (!session.chatId.isEmpty())
            return account + QStringLiteral(" · ") + session.chatId;
        return account + QStringLiteral(" · ")
            + (session.cwd.startsWith(session.home + QLatin1Char('/'))
                    ? QStringLiteral("~") + session.cwd.mid(session.home.size())
                    : session.cwd);
    }
    if (!session.chatId.isEmpty())
        return session.chatId;
    if (session.cwd.isEmpty())
        return session.projectDirectory; // the escaped cwd is all there is
    if (!m_home.isEmpty()) {
        if (session.cwd == m_home)
            return QStringLiteral("~");
        if (session.cwd.startsWith(m_home + QLatin1Char('/')))
            return QStringLiteral("~") + session.cwd.mid(m_home.size());
    }
    return session.cwd;
}

QString SessionListModel::timeText(const QDateTime &time)
{
    return time.isValid() ? time.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"))
                          : QString();
}

QString SessionListModel::costText(const DiscoveredSession &session)
{
    return session.hasCost ? QStringLiteral("$%1").arg(session.costUsd, 0, 'f', 4) : QString();
}

int SessionListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_sessions.size());
}

int SessionListModel::columnCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    return showsMembers() ? ColumnCount : ColumnCount - 1;
}

QVariant SessionListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const DiscoveredSession &session = m_sessions.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return displayData(session, index.column());
    case SortRole:
        return sortData(session, index.column());
    case SessionRole:
        return QVariant::fromValue(session);
    case RunningRole:
        return isRunning(session);
    case Qt::ToolTipRole:
        if (index.column() == StateColumn)
            return runningReason(session);
        if (index.column() == TitleColumn || index.column() == ChatColumn) {
            const QString title = session.title.isEmpty() ? tr("(no prompt)") : session.title;
            const QString text
                = tr("%1\n\nSession %2\n%3").arg(title, session.sessionId, session.path);
            return session.member.isEmpty()
                ? text
                : text + tr("\non member %1").arg(TerminalSafe::name(session.member));
        }
        return {};
    case Qt::TextAlignmentRole:
        switch (index.column()) {
        case TurnsColumn:
        case ToolCallsColumn:
        case SizeColumn:
        case CostColumn:
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return {};
        }
    default:
        return {};
    }
}

QVariant SessionListModel::displayData(const DiscoveredSession &session, int column) const
{
    switch (column) {
    case TitleColumn:
        return session.title.isEmpty() ? tr("(no prompt)") : TerminalSafe::name(session.title);
    case ChatColumn:
        return TerminalSafe::name(whereText(session));
    case StartedColumn:
        return timeText(session.started);
    case LastActivityColumn:
        return timeText(session.lastActivity);
    case TurnsColumn:
        return session.turns;
    case ToolCallsColumn:
        return session.toolCalls;
    case SizeColumn:
        return format::byteSize(session.size);
    case ModelColumn:
        // The transcript's word, like the title; the demo model's said to be one.
        return TerminalSafe::name(DemoModel::describeModel(session.model));
    case CostColumn:
        return costText(session);
    case StateColumn:
        return isRunning(session) ? tr("running now") : QString();
    case MemberColumn:
        return TerminalSafe::name(session.member);
    }
    return {};
}

QVariant SessionListModel::sortData(const DiscoveredSession &session, int column) const
{
    switch (column) {
    case StartedColumn:
        return session.started;
    case LastActivityColumn:
        return session.lastActivity;
    case TurnsColumn:
        return session.turns;
    case ToolCallsColumn:
        return session.toolCalls;
    case SizeColumn:
        return session.size;
    case CostColumn:
        return session.hasCost ? session.costUsd : -1.0; // unknown below free
    case StateColumn:
        return isRunning(session) ? 1 : 0;
    default:
        return displayData(session, column).toString().toLower();
    }
}

QVariant SessionListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TitleColumn:
        return tr("Title");
    case ChatColumn:
        return tr("Chat");
    case StartedColumn:
        return tr("Started");
    case LastActivityColumn:
        return tr("Last activity");
    case TurnsColumn:
        return tr("Turns");
    case ToolCallsColumn:
        return tr("Calls");
    case SizeColumn:
        return tr("Size");
    case ModelColumn:
        return tr("Model");
    case CostColumn:
        return tr("Cost");
    case StateColumn:
        return tr("State");
    case MemberColumn:
        return showsMembers() ? tr("Member") : QVariant();
    }
    return {};
}

} // namespace sandscope
