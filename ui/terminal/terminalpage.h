#pragma once
// The Terminal tab: interactive terminals as the acting user, each in its own closable sub-tab
// (TerminalView), titled with the user and the account and framed in the user's colour. New
// terminals open as whoever acts when they are opened; open ones keep their user. Closing a
// sub-tab ends its remote terminal. Built without QTermWidget (the Qt 6 flavour when no Qt 6
// build of it is installed), the tab says why there is no terminal and offers the Console.

#include "server/connection.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QPushButton;
class QTabWidget;

namespace sandscope {

class AuditLog;
class OpenTerminalClient;
class TerminalView;

class TerminalPage : public QWidget {
    Q_OBJECT
public:
    explicit TerminalPage(QWidget *parent = nullptr);
    ~TerminalPage() override;

    // Whether this build has the terminal emulator, and if not, why (for people).
    static bool emulatorAvailable();
    static QString missingEmulatorText();

    // Who new terminals open as (client nullptr: not connected). `account` names the Linux
    // account of the identity, when known.
    void setConnection(
        OpenTerminalClient *client, const Identity &identity, const QString &account);
    void setAuditLog(AuditLog *auditLog, const QString &profile);
    // Used for new terminals (tests shorten it); 0 keeps TerminalSession's default.
    void setLivenessInterval(int milliseconds) { m_livenessMs = milliseconds; }

    int terminalCount() const;
    TerminalView *terminal(int index) const;
    QTabWidget *tabs() const { return m_tabs; }
    QPushButton *newTerminalButton() const { return m_newButton; }
    QPushButton *consoleButton() const { return m_consoleButton; }
    QLabel *messageLabel() const { return m_message; }

public Q_SLOTS:
    // Opens a terminal as the acting user in a new sub-tab; nullptr when it cannot.
    TerminalView *openTerminal();
    // Closes the sub-tab (ending its remote terminal).
    void closeTerminal(int index);
    // Closes every terminal, e.g. when the window connects to another server.
    void closeAll();

Q_SIGNALS:
    // The user asked for the Console instead (no emulator in this build).
    void consoleRequested();

private:
    void updateState();

    QPointer<OpenTerminalClient> m_client;
    Identity m_identity;
    QString m_account;
    AuditLog *m_auditLog = nullptr;
    QString m_profile;
    int m_livenessMs = 0;
    QTabWidget *m_tabs = nullptr;
    QLabel *m_message;
    QPushButton *m_newButton;
    QPushButton *m_consoleButton;
};

} // namespace sandscope
