#include "usagecollector.h"

#include "fleet/fleetfanout.h"
#include "server/adminscript.h"
#include "server/lineassembler.h"
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
    m_partialTimer.setSingleShot(true);
    connect(&m_partialTimer, &QTimer::timeout, this, [this] { scheduleMemberSlice(); });
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

// One member's facts: its script's lines as they come, added up by its own aggregator (a
// member's file records must follow each other: members' lines never interleave in one).
struct UsageCollector::MemberFacts {
    QString member;
    UsageAggregator aggregator;
    LineAssembler lines;
    QStringList pending;
    qsizetype next = 0;
    QStringList head; // the first lines, for an error message
    bool sawHome = false;
    bool ended = false; // its fan-out result is in
    bool failed = false; // its result said so: what it sent is left out
    bool answered = false; // in full, with its home line
};

void UsageCollector::collectAllUsers(
    FleetFanOut *fanOut, const QDate &since, const QString &homesRoot)
{
    start();
    m_user.clear();
    m_since = since;
    m_fanOut = fanOut;
    m_memberErrors.clear();
    m_members.clear();
    for (const FanOutTarget &target : fanOut->targets()) {
        m_members.push_back(std::make_unique<MemberFacts>());
        m_members.back()->member = target.member;
        m_members.back()->aggregator.setMember(target.member);
    }
    m_membersWaiting = int(m_members.size());
    m_sliceScheduled = false;
    m_partialDue = false;
    m_sincePartial.start();
    QPointer<QObject> call = m_call;
    fanOut->runForValues<bool>(
        [this, call, homesRoot](const FanOutTarget &target, QObject *context,
            const FleetFanOut::ValueDone<bool> &done) {
            auto *run = new AdminScript(target.client, target.admin, context);
            MemberFacts *facts = m_members.at(size_t(target.index)).get();
            connect(run, &AdminScript::output, run, [this, call, facts](const QString &text) {
                if (!call || call != m_call || facts->failed)
                    return;
                for (QString line : facts->lines.feed(text)) {
                    if (line.endsWith(QLatin1Char('\r')))
                        line.chop(1);
                    if (facts->head.size() < 5)
                        facts->head.append(line);
                    facts->pending.append(line);
                }
                scheduleMemberSlice();
            });
            connect(run, &AdminScript::finished, run, [run, facts, done](int exitCode) {
                QString rest = facts->lines.flush();
                if (rest.endsWith(QLatin1Char('\r')))
                    rest.chop(1);
                if (!rest.isEmpty())
                    facts->pending.append(rest);
                disconnect(run, nullptr, nullptr, nullptr);
                run->deleteLater();
                if (exitCode != 0)
                    return done(false, false,
                        tr("reading the transcripts' usage failed (exit status %1): %2")
                            .arg(exitCode)
                            .arg(facts->head.join(QLatin1Char('\n')).trimmed().left(500)));
                done(true, true, QString());
            });
            connect(run, &AdminScript::failed, run, [run, done](const ApiError &error) {
                disconnect(run, nullptr, nullptr, nullptr);
                run->deleteLater();
                done(false, false, error.toString());
            });
            run->start(usagefacts::allUsersScript(homesRoot));
        },
        [this, call](const FanOutMemberResult &result, bool) {
            if (!call || call != m_call)
                return; // cancelled, or a later collection
            MemberFacts &facts = *m_members.at(size_t(result.index));
            facts.ended = true;
            --m_membersWaiting;
            if (!result.ok) {
                // What it sent is left out of the figures: they would not be all of its own.
                m_memberErrors.append(result.error);
                facts.failed = true;
                facts.sawHome = false;
                facts.pending.clear();
                facts.next = 0;
                facts.aggregator = UsageAggregator();
                m_partialDue = true;
            }
            Q_EMIT memberFinished(result);
            scheduleMemberSlice();
        });
}

void UsageCollector::scheduleMemberSlice()
{
    if (m_sliceScheduled || !m_call)
        return;
    m_sliceScheduled = true;
    QTimer::singleShot(0, m_call, [this] {
        m_sliceScheduled = false;
        addMemberSlice();
    });
}

// The members' lines added up in slices of at most sliceMs, a member after another.
void UsageCollector::addMemberSlice()
{
    if (!m_running)
        return;
    QElapsedTimer timer;
    timer.start();
    bool more = false;
    for (const auto &facts : m_members) {
        while (facts->next < facts->pending.size() && timer.elapsed() < sliceMs) {
            QString home;
            facts->sawHome = usagefacts::parseLine(facts->pending.at(facts->next++), QString(),
                                 &facts->aggregator, facts->sawHome ? nullptr : &home)
                || facts->sawHome;
            m_partialDue = true;
        }
        if (facts->next >= facts->pending.size()) {
            facts->pending.clear();
            facts->next = 0;
        } else {
            more = true;
        }
    }
    const bool settled = !more && m_membersWaiting == 0;
    if (m_partialDue && !settled && m_sincePartial.elapsed() >= partialMs) {
        m_partialDue = false;
        m_sincePartial.restart();
        Q_EMIT partialReport(membersReport(false));
        if (!m_running) // cancelled from a slot
            return;
    }
    if (more) {
        scheduleMemberSlice();
        return;
    }
    if (m_membersWaiting > 0) {
        // Waiting for lines; figures added since the last partial report are shown soon.
        if (m_partialDue && !m_partialTimer.isActive())
            m_partialTimer.start(partialMs);
        return;
    }
    for (const auto &facts : m_members) {
        facts->answered = facts->ended && !facts->failed && facts->sawHome;
        if (facts->ended && !facts->failed && !facts->sawHome)
            m_memberErrors.append(tr("member %1: its usage answer had no home line; its "
                                     "figures are left out")
                                      .arg(facts->member));
    }
    finish();
}

UsageReport UsageCollector::membersReport(bool answeredOnly) const
{
    QVector<UsageReport> reports;
    for (const auto &facts : m_members) {
        if (facts->sawHome && (!answeredOnly || facts->answered))
            reports.append(facts->aggregator.report(m_since));
    }
    return UsageReport::merged(reports);
}

void UsageCollector::finish()
{
    m_running = false;
    m_partialTimer.stop();
    m_call->deleteLater();
    m_call = nullptr;
    m_lines.clear();
    m_next = 0;
    if (m_fanOut) {
        const bool anyAnswered = std::any_of(m_members.cbegin(), m_members.cend(),
            [](const std::unique_ptr<MemberFacts> &facts) { return facts->answered; });
        if (!anyAnswered) {
            Q_EMIT failed(m_memberErrors.join(QLatin1Char('\n')));
            return;
        }
        Q_EMIT finished(membersReport(true));
        return;
    }
    if (!m_sawHome) {
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
    m_partialTimer.stop();
    m_members.clear();
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
    finish();
}

} // namespace sandscope
