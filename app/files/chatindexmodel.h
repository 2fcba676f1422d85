#pragma once
// The chats of one account, measured by one chat scan (see chatscan.h).

#include "files/chatfolder.h"
#include "files/chatscantablemodel.h"
#include "server/connection.h"

#include <QVector>

namespace sandscope {

class OpenTerminalClient;

// The chats of one account (the identity's), as a table: chat, size, last activity.
class ChatIndexModel : public ChatScanTableModel {
    Q_OBJECT
public:
    enum Column { ChatColumn, SizeColumn, LastActivityColumn, ColumnCount };
    enum Role {
        SortRole = sortRole, // raw value of the column: id, bytes, QDateTime
        ChatIdRole,
        PathRole,
        SizeRole,
        LastActivityRole,
    };

    explicit ChatIndexModel(OpenTerminalClient *client, QObject *parent = nullptr);

    void setIdentity(const Identity &identity); // clears
    // Starts a new scan; rows are replaced as the new answer streams in.
    void reload();
    const QVector<ChatFolder> &chats() const { return m_chats; }

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;

protected:
    void addRecords(const QVector<ChatScanRecord> &batch) override;
    QString failureText(const ApiError &error) const override;
    QVariant cellValue(int row, int column) const override;
    QVariant rowValue(int row, int role) const override;

private:
    Identity m_identity;
    QVector<ChatFolder> m_chats;
};

} // namespace sandscope
