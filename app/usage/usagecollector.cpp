#include "usagecollector.h"

#include "fleet/fleetfanout.h"
#include "server/adminscript.h"
#include "server/shortcommand.h"
#include "usage/usagefacts.h"

#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>

namespace sandscope {

namespace {

constexpr int sliceMs = 8;
constexpr int sliceLines = 20000;

std::function<void(const Result<CommandOutput> &)> outputOf(
    std::function<void(bool, const QString &, const QString &)> done)
{
    return [done](const Result<CommandOutput> &result) {
        if (!result.ok())
            return done(false, QString(), result.error.toString());
        const QString output = result.value.lines.join(QLatin1Char('\n'));
        if (result.value.exitCode != 0)
            return done(false, QString(),
                QStringLiteral("reading the transcripts' usage failed (exit status %1): %2")
                    .arg(result.value.exitCode)
                    .arg(output.trimmed().left(500)));
        done(true, output, QString());
    };
}

} // namespace

UsageCollector::UsageCollector(QObject *parent)
    : QObject(parent)
{
}

UsageCollector::~UsageCollector() = default;

void UsageCollector::start()
{
    cancel();
    m_fanOut = nullptr;
    m_running = true;
    m_call = new QObject(this);
    m_lines.clear();
    m_next = 0;
    Q_EMIT progress(0, 0, tr("Reading the transcripts on the server…"));
}

void UsageCollector::collect(
    OpenTerminalClient *client, const Identity &identity, const QDate &since)
{
    start();
    m_user = identity.userId;
    m_since = since;
    runShortCommand(client, identity, usagefacts::script(), m_call,
        outputOf([this](bool ok, const QString &output, const QString &error) {
            onOutput(ok, output, error);
        }),
        10 * 60 * 1000);
}

void UsageCollector::collectAllUsers(OpenTerminalClient *client, const AdminAccess &admin,
    const QDate &since, const QString &homesRoot)
{
    start();
    m_user.clear();
    m_since = since;
    runAdminCommand(client, admin, usagefacts::allUsersScript(homesRoot), m_call,
        outputOf([this](bool ok, const QString &output, const QString &error) {
            onOutput(ok, output, error);
        }));
}

void UsageCollector::collectAllUsers(
    FleetFanOut *fanOut, const QDate &since, const QString &homesRoot)
{
    start();
    m_user.clear();
    m_since = since;
    m_fanOut = fanOut;
    m_queue.clear();
    m_memberErrors.clear();
    m_membersWaiting = int(fanOut->targets().size());
    m_membersAdded = 0;
    m_aggregator = UsageAggregator();
    QPointer<QObject> call = m_call;
    // Each member's lines as they came: a large answer is not joined and split again on the
    // main thread.
    fanOut->runForValues<QStringList>(
        [homesRoot](const FanOutTarget &target, QObject *context,
            const FleetFanOut::ValueDone<QStringList> &done) {
            runAdminCommand(target.client, target.admin, usagefacts::allUsersScript(homesRoot),
                context, [done](const Result<CommandOutput> &result) {
                    if (!result.ok())
                        return done(false, {}, result.error.toString());
                    if (result.value.exitCode != 0)
                        return done(false, {},
                            tr("reading the transcripts' usage failed (exit status %1): %2")
                                .arg(result.value.exitCode)
                                .arg(result.value.lines.mid(0, 5)
                                         .join(QLatin1Char('\n'))
                                         .trimmed()
                                         .left(500)));
                    done(true, result.value.lines, QString());
                });
        },
        [this, call](const FanOutMemberResult &result, const QStringList &output) {
            if (!call || call != m_call)
                return; // cancelled, or a later collection
            --m_membersWaiting;
            if (result.ok)
                m_queue.append({result.member, output});
            else
                m_memberErrors.append(result.error);
            Q_EMIT memberFinished(result);
            if (m_lines.isEmpty() && m_next == 0)
                nextMember();
        });
}

void UsageCollector::nextMember()
{
    if (!m_running || !m_call)
        return;
    if (m_queue.isEmpty()) {
        if (m_membersWaiting == 0)
            finish();
        return;
    }
    auto [member, lines] = m_queue.takeFirst();
    m_member = member;
    m_aggregator.setMember(member);
    m_lines = std::move(lines);
    m_next = 0;
    m_sawHome = false;
    QTimer::singleShot(0, m_call, [this] { addSlice(); });
}

void UsageCollector::finish()
{
    m_running = false;
    m_call->deleteLater();
    m_call = nullptr;
    m_lines.clear();
    m_next = 0;
    if (m_fanOut && m_membersAdded == 0 && !m_memberErrors.isEmpty()) {
        Q_EMIT failed(m_memberErrors.join(QLatin1Char('\n')));
        return;
    }
    if (!m_fanOut && !m_sawHome) {
        Q_EMIT failed(tr("reading the transcripts' usage failed: the answer had no home line"));
        return;
    }
    Q_EMIT finished(m_aggregator.report(m_since));
}

void UsageCollector::cancel()
{
    if (!m_running)
        return;
    m_running = false;
    if (m_fanOut)
        m_fanOut->cancel();
    m_queue.clear();
    // Its callbacks and slices never run; a stream that reports its end while it is deleted
    // finds the collector no longer running.
    QObject *call = m_call;
    m_call = nullptr;
    delete call;
    m_lines.clear();
    Q_EMIT cancelled();
}

void UsageCollector::onOutput(bool ok, const QString &output, const QString &error)
{
    if (!m_running || !m_call)
        return;
    if (!ok) {
        m_running = false;
        m_call->deleteLater();
        m_call = nullptr;
        Q_EMIT failed(error);
        return;
    }
    // Added up in slices: a listing of many users can hold millions of lines.
    m_lines = output.split(QLatin1Char('\n'));
    m_next = 0;
    m_sawHome = false;
    m_aggregator = UsageAggregator();
    QTimer::singleShot(0, m_call, [this] { addSlice(); });
}

void UsageCollector::addSlice()
{
    QElapsedTimer timer;
    timer.start();
    QString home;
    const qsizetype end = std::min<qsizetype>(m_lines.size(), m_next + sliceLines);
    while (m_next < end && timer.elapsed() < sliceMs) {
        m_sawHome = usagefacts::parseLine(
                        m_lines.at(m_next++), m_user, &m_aggregator, m_sawHome ? nullptr : &home)
            || m_sawHome;
    }
    Q_EMIT progress(
        m_next, m_lines.size(), tr("Adding up %n record(s)…", nullptr, int(m_lines.size())));
    if (!m_running) // cancelled from a progress slot
        return;
    if (m_next < m_lines.size()) {
        QTimer::singleShot(0, m_call, [this] { addSlice(); });
        return;
    }
    if (m_fanOut) {
        // One member's facts are added up: the next member's, or the end.
        if (m_sawHome)
            ++m_membersAdded;
        else
            m_memberErrors.append(tr("member %1: its usage answer had no home line; its "
                                     "figures are left out")
                                      .arg(m_member));
        m_lines.clear();
        m_next = 0;
        if (m_sawHome)
            Q_EMIT partialReport(m_aggregator.report(m_since));
        nextMember();
        return;
    }
    finish();
}

} // namespace sandscope
