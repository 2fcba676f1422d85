#include "remotefilemodel.h"

#include "files/pathguard.h"
#include "util/terminalsafe.h"

#include <QLocale>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace sandscope {

namespace {

QString joinPath(const QString &folder, const QString &name)
{
    if (folder.endsWith(QLatin1Char('/')))
        return folder + name;
    return folder + QLatin1Char('/') + name;
}

QString normalizedPath(QString path)
{
    while (path.size() > 1 && path.endsWith(QLatin1Char('/')))
        path.chop(1);
    return path;
}

} // namespace

RemoteFileModel::RemoteFileModel(OpenTerminalClient *client, QObject *parent)
    : QAbstractItemModel(parent)
    , m_client(client)
{
    m_root.isDirectory = true;
    m_root.state = LoadState::Loaded;
}

RemoteFileModel::~RemoteFileModel()
{
    forgetRequests(&m_root);
}

void RemoteFileModel::setIdentity(const Identity &identity)
{
    clear();
    m_identity = identity;
    m_homePath.clear();
}

void RemoteFileModel::clear()
{
    beginResetModel();
    forgetRequests(&m_root);
    m_root.children.clear();
    endResetModel();
}

void RemoteFileModel::openHome()
{
    if (!m_client)
        return;
    // Without X-Session-Id the cwd is the account's home on every version; with one it
    // could be a session's working directory.
    Identity sessionless;
    sessionless.userId = m_identity.userId;
    const Identity askedFor = m_identity;
    m_client->cwd(sessionless, this, [this, askedFor](const Result<CwdInfo> &result) {
        if (!(askedFor == m_identity))
            return; // the identity changed meanwhile: this home belongs to another tree
        if (!result.ok()) {
            Q_EMIT homeFailed(result.error);
            return;
        }
        m_homePath
            = normalizedPath(result.value.home.isEmpty() ? result.value.cwd : result.value.home);
        const QModelIndex home = addLocation(m_homePath);
        Q_EMIT homeResolved(m_homePath);
        fetchMore(home);
    });
}

QModelIndex RemoteFileModel::addLocation(const QString &absolutePath)
{
    const QString path = normalizedPath(absolutePath);
    for (const auto &location : m_root.children) {
        if (location->name == path)
            return indexOf(location.get());
    }
    const int row = int(m_root.children.size());
    beginInsertRows(QModelIndex(), row, row);
    auto location = std::make_unique<Node>();
    location->name = path;
    location->isDirectory = true;
    location->isLocation = true;
    location->parent = &m_root;
    location->row = row;
    m_root.children.push_back(std::move(location));
    endInsertRows();
    return index(row, 0);
}

void RemoteFileModel::refresh(const QModelIndex &folder)
{
    Node *node = nodeOf(folder);
    if (!node || node == &m_root || !node->isDirectory)
        return;
    requestListing(node);
}

bool RemoteFileModel::refreshPath(const QString &absolutePath)
{
    const QModelIndex found = indexForPath(absolutePath);
    if (!found.isValid() || loadState(found) == LoadState::NotLoaded)
        return false;
    refresh(found);
    return true;
}

QModelIndex RemoteFileModel::indexForPath(const QString &absolutePath) const
{
    const QString path = normalizedPath(absolutePath);
    // The deepest location that contains the path, then one name per level.
    const Node *best = nullptr;
    for (const auto &location : m_root.children) {
        const QString &base = location->name;
        const bool contains = path == base
            || path.startsWith(
                base.endsWith(QLatin1Char('/')) ? base : QString(base + QLatin1Char('/')));
        if (contains && (!best || base.size() > best->name.size()))
            best = location.get();
    }
    if (!best)
        return QModelIndex();
    const QStringList names
        = path.mid(best->name.size()).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    const Node *node = best;
    for (const QString &name : names) {
        const auto found = std::find_if(node->children.begin(), node->children.end(),
            [&name](const std::unique_ptr<Node> &child) { return child->name == name; });
        if (found == node->children.end())
            return QModelIndex();
        node = found->get();
    }
    return indexOf(node);
}

QString RemoteFileModel::pathOf(const QModelIndex &index) const
{
    const Node *node = nodeOf(index);
    return node && node != &m_root ? pathOfNode(node) : QString();
}

RemoteFileModel::LoadState RemoteFileModel::loadState(const QModelIndex &index) const
{
    const Node *node = nodeOf(index);
    return node ? node->state : LoadState::NotLoaded;
}

QString RemoteFileModel::errorText(const QModelIndex &index) const
{
    const Node *node = nodeOf(index);
    return node ? node->error : QString();
}

QString RemoteFileModel::listingErrorText(const ApiError &error, const QString &path)
{
    if (error.kind == ApiError::Kind::Forbidden) {
        static const QRegularExpression otherHome(QStringLiteral("^/home/([^/]+)"));
        const QRegularExpressionMatch owner = otherHome.match(path);
        if (owner.hasMatch())
            return QStringLiteral("These are the files of %1: the server lets only %1 open %2")
                .arg(owner.captured(1), path);
        return QStringLiteral("Access denied to %1: %2").arg(path, error.toString());
    }
    if (error.kind == ApiError::Kind::NotFound)
        return QStringLiteral("%1 no longer exists").arg(path);
    return QStringLiteral("Could not list %1: %2").arg(path, error.toString());
}

// ---------------------------------------------------------------------------------------
// Fetching and merging

void RemoteFileModel::requestListing(Node *folder)
{
    if (!m_client)
        return;
    if (folder->ticket != 0) {
        // A change may have happened after the running request was answered: ask again.
        m_pending.remove(folder->ticket);
        folder->call.abort();
    }
    const quint64 ticket = m_nextTicket++;
    folder->ticket = ticket;
    m_pending.insert(ticket, folder);
    if (folder->state != LoadState::Loaded)
        setState(folder, LoadState::Loading);
    if (m_identity.isServerAccount()) {
        listResolved(folder, ticket);
        return;
    }
    const QString path = pathOfNode(folder);
    pathguard::resolve(
        m_client, m_identity, {path}, this,
        [this, ticket, path](const Result<PathResolution> &resolved) {
            Node *pending = m_pending.value(ticket);
            if (!pending)
                return; // gone or asked again meanwhile
            // A path straight into another home is the server's to refuse (it names whose
            // files they are); one a link leads out of, or anywhere else out of the home (the
            // server reads /tmp or /etc as root), Sandscope refuses.
            const ResolvedPath *folderPath
                = resolved.ok() ? &resolved.value.paths.first() : nullptr;
            const ResolvedPath *outside = folderPath && !folderPath->insideHome
                    && (!folderPath->link.isEmpty()
                        || !folderPath->real.startsWith(QLatin1String("/home/")))
                ? folderPath
                : nullptr;
            if (!resolved.ok() || outside) {
                ApiError error = resolved.error;
                if (resolved.ok()) {
                    error.kind = ApiError::Kind::Forbidden;
                    error.message = resolved.value.refusal(*outside, m_identity.userId);
                }
                Result<DirectoryListing> refused;
                refused.error = error;
                finishListing(ticket, refused);
                return;
            }
            pending->links.clear();
            for (int i = 1; i < resolved.value.paths.size(); ++i) {
                const ResolvedPath &link = resolved.value.paths.at(i);
                pending->links.insert(link.link.mid(link.link.lastIndexOf(QLatin1Char('/')) + 1),
                    Link {link.linkTarget, !link.insideHome});
            }
            listResolved(pending, ticket);
        },
        pathguard::Extra::LinksInFirst);
}

void RemoteFileModel::listResolved(Node *folder, quint64 ticket)
{
    folder->call = m_client->listDirectory(m_identity, pathOfNode(folder), this,
        [this, ticket](const Result<DirectoryListing> &result) { finishListing(ticket, result); });
}

const RemoteFileModel::Link *RemoteFileModel::linkOf(const Node *node) const
{
    if (!node->parent || node->isLocation)
        return nullptr;
    const auto found = node->parent->links.constFind(node->name);
    return found == node->parent->links.cend() ? nullptr : &found.value();
}

void RemoteFileModel::finishListing(quint64 ticket, const Result<DirectoryListing> &result)
{
    Node *folder = m_pending.take(ticket);
    if (!folder)
        return; // the folder went away or was asked again meanwhile
    folder->ticket = 0;
    folder->call = CallHandle();
    const QString path = pathOfNode(folder);
    if (!result.ok()) {
        // A refusal of our own (a link out of the home) is already the whole message.
        setState(folder, LoadState::Failed,
            result.error.httpStatus == 0 && result.error.kind == ApiError::Kind::Forbidden
                ? result.error.message
                : listingErrorText(result.error, path));
        Q_EMIT folderFailed(path, result.error);
        return;
    }
    applyListing(indexOf(folder), result.value.entries);
    Q_EMIT folderLoaded(path);
}

void RemoteFileModel::applyListing(
    const QModelIndex &folderIndex, const QVector<FileEntry> &entries)
{
    Node *folder = nodeOf(folderIndex);
    if (!folder || folder == &m_root || !folder->isDirectory)
        return;
    if (folder->children.empty()) {
        QVector<const FileEntry *> all;
        all.reserve(entries.size());
        for (const FileEntry &entry : entries)
            all.append(&entry);
        insertChildren(folder, all);
    } else {
        mergeChildren(folder, entries);
    }
    setState(folder, LoadState::Loaded);
}

std::unique_ptr<RemoteFileModel::Node> RemoteFileModel::makeNode(
    const FileEntry &entry, Node *parent, int row)
{
    auto node = std::make_unique<Node>();
    node->name = entry.name;
    node->isDirectory = entry.isDirectory;
    node->size = entry.isDirectory ? 0 : entry.size;
    node->modified = entry.modified;
    node->parent = parent;
    node->row = row;
    node->state = entry.isDirectory ? LoadState::NotLoaded : LoadState::Loaded;
    return node;
}

// All new rows in one insertion, however many: a 20,000-entry folder is one signal pair.
void RemoteFileModel::insertChildren(Node *folder, const QVector<const FileEntry *> &entries)
{
    if (entries.isEmpty())
        return;
    const int first = int(folder->children.size());
    beginInsertRows(indexOf(folder), first, first + int(entries.size()) - 1);
    folder->children.reserve(folder->children.size() + size_t(entries.size()));
    int row = first;
    for (const FileEntry *entry : entries)
        folder->children.push_back(makeNode(*entry, folder, row++));
    endInsertRows();
}

// Rows whose name is gone (or that changed between file and folder) are removed in
// contiguous runs, changed sizes and times become one dataChanged, new names are appended
// in one insertion. Kept rows keep their children and load state.
void RemoteFileModel::mergeChildren(Node *folder, const QVector<FileEntry> &entries)
{
    QHash<QString, const FileEntry *> incoming;
    incoming.reserve(entries.size());
    for (const FileEntry &entry : entries)
        incoming.insert(entry.name, &entry);

    const QModelIndex parentIndex = indexOf(folder);
    auto &children = folder->children;
    const auto keeps = [&incoming](const Node *child) {
        const FileEntry *entry = incoming.value(child->name);
        return entry && entry->isDirectory == child->isDirectory;
    };
    int lowestRemoved = int(children.size());
    for (int last = int(children.size()) - 1; last >= 0;) {
        if (keeps(children[size_t(last)].get())) {
            --last;
            continue;
        }
        int first = last;
        while (first > 0 && !keeps(children[size_t(first - 1)].get()))
            --first;
        beginRemoveRows(parentIndex, first, last);
        for (int row = first; row <= last; ++row)
            forgetRequests(children[size_t(row)].get());
        children.erase(children.begin() + first, children.begin() + last + 1);
        endRemoveRows();
        lowestRemoved = first;
        last = first - 1;
    }
    for (int row = lowestRemoved; row < int(children.size()); ++row)
        children[size_t(row)]->row = row;

    int firstChanged = -1;
    int lastChanged = -1;
    QSet<QString> present;
    present.reserve(int(children.size()));
    for (const auto &child : children) {
        present.insert(child->name);
        const FileEntry *entry = incoming.value(child->name);
        const qint64 size = entry->isDirectory ? 0 : entry->size;
        if (child->size == size && child->modified == entry->modified)
            continue;
        child->size = size;
        child->modified = entry->modified;
        if (firstChanged < 0)
            firstChanged = child->row;
        lastChanged = child->row;
    }
    if (firstChanged >= 0)
        Q_EMIT dataChanged(
            index(firstChanged, 0, parentIndex), index(lastChanged, ColumnCount - 1, parentIndex));

    QVector<const FileEntry *> added;
    for (const FileEntry &entry : entries) {
        if (!present.contains(entry.name))
            added.append(&entry);
    }
    insertChildren(folder, added);
}

void RemoteFileModel::setState(Node *folder, LoadState state, const QString &error)
{
    if (folder->state == state && folder->error == error)
        return;
    folder->state = state;
    folder->error = error;
    if (folder != &m_root) {
        const QModelIndex changed = indexOf(folder);
        Q_EMIT dataChanged(changed, changed.siblingAtColumn(ColumnCount - 1),
            {LoadStateRole, ErrorRole, Qt::ToolTipRole});
    }
}

void RemoteFileModel::forgetRequests(Node *subtree)
{
    if (subtree->ticket != 0) {
        m_pending.remove(subtree->ticket);
        subtree->ticket = 0;
        subtree->call.abort();
    }
    // Only folders that were listed have children; files end the walk at once.
    for (const auto &child : subtree->children) {
        if (child->isDirectory)
            forgetRequests(child.get());
    }
}

// ---------------------------------------------------------------------------------------
// QAbstractItemModel

RemoteFileModel::Node *RemoteFileModel::nodeOf(const QModelIndex &index) const
{
    if (!index.isValid())
        return const_cast<Node *>(&m_root);
    if (index.model() != this)
        return nullptr;
    return static_cast<Node *>(index.internalPointer());
}

QModelIndex RemoteFileModel::indexOf(const Node *node, int column) const
{
    if (!node || node == &m_root)
        return QModelIndex();
    return createIndex(node->row, column, const_cast<Node *>(node));
}

QString RemoteFileModel::pathOfNode(const Node *node) const
{
    if (node->isLocation || !node->parent)
        return node->name;
    return joinPath(pathOfNode(node->parent), node->name);
}

QModelIndex RemoteFileModel::index(int row, int column, const QModelIndex &parent) const
{
    const Node *folder = nodeOf(parent);
    if (!folder || row < 0 || column < 0 || column >= ColumnCount
        || row >= int(folder->children.size()))
        return QModelIndex();
    return createIndex(row, column, folder->children[size_t(row)].get());
}

QModelIndex RemoteFileModel::parent(const QModelIndex &child) const
{
    const Node *node = nodeOf(child);
    if (!node || node == &m_root)
        return QModelIndex();
    return indexOf(node->parent);
}

int RemoteFileModel::rowCount(const QModelIndex &parent) const
{
    if (parent.column() > 0)
        return 0;
    const Node *folder = nodeOf(parent);
    return folder ? int(folder->children.size()) : 0;
}

int RemoteFileModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

bool RemoteFileModel::hasChildren(const QModelIndex &parent) const
{
    if (parent.column() > 0)
        return false;
    const Node *folder = nodeOf(parent);
    if (!folder || !folder->isDirectory)
        return false;
    // A folder not listed yet may have rows: views show an expander and call fetchMore.
    return folder->state != LoadState::Loaded || !folder->children.empty();
}

bool RemoteFileModel::canFetchMore(const QModelIndex &parent) const
{
    const Node *folder = nodeOf(parent);
    return m_client && folder && folder != &m_root && folder->isDirectory
        && folder->state == LoadState::NotLoaded;
}

void RemoteFileModel::fetchMore(const QModelIndex &parent)
{
    if (!canFetchMore(parent))
        return;
    requestListing(nodeOf(parent));
}

QString RemoteFileModel::mimeTypeOf(const Node *node) const
{
    if (node->mimeType.isEmpty()) {
        node->mimeType = node->isDirectory
            ? QStringLiteral("inode/directory")
            : m_mimeDatabase.mimeTypeForFile(node->name, QMimeDatabase::MatchExtension).name();
    }
    return node->mimeType;
}

QVariant RemoteFileModel::data(const QModelIndex &index, int role) const
{
    const Node *node = nodeOf(index);
    if (!node || node == &m_root)
        return QVariant();
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return TerminalSafe::name(node->name); // a name cannot pretend to be another
        case SizeColumn:
            return node->isDirectory ? QString() : QLocale().formattedDataSize(node->size);
        case ModifiedColumn:
            return node->modified.isValid()
                ? QLocale().toString(node->modified.toLocalTime(), QLocale::ShortFormat)
                : QString();
        case TypeColumn:
            if (const Link *link = linkOf(node))
                return link->outsideHome ? tr("Link to %1 (outside the home)").arg(link->target)
                                         : tr("Link to %1").arg(link->target);
            return mimeTypeOf(node);
        default:
            return QVariant();
        }
    case Qt::EditRole:
        return index.column() == NameColumn ? QVariant(node->name) : QVariant();
    case Qt::ToolTipRole:
        if (const Link *link = linkOf(node); link && node->error.isEmpty())
            return tr("%1 is a link to %2%3")
                .arg(pathOfNode(node), link->target,
                    link->outsideHome ? tr(", outside the home: Sandscope does not follow it")
                                      : QString());
        return node->error.isEmpty() ? pathOfNode(node) : node->error;
    case LinkTargetRole:
        if (const Link *link = linkOf(node))
            return link->target;
        return QString();
    case LinkOutsideHomeRole:
        if (const Link *link = linkOf(node))
            return link->outsideHome;
        return false;
    case PathRole:
        return pathOfNode(node);
    case IsDirectoryRole:
        return node->isDirectory;
    case IsLocationRole:
        return node->isLocation;
    case SizeRole:
        return node->size;
    case ModifiedRole:
        return node->modified;
    case MimeTypeRole:
        return mimeTypeOf(node);
    case LoadStateRole:
        return int(node->state);
    case ErrorRole:
        return node->error;
    default:
        return QVariant();
    }
}

QVariant RemoteFileModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QVariant();
    switch (section) {
    case NameColumn:
        return tr("Name");
    case SizeColumn:
        return tr("Size");
    case ModifiedColumn:
        return tr("Modified");
    case TypeColumn:
        return tr("Type");
    default:
        return QVariant();
    }
}

Qt::ItemFlags RemoteFileModel::flags(const QModelIndex &index) const
{
    const Node *node = nodeOf(index);
    if (!node || node == &m_root)
        return Qt::NoItemFlags;
    Qt::ItemFlags result = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (!node->isDirectory)
        result |= Qt::ItemNeverHasChildren;
    return result;
}

} // namespace sandscope
