#include "chatscantablemodel.h"

#include "util/terminalsafe.h"

#include <QLocale>

#include <utility>

namespace sandscope {

namespace {

QString formatTime(const QDateTime &time)
{
    return time.isValid() ? QLocale().toString(time.toLocalTime(), QLocale::ShortFormat)
                          : QString();
}

} // namespace

ChatScanTableModel::ChatScanTableModel(
    OpenTerminalClient *client, QStringList headers, QVector<int> sizeColumns, QObject *parent)
    : QAbstractTableModel(parent)
    , m_client(client)
    , m_headers(std::move(headers))
    , m_sizeColumns(std::move(sizeColumns))
{
}

void ChatScanTableModel::stopScan()
{
    if (m_scan)
        m_scan->abandon();
    m_scan = nullptr;
}

void ChatScanTableModel::startScan(const Identity &identity, const QString &script,
    const AdminAccess &admin, const QString &homesRoot)
{
    stopScan();
    setScanState(ScanState::Loading);
    auto *scan = new ChatScan(m_client, identity, this);
    scan->setAdminAccess(admin);
    scan->setHomesRoot(homesRoot);
    m_scan = scan;
    connect(scan, &ChatScan::records, this, &ChatScanTableModel::addRecords);
    connect(scan, &ChatScan::finished, this, [this] {
        setScanState(ScanState::Loaded);
        Q_EMIT loaded();
    });
    connect(scan, &ChatScan::failed, this, &ChatScanTableModel::scanFailed);
    scan->start(script);
}

void ChatScanTableModel::setScanState(ScanState state, const QString &error)
{
    m_state = state;
    m_error = error;
}

void ChatScanTableModel::scanFailed(const ApiError &error)
{
    setScanState(ScanState::Failed, failureText(error));
    Q_EMIT failed(error);
}

int ChatScanTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_headers.size());
}

QVariant ChatScanTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    if (role == sortRole)
        return cellValue(index.row(), index.column());
    if (role != Qt::DisplayRole)
        return rowValue(index.row(), role);
    const QVariant value = cellValue(index.row(), index.column());
    if (m_sizeColumns.contains(index.column()))
        return value.toLongLong() < 0 ? QVariant(QString())
                                      : QVariant(QLocale().formattedDataSize(value.toLongLong()));
    if (value.userType() == QMetaType::QDateTime)
        return formatTime(value.toDateTime());
    if (value.userType() == QMetaType::QString) // names: controls and bidi overrides visible
        return TerminalSafe::name(value.toString());
    return value;
}

QVariant ChatScanTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0
        || section >= m_headers.size())
        return QVariant();
    return m_headers.at(section);
}

} // namespace sandscope
