#include "attachrundialog.h"

#include "ui_attachrundialog.h"

#include <QHeaderView>
#include <QPushButton>
#include <QSortFilterProxyModel>

namespace sandscope {

AttachRunDialog::AttachRunDialog(
    OpenTerminalClient *client, const Identity &identity, QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::AttachRunDialog>())
    , m_client(client)
    , m_identity(identity)
    , m_model(new DiscoveredRunModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    m_ui->setupUi(this);
    m_ui->introLabel->setText(
        tr("Runs of <b>%1</b> in its sandbox (~/.sandscope/runs). A running run is followed "
           "live and can be stopped; a finished one is shown to its end.")
            .arg(identity.userId.toHtmlEscaped()));
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setText(tr("&Attach"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(DiscoveredRunModel::SortRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(-1);
    m_ui->runView->setModel(m_proxy);
    m_ui->runView->sortByColumn(DiscoveredRunModel::LastWriteColumn, Qt::DescendingOrder);
    m_ui->runView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_ui->runView->horizontalHeader()->setSectionResizeMode(
        DiscoveredRunModel::PromptColumn, QHeaderView::Stretch);
    connect(m_ui->filterEdit, &QLineEdit::textChanged, m_proxy,
        &QSortFilterProxyModel::setFilterFixedString);
    connect(m_ui->refreshButton, &QPushButton::clicked, this, &AttachRunDialog::refresh);
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_ui->runView, &QAbstractItemView::activated, this, [this] {
        if (!selectedHandle().runId.isEmpty())
            accept();
    });
    connect(m_ui->runView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
        &AttachRunDialog::updateButtons);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &AttachRunDialog::updateButtons);
    updateButtons();
    refresh();
}

AttachRunDialog::~AttachRunDialog() = default;

void AttachRunDialog::refresh()
{
    delete m_request; // an older answer must not overwrite a newer one
    m_request = new QObject(this);
    m_loading = true;
    m_ui->refreshButton->setEnabled(false);
    m_ui->statusLabel->setText(tr("Looking for runs…"));
    rundiscovery::list(m_client, m_identity, m_request,
        [this](bool ok, const rundiscovery::Listing &listing, const QString &error) {
            m_request->deleteLater();
            m_request = nullptr;
            m_loading = false;
            m_ui->refreshButton->setEnabled(true);
            if (!ok) {
                m_ui->statusLabel->setText(tr("The runs could not be listed: %1").arg(error));
                Q_EMIT listingFinished(false);
                return;
            }
            m_model->setListing(listing);
            m_ui->statusLabel->setText(listing.runs.isEmpty()
                    ? tr("%1 has no runs in its sandbox.").arg(m_identity.userId)
                    : tr("%n run(s) in %1.", nullptr, int(listing.runs.size()))
                          .arg(listing.home + QStringLiteral("/.sandscope/runs")));
            if (m_proxy->rowCount() > 0)
                m_ui->runView->selectRow(0);
            Q_EMIT listingFinished(true);
        });
}

RunHandle AttachRunDialog::selectedHandle() const
{
    const QModelIndexList rows = m_ui->runView->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return {};
    const int row = m_proxy->mapToSource(rows.first()).row();
    return rundiscovery::handleFor(m_identity, m_model->listing().home, m_model->run(row));
}

void AttachRunDialog::updateButtons()
{
    m_ui->buttonBox->button(QDialogButtonBox::Ok)
        ->setEnabled(!m_ui->runView->selectionModel()->selectedRows().isEmpty());
}

} // namespace sandscope
