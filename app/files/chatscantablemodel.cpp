#include "chatscantablemodel.h"

#include "fleet/fleetfanout.h"
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
    disconnect(m_memberConnection);
    disconnect(m_finishedConnection);
    if (m_fanOut)
        m_fanOut->cancel(); // its contexts go, and with them every member's scan
    m_fanOut = nullptr;
    m_memberErrors.clear();
}

void ChatScanTableModel::startScans(
    FleetFanOut *fanOut, const QString &script, const QString &homesRoot)
{
    stopScan();
    setScanState(ScanState::Loading);
    m_fanOut = fanOut;
    m_memberConnection = connect(
        fanOut, &FleetFanOut::memberFinished, this, [this](const FanOutMemberResult &result) {
            if (result.ok)
                return;
            m_memberErrors.append(result.error);
            Q_EMIT memberFailed(result.error);
        });
    m_finishedConnection = connect(fanOut, &FleetFanOut::finished, this, [this](int failedMembers) {
        if (!m_fanOut || failedMembers < int(m_fanOut->targets().size())) {
            setScanState(ScanState::Loaded);
            Q_EMIT loaded();
            return;
        }
        ApiError error;
        error.kind = ApiError::Kind::Network;
        error.message = m_memberErrors.join(QLatin1Char('\n'));
        scanFailed(error);
    });
    fanOut->run([this, script, homesRoot](
                    const FanOutTarget &target, QObject *context, const FleetFanOut::Done &done) {
        auto *scan = new ChatScan(target.client, Identity(), this);
        scan->setAdminAccess(target.admin);
        scan->setHomesRoot(homesRoot);
        const QString member = target.member;
        connect(scan, &ChatScan::records, context, [this, member](QVector<ChatScanRecord> batch) {
            for (ChatScanRecord &record : batch)
                record.member = member;
            addRecords(batch);
        });
        connect(scan, &ChatScan::finished, context, [done] { done(true, QString()); });
        connect(scan, &ChatScan::failed, context,
            [done](const ApiError &error) { done(false, error.toString()); });
        // A member given up (timed out, cancelled) takes its scan with it.
        const QPointer<ChatScan> guarded = scan;
        connect(context, &QObject::destroyed, this, [guarded] {
            if (guarded)
                guarded->abandon();
        });
        scan->start(script);
    });
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
