#pragma once
// The live wall's rows as views show them: newest activity first (any column can be chosen
// instead), and a text filter over every column (a user, a chat, a tool).

#include <QSortFilterProxyModel>

namespace sandscope {

class LiveAgentProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit LiveAgentProxy(QObject *parent = nullptr);
    // Sorted again at once (newest activity first until a view chooses another column).
    void setSourceModel(QAbstractItemModel *model) override;
};

} // namespace sandscope
