#include "newrundialog.h"

#include "claude/claudecommand.h"
#include "claude/demomodel.h"
#include "environmentmasker.h"
#include "files/chatindexmodel.h"
#include "runs/promptattachments.h"
#include "security/profilestore.h"
#include "ui_newrundialog.h"

#include <QCheckBox>
#include <QLabel>
#include <QPointer>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QRandomGenerator>

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
    , m_ui(std::make_unique<Ui::NewRunDialog>())
{
    m_ui->setupUi(this);
    setWindowTitle(tr("New Run as %1").arg(identity.userId));
    setObjectName(QStringLiteral("newRunDialog"));

    m_ui->chatCombo->addItem(tr("New chat (%1)").arg(m_newChatId), m_newChatId);
    connect(m_chats, &ChatIndexModel::loaded, this, [this] {
        for (const ChatFolder &chat : m_chats->chats()) {
            if (claudecommand::isValidChatId(chat.id) && m_ui->chatCombo->findData(chat.id) < 0)
                m_ui->chatCombo->addItem(chat.id, chat.id);
        }
    });
    m_chats->setIdentity(identity);
    m_chats->reload();

    m_ui->permissionCombo->addItem(tr("(default)"), QString());
    for (const QString &mode : claudecommand::permissionModes())
        m_ui->permissionCombo->addItem(mode, mode);

    m_ui->attachmentList->takeDropsFrom(m_ui->promptEdit);
    connect(m_ui->attachButton, &QPushButton::clicked, m_ui->attachmentList,
        &AttachmentList::chooseFiles);
    connect(m_ui->removeAttachmentButton, &QPushButton::clicked, m_ui->attachmentList,
        &AttachmentList::removeSelected);
    const auto updateRemove = [this] {
        m_ui->removeAttachmentButton->setEnabled(!m_ui->attachmentList->selectedItems().isEmpty());
    };
    connect(m_ui->attachmentList, &QListWidget::itemSelectionChanged, this, updateRemove);
    updateRemove();

    new EnvironmentMasker(m_ui->environmentEdit->document()); // values masked as typed
    m_ui->errorLabel->hide();
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setText(tr("&Start"));
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &NewRunDialog::accept);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &NewRunDialog::reject);

    // The demo model, when run-local.sh started one and no real key is configured: a checkbox
    // above the form, checked, so the first run works without a key.
    m_demoCheck = new QCheckBox(tr("Use the &demo model (scripted answers, not Claude)"), this);
    m_demoCheck->setObjectName(QStringLiteral("demoModelCheck"));
    m_demoLabel = new QLabel(this);
    m_demoLabel->setObjectName(QStringLiteral("demoModelLabel"));
    m_demoLabel->setWordWrap(true);
    m_ui->dialogLayout->insertWidget(1, m_demoCheck);
    m_ui->dialogLayout->insertWidget(2, m_demoLabel);
    connect(m_demoCheck, &QCheckBox::toggled, this, &NewRunDialog::showDemoModelChoice);

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

NewRunDialog::~NewRunDialog() = default;

QStringList NewRunDialog::attachments() const
{
    return m_ui->attachmentList->localPaths();
}

void NewRunDialog::addAttachments(const QStringList &localPaths)
{
    m_ui->attachmentList->addLocalPaths(localPaths);
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
    m_ui->chatCombo->setCurrentIndex(0); // a new chat
    const ClaudeRunOptions &options = like.options;
    m_ui->modelEdit->setText(options.model);
    m_ui->permissionCombo->setCurrentIndex(
        qMax(0, m_ui->permissionCombo->findData(options.permissionMode)));
    m_ui->allowedEdit->setText(options.allowedTools.join(QStringLiteral("; ")));
    m_ui->disallowedEdit->setText(options.disallowedTools.join(QStringLiteral("; ")));
    m_ui->maxTurnsSpin->setValue(options.maxTurns);
    m_ui->systemPromptEdit->setText(options.appendSystemPrompt);
    m_ui->addDirsEdit->setText(options.extraDirectories.join(QLatin1Char(' ')));
    m_ui->partialCheck->setChecked(options.includePartialMessages);
    m_ui->subagentCheck->setChecked(options.forwardSubagentText);
    if (!like.environment.isEmpty())
        m_storedEnvironment = like.environment;
    showStoredEnvironment();
}

void NewRunDialog::selectChat(const QString &chatId)
{
    if (m_ui->chatCombo->findData(chatId) < 0)
        m_ui->chatCombo->addItem(chatId, chatId);
    m_ui->chatCombo->setCurrentIndex(m_ui->chatCombo->findData(chatId));
}

void NewRunDialog::continueSession(const QString &chatId, const QString &sessionId, bool fork)
{
    selectChat(chatId);
    m_ui->chatCombo->setEnabled(false); // the session lives in that chat's folder
    m_resumeSessionId = sessionId;
    m_forkSession = fork;
    setWindowTitle(
        (fork ? tr("Fork Session as %1") : tr("Resume Session as %1")).arg(m_identity.userId));
    m_ui->continueLabel->setText(fork
            ? tr("Forks session %1 of chat %2: a new session starts from a copy of its "
                 "history; the original stays as it is.")
                  .arg(sessionId, chatId)
            : tr("Resumes session %1 of chat %2: the prompt becomes its next turn.")
                  .arg(sessionId, chatId));
    m_ui->continueLabel->show();
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setText(fork ? tr("&Fork") : tr("&Resume"));
}

QUrl NewRunDialog::demoModelOffered() const
{
    return DemoModel::offered(m_storedEnvironment, QProcessEnvironment::systemEnvironment());
}

bool NewRunDialog::usesDemoModel() const
{
    return m_demoOffered && m_demoCheck->isChecked();
}

void NewRunDialog::showDemoModelChoice()
{
    const QUrl url = demoModelOffered();
    const bool offered = url.isValid();
    if (offered && !m_demoOffered) {
        m_demoCheck->setChecked(true); // offered by default; never once a real key shows up
        if (m_ui->promptEdit->toPlainText().isEmpty() && m_resumeSessionId.isEmpty())
            m_ui->promptEdit->setPlainText(QStringLiteral("CMD: uname -a && date && ls -la"));
    }
    m_demoOffered = offered;
    m_demoCheck->setVisible(offered);
    m_demoLabel->setVisible(offered);
    m_demoLabel->setText(offered ? DemoModel::offerText(url) : QString());
    const bool demo = offered && m_demoCheck->isChecked();
    m_ui->modelEdit->setPlaceholderText(
        demo ? DemoModel::describeModel(DemoModel::modelName()) : tr("the CLI's default"));
}

void NewRunDialog::showStoredEnvironment()
{
    QStringList names = m_storedEnvironment.keys();
    names.sort();
    m_ui->storedLabel->setText(names.isEmpty()
            ? tr("No agent environment stored.")
            : tr("Stored (values hidden): %1").arg(names.join(QStringLiteral(", "))));
    showDemoModelChoice();
}

void NewRunDialog::accept()
{
    LiveRunRequest request;
    request.identity = m_identity;
    request.scope = m_scope;
    request.chatId = m_ui->chatCombo->currentData().toString();
    request.prompt = m_ui->promptEdit->toPlainText();
    ClaudeRunOptions &options = request.options;
    options.model = m_ui->modelEdit->text().trimmed();
    options.permissionMode = m_ui->permissionCombo->currentData().toString();
    options.allowedTools = splitRules(m_ui->allowedEdit->text());
    options.disallowedTools = splitRules(m_ui->disallowedEdit->text());
    options.maxTurns = m_ui->maxTurnsSpin->value();
    options.appendSystemPrompt = m_ui->systemPromptEdit->text();
    options.extraDirectories = splitList(m_ui->addDirsEdit->text());
    options.includePartialMessages = m_ui->partialCheck->isChecked();
    options.forwardSubagentText = m_ui->subagentCheck->isChecked();
    options.resumeSessionId = m_resumeSessionId;
    options.forkSession = m_forkSession && !m_resumeSessionId.isEmpty();

    QString why;
    request.environment = m_storedEnvironment;
    const QString entered = m_ui->environmentEdit->toPlainText();
    QHash<QString, QString> environment;
    if (!entered.trimmed().isEmpty() && !LiveRun::parseEnvironment(entered, &environment, &why))
        why = tr("Agent environment, %1").arg(why);
    else if (request.prompt.trimmed().isEmpty())
        why = tr("The prompt is empty.");
    else if (const QString problem = claudecommand::validate(options); !problem.isEmpty())
        why = problem;
    else if (const QString unusable = promptattachments::checkLocalFiles(attachments());
             !unusable.isEmpty())
        why = tr("Attachment: %1.").arg(unusable);
    if (!why.isEmpty()) {
        m_ui->errorLabel->setText(why);
        m_ui->errorLabel->show();
        return;
    }
    if (entered.trimmed().isEmpty() && usesDemoModel()) {
        request.environment.insert(DemoModel::agentEnvironment(demoModelOffered()));
        if (options.model.isEmpty())
            request.options.model = DemoModel::modelName();
    }
    if (!entered.trimmed().isEmpty()) {
        request.environment = environment;
        m_ui->environmentEdit->clear(); // never kept on screen
        if (m_keys)
            m_keys->storeKey(environmentKeyName(m_scope), LiveRun::environmentText(environment),
                [](KeyStorage, const QString &) {});
    }
    m_request = request;
    QDialog::accept();
}

} // namespace sandscope
