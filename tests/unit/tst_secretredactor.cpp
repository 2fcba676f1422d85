// SecretRedactor: every occurrence of every secret is masked, in whole texts and in streams
// split at any position; held-back text stays below the longest secret's length.

#include "security/secretredactor.h"

#include <QtTest/QTest>

using sandscope::SecretRedactor;

namespace {

const QString M = QString::fromUtf16(SecretRedactor::mask);

QString u8(const char *text)
{
    return QString::fromUtf8(text);
}

SecretRedactor redactorFor(const QStringList &secrets)
{
    SecretRedactor redactor;
    for (const QString &secret : secrets)
        redactor.addSecret(secret);
    return redactor;
}

qsizetype longestLength(const QStringList &secrets)
{
    qsizetype longest = 0;
    for (const QString &secret : secrets)
        longest = std::max<qsizetype>(longest, secret.size());
    return longest;
}

} // namespace

class TestSecretRedactor : public QObject {
    Q_OBJECT

private:
    void addCases()
    {
        QTest::addColumn<QStringList>("secrets");
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");

        const QString key = u8("sk-test-0123456789abcdef");
        QTest::newRow("no secrets") << QStringList {} << u8("plain text") << u8("plain text");
        QTest::newRow("no occurrence") << QStringList {key} << u8("plain text") << u8("plain text");
        QTest::newRow("one occurrence")
            << QStringList {key} << (u8("Authorization: Bearer ") + key + u8("\r\n"))
            << (u8("Authorization: Bearer ") + M + u8("\r\n"));
        QTest::newRow("every occurrence")
            << QStringList {key} << (key + u8(" and ") + key + u8("!"))
            << (M + u8(" and ") + M + u8("!"));
        QTest::newRow("only the secret") << QStringList {key} << key << M;
        QTest::newRow("two secrets")
            << QStringList {u8("alpha-secret"), u8("beta-secret")}
            << u8("a=alpha-secret b=beta-secret") << (u8("a=") + M + u8(" b=") + M);
        QTest::newRow("overlapping secrets are one mask") << QStringList {u8("abcdef"),
            u8("defghi")} << u8("xabcdefghiy") << (u8("x") + M + u8("y"));
        QTest::newRow("adjacent secrets are one mask")
            << QStringList {u8("abcd"), u8("efgh")} << u8("<abcdefgh>") << (u8("<") + M + u8(">"));
        QTest::newRow("secret inside a longer secret")
            << QStringList {u8("1234abcd"), u8("abcdefgh")} << u8("xx1234abcdzz abcdefgh abcd")
            << (u8("xx") + M + u8("zz ") + M + u8(" abcd"));
        QTest::newRow("secret ending where another could begin")
            << QStringList {u8("1234abcd"), u8("abcdefgh")} << u8("1234abcdefgh") << M;
        QTest::newRow("self-overlapping occurrences")
            << QStringList {u8("abab")} << u8("ababab.abab") << (M + u8(".") + M);
        QTest::newRow("partial secret is not masked")
            << QStringList {key} << u8("sk-test-0123 end") << u8("sk-test-0123 end");
        QTest::newRow("secrets shorter than four characters are ignored")
            << QStringList {u8("abc")} << u8("abc abc") << u8("abc abc");
        QTest::newRow("non-ASCII secret")
            << QStringList {u8("p\303\244ss\342\202\254word")}
            << u8("pw=p\303\244ss\342\202\254word;") << (u8("pw=") + M + u8(";"));
    }

private slots:
    void redactsWholeText_data() { addCases(); }
    void redactsWholeText()
    {
        QFETCH(QStringList, secrets);
        QFETCH(QString, input);
        QFETCH(QString, expected);
        QCOMPARE(redactorFor(secrets).redact(input), expected);
    }

    void everySplitIntoTwoChunksGivesSameText_data() { addCases(); }
    void everySplitIntoTwoChunksGivesSameText()
    {
        QFETCH(QStringList, secrets);
        QFETCH(QString, input);
        QFETCH(QString, expected);
        const qsizetype holdLimit = std::max<qsizetype>(0, longestLength(secrets) - 1);
        for (qsizetype split = 0; split <= input.size(); ++split) {
            SecretRedactor redactor = redactorFor(secrets);
            QString output = redactor.feed(input.left(split));
            QVERIFY(redactor.heldSize() <= holdLimit);
            output += redactor.feed(input.mid(split));
            QVERIFY(redactor.heldSize() <= holdLimit);
            output += redactor.finish();
            QVERIFY2(output == expected, qPrintable(QString::number(split) + u8(": ") + output));
            QCOMPARE(redactor.heldSize(), qsizetype(0));
        }
    }

    void everySplitIntoThreeChunksGivesSameText_data() { addCases(); }
    void everySplitIntoThreeChunksGivesSameText()
    {
        QFETCH(QStringList, secrets);
        QFETCH(QString, input);
        QFETCH(QString, expected);
        for (qsizetype first = 0; first <= input.size(); ++first) {
            for (qsizetype second = first; second <= input.size(); ++second) {
                SecretRedactor redactor = redactorFor(secrets);
                // One statement per call: the order of operands of + is unspecified.
                QString output = redactor.feed(input.left(first));
                output += redactor.feed(input.mid(first, second - first));
                output += redactor.feed(input.mid(second));
                output += redactor.finish();
                QVERIFY2(output == expected,
                    qPrintable(QStringLiteral("%1/%2: ").arg(first).arg(second) + output));
            }
        }
    }

    void oneCharacterChunksNeverShowASecret()
    {
        const QString key = u8("sk-ant-api03-abcdefghij");
        SecretRedactor redactor = redactorFor({key});
        const QString input = u8("key=") + key + u8(", again sk-ant-api03-abc and ") + key;
        const QString expected = u8("key=") + M + u8(", again sk-ant-api03-abc and ") + M;
        QString output;
        for (const QChar c : input) {
            output += redactor.feed(QString(c));
            QVERIFY(redactor.heldSize() < key.size());
            // Nothing is ever shown that the complete text would have masked.
            QVERIFY2(expected.startsWith(output), qPrintable(output));
        }
        output += redactor.finish();
        QCOMPARE(output, expected);
    }

    void holdsBackOnlyAPossibleSecretStart()
    {
        SecretRedactor redactor = redactorFor({u8("secret-value")});
        QCOMPARE(redactor.feed(u8("hello ")), u8("hello "));
        QCOMPARE(redactor.heldSize(), qsizetype(0));
        QCOMPARE(redactor.feed(u8("and secr")), u8("and "));
        QCOMPARE(redactor.heldSize(), qsizetype(4));
        QCOMPARE(redactor.feed(u8("et-value!")), M + u8("!"));
        QCOMPARE(redactor.heldSize(), qsizetype(0));
    }

    void finishReleasesHeldText()
    {
        SecretRedactor redactor = redactorFor({u8("secret-value")});
        QCOMPARE(redactor.feed(u8("tail: secret-val")), u8("tail: "));
        QCOMPARE(redactor.finish(), u8("secret-val"));
        QCOMPARE(redactor.finish(), QString());
        QCOMPARE(redactor.feed(u8("next")), u8("next"));
    }

    void clearForgetsSecrets()
    {
        SecretRedactor redactor = redactorFor({u8("secret-value")});
        QVERIFY(!redactor.isEmpty());
        redactor.clear();
        QVERIFY(redactor.isEmpty());
        QCOMPARE(redactor.redact(u8("secret-value")), u8("secret-value"));
    }

    void duplicateSecretIsHarmless()
    {
        SecretRedactor redactor = redactorFor({u8("secret-value"), u8("secret-value")});
        QCOMPARE(redactor.redact(u8("a secret-value b")), u8("a ") + M + u8(" b"));
    }
};

QTEST_GUILESS_MAIN(TestSecretRedactor)
#include "tst_secretredactor.moc"
