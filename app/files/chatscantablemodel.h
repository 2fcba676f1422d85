#pragma once
// The base of the chat scan tables (ChatIndexModel, AdminOverviewModel): it runs one ChatScan
// at a time and turns its records into rows as they stream in.

#include "files/chatscan.h"
#include "fleet/fleetfanout.h"
#include "server/apierror.h"
#include "server/connection.h"

#include <QAbstractTableModel>
#include <QPointer>
#include <QStringList>
#include <QVector>

namespace sandscope {

class OpenTerminalClient;

enum class ScanState { Idle, Loading, Loaded, Failed, Refused };

// What both scan tables share: one scan at a time, its state and error, and the cells. A
// cell's sort value is the raw value of its column; its text is formatted from that value.
class ChatScanTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int sortRole = Qt::UserRole + 1;

    ScanState state() const { return m_state; }
    // For Failed and Refused: one paragraph for people.
    QString errorText() const { return m_error; }
    // A fleet's scan: the members that failed or did not answer in time, one message each
    // (the others' rows are shown; Loaded once every member ended and one answered).
    const QStringList &memberErrors() const { return m_memberErrors; }

    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void loaded();
    void failed(const sandscope::ApiError &error);
    // A fleet's scan: one member failed (its message names it); the others go on.
    void memberFailed(const QString &message);

protected:
    // `headers` name the columns; the values of `sizeColumns` are shown as data sizes (a
    // negative size as unknown: empty).
    ChatScanTableModel(
        OpenTerminalClient *client, QStringList headers, QVector<int> sizeColumns, QObject *parent);

    // Abandons the running scan (its process is killed), if any, and starts `script`.
    // An empty identity scans as root through `admin`; `homesRoot` names the admin scan's root.
    void startScan(const Identity &identity, const QString &script, const AdminAccess &admin = {},
        const QString &homesRoot = QStringLiteral("/home"));
    // The same on every target of `fanOut` (not owned) at once; each record's `member` names
    // its target. Failed only when every member failed.
    void startScans(FleetFanOut *fanOut, const QString &script,
        const QString &homesRoot = QStringLiteral("/home"));
    void stopScan();
    void setScanState(ScanState state, const QString &error = QString());

    virtual void addRecords(const QVector<ChatScanRecord> &batch) = 0;
    // Sets Failed with failureText(); subclasses may recognise other outcomes first.
    virtual void scanFailed(const ApiError &error);
    virtual QString failureText(const ApiError &error) const = 0;
    // The raw value of a cell (also its SortRole), and the other roles of a row.
    virtual QVariant cellValue(int row, int column) const = 0;
    virtual QVariant rowValue(int row, int role) const = 0;

private:
    OpenTerminalClient *m_client;
    QStringList m_headers;
    QVector<int> m_sizeColumns;
    QPointer<ChatScan> m_scan;
    QPointer<FleetFanOut> m_fanOut;
    QMetaObject::Connection m_memberConnection;
    QMetaObject::Connection m_finishedConnection;
    QStringList m_memberErrors;
    ScanState m_state = ScanState::Idle;
    QString m_error;
};

} // namespace sandscope
