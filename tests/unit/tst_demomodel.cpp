// The demo model (app/claude/demomodel.h) is offered only when run-local.sh named it and no
// real Anthropic key is configured, and is called a demo wherever its name is shown.

#include "claude/demomodel.h"

#include <QtTest>

using namespace sandscope;

using Environment = QHash<QString, QString>;

class TestDemoModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void offeredOnlyWithoutARealKey_data()
    {
        QTest::addColumn<QString>("demoUrl");
        QTest::addColumn<QString>("processKey");
        QTest::addColumn<Environment>("stored");
        QTest::addColumn<bool>("offered");
        const QString url = QStringLiteral("http://127.0.0.1:4567");
        const Environment none;
        QTest::newRow("named, no key") << url << QString() << none << true;
        QTest::newRow("not named") << QString() << QString() << none << false;
        QTest::newRow("key in the app's environment")
            << url << QStringLiteral("sk-x") << none << false;
        QTest::newRow("key stored for runs")
            << url << QString()
            << Environment {{QStringLiteral("ANTHROPIC_API_KEY"), QStringLiteral("sk-y")}} << false;
        QTest::newRow("auth token stored for runs")
            << url << QString()
            << Environment {{QStringLiteral("ANTHROPIC_AUTH_TOKEN"), QStringLiteral("t")}} << false;
        QTest::newRow("other variables stored")
            << url << QString()
            << Environment {{QStringLiteral("HTTPS_PROXY"), QStringLiteral("http://p")}} << true;
        QTest::newRow("blank key stored")
            << url << QString()
            << Environment {{QStringLiteral("ANTHROPIC_API_KEY"), QStringLiteral(" ")}} << true;
        QTest::newRow("not an http URL")
            << QStringLiteral("file:///tmp/x") << QString() << none << false;
        QTest::newRow("no host") << QStringLiteral("http://") << QString() << none << false;
    }

    void offeredOnlyWithoutARealKey()
    {
        QFETCH(QString, demoUrl);
        QFETCH(QString, processKey);
        QFETCH(Environment, stored);
        QFETCH(bool, offered);
        QProcessEnvironment environment;
        if (!demoUrl.isEmpty())
            environment.insert(QLatin1String(DemoModel::environmentVariable()), demoUrl);
        if (!processKey.isEmpty())
            environment.insert(QStringLiteral("ANTHROPIC_API_KEY"), processKey);
        const QUrl url = DemoModel::offered(stored, environment);
        QCOMPARE(url.isValid(), offered);
        if (offered)
            QCOMPARE(url, QUrl(demoUrl));
        // A real key and the demo are never both in play.
        QVERIFY(!(url.isValid() && DemoModel::realKeyConfigured(stored, environment)));
    }

    void itsAgentEnvironmentPointsAtTheDemoServerOnly()
    {
        const QUrl url(QStringLiteral("http://127.0.0.1:4567"));
        const Environment environment = DemoModel::agentEnvironment(url);
        QCOMPARE(QUrl(environment.value(QStringLiteral("ANTHROPIC_BASE_URL"))), url);
        // A placeholder the scripted server ignores, never a real key from anywhere.
        QVERIFY(!environment.value(QStringLiteral("ANTHROPIC_API_KEY")).isEmpty());
        QVERIFY(!DemoModel::realKeyConfigured({}, QProcessEnvironment()));
    }

    void itsNameIsLabelledAsADemoAndOthersAreNot_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("demo");
        QTest::newRow("demo") << DemoModel::modelName() << true;
        QTest::newRow("claude") << QStringLiteral("claude-sonnet-4-5") << false;
        QTest::newRow("empty") << QString() << false;
        QTest::newRow("look-alike") << DemoModel::modelName() + QLatin1Char('x') << false;
    }

    void itsNameIsLabelledAsADemoAndOthersAreNot()
    {
        QFETCH(QString, model);
        QFETCH(bool, demo);
        const QString shown = DemoModel::describeModel(model);
        QVERIFY(shown.startsWith(model));
        QCOMPARE(shown.contains(QLatin1String("demo model")), demo);
        QCOMPARE(shown.contains(QLatin1String("not Claude")), demo);
        QCOMPARE(DemoModel::isDemoModel(model), demo);
    }

    void theOfferSaysItIsNotClaudeAndWhereItIs()
    {
        const QUrl url(QStringLiteral("http://127.0.0.1:4567"));
        const QString text = DemoModel::offerText(url);
        QVERIFY(text.contains(QLatin1String("Demo model")));
        QVERIFY(text.contains(QLatin1String("not Claude")));
        QVERIFY(text.contains(url.toString()));
    }
};

QTEST_GUILESS_MAIN(TestDemoModel)
#include "tst_demomodel.moc"
