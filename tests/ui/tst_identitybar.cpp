// The "acting as" banner: its text names the user and the observed account, every user id
// gets a stable colour of its own, and the server account looks unmistakably different.

#include "identitybar.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using namespace sandscope;

class TestIdentityBar : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void namesUserAndObservedAccount();
    void coloursAreStablePerUserAndDifferBetweenUsers();
    void serverAccountHasWarningLook();
    void noUserColourResemblesTheServerAccount();
    void disconnectedBarNamesNoIdentity();
    void switchButtonRequestsSwitch();
    void aRefusedServerAccountIsNotCalledPrivileged();
    void anAccountThatCouldNotBeCheckedIsUnknownNotChecking();
};

void TestIdentityBar::namesUserAndObservedAccount()
{
    IdentityBar bar;
    bar.setConnected(true);
    bar.setIdentity(QStringLiteral("alice"));
    QVERIFY2(bar.text().startsWith(QLatin1String("Acting as alice (")), qPrintable(bar.text()));
    QVERIFY2(bar.text().contains(QLatin1String("checking")),
        "before the probe reports, the account is shown as being checked");

    bar.setAccount(QStringLiteral("sst_alice_1a2b3c4d"));
    QCOMPARE(bar.text(), QStringLiteral("Acting as alice (sst_alice_1a2b3c4d)"));
    QVERIFY(!bar.showsWarning());

    bar.setIdentity(QStringLiteral("bob"), QStringLiteral("bob"));
    QCOMPARE(bar.text(), QStringLiteral("Acting as bob (bob)"));
}

void TestIdentityBar::coloursAreStablePerUserAndDifferBetweenUsers()
{
    IdentityBar bar;
    bar.setConnected(true);
    bar.setIdentity(QStringLiteral("alice"), QStringLiteral("alice"));
    const QColor alice = bar.backgroundColour();
    bar.setIdentity(QStringLiteral("bob"), QStringLiteral("bob"));
    const QColor bob = bar.backgroundColour();

    QVERIFY(alice != bob);
    QCOMPARE(alice, IdentityBar::colourForUser(QStringLiteral("alice")));
    QCOMPARE(bob, IdentityBar::colourForUser(QStringLiteral("bob")));

    // Same id, same colour: in another bar and after switching away and back.
    IdentityBar other;
    other.setConnected(true);
    other.setIdentity(QStringLiteral("alice"));
    QCOMPARE(other.backgroundColour(), alice);
    bar.setIdentity(QStringLiteral("alice"), QStringLiteral("alice"));
    QCOMPARE(bar.backgroundColour(), alice);
}

// On a multi-user server that refuses requests without a user id, "no user" reaches nothing.
void TestIdentityBar::aRefusedServerAccountIsNotCalledPrivileged()
{
    IdentityBar bar;
    bar.setConnected(true);
    bar.setIdentity(QString());
    bar.setServerAccountRefused(true);
    QVERIFY2(!bar.text().contains(QLatin1String("privileged"))
            && !bar.text().contains(QLatin1String("checking")),
        qPrintable(bar.text()));
    QVERIFY2(bar.text().contains(QLatin1String("choose a user")), qPrintable(bar.text()));
    QVERIFY(bar.backgroundColour() != IdentityBar::serverAccountColour());
}

void TestIdentityBar::anAccountThatCouldNotBeCheckedIsUnknownNotChecking()
{
    IdentityBar bar;
    bar.setConnected(true);
    bar.setIdentity(QStringLiteral("alice"));
    bar.setAccountUnknown(true);
    QVERIFY2(bar.text().contains(QLatin1String("account unknown")), qPrintable(bar.text()));
    QVERIFY(!bar.text().contains(QLatin1String("checking")));
}

void TestIdentityBar::serverAccountHasWarningLook()
{
    IdentityBar bar;
    bar.setConnected(true);
    bar.setIdentity(QString(), QStringLiteral("root"));
    QVERIFY(bar.isServerAccount());
    QVERIFY(bar.showsWarning());
    QCOMPARE(bar.backgroundColour(), IdentityBar::serverAccountColour());
    QVERIFY2(bar.text().contains(QLatin1String("SERVER ACCOUNT (root)")), qPrintable(bar.text()));
    QVERIFY(bar.text().contains(QLatin1String("privileged")));

    bar.setIdentity(QStringLiteral("alice"), QStringLiteral("alice"));
    QVERIFY(!bar.showsWarning());
    QVERIFY(bar.backgroundColour() != IdentityBar::serverAccountColour());
}

void TestIdentityBar::noUserColourResemblesTheServerAccount()
{
    const int warningHue = IdentityBar::serverAccountColour().hslHue();
    for (int i = 0; i < 2000; ++i) {
        const QString id = QStringLiteral("user-%1").arg(i);
        const QColor colour = IdentityBar::colourForUser(id);
        // Hue distance on the colour circle.
        const int distance = qAbs(colour.hslHue() - warningHue);
        const int circular = qMin(distance, 360 - distance);
        QVERIFY2(circular >= 30,
            qPrintable(QStringLiteral("%1 got hue %2").arg(id).arg(colour.hslHue())));
    }
}

void TestIdentityBar::disconnectedBarNamesNoIdentity()
{
    IdentityBar bar;
    bar.setIdentity(QString(), QStringLiteral("root"));
    QCOMPARE(bar.text(), QStringLiteral("Not connected"));
    QVERIFY(!bar.showsWarning());
    auto *button = bar.findChild<QPushButton *>(QStringLiteral("switchUserButton"));
    QVERIFY(button);
    QVERIFY(!button->isEnabled());
    bar.setConnected(true);
    QVERIFY(button->isEnabled());
    QVERIFY(bar.showsWarning());
}

void TestIdentityBar::switchButtonRequestsSwitch()
{
    IdentityBar bar;
    bar.setConnected(true);
    bar.setIdentity(QStringLiteral("alice"));
    bar.show();
    QSignalSpy spy(&bar, &IdentityBar::switchUserRequested);
    auto *button = bar.findChild<QPushButton *>(QStringLiteral("switchUserButton"));
    QVERIFY(button);
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(spy.count(), 1);
}

QTEST_MAIN(TestIdentityBar)
#include "tst_identitybar.moc"
