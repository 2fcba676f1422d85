#include "probepage.h"

#include "fleet/fleetfanout.h"
#include "fleet/fleetprobe.h"
#include "isolation/isolationprobe.h"
#include "isolation/probedelegate.h"
#include "messagebar.h"
#include "monospacefont.h"
#include "probereport/probematrixmodel.h"
#include "probereport/probereportfile.h"
#include "security/auditlog.h"
#include "server/connection.h"
#include "server/openterminalclient.h"
#include "ui_probepage.h"

#include <QAction>
#include <QClipboard>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFontInfo>
#include <QGuiApplication>
#include <QHeaderView>
#include <QMenu>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSplitter>
#include <QStyle>
#include <QTableWidget>
#include <QTextDocument>

#include <numeric>
#include <type_traits>

namespace sandscope {

namespace {

constexpr int differenceCheckRole = Qt::UserRole;
constexpr int differenceSubjectRole = Qt::UserRole + 1;
// More users than this are summarised in the Run button ("+2 more"); the tooltip lists all.
constexpr int usersShownOnButton = 3;

QString serverOf(const OpenTerminalClient *client)
{
    return client->connection().baseUrl.adjusted(QUrl::RemoveUserInfo).toString();
}

bool actsAsOtherIds(const QVector<CheckId> &checks)
{
    const auto accountCheck = [](CheckId check) {
        return check == CheckId::AccountTwin || check == CheckId::ReservedIds
            || check == CheckId::MissingUserId;
    };
    return checks.isEmpty() || std::any_of(checks.cbegin(), checks.cend(), accountCheck);
}

} // namespace

ProbePage::ProbePage(QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::ProbePage>())
    , m_model(new ProbeMatrixModel(this))
    , m_presentation(new ProbeMatrixPresentation(this))
{
    m_ui->setupUi(this);
    m_presentation->setSourceModel(m_model);
    m_ui->scorecardView->setColumnCount(6);
    m_ui->scorecardView->setHorizontalHeaderLabels(
        {tr("Category"), tr("PASS"), tr("FAIL"), tr("INFO"), tr("ERROR"), tr("Worst FAIL")});
    m_ui->scorecardView->verticalHeader()->hide();
    // Every category on a compact line and every column, as wide as its columns (the .ui's
    // AdjustToContents); it is as tall as its rows unless the splitter above the matrix is
    // dragged up (then it scrolls).
    QTableWidget *scorecard = m_ui->scorecardView;
    scorecard->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    scorecard->verticalHeader()->setDefaultSectionSize(scorecard->fontMetrics().height() + 4);
    scorecard->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scorecard->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);

    QTableView *view = m_ui->matrixView;
    view->setModel(m_presentation);
    view->setItemDelegate(new ProbeDelegate(view));
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Rows as tall as the delegate's cells (the header's own padding made them taller).
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
    view->setWordWrap(false);
    // The check titles give way to the pairs' columns: elided (whole in their tooltips) so
    // that every column stays in view without scrolling sideways.
    view->verticalHeader()->setTextElideMode(Qt::ElideRight);
    view->installEventFilter(this);
    connect(
        view->horizontalHeader(), &QHeaderView::sectionResized, this, &ProbePage::fitMatrixTitles);

    m_rerunAction = new QAction(tr("Rerun this check"), view);
    auto *copyAction = new QAction(tr("Copy evidence"), view);
    view->addAction(m_rerunAction);
    view->addAction(copyAction);
    connect(m_rerunAction, &QAction::triggered, this, &ProbePage::rerunSelectedCheck);
    connect(copyAction, &QAction::triggered, m_ui->copyEvidenceButton, &QPushButton::click);

    m_ui->evidenceView->setFont(monospaceFont());
    m_ui->detailTitle->setTextFormat(Qt::RichText);
    m_ui->detailExplanation->setTextFormat(Qt::PlainText);
    m_ui->detailFailMeaning->setTextFormat(Qt::PlainText);
    m_ui->busyIndicator->setVisible(false);
    setProgressText(QString()); // no empty line above the summary before a run
    m_ui->differencesPane->setVisible(false);
    // The scorecard keeps its height; the matrix takes what the window gives.
    m_ui->verticalSplitter->setStretchFactor(0, 0);
    m_ui->verticalSplitter->setStretchFactor(1, 3);
    m_ui->verticalSplitter->setStretchFactor(2, 1);
    // The cell's details scroll as a whole when the window is short, rather than their
    // minimum height (long explanations wrap to many lines) taking rows from the scorecard.
    auto *detailScroll = new QScrollArea;
    detailScroll->setObjectName(QStringLiteral("detailScroll"));
    detailScroll->setWidgetResizable(true);
    detailScroll->setFrameShape(QFrame::NoFrame);
    detailScroll->setWidget(m_ui->detailPane); // out of the splitter
    m_ui->horizontalSplitter->addWidget(detailScroll);
    // The matrix (long check titles plus a column per pair) gets most of the width.
    m_ui->horizontalSplitter->setStretchFactor(0, 2);
    m_ui->horizontalSplitter->setStretchFactor(1, 1);
    m_ui->horizontalSplitter->setSizes({700, 350});
    m_ui->differencesView->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    buildChecksMenu();

    connect(m_ui->usersEdit, &QLineEdit::textChanged, this, [this] {
        updateUsersHint();
        updateControls();
    });
    connect(m_ui->usersEdit, &QLineEdit::returnPressed, this, &ProbePage::run);
    connect(m_ui->runButton, &QPushButton::clicked, this, &ProbePage::run);
    connect(m_ui->cancelButton, &QPushButton::clicked, this, &ProbePage::cancel);
    connect(m_ui->rerunButton, &QPushButton::clicked, this, &ProbePage::rerunSelectedCheck);
    connect(m_ui->openButton, &QPushButton::clicked, this, &ProbePage::chooseOpenReport);
    connect(m_ui->compareButton, &QPushButton::clicked, this, &ProbePage::chooseCompareReport);
    connect(
        m_ui->exportMarkdownButton, &QPushButton::clicked, this, &ProbePage::chooseExportMarkdown);
    connect(m_ui->exportJsonButton, &QPushButton::clicked, this, &ProbePage::chooseExportJson);
    connect(m_ui->closeDifferencesButton, &QPushButton::clicked, this, &ProbePage::closeComparison);
    connect(m_ui->copyEvidenceButton, &QPushButton::clicked, this, [this] {
        if (QClipboard *clipboard = QGuiApplication::clipboard())
            clipboard->setText(m_ui->evidenceView->toPlainText());
    });
    connect(view->selectionModel(), &QItemSelectionModel::currentChanged, this, [this] {
        showSelectedCell();
        updateControls();
    });
    connect(m_ui->differencesView, &QTreeWidget::currentItemChanged, this,
        [this](QTreeWidgetItem *item) {
            if (item)
                selectCell(CheckId(item->data(0, differenceCheckRole).toInt()),
                    item->data(0, differenceSubjectRole).toString());
        });

    updateUsersHint();
    updateSummary();
    showSelectedCell();
    updateControls();
}

bool ProbePage::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_ui->matrixView && event->type() == QEvent::Resize)
        fitMatrixTitles();
    return QWidget::eventFilter(watched, event);
}

void ProbePage::fitMatrixTitles()
{
    QTableView *view = m_ui->matrixView;
    int columns = 0;
    for (int column = 0; column < view->horizontalHeader()->count(); ++column)
        columns += view->horizontalHeader()->sectionSize(column);
    // Room for the vertical scroll bar is kept whether it shows or not, so that its coming and
    // going does not move the titles' edge.
    const int scrollBar = view->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, view);
    const int room = view->width() - 2 * view->frameWidth() - scrollBar - columns;
    const int minimum = view->fontMetrics().averageCharWidth() * 16;
    view->verticalHeader()->setMaximumWidth(qMax(minimum, room));
}

void ProbePage::setProgressText(const QString &text)
{
    m_ui->progressLabel->setText(text);
    m_ui->progressLabel->setVisible(!text.isEmpty());
}

void ProbePage::fitScorecardPane()
{
    // The pane as tall as the scorecard wants (every category), unless that leaves the matrix
    // less than about a third of the splitter.
    QSplitter *splitter = m_ui->verticalSplitter;
    QList<int> sizes = splitter->sizes();
    const int total = std::accumulate(sizes.cbegin(), sizes.cend(), 0);
    if (sizes.size() < 2 || total <= 0)
        return;
    // What the pane's children need at their widths (its sizeHint asks the worst finding's
    // label for its height at a narrow width: too tall).
    QTableWidget *scorecard = m_ui->scorecardView;
    int table = 0;
    if (scorecard->rowCount() > 0) {
        table = scorecard->horizontalHeader()->sizeHint().height() + 2 * scorecard->frameWidth();
        for (int row = 0; row < scorecard->rowCount(); ++row)
            table += scorecard->rowHeight(row);
    }
    m_ui->scorecardPane->layout()->activate();
    const QLabel *worst = m_ui->worstFindingLabel;
    const int text = worst->isVisibleTo(m_ui->scorecardPane)
        ? worst->heightForWidth(qMax(worst->width(), worst->fontMetrics().averageCharWidth() * 40))
        : 0;
    const int buttons = m_ui->reportButtons->sizeHint().height();
    const int wanted = qMin(qMax(qMax(table, text), buttons), total * 2 / 3);
    sizes[1] += sizes[0] - wanted;
    sizes[0] = wanted;
    splitter->setSizes(sizes);
}

ProbePage::~ProbePage()
{
    // The probe before its client; a run ended this way leaves its markers behind.
    delete m_probe;
    delete m_runClient;
}

void ProbePage::buildChecksMenu()
{
    m_checksMenu = new QMenu(this);
    QAction *all = m_checksMenu->addAction(tr("All checks"));
    m_checksMenu->addSeparator();
    for (const CheckInfo &info : allChecks()) {
        QAction *action = m_checksMenu->addAction(info.title);
        action->setCheckable(true);
        action->setChecked(true);
        action->setData(int(info.id));
        action->setToolTip(info.key);
        connect(action, &QAction::toggled, this, [this] {
            const QVector<CheckId> chosen = checks();
            const qsizetype count = chosen.isEmpty() ? allChecks().size() : chosen.size();
            const bool any = anyCheckChosen();
            m_ui->checksButton->setText(!any ? tr("Checks: none")
                    : chosen.isEmpty()       ? tr("Checks: all")
                                       : tr("Checks: %1 of %2").arg(count).arg(allChecks().size()));
            updateUsersHint();
            updateControls();
        });
    }
    connect(all, &QAction::triggered, this, [this] { setChecks({}); });
    m_ui->checksButton->setMenu(m_checksMenu);
    updateAcrossMembersChecks();
}

void ProbePage::setClient(OpenTerminalClient *client)
{
    if (client == m_client)
        return;
    m_client = client;
    if (isRunning() && !m_cancelRequested) {
        // The run keeps its own copy of the connection, so its cleanup still reaches the
        // server it started on.
        cancel();
        m_ui->messageBar->showMessage(
            tr("The connection changed: the probe was cancelled and is removing what it created."),
            MessageBar::Level::Warning);
    }
    updateUsersHint();
    updateControls();
}

void ProbePage::setFanOutFactory(FanOutFactory factory, bool isFleet)
{
    m_fanOutFactory = std::move(factory);
    if (isFleet != m_isFleet && isRunning() && !m_cancelRequested)
        cancel();
    m_isFleet = isFleet;
    updateAcrossMembersChecks();
    updateUsersHint();
    updateControls();
}

void ProbePage::updateAcrossMembersChecks()
{
    // Checks across members have nothing to judge on one server: offered on a fleet only.
    for (QAction *action : m_checksMenu->actions()) {
        if (!action->isCheckable())
            continue;
        const CheckInfo &info = checkInfo(CheckId(action->data().toInt()));
        if (!info.acrossMembers)
            continue;
        action->setEnabled(m_isFleet);
        action->setToolTip(m_isFleet
                ? info.key
                : tr("%1 (a fleet's probe only: users on different members)").arg(info.key));
    }
}

void ProbePage::setIdentityContext(const QString &profileName, const QString &serverText)
{
    m_auditProfile = profileName;
    m_auditServer = serverText;
}

void ProbePage::setPrompter(ProbePrompter *prompter)
{
    m_prompter = prompter;
}

void ProbePage::setUsers(const QStringList &users)
{
    m_ui->usersEdit->setText(users.join(QStringLiteral(", ")));
}

QStringList ProbePage::users() const
{
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    return m_ui->usersEdit->text().split(separators, Qt::SkipEmptyParts);
}

bool ProbePage::validUsers(QStringList *users, QString *why) const
{
    const auto refuse = [why](const QString &reason) {
        if (why)
            *why = reason;
        return false;
    };
    const QStringList ids = this->users();
    QString invalid;
    if (!probe::checkUserIds(ids, &invalid))
        return refuse(invalid);
    const QVector<CheckId> chosen = checks();
    const bool onlyReservedIds = chosen.size() == 1 && chosen.first() == CheckId::ReservedIds;
    // On a fleet an empty field means fresh users on every member.
    if (!onlyReservedIds && ids.size() < 2 && !(m_isFleet && ids.isEmpty()))
        return refuse(m_isFleet ? tr("Enter at least two user ids, or none for %1 fresh users "
                                     "on every member.")
                                      .arg(freshUsersPerMember)
                                : tr("Enter at least two user ids: the probe checks what each "
                                     "of them can reach of the others'."));
    if (users)
        *users = ids;
    return true;
}

void ProbePage::setChecks(const QVector<CheckId> &checks)
{
    for (QAction *action : m_checksMenu->actions()) {
        if (action->isCheckable())
            action->setChecked(
                checks.isEmpty() || checks.contains(CheckId(action->data().toInt())));
    }
}

bool ProbePage::anyCheckChosen() const
{
    const QList<QAction *> actions = m_checksMenu->actions();
    return std::any_of(actions.cbegin(), actions.cend(),
        [](const QAction *action) { return action->isCheckable() && action->isChecked(); });
}

QVector<CheckId> ProbePage::checks() const
{
    QVector<CheckId> chosen;
    bool all = true;
    for (const QAction *action : m_checksMenu->actions()) {
        if (!action->isCheckable())
            continue;
        if (action->isChecked())
            chosen << CheckId(action->data().toInt());
        else
            all = false;
    }
    return all ? QVector<CheckId>() : chosen;
}

QTableView *ProbePage::matrixView() const
{
    return m_ui->matrixView;
}

QLineEdit *ProbePage::usersEdit() const
{
    return m_ui->usersEdit;
}

QPushButton *ProbePage::runButton() const
{
    return m_ui->runButton;
}

QPushButton *ProbePage::cancelButton() const
{
    return m_ui->cancelButton;
}

QPushButton *ProbePage::rerunButton() const
{
    return m_ui->rerunButton;
}

QPlainTextEdit *ProbePage::evidenceView() const
{
    return m_ui->evidenceView;
}

QTreeWidget *ProbePage::differencesView() const
{
    return m_ui->differencesView;
}

MessageBar *ProbePage::messageBar() const
{
    return m_ui->messageBar;
}

QTableWidget *ProbePage::scorecardView() const
{
    return m_ui->scorecardView;
}

QString ProbePage::worstFindingText() const
{
    return m_ui->worstFindingLabel->text();
}

QString ProbePage::summaryText() const
{
    return m_ui->summaryLabel->text();
}

QString ProbePage::progressText() const
{
    return m_ui->progressLabel->text();
}

QString ProbePage::detailText() const
{
    QTextDocument title;
    title.setHtml(m_ui->detailTitle->text());
    return title.toPlainText() + QLatin1Char('\n') + m_ui->detailExplanation->text()
        + QLatin1Char('\n') + m_ui->detailFailMeaning->text();
}

// --- Running ------------------------------------------------------------------------------

void ProbePage::run()
{
    if (isRunning())
        return;
    QStringList ids;
    QString why;
    if (!m_client) {
        showError(tr("Not connected: connect to a server to run the probe."));
        return;
    }
    if (!validUsers(&ids, &why)) {
        showError(why);
        return;
    }
    if (!anyCheckChosen()) {
        showError(tr("Choose at least one check."));
        return;
    }
    startProbe(ids, checks(), {}, RunKind::Full);
}

void ProbePage::rerunSelectedCheck()
{
    const QString blocker = rerunBlocker();
    if (!blocker.isEmpty()) {
        showError(blocker);
        return;
    }
    const QModelIndex source = selectedSourceIndex();
    const CheckInfo &info = allChecks().at(source.row());
    const QString subject = m_model->subjectAt(source.column());
    QVector<QPair<QString, QString>> pairs;
    if (!info.serverWide) {
        for (const auto &pair : userPairs(m_report.users)) {
            if (pairSubject(pair.first, pair.second) == subject)
                pairs << pair;
        }
    }
    QStringList users = m_report.users;
    if (!m_report.userMembers.isEmpty()) {
        // On a fleet: only the users of the cell's member, placed again.
        const QString member = info.serverWide
            ? m_model->resultAt(source) ? m_model->resultAt(source)->member : QString()
            : m_report.userMembers.value(pairs.value(0).first);
        users.clear();
        for (const QString &user : std::as_const(m_report.users)) {
            if (m_report.userMembers.value(user) == member)
                users << user;
        }
    }
    startProbe(users, {info.id}, pairs, RunKind::Rerun);
}

void ProbePage::startProbe(const QStringList &users, const QVector<CheckId> &onlyChecks,
    const QVector<QPair<QString, QString>> &onlyPairs, RunKind kind)
{
    ProbeOptions options;
    options.users = users;
    options.onlyChecks = onlyChecks;
    options.onlyPairs = onlyPairs;

    auto *client = new OpenTerminalClient(m_client->connection(), this);
    const auto wire = [this](auto *probe) {
        using Probe = std::remove_pointer_t<decltype(probe)>;
        connect(probe, &Probe::resultReady, this, &ProbePage::handleResult);
        connect(probe, &Probe::finished, this, &ProbePage::handleFinished);
        connect(probe, &Probe::progress, this, [this](const QString &step) {
            setProgressText(tr("%n result(s) · %1", nullptr, m_resultsThisRun).arg(step));
        });
    };
    m_runClient = client;
    m_runKind = kind;
    m_resultsThisRun = 0;
    m_cancelRequested = false;
    setProgressText(tr("Starting the probe"));
    QString why;
    bool started = false;
    ProbeReport starting;
    const bool fresh = m_isFleet && users.isEmpty();
    if (m_isFleet && m_fanOutFactory) {
        m_runFanOut = m_fanOutFactory(this);
        m_fleetProbe = new FleetProbe(client, m_runFanOut, this);
        wire(m_fleetProbe);
        connect(m_fleetProbe, &FleetProbe::placed, this,
            [this](const QStringList &placedUsers, const QMap<QString, QString> &members) {
                if (m_runKind != RunKind::Full)
                    return;
                m_report.users = placedUsers;
                m_report.userMembers = members;
                m_model->setUsers(placedUsers, members);
                updateSummary();
            });
        started = m_fleetProbe->start(options, fresh ? freshUsersPerMember : 0, &why);
        starting = m_fleetProbe->report();
    } else {
        m_probe = new IsolationProbe(client, this);
        wire(m_probe);
        started = m_probe->start(options, &why);
        starting = m_probe->report();
    }
    if (!started) {
        delete m_probe;
        delete m_fleetProbe;
        delete m_runFanOut;
        delete client;
        m_probe = nullptr;
        m_fleetProbe = nullptr;
        m_runFanOut = nullptr;
        m_runClient = nullptr;
        showError(tr("The probe did not start: %1").arg(why));
        return;
    }

    QString what;
    if (kind == RunKind::Full) {
        // Server, users and start time; results arrive one by one (on a fleet, the users once
        // placed).
        m_report = starting;
        m_hasReport = true;
        m_freshUsersRun = fresh;
        m_openedFile.clear();
        m_model->setUsers(m_report.users);
        closeComparison();
        QStringList keys;
        for (CheckId check : onlyChecks)
            keys << checkInfo(check).key;
        what = keys.isEmpty() ? tr("all checks") : keys.join(QLatin1Char(','));
    } else {
        what = tr("rerun %1").arg(checkInfo(onlyChecks.first()).key);
        for (const auto &pair : onlyPairs)
            what += QLatin1Char(' ') + pairSubject(pair.first, pair.second);
    }
    m_ui->messageBar->dismiss();

    // Acting as several user ids (and reserved ones) is privileged: keep a record.
    AuditLog log;
    const QString actingAs = fresh
        ? tr("%1 fresh users per member").arg(freshUsersPerMember)
        : (users.isEmpty() ? options.reservedIds : users).join(QLatin1Char(','));
    if (!log.append(AuditEntry {m_auditProfile, m_auditServer, actingAs, QStringLiteral("probe"),
            what, QStringLiteral("started")}))
        m_ui->messageBar->showMessage(
            tr("Could not write the audit log %1.").arg(log.path()), MessageBar::Level::Warning);

    updateSummary();
    showSelectedCell();
    updateControls();
    Q_EMIT runningChanged(true);
}

void ProbePage::cancel()
{
    if (!isRunning() || m_cancelRequested)
        return;
    m_cancelRequested = true;
    setProgressText(tr("Cancelling: removing the probe's markers and processes"));
    updateControls();
    if (m_fleetProbe)
        m_fleetProbe->cancel();
    else
        m_probe->cancel();
}

void ProbePage::handleResult(const CheckResult &result)
{
    ++m_resultsThisRun;
    m_model->addResult(result);
    mergeResult(result);
    const QModelIndex selected = selectedSourceIndex();
    if (selected.isValid() && selected == m_model->indexOf(result.check, result.subject()))
        showSelectedCell();
    updateSummary();
    updateControls();
}

void ProbePage::mergeResult(const CheckResult &result)
{
    const QString subject = result.subject();
    auto existing = std::find_if(m_report.results.begin(), m_report.results.end(),
        [&](const CheckResult &r) { return r.check == result.check && r.subject() == subject; });
    if (existing != m_report.results.end())
        *existing = result;
    else
        m_report.results << result;
    if (!m_comparedFile.isEmpty())
        showDifferences();
}

void ProbePage::handleFinished(const ProbeReport &finished)
{
    if (m_runKind == RunKind::Full) {
        m_report = finished;
        // Normally every result came through resultReady already; this only fills gaps.
        for (const CheckResult &result : finished.results) {
            const CheckResult *shown
                = m_model->resultAt(m_model->indexOf(result.check, result.subject()));
            if (!shown || !(*shown == result))
                m_model->addResult(result);
        }
    }

    const int failures = m_report.count(Verdict::Fail);
    const int errors = m_report.count(Verdict::Error);
    if (m_runKind == RunKind::Rerun && m_resultsThisRun == 0) {
        m_ui->messageBar->showMessage(
            tr("The rerun ended without a result; the cell keeps its earlier verdict."),
            MessageBar::Level::Warning);
    } else if (finished.cancelled) {
        m_ui->messageBar->showMessage(tr("Cancelled after %n result(s); the probe removed what "
                                         "it had created.",
                                          nullptr, m_resultsThisRun),
            MessageBar::Level::Information);
    } else if (failures > 0) {
        m_ui->messageBar->showMessage(
            tr("%n check(s) FAIL: a user reached another user's resources. Select a red cell "
               "for the evidence.",
                nullptr, failures),
            MessageBar::Level::Warning);
    } else if (!finished.notProbed.isEmpty()) {
        m_ui->messageBar->showMessage(tr("Not everything was probed, so isolation is not proven "
                                         "for all the users:\n%1")
                                          .arg(finished.notProbed.join(QLatin1Char('\n'))),
            MessageBar::Level::Warning);
    } else if (errors > 0) {
        m_ui->messageBar->showMessage(
            tr("%n check(s) could not run (ERROR): isolation there is not proven.", nullptr,
                errors),
            MessageBar::Level::Warning);
    } else {
        m_ui->messageBar->showMessage(
            tr("Every check ran and none FAILed."), MessageBar::Level::Information);
    }
    if (!finished.leftBehind.isEmpty())
        m_ui->messageBar->showMessage(m_ui->messageBar->text() + QLatin1Char('\n')
                + tr("The probe could not remove everything it made; it may be left behind:\n%1")
                      .arg(finished.leftBehind.join(QLatin1Char('\n'))),
            MessageBar::Level::Warning);
    setProgressText(finished.cancelled ? tr("Cancelled") : tr("Finished"));
    endRun();
}

void ProbePage::endRun()
{
    // Called from the probe's own signal: delete it once that returns.
    for (QObject *done : {static_cast<QObject *>(m_probe), static_cast<QObject *>(m_fleetProbe),
             static_cast<QObject *>(m_runFanOut), static_cast<QObject *>(m_runClient)}) {
        if (done)
            done->deleteLater();
    }
    m_probe = nullptr;
    m_fleetProbe = nullptr;
    m_runFanOut = nullptr;
    m_runClient = nullptr;
    m_cancelRequested = false;
    updateSummary();
    showSelectedCell();
    updateControls();
    Q_EMIT runningChanged(false);
    Q_EMIT probeFinished();
}

// --- Reports ------------------------------------------------------------------------------

bool ProbePage::openReport(const QString &fileName, QString *error)
{
    if (isRunning()) {
        if (error)
            *error = tr("Wait for the probe to finish (or cancel it) before opening a report.");
        return false;
    }
    ProbeReport opened;
    if (!ProbeReportFile::read(fileName, &opened, error))
        return false;
    m_report = opened;
    m_hasReport = true;
    m_openedFile = fileName;
    m_model->setReport(opened);
    closeComparison();
    updateSummary();
    showSelectedCell();
    updateControls();
    return true;
}

bool ProbePage::compareWithReport(const QString &fileName, QString *error)
{
    if (!m_hasReport) {
        if (error)
            *error = tr("Run the probe or open a report first; it is compared with the file.");
        return false;
    }
    ProbeReport before;
    if (!ProbeReportFile::read(fileName, &before, error))
        return false;
    m_comparedReport = before;
    m_comparedFile = fileName;
    showDifferences();
    return true;
}

void ProbePage::showDifferences()
{
    m_differences = ProbeReport::compare(m_comparedReport, m_report);
    m_presentation->setDifferences(m_differences);

    QTreeWidget *list = m_ui->differencesView;
    list->clear();
    const QPalette palette = list->palette();
    const auto verdictItemText = [](bool present, Verdict verdict) {
        return present ? verdictName(verdict) : tr("(no result)");
    };
    for (const ReportDifference &difference : m_differences) {
        const CheckInfo &info = checkInfo(difference.check);
        auto *item = new QTreeWidgetItem(list,
            QStringList {info.title, difference.subject,
                verdictItemText(difference.inBefore, difference.before),
                verdictItemText(difference.inAfter, difference.after)});
        item->setToolTip(0, difference.describe());
        item->setData(0, differenceCheckRole, int(difference.check));
        item->setData(0, differenceSubjectRole, difference.subject);
        if (difference.inBefore)
            item->setBackground(2, ProbeDelegate::fillColor(difference.before, palette));
        if (difference.inAfter)
            item->setBackground(3, ProbeDelegate::fillColor(difference.after, palette));
    }
    const QString describedBefore
        = tr("%1 (server %2, version %3, %4)")
              .arg(QFileInfo(m_comparedFile).fileName(), m_comparedReport.server,
                  m_comparedReport.serverVersion.isEmpty() ? tr("unknown")
                                                           : m_comparedReport.serverVersion,
                  m_comparedReport.startedAt.toString(Qt::ISODate));
    m_ui->differencesLabel->setText(m_differences.isEmpty()
            ? tr("No cell differs from %1.").arg(describedBefore)
            : tr("%n cell(s) differ from %1 (marked in the matrix):", nullptr,
                int(m_differences.size()))
                  .arg(describedBefore));
    m_ui->differencesPane->setVisible(true);
}

void ProbePage::closeComparison()
{
    m_comparedFile.clear();
    m_comparedReport = ProbeReport();
    m_differences.clear();
    m_presentation->clearDifferences();
    m_ui->differencesView->clear();
    m_ui->differencesPane->setVisible(false);
}

bool ProbePage::exportReport(
    const QString &fileName, ProbeReportFile::Format format, QString *error) const
{
    const auto fail = [error](const QString &reason) {
        if (error)
            *error = reason;
        return false;
    };
    if (!m_hasReport)
        return fail(tr("There is no report to export yet."));
    if (isRunning())
        return fail(tr("Wait for the probe to finish (or cancel it) before exporting."));
    return ProbeReportFile::write(fileName, m_report, format, error);
}

bool ProbePage::exportMarkdown(const QString &fileName, QString *error) const
{
    return exportReport(fileName, ProbeReportFile::Format::Markdown, error);
}

bool ProbePage::exportJson(const QString &fileName, QString *error) const
{
    return exportReport(fileName, ProbeReportFile::Format::Json, error);
}

QString ProbePage::suggestedFileName(const QString &extension) const
{
    const QDateTime when
        = m_report.startedAt.isValid() ? m_report.startedAt : QDateTime::currentDateTimeUtc();
    return QStringLiteral("probe-") + when.toString(QStringLiteral("yyyyMMdd-HHmmss"))
        + QLatin1Char('.') + extension;
}

ProbePrompter *ProbePage::activePrompter()
{
    if (m_prompter)
        return m_prompter;
    if (!m_dialogPrompter)
        m_dialogPrompter = std::make_unique<ProbeDialogPrompter>();
    return m_dialogPrompter.get();
}

void ProbePage::chooseOpenReport()
{
    ProbePrompter *prompter = activePrompter();
    const QString fileName
        = prompter->askOpenPath(this, tr("Open probe report"), tr("Probe reports (*.json)"));
    if (fileName.isEmpty())
        return;
    QString error;
    if (!openReport(fileName, &error))
        showError(error);
    else
        m_ui->messageBar->showMessage(
            tr("Showing %1 read-only; run the probe for a new report.").arg(fileName),
            MessageBar::Level::Information);
}

void ProbePage::chooseCompareReport()
{
    ProbePrompter *prompter = activePrompter();
    const QString fileName = prompter->askOpenPath(
        this, tr("Compare with an earlier probe report"), tr("Probe reports (*.json)"));
    if (fileName.isEmpty())
        return;
    QString error;
    if (!compareWithReport(fileName, &error))
        showError(error);
}

void ProbePage::chooseExportMarkdown()
{
    chooseExport(tr("Export probe report as Markdown"), QStringLiteral("md"), tr("Markdown (*.md)"),
        &ProbePage::exportMarkdown);
}

void ProbePage::chooseExportJson()
{
    chooseExport(tr("Export probe report as JSON"), QStringLiteral("json"),
        tr("Probe reports (*.json)"), &ProbePage::exportJson);
}

void ProbePage::chooseExport(const QString &title, const QString &extension, const QString &filter,
    bool (ProbePage::*write)(const QString &, QString *) const)
{
    const QString fileName
        = activePrompter()->askSavePath(this, title, suggestedFileName(extension), filter);
    if (fileName.isEmpty())
        return;
    QString error;
    if ((this->*write)(fileName, &error))
        m_ui->messageBar->showMessage(
            tr("Saved %1.").arg(fileName), MessageBar::Level::Information);
    else
        showError(error);
}

// --- Selection and state ------------------------------------------------------------------

bool ProbePage::selectCell(CheckId check, const QString &subject)
{
    const QModelIndex source = m_model->indexOf(check, subject);
    if (!source.isValid())
        return false;
    const QModelIndex shown = m_presentation->mapFromSource(source);
    m_ui->matrixView->setCurrentIndex(shown);
    m_ui->matrixView->scrollTo(shown);
    return true;
}

QModelIndex ProbePage::selectedSourceIndex() const
{
    return m_presentation->mapToSource(m_ui->matrixView->currentIndex());
}

void ProbePage::showSelectedCell()
{
    const QModelIndex source = selectedSourceIndex();
    if (!source.isValid()) {
        m_ui->detailTitle->setText(m_hasReport ? tr("Select a cell to see its evidence.")
                                               : tr("No report yet: enter user ids and run "
                                                    "the probe, or open a saved report."));
        m_ui->detailExplanation->clear();
        m_ui->detailFailMeaning->clear();
        m_ui->evidenceView->clear();
        return;
    }
    const CheckInfo &info = allChecks().at(source.row());
    const QString subject = m_model->subjectAt(source.column());
    const CheckResult *result = m_model->resultAt(source);
    const bool applicable = source.data(ProbeMatrixModel::ApplicableRole).toBool();
    const QString verdict = result ? verdictName(result->verdict)
        : applicable               ? tr("no result")
                                   : tr("does not apply");
    QString title
        = QStringLiteral("<b>%1</b> <code>%2</code> — %3<br>")
              .arg(info.title.toHtmlEscaped(), info.key.toHtmlEscaped(),
                  m_model->headerData(source.column(), Qt::Horizontal).toString().toHtmlEscaped())
        + tr("Verdict: <b>%1</b> · Severity: %2")
              .arg(verdict.toHtmlEscaped(), severityName(info.severity));
    const QString changed
        = m_presentation->mapFromSource(source).data(ProbeDelegate::ChangedRole).toString();
    if (!changed.isEmpty())
        title += QStringLiteral("<br>")
            + tr("Changed since the compared report: %1").arg(changed.toHtmlEscaped());
    m_ui->detailTitle->setText(title);

    QString explanation;
    if (result)
        explanation = result->explanation;
    else if (!applicable)
        explanation = info.serverWide
            ? tr("This check runs once for the server: see the \"%1\" column.").arg(serverSubject())
            : info.acrossMembers ? tr("This check runs on a fleet, for users on different members.")
                                 : tr("This check runs per user pair: see the pair columns.");
    else if (isRunning())
        explanation = tr("Not judged yet.");
    else
        explanation = tr("This check did not run for these users.");
    m_ui->detailExplanation->setText(explanation);
    m_ui->detailFailMeaning->setText(tr("What a FAIL means: %1").arg(info.failMeaning));
    m_ui->evidenceView->setPlainText(result ? ProbeMatrixModel::evidenceText(*result) : QString());
}

QString ProbePage::rerunBlocker() const
{
    if (isRunning())
        return tr("A probe is running.");
    const QModelIndex source = selectedSourceIndex();
    if (!m_hasReport || !source.isValid())
        return tr("Select a cell of the matrix to rerun its check.");
    if (isReadOnly())
        return tr("This report was opened from a file; run the probe to rerun checks.");
    if (!m_client)
        return tr("Not connected.");
    if (!source.data(ProbeMatrixModel::ApplicableRole).toBool())
        return tr("This check does not apply to this column.");
    if (m_freshUsersRun)
        return tr("The fresh users of this run were removed when it ended; run the probe again.");
    if (serverOf(m_client) != m_report.server)
        return tr("The report is from %1 but the connection is to %2.")
            .arg(m_report.server, serverOf(m_client));
    const CheckInfo &info = allChecks().at(source.row());
    if (info.acrossMembers)
        return tr("Checks across members run with the whole fleet probe: run it again.");
    const QString subject = m_model->subjectAt(source.column());
    if (!info.serverWide) {
        const auto pairs = userPairs(m_report.users);
        const bool known = std::any_of(pairs.cbegin(), pairs.cend(),
            [&](const auto &pair) { return pairSubject(pair.first, pair.second) == subject; });
        if (!known)
            return tr("%1 is not a pair of the report's users.").arg(subject);
    }
    return {};
}

void ProbePage::updateUsersHint()
{
    QStringList ids;
    QString why;
    QString hint;
    QString runText = tr("Run probe");
    QString runTip;
    if (!validUsers(&ids, &why)) {
        hint = why;
        runTip = why;
    } else {
        const QString reservedIds = ProbeOptions().reservedIds.join(QStringLiteral(" and "));
        QString label = ids.mid(0, usersShownOnButton).join(QStringLiteral(", "));
        if (ids.size() > usersShownOnButton)
            label += tr(" +%1 more").arg(ids.size() - usersShownOnButton);
        if (ids.isEmpty() && m_isFleet) {
            runText = tr("Probe with fresh users");
            hint = tr("On this fleet: %1 fresh ids for every member, made through the router and "
                      "removed afterwards; each member is probed through its own URL and admin "
                      "command with the users living on it.")
                       .arg(freshUsersPerMember);
        } else if (ids.isEmpty()) { // only the reserved-ids check
            runText = tr("Probe as %1").arg(reservedIds);
            hint = tr("Running only checks which accounts the reserved ids %1 get; as each it "
                      "runs `id`.")
                       .arg(reservedIds);
        } else {
            runText = tr("Probe as %1").arg(label);
            hint = tr("Running acts as %1 through the server: it creates, reads and removes "
                      "marker files and short processes in their homes and tries to reach each "
                      "other's.")
                       .arg(ids.join(QStringLiteral(", ")));
            if (m_isFleet)
                hint += QLatin1Char(' ')
                    + tr("On this fleet each user is probed on the member holding its home, "
                         "against the users living there; a user alone on its member is not "
                         "probed.");
            if (actsAsOtherIds(checks()))
                hint += QLatin1Char(' ')
                    + tr("The account-mapping checks also send requests as ids derived from "
                         "these, as %1 (only running `id`), and without X-User-Id.")
                          .arg(reservedIds);
        }
        runTip = hint;
    }
    if (!m_client)
        hint += QLatin1Char(' ') + tr("Not connected.");
    m_ui->usersHint->setText(hint);
    m_ui->runButton->setText(runText);
    m_ui->runButton->setToolTip(runTip);
}

void ProbePage::updateControls()
{
    const bool running = isRunning();
    const bool usable = validUsers(nullptr);
    const bool anyCheck = anyCheckChosen();
    m_ui->runButton->setEnabled(!running && m_client && usable && anyCheck);
    m_ui->cancelButton->setEnabled(running && !m_cancelRequested);
    m_ui->busyIndicator->setVisible(running);
    m_ui->usersEdit->setReadOnly(running);
    m_ui->checksButton->setEnabled(!running);
    m_ui->openButton->setEnabled(!running);
    m_ui->compareButton->setEnabled(!running && m_hasReport);
    m_ui->exportMarkdownButton->setEnabled(!running && m_hasReport);
    m_ui->exportJsonButton->setEnabled(!running && m_hasReport);
    m_ui->copyEvidenceButton->setEnabled(!m_ui->evidenceView->toPlainText().isEmpty());

    const QString blocker = rerunBlocker();
    m_ui->rerunButton->setEnabled(blocker.isEmpty());
    if (blocker.isEmpty()) {
        const QModelIndex source = selectedSourceIndex();
        m_ui->rerunButton->setToolTip(
            tr("Runs \"%1\" again for %2 with fresh markers; the result replaces the cell.")
                .arg(allChecks().at(source.row()).title,
                    m_model->headerData(source.column(), Qt::Horizontal).toString()));
    } else {
        m_ui->rerunButton->setToolTip(blocker);
    }
    m_rerunAction->setEnabled(blocker.isEmpty());
}

void ProbePage::updateSummary()
{
    updateScorecard();
    if (!m_hasReport) {
        m_ui->summaryLabel->setText(tr("No report yet."));
        return;
    }
    QString text = tr("PASS %1 · FAIL %2 · INFO %3 · ERROR %4")
                       .arg(m_report.count(Verdict::Pass))
                       .arg(m_report.count(Verdict::Fail))
                       .arg(m_report.count(Verdict::Info))
                       .arg(m_report.count(Verdict::Error));
    text += QStringLiteral(" — ")
        + tr("%1, version %2, users %3")
              .arg(m_report.server,
                  !m_report.serverVersion.isEmpty() ? m_report.serverVersion
                      : isRunning()                 ? tr("being checked")
                                                    : tr("unknown"),
                  m_report.usersByMember());
    if (m_report.cancelled)
        text += QStringLiteral(" · ") + tr("cancelled");
    if (isReadOnly())
        text += QStringLiteral(" · ")
            + tr("opened from %1 (read-only)").arg(QFileInfo(m_openedFile).fileName());
    m_ui->summaryLabel->setText(text);
    m_ui->summaryLabel->setToolTip(text);
}

void ProbePage::updateScorecard()
{
    QTableWidget *view = m_ui->scorecardView;
    const QVector<ScorecardRow> rows = m_hasReport ? m_report.scorecard() : QVector<ScorecardRow>();
    view->setRowCount(int(rows.size()));
    for (int row = 0; row < rows.size(); ++row) {
        const ScorecardRow &card = rows.at(row);
        const QStringList cells {card.category, QString::number(card.pass),
            QString::number(card.fail), QString::number(card.info), QString::number(card.error),
            card.fail > 0 ? severityName(card.worstFail) : QString()};
        for (int column = 0; column < cells.size(); ++column) {
            auto *item = new QTableWidgetItem(cells.at(column));
            if (column > 0)
                item->setTextAlignment(Qt::AlignCenter);
            if (card.fail > 0 && (column == 2 || column == 5)) {
                QFont font = item->font();
                font.setBold(true);
                item->setFont(font);
            }
            view->setItem(row, column, item);
        }
    }
    view->resizeColumnsToContents();
    view->setVisible(!rows.isEmpty());
    fitScorecardPane();

    QString text;
    if (m_hasReport) {
        const QString version
            = m_report.serverVersion.isEmpty() ? tr("unknown") : m_report.serverVersion;
        if (const CheckResult *worst = m_report.worstFinding()) {
            const CheckInfo &info = checkInfo(worst->check);
            text = tr("Worst finding: %1 %2 (%3%4): %5")
                       .arg(info.key, worst->subject(), severityName(info.severity),
                           info.documented ? tr(", documented behaviour") : QString(),
                           info.failMeaning);
        } else {
            text = tr("No FAIL in this report.");
        }
        text += QLatin1Char('\n') + tr("Server version %1").arg(version);
    }
    m_ui->worstFindingLabel->setText(text);
    m_ui->worstFindingLabel->setVisible(m_hasReport);
}

void ProbePage::showError(const QString &text)
{
    m_ui->messageBar->showMessage(text, MessageBar::Level::Error);
}

} // namespace sandscope
