#include "consolepage.h"

#include "monospacefont.h"
#include "security/auditlog.h"
#include "server/openterminalclient.h"
#include "ui_consolepage.h"

#include <QFontDatabase>
#include <QPalette>
#include <QScrollBar>
#include <QStyle>
#include <QTextCursor>

#include <utility>

namespace sandscope {

namespace {

QString signalName(int signal)
{
    switch (signal) {
    case 1:
        return QStringLiteral("SIGHUP");
    case 2:
        return QStringLiteral("SIGINT");
    case 3:
        return QStringLiteral("SIGQUIT");
    case 6:
        return QStringLiteral("SIGABRT");
    case 9:
        return QStringLiteral("SIGKILL");
    case 13:
        return QStringLiteral("SIGPIPE");
    case 15:
        return QStringLiteral("SIGTERM");
    default:
        return {};
    }
}

} // namespace

ConsolePage::ConsolePage(QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::ConsolePage>())
{
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("consolePage"));

    QFont mono = monospaceFont();
    m_ui->outputView->setFont(mono);
    m_ui->outputView->setMaximumBlockCount(maximumLines);
    m_ui->outputView->setUndoRedoEnabled(false);
    m_ui->busyIndicator->setVisible(false);
    m_ui->stopButton->setIcon(style()->standardIcon(QStyle::SP_MediaStop));
    m_ui->runButton->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_ui->runButton->setDefault(true);

    m_runningTicker.setInterval(1000);
    connect(&m_runningTicker, &QTimer::timeout, this, [this] {
        if (m_stream && m_stream->state() == ProcessStream::State::Running)
            setState(tr("Running… %1").arg(elapsedText()));
    });

    connect(m_ui->runButton, &QPushButton::clicked, this, &ConsolePage::run);
    connect(m_ui->stopButton, &QPushButton::clicked, this, &ConsolePage::stop);
    connect(m_ui->killButton, &QPushButton::clicked, this, &ConsolePage::kill);
    connect(m_ui->clearButton, &QPushButton::clicked, this, &ConsolePage::clearOutput);
    connect(m_ui->commandEdit, &QLineEdit::returnPressed, this, &ConsolePage::run);
    connect(m_ui->cwdEdit, &QLineEdit::returnPressed, this, &ConsolePage::run);
    connect(m_ui->commandEdit, &QLineEdit::textChanged, this, &ConsolePage::updateButtons);

    setState(tr("Not connected"));
    updateButtons();
}

ConsolePage::~ConsolePage()
{
    // The stream is a child and would otherwise outlive our members, signalling into a
    // half-destroyed page; a running command is left running on the server.
    if (m_stream) {
        m_stream->disconnect(this);
        delete m_stream;
    }
}

void ConsolePage::setClient(OpenTerminalClient *client)
{
    const bool changed = m_client != client;
    m_client = client;
    // Keep the last command's result visible when only the acting user was re-checked.
    if (changed && !isRunning())
        setState(client ? tr("Ready") : tr("Not connected"));
    updateButtons();
}

void ConsolePage::setIdentity(const Identity &identity)
{
    m_identity = identity;
}

void ConsolePage::setApiKey(const QString &apiKey)
{
    m_apiKey = apiKey;
}

void ConsolePage::setAuditLog(AuditLog *auditLog, const QString &profile)
{
    m_auditLog = auditLog;
    m_profile = profile;
}

void ConsolePage::setPollIntervals(int fastMs, int idleMaxMs)
{
    m_fastPollMs = fastMs;
    m_idlePollMaxMs = idleMaxMs;
}

QString ConsolePage::outputText() const
{
    return m_ui->outputView->toPlainText();
}

QString ConsolePage::stateText() const
{
    return m_ui->stateLabel->text();
}

QLineEdit *ConsolePage::commandEdit() const
{
    return m_ui->commandEdit;
}

QLineEdit *ConsolePage::cwdEdit() const
{
    return m_ui->cwdEdit;
}

QPushButton *ConsolePage::runButton() const
{
    return m_ui->runButton;
}

QPushButton *ConsolePage::stopButton() const
{
    return m_ui->stopButton;
}

QPushButton *ConsolePage::killButton() const
{
    return m_ui->killButton;
}

QPlainTextEdit *ConsolePage::outputView() const
{
    return m_ui->outputView;
}

QLabel *ConsolePage::stateLabel() const
{
    return m_ui->stateLabel;
}

void ConsolePage::run()
{
    const QString command = m_ui->commandEdit->text().trimmed();
    if (isRunning() || !m_client || command.isEmpty())
        return;

    m_filter.reset();
    m_pendingStop = PendingStop::None;
    m_redactor.clear();
    m_redactor.addSecret(m_apiKey);

    m_ui->outputView->clear();
    QTextCharFormat promptFormat;
    promptFormat.setForeground(palette().color(QPalette::Disabled, QPalette::Text));
    QTextCursor cursor(m_ui->outputView->document());
    cursor.movePosition(QTextCursor::End);
    cursor.insertText(QStringLiteral("$ ") + m_redactor.redact(command) + u'\n', promptFormat);

    ExecuteOptions options;
    options.cwd = m_ui->cwdEdit->text().trimmed();

    m_stream = new ProcessStream(m_client, m_identity, this);
    if (m_fastPollMs > 0)
        m_stream->setPollIntervals(m_fastPollMs, m_idlePollMaxMs);
    connect(m_stream, &ProcessStream::output, this, &ConsolePage::handleOutput);
    connect(m_stream, &ProcessStream::stateChanged, this, &ConsolePage::handleStateChanged);
    connect(m_stream, &ProcessStream::finished, this, &ConsolePage::handleFinished);
    connect(m_stream, &ProcessStream::failed, this, &ConsolePage::handleFailed);
    connect(m_stream, &ProcessStream::notice, this,
        [this](const QString &message) { m_ui->stateLabel->setToolTip(message); });

    m_elapsed.start();
    m_runningTicker.start();
    m_ui->stateLabel->setToolTip({});
    setState(tr("Starting…"));
    audit(QStringLiteral("exec"), m_redactor.redact(command), QStringLiteral("started"));
    m_stream->start(command, options);
    updateRunningState();
}

void ConsolePage::stop()
{
    if (!m_stream)
        return;
    if (m_stream->state() == ProcessStream::State::Starting) {
        m_pendingStop = PendingStop::Stop;
        setState(tr("Stopping as soon as the command has started…"));
        return;
    }
    audit(QStringLiteral("kill"), m_stream->processId(), QStringLiteral("SIGTERM requested"));
    setState(tr("Stopping (SIGTERM sent; SIGKILL after %1 s)…").arg(m_stopGraceMs / 1000.0));
    m_stream->stop(m_stopGraceMs);
    updateButtons();
}

void ConsolePage::kill()
{
    if (!m_stream)
        return;
    if (m_stream->state() == ProcessStream::State::Starting) {
        m_pendingStop = PendingStop::Kill;
        setState(tr("Killing as soon as the command has started…"));
        return;
    }
    audit(QStringLiteral("kill"), m_stream->processId(), QStringLiteral("SIGKILL requested"));
    setState(tr("Killing (SIGKILL sent)…"));
    m_stream->kill();
    updateButtons();
}

void ConsolePage::clearOutput()
{
    m_ui->outputView->clear();
}

void ConsolePage::detachRunning(const QString &reason)
{
    if (!m_stream)
        return;
    m_stream->detach();
    endRun();
    setState(tr("Detached: %1").arg(reason));
}

void ConsolePage::handleOutput(const QString &raw)
{
    appendText(m_redactor.feed(m_filter.filter(raw)));
}

void ConsolePage::handleStateChanged(ProcessStream::State state)
{
    if (state == ProcessStream::State::Running && m_stream) {
        const PendingStop pending = std::exchange(m_pendingStop, PendingStop::None);
        if (pending == PendingStop::Stop)
            stop();
        else if (pending == PendingStop::Kill)
            kill();
        else
            setState(tr("Running… %1").arg(elapsedText()));
    }
    updateButtons();
}

void ConsolePage::handleFinished(int exitCode, ProcessStatus status)
{
    const QString elapsed = elapsedText();
    endRun();
    if (exitCode < 0) {
        const int signal = -exitCode;
        const QString name = signalName(signal);
        setState(name.isEmpty() ? tr("Killed by signal %1 after %2").arg(signal).arg(elapsed)
                                : tr("Killed by signal %1 (%2) after %3")
                                      .arg(QString::number(signal), name, elapsed),
            true);
    } else if (status == ProcessStatus::Killed) {
        setState(tr("Killed after %1").arg(elapsed), true);
    } else {
        setState(tr("Exit code %1 after %2").arg(exitCode).arg(elapsed), exitCode != 0);
    }
}

void ConsolePage::handleFailed(const ApiError &error)
{
    endRun();
    // Error texts never carry the key by contract; redact anyway, it is cheap.
    setState(tr("Error: %1").arg(m_redactor.redact(error.toString())), true);
}

void ConsolePage::endRun()
{
    appendText(m_redactor.finish());
    if (m_stream) {
        m_stream->disconnect(this);
        m_stream->deleteLater();
        m_stream = nullptr;
    }
    m_runningTicker.stop();
    updateRunningState();
}

void ConsolePage::appendText(const QString &text)
{
    if (text.isEmpty())
        return;
    QScrollBar *scrollBar = m_ui->outputView->verticalScrollBar();
    const bool following = scrollBar->value() >= scrollBar->maximum() - 2;

    // Inserting at the end keeps partial lines partial; the next chunk continues them.
    QTextCursor cursor(m_ui->outputView->document());
    cursor.movePosition(QTextCursor::End);
    cursor.insertText(text, QTextCharFormat());

    if (following)
        scrollBar->setValue(scrollBar->maximum());
}

void ConsolePage::setState(const QString &text, bool isError)
{
    m_ui->stateLabel->setText(text);
    QPalette labelPalette = palette();
    if (isError)
        labelPalette.setColor(QPalette::WindowText, QColor(0xc6, 0x28, 0x28));
    m_ui->stateLabel->setPalette(labelPalette);
}

void ConsolePage::updateRunningState()
{
    m_ui->busyIndicator->setVisible(isRunning());
    updateButtons();
    Q_EMIT runningChanged(isRunning());
}

void ConsolePage::updateButtons()
{
    const bool running = isRunning();
    const bool live = running
        && (m_stream->state() == ProcessStream::State::Running
            || m_stream->state() == ProcessStream::State::Starting);
    m_ui->runButton->setEnabled(
        !running && m_client && !m_ui->commandEdit->text().trimmed().isEmpty());
    m_ui->stopButton->setEnabled(live);
    m_ui->killButton->setEnabled(running && m_stream->state() != ProcessStream::State::Finished);
}

void ConsolePage::audit(const QString &action, const QString &target, const QString &result)
{
    if (!m_auditLog || !m_client)
        return;
    AuditEntry entry;
    entry.profile = m_profile;
    entry.server = m_client->connection().baseUrl.toString(QUrl::RemoveUserInfo);
    entry.userId = m_identity.userId;
    entry.action = action;
    entry.target = target;
    entry.result = result;
    m_auditLog->append(entry);
}

QString ConsolePage::elapsedText() const
{
    const qint64 ms = m_elapsed.isValid() ? m_elapsed.elapsed() : 0;
    if (ms < 60000)
        return tr("%1 s").arg(ms / 1000.0, 0, 'f', 1);
    return tr("%1 min %2 s").arg(ms / 60000).arg((ms % 60000) / 1000);
}

} // namespace sandscope
