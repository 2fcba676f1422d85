#include "usagepage.h"

#include "fleet/fleetfanout.h"
#include "messagebar.h"
#include "server/openterminalclient.h"
#include "ui_usagepage.h"
#include "usage/usagecollector.h"
#include "usage/usagemodel.h"
#include "usage/usagetoolsmodel.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QFile>
#include <QFileDialog>
#include <QHeaderView>
#include <QMessageBox>
#include <QSaveFile>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>

#if QT_VERSION < QT_VERSION_CHECK(6, 0, 0)
using namespace QtCharts;
#endif

namespace sandscope {

namespace {

// At most this many days in the chart (the latest); the table has every one.
constexpr int chartDays = 62;

const QList<int> metricColumns {UsageModel::CostColumn, UsageModel::InputTokensColumn,
    UsageModel::OutputTokensColumn, UsageModel::CacheReadColumn, UsageModel::CacheCreationColumn,
    UsageModel::SessionsColumn, UsageModel::TurnsColumn, UsageModel::ToolCallsColumn,
    UsageModel::ErrorsColumn};

int dayCount(const UsageReport &report)
{
    QSet<QDate> days;
    for (const UsageDay &day : report.days)
        days.insert(day.day);
    return int(days.size());
}

} // namespace

UsagePage::UsagePage(QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::UsagePage>())
    , m_collector(new UsageCollector(this))
    , m_model(new UsageModel(this))
    , m_toolsModel(new UsageToolsModel(this))
    , m_daysProxy(new QSortFilterProxyModel(this))
    , m_toolsProxy(new QSortFilterProxyModel(this))
{
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("usagePage"));

    for (int column : metricColumns)
        m_ui->metricCombo->addItem(
            m_model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString(), column);
    m_ui->toolsOrderCombo->addItem(tr("count"), int(UsageToolsModel::CallsColumn));
    m_ui->toolsOrderCombo->addItem(tr("time"), int(UsageToolsModel::TotalTimeColumn));
    m_ui->sinceEdit->setDate(QDate::currentDate().addDays(-30));
    m_ui->sinceEdit->setEnabled(false);
    m_ui->cancelButton->setEnabled(false);
    m_ui->exportButton->setEnabled(false);
    m_ui->progressBar->hide();

    m_daysProxy->setSourceModel(m_model);
    m_daysProxy->setSortRole(Qt::EditRole);
    m_ui->daysView->setModel(m_daysProxy);
    m_ui->daysView->sortByColumn(UsageModel::DayColumn, Qt::DescendingOrder);
    m_toolsProxy->setSourceModel(m_toolsModel);
    m_toolsProxy->setSortRole(Qt::EditRole);
    m_ui->toolsView->setModel(m_toolsProxy);
    m_ui->toolsView->sortByColumn(UsageToolsModel::CallsColumn, Qt::DescendingOrder);
    const QFontMetrics metrics(font());
    const auto fit = [&metrics](QTreeView *view, int column, const char *sample) {
        view->header()->resizeSection(
            column, metrics.horizontalAdvance(QLatin1String(sample)) + 24);
    };
    fit(m_ui->daysView, UsageModel::UserColumn, "user-name");
    fit(m_ui->daysView, UsageModel::DayColumn, "2026-12-01");
    for (int column = UsageModel::SessionsColumn; column < UsageModel::ColumnCount; ++column)
        fit(m_ui->daysView, column,
            column >= UsageModel::InputTokensColumn ? "12,345,678" : "Sessions");
    // A fleet's Member column comes and goes with the fleet: sized when it comes, and shown
    // beside the user.
    connect(m_daysProxy, &QAbstractItemModel::columnsInserted, m_ui->daysView, [this] {
        QHeaderView *header = m_ui->daysView->header();
        header->resizeSection(
            UsageModel::MemberColumn, fontMetrics().horizontalAdvance(m_longestMember) + 24);
        header->moveSection(header->visualIndex(UsageModel::MemberColumn),
            header->visualIndex(UsageModel::UserColumn) + 1);
    });
    fit(m_ui->toolsView, UsageToolsModel::NameColumn, "WebSearch____");
    fit(m_ui->toolsView, UsageToolsModel::TotalTimeColumn, "12 min 59 s");
    m_ui->tablesSplitter->setStretchFactor(0, 3);
    m_ui->tablesSplitter->setStretchFactor(1, 2);

    auto *chart = new QChart();
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignRight);
    auto *chartView = new QChartView(chart, m_ui->chartHolder);
    chartView->setRenderHint(QPainter::Antialiasing);
    chartView->setMinimumHeight(220);
    chartView->setObjectName(QStringLiteral("usageChart"));
    m_ui->chartLayout->addWidget(chartView);
    m_chartView = chartView;
    m_ui->splitter->setStretchFactor(0, 3);
    m_ui->splitter->setStretchFactor(1, 2);

    connect(m_ui->refreshButton, &QPushButton::clicked, this, &UsagePage::refresh);
    connect(m_ui->cancelButton, &QPushButton::clicked, this, &UsagePage::cancel);
    connect(m_ui->exportButton, &QPushButton::clicked, this, &UsagePage::exportFromDialog);
    connect(m_ui->allUsersCheck, &QCheckBox::toggled, this, &UsagePage::refresh);
    connect(m_ui->sinceCheck, &QCheckBox::toggled, m_ui->sinceEdit, &QWidget::setEnabled);
    connect(m_ui->metricCombo, QOverload<int>::of(&QComboBox::currentIndexChanged), this,
        &UsagePage::rebuildChart);
    connect(
        m_ui->toolsOrderCombo, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this] {
            m_ui->toolsView->sortByColumn(
                m_ui->toolsOrderCombo->currentData().toInt(), Qt::DescendingOrder);
        });
    connect(m_collector, &UsageCollector::progress, this,
        [this](qint64 done, qint64 total, const QString &phase) {
            m_ui->progressBar->setRange(0, total > 0 ? 1000 : 0);
            if (total > 0)
                m_ui->progressBar->setValue(int(done * 1000 / total));
            setStatus(phase + membersText(), true);
        });
    // A fleet: the members added up so far are shown while the others are still read, and a
    // member that failed is named at once.
    connect(m_collector, &UsageCollector::memberFinished, this,
        [this](const FanOutMemberResult &result) {
            ++m_membersAnswered;
            if (!result.ok)
                showMemberErrors(m_collector->memberErrors());
        });
    connect(m_collector, &UsageCollector::partialReport, this,
        [this](const UsageReport &report) { showReport(report, true); });
    connect(m_collector, &UsageCollector::finished, this, [this](const UsageReport &report) {
        const int asked = m_membersAsked;
        m_membersAsked = 0;
        showReport(report);
        if (asked == 0) {
            Q_EMIT collectionFinished(true);
            return;
        }
        // Complete only now: also the members whose answer had no home line.
        const QStringList &errors = m_collector->memberErrors();
        showMemberErrors(errors);
        setStatus(statusText() + QLatin1Char(' ')
                + tr("Figures of %1 of %n member(s).", nullptr, asked)
                      .arg(asked - int(errors.size())),
            false);
        Q_EMIT collectionFinished(errors.isEmpty());
    });
    connect(
        m_ui->adminCommandButton, &QPushButton::clicked, this, &UsagePage::adminCommandRequested);
    connect(m_collector, &UsageCollector::failed, this, [this](const QString &error) {
        if (m_membersAsked > 0) // every member failed: each is named
            showMemberErrors(m_collector->memberErrors());
        m_membersAsked = 0;
        showReport(UsageReport()); // the figures shown were another scope's
        setStatus(tr("Reading the usage failed: %1").arg(error), false);
        Q_EMIT collectionFinished(false);
    });
    connect(m_collector, &UsageCollector::cancelled, this, [this] {
        m_membersAsked = 0;
        setStatus(tr("Cancelled."), false);
    });
    setStatus(tr("Not connected."), false);
}

UsagePage::~UsagePage() = default;

void UsagePage::setConnection(OpenTerminalClient *client, const Identity &identity)
{
    if (client == m_client && identity.userId == m_identity.userId)
        return;
    m_collector->cancel();
    delete m_fanOut; // its members' clients were made for the previous connection
    m_ui->messageBar->dismiss();
    m_client = client;
    m_identity = identity;
    m_stale = client != nullptr;
    showReport(UsageReport());
    setStatus(client
            ? tr("Press Refresh to add up the transcripts of %1.")
                  .arg(identity.userId.isEmpty() ? tr("the server account") : identity.userId)
            : tr("Not connected."),
        false);
    if (m_stale && isVisible())
        refresh();
}

void UsagePage::setAdminAccess(const AdminAccess &admin, const QString &accountPrefix)
{
    m_adminAccess = admin;
    m_accountPrefix = accountPrefix;
}

void UsagePage::setFanOutFactory(FanOutFactory factory, bool isFleet)
{
    m_fanOutFactory = std::move(factory);
    m_fleet = isFleet && m_fanOutFactory;
}

QTreeView *UsagePage::daysView() const
{
    return m_ui->daysView;
}

MessageBar *UsagePage::messageBar() const
{
    return m_ui->messageBar;
}

void UsagePage::setAllUsers(bool allUsers)
{
    m_ui->allUsersCheck->setChecked(allUsers);
}

void UsagePage::setMetric(int column)
{
    const int index = m_ui->metricCombo->findData(column);
    if (index >= 0)
        m_ui->metricCombo->setCurrentIndex(index);
}

int UsagePage::chartMetric() const
{
    return m_ui->metricCombo->currentData().toInt();
}

bool UsagePage::isCollecting() const
{
    return m_collector->isRunning();
}

QString UsagePage::statusText() const
{
    return m_ui->statusLabel->text();
}

void UsagePage::refresh()
{
    if (!m_client) {
        setStatus(tr("Not connected."), false);
        return;
    }
    m_stale = false;
    const QDate since = m_ui->sinceCheck->isChecked() ? m_ui->sinceEdit->date() : QDate();
    m_ui->adminCommandButton->hide();
    m_ui->messageBar->dismiss();
    const bool allUsers = m_ui->allUsersCheck->isChecked();
    if (allUsers && m_fleet) {
        collectFleet(since);
        return;
    }
    m_model->setShowsMembers(false);
    if (allUsers && !m_adminAccess.isLocalCommand() && !m_adminAdvice.isEmpty()) {
        m_collector->cancel();
        showReport(UsageReport());
        setStatus(m_adminAdvice, false);
        m_ui->adminCommandButton->show();
        return;
    }
    if (m_ui->allUsersCheck->isChecked()) {
        if (m_audit)
            m_audit(m_homesRoot);
        m_collector->collectAllUsers(m_client, m_adminAccess, since, m_homesRoot);
    } else {
        m_collector->collect(m_client, m_identity, since);
    }
}

void UsagePage::collectFleet(const QDate &since)
{
    // A fleet's members have admin commands of their own (the fleet file's admin_exec).
    m_collector->cancel();
    delete m_fanOut;
    m_fanOut = m_fanOutFactory(this);
    for (const QString &name : m_fanOut->memberNames()) {
        if (name.size() > m_longestMember.size())
            m_longestMember = name;
    }
    m_model->setShowsMembers(true);
    if (m_audit)
        m_audit(tr("%1 on the members %2")
                    .arg(m_homesRoot, m_fanOut->memberNames().join(QStringLiteral(", "))));
    showReport(UsageReport(), true); // the members' figures come as each is added up
    m_membersAsked = int(m_fanOut->targets().size());
    m_membersAnswered = 0;
    m_collector->collectAllUsers(m_fanOut, since, m_homesRoot);
}

QString UsagePage::membersText() const
{
    if (m_membersAsked == 0)
        return {};
    return tr(" \u00b7 %1 of %2 members answered…").arg(m_membersAnswered).arg(m_membersAsked);
}

void UsagePage::showMemberErrors(const QStringList &errors)
{
    if (errors.isEmpty()) {
        m_ui->messageBar->dismiss();
        return;
    }
    m_ui->messageBar->showMessage(
        tr("Not every member answered; the figures of the others are shown.\n%1")
            .arg(errors.join(QLatin1Char('\n'))),
        MessageBar::Level::Warning);
}

void UsagePage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale && m_client && !isCollecting())
        refresh();
}

void UsagePage::cancel()
{
    m_collector->cancel();
}

void UsagePage::setAdminAdvice(const QString &advice)
{
    m_adminAdvice = advice;
}

void UsagePage::setStatus(const QString &text, bool busy)
{
    m_ui->statusLabel->setText(text);
    m_ui->progressBar->setVisible(busy);
    m_ui->cancelButton->setEnabled(busy);
    m_ui->refreshButton->setEnabled(!busy);
}

void UsagePage::showReport(const UsageReport &reported, bool partial)
{
    UsageReport report = reported;
    if (m_ui->allUsersCheck->isChecked()) // the acting user by its id, the others by account
        report.nameUsers({m_identity.userId}, m_accountPrefix);
    m_model->setReport(report);
    m_toolsModel->setTools(report.tools);
    m_ui->exportButton->setEnabled(!report.days.isEmpty());
    rebuildChart();
    const UsageDay total = report.total();
    QString text = report.days.isEmpty()
        ? tr("No usage found in the transcripts.")
        : tr("%1, %2: %3, %4, %5, %6, $%7.")
              .arg(tr("%n user(s)", nullptr, int(report.users().size())),
                  tr("%n day(s)", nullptr, int(dayCount(report))),
                  tr("%n session(s)", nullptr, int(total.sessions)),
                  tr("%n turn(s)", nullptr, int(total.turns)),
                  tr("%n tool call(s)", nullptr, int(total.toolCalls)),
                  tr("%n error(s)", nullptr, int(total.errors)),
                  QString::number(total.costUsd, 'f', 4));
    if (!report.skipped.isEmpty())
        text += QLatin1Char(' ')
            + tr("Skipped %n damaged line(s), first: %1", nullptr, int(report.skipped.size()))
                  .arg(report.skipped.first());
    if (partial) {
        if (!report.days.isEmpty())
            setStatus(text + membersText(), true);
        return;
    }
    setStatus(text, false);
}

void UsagePage::rebuildChart()
{
    auto *view = static_cast<QChartView *>(m_chartView);
    QChart *chart = view->chart();
    chart->removeAllSeries();
    for (QAbstractAxis *axis : chart->axes())
        chart->removeAxis(axis);
    m_categories.clear();
    m_values.clear();
    const UsageReport &report = m_model->report();
    const int column = chartMetric();
    chart->setTitle(m_ui->metricCombo->currentText() + tr(" per day (UTC)"));
    // The latest days, each a category; a bar set per user.
    QList<QDate> days;
    for (const UsageDay &day : report.days)
        if (!days.contains(day.day))
            days.append(day.day);
    std::sort(days.begin(), days.end());
    if (days.size() > chartDays)
        days = days.mid(days.size() - chartDays);
    if (days.isEmpty())
        return;
    for (const QDate &day : std::as_const(days))
        m_categories.append(day.toString(QStringLiteral("MM-dd")));
    auto *series = new QStackedBarSeries();
    double highest = 0;
    QVector<double> stacked(days.size(), 0.0);
    for (const QString &user : report.users()) {
        QVector<double> values(days.size(), 0.0);
        for (const UsageDay &day : report.days) {
            const int at = int(days.indexOf(day.day));
            if (day.user == user && at >= 0) // a fleet: the user's rows on every member
                values[at] += UsageModel::value(day, column);
        }
        auto *set = new QBarSet(user);
        for (int i = 0; i < values.size(); ++i) {
            set->append(values.at(i));
            stacked[i] += values.at(i);
            highest = std::max(highest, stacked.at(i));
        }
        series->append(set);
        m_values.insert(user, values);
    }
    chart->addSeries(series);
    auto *categories = new QBarCategoryAxis();
    categories->append(m_categories);
    chart->addAxis(categories, Qt::AlignBottom);
    series->attachAxis(categories);
    auto *values = new QValueAxis();
    values->setRange(0, highest > 0 ? highest * 1.05 : 1);
    values->applyNiceNumbers();
    // Cents when there are dollars, else enough decimals for the small amounts of a test
    // server; counts are whole.
    if (column != UsageModel::CostColumn)
        values->setLabelFormat(QStringLiteral("%.0f"));
    else
        values->setLabelFormat(highest >= 1 ? QStringLiteral("$%.2f") : QStringLiteral("$%.4f"));
    chart->addAxis(values, Qt::AlignLeft);
    series->attachAxis(values);
    chart->legend()->setVisible(report.users().size() > 1);
}

QStringList UsagePage::chartCategories() const
{
    return m_categories;
}

QVector<double> UsagePage::chartValues(const QString &user) const
{
    return m_values.value(user);
}

bool UsagePage::exportCsv(const QString &path, QString *error, CsvTable table) const
{
    const UsageReport &report = m_model->report();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)
        || file.write(table == CsvTable::Tools ? report.toolsCsv() : report.toCsv()) < 0
        || !file.commit()) {
        if (error)
            *error = file.errorString();
        return false;
    }
    return true;
}

void UsagePage::exportFromDialog()
{
    // One dialog for both tables: the file type says which.
    const QString days = tr("Usage per user and day (*.csv)");
    const QString tools = tr("Top tools (*.csv)");
    QString chosen = days;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Usage as CSV"),
        QStringLiteral("usage-%1.csv").arg(QDate::currentDate().toString(Qt::ISODate)),
        days + QStringLiteral(";;") + tools, &chosen);
    if (path.isEmpty())
        return;
    QString error;
    if (!exportCsv(path, &error, chosen == tools ? CsvTable::Tools : CsvTable::Days))
        QMessageBox::warning(
            this, tr("Export Usage"), tr("%1 could not be written: %2").arg(path, error));
}

} // namespace sandscope
