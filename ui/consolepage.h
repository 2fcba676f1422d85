#pragma once
// Runs one command as the acting user and shows its live output. The page only wires core
// objects: ProcessStream does the polling, TerminalTextFilter strips escape sequences and
// SecretRedactor masks the API key in every chunk before it reaches the view.

#include "security/secretredactor.h"
#include "server/connection.h"
#include "server/processstream.h"
#include "server/terminaltext.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QTimer>
#include <QWidget>

#include <memory>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace sandscope {

class AuditLog;
class OpenTerminalClient;

namespace Ui {
class ConsolePage;
}

class ConsolePage : public QWidget {
    Q_OBJECT
public:
    // Older lines are dropped beyond this, so endless output cannot exhaust memory.
    static constexpr int maximumLines = 50000;

    explicit ConsolePage(QWidget *parent = nullptr);
    ~ConsolePage() override;

    // Not owned; nullptr means "not connected". A running command keeps its own client.
    void setClient(OpenTerminalClient *client);
    void setIdentity(const Identity &identity);
    Identity identity() const { return m_identity; }
    // Masked wherever it appears in the output.
    void setApiKey(const QString &apiKey);
    // Runs, stops and kills are recorded here when set (not owned).
    void setAuditLog(AuditLog *auditLog, const QString &profile);
    void setStopGracePeriod(int milliseconds) { m_stopGraceMs = milliseconds; }
    void setPollIntervals(int fastMs, int idleMaxMs);

    bool isRunning() const { return m_stream != nullptr; }
    QString outputText() const;
    QString stateText() const;

    QLineEdit *commandEdit() const;
    QLineEdit *cwdEdit() const;
    QPushButton *runButton() const;
    QPushButton *stopButton() const;
    QPushButton *killButton() const;
    QPlainTextEdit *outputView() const;
    QLabel *stateLabel() const;

public Q_SLOTS:
    void run();
    void stop();
    void kill();
    void clearOutput();
    // Forgets a running command without touching it, e.g. when the connection changes.
    void detachRunning(const QString &reason);

Q_SIGNALS:
    void runningChanged(bool running);

private:
    void handleOutput(const QString &raw);
    void handleStateChanged(ProcessStream::State state);
    void handleFinished(int exitCode, ProcessStatus status);
    void handleFailed(const ApiError &error);
    void endRun();
    void appendText(const QString &text);
    void setState(const QString &text, bool isError = false);
    void updateRunningState();
    void updateButtons();
    void audit(const QString &action, const QString &target, const QString &result);
    QString elapsedText() const;

    std::unique_ptr<Ui::ConsolePage> m_ui;
    QPointer<OpenTerminalClient> m_client;
    Identity m_identity;
    QString m_apiKey;
    AuditLog *m_auditLog = nullptr;
    QString m_profile;
    QPointer<ProcessStream> m_stream;
    TerminalTextFilter m_filter;
    SecretRedactor m_redactor;
    QElapsedTimer m_elapsed;
    QTimer m_runningTicker;
    enum class PendingStop { None, Stop, Kill };
    // Stop/Kill pressed before the server named the process: sent once it has.
    PendingStop m_pendingStop = PendingStop::None;
    int m_stopGraceMs = 3000;
    int m_fastPollMs = 0; // 0: ProcessStream's defaults
    int m_idlePollMaxMs = 0;
};

} // namespace sandscope
