#pragma once
// One interactive terminal of the Terminal tab: a QTermWidget (the Konsole emulator) in
// teletype mode whose keystrokes go to a TerminalSession and whose screen is fed from it.
// A frame in the acting user's colour surrounds it, and a header names the account. Resizes
// reach the remote PTY; Ctrl+Shift+C / Ctrl+Shift+V copy and paste, Ctrl+= / Ctrl+- / Ctrl+0
// zoom, and 10,000 lines of scrollback are kept. A lost connection or an ended shell is said
// in a bar that offers to open a new terminal (a terminal cannot be reattached).
// Opening and closing it as a user other than the server account is audited.
// Only built with QTermWidget (SANDSCOPE_HAVE_QTERMWIDGET).

#ifdef SANDSCOPE_HAVE_QTERMWIDGET

#include "server/apierror.h"
#include "server/connection.h"

#include <QByteArray>
#include <QColor>
#include <QPointer>
#include <QWidget>

class QLabel;
class QPushButton;
class QSocketNotifier;
class QTermWidget;

namespace sandscope {

class AuditLog;
class OpenTerminalClient;
class TerminalSession;

class TerminalView : public QWidget {
    Q_OBJECT
public:
    // `account` is the Linux account the identity maps to (empty: not known).
    TerminalView(OpenTerminalClient *client, const Identity &identity, const QString &account,
        QWidget *parent = nullptr);
    ~TerminalView() override;

    // Opens and closes are recorded here when set (not owned).
    void setAuditLog(AuditLog *auditLog, const QString &profile);
    void setWorkingDirectory(const QString &directory) { m_workingDirectory = directory; }
    void setLivenessInterval(int milliseconds) { m_livenessMs = milliseconds; }

    // Opens a new remote terminal (again after it ended or the connection was lost).
    void start();
    // Ends the remote terminal (audited); the view stays until it is deleted.
    void closeTerminal();

    Identity identity() const { return m_identity; }
    QString account() const { return m_account; }
    // "alice (sst_alice)", "the server account (user)"
    QString title() const;
    QColor frameColour() const;
    TerminalSession *session() const { return m_session; }
    QTermWidget *emulator() const { return m_term; }
    QString statusText() const;
    bool reconnectOffered() const;
    QPushButton *reconnectButton() const { return m_reconnect; }
    // Everything on the screen and in the scrollback, as plain text.
    QString screenText() const;
    int screenColumns() const;
    int screenLines() const;
    void sendText(const QString &text);

public Q_SLOTS:
    void copy();
    void paste();
    void zoomIn();
    void zoomOut();
    void resetZoom();

Q_SIGNALS:
    void stateChanged();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void feed(const QByteArray &bytes);
    void flushToScreen();
    void scheduleSizeCheck();
    void checkSize();
    void showStatus(const QString &text, bool offerReconnect, bool isError);
    void audit(const QString &action, const QString &result);
    void handleEnded();
    void handleFailed(const ApiError &error, bool dropped);

    QPointer<OpenTerminalClient> m_client;
    Identity m_identity;
    QString m_account;
    QString m_workingDirectory;
    int m_livenessMs = 0; // 0: TerminalSession's default
    AuditLog *m_auditLog = nullptr;
    QString m_profile;
    TerminalSession *m_session = nullptr;
    QTermWidget *m_term;
    QLabel *m_header;
    QWidget *m_statusBar;
    QLabel *m_statusLabel;
    QPushButton *m_reconnect;
    int m_slaveFd = -1;
    QSocketNotifier *m_writable = nullptr;
    QByteArray m_toScreen;
    bool m_sizeCheckPending = false;
    bool m_openAudited = false;
    int m_zoomSteps = 0;
};

} // namespace sandscope

#endif // SANDSCOPE_HAVE_QTERMWIDGET
