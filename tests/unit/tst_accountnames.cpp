// Account-name prediction for X-User-Id (docs/open-terminal.md, "Multi-user rules"). The expected
// names are the doc's two tables (observed on the servers) plus names worked out by hand from the
// doc's rules, with the SHA-256 prefixes computed independently (Python hashlib).

#include "server/accountnames.h"

#include <QtTest/QTest>

using sandscope::AccountRule;
using sandscope::explainAccountName;
using sandscope::predictAccountName;

Q_DECLARE_METATYPE(sandscope::AccountRule)

namespace {

const QString uuid = QStringLiteral("3f2a9c1e-7b6d-4e5f-8a9b-0c1d2e3f4a5b");

} // namespace

class TestAccountNames : public QObject {
    Q_OBJECT

private:
    void addTables()
    {
        QTest::addColumn<QString>("userId");
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<AccountRule>("rule");
        QTest::addColumn<QString>("account");

        const auto first = AccountRule::FirstEightAlnum;
        const auto slug = AccountRule::SlugWithHash;
        const QString none;
        const QString owui = QStringLiteral("owui_");

        // Table of the 0.11.34 rule (observed).
        QTest::newRow("first8 uuid") << uuid << none << first << QStringLiteral("u3f2a9c1e");
        QTest::newRow("first8 email")
            << QStringLiteral("alice@example.com") << none << first << QStringLiteral("aliceexa");
        QTest::newRow("first8 short id hashed")
            << QStringLiteral("ab") << none << first << QStringLiteral("fb8e20fc");
        QTest::newRow("first8 digits") << QStringLiteral("12345678901234567890") << none << first
                                       << QStringLiteral("u12345678");
        QTest::newRow("first8 root")
            << QStringLiteral("root") << none << first << QStringLiteral("root");
        // Table of the newer rule.
        QTest::newRow("slug uuid")
            << uuid << none << slug << QStringLiteral("u3f2a9c1e7b6d4e5f8a9b0c_f99e0059");
        QTest::newRow("slug email") << QStringLiteral("alice@example.com") << none << slug
                                    << QStringLiteral("aliceexamplecom_ff8d9819");
        QTest::newRow("slug root")
            << QStringLiteral("root") << none << slug << QStringLiteral("root_4813494d");
        QTest::newRow("slug short id")
            << QStringLiteral("ab") << none << slug << QStringLiteral("hfb8e20fc");
        QTest::newRow("slug uuid with prefix")
            << uuid << owui << slug << QStringLiteral("owui_3f2a9c1e7b6d4e5f8a_f99e0059");
        // The rules applied to the remaining combinations.
        QTest::newRow("first8 uuid with prefix")
            << uuid << owui << first << QStringLiteral("owui_3f2a9c1e");
        QTest::newRow("first8 email with prefix") << QStringLiteral("alice@example.com") << owui
                                                  << first << QStringLiteral("owui_aliceexa");
        QTest::newRow("first8 short id with prefix")
            << QStringLiteral("ab") << owui << first << QStringLiteral("owui_fb8e20fc");
        QTest::newRow("first8 digits with prefix") << QStringLiteral("12345678901234567890") << owui
                                                   << first << QStringLiteral("owui_12345678");
        QTest::newRow("first8 digit prefix gets u")
            << QStringLiteral("alice") << QStringLiteral("9x") << first
            << QStringLiteral("u9xalice");
        QTest::newRow("first8 upper case and symbols")
            << QStringLiteral("Bob.Smith-42") << none << first << QStringLiteral("bobsmith");
        QTest::newRow("first8 three usable characters hashed")
            << QStringLiteral("!!!") << none << first << QStringLiteral("e84c538e");
        QTest::newRow("slug digits") << QStringLiteral("12345678901234567890") << none << slug
                                     << QStringLiteral("u12345678901234567890_6ed645ef");
        QTest::newRow("slug root with prefix")
            << QStringLiteral("root") << owui << slug << QStringLiteral("owui_root_4813494d");
        QTest::newRow("slug short id with prefix")
            << QStringLiteral("ab") << owui << slug << QStringLiteral("owui_hfb8e20fc");
        QTest::newRow("slug digits with prefix")
            << QStringLiteral("12345678901234567890") << owui << slug
            << QStringLiteral("owui_123456789012345678_6ed645ef");
        QTest::newRow("slug single character")
            << QStringLiteral("a") << none << slug << QStringLiteral("hca978112");
    }

private slots:
    void predictsDocumentedNames_data() { addTables(); }
    void predictsDocumentedNames()
    {
        QFETCH(QString, userId);
        QFETCH(QString, prefix);
        QFETCH(AccountRule, rule);
        QFETCH(QString, account);
        QCOMPARE(predictAccountName(userId, rule, prefix), account);
    }

    void slugNamesNeverExceedThirtyTwoCharacters_data()
    {
        QTest::addColumn<QString>("prefix");
        QTest::newRow("none") << QString();
        QTest::newRow("owui_") << QStringLiteral("owui_");
        QTest::newRow("long") << QStringLiteral("tenant_long_prefix_");
    }
    void slugNamesNeverExceedThirtyTwoCharacters()
    {
        QFETCH(QString, prefix);
        const QString id = QString(80, QLatin1Char('z'));
        const QString name = predictAccountName(id, AccountRule::SlugWithHash, prefix);
        QCOMPARE(qsizetype(name.size()), qsizetype(32));
        QVERIFY(
            name.startsWith(prefix.isEmpty() ? QStringLiteral("zzz") : prefix + QLatin1Char('z')));
    }

    void explainsWithKnownPrefix_data() { addTables(); }
    void explainsWithKnownPrefix()
    {
        QFETCH(QString, userId);
        QFETCH(QString, prefix);
        QFETCH(AccountRule, rule);
        QFETCH(QString, account);
        AccountRule explained = rule == AccountRule::FirstEightAlnum ? AccountRule::SlugWithHash
                                                                     : AccountRule::FirstEightAlnum;
        QString detected = QStringLiteral("unset");
        QVERIFY(explainAccountName(userId, account, prefix, &explained, &detected));
        QCOMPARE(explained, rule);
        QCOMPARE(detected, prefix);
    }

    void explainsWithUnknownPrefix_data()
    {
        QTest::addColumn<QString>("userId");
        QTest::addColumn<QString>("observed");
        QTest::addColumn<AccountRule>("rule");
        QTest::addColumn<QString>("prefix");
        QTest::newRow("first8 uuid") << uuid << QStringLiteral("owui_3f2a9c1e")
                                     << AccountRule::FirstEightAlnum << QStringLiteral("owui_");
        QTest::newRow("first8 email")
            << QStringLiteral("alice@example.com") << QStringLiteral("t1-aliceexa")
            << AccountRule::FirstEightAlnum << QStringLiteral("t1-");
        QTest::newRow("slug uuid") << uuid << QStringLiteral("owui_3f2a9c1e7b6d4e5f8a_f99e0059")
                                   << AccountRule::SlugWithHash << QStringLiteral("owui_");
        QTest::newRow("slug root") << QStringLiteral("root") << QStringLiteral("x_root_4813494d")
                                   << AccountRule::SlugWithHash << QStringLiteral("x_");
    }
    void explainsWithUnknownPrefix()
    {
        QFETCH(QString, userId);
        QFETCH(QString, observed);
        QFETCH(AccountRule, rule);
        QFETCH(QString, prefix);
        AccountRule explained = rule == AccountRule::FirstEightAlnum ? AccountRule::SlugWithHash
                                                                     : AccountRule::FirstEightAlnum;
        QString detected;
        QVERIFY(explainAccountName(userId, observed, QString(), &explained, &detected));
        QCOMPARE(explained, rule);
        QCOMPARE(detected, prefix);
        // The four-argument form gives the same answer.
        AccountRule fourArgument = AccountRule::FirstEightAlnum;
        QVERIFY(explainAccountName(userId, observed, QString(), &fourArgument));
        QCOMPARE(fourArgument, rule);
    }

    void wrongConfiguredPrefixIsCorrected()
    {
        AccountRule rule = AccountRule::SlugWithHash;
        QString detected;
        QVERIFY(explainAccountName(
            uuid, QStringLiteral("owui_3f2a9c1e"), QStringLiteral("tenant_"), &rule, &detected));
        QCOMPARE(rule, AccountRule::FirstEightAlnum);
        QCOMPARE(detected, QStringLiteral("owui_"));
    }

    void hashOnlyNamePrefersTheRuleWithoutPrefix()
    {
        // "hfb8e20fc" is also FirstEightAlnum("ab") behind a prefix "h"; no prefix wins.
        AccountRule rule = AccountRule::FirstEightAlnum;
        QString detected = QStringLiteral("unset");
        QVERIFY(explainAccountName(
            QStringLiteral("ab"), QStringLiteral("hfb8e20fc"), QString(), &rule, &detected));
        QCOMPARE(rule, AccountRule::SlugWithHash);
        QCOMPARE(detected, QString());
    }

    void unrelatedNamesAreNotExplained_data()
    {
        QTest::addColumn<QString>("userId");
        QTest::addColumn<QString>("observed");
        QTest::newRow("other user") << uuid << QStringLiteral("aliceexa");
        QTest::newRow("server account")
            << QStringLiteral("alice@example.com") << QStringLiteral("user");
        QTest::newRow("truncated slug") << uuid << QStringLiteral("u3f2a9c1e7b6d4e5f8a9b0c");
        QTest::newRow("wrong hash") << QStringLiteral("root") << QStringLiteral("root_00000000");
        QTest::newRow("suffix after name")
            << QStringLiteral("alice@example.com") << QStringLiteral("aliceexa2");
        QTest::newRow("empty") << uuid << QString();
    }
    void unrelatedNamesAreNotExplained()
    {
        QFETCH(QString, userId);
        QFETCH(QString, observed);
        AccountRule rule = AccountRule::SlugWithHash;
        QVERIFY(!explainAccountName(userId, observed, QString(), &rule));
        QVERIFY(!explainAccountName(userId, observed, QStringLiteral("owui_"), nullptr));
    }

    // Round trip: the id recovered from a predicted name gives that name again, under either
    // rule, with the prefix known or not; a system account or a name too short for an id gives
    // nothing.
    void theUserIdOfAnAccountIsRecoveredUnderBothRules_data()
    {
        QTest::addColumn<QString>("userId");
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<int>("rule");
        for (const int rule : {int(AccountRule::FirstEightAlnum), int(AccountRule::SlugWithHash)}) {
            const QString name = rule == 0 ? QStringLiteral("legacy ") : QStringLiteral("slug ");
            QTest::newRow(qPrintable(name + QStringLiteral("plain")))
                << QStringLiteral("wall0abcde") << QString() << rule;
            QTest::newRow(qPrintable(name + QStringLiteral("prefixed")))
                << QStringLiteral("davezz") << QStringLiteral("sstab_") << rule;
        }
    }
    void theUserIdOfAnAccountIsRecoveredUnderBothRules()
    {
        QFETCH(QString, userId);
        QFETCH(QString, prefix);
        QFETCH(int, rule);
        const QString account = predictAccountName(userId, AccountRule(rule), prefix);
        for (const QString &known : {prefix, QString()}) {
            const QString found = sandscope::userIdForAccount(account, known);
            QVERIFY2(!found.isEmpty(), qPrintable(account));
            QCOMPARE(
                predictAccountName(found, AccountRule(rule), account.left(account.indexOf(found))),
                account);
        }
        QCOMPARE(sandscope::userIdForAccount(QStringLiteral("root")), QString());
        QCOMPARE(sandscope::userIdForAccount(QStringLiteral("a-b")), QString());
    }
};

QTEST_GUILESS_MAIN(TestAccountNames)
#include "tst_accountnames.moc"
