#include "filespage.h"

#include "files/breadcrumbbar.h"
#include "files/chatindexmodel.h"
#include "files/fileactions.h"
#include "files/filefilterproxy.h"
#include "files/fileitemdelegate.h"
#include "files/filepreviewloader.h"
#include "files/paintedlockicon.h"
#include "files/remotefilemodel.h"
#include "files/remotepaths.h"
#include "messagebar.h"
#include "previews/previewpage.h"
#include "previews/previewpane.h"
#include "security/auditlog.h"
#include "server/openterminalclient.h"
#include "ui_filespage.h"

#include <QAction>
#include <QHeaderView>
#include <QLineEdit>
#include <QMimeData>
#include <QSortFilterProxyModel>
#include <QToolBar>
#include <QToolButton>

namespace sandscope {

using remotepaths::parentPath;

namespace {

QIcon themeIcon(const QWidget *widget, const char *name, QStyle::StandardPixmap fallback)
{
    return QIcon::fromTheme(QLatin1String(name), widget->style()->standardIcon(fallback));
}

} // namespace

// ---------------------------------------------------------------------------------------------
// The page

FilesPage::FilesPage(QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::FilesPage>())
{
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("filesPage"));
    m_watchTimer.setInterval(watchIntervalMs);
    connect(&m_watchTimer, &QTimer::timeout, this, &FilesPage::watchOpenFolder);
    m_watchTimer.start();
    m_chatsReload.setSingleShot(true);
    m_chatsReload.setInterval(300);
    connect(&m_chatsReload, &QTimer::timeout, this, &FilesPage::reloadChats);

    m_proxy = new FileFilterProxy(this);
    auto *chatProxy = new QSortFilterProxyModel(this);
    chatProxy->setObjectName(QStringLiteral("chatProxy"));
    chatProxy->setSortRole(ChatIndexModel::SortRole);

    FileTreeView *tree = m_ui->treeView;
    tree->setModel(m_proxy);
    tree->setItemDelegate(new FileItemDelegate(tree));
    tree->sortByColumn(RemoteFileModel::NameColumn, Qt::AscendingOrder);
    tree->setContextMenuPolicy(Qt::ActionsContextMenu);
    tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    tree->setAnimated(false);
    tree->header()->setStretchLastSection(false);

    QTreeView *chats = m_ui->chatView;
    chats->setModel(chatProxy);
    chats->setEditTriggers(QAbstractItemView::NoEditTriggers);
    chats->sortByColumn(ChatIndexModel::LastActivityColumn, Qt::DescendingOrder);
    chats->header()->setStretchLastSection(false);
    // Per-column sizing is lost whenever a model resets; applied again each time.
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &FilesPage::applyColumnLayout);
    connect(chatProxy, &QAbstractItemModel::modelReset, this, &FilesPage::applyColumnLayout);
    QFont title = m_ui->chatsTitle->font();
    title.setBold(true);
    m_ui->chatsTitle->setFont(title);
    m_ui->homeButton->setIcon(themeIcon(this, "user-home", QStyle::SP_DirHomeIcon));
    m_ui->reloadChatsButton->setIcon(themeIcon(this, "view-refresh", QStyle::SP_BrowserReload));
    m_ui->leftSplitter->setStretchFactor(0, 1);
    m_ui->leftSplitter->setStretchFactor(1, 3);
    m_ui->leftSplitter->setSizes({150, 450});
    m_ui->mainSplitter->setStretchFactor(0, 3);
    m_ui->mainSplitter->setStretchFactor(1, 2);
    m_ui->mainSplitter->setSizes({680, 420});
    m_ui->pageLayout->setStretchFactor(m_ui->mainSplitter, 1);
    m_ui->busyIndicator->hide();
    m_ui->readOnlyBanner->hide();
    m_ui->readOnlyBanner->setObjectName(QStringLiteral("readOnlyBanner"));

    m_previewLoader = new FilePreviewLoader(m_ui->preview, this);
    m_previewLoader->setReadHook([this](const QString &path, const QString &result) {
        if (m_operations)
            m_operations->recordRead(QStringLiteral("preview"), path, result);
    });
    FileActionsHost host;
    host.page = this;
    host.messageBar = m_ui->messageBar;
    host.operationLabel = m_ui->operationLabel;
    host.busyIndicator = m_ui->busyIndicator;
    host.selection = [this] {
        return selected();
    };
    host.targetFolder = [this] {
        return targetFolder();
    };
    host.rootFolder = [this] {
        return rootFolder();
    };
    host.prompter = [this] {
        return prompter();
    };
    host.goToPath = [this](const QString &path) {
        goToPath(path);
    };
    host.previewSelected = [this] {
        previewSelected();
    };
    m_fileActions = new FileActions(std::move(host), this);

    createActions();

    connect(tree, &FileTreeView::filesDropped, this,
        [this](const QStringList &paths, const QModelIndex &target) {
            QMimeData mime;
            QList<QUrl> urls;
            for (const QString &path : paths)
                urls << QUrl::fromLocalFile(path);
            mime.setUrls(urls);
            dropFiles(&mime, target);
        });
    connect(tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
        [this](const QModelIndex &current) { currentChanged(current); });
    connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] { currentChanged({}); });
    connect(chats, &QTreeView::clicked, this, [this, chatProxy](const QModelIndex &index) {
        showChat(chatProxy->index(index.row(), 0).data(ChatIndexModel::PathRole).toString());
    });
    connect(chats, &QTreeView::activated, this, [this, chatProxy](const QModelIndex &index) {
        showChat(chatProxy->index(index.row(), 0).data(ChatIndexModel::PathRole).toString());
    });
    connect(m_ui->homeButton, &QToolButton::clicked, this, &FilesPage::showHome);
    connect(m_ui->reloadChatsButton, &QToolButton::clicked, this, &FilesPage::reloadChats);
    connect(m_ui->breadcrumb, &BreadcrumbBar::pathActivated, this, &FilesPage::goToPath);
    connect(m_ui->preview, &PreviewPane::loadAllRequested, this, &FilesPage::loadAll);
    connect(m_ui->preview, &PreviewPane::openRunRequested, this, [this] {
        const FileSelection item = selected();
        if (item.isValid() && !item.isDirectory)
            Q_EMIT openRunRequested(item.path);
    });

    setClient(nullptr);
}

FilesPage::~FilesPage()
{
    m_previewLoader->cancel();
}

void FilesPage::applyColumnLayout()
{
    QHeaderView *header = m_ui->treeView->header();
    if (header->count() == RemoteFileModel::ColumnCount) {
        header->setSectionResizeMode(RemoteFileModel::NameColumn, QHeaderView::Stretch);
        header->setSectionResizeMode(RemoteFileModel::SizeColumn, QHeaderView::Interactive);
        const QFontMetrics metrics(m_ui->treeView->font());
        const QString sampleTime = QLocale().toString(
            QDateTime(QDate(2026, 12, 28), QTime(23, 59)), QLocale::ShortFormat);
        header->resizeSection(
            RemoteFileModel::SizeColumn, metrics.horizontalAdvance(QStringLiteral("000.00 KiB")));
        header->resizeSection(
            RemoteFileModel::ModifiedColumn, metrics.horizontalAdvance(sampleTime) + 10);
        header->resizeSection(
            RemoteFileModel::TypeColumn, metrics.horizontalAdvance(QStringLiteral("Markdown doc")));
    }
    QHeaderView *chatHeader = m_ui->chatView->header();
    if (chatHeader->count() == ChatIndexModel::ColumnCount) {
        chatHeader->setSectionResizeMode(ChatIndexModel::ChatColumn, QHeaderView::Stretch);
        chatHeader->setSectionResizeMode(ChatIndexModel::SizeColumn, QHeaderView::ResizeToContents);
        chatHeader->setSectionResizeMode(
            ChatIndexModel::LastActivityColumn, QHeaderView::ResizeToContents);
    }
}

void FilesPage::createActions()
{
    m_toolBar = new QToolBar(this);
    m_toolBar->setObjectName(QStringLiteral("filesToolBar"));
    m_toolBar->setIconSize(QSize(18, 18));
    m_toolBar->setToolButtonStyle(Qt::ToolButtonIconOnly);
    m_ui->pageLayout->insertWidget(0, m_toolBar);

    const auto make = [this](const QString &text, const QIcon &icon, const QString &tip,
                          const QKeySequence &shortcut, void (FilesPage::*slot)()) {
        auto *action = new QAction(icon, text, this);
        action->setProperty("baseToolTip", tip);
        action->setToolTip(tip);
        if (!shortcut.isEmpty()) {
            action->setShortcut(shortcut);
            action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        }
        connect(action, &QAction::triggered, this, slot);
        addAction(action);
        return action;
    };
    m_upload = make(tr("Upload…"), themeIcon(this, "document-import", QStyle::SP_ArrowUp),
        tr("Upload local files into the selected folder (or drop files onto a folder)"),
        QKeySequence(tr("Ctrl+U")), &FilesPage::upload);
    m_download = make(tr("Download…"), themeIcon(this, "document-save", QStyle::SP_ArrowDown),
        tr("Save the selected file, or the selected folder as a ZIP archive"),
        QKeySequence(tr("Ctrl+S")), &FilesPage::download);
    m_newFolder
        = make(tr("New Folder…"), themeIcon(this, "folder-new", QStyle::SP_FileDialogNewFolder),
            tr("Create a folder in the selected folder"), QKeySequence(tr("Ctrl+Shift+N")),
            &FilesPage::newFolder);
    m_newFile = make(tr("New Text File…"), themeIcon(this, "document-new", QStyle::SP_FileIcon),
        tr("Create a text file in the selected folder"), QKeySequence(tr("Ctrl+Alt+N")),
        &FilesPage::newTextFile);
    m_edit = make(tr("Edit…"), themeIcon(this, "document-edit", QStyle::SP_FileDialogContentsView),
        tr("Edit the selected text file and save it to the server"), QKeySequence(tr("Ctrl+E")),
        &FilesPage::editSelected);
    m_rename = make(tr("Rename or Move…"),
        themeIcon(this, "edit-rename", QStyle::SP_FileDialogDetailedView),
        tr("Rename the selected item; a path moves it"), QKeySequence(Qt::Key_F2),
        &FilesPage::renameSelected);
    m_delete = make(tr("Delete…"), themeIcon(this, "edit-delete", QStyle::SP_TrashIcon),
        tr("Delete the selected file or folder"), QKeySequence(QKeySequence::Delete),
        &FilesPage::deleteSelected);
    m_refresh = make(tr("Refresh"), themeIcon(this, "view-refresh", QStyle::SP_BrowserReload),
        tr("List the selected folder again; other folders stay as they are (F5)"),
        QKeySequence(Qt::Key_F5), &FilesPage::refreshSelected);

    m_readOnly = new QAction(this);
    m_readOnly->setObjectName(QStringLiteral("readOnlyAction"));
    m_readOnly->setCheckable(true);
    showReadOnlyState(false);
    connect(m_readOnly, &QAction::toggled, this, &FilesPage::showReadOnlyState);
    connect(m_readOnly, &QAction::triggered, this, [this](bool checked) {
        setReadOnly(checked);
        // Lifting the guard is a deliberate act on someone's files: keep a record of it.
        AuditEntry entry;
        entry.profile = m_profileName;
        entry.server = m_serverText;
        entry.userId = m_identity.userId;
        entry.action = checked ? QStringLiteral("read-only") : QStringLiteral("read-write");
        entry.target = QStringLiteral("files");
        entry.result = QStringLiteral("ok");
        AuditLog().append(entry);
    });

    m_hidden
        = new QAction(QIcon::fromTheme(QStringLiteral("view-hidden")), tr("Hidden Files"), this);
    m_hidden->setCheckable(true);
    m_hidden->setToolTip(tr("Show files and folders whose names start with a dot"));
    connect(m_hidden, &QAction::toggled, m_proxy, &FileFilterProxy::setShowHidden);

    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("nameFilter"));
    m_filter->setPlaceholderText(tr("Filter names (* and ? allowed)"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMaximumWidth(240);
    m_filter->setToolTip(tr("Shows matching names among the folders listed so far (Ctrl+F)"));
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &FileFilterProxy::setNameFilter);
    auto *focusFilter = new QAction(this);
    focusFilter->setShortcut(QKeySequence::Find);
    focusFilter->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(focusFilter, &QAction::triggered, m_filter,
        [this] { m_filter->setFocus(Qt::ShortcutFocusReason); });
    addAction(focusFilter);

    m_toolBar->addAction(m_upload);
    m_toolBar->addAction(m_download);
    m_toolBar->addSeparator();
    m_toolBar->addAction(m_newFolder);
    m_toolBar->addAction(m_newFile);
    m_toolBar->addAction(m_edit);
    m_toolBar->addAction(m_rename);
    m_toolBar->addAction(m_delete);
    m_toolBar->addSeparator();
    m_toolBar->addAction(m_refresh);
    m_toolBar->addSeparator();
    m_toolBar->addAction(m_readOnly);
    auto *spacer = new QWidget(m_toolBar);
    spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_toolBar->addWidget(spacer);
    m_toolBar->addAction(m_hidden);
    m_toolBar->addWidget(m_filter);
    for (QAction *action : {m_upload, m_download, m_readOnly, m_hidden}) {
        if (auto *button = qobject_cast<QToolButton *>(m_toolBar->widgetForAction(action)))
            button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    }

    m_ui->treeView->addActions({m_download, m_upload});
    auto *separator = new QAction(this);
    separator->setSeparator(true);
    m_ui->treeView->addActions({separator, m_newFolder, m_newFile, m_edit, m_rename, m_delete});
    auto *separator2 = new QAction(this);
    separator2->setSeparator(true);
    m_ui->treeView->addActions({separator2, m_refresh});
}

QList<QAction *> FilesPage::mutatingActions() const
{
    return {m_upload, m_newFolder, m_newFile, m_edit, m_rename, m_delete};
}

FileTreeView *FilesPage::treeView() const
{
    return m_ui->treeView;
}

QTreeView *FilesPage::chatView() const
{
    return m_ui->chatView;
}

BreadcrumbBar *FilesPage::breadcrumb() const
{
    return m_ui->breadcrumb;
}

PreviewPane *FilesPage::preview() const
{
    return m_ui->preview;
}

MessageBar *FilesPage::messageBar() const
{
    return m_ui->messageBar;
}

QString FilesPage::readOnlyBannerText() const
{
    return m_ui->readOnlyBanner->isHidden() ? QString() : m_ui->readOnlyBanner->text();
}

bool FilesPage::isReadOnlyBannerShown() const
{
    return !m_ui->readOnlyBanner->isHidden();
}

bool FilesPage::isPreviewLoading() const
{
    return m_previewLoader->isLoading();
}

// ---------------------------------------------------------------------------------------------
// Client and identity

void FilesPage::setClient(OpenTerminalClient *client)
{
    if (m_model && client == m_client) {
        if (client && !m_started)
            start();
        return;
    }
    m_previewLoader->setClient(client);
    const bool readOnly = m_operations ? m_operations->isReadOnly() : false;
    // The models are bound to one client: a new connection gets new ones.
    // Null each pointer as it goes: deleting the model makes the proxy emit signals whose
    // handlers look at these members.
    delete m_model;
    m_model = nullptr;
    delete m_chats;
    m_chats = nullptr;
    delete m_operations;
    m_operations = nullptr;
    m_client = client;
    m_started = false;
    m_root = QPersistentModelIndex();
    m_pendingPath.clear();
    m_refreshing.clear();

    m_model = new RemoteFileModel(client, this);
    m_model->setIdentity(m_identity);
    m_proxy->setSourceModel(m_model);
    connect(m_model, &RemoteFileModel::homeResolved, this, [this](const QString &home) {
        m_ui->breadcrumb->setHomePath(home);
        const QModelIndex homeIndex = m_model->indexForPath(home);
        m_ui->treeView->expand(viewIndexOf(homeIndex));
        if (m_pendingPath.isEmpty() && !m_ui->treeView->currentIndex().isValid())
            m_ui->breadcrumb->setPath(home);
        continueNavigation();
        updateActions();
    });
    connect(m_model, &RemoteFileModel::homeFailed, this, [this](const ApiError &error) {
        m_pendingPath.clear();
        m_ui->messageBar->showMessage(
            tr("Cannot open the home folder of %1: %2")
                .arg(m_identity.isServerAccount() ? tr("the server account") : m_identity.userId,
                    error.toString()),
            MessageBar::Level::Error);
    });
    // A folder listed while acting as another user is a read of theirs (FileOperations records
    // it only then), like `files ls --user`.
    connect(m_model, &RemoteFileModel::folderLoaded, this, [this](const QString &path) {
        if (m_operations)
            m_operations->recordRead(QStringLiteral("list-files"), path, QStringLiteral("ok"));
        folderFinished(path);
    });
    connect(m_model, &RemoteFileModel::folderFailed, this,
        [this](const QString &path, const ApiError &error) {
            if (m_operations)
                m_operations->recordRead(QStringLiteral("list-files"), path, error.toString());
            folderFinished(path);
        });

    m_chats = new ChatIndexModel(client, this);
    m_chats->setIdentity(m_identity);
    auto *chatProxy = qobject_cast<QSortFilterProxyModel *>(m_ui->chatView->model());
    chatProxy->setSourceModel(m_chats);
    connect(m_chats, &ChatIndexModel::loaded, this, &FilesPage::updateChatsState);
    connect(m_chats, &ChatIndexModel::failed, this, &FilesPage::updateChatsState);
    connect(m_chats, &QAbstractItemModel::rowsInserted, this, &FilesPage::updateChatsState);
    connect(m_chats, &QAbstractItemModel::modelReset, this, &FilesPage::updateChatsState);

    m_operations = new FileOperations(client, this);
    m_operations->setIdentity(m_identity, m_acting);
    m_operations->setReadOnly(readOnly || m_acting == FileOperations::Acting::AsOtherUser);
    m_operations->setAuditContext(m_profileName, m_serverText);
    connect(m_operations, &FileOperations::readOnlyChanged, this, [this](bool nowReadOnly) {
        m_readOnly->setChecked(nowReadOnly);
        updateReadOnlyBanner();
        updateActions();
    });
    connect(
        m_operations, &FileOperations::finished, this, [this](const FileOperationResult &result) {
            if (result.status == FileOperationResult::Status::ReadOnly)
                return;
            if (result.action == QLatin1String("upload") || result.action == QLatin1String("move"))
                refreshFolderOf(result.destination.isEmpty() ? result.path : result.destination);
            if (result.action != QLatin1String("upload"))
                refreshFolderOf(result.path);
            // The Chats list's sizes and last activities follow every change.
            if (result.changesFiles())
                m_chatsReload.start();
        });
    m_readOnly->setChecked(m_operations->isReadOnly());
    m_fileActions->setSession(client, m_model, m_operations);

    m_ui->preview->clear();
    m_ui->breadcrumb->setHomePath(QString());
    m_ui->breadcrumb->setPath(QString());
    if (client)
        start();
    else
        m_ui->preview->messagePage()->setMessage(
            tr("Not connected. Connect to a server to browse its files."),
            PreviewPage::Severity::Note);
    updateChatsState();
    updateReadOnlyBanner();
    updateActions();
}

void FilesPage::setIdentity(const Identity &identity, FileOperations::Acting acting)
{
    const bool same = identity == m_identity && acting == m_acting && m_hasIdentity;
    m_hasIdentity = true;
    m_identity = identity;
    m_acting = acting;
    if (same && m_started) {
        return;
    }
    m_previewLoader->setIdentity(identity);
    m_root = QPersistentModelIndex();
    m_pendingPath.clear();
    m_refreshing.clear();
    m_ui->messageBar->dismiss();
    m_ui->breadcrumb->setHomePath(QString());
    m_ui->breadcrumb->setPath(QString());
    m_ui->preview->clear();
    m_model->setIdentity(identity);
    m_chats->setIdentity(identity);
    m_operations->setIdentity(identity, acting);
    m_readOnly->setChecked(m_operations->isReadOnly());
    m_started = false;
    if (m_client)
        start();
    updateReadOnlyBanner();
    updateActions();
}

void FilesPage::setAuditContext(const QString &profileName, const QString &serverText)
{
    m_profileName = profileName;
    m_serverText = serverText;
    if (m_operations)
        m_operations->setAuditContext(profileName, serverText);
}

void FilesPage::setPrompter(FilesPrompter *prompter)
{
    m_prompter = prompter;
}

FilesPrompter *FilesPage::prompter() const
{
    return m_prompter ? m_prompter : const_cast<DialogPrompter *>(&m_dialogs);
}

// A path the server does not list: outside the acting user's home that is most likely the
// server keeping another user's files from this one, not a missing file.
QString FilesPage::describeMissing(const QString &path) const
{
    const QString home = m_model ? m_model->homePath() : QString();
    const bool outsideHome
        = !home.isEmpty() && path != home && !path.startsWith(home + QLatin1Char('/'));
    if (outsideHome && path.startsWith(QLatin1String("/home/")))
        return tr("%1 is not allowed for %2: it is outside this user's home, and the server "
                  "does not show it (or it does not exist).")
            .arg(path, m_identity.isServerAccount() ? tr("the server account") : m_identity.userId);
    return tr("%1 does not exist (any more).").arg(path);
}

// The control says the state it is in: a closed lock and "Read-only", or an open lock and
// "Read-write"; the tooltip says what a click does.
void FilesPage::showReadOnlyState(bool readOnly)
{
    const QColor lockColour = palette().color(QPalette::WindowText);
    QIcon lock = QIcon::fromTheme(
        readOnly ? QStringLiteral("object-locked") : QStringLiteral("object-unlocked"));
    if (lock.isNull())
        lock = paintedLockIcon(readOnly, lockColour);
    m_readOnly->setIcon(lock);
    m_readOnly->setText(readOnly ? tr("Read-only") : tr("Read-write"));
    m_readOnly->setToolTip(readOnly
            ? tr("Read-only: nothing on the server can be changed from this page. Click to "
                 "allow changes (recorded in the audit log). Acting as another user starts "
                 "read-only.")
            : tr("Read-write: files can be changed from this page. Click to make it "
                 "read-only."));
}

bool FilesPage::isReadOnly() const
{
    return m_operations && m_operations->isReadOnly();
}

void FilesPage::setReadOnly(bool readOnly)
{
    if (m_operations)
        m_operations->setReadOnly(readOnly);
    m_readOnly->setChecked(isReadOnly());
}

void FilesPage::start()
{
    // Without an identity the requests would go out as the (privileged) server account.
    if (!m_client || !m_model || !m_hasIdentity)
        return;
    m_started = true;
    m_model->openHome();
    m_chats->reload();
    updateChatsState();
}

// ---------------------------------------------------------------------------------------------
// Selection and navigation

QModelIndex FilesPage::viewIndexOf(const QModelIndex &source) const
{
    return source.isValid() ? m_proxy->mapFromSource(source) : QModelIndex();
}

QModelIndex FilesPage::sourceIndexOf(const QModelIndex &viewIndex) const
{
    if (!viewIndex.isValid())
        return QModelIndex();
    return m_proxy->mapToSource(viewIndex.siblingAtColumn(RemoteFileModel::NameColumn));
}

FileSelection FilesPage::selected() const
{
    if (!m_model)
        return {};
    return FileSelection::of(sourceIndexOf(m_ui->treeView->currentIndex()));
}

QString FilesPage::rootPath() const
{
    return m_root.isValid() ? m_model->pathOf(m_root) : QString();
}

QString FilesPage::rootFolder() const
{
    const QString root = rootPath();
    return root.isEmpty() && m_model ? m_model->homePath() : root;
}

QString FilesPage::currentPath() const
{
    const FileSelection item = selected();
    if (item.isValid())
        return item.path;
    return rootFolder();
}

QString FilesPage::targetFolder() const
{
    const FileSelection item = selected();
    if (item.isValid())
        return item.isDirectory ? item.path : parentPath(item.path);
    return rootFolder();
}

void FilesPage::currentChanged(const QModelIndex &)
{
    m_ui->breadcrumb->setPath(currentPath());
    updateActions();
    previewSelected();
}

void FilesPage::goToPath(const QString &absolutePath)
{
    m_pendingPath = remotepaths::normalizedPath(absolutePath);
    // One root, the acting user's home: a folder above it ("/home", "/" in the breadcrumb)
    // leads to the home rather than becoming a second root beside it.
    if (m_model && remotepaths::isAbove(m_pendingPath, m_model->homePath()))
        m_pendingPath = m_model->homePath();
    m_pendingAsRoot = false;
    m_navigationRefreshed = false;
    continueNavigation();
}

void FilesPage::showChat(const QString &chatPath)
{
    m_pendingPath = remotepaths::normalizedPath(chatPath);
    m_pendingAsRoot = true;
    m_navigationRefreshed = false;
    continueNavigation();
}

void FilesPage::showHome()
{
    m_pendingPath.clear();
    setRoot(QModelIndex());
    m_ui->chatView->clearSelection();
    if (m_model && !m_model->homePath().isEmpty())
        goToPath(m_model->homePath());
}

void FilesPage::continueNavigation()
{
    if (m_pendingPath.isEmpty() || !m_model)
        return;
    const QModelIndex target = m_model->indexForPath(m_pendingPath);
    if (target.isValid()) {
        finishNavigation(target);
        return;
    }
    // The deepest folder on the way that is known; list it and come back.
    QString ancestorPath = m_pendingPath;
    QModelIndex ancestor;
    while (!ancestor.isValid() && ancestorPath.size() > 1) {
        ancestorPath = parentPath(ancestorPath);
        ancestor = m_model->indexForPath(ancestorPath);
    }
    if (!ancestor.isValid()) {
        if (m_started && m_model->homePath().isEmpty() && m_model->rowCount() == 0)
            return; // the home is still being resolved; it may contain the path
        finishNavigation(m_model->addLocation(m_pendingPath));
        return;
    }
    switch (m_model->loadState(ancestor)) {
    case RemoteFileModel::LoadState::NotLoaded:
        m_model->fetchMore(ancestor);
        return;
    case RemoteFileModel::LoadState::Loading:
        return; // folderLoaded/folderFailed come back here
    case RemoteFileModel::LoadState::Loaded:
        if (m_refreshing.contains(ancestorPath))
            return; // being listed again; the path may be new
        if (!m_navigationRefreshed) {
            // Listed before the path was made (e.g. by a command): ask once more.
            m_navigationRefreshed = true;
            m_refreshing.insert(ancestorPath);
            m_model->refresh(ancestor);
            return;
        }
        m_ui->messageBar->showMessage(describeMissing(m_pendingPath), MessageBar::Level::Warning);
        finishNavigation(ancestor);
        return;
    case RemoteFileModel::LoadState::Failed:
        finishNavigation(ancestor);
        return;
    }
}

void FilesPage::finishNavigation(const QModelIndex &source)
{
    const bool asRoot = m_pendingAsRoot;
    m_pendingPath.clear();
    m_pendingAsRoot = false;
    if (!source.isValid())
        return;
    const bool isDirectory = source.data(RemoteFileModel::IsDirectoryRole).toBool();
    FileTreeView *tree = m_ui->treeView;
    if (asRoot && isDirectory) {
        setRoot(source);
        if (m_model->canFetchMore(source))
            m_model->fetchMore(source);
        tree->setCurrentIndex(QModelIndex());
        currentChanged(QModelIndex());
        return;
    }
    // The view must show the target: leave a chat view that does not contain it.
    bool insideRoot = !m_root.isValid();
    for (QModelIndex up = source.parent(); up.isValid() && !insideRoot; up = up.parent())
        insideRoot = m_root == up;
    if (!insideRoot)
        setRoot(QModelIndex());
    for (QModelIndex up = source.parent(); up.isValid(); up = up.parent())
        tree->expand(viewIndexOf(up));
    const QModelIndex view = viewIndexOf(source);
    if (!view.isValid()) {
        m_ui->messageBar->showMessage(
            tr("%1 is hidden by the name filter or the hidden-files setting.")
                .arg(source.data(RemoteFileModel::PathRole).toString()),
            MessageBar::Level::Information);
        return;
    }
    tree->setCurrentIndex(view);
    tree->scrollTo(view);
    if (isDirectory) {
        if (m_model->canFetchMore(source))
            m_model->fetchMore(source);
        tree->expand(view);
    }
}

void FilesPage::setRoot(const QModelIndex &source)
{
    m_root = QPersistentModelIndex(source);
    m_ui->treeView->setRootIndex(viewIndexOf(source));
    if (!source.isValid())
        m_ui->chatView->clearSelection();
    m_ui->breadcrumb->setPath(currentPath());
}

void FilesPage::folderFinished(const QString &path)
{
    m_refreshing.remove(path);
    const QModelIndex folder = m_model->indexForPath(path);
    const QModelIndex view = viewIndexOf(folder);
    if (view.isValid()) {
        // A refused folder's reason gets the whole row.
        const bool failed = m_model->loadState(folder) == RemoteFileModel::LoadState::Failed;
        m_ui->treeView->setFirstColumnSpanned(view.row(), view.parent(), failed);
    }
    const FileSelection item = selected();
    if (item.isValid() && item.isDirectory && item.path == path)
        previewSelected();
    continueNavigation();
    updateActions();
}

void FilesPage::refreshAfterChange()
{
    if (!m_model || !m_client || m_model->homePath().isEmpty())
        return;
    // Only folders already listed: nothing new is fetched, and what is open stays open.
    QStringList folders {rootPath().isEmpty() ? m_model->homePath() : rootPath()};
    const FileSelection item = selected();
    if (item.isValid())
        folders << m_model->pathOf(item.isDirectory ? item.source : item.source.parent());
    folders.removeDuplicates();
    for (const QString &folder : std::as_const(folders)) {
        if (m_model->refreshPath(folder))
            m_refreshing.insert(folder);
    }
    reloadChats();
}

void FilesPage::setWatchInterval(int ms)
{
    m_watchTimer.setInterval(ms);
    if (ms <= 0)
        m_watchTimer.stop();
}

// Files change without Sandscope knowing (a run, Open WebUI, another session): the open folder
// is listed again now and then while someone looks at it.
void FilesPage::watchOpenFolder()
{
    if (!isVisible() || !m_model || !m_client || m_model->homePath().isEmpty())
        return;
    const QString folder = rootPath().isEmpty() ? m_model->homePath() : rootPath();
    if (!m_refreshing.contains(folder) && m_model->refreshPath(folder))
        m_refreshing.insert(folder);
}

void FilesPage::refreshSelected()
{
    if (!m_model || !m_client)
        return;
    const FileSelection item = selected();
    QModelIndex folder;
    if (item.isValid())
        folder = item.isDirectory ? item.source : item.source.parent();
    if (!folder.isValid())
        folder
            = m_root.isValid() ? QModelIndex(m_root) : m_model->indexForPath(m_model->homePath());
    if (!folder.isValid()) {
        start();
        return;
    }
    m_model->refresh(folder);
    m_refreshing.insert(m_model->pathOf(folder));
    if (item.isValid() && !item.isDirectory)
        previewSelected();
    if (m_model->pathOf(folder) == m_model->homePath())
        reloadChats();
}

void FilesPage::refreshFolderOf(const QString &path)
{
    if (!m_model || path.isEmpty())
        return;
    const QString folder = parentPath(path);
    if (m_model->refreshPath(folder))
        m_refreshing.insert(folder);
}

void FilesPage::reloadChats()
{
    if (m_client && m_chats)
        m_chats->reload();
    updateChatsState();
}

void FilesPage::updateChatsState()
{
    QLabel *label = m_ui->chatsState;
    const ScanState state = m_chats ? m_chats->state() : ScanState::Idle;
    const int count = m_chats ? m_chats->rowCount() : 0;
    label->setStyleSheet(QString());
    label->setToolTip(QString());
    switch (state) {
    case ScanState::Idle:
        label->setText(m_client ? QString() : tr("not connected"));
        break;
    case ScanState::Loading:
        label->setText(
            count > 0 ? tr("%n so far, measuring\u2026", "", count) : tr("measuring\u2026"));
        break;
    case ScanState::Loaded:
        label->setText(count > 0 ? tr("%n in ~", "", count) : tr("none in ~"));
        break;
    case ScanState::Failed:
    case ScanState::Refused:
        label->setText(tr("could not be listed"));
        label->setToolTip(m_chats->errorText());
        label->setStyleSheet(QStringLiteral("color: #c62828;"));
        break;
    }
    m_ui->reloadChatsButton->setEnabled(m_client != nullptr);
    m_ui->homeButton->setEnabled(m_client != nullptr);
}

// ---------------------------------------------------------------------------------------------
// Actions and the read-only guard

void FilesPage::updateReadOnlyBanner()
{
    QLabel *banner = m_ui->readOnlyBanner;
    const QString who = m_identity.isServerAccount()
        ? tr("the server account")
        : QStringLiteral("\u201c%1\u201d").arg(m_identity.userId.toHtmlEscaped());
    if (!m_client) {
        banner->hide();
        return;
    }
    if (isReadOnly()) {
        banner->setText(tr("<b>READ-ONLY</b> \u2014 browsing the files of %1. Nothing on the "
                           "server can be changed from here until you turn off "
                           "\u201cRead-only\u201d in the toolbar.")
                            .arg(who));
        banner->setStyleSheet(QStringLiteral("QLabel { background: #fff8e1; color: #5d4037; "
                                             "border: 1px solid #ffb300; border-radius: 3px; "
                                             "padding: 4px 8px; }"));
        banner->show();
    } else if (m_acting == FileOperations::Acting::AsOtherUser) {
        banner->setText(tr("<b>READ-WRITE</b> \u2014 changes affect the files of %1, not your "
                           "own. Every change is recorded in the audit log.")
                            .arg(who));
        banner->setStyleSheet(QStringLiteral("QLabel { background: #fdecea; color: #7f1d1d; "
                                             "border: 1px solid #e53935; border-radius: 3px; "
                                             "padding: 4px 8px; }"));
        banner->show();
    } else {
        banner->hide();
    }
}

void FilesPage::updateActions()
{
    const bool connected = m_client && m_model && !m_model->homePath().isEmpty();
    const FileSelection item = selected();
    const bool readOnly = isReadOnly();
    const bool hasTarget = connected && !targetFolder().isEmpty();
    const QString readOnlyWhy
        = tr("Read-only mode is on: turn off \u201cRead-only\u201d (the lock) to change files.");
    const auto apply = [&](QAction *action, bool mutating, bool possible, const QString &whyNot) {
        const QString base = action->property("baseToolTip").toString();
        action->setEnabled(possible && !(mutating && readOnly));
        if (mutating && readOnly)
            action->setToolTip(base + QLatin1Char('\n') + readOnlyWhy);
        else if (!possible && !whyNot.isEmpty())
            action->setToolTip(base + QLatin1Char('\n') + whyNot);
        else
            action->setToolTip(base);
    };
    const QString notConnected = tr("Not connected.");
    const QString selectSomething = connected ? tr("Select a file or folder first.") : notConnected;
    apply(m_upload, true, hasTarget, notConnected);
    apply(m_newFolder, true, hasTarget, notConnected);
    apply(m_newFile, true, hasTarget, notConnected);
    apply(m_download, false, connected && item.isValid(), selectSomething);
    apply(m_edit, true,
        connected && item.isValid() && !item.isDirectory
            && FilePreviewLoader::isEditableText(item.mimeType),
        connected ? tr("Select a text file first.") : notConnected);
    apply(m_rename, true, connected && item.isValid() && !item.isLocation,
        item.isLocation ? tr("A top-level folder cannot be renamed here.") : selectSomething);
    apply(m_delete, true, connected && item.isValid() && !item.isLocation,
        item.isLocation ? tr("A top-level folder cannot be deleted here.") : selectSomething);
    apply(m_refresh, false, m_client != nullptr, notConnected);
    m_readOnly->setEnabled(m_client != nullptr);
    m_ui->treeView->setAcceptingFiles(!readOnly);
}

// ---------------------------------------------------------------------------------------------
// Preview and file actions, done by FilePreviewLoader and FileActions

void FilesPage::previewSelected()
{
    m_previewLoader->show(selected(), m_model);
}

void FilesPage::loadAll()
{
    m_previewLoader->loadAll(selected());
}

int FilesPage::pendingOperations() const
{
    return m_fileActions->pendingOperations();
}

void FilesPage::upload()
{
    m_fileActions->upload();
}

void FilesPage::uploadFiles(const QStringList &localPaths, const QString &remoteDirectory)
{
    m_fileActions->uploadFiles(localPaths, remoteDirectory);
}

void FilesPage::dropFiles(const QMimeData *mime, const QModelIndex &viewIndex)
{
    m_fileActions->dropFiles(mime, sourceIndexOf(viewIndex));
}

void FilesPage::download()
{
    m_fileActions->download();
}

void FilesPage::newFolder()
{
    m_fileActions->newFolder();
}

void FilesPage::newTextFile()
{
    m_fileActions->newTextFile();
}

void FilesPage::editSelected()
{
    m_fileActions->editSelected();
}

void FilesPage::renameSelected()
{
    m_fileActions->renameSelected();
}

void FilesPage::deleteSelected()
{
    m_fileActions->deleteSelected();
}

} // namespace sandscope
