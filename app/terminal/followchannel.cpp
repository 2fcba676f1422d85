#include "followchannel.h"

#include "server/openterminalclient.h"
#include "terminal/followedfile.h"
#include "terminal/terminalsession.h"

namespace sandscope {

namespace {

constexpr int loadTimeoutMs = 20000; // the terminal opened, the follower never said ready
constexpr int idleCloseMs = 10000; // the terminal is kept this long after the last file went
constexpr int firstRetryMs = 250;

QString channelName(const QString &userId)
{
    return QStringLiteral("sandscope-follow:") + userId;
}

// Failures a retry cannot mend: the channel gives up and its files' owners poll.
bool isHardFailure(const ApiError &error)
{
    switch (error.kind) {
    case ApiError::Kind::TooManyRequests:
    case ApiError::Kind::NotFound:
    case ApiError::Kind::InvalidApiKey:
    case ApiError::Kind::Forbidden:
    case ApiError::Kind::Tls:
        return true;
    default:
        return false;
    }
}

} // namespace

bool FollowChannel::isTurnedOff()
{
    const QByteArray value = qgetenv("SANDSCOPE_PUSH").trimmed().toLower();
    return value == "off" || value == "0" || value == "no" || value == "false";
}

FollowChannel *FollowChannel::shared(OpenTerminalClient *client, const QString &userId)
{
    if (!client || isTurnedOff())
        return nullptr;
    const QString name = channelName(userId);
    const auto channels = client->findChildren<FollowChannel *>(name, Qt::FindDirectChildrenOnly);
    for (FollowChannel *channel : channels) {
        if (channel->m_state != State::Unavailable || !channel->m_files.isEmpty())
            return channel;
    }
    return new FollowChannel(client, userId, client);
}

FollowChannel::FollowChannel(OpenTerminalClient *client, const QString &userId, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_userId(userId)
{
    setObjectName(channelName(userId));
    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, &FollowChannel::openTerminal);
    m_silenceTimer.setSingleShot(true);
    connect(&m_silenceTimer, &QTimer::timeout, this, [this] {
        lost(m_ready ? tr("no heartbeat from the follower for %1 s").arg(silenceLimitMs / 1000)
                     : tr("the follower did not start within %1 s").arg(loadTimeoutMs / 1000),
            false);
    });
    m_idleTimer.setSingleShot(true);
    connect(&m_idleTimer, &QTimer::timeout, this, [this] {
        if (m_files.isEmpty())
            deleteLater();
    });
}

FollowChannel::~FollowChannel()
{
    for (const QPointer<FollowedFile> &file : filesNow()) {
        if (file)
            file->m_channel.clear();
    }
    if (m_terminal)
        m_terminal->close();
}

// The files as they are now: a handler may delete one (and so change m_files) while the
// channel goes through them.
QList<QPointer<FollowedFile>> FollowChannel::filesNow() const
{
    return m_files.values();
}

TerminalSession *FollowChannel::terminal() const
{
    return m_terminal;
}

FollowedFile *FollowChannel::follow(const QString &path, qint64 offset, QObject *owner)
{
    return add(new FollowedFile(this, QByteArray::number(m_nextId++), path, offset), owner);
}

FollowedFile *FollowChannel::watchProcess(
    const QString &pidFile, const QByteArray &needle, QObject *owner)
{
    auto *file = new FollowedFile(this, QByteArray::number(m_nextId++), pidFile, 0);
    file->m_kind = FollowedFile::Kind::Process;
    file->m_needle = needle;
    return add(file, owner);
}

FollowedFile *FollowChannel::watchTree(
    const QString &directory, const QDateTime &since, QObject *owner)
{
    // The offset carries the time: a tree has no bytes.
    auto *file = new FollowedFile(
        this, QByteArray::number(m_nextId++), directory, since.toSecsSinceEpoch());
    file->m_kind = FollowedFile::Kind::Tree;
    return add(file, owner);
}

FollowedFile *FollowChannel::add(FollowedFile *file, QObject *owner)
{
    file->setParent(owner);
    m_files.insert(file->m_id, file);
    m_idleTimer.stop();
    if (m_state == State::Unavailable) {
        QTimer::singleShot(0, file, [this, file] {
            if (m_state == State::Unavailable)
                Q_EMIT file->unavailable(m_reason);
        });
    } else if (m_ready) {
        subscribe(file);
    } else if (m_state == State::Idle) {
        start();
    }
    return file;
}

void FollowChannel::start()
{
    m_lostAt.invalidate();
    openTerminal();
}

void FollowChannel::openTerminal()
{
    if (m_state == State::Unavailable)
        return;
    if (!m_client) {
        giveUp(tr("not connected to a server"));
        return;
    }
    if (m_terminal) {
        m_terminal->close();
        m_terminal->deleteLater();
    }
    m_reader = followprotocol::FrameReader();
    m_ready = false;
    setState(m_wasOpen ? State::Reconnecting : State::Opening);
    Identity identity;
    identity.userId = m_userId;
    auto *terminal = new TerminalSession(m_client, identity, this);
    m_terminal = terminal;
    // The follower's heartbeats tell a dead connection; no request polls the terminal.
    terminal->setLivenessInterval(0);
    terminal->setManagesShellSize(false);
    connect(terminal, &TerminalSession::output, this, [this, terminal](const QByteArray &bytes) {
        if (terminal == m_terminal)
            handleOutput(bytes);
    });
    connect(terminal, &TerminalSession::opened, this, [this, terminal] {
        if (terminal != m_terminal)
            return;
        terminal->write(followprotocol::bootstrapCommand());
        m_silenceTimer.start(loadTimeoutMs);
    });
    connect(
        terminal, &TerminalSession::failed, this, [this, terminal](const ApiError &error, bool) {
            if (terminal == m_terminal)
                lost(error.toString(), isHardFailure(error));
        });
    connect(terminal, &TerminalSession::ended, this, [this, terminal] {
        if (terminal == m_terminal)
            lost(tr("the follower's shell ended"), false);
    });
    terminal->start();
}

void FollowChannel::handleOutput(const QByteArray &bytes)
{
    m_reader.feed(bytes);
    const QList<followprotocol::Frame> frames = m_reader.takeFrames();
    for (const followprotocol::Frame &frame : frames) {
        handleFrame(frame);
        if (!m_terminal || m_state == State::Unavailable)
            return;
    }
    if (m_reader.isDamaged()) {
        lost(m_reader.damage(), false);
        return;
    }
    if (m_ready) {
        m_silenceTimer.start(silenceLimitMs);
        m_lastHeard.start();
    }
}

void FollowChannel::handleFrame(const followprotocol::Frame &frame)
{
    using Kind = followprotocol::Frame::Kind;
    if (frame.kind == Kind::Loading) {
        sendProgram(followprotocol::program());
        return;
    }
    if (frame.kind == Kind::NoPython) {
        giveUp(tr("the sandbox account has no python3 to run the follower"));
        return;
    }
    if (frame.kind == Kind::Fatal) {
        giveUp(tr("the follower failed: %1").arg(frame.text));
        return;
    }
    if (frame.kind == Kind::Ready) {
        m_ready = true;
        m_mode = frame.text;
        m_retryMs = firstRetryMs;
        m_attempts = 0;
        const bool again = m_wasOpen;
        m_wasOpen = true;
        for (const QPointer<FollowedFile> &file : filesNow()) {
            if (file)
                subscribe(file);
        }
        for (auto it = m_syncs.cbegin(); it != m_syncs.cend(); ++it)
            send(followprotocol::syncCommand(it.key()));
        setState(State::Open);
        if (again) {
            const qint64 gap = m_lostAt.isValid() ? m_lostAt.elapsed() + m_silentBeforeLossMs : 0;
            m_lostAt.invalidate();
            for (const QPointer<FollowedFile> &file : filesNow()) {
                if (file)
                    Q_EMIT file->reconnected(gap);
            }
            Q_EMIT reconnected(gap);
        }
        return;
    }
    if (frame.kind == Kind::Synced) {
        const QByteArray token = frame.text.toLatin1();
        FollowedFile *file = m_files.value(m_syncs.take(token));
        if (file && file->m_syncsPending > 0) {
            --file->m_syncsPending;
            Q_EMIT file->synced();
        }
        return;
    }
    if (frame.kind == Kind::Heartbeat)
        return;
    FollowedFile *file = m_files.value(frame.id);
    if (!file)
        return; // dropped meanwhile
    switch (frame.kind) {
    case Kind::Opened:
        file->m_inode = frame.inode;
        if (frame.offset != file->m_offset) { // replaced while nobody looked
            file->m_offset = frame.offset;
            file->m_tail.clear();
            Q_EMIT file->rewritten(frame.size);
        }
        Q_EMIT file->opened(frame.size);
        break;
    case Kind::Data: {
        const qint64 end = frame.offset + frame.data.size();
        if (frame.offset > file->m_offset) {
            lost(tr("the follower skipped bytes %1 to %2 of %3")
                     .arg(file->m_offset)
                     .arg(frame.offset)
                     .arg(file->m_path),
                false);
            return;
        }
        if (end <= file->m_offset)
            break; // already delivered
        const QByteArray fresh = frame.data.mid(int(file->m_offset - frame.offset));
        const qint64 at = file->m_offset;
        file->m_offset = end;
        file->m_tail = fresh.size() >= followprotocol::tailBytes
            ? fresh.right(followprotocol::tailBytes)
            : QByteArray(file->m_tail + fresh).right(followprotocol::tailBytes);
        Q_EMIT file->data(at, fresh);
        break;
    }
    case Kind::Truncated:
        file->m_offset = 0;
        file->m_tail.clear();
        Q_EMIT file->rewritten(frame.size);
        break;
    case Kind::Gone:
        Q_EMIT file->gone();
        break;
    case Kind::Error:
        Q_EMIT file->failed(frame.text);
        break;
    case Kind::ProcessGone:
        Q_EMIT file->processGone();
        break;
    case Kind::Created:
        Q_EMIT file->created(frame.text);
        break;
    default:
        break;
    }
}

// In pieces a little apart: 0.11.34 writes each terminal message to the PTY with one write
// whose short count it ignores, so a message larger than what the PTY takes at once loses its
// end (a 19.5 KB program never arrived whole; docs/server-behaviour.md).
void FollowChannel::sendProgram(const QByteArray &rest)
{
    if (!m_terminal || rest.isEmpty())
        return;
    constexpr int pieceBytes = 1024;
    m_terminal->write(rest.left(pieceBytes));
    if (rest.size() <= pieceBytes)
        return;
    QPointer<TerminalSession> terminal = m_terminal;
    QTimer::singleShot(5, this, [this, terminal, next = rest.mid(pieceBytes)] {
        if (terminal && terminal == m_terminal)
            sendProgram(next);
    });
}

void FollowChannel::lost(const QString &reason, bool hard)
{
    if (m_state == State::Unavailable)
        return;
    m_silenceTimer.stop();
    if (m_terminal) {
        m_terminal->close();
        m_terminal->deleteLater();
        m_terminal.clear();
    }
    m_ready = false;
    if (hard || !m_wasOpen) {
        giveUp(reason);
        return;
    }
    ++m_attempts;
    if (m_maxAttempts > 0 && m_attempts > m_maxAttempts) {
        giveUp(tr("%1 (gave up after %n attempt(s))", nullptr, m_maxAttempts).arg(reason));
        return;
    }
    if (!m_lostAt.isValid()) {
        m_lostAt.start();
        // A silent connection is noticed only after silenceLimitMs: the gap began with the
        // last thing heard (a heartbeat at most 5 s before the cut).
        m_silentBeforeLossMs = m_lastHeard.isValid() ? m_lastHeard.elapsed() : 0;
        m_reason = reason;
        for (const QPointer<FollowedFile> &file : filesNow()) {
            if (file)
                Q_EMIT file->interrupted(reason);
        }
        Q_EMIT interrupted(reason);
    }
    setState(State::Reconnecting);
    m_retryTimer.start(m_retryMs);
    m_retryMs = qMin(m_retryMs * 2, maxRetryMs);
}

void FollowChannel::giveUp(const QString &reason)
{
    m_silenceTimer.stop();
    m_retryTimer.stop();
    if (m_terminal) {
        m_terminal->close();
        m_terminal->deleteLater();
        m_terminal.clear();
    }
    m_ready = false;
    m_reason = reason;
    setState(State::Unavailable);
    for (const QPointer<FollowedFile> &file : filesNow()) {
        if (file)
            Q_EMIT file->unavailable(reason);
    }
    Q_EMIT unavailable(reason);
}

void FollowChannel::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void FollowChannel::send(const QByteArray &command)
{
    if (m_ready && m_terminal)
        m_terminal->write(command);
}

void FollowChannel::subscribe(FollowedFile *file)
{
    switch (file->m_kind) {
    case FollowedFile::Kind::Process:
        send(followprotocol::processCommand(file->m_id, file->m_path, file->m_needle));
        break;
    case FollowedFile::Kind::Tree:
        send(followprotocol::treeCommand(file->m_id, file->m_path, file->m_offset));
        break;
    case FollowedFile::Kind::File:
        send(followprotocol::addCommand(
            file->m_id, file->m_path, file->m_offset, file->m_inode, file->m_tail));
        break;
    }
}

void FollowChannel::remove(FollowedFile *file)
{
    m_files.remove(file->m_id);
    send(followprotocol::dropCommand(file->m_id));
    if (m_files.isEmpty())
        m_idleTimer.start(idleCloseMs);
}

void FollowChannel::requestSync(FollowedFile *file)
{
    const QByteArray token = "s" + QByteArray::number(m_nextSync++);
    m_syncs.insert(token, file->m_id);
    ++file->m_syncsPending;
    send(followprotocol::syncCommand(token));
}

// --- FollowedFile ----------------------------------------------------------------------------

FollowedFile::FollowedFile(
    FollowChannel *channel, const QByteArray &id, const QString &path, qint64 offset)
    : m_channel(channel)
    , m_id(id)
    , m_path(path)
    , m_offset(offset)
{
}

FollowedFile::~FollowedFile()
{
    if (m_channel)
        m_channel->remove(this);
}

void FollowedFile::sync()
{
    if (m_channel)
        m_channel->requestSync(this);
}

} // namespace sandscope
