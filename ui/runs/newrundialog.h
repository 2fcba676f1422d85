#pragma once
// Asks for a new live run: the chat (one of the user's chats, or a new one with a generated
// id), the prompt, claude's per-run options and the agent environment (NAME=VALUE lines such
// as ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY). The environment is kept in the KeyStore under a
// profile-scoped name, like the API key, and is never shown again: the dialog only names the
// stored variables. The result is a LiveRunRequest value (tests build one directly), plus the
// local files attached to the prompt, which the run page uploads before the turn starts.
// When run-local.sh started the demo model (app/claude/demomodel.h) and no real key is
// configured, it is offered, checked, above the form.
// The form is ui/newrundialog.ui.

#include "runs/runsession.h"
#include "server/connection.h"
#include "sessions/sessionstore.h"

#include <QDialog>
#include <QHash>
#include <QStringList>
#include <QUrl>

#include <memory>

class QCheckBox;
class QLabel;

namespace sandscope {

class ChatIndexModel;
class KeyStore;
class OpenTerminalClient;

namespace Ui {
class NewRunDialog;
}

class NewRunDialog : public QDialog {
    Q_OBJECT
public:
    // keys may be null (then the environment is used for this run only).
    NewRunDialog(OpenTerminalClient *client, const Identity &identity, const SessionScope &scope,
        KeyStore *keys, QWidget *parent = nullptr);
    ~NewRunDialog() override;

    // The KeyStore entry of a scope's agent environment ("<profile or server>.agent-env").
    static QString environmentKeyName(const SessionScope &scope);
    // A fresh chat id: c<yyyyMMdd-HHmmss>-<random hex>.
    static QString newChatId();

    // Starts from an earlier request (New chat of a run page): same options, a new chat.
    void useOptionsOf(const LiveRunRequest &like);
    // Preselects one of the user's chats (it is added when the listing has not found it).
    void selectChat(const QString &chatId);
    // The run continues a session found on the server in its chat: --resume, or with fork
    // --resume --fork-session (a new session starting from a copy of its history).
    void continueSession(const QString &chatId, const QString &sessionId, bool fork);
    // Valid once accepted.
    LiveRunRequest request() const { return m_request; }
    // Local files to upload into the chat folder and name in the prompt (RunPage::addAttachments).
    QStringList attachments() const;
    void addAttachments(const QStringList &localPaths);

public Q_SLOTS:
    void accept() override;

    // Whether the run will use the demo model (DemoModel: offered, and the box is checked).
    bool usesDemoModel() const;

private:
    void showStoredEnvironment();
    QUrl demoModelOffered() const;
    void showDemoModelChoice();

    OpenTerminalClient *m_client;
    Identity m_identity;
    SessionScope m_scope;
    KeyStore *m_keys;
    ChatIndexModel *m_chats;
    QHash<QString, QString> m_storedEnvironment;
    LiveRunRequest m_request;
    QString m_newChatId;
    QString m_resumeSessionId;
    bool m_forkSession = false;
    QCheckBox *m_demoCheck = nullptr;
    QLabel *m_demoLabel = nullptr;
    bool m_demoOffered = false;
    std::unique_ptr<Ui::NewRunDialog> m_ui;
};

} // namespace sandscope
