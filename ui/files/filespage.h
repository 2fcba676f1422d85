#pragma once
// The file browser: the acting user's home as a lazy tree (folders are listed when expanded),
// the user's chat folders to jump into, a breadcrumb of the selection, and a preview of the
// selected file. It only wires core objects: RemoteFileModel lists, FileFilterProxy sorts and
// filters, ChatIndexModel measures chats, FileOperations changes files (refusing everything
// in read-only mode and auditing every attempt) and PreviewPane shows content. All network
// work is asynchronous; a new selection aborts the previous preview request.
//
// The page keeps the widgets, the navigation and the wiring. FilePreviewLoader loads the
// preview; FileActions does the uploads, downloads and changes its actions trigger, asking its
// questions (names, confirmations, local files) through a FilesPrompter, so that tests can
// answer them without modal dialogs; DialogPrompter is the default. The tree is a FileTreeView
// (drops of local files) painted by FileItemDelegate.

#include "files/dialogprompter.h"
#include "files/fileoperations.h"
#include "files/filepreviewloader.h"
#include "files/fileselection.h"
#include "files/filesprompter.h"
#include "files/filetreeview.h"
#include "server/connection.h"
#include "server/openterminalclient.h"

#include <QModelIndex>
#include <QPointer>
#include <QSet>
#include <QTimer>
#include <QTreeView>
#include <QWidget>

#include <memory>

class QAction;
class QLineEdit;
class QMimeData;
class QToolBar;

namespace sandscope {

class BreadcrumbBar;
class ChatIndexModel;
class FileActions;
class FileFilterProxy;
class MessageBar;
class OpenTerminalClient;
class PreviewPane;
class RemoteFileModel;

namespace Ui {
class FilesPage;
}

class FilesPage : public QWidget {
    Q_OBJECT
public:
    // Text previews start with this many lines; "Load all" fetches the rest.
    static constexpr int previewLines = FilePreviewLoader::previewLines;
    // Files that only have a raw preview (images, binaries) are fetched up to this size.
    static constexpr qint64 maxRawPreviewBytes = FilePreviewLoader::maxRawPreviewBytes;

    explicit FilesPage(QWidget *parent = nullptr);
    ~FilesPage() override;

    // Not owned; nullptr means "not connected". Browsing starts once client and identity are set.
    void setClient(OpenTerminalClient *client);
    // Acting as another user starts read-only.
    void setIdentity(const Identity &identity, FileOperations::Acting acting);
    Identity identity() const { return m_identity; }
    void setAuditContext(const QString &profileName, const QString &serverText);
    // Not owned; nullptr restores the dialogs.
    void setPrompter(FilesPrompter *prompter);

    bool isReadOnly() const;
    void setReadOnly(bool readOnly);

    // Selects the path (listing the folders on the way), e.g. "/home/bob" to see why it is
    // refused. A path outside the home is added as another top-level folder.
    void goToPath(const QString &absolutePath);
    // Shows only the chat folder (the tree is re-rooted there).
    void showChat(const QString &chatPath);
    // Shows the whole home again.
    void showHome();
    // The selected item's path, else the root folder's.
    QString currentPath() const;
    // Something may have changed the files (a command in the Console, a run's turn): the open
    // folder, the selected one and the chat list are listed again (changes merged in place).
    void refreshAfterChange();
    // While the page is visible the open folder is listed again this often (0: never).
    static constexpr int watchIntervalMs = 10000;
    void setWatchInterval(int ms);
    // The folder the tree shows (a chat), or empty when it shows the top-level folders.
    QString rootPath() const;
    // Where uploads and new items go: the selected folder, the selected file's folder, or the root.
    QString targetFolder() const;

    // Uploads local files into a remote folder (what a drop does), asking before replacing.
    void uploadFiles(const QStringList &localPaths, const QString &remoteDirectory);
    // What dropping `mime` onto `viewIndex` of the tree does.
    void dropFiles(const QMimeData *mime, const QModelIndex &viewIndex);

    RemoteFileModel *fileModel() const { return m_model; }
    FileFilterProxy *fileProxy() const { return m_proxy; }
    ChatIndexModel *chatModel() const { return m_chats; }
    FileOperations *operations() const { return m_operations; }
    FileTreeView *treeView() const;
    QTreeView *chatView() const;
    BreadcrumbBar *breadcrumb() const;
    PreviewPane *preview() const;
    QLineEdit *filterEdit() const { return m_filter; }
    MessageBar *messageBar() const;
    QToolBar *toolBar() const { return m_toolBar; }
    QString readOnlyBannerText() const;
    bool isReadOnlyBannerShown() const;
    // True while a preview request is in flight.
    bool isPreviewLoading() const;
    // Operations started and not yet finished.
    int pendingOperations() const;

    QAction *uploadAction() const { return m_upload; }
    QAction *downloadAction() const { return m_download; }
    QAction *newFolderAction() const { return m_newFolder; }
    QAction *newFileAction() const { return m_newFile; }
    QAction *editAction() const { return m_edit; }
    QAction *renameAction() const { return m_rename; }
    QAction *deleteAction() const { return m_delete; }
    QAction *refreshAction() const { return m_refresh; }
    QAction *readOnlyAction() const { return m_readOnly; }
    QAction *hiddenAction() const { return m_hidden; }
    // Every action that changes files on the server.
    QList<QAction *> mutatingActions() const;

public Q_SLOTS:
    void upload();
    void download();
    void newFolder();
    void newTextFile();
    void editSelected();
    void renameSelected();
    void deleteSelected();
    // Lists the selected folder (or the selected file's folder) again; the rest stays expanded.
    void refreshSelected();
    void reloadChats();
    // Fetches the whole of the previewed text file.
    void loadAll();

Q_SIGNALS:
    // The previewed file is a Claude stream-json log the user wants in the run view.
    void openRunRequested(const QString &remotePath);

private:
    void showReadOnlyState(bool readOnly);
    QString describeMissing(const QString &path) const;
    void watchOpenFolder();
    void createActions();
    void applyColumnLayout();
    void start();
    FileSelection selected() const;
    // The folder the tree shows: the root (a chat), else the home.
    QString rootFolder() const;
    QModelIndex viewIndexOf(const QModelIndex &source) const;
    QModelIndex sourceIndexOf(const QModelIndex &viewIndex) const;
    void currentChanged(const QModelIndex &viewIndex);
    void updateActions();
    void updateReadOnlyBanner();
    void updateChatsState();
    void continueNavigation();
    void finishNavigation(const QModelIndex &source);
    void setRoot(const QModelIndex &source);
    void folderFinished(const QString &path);

    FilesPrompter *prompter() const;
    void previewSelected();
    void refreshFolderOf(const QString &path);

    std::unique_ptr<Ui::FilesPage> m_ui;
    QPointer<OpenTerminalClient> m_client;
    Identity m_identity;
    FileOperations::Acting m_acting = FileOperations::Acting::AsSelf;
    QString m_profileName;
    QString m_serverText;
    RemoteFileModel *m_model = nullptr;
    FileFilterProxy *m_proxy = nullptr;
    ChatIndexModel *m_chats = nullptr;
    FileOperations *m_operations = nullptr;
    DialogPrompter m_dialogs;
    FilesPrompter *m_prompter = nullptr;
    bool m_started = false;
    bool m_hasIdentity = false;
    FilePreviewLoader *m_previewLoader = nullptr;
    FileActions *m_fileActions = nullptr;

    QToolBar *m_toolBar = nullptr;
    QLineEdit *m_filter = nullptr;
    QAction *m_upload = nullptr;
    QAction *m_download = nullptr;
    QAction *m_newFolder = nullptr;
    QAction *m_newFile = nullptr;
    QAction *m_edit = nullptr;
    QAction *m_rename = nullptr;
    QAction *m_delete = nullptr;
    QAction *m_refresh = nullptr;
    QAction *m_readOnly = nullptr;
    QAction *m_hidden = nullptr;

    QString m_pendingPath; // navigation waiting for folders to be listed
    bool m_pendingAsRoot = false;
    bool m_navigationRefreshed = false; // the folder on the way was listed again once
    QSet<QString> m_refreshing; // folders being listed again at our request
    QTimer m_watchTimer; // lists the open folder again while the page is visible
    QTimer m_chatsReload; // one chat scan after a burst of changes (an upload of many files)
    QPersistentModelIndex m_root; // source index the view is rooted at (a chat), or invalid
};

} // namespace sandscope
