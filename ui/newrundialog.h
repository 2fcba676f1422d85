#pragma once
// Asks for a new live run: the chat (one of the user's chats, or a new one with a generated
// id), the prompt, claude's per-run options and the agent environment (NAME=VALUE lines such
// as ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY). The environment is kept in the KeyStore under a
// profile-scoped name, like the API key, and is never shown again: the dialog only names the
// stored variables. The result is a LiveRunRequest value (tests build one directly).

#include "connection.h"
#include "runsession.h"
#include "sessionstore.h"

#include <QDialog>
#include <QHash>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace sandscope {

class ChatIndexModel;
class KeyStore;
class OpenTerminalClient;

class NewRunDialog : public QDialog {
    Q_OBJECT
public:
    // keys may be null (then the environment is used for this run only).
    NewRunDialog(OpenTerminalClient *client, const Identity &identity, const SessionScope &scope,
        KeyStore *keys, QWidget *parent = nullptr);

    // The KeyStore entry of a scope's agent environment ("<profile or server>.agent-env").
    static QString environmentKeyName(const SessionScope &scope);
    // A fresh chat id: c<yyyyMMdd-HHmmss>-<random hex>.
    static QString newChatId();

    // Starts from an earlier request (New chat of a run page): same options, a new chat.
    void useOptionsOf(const LiveRunRequest &like);
    // Valid once accepted.
    LiveRunRequest request() const { return m_request; }

public Q_SLOTS:
    void accept() override;

private:
    void showStoredEnvironment();

    OpenTerminalClient *m_client;
    Identity m_identity;
    SessionScope m_scope;
    KeyStore *m_keys;
    ChatIndexModel *m_chats;
    QHash<QString, QString> m_storedEnvironment;
    LiveRunRequest m_request;
    QString m_newChatId;

    QComboBox *m_chatCombo;
    QPlainTextEdit *m_promptEdit;
    QLineEdit *m_modelEdit;
    QComboBox *m_permissionCombo;
    QLineEdit *m_allowedEdit;
    QLineEdit *m_disallowedEdit;
    QSpinBox *m_maxTurnsSpin;
    QLineEdit *m_systemPromptEdit;
    QLineEdit *m_addDirsEdit;
    QCheckBox *m_partialCheck;
    QCheckBox *m_subagentCheck;
    QPlainTextEdit *m_environmentEdit;
    QLabel *m_storedLabel;
    QLabel *m_errorLabel;
};

} // namespace sandscope
