#pragma once
// A test fleet as deployed: REAL members (fleetmembers.h) behind the REAL nginx running the
// shipped router (fleetrouter.h), one API key, and the fleet file naming them
// (`{"router", "members": [{name, url, admin_exec}]}`), as `--fleet FILE` and a fleet profile
// read it.

#include "fleet/fleetconfig.h"
#include "fleetmembers.h"
#include "fleetrouter.h"
#include "realserver.h"
#include "testing.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <array>

namespace sandscope::test {

template <int Members> struct RoutedFleet {
    std::array<TestMember, Members> members;
    FleetRouter router;
    QString key = QStringLiteral("fleet-key-") + randomToken(16);
    QTemporaryDir files;
    QString fleetFile;
    FleetConfig fleet;

    ServerConnection routerConnection() const { return {router.url(), key, 30000}; }

    // Members "member-a", "member-b", ..., the router and the fleet file; false with `error`.
    bool start(QString *error)
    {
        QList<TestMember *> all;
        QStringList names;
        for (int i = 0; i < Members; ++i) {
            all << &members[size_t(i)];
            names << QStringLiteral("member-%1").arg(QChar(u'a' + i));
        }
        if (!startMembers(all, names, error, key))
            return false;
        QList<quint16> ports;
        QJsonArray listed;
        for (TestMember &member : members) {
            ports << quint16(member.server->url().port());
            listed.append(QJsonObject {{QStringLiteral("name"), member.name},
                {QStringLiteral("url"), member.server->url().toString()},
                {QStringLiteral("admin_exec"), member.adminCommand()}});
        }
        if (!router.start(ports, error))
            return false;
        const QByteArray json = QJsonDocument(
            QJsonObject {{QStringLiteral("router"), router.url().toString()},
                {QStringLiteral("members"),
                    listed}}).toJson();
        if (!FleetConfig::fromJson(json, &fleet, error))
            return false;
        fleetFile = files.filePath(QStringLiteral("fleet.json"));
        QFile file(fleetFile);
        if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size()) {
            *error = QStringLiteral("cannot write %1").arg(fleetFile);
            return false;
        }
        return true;
    }
    void stop()
    {
        router.stop();
        QList<TestMember *> all;
        for (TestMember &member : members)
            all << &member;
        stopMembers(all);
    }
    // One user id per member: ids made through the router (as `client`) until every member
    // holds one, each found where its home appears. Empty when the router never reached one.
    QHash<QString, QString> oneUserPerMember(OpenTerminalClient *client) const
    {
        QHash<QString, QString> byMember; // member -> user id
        for (int i = 0; i < 20 * Members && byMember.size() < Members; ++i) {
            const QString user = randomToken(8, true) + QStringLiteral("-apart");
            const QString account = shellLines(client, {user, QString()}, QStringLiteral("id -un"))
                                        .value(0)
                                        .trimmed();
            const QStringList where = membersHolding(account);
            if (where.size() == 1 && !byMember.contains(where.constFirst()))
                byMember.insert(where.constFirst(), user);
        }
        return byMember.size() == Members ? byMember : QHash<QString, QString>();
    }
    // The members whose own /home holds `account`'s home, as root there sees it.
    QStringList membersHolding(const QString &account) const
    {
        QStringList holding;
        for (const TestMember &member : members) {
            if (member.asRoot(QStringLiteral("test -d /home/%1 && echo yes").arg(account)).trimmed()
                == QLatin1String("yes"))
                holding << member.name;
        }
        return holding;
    }
};

} // namespace sandscope::test
