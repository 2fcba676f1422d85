#pragma once
// The isolation probe page: choose two or more user ids, run the probe (it acts as each of
// them through the server), watch the matrix of checks × user pairs fill, inspect the
// evidence behind a cell, rerun one cell, export the report (Markdown, JSON), open a saved
// report read-only and compare the shown report with an earlier one.
//
// The page only wires core objects: IsolationProbe runs the checks, ProbeMatrixModel holds
// the cells, ProbeReport exports and compares. Each run gets its own OpenTerminalClient with
// a copy of the connection, so a connection change in the window cannot redirect a running
// probe (or its cleanup) to another server. File names are asked through a ProbePrompter,
// so that tests can answer without modal dialogs.

#include "isolation/probematrixpresentation.h"
#include "isolation/probeprompter.h"
#include "probereport/probereport.h"
#include "probereport/probereportfile.h"

#include <QPointer>
#include <QWidget>

#include <functional>
#include <memory>

class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QPlainTextEdit;
class QPushButton;
class QTableView;
class QTableWidget;
class QTreeWidget;

namespace sandscope {

class FleetFanOut;
class FleetProbe;
class IsolationProbe;
class MessageBar;
class OpenTerminalClient;
class ProbeMatrixModel;

namespace Ui {
class ProbePage;
}

class ProbePage : public QWidget {
    Q_OBJECT
public:
    explicit ProbePage(QWidget *parent = nullptr);
    ~ProbePage() override;

    // Not owned; nullptr = not connected (running is disabled). Changing it during a run
    // cancels the run; the run's cleanup still reaches the server it started on.
    void setClient(OpenTerminalClient *client);
    // On a fleet, the probe places each user on its member and probes every member through
    // its own URL and admin command (FleetProbe); `factory` makes the members' fan-out.
    using FanOutFactory = std::function<FleetFanOut *(QObject *parent)>;
    void setFanOutFactory(FanOutFactory factory, bool isFleet);
    // Fresh ids per member when a fleet is probed with the users field empty.
    static constexpr int freshUsersPerMember = 2;
    // Recorded in the audit log when a probe starts.
    void setIdentityContext(const QString &profileName, const QString &serverText);
    // Not owned; nullptr restores the dialogs.
    void setPrompter(ProbePrompter *prompter);

    // The user ids field (comma- or space-separated).
    void setUsers(const QStringList &users);
    QStringList users() const;
    // The ids of the field when they are usable for the chosen checks, else false and why.
    bool validUsers(QStringList *users, QString *why = nullptr) const;
    // Which checks the next run performs; empty = all.
    void setChecks(const QVector<CheckId> &checks);
    QVector<CheckId> checks() const;

    bool isRunning() const { return m_probe != nullptr || m_fleetProbe != nullptr; }
    bool hasReport() const { return m_hasReport; }
    // True while a report opened from a file is shown (no rerun).
    bool isReadOnly() const { return !m_openedFile.isEmpty(); }
    const ProbeReport &report() const { return m_report; }
    const QVector<ReportDifference> &differences() const { return m_differences; }

    // Shows a saved report read-only. On failure the current view stays and `error` says why.
    bool openReport(const QString &fileName, QString *error = nullptr);
    // Compares the shown report (now) with the saved one (before) and marks the changes.
    bool compareWithReport(const QString &fileName, QString *error = nullptr);
    bool exportMarkdown(const QString &fileName, QString *error = nullptr) const;
    bool exportJson(const QString &fileName, QString *error = nullptr) const;

    // Selects the cell and shows its details; false when it is not in the matrix.
    bool selectCell(CheckId check, const QString &subject);

    // For tests and the main window.
    ProbeMatrixModel *matrixModel() const { return m_model; }
    QTableView *matrixView() const;
    QLineEdit *usersEdit() const;
    QPushButton *runButton() const;
    QPushButton *cancelButton() const;
    QPushButton *rerunButton() const;
    QPlainTextEdit *evidenceView() const;
    QTreeWidget *differencesView() const;
    MessageBar *messageBar() const;
    QString summaryText() const;
    // The scorecard of the shown report: one row per category (ProbeReport::scorecard), and
    // the worst finding with its severity, what an attacker gains, and the server version.
    QTableWidget *scorecardView() const;
    QString worstFindingText() const;
    QString progressText() const;
    // Title, verdict, explanation and fail meaning of the selected cell.
    QString detailText() const;

public Q_SLOTS:
    void run();
    void cancel();
    void rerunSelectedCheck();
    void chooseOpenReport();
    void chooseCompareReport();
    void chooseExportMarkdown();
    void chooseExportJson();
    void closeComparison();

Q_SIGNALS:
    void runningChanged(bool running);
    // A run (or rerun) ended; report() is what the page shows now.
    void probeFinished();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    enum class RunKind { Full, Rerun };

    void buildChecksMenu();
    void updateAcrossMembersChecks();
    // Caps the check titles' width so the pairs' columns fit the matrix's width.
    void fitMatrixTitles();
    // Gives the scorecard's pane the splitter height it needs.
    void fitScorecardPane();
    void setProgressText(const QString &text);
    bool anyCheckChosen() const;
    void startProbe(const QStringList &users, const QVector<CheckId> &onlyChecks,
        const QVector<QPair<QString, QString>> &onlyPairs, RunKind kind);
    void handleResult(const CheckResult &result);
    void handleFinished(const ProbeReport &finished);
    void endRun();
    void mergeResult(const CheckResult &result);
    void showSelectedCell();
    QModelIndex selectedSourceIndex() const;
    // Why the selected cell cannot be rerun, empty when it can.
    QString rerunBlocker() const;
    void updateUsersHint();
    void updateControls();
    void updateSummary();
    void updateScorecard();
    void showError(const QString &text);
    void showDifferences();
    bool exportReport(
        const QString &fileName, ProbeReportFile::Format format, QString *error) const;
    QString suggestedFileName(const QString &extension) const;
    ProbePrompter *activePrompter();
    void chooseExport(const QString &title, const QString &extension, const QString &filter,
        bool (ProbePage::*write)(const QString &, QString *) const);

    std::unique_ptr<Ui::ProbePage> m_ui;
    QPointer<OpenTerminalClient> m_client;
    QString m_auditProfile;
    QString m_auditServer;
    ProbePrompter *m_prompter = nullptr;
    std::unique_ptr<ProbeDialogPrompter> m_dialogPrompter;
    QMenu *m_checksMenu = nullptr;
    QAction *m_rerunAction = nullptr;

    ProbeMatrixModel *m_model;
    ProbeMatrixPresentation *m_presentation;

    // The running probe and its own client (children of the page), nullptr when idle.
    IsolationProbe *m_probe = nullptr;
    FleetProbe *m_fleetProbe = nullptr; // instead of m_probe on a fleet
    FleetFanOut *m_runFanOut = nullptr;
    OpenTerminalClient *m_runClient = nullptr;
    FanOutFactory m_fanOutFactory;
    bool m_isFleet = false;
    bool m_freshUsersRun = false; // the report's users were made by the run and are gone
    RunKind m_runKind = RunKind::Full;
    int m_resultsThisRun = 0;
    bool m_cancelRequested = false;

    ProbeReport m_report;
    bool m_hasReport = false;
    QString m_openedFile; // non-empty: the shown report was opened from this file
    QVector<ReportDifference> m_differences;
    ProbeReport m_comparedReport; // "before" of the open comparison
    QString m_comparedFile; // non-empty while a comparison is shown
};

} // namespace sandscope
