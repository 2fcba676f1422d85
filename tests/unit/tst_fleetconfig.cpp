// The fleet file (FleetConfig): a router and named members with their URLs and admin commands;
// every way a file can be wrong is refused with a message that names what and where, and a
// key in the file is refused with the ways the key does come.

#include "fleet/fleetconfig.h"

#include <QtTest>

using namespace sandscope;

namespace {
const char twoMembers[] = "{\"router\": \"http://router:8000\", \"members\": [ {\"name\": "
                          "\"open-terminal-0\", \"url\": \"http://ot-0.open-terminal:8000\", "
                          "\"admin_exec\": \"kubectl exec -i open-terminal-0 -- \"}, {\"name\": "
                          "\"open-terminal-1\", \"url\": \"https://ot-1:8443/sub\"}]}";
} // namespace

class TestFleetConfig : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void aFleetFileGivesTheRouterAndEachMember()
    {
        FleetConfig fleet;
        QString error;
        QVERIFY2(FleetConfig::fromJson(twoMembers, &fleet, &error), qPrintable(error));
        QCOMPARE(fleet.router, QUrl(QStringLiteral("http://router:8000")));
        QCOMPARE(fleet.memberNames(),
            QStringList({QStringLiteral("open-terminal-0"), QStringLiteral("open-terminal-1")}));
        const FleetMember *first = fleet.member(QStringLiteral("open-terminal-0"));
        QVERIFY(first);
        QCOMPARE(first->url, QUrl(QStringLiteral("http://ot-0.open-terminal:8000")));
        QVERIFY(first->admin.isLocalCommand());
        QCOMPARE(first->admin.prefix,
            QStringList({QStringLiteral("kubectl"), QStringLiteral("exec"), QStringLiteral("-i"),
                QStringLiteral("open-terminal-0"), QStringLiteral("--")}));
        const FleetMember *second = fleet.member(QStringLiteral("open-terminal-1"));
        QVERIFY(second);
        QVERIFY(!second->admin.isLocalCommand()); // none given: the member's own account
        QVERIFY(!fleet.member(QStringLiteral("open-terminal-2")));
    }

    void aWrongFileIsRefusedSayingWhatAndWhere_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("said");
        const QByteArray member = "{\"name\": \"m0\", \"url\": \"http://m0:8000\"}";
        QTest::newRow("not JSON") << QByteArray("{\"router\": ") << "not JSON";
        QTest::newRow("a list") << QByteArray("[]") << "not a JSON object";
        QTest::newRow("no router") << QByteArray("{\"members\": [" + member + "]}") << "\"router\"";
        QTest::newRow("router not http")
            << QByteArray("{\"router\": \"ftp://r\", \"members\": [" + member + "]}")
            << "\"router\"";
        QTest::newRow("router with credentials")
            << QByteArray("{\"router\": \"http://u:p@r\", \"members\": [" + member + "]}")
            << "without credentials";
        QTest::newRow("no members") << QByteArray("{\"router\": \"http://r\"}") << "\"members\"";
        QTest::newRow("empty members")
            << QByteArray("{\"router\": \"http://r\", \"members\": []}") << "at least one";
        QTest::newRow("member not an object")
            << QByteArray("{\"router\": \"http://r\", \"members\": [\"m0\"]}") << "member 1 is not";
        QTest::newRow("empty name") << QByteArray(
            "{\"router\": \"http://r\", \"members\": [{\"name\": \"\", \"url\": \"http://m\"}]}")
                                    << "member 1: \"name\"";
        QTest::newRow("name with a slash") << QByteArray(
            "{\"router\": \"http://r\", \"members\": [{\"name\": \"a/b\", \"url\": \"http://m\"}]}")
                                           << "member 1: \"name\"";
        QTest::newRow("same name twice") << QByteArray(
            "{\"router\": \"http://r\", \"members\": [" + member + ", " + member + "]}")
                                         << "member 2: the name \"m0\" is used twice";
        QTest::newRow("member without url")
            << QByteArray("{\"router\": \"http://r\", \"members\": [{\"name\": \"m0\"}]}")
            << "member 1 (m0): \"url\"";
        QTest::newRow("admin_exec with an open quote") << QByteArray(
            "{\"router\": \"http://r\", \"members\": [{\"name\": \"m0\", \"url\": \"http://m\", "
            "\"admin_exec\": \"kubectl exec 'x\"}]}") << "member 1 (m0): \"admin_exec\"";
        QTest::newRow("admin_exec not a string") << QByteArray(
            "{\"router\": \"http://r\", \"members\": [{\"name\": \"m0\", \"url\": \"http://m\", "
            "\"admin_exec\": [\"kubectl\"]}]}") << "must be a string";
        QTest::newRow("unknown key")
            << QByteArray("{\"router\": \"http://r\", \"member\": []}") << "unknown key \"member\"";
        QTest::newRow("unknown member key") << QByteArray(
            "{\"router\": \"http://r\", \"members\": [{\"name\": \"m0\", \"url\": \"http://m\", "
            "\"admin\": \"sudo -n\"}]}") << "member 1: unknown key \"admin\"";
        QTest::newRow("a key in the file") << QByteArray(
            "{\"router\": \"http://r\", \"api_key\": \"sk-1\", \"members\": [" + member + "]}")
                                           << "SANDSCOPE_API_KEY";
        QTest::newRow("a key in a member") << QByteArray(
            "{\"router\": \"http://r\", \"members\": [{\"name\": \"m0\", \"url\": \"http://m\", "
            "\"token\": \"sk-1\"}]}") << "--api-key-file";
    }
    void aWrongFileIsRefusedSayingWhatAndWhere()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, said);
        FleetConfig fleet;
        QString error;
        QVERIFY(!FleetConfig::fromJson(json, &fleet, &error));
        QVERIFY2(error.contains(said), qPrintable(error));
        QVERIFY(!error.contains(QLatin1String("sk-1"))); // a key given is never repeated
    }

    void aMissingFileNamesItsPath()
    {
        FleetConfig fleet;
        QString error;
        QVERIFY(!FleetConfig::load(QStringLiteral("/nonexistent/fleet.json"), &fleet, &error));
        QVERIFY2(error.contains(QLatin1String("/nonexistent/fleet.json")), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestFleetConfig)
#include "tst_fleetconfig.moc"
