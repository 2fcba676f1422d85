// The user switcher: live validation with the reason shown, both predicted account names as
// a hint, and the server account only through its explicit checkbox.

#include "server/accountnames.h"
#include "server/connection.h"
#include "switchuserdialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QtTest>

using namespace sandscope;

class TestSwitchUserDialog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void validatesWhileTyping_data();
    void validatesWhileTyping();
    void showsBothPredictedAccounts();
    void serverAccountNeedsExplicitChoice();
    void aKnownNamingGivesOnePrediction();
};

static QPushButton *okButton(const SwitchUserDialog &dialog)
{
    return dialog.buttonBox()->button(QDialogButtonBox::Ok);
}

void TestSwitchUserDialog::validatesWhileTyping_data()
{
    QTest::addColumn<QString>("userId");
    QTest::newRow("plain") << QStringLiteral("alice");
    QTest::newRow("email") << QStringLiteral("alice@example.com");
    QTest::newRow("empty") << QString();
    QTest::newRow("whitespace") << QStringLiteral("al ice");
    QTest::newRow("privileged") << QStringLiteral("root");
    QTest::newRow("control") << QStringLiteral("a\tb");
    QTest::newRow("too long") << QString(129, QLatin1Char('a'));
}

void TestSwitchUserDialog::validatesWhileTyping()
{
    QFETCH(QString, userId);
    QString why;
    const bool valid = validateUserId(userId, &why);

    SwitchUserDialog dialog;
    dialog.userIdEdit()->setText(QStringLiteral("placeholder-user"));
    dialog.userIdEdit()->setText(userId);
    QCOMPARE(okButton(dialog)->isEnabled(), valid);
    QCOMPARE(dialog.isAcceptable(), valid);
    if (!valid && !userId.isEmpty())
        QCOMPARE(dialog.validationLabel()->text(), why);
    if (valid)
        QCOMPARE(dialog.userId(), userId);
}

void TestSwitchUserDialog::showsBothPredictedAccounts()
{
    SwitchUserDialog dialog;
    dialog.setAccountPrefix(QStringLiteral("sst_"));
    const QString id = QStringLiteral("alice@example.com");
    dialog.userIdEdit()->setText(id);
    const QString hint = dialog.predictionLabel()->text();
    const QString legacy
        = predictAccountName(id, AccountRule::FirstEightAlnum, QStringLiteral("sst_"));
    const QString hashed
        = predictAccountName(id, AccountRule::SlugWithHash, QStringLiteral("sst_"));
    QVERIFY(!legacy.isEmpty());
    QVERIFY(!hashed.isEmpty());
    QVERIFY2(hint.contains(legacy), qPrintable(hint));
    QVERIFY2(hint.contains(hashed), qPrintable(hint));
}

void TestSwitchUserDialog::serverAccountNeedsExplicitChoice()
{
    SwitchUserDialog dialog;
    dialog.userIdEdit()->clear();
    QVERIFY2(!okButton(dialog)->isEnabled(), "an empty id alone must not mean the server account");

    dialog.serverAccountCheck()->setChecked(true);
    QVERIFY(okButton(dialog)->isEnabled());
    QVERIFY(dialog.isServerAccountChosen());
    QVERIFY(dialog.userId().isEmpty());
    QVERIFY(!dialog.userIdEdit()->isEnabled());

    // Even a typed id is not sent while the checkbox is on.
    dialog.userIdEdit()->setText(QStringLiteral("alice"));
    QVERIFY(dialog.userId().isEmpty());
    dialog.serverAccountCheck()->setChecked(false);
    QCOMPARE(dialog.userId(), QStringLiteral("alice"));

    // Pre-selecting the current identity: the server account ticks the box.
    SwitchUserDialog current;
    current.setUserId(QString());
    QVERIFY(current.serverAccountCheck()->isChecked());
    current.setUserId(QStringLiteral("bob"));
    QVERIFY(!current.serverAccountCheck()->isChecked());
    QCOMPARE(current.userId(), QStringLiteral("bob"));
}

// 0.14.5 names bob "<prefix>81b637d8" (first eight alphanumerics, hashed when short): once the
// server was seen to do so, only that prediction is offered.
void TestSwitchUserDialog::aKnownNamingGivesOnePrediction()
{
    SwitchUserDialog dialog;
    dialog.setAccountPrefix(QStringLiteral("gq"));
    dialog.setAccountRule(AccountRule::FirstEightAlnum);
    dialog.userIdEdit()->setText(QStringLiteral("bob"));
    const QString hint = dialog.predictionLabel()->text();
    QVERIFY2(hint.contains(predictAccountName(
                 QStringLiteral("bob"), AccountRule::FirstEightAlnum, QStringLiteral("gq"))),
        qPrintable(hint));
    QVERIFY2(!hint.contains(predictAccountName(
                 QStringLiteral("bob"), AccountRule::SlugWithHash, QStringLiteral("gq"))),
        qPrintable(hint));
}

QTEST_MAIN(TestSwitchUserDialog)
#include "tst_switchuserdialog.moc"
