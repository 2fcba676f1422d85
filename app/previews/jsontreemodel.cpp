#include "jsontreemodel.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

namespace sandscope {

namespace {
constexpr int maxValueChars = 1000;
} // namespace

struct JsonTreeModel::Node {
    enum class Type { Null, Bool, Number, String, Array, Object, More };
    QString key;
    QString value; // display text: the scalar, or "{n}" / "[n]" / "n more"
    Type type = Type::Null;
    Node *parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Node>> children;

    Node *addChild(const QString &childKey)
    {
        auto child = std::make_unique<Node>();
        child->key = childKey;
        child->parent = this;
        child->row = int(children.size());
        children.push_back(std::move(child));
        return children.back().get();
    }
};

JsonTreeModel::JsonTreeModel(QObject *parent)
    : QAbstractItemModel(parent)
{
}

JsonTreeModel::~JsonTreeModel() = default;

bool JsonTreeModel::loadJson(const QByteArray &json, QString *errorMessage)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError) {
        clear();
        if (errorMessage) {
            *errorMessage
                = QStringLiteral("%1 at byte %2").arg(error.errorString()).arg(error.offset);
        }
        return false;
    }
    setDocument(document);
    return true;
}

void JsonTreeModel::setDocument(const QJsonDocument &document)
{
    beginResetModel();
    m_root = std::make_unique<Node>();
    m_nodeCount = 0;
    m_truncated = false;
    if (document.isArray())
        build(m_root.get(), document.array());
    else if (document.isObject())
        build(m_root.get(), document.object());
    endResetModel();
}

void JsonTreeModel::clear()
{
    beginResetModel();
    m_root.reset();
    m_nodeCount = 0;
    m_truncated = false;
    endResetModel();
}

void JsonTreeModel::build(Node *node, const QJsonValue &value)
{
    using Type = Node::Type;
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        node->type = Type::Null;
        node->value = QStringLiteral("null");
        return;
    case QJsonValue::Bool:
        node->type = Type::Bool;
        node->value = value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        return;
    case QJsonValue::Double:
        node->type = Type::Number;
        node->value = QString::number(value.toDouble(), 'g', QLocale::FloatingPointShortest);
        return;
    case QJsonValue::String:
        node->type = Type::String;
        node->value = value.toString();
        return;
    case QJsonValue::Array:
    case QJsonValue::Object:
        break;
    }

    // Children are added until the node budget runs out; one row then stands for the rest.
    const auto addMoreRow = [&](qsizetype remaining) {
        Node *more = node->addChild(QStringLiteral("…"));
        more->type = Type::More;
        more->value = QStringLiteral("%1 more").arg(remaining);
        m_truncated = true;
    };
    if (value.isArray()) {
        const QJsonArray array = value.toArray();
        node->type = Type::Array;
        node->value = QStringLiteral("[%1]").arg(array.size());
        for (qsizetype i = 0; i < array.size(); ++i) {
            if (m_nodeCount >= m_maxNodes) {
                addMoreRow(array.size() - i);
                break;
            }
            ++m_nodeCount;
            build(node->addChild(QStringLiteral("[%1]").arg(i)), array.at(i));
        }
    } else {
        const QJsonObject object = value.toObject();
        node->type = Type::Object;
        node->value = QStringLiteral("{%1}").arg(object.size());
        qsizetype done = 0;
        for (auto it = object.constBegin(); it != object.constEnd(); ++it, ++done) {
            if (m_nodeCount >= m_maxNodes) {
                addMoreRow(object.size() - done);
                break;
            }
            ++m_nodeCount;
            build(node->addChild(it.key()), it.value());
        }
    }
}

JsonTreeModel::Node *JsonTreeModel::nodeFor(const QModelIndex &index) const
{
    if (!index.isValid())
        return m_root.get();
    return static_cast<Node *>(index.internalPointer());
}

QModelIndex JsonTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    const Node *parentNode = nodeFor(parent);
    if (!parentNode || row < 0 || column < 0 || column >= ColumnCount
        || row >= int(parentNode->children.size()))
        return {};
    return createIndex(row, column, parentNode->children[size_t(row)].get());
}

QModelIndex JsonTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const Node *parentNode = nodeFor(child)->parent;
    if (!parentNode || parentNode == m_root.get())
        return {};
    return createIndex(parentNode->row, 0, const_cast<Node *>(parentNode));
}

int JsonTreeModel::rowCount(const QModelIndex &parent) const
{
    if (parent.column() > 0)
        return 0;
    const Node *node = nodeFor(parent);
    return node ? int(node->children.size()) : 0;
}

int JsonTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant JsonTreeModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Node *node = nodeFor(index);
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
        case KeyColumn:
            return node->key;
        case ValueColumn: {
            // Long strings are cut for display; one line each keeps the tree readable.
            QString text = node->value.left(maxValueChars);
            if (role == Qt::DisplayRole)
                text.replace(QLatin1Char('\n'), QStringLiteral("⏎"));
            if (node->value.size() > maxValueChars)
                text += QStringLiteral("… (%1 characters)").arg(node->value.size());
            return text;
        }
        case TypeColumn:
            switch (node->type) {
            case Node::Type::Null:
                return QStringLiteral("null");
            case Node::Type::Bool:
                return QStringLiteral("boolean");
            case Node::Type::Number:
                return QStringLiteral("number");
            case Node::Type::String:
                return QStringLiteral("string");
            case Node::Type::Array:
                return QStringLiteral("array");
            case Node::Type::Object:
                return QStringLiteral("object");
            case Node::Type::More:
                return QString();
            }
        }
    }
    return {};
}

QVariant JsonTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KeyColumn:
        return tr("Key");
    case ValueColumn:
        return tr("Value");
    case TypeColumn:
        return tr("Type");
    default:
        return {};
    }
}

} // namespace sandscope
