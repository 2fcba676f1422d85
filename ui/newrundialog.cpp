#include "newrundialog.h"

#include "chatindex.h"
#include "claudecommand.h"
#include "profilestore.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSpinBox>
#include <QVBoxLayout>

namespace sandscope {

namespace {

QStringList splitList(const QString &text)
{
    QStringList items = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    return items;
}

// Tool rules are separated by ';' because a rule such as "Bash(git add, commit)" has commas.
QStringList splitRules(const QString &text)
{
    QStringList rules;
    for (const QString &rule : text.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        if (!rule.trimmed().isEmpty())
            rules << rule.trimmed();
    }
    return rules;
}

} // namespace

NewRunDialog::NewRunDialog(OpenTerminalClient *client, const Identity &identity,
    const SessionScope &scope, KeyStore *keys, QWidget *parent)
    : QDialog(parent)
    , m_client(client)
    , m_identity(identity)
    , m_scope(scope)
    , m_keys(keys)
    , m_chats(new ChatIndexModel(client, this))
    , m_newChatId(newChatId())
{
    setWindowTitle(tr("New Run as %1").arg(identity.userId));
    setObjectName(QStringLiteral("newRunDialog"));
    auto *form = new QFormLayout;

    m_chatCombo = new QComboBox(this);
    m_chatCombo->setObjectName(QStringLiteral("chatCombo"));
    m_chatCombo->addItem(tr("New chat (%1)").arg(m_newChatId), m_newChatId);
    form->addRow(tr("&Chat:"), m_chatCombo);
    connect(m_chats, &ChatIndexModel::loaded, this, [this] {
        for (const ChatFolder &chat : m_chats->chats()) {
            if (claudecommand::isValidChatId(chat.id) && m_chatCombo->findData(chat.id) < 0)
                m_chatCombo->addItem(chat.id, chat.id);
        }
    });
    m_chats->setIdentity(identity);
    m_chats->reload();

    m_promptEdit = new QPlainTextEdit(this);
    m_promptEdit->setObjectName(QStringLiteral("promptEdit"));
    form->addRow(tr("&Prompt:"), m_promptEdit);
    m_modelEdit = new QLineEdit(this);
    m_modelEdit->setPlaceholderText(tr("the CLI's default"));
    form->addRow(tr("&Model:"), m_modelEdit);
    m_permissionCombo = new QComboBox(this);
    m_permissionCombo->addItem(tr("(default)"), QString());
    for (const QString &mode : claudecommand::permissionModes())
        m_permissionCombo->addItem(mode, mode);
    form->addRow(tr("P&ermission mode:"), m_permissionCombo);
    m_allowedEdit = new QLineEdit(this);
    m_allowedEdit->setPlaceholderText(tr("rules separated by ';', e.g. Bash(git *); Read"));
    form->addRow(tr("&Allowed tools:"), m_allowedEdit);
    m_disallowedEdit = new QLineEdit(this);
    form->addRow(tr("&Disallowed tools:"), m_disallowedEdit);
    m_maxTurnsSpin = new QSpinBox(this);
    m_maxTurnsSpin->setRange(0, 10000);
    m_maxTurnsSpin->setSpecialValueText(tr("unlimited"));
    form->addRow(tr("Max &turns:"), m_maxTurnsSpin);
    m_systemPromptEdit = new QLineEdit(this);
    form->addRow(tr("Append s&ystem prompt:"), m_systemPromptEdit);
    m_addDirsEdit = new QLineEdit(this);
    m_addDirsEdit->setPlaceholderText(tr("extra directories, separated by spaces"));
    form->addRow(tr("Add d&irectories:"), m_addDirsEdit);
    m_partialCheck = new QCheckBox(tr("Include partial messages"), this);
    m_subagentCheck = new QCheckBox(tr("Forward sub-agent text"), this);
    form->addRow(QString(), m_partialCheck);
    form->addRow(QString(), m_subagentCheck);

    m_environmentEdit = new QPlainTextEdit(this);
    m_environmentEdit->setObjectName(QStringLiteral("environmentEdit"));
    m_environmentEdit->setPlaceholderText(
        tr("NAME=VALUE per line, e.g. ANTHROPIC_BASE_URL=… and ANTHROPIC_API_KEY=…\n"
           "Stored like the API key and not shown again; leave empty to use the stored values."));
    m_environmentEdit->setMaximumHeight(90);
    form->addRow(tr("Agent &environment:"), m_environmentEdit);
    m_storedLabel = new QLabel(this);
    form->addRow(QString(), m_storedLabel);

    m_errorLabel = new QLabel(this);
    m_errorLabel->setWordWrap(true);
    m_errorLabel->hide();
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Start"));
    connect(buttons, &QDialogButtonBox::accepted, this, &NewRunDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &NewRunDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_errorLabel);
    layout->addWidget(buttons);

    showStoredEnvironment();
    if (m_keys) {
        QPointer<NewRunDialog> self(this);
        m_keys->readKey(
            environmentKeyName(scope), [self](const QString &text, KeyStorage, const QString &) {
                if (!self)
                    return;
                QString why;
                QHash<QString, QString> stored;
                if (LiveRun::parseEnvironment(text, &stored, &why))
                    self->m_storedEnvironment = stored;
                self->showStoredEnvironment();
            });
    }
}

QString NewRunDialog::environmentKeyName(const SessionScope &scope)
{
    return (scope.profile.isEmpty() ? scope.server : scope.profile) + QStringLiteral(".agent-env");
}

QString NewRunDialog::newChatId()
{
    return QLatin1Char('c') + claudecommand::newRunId().left(15) + QLatin1Char('-')
        + QString::number(QRandomGenerator::global()->generate() & 0xffff, 16);
}

void NewRunDialog::useOptionsOf(const LiveRunRequest &like)
{
    m_chatCombo->setCurrentIndex(0); // a new chat
    const ClaudeRunOptions &options = like.options;
    m_modelEdit->setText(options.model);
    m_permissionCombo->setCurrentIndex(
        qMax(0, m_permissionCombo->findData(options.permissionMode)));
    m_allowedEdit->setText(options.allowedTools.join(QStringLiteral("; ")));
    m_disallowedEdit->setText(options.disallowedTools.join(QStringLiteral("; ")));
    m_maxTurnsSpin->setValue(options.maxTurns);
    m_systemPromptEdit->setText(options.appendSystemPrompt);
    m_addDirsEdit->setText(options.extraDirectories.join(QLatin1Char(' ')));
    m_partialCheck->setChecked(options.includePartialMessages);
    m_subagentCheck->setChecked(options.forwardSubagentText);
    if (!like.environment.isEmpty())
        m_storedEnvironment = like.environment;
    showStoredEnvironment();
}

void NewRunDialog::showStoredEnvironment()
{
    QStringList names = m_storedEnvironment.keys();
    names.sort();
    m_storedLabel->setText(names.isEmpty()
            ? tr("No agent environment stored.")
            : tr("Stored (values hidden): %1").arg(names.join(QStringLiteral(", "))));
}

void NewRunDialog::accept()
{
    LiveRunRequest request;
    request.identity = m_identity;
    request.scope = m_scope;
    request.chatId = m_chatCombo->currentData().toString();
    request.prompt = m_promptEdit->toPlainText();
    ClaudeRunOptions &options = request.options;
    options.model = m_modelEdit->text().trimmed();
    options.permissionMode = m_permissionCombo->currentData().toString();
    options.allowedTools = splitRules(m_allowedEdit->text());
    options.disallowedTools = splitRules(m_disallowedEdit->text());
    options.maxTurns = m_maxTurnsSpin->value();
    options.appendSystemPrompt = m_systemPromptEdit->text();
    options.extraDirectories = splitList(m_addDirsEdit->text());
    options.includePartialMessages = m_partialCheck->isChecked();
    options.forwardSubagentText = m_subagentCheck->isChecked();

    QString why;
    request.environment = m_storedEnvironment;
    const QString entered = m_environmentEdit->toPlainText();
    QHash<QString, QString> environment;
    if (!entered.trimmed().isEmpty() && !LiveRun::parseEnvironment(entered, &environment, &why))
        why = tr("Agent environment, %1").arg(why);
    else if (request.prompt.trimmed().isEmpty())
        why = tr("The prompt is empty.");
    else if (const QString problem = claudecommand::validate(options); !problem.isEmpty())
        why = problem;
    if (!why.isEmpty()) {
        m_errorLabel->setText(why);
        m_errorLabel->show();
        return;
    }
    if (!entered.trimmed().isEmpty()) {
        request.environment = environment;
        m_environmentEdit->clear(); // never kept on screen
        if (m_keys)
            m_keys->storeKey(environmentKeyName(m_scope), LiveRun::environmentText(environment),
                [](KeyStorage, const QString &) {});
    }
    m_request = request;
    QDialog::accept();
}

} // namespace sandscope
