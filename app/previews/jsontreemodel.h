#pragma once
// Read-only tree model of a JSON document for the collapsible JSON preview: one row per object
// member or array element, with columns key, value and type. Containers show their size as
// value ("{3}", "[12]"). At most maxNodes rows are built, so a huge document stays responsive;
// the rest of a container is summarised by one "… n more" row. Members keep the document's
// order (and repeated keys), and integers keep every digit, as the file has them.

#include <QAbstractItemModel>

#include <memory>
#include <vector>

namespace simdjson::dom {
class element;
}

namespace sandscope {

class JsonTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { KeyColumn, ValueColumn, TypeColumn, ColumnCount };
    static constexpr int defaultMaxNodes = 200000;

    explicit JsonTreeModel(QObject *parent = nullptr);
    ~JsonTreeModel() override;

    // Replaces the content. Invalid JSON leaves the model empty and returns false with the
    // parser's message (including the offset) in *errorMessage.
    bool loadJson(const QByteArray &json, QString *errorMessage = nullptr);
    void clear();

    void setMaxNodes(int maxNodes) { m_maxNodes = maxNodes; }
    bool isTruncated() const { return m_truncated; }
    int nodeCount() const { return m_nodeCount; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    struct Node;
    void build(Node *node, const simdjson::dom::element &value);
    Node *nodeFor(const QModelIndex &index) const;

    std::unique_ptr<Node> m_root;
    int m_maxNodes = defaultMaxNodes;
    int m_nodeCount = 0;
    bool m_truncated = false;
};

} // namespace sandscope
