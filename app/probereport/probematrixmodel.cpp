#include "probematrixmodel.h"

namespace sandscope {

ProbeMatrixModel::ProbeMatrixModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void ProbeMatrixModel::setUsers(const QStringList &users, const QMap<QString, QString> &userMembers)
{
    beginResetModel();
    m_subjects = matrixSubjects(users, userMembers);
    m_userMembers = userMembers;
    m_results.clear();
    endResetModel();
}

void ProbeMatrixModel::setReport(const ProbeReport &report)
{
    setUsers(report.users, report.userMembers);
    for (const CheckResult &result : report.results)
        addResult(result);
}

void ProbeMatrixModel::addResult(const CheckResult &result)
{
    const QString subject = result.subject();
    qsizetype column = m_subjects.indexOf(subject);
    if (column < 0) { // a pair of users the model was not set up with: before "server"
        column = std::max<qsizetype>(0, m_subjects.size() - 1);
        beginInsertColumns(QModelIndex(), int(column), int(column));
        m_subjects.insert(column, subject);
        endInsertColumns();
    }
    const QModelIndex cell = indexOf(result.check, subject);
    m_results.insert(cellKey(cell.row(), subject), result);
    Q_EMIT dataChanged(cell, cell);
}

const CheckResult *ProbeMatrixModel::resultAt(const QModelIndex &index) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return nullptr;
    const auto found = m_results.constFind(cellKey(index.row(), m_subjects.at(index.column())));
    return found == m_results.cend() ? nullptr : &found.value();
}

CheckId ProbeMatrixModel::checkAt(int row) const
{
    return allChecks().at(row).id;
}

QString ProbeMatrixModel::subjectAt(int column) const
{
    return m_subjects.value(column);
}

QModelIndex ProbeMatrixModel::indexOf(CheckId check, const QString &subject) const
{
    const QVector<CheckInfo> &checks = allChecks();
    for (int row = 0; row < checks.size(); ++row) {
        if (checks.at(row).id == check)
            return index(row, int(m_subjects.indexOf(subject)));
    }
    return {};
}

QString ProbeMatrixModel::evidenceText(const CheckResult &result)
{
    QString text;
    for (const Evidence &evidence : result.evidence) {
        if (!evidence.note.isEmpty())
            text += QStringLiteral("# ") + evidence.note + QLatin1Char('\n');
        text += evidence.request + QLatin1Char('\n');
        text += evidence.status > 0 ? QStringLiteral("HTTP %1\n").arg(evidence.status) : QString();
        if (!evidence.response.isEmpty())
            text += evidence.response + QLatin1Char('\n');
        text += QLatin1Char('\n');
    }
    return text;
}

int ProbeMatrixModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(allChecks().size());
}

int ProbeMatrixModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_subjects.size());
}

QVariant ProbeMatrixModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const CheckInfo &info = allChecks().at(index.row());
    const CheckResult *result = resultAt(index);
    switch (role) {
    case Qt::DisplayRole:
        if (!applicable(index.row(), index.column()))
            return QStringLiteral("—");
        return result ? verdictName(result->verdict) : QString();
    case Qt::ToolTipRole:
    case ExplanationRole:
        return result ? result->explanation : QVariant();
    case VerdictRole:
        return result ? QVariant(int(result->verdict)) : QVariant();
    case SeverityRole:
        return severityName(info.severity);
    case EvidenceRole:
        return result ? evidenceText(*result) : QVariant();
    case FailMeaningRole:
        return info.failMeaning;
    case CheckKeyRole:
        return info.key;
    case SubjectRole:
        return m_subjects.at(index.column());
    case ApplicableRole:
        return applicable(index.row(), index.column());
    default:
        return {};
    }
}

QVariant ProbeMatrixModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    if (orientation == Qt::Horizontal) {
        if (section < 0 || section >= m_subjects.size())
            return {};
        const QString &subject = m_subjects.at(section);
        if (subject == serverSubject())
            return role == Qt::ToolTipRole ? tr("Server-wide checks") : subject;
        if (isServerSubject(subject))
            return role == Qt::ToolTipRole
                ? tr("Server-wide checks on member %1").arg(subject.mid(serverSubject().size() + 4))
                : subject;
        // Reports key a pair "target → actor"; the column reads the way people say it: who
        // reaches whose.
        const QString target = subject.section(QStringLiteral(" → "), 0, 0);
        const QString actor = subject.section(QStringLiteral(" → "), 1);
        const QString member = m_userMembers.value(target);
        const QString actorMember = m_userMembers.value(actor);
        if (!member.isEmpty() && !actorMember.isEmpty() && actorMember != member)
            return role == Qt::ToolTipRole
                ? tr("What %1 on member %2 can reach of %3 on member %4")
                      .arg(actor, actorMember, target, member)
                : tr("%1 reaches %2 (%3 → %4)").arg(actor, target, actorMember, member);
        if (!member.isEmpty())
            return role == Qt::ToolTipRole
                ? tr("What %1 can reach of %2's files, processes and sessions, both living on "
                     "member %3")
                      .arg(actor, target, member)
                : tr("%1 reaches %2 (%3)").arg(actor, target, member);
        return role == Qt::ToolTipRole
            ? tr("What %1 can reach of %2's files, processes and sessions").arg(actor, target)
            : tr("%1 reaches %2").arg(actor, target);
    }
    if (section < 0 || section >= allChecks().size())
        return {};
    const CheckInfo &info = allChecks().at(section);
    return role == Qt::ToolTipRole ? info.failMeaning : info.title;
}

QString ProbeMatrixModel::cellKey(int row, const QString &subject)
{
    return QString::number(row) + QLatin1Char('\n') + subject;
}

bool ProbeMatrixModel::applicable(int row, int column) const
{
    const QString &subject = m_subjects.at(column);
    const CheckInfo &info = allChecks().at(row);
    if (isServerSubject(subject) || info.serverWide)
        return info.serverWide == isServerSubject(subject);
    // A pair column of users on different members takes only the checks across members.
    const QString target = subject.section(QStringLiteral(" → "), 0, 0);
    const QString actor = subject.section(QStringLiteral(" → "), 1);
    const bool across
        = !m_userMembers.isEmpty() && m_userMembers.value(target) != m_userMembers.value(actor);
    return info.acrossMembers == across;
}

} // namespace sandscope
