#include "artifactspanel.h"

#include "runs/artifactscanner.h"
#include "runs/rundelegate.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace sandscope {

ArtifactsPanel::ArtifactsPanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new ArtifactListModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    setObjectName(QStringLiteral("artifactsPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 0);
    layout->setSpacing(4);
    auto *bar = new QHBoxLayout;
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("artifactsStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_refresh = new QToolButton(this);
    m_refresh->setObjectName(QStringLiteral("artifactsRefreshButton"));
    m_refresh->setText(tr("Refresh"));
    m_refresh->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    m_refresh->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_refresh->setAutoRaise(true);
    m_refresh->setToolTip(tr("List the changed files again"));
    m_open = new QToolButton(this);
    m_open->setObjectName(QStringLiteral("artifactsOpenButton"));
    m_open->setText(tr("Open in Files"));
    m_open->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_open->setAutoRaise(true);
    m_open->setToolTip(tr("Show the file in the Files tab's preview, as the run's user (Enter)"));
    bar->addWidget(m_status, 1);
    bar->addWidget(m_refresh);
    bar->addWidget(m_open);
    layout->addLayout(bar);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ArtifactListModel::SortRole);
    m_view = new QTreeView(this);
    m_view->setObjectName(QStringLiteral("artifactsView"));
    m_view->setModel(m_proxy);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(ArtifactListModel::ModifiedColumn, Qt::DescendingOrder);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->header()->setSectionResizeMode(ArtifactListModel::PathColumn, QHeaderView::Stretch);
    m_view->header()->setStretchLastSection(false);
    layout->addWidget(m_view, 1);

    connect(m_refresh, &QToolButton::clicked, this, &ArtifactsPanel::refresh);
    m_refreshTimer.setInterval(refreshMs);
    connect(&m_refreshTimer, &QTimer::timeout, this, &ArtifactsPanel::refresh);
    connect(m_view, &QTreeView::activated, this, [this](const QModelIndex &index) {
        const QString path = index.data(ArtifactListModel::AbsolutePathRole).toString();
        if (!path.isEmpty())
            Q_EMIT openRequested(path);
    });
    connect(m_open, &QToolButton::clicked, this, [this] {
        const QString path = currentPath();
        if (!path.isEmpty())
            Q_EMIT openRequested(path);
    });
    const auto updateOpen = [this] {
        m_open->setEnabled(!currentPath().isEmpty());
    };
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, updateOpen);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, updateOpen);
    updateOpen();
    setUnavailable(tr("Files the run creates or changes in its chat folder are listed here."));
}

QString ArtifactsPanel::statusText() const
{
    return m_status->text();
}

QString ArtifactsPanel::currentPath() const
{
    return m_view->currentIndex().data(ArtifactListModel::AbsolutePathRole).toString();
}

void ArtifactsPanel::setStatus(const QString &text, bool isError)
{
    m_status->setText(text);
    m_status->setStyleSheet(isError
            ? QStringLiteral("QLabel { color: %1; }")
                  .arg(RunDelegate::statusColor(RunModel::Status::Error, palette()).name())
            : QString());
}

ArtifactsPanel::~ArtifactsPanel()
{
    // The scanner (a child) dies after this panel's widgets: what it reports on its way out
    // (an aborted request) must not reach them.
    if (m_scanner)
        QObject::disconnect(m_scanner, nullptr, this, nullptr);
}

void ArtifactsPanel::watch(OpenTerminalClient *client, const Identity &identity,
    const QString &workDirectory, const QString &reference)
{
    m_client = client;
    m_identity = identity;
    m_workDirectory = workDirectory;
    m_reference = reference;
    refresh();
}

void ArtifactsPanel::setTurnRunning(bool running)
{
    if (running) {
        m_refreshTimer.start();
        return;
    }
    m_refreshTimer.stop();
    refresh();
}

void ArtifactsPanel::refresh()
{
    if (!m_client || m_reference.isEmpty())
        return;
    if (!m_scanner) {
        m_scanner = new ArtifactScanner(m_client, this);
        connect(m_scanner, &ArtifactScanner::finished, this,
            [this](const QVector<ArtifactFile> &files, bool truncated) {
                setFiles(files, truncated);
                Q_EMIT listed(int(files.size()));
            });
        connect(m_scanner, &ArtifactScanner::failed, this, &ArtifactsPanel::setError);
    }
    setScanning();
    m_scanner->scan(m_identity, m_workDirectory, m_reference);
}

void ArtifactsPanel::setScanning()
{
    m_refresh->setEnabled(false);
    if (m_model->rowCount() == 0)
        setStatus(tr("Looking for files the run changed…"), false);
}

void ArtifactsPanel::setFiles(const QVector<ArtifactFile> &files, bool truncated)
{
    m_refresh->setEnabled(true);
    m_model->setFiles(files);
    if (files.isEmpty())
        setStatus(
            tr("No file in the chat folder was created or changed since the run started."), false);
    else if (truncated)
        setStatus(tr("More than %1 files changed since the run started; the newest %1 are listed.")
                      .arg(files.size()),
            false);
    else
        setStatus(
            tr("%n file(s) created or changed since the run started.", nullptr, int(files.size())),
            false);
    Q_EMIT countChanged(int(files.size()));
}

void ArtifactsPanel::setError(const QString &message)
{
    m_refresh->setEnabled(true);
    setStatus(message, true);
}

void ArtifactsPanel::setUnavailable(const QString &why)
{
    m_refresh->setEnabled(false);
    setStatus(why, false);
}

} // namespace sandscope
