#include "probecalls.h"

#include "probing/probesteps.h"
#include "probing/probeterminalsocket.h"
#include "server/adminscript.h"
#include "server/shortcommand.h"

#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>
#include <memory>

namespace sandscope {

using protocol::HttpResponse;
using protocol::RequestSpec;

namespace {

constexpr int excerptLength = 600;
// After DELETE /execute/{id}, 0.11.34 closes a descriptor of the killed process a second
// time, shortly afterwards; a process started in between can lose its terminal (it exits
// 120 without output). Nothing new starts until then.
constexpr int killSettleMs = 1000;

} // namespace

namespace probe {

RequestSpec getSpec(const QString &path, const QList<QPair<QString, QString>> &query)
{
    RequestSpec spec;
    spec.path = path;
    spec.query = query;
    return spec;
}

RequestSpec sendSpec(const QByteArray &method, const QString &path, const QVariantMap &body,
    const QList<QPair<QString, QString>> &query)
{
    RequestSpec spec = getSpec(path, query);
    spec.method = method;
    spec.idempotent = false;
    if (!body.isEmpty())
        spec.body = protocol::jsonBody(body);
    return spec;
}

QString joinedOutput(const HttpResponse &response)
{
    const Result<ProcessSnapshot> snapshot = protocol::parseProcess(response.body);
    QString text;
    for (const OutputChunk &chunk : snapshot.value.output)
        text += chunk.data;
    return text;
}

} // namespace probe

ProbeCalls::ProbeCalls(
    OpenTerminalClient *client, const ProbeSteps *steps, std::function<bool()> refusesWork)
    : m_client(client)
    , m_steps(steps)
    , m_refusesWork(std::move(refusesWork))
{
}

void ProbeCalls::reset(const QString &apiKey, int commandTimeoutMs)
{
    m_redactor.clear();
    m_redactor.addSecret(apiKey);
    m_commandTimeoutMs = commandTimeoutMs;
}

QString ProbeCalls::describe(const Identity &identity, const RequestSpec &spec) const
{
    QString line = QString::fromLatin1(spec.method) + QLatin1Char(' ') + spec.path;
    if (!spec.query.isEmpty()) {
        QStringList parts;
        for (const auto &item : spec.query)
            parts << item.first + QLatin1Char('=') + item.second;
        line += QLatin1Char('?') + parts.join(QLatin1Char('&'));
    }
    if (!spec.body.isEmpty())
        line += QLatin1Char(' ') + QString::fromUtf8(spec.body);
    QStringList headers;
    headers << (identity.userId.isEmpty() ? QStringLiteral("no X-User-Id")
                                          : QStringLiteral("X-User-Id: ") + identity.userId);
    if (!identity.sessionId.isEmpty())
        headers << QStringLiteral("X-Session-Id: ") + identity.sessionId;
    return m_redactor.redact(
        line + QStringLiteral("  (") + headers.join(QStringLiteral(", ")) + QLatin1Char(')'));
}

QString ProbeCalls::excerpt(const QString &text) const
{
    const QString redacted = m_redactor.redact(text);
    if (redacted.size() <= excerptLength)
        return redacted;
    return redacted.left(excerptLength) + QStringLiteral("… (%1 characters)").arg(redacted.size());
}

Evidence ProbeCalls::evidenceOf(const ProbeCall &call, const HttpResponse &response) const
{
    Evidence evidence;
    evidence.request = describe(call.identity, call.spec);
    evidence.status = response.status;
    evidence.note = call.note;
    const bool text = response.contentType.isEmpty() || response.contentType.contains("json")
        || response.contentType.startsWith("text/");
    if (response.status == 0)
        evidence.response
            = excerpt(response.networkErrorString.isEmpty() ? QStringLiteral("no answer")
                                                            : response.networkErrorString);
    else if (text)
        evidence.response = excerpt(QString::fromUtf8(response.body));
    else
        evidence.response = QStringLiteral("<%1 bytes of %2>")
                                .arg(response.body.size())
                                .arg(QString::fromLatin1(response.contentType));
    return evidence;
}

void ProbeCalls::request(const ProbeCall &call, std::function<void(const ProbeReply &)> done)
{
    if (m_refusesWork())
        return;
    const int generation = m_steps->generation();
    m_client->send(call.identity, call.spec, m_steps->context(),
        [this, call, done, generation](const HttpResponse &response) {
            if (!m_steps->isCurrent(generation))
                return;
            done(ProbeReply {response, evidenceOf(call, response)});
        });
}

void ProbeCalls::requests(
    const QVector<ProbeCall> &calls, std::function<void(const QVector<ProbeReply> &)> done)
{
    auto replies = std::make_shared<QVector<ProbeReply>>();
    auto sendNext = std::make_shared<std::function<void()>>();
    // The chain holds itself through the callback only while a request is in flight.
    *sendNext
        = [this, calls, replies, done, weak = std::weak_ptr<std::function<void()>>(sendNext)] {
              if (replies->size() == calls.size()) {
                  done(*replies);
                  return;
              }
              const auto self = weak.lock();
              request(calls.at(replies->size()), [replies, self](const ProbeReply &reply) {
                  replies->append(reply);
                  (*self)();
              });
          };
    (*sendNext)();
}

void ProbeCalls::command(const Identity &identity, const QString &commandLine, const QString &note,
    std::function<void(const Result<CommandOutput> &, const Evidence &)> done)
{
    if (m_refusesWork())
        return;
    const int generation = m_steps->generation();
    Evidence evidence;
    evidence.request = describe(identity,
        probe::sendSpec(
            "POST", QStringLiteral("/execute"), {{QStringLiteral("command"), commandLine}}));
    evidence.note = note;
    runShortCommand(
        m_client, identity, commandLine, m_steps->context(),
        [this, evidence, done, generation](const Result<CommandOutput> &result) {
            if (!m_steps->isCurrent(generation))
                return;
            done(result, commandEvidence(evidence, result));
        },
        m_commandTimeoutMs);
}

void ProbeCalls::adminCommand(const AdminAccess &admin, const QString &script, const QString &note,
    std::function<void(const Result<CommandOutput> &, const Evidence &)> done)
{
    if (m_refusesWork())
        return;
    const int generation = m_steps->generation();
    Evidence evidence;
    evidence.request = QStringLiteral("admin script through %1:\n%2").arg(admin.describe(), script);
    evidence.note = note;
    runAdminCommand(m_client, admin, script, m_steps->context(),
        [this, evidence, done, generation](const Result<CommandOutput> &result) {
            if (m_steps->isCurrent(generation))
                done(result, commandEvidence(evidence, result));
        });
}

Evidence ProbeCalls::commandEvidence(Evidence evidence, const Result<CommandOutput> &result) const
{
    if (result.ok()) {
        evidence.response = excerpt(result.value.lines.join(QLatin1Char('\n')))
            + QStringLiteral("\n[exit status %1]").arg(result.value.exitCode);
    } else {
        evidence.status = result.error.httpStatus;
        evidence.response = excerpt(
            result.error.detail.isEmpty() ? result.error.toString() : result.error.detail);
    }
    return evidence;
}

void ProbeCalls::awaitOutput(const Identity &identity, const QString &processId,
    const QRegularExpression &needle, int timeoutMs,
    std::function<void(bool, const ProbeReply &)> done)
{
    auto clock = std::make_shared<QElapsedTimer>();
    clock->start();
    auto poll = std::make_shared<std::function<void()>>();
    const ProbeCall call {identity,
        probe::getSpec(QStringLiteral("/execute/") + processId + QStringLiteral("/status"),
            {{QStringLiteral("offset"), QStringLiteral("0")}}),
        tr("A reads its own process output")};
    *poll = [this, call, needle, timeoutMs, done, clock,
                weak = std::weak_ptr<std::function<void()>>(poll)] {
        const auto self = weak.lock();
        request(call, [this, needle, timeoutMs, done, clock, self](const ProbeReply &reply) {
            const bool found = needle.match(probe::joinedOutput(reply.response)).hasMatch();
            const bool running = reply.response.status == 200
                && protocol::parseProcess(reply.response.body).value.info.status
                    == ProcessStatus::Running;
            if (found || !running || clock->elapsed() > timeoutMs) {
                done(found, reply);
                return;
            }
            QTimer::singleShot(150, m_steps->context(), [self] { (*self)(); });
        });
    };
    (*poll)();
}

void ProbeCalls::terminal(const Identity &identity, const QString &terminalId, const QString &typed,
    const QString &needle, const QString &note,
    std::function<void(const probe::TerminalAttempt &, const Evidence &)> done)
{
    if (m_refusesWork())
        return;
    const int generation = m_steps->generation();
    protocol::RequestSpec spec = probe::getSpec(QStringLiteral("/api/terminals/") + terminalId);
    spec.method = "WebSocket";
    Evidence evidence;
    evidence.request = describe(identity, spec) + QStringLiteral(", typed: ") + excerpt(typed);
    evidence.note = note;
    ProbeTerminalSocket::attempt(m_client->connection(), identity, terminalId, typed.toUtf8(),
        needle, outputWaitMs, m_steps->context(),
        [this, evidence, done, generation](const probe::TerminalAttempt &attempt) {
            if (!m_steps->isCurrent(generation))
                return;
            Evidence seen = evidence;
            seen.status = attempt.closeCode;
            const QString outcome = !attempt.connected
                ? QStringLiteral("[handshake failed: %1]").arg(attempt.error)
                : attempt.closedByServer
                ? QStringLiteral("[closed by the server: %1 %2]")
                      .arg(attempt.closeCode)
                      .arg(attempt.closeReason)
                : QStringLiteral("[closed by the probe after %1 ms]").arg(attempt.waitedMs);
            seen.response = excerpt(attempt.output) + QLatin1Char('\n') + excerpt(outcome);
            done(attempt, seen);
        });
}

void ProbeCalls::settleAfterKill(const QVector<ProbeReply> &replies, std::function<void()> then)
{
    const bool killed = std::any_of(replies.cbegin(), replies.cend(), [](const ProbeReply &reply) {
        return reply.evidence.request.startsWith(QLatin1String("DELETE /execute/"))
            && reply.response.status == 200;
    });
    if (killed)
        QTimer::singleShot(killSettleMs, m_steps->context(), then);
    else
        then();
}

} // namespace sandscope
