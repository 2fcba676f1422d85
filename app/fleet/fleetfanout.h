#pragma once
// Where an all-users view runs: the members of a fleet, each through its own URL and admin
// command (sandbox/README.md, "Several pods"), or one server, which is a fleet of one member
// without a name. Every all-users view (sessions, search, usage, the overview of homes,
// cleanup, the live wall) starts its admin job on every member at once and hands over each
// member's answer as it comes, tagged with the member's name: nothing waits for the slowest
// member before showing the rest. A member that fails, or does not answer within the member
// timeout, is named with its error while the others are still shown.
//
// Through the router an all-users view would see one member's users and look complete, so
// it never goes there.

#include "fleet/fleetconfig.h"
#include "server/adminaccess.h"
#include "server/connection.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QVector>

#include <functional>
#include <memory>
#include <vector>

namespace sandscope {

class OpenTerminalClient;

// One place an all-users job runs.
struct FanOutTarget {
    int index = 0; // in FleetFanOut::targets()
    QString member; // empty for a single server
    OpenTerminalClient *client = nullptr;
    AdminAccess admin;
};

// How one member's part of a fan-out ended.
struct FanOutMemberResult {
    int index = 0; // in FleetFanOut::targets()
    QString member;
    bool ok = false;
    bool timedOut = false;
    QString error; // names the member and its URL, never the key
    qint64 elapsedMs = 0;
};

class FleetFanOut : public QObject {
    Q_OBJECT
public:
    static constexpr int defaultMemberTimeoutMs = 120000;

    // One server: `client` (not owned) with `admin`.
    FleetFanOut(OpenTerminalClient *client, const AdminAccess &admin, QObject *parent = nullptr);
    // A fleet: a client per member, with the connection's key and timeout.
    FleetFanOut(
        const FleetConfig &fleet, const ServerConnection &connection, QObject *parent = nullptr);
    ~FleetFanOut() override;

    bool isFleet() const { return m_isFleet; }
    const QVector<FanOutTarget> &targets() const { return m_targets; }
    QStringList memberNames() const;
    // A member still working after this long is given up (its answer, should it come, is
    // dropped) and reported as failed; 0 waits as long as the member's own calls do.
    void setMemberTimeout(int ms) { m_memberTimeoutMs = ms; }
    int memberTimeout() const { return m_memberTimeoutMs; }

    // Calls `done(ok, error)` exactly once when its member's work ended; `context` bounds the
    // member's work: it is deleted when the member times out or the fan-out is cancelled.
    using Done = std::function<void(bool ok, const QString &error)>;
    using Job = std::function<void(const FanOutTarget &target, QObject *context, Done done)>;

    // Starts `job` on every target at once. memberFinished is emitted per member as it ends,
    // finished once after the last. A run in progress is cancelled first.
    void run(const Job &job);
    // Drops every member's work still running; no signal follows.
    void cancel();
    bool isRunning() const { return m_pending > 0; }
    const QVector<FanOutMemberResult> &results() const { return m_results; }
    int failedCount() const;

    // run() for a job that produces a value (a listing, a report): `start` is the job, given
    // the callback to hand its value to; `onMember` gets each member's result with its value
    // (a default Value when it failed), as the member ends.
    template <typename Value>
    using ValueDone = std::function<void(bool ok, const Value &value, const QString &error)>;
    template <typename Value>
    void runForValues(
        std::function<void(const FanOutTarget &target, QObject *context, ValueDone<Value> done)>
            start,
        std::function<void(const FanOutMemberResult &result, const Value &value)> onMember)
    {
        auto values = std::make_shared<QVector<Value>>(m_targets.size());
        QObject::disconnect(m_valuesConnection);
        m_valuesConnection = connect(this, &FleetFanOut::memberFinished, this,
            [values, onMember](const FanOutMemberResult &result) {
                onMember(result, result.ok ? values->at(result.index) : Value());
            });
        run([values, start](const FanOutTarget &target, QObject *context, Done done) {
            const int index = target.index;
            start(target, context,
                [values, index, done](bool ok, const Value &value, const QString &error) {
                    if (ok)
                        (*values)[index] = value;
                    done(ok, error);
                });
        });
    }

    // The message of a member that failed: "member NAME (URL): error".
    static QString memberError(const FanOutTarget &target, const QString &error);
    // "member NAME (URL)", the URL without user info; "member NAME" without a client.
    static QString memberText(const FanOutTarget &target);
    static QString memberUrl(const FanOutTarget &target);

Q_SIGNALS:
    void memberFinished(const sandscope::FanOutMemberResult &result);
    void finished(int failedMembers);

private:
    void memberEnded(int index, quint64 generation, bool ok, bool timedOut, const QString &error);

    bool m_isFleet = false;
    std::vector<std::unique_ptr<OpenTerminalClient>> m_ownedClients;
    QVector<FanOutTarget> m_targets;
    QVector<QPointer<QObject>> m_contexts;
    QVector<QElapsedTimer> m_clocks;
    QVector<FanOutMemberResult> m_results;
    int m_memberTimeoutMs = defaultMemberTimeoutMs;
    int m_pending = 0;
    quint64 m_generation = 0;
    QMetaObject::Connection m_valuesConnection;
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::FanOutMemberResult)
