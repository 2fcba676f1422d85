#include "probematrixpresentation.h"

#include "isolation/probedelegate.h"
#include "probereport/probematrixmodel.h"

namespace sandscope {

namespace {

QString cellKey(const QString &checkKey, const QString &subject)
{
    return checkKey + QLatin1Char('\n') + subject;
}

} // namespace

ProbeMatrixPresentation::ProbeMatrixPresentation(QObject *parent)
    : QIdentityProxyModel(parent)
{
}

void ProbeMatrixPresentation::setDifferences(const QVector<ReportDifference> &differences)
{
    m_changed.clear();
    for (const ReportDifference &difference : differences)
        m_changed.insert(
            cellKey(checkInfo(difference.check).key, difference.subject), difference.describe());
    if (rowCount() > 0 && columnCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1),
            {ProbeDelegate::ChangedRole, Qt::ToolTipRole});
}

QVariant ProbeMatrixPresentation::data(const QModelIndex &index, int role) const
{
    if (role != ProbeDelegate::ChangedRole && role != Qt::ToolTipRole)
        return QIdentityProxyModel::data(index, role);
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const QString changed = m_changed.value(
        cellKey(QIdentityProxyModel::data(index, ProbeMatrixModel::CheckKeyRole).toString(),
            QIdentityProxyModel::data(index, ProbeMatrixModel::SubjectRole).toString()));
    if (role == ProbeDelegate::ChangedRole)
        return changed;
    const QString explanation = QIdentityProxyModel::data(index, role).toString();
    if (changed.isEmpty())
        return explanation.isEmpty() ? QVariant() : QVariant(explanation);
    return QString(explanation + QStringLiteral("\n\n")
        + tr("Changed since the compared report: %1").arg(changed));
}

QVariant ProbeMatrixPresentation::headerData(
    int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Vertical || section < 0 || section >= allChecks().size()
        || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return QIdentityProxyModel::headerData(section, orientation, role);
    const CheckInfo &info = allChecks().at(section);
    if (role == Qt::DisplayRole)
        return QString(info.title + QStringLiteral(" · ") + severityName(info.severity));
    return tr("%1 (%2), severity %3.\nWhat a FAIL means: %4")
        .arg(info.title, info.key, severityName(info.severity), info.failMeaning);
}

} // namespace sandscope
