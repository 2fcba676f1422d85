#include "chatindexmodel.h"

namespace sandscope {

ChatIndexModel::ChatIndexModel(OpenTerminalClient *client, QObject *parent)
    : ChatScanTableModel(
        client, {tr("Chat"), tr("Size"), tr("Last activity")}, {SizeColumn}, parent)
{
}

void ChatIndexModel::setIdentity(const Identity &identity)
{
    stopScan();
    beginResetModel();
    m_identity = identity;
    m_chats.clear();
    setScanState(ScanState::Idle);
    endResetModel();
}

void ChatIndexModel::reload()
{
    // A new scan: the old rows go, the new ones stream in.
    setIdentity(m_identity);
    startScan(m_identity, chatscan::userScript());
}

QString ChatIndexModel::failureText(const ApiError &error) const
{
    return tr("Could not list the chats: %1").arg(error.toString());
}

void ChatIndexModel::addRecords(const QVector<ChatScanRecord> &batch)
{
    QVector<ChatFolder> added;
    for (const ChatScanRecord &record : batch) {
        if (record.kind == ChatScanRecord::Kind::Chat)
            added.append(record.chat);
    }
    if (added.isEmpty())
        return;
    beginInsertRows(QModelIndex(), int(m_chats.size()), int(m_chats.size() + added.size()) - 1);
    m_chats += added;
    endInsertRows();
}

int ChatIndexModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_chats.size());
}

QVariant ChatIndexModel::cellValue(int row, int column) const
{
    const ChatFolder &chat = m_chats.at(row);
    switch (column) {
    case ChatColumn:
        return chat.id;
    case SizeColumn:
        return chat.size;
    case LastActivityColumn:
        return chat.lastActivity;
    default:
        return QVariant();
    }
}

QVariant ChatIndexModel::rowValue(int row, int role) const
{
    const ChatFolder &chat = m_chats.at(row);
    switch (role) {
    case Qt::ToolTipRole:
    case PathRole:
        return chat.path;
    case ChatIdRole:
        return chat.id;
    case SizeRole:
        return chat.size;
    case LastActivityRole:
        return chat.lastActivity;
    default:
        return QVariant();
    }
}

} // namespace sandscope
