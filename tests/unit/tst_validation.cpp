// validateUserId: which ids may reach X-User-Id, and why the others may not.

#include "server/connection.h"

#include <QtTest/QTest>

using namespace sandscope;

class ValidationTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void userIds_data();
    void userIds();
    void reasonIsOptional();
};

void ValidationTest::userIds_data()
{
    QTest::addColumn<QString>("userId");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("reasonPart");

    QTest::newRow("uuid") << "3f2a9c1e-7b6d-4e5f-8a9b-0c1d2e3f4a5b" << true << QString();
    QTest::newRow("email") << "alice@example.com" << true << QString();
    QTest::newRow("short id hashed by server") << "ab" << true << QString();
    QTest::newRow("128 characters") << QString(128, QLatin1Char('a')) << true << QString();
    QTest::newRow("root prefix but longer stem") << "rootless-user" << true << QString();
    QTest::newRow("administrator keeps 8 chars") << "administrator" << true << QString();

    QTest::newRow("empty") << QString() << false << "empty";
    QTest::newRow("129 characters") << QString(129, QLatin1Char('a')) << false << "128";
    QTest::newRow("space") << "alice smith" << false << "printable ASCII";
    QTest::newRow("tab") << "alice\tsmith" << false << "printable ASCII";
    QTest::newRow("newline header injection") << "alice\r\nX-Evil: 1" << false << "printable ASCII";
    QTest::newRow("nul") << QString(QStringLiteral("ali") + QChar(0) + QStringLiteral("ce"))
                         << false << "printable ASCII";
    QTest::newRow("del") << QString(QStringLiteral("alice") + QChar(0x7f)) << false
                         << "printable ASCII";
    QTest::newRow("non-ascii") << QStringLiteral("jörg") << false << "printable ASCII";

    QTest::newRow("root") << "root" << false << "\"root\"";
    QTest::newRow("Root upper case") << "ROOT" << false << "\"root\"";
    QTest::newRow("root with punctuation") << "r.o-o_t!" << false << "\"root\"";
    QTest::newRow("user") << "user" << false << "\"user\"";
    QTest::newRow("user email") << "user@" << false << "\"user\"";
    QTest::newRow("nobody") << "nobody" << false << "\"nobody\"";
    QTest::newRow("daemon") << "Daemon" << false << "\"daemon\"";
    QTest::newRow("www-data-like backup") << "back-up" << false << "\"backup\"";
    QTest::newRow("sudo") << "sudo" << false << "\"sudo\"";
    QTest::newRow("ubuntu") << "ubuntu" << false << "\"ubuntu\"";
    QTest::newRow("debian") << "debian" << false << "\"debian\"";
    QTest::newRow("admin") << "admin" << false << "\"admin\"";
    QTest::newRow("bin") << "bin" << false << "\"bin\"";
    QTest::newRow("mail") << "mail" << false << "\"mail\"";
}

void ValidationTest::userIds()
{
    QFETCH(QString, userId);
    QFETCH(bool, valid);
    QFETCH(QString, reasonPart);

    QString why = QStringLiteral("stale");
    QCOMPARE(validateUserId(userId, &why), valid);
    if (valid) {
        QVERIFY(why.isEmpty());
    } else {
        QVERIFY2(why.contains(reasonPart), qPrintable(why));
    }
}

void ValidationTest::reasonIsOptional()
{
    QVERIFY(!validateUserId(QStringLiteral("root")));
    QVERIFY(validateUserId(QStringLiteral("alice")));
}

QTEST_GUILESS_MAIN(ValidationTest)
#include "tst_validation.moc"
