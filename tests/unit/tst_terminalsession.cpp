// TerminalSession without a server: the key masked in terminal output however it is split,
// the script that sets a multi-user shell's window size, and the refusal without a client.
#include "terminal/terminalsession.h"

#include <QSignalSpy>
#include <QtTest>

using namespace sandscope;

class TestTerminalSession : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void masksTheKeyHoweverTheOutputIsSplit()
    {
        const QByteArray key = "sk-secret-12345";
        const QByteArray text = "env\r\nOPEN_TERMINAL_API_KEY=sk-secret-12345\r\nsk-sec and "
                                "sk-secret-12345sk-secret-12345!";
        const QByteArray expected = QByteArray(text).replace(key, TerminalSession::maskText());
        for (int chunk = 1; chunk <= text.size(); ++chunk) {
            QByteArray pending;
            QByteArray shown;
            for (int at = 0; at < text.size(); at += chunk)
                shown += TerminalSession::maskSecret(&pending, text.mid(at, chunk), key, false);
            shown += TerminalSession::maskSecret(&pending, {}, key, true);
            QCOMPARE(shown, expected);
        }
    }

    void holdsBackOnlyWhatMayStartTheKey()
    {
        QByteArray pending;
        QCOMPARE(TerminalSession::maskSecret(&pending, "prompt$ sk-se", "sk-secret", false),
            QByteArray("prompt$ "));
        QCOMPARE(pending, QByteArray("sk-se"));
        QCOMPARE(
            TerminalSession::maskSecret(&pending, "x", "sk-secret", false), QByteArray("sk-sex"));
        QVERIFY(pending.isEmpty());
        // Keys shorter than 4 bytes are not masked (as SecretRedactor does).
        QCOMPARE(TerminalSession::maskSecret(&pending, "abc", "ab", false), QByteArray("abc"));
    }

    void innerResizeScriptNamesPidAndSize()
    {
        const QString script = TerminalSession::innerResizeScript(4242, 132, 43);
        QVERIFY(script.contains(QLatin1String("root=4242")));
        QVERIFY(script.contains(QLatin1String("rows 43 cols 132")));
        QVERIFY(script.contains(QLatin1String("stty -F")));
    }

    void withoutClientItFails()
    {
        qRegisterMetaType<ApiError>();
        TerminalSession session(nullptr, Identity {QStringLiteral("alice"), {}});
        QSignalSpy failed(&session, &TerminalSession::failed);
        session.write("ignored");
        session.start();
        QCOMPARE(failed.count(), 1);
        QCOMPARE(session.state(), TerminalSession::State::Failed);
        QVERIFY(!session.identity().sessionId.isEmpty()); // its own session id
    }
};

QTEST_GUILESS_MAIN(TestTerminalSession)
#include "tst_terminalsession.moc"
