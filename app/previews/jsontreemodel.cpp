#include "jsontreemodel.h"

#include <QJsonDocument>
#include <QLocale>

#include <simdjson.h>

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
    // Qt's parser names the offset of a fault; simdjson keeps the members in their order.
    QJsonParseError error;
    QJsonDocument::fromJson(json, &error);
    simdjson::dom::parser parser;
    simdjson::dom::element document;
    if (error.error != QJsonParseError::NoError
        || parser.parse(json.constData(), size_t(json.size())).get(document) != simdjson::SUCCESS) {
        clear();
        if (errorMessage) {
            *errorMessage = error.error != QJsonParseError::NoError
                ? QStringLiteral("%1 at byte %2").arg(error.errorString()).arg(error.offset)
                : QStringLiteral("not accepted by the JSON parser");
        }
        return false;
    }
    beginResetModel();
    m_root = std::make_unique<Node>();
    m_nodeCount = 0;
    m_truncated = false;
    if (document.is_array() || document.is_object())
        build(m_root.get(), document);
    endResetModel();
    return true;
}

void JsonTreeModel::clear()
{
    beginResetModel();
    m_root.reset();
    m_nodeCount = 0;
    m_truncated = false;
    endResetModel();
}

void JsonTreeModel::build(Node *node, const simdjson::dom::element &value)
{
    using Type = Node::Type;
    const auto text = [](std::string_view view) {
        return QString::fromUtf8(view.data(), qsizetype(view.size()));
    };
    switch (value.type()) {
    case simdjson::dom::element_type::NULL_VALUE:
        node->type = Type::Null;
        node->value = QStringLiteral("null");
        return;
    case simdjson::dom::element_type::BOOL:
        node->type = Type::Bool;
        node->value = bool(value.get_bool()) ? QStringLiteral("true") : QStringLiteral("false");
        return;
    case simdjson::dom::element_type::INT64:
        node->type = Type::Number;
        node->value = QString::number(qint64(int64_t(value.get_int64())));
        return;
    case simdjson::dom::element_type::UINT64:
        node->type = Type::Number;
        node->value = QString::number(quint64(uint64_t(value.get_uint64())));
        return;
    case simdjson::dom::element_type::DOUBLE:
        node->type = Type::Number;
        node->value
            = QString::number(double(value.get_double()), 'g', QLocale::FloatingPointShortest);
        return;
    case simdjson::dom::element_type::STRING:
        node->type = Type::String;
        node->value = text(std::string_view(value.get_string()));
        return;
    case simdjson::dom::element_type::ARRAY:
    case simdjson::dom::element_type::OBJECT:
        break;
    }

    // Children are added until the node budget runs out; one row then stands for the rest.
    const auto addMoreRow = [&](qsizetype remaining) {
        Node *more = node->addChild(QStringLiteral("…"));
        more->type = Type::More;
        more->value = QStringLiteral("%1 more").arg(remaining);
        m_truncated = true;
    };
    if (value.is_array()) {
        const simdjson::dom::array array = value.get_array();
        const qsizetype size = qsizetype(array.size());
        node->type = Type::Array;
        node->value = QStringLiteral("[%1]").arg(size);
        qsizetype i = 0;
        for (const simdjson::dom::element child : array) {
            if (m_nodeCount >= m_maxNodes) {
                addMoreRow(size - i);
                break;
            }
            ++m_nodeCount;
            build(node->addChild(QStringLiteral("[%1]").arg(i)), child);
            ++i;
        }
    } else {
        const simdjson::dom::object object = value.get_object();
        const qsizetype size = qsizetype(object.size());
        node->type = Type::Object;
        node->value = QStringLiteral("{%1}").arg(size);
        qsizetype done = 0;
        for (const simdjson::dom::key_value_pair member : object) {
            if (m_nodeCount >= m_maxNodes) {
                addMoreRow(size - done);
                break;
            }
            ++m_nodeCount;
            build(node->addChild(text(member.key)), member.value);
            ++done;
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
