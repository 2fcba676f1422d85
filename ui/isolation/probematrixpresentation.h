#pragma once

#include "probereport/probereport.h"

#include <QHash>
#include <QIdentityProxyModel>

namespace sandscope {

// What the matrix view shows on top of ProbeMatrixModel: check titles with their severity
// in the row headers, and the cells that changed since a compared report
// (ProbeDelegate::ChangedRole).
class ProbeMatrixPresentation : public QIdentityProxyModel {
    Q_OBJECT
public:
    explicit ProbeMatrixPresentation(QObject *parent = nullptr);

    void setDifferences(const QVector<ReportDifference> &differences);
    void clearDifferences() { setDifferences({}); }

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QHash<QString, QString> m_changed; // check key + subject → description
};

} // namespace sandscope
