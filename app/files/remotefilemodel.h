#pragma once
// A lazy tree of one account's remote files. Top-level rows are locations (the home, plus
// any folder added with addLocation, e.g. another user's home to show why it is refused);
// a folder's rows are listed only when a view asks for them (canFetchMore/fetchMore).
// There are no placeholder rows: whether a folder is loading, loaded or failed, and why, is
// part of the folder's own item (LoadStateRole, ErrorRole). refresh() lists one folder again
// and applies the difference as row removals, insertions and dataChanged, so expanded
// folders elsewhere (and below) stay as they are; the model is reset only when the identity
// or the locations are replaced as a whole.
// Acting as a user, a folder is resolved as that user before it is listed (pathguard.h): one
// whose real location is outside the user's home is refused with the link that leads there,
// and the symlinks in a listed folder are shown as links with their targets (the server's
// listing follows them as root and cannot tell).

#include "server/apierror.h"
#include "server/connection.h"
#include "server/openterminalclient.h"
#include "server/types.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QMimeDatabase>

#include <memory>
#include <vector>

namespace sandscope {

class RemoteFileModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, SizeColumn, ModifiedColumn, TypeColumn, ColumnCount };
    Q_ENUM(Column)

    enum Role {
        PathRole = Qt::UserRole + 1, // absolute remote path (QString)
        IsDirectoryRole, // bool
        IsLocationRole, // bool: a top-level row
        SizeRole, // qint64 bytes (0 for folders)
        ModifiedRole, // QDateTime
        MimeTypeRole, // QString, from the name only ("inode/directory" for folders)
        LoadStateRole, // int, a LoadState (folders; files are always Loaded)
        ErrorRole, // QString, why the folder could not be listed (empty otherwise)
        LinkTargetRole, // QString: what a symlink points at (empty for anything else)
        LinkOutsideHomeRole, // bool: a symlink whose real location is outside the home
    };
    Q_ENUM(Role)

    enum class LoadState { NotLoaded, Loading, Loaded, Failed };
    Q_ENUM(LoadState)

    // Without a client (tests, previews) nothing is fetched; applyListing feeds folders.
    explicit RemoteFileModel(OpenTerminalClient *client, QObject *parent = nullptr);
    ~RemoteFileModel() override;

    // Replaces everything (model reset): the tree of another identity is a different tree.
    void setIdentity(const Identity &identity);
    Identity identity() const { return m_identity; }

    // Asks the server for the account's home (GET /files/cwd without a session id: newer
    // servers name the home, older ones answer with it as the cwd), then adds it as the first
    // location and lists it. Emits homeResolved or homeFailed.
    void openHome();
    QString homePath() const { return m_homePath; }

    // Adds a top-level folder (or returns the existing one). Its rows come on fetchMore.
    QModelIndex addLocation(const QString &absolutePath);
    // Removes every location (model reset) and forgets pending requests.
    void clear();

    // Lists the folder again and applies the difference (never a reset). For a folder that was
    // never listed this is the same as fetchMore.
    void refresh(const QModelIndex &folder);
    // refresh() of the loaded folder with this path, if there is one; true when found.
    bool refreshPath(const QString &absolutePath);

    // The item of a path among the rows known so far (nothing is fetched).
    QModelIndex indexForPath(const QString &absolutePath) const;
    QString pathOf(const QModelIndex &index) const;
    LoadState loadState(const QModelIndex &index) const;
    QString errorText(const QModelIndex &index) const;

    // Applies a listing to a folder as if the server had sent it (first listing: one
    // insertion of all rows; later ones: the difference). Used for server answers and tests.
    void applyListing(const QModelIndex &folder, const QVector<FileEntry> &entries);

    // QAbstractItemModel
    QModelIndex index(
        int row, int column, const QModelIndex &parent = QModelIndex()) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    bool hasChildren(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

    // The text shown for a folder that could not be listed: a refused folder of another user
    // names that user.
    static QString listingErrorText(const ApiError &error, const QString &path);

Q_SIGNALS:
    void homeResolved(const QString &path);
    void homeFailed(const sandscope::ApiError &error);
    void folderLoaded(const QString &path);
    void folderFailed(const QString &path, const sandscope::ApiError &error);

private:
    struct Link {
        QString target;
        bool outsideHome = false;
    };
    struct Node {
        QString name; // the absolute path for locations
        QHash<QString, Link> links; // a listed folder's symlinks, by name
        bool isDirectory = false;
        bool isLocation = false;
        qint64 size = 0;
        QDateTime modified;
        Node *parent = nullptr;
        int row = 0;
        LoadState state = LoadState::NotLoaded;
        QString error;
        quint64 ticket = 0; // the pending listing request, 0 when none
        CallHandle call;
        mutable QString mimeType; // computed on first use
        std::vector<std::unique_ptr<Node>> children;
    };

    Node *nodeOf(const QModelIndex &index) const;
    QModelIndex indexOf(const Node *node, int column = 0) const;
    QString pathOfNode(const Node *node) const;
    void requestListing(Node *folder);
    void listResolved(Node *folder, quint64 ticket);
    const Link *linkOf(const Node *node) const;
    void finishListing(quint64 ticket, const Result<DirectoryListing> &result);
    void setState(Node *folder, LoadState state, const QString &error = {});
    void forgetRequests(Node *subtree);
    void insertChildren(Node *folder, const QVector<const FileEntry *> &entries);
    void mergeChildren(Node *folder, const QVector<FileEntry> &entries);
    static std::unique_ptr<Node> makeNode(const FileEntry &entry, Node *parent, int row);
    QString mimeTypeOf(const Node *node) const;

    OpenTerminalClient *m_client;
    Identity m_identity;
    QString m_homePath;
    Node m_root; // invisible; its children are the locations
    QHash<quint64, Node *> m_pending;
    quint64 m_nextTicket = 1;
    QMimeDatabase m_mimeDatabase;
};

} // namespace sandscope
