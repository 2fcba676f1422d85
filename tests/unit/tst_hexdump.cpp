// hexDump: offsets, the split byte columns, the printable-ASCII column and the byte limit.

#include "previews/hexdump.h"

#include <QtTest/QTest>

class TestHexDump : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void dumpsFullAndPartialLines()
    {
        const QByteArray data = QByteArray("Hello, world!\n\0\x01", 16) + QByteArray("\xffZ", 2);
        const QString expected = QStringLiteral(
            "00000000  48 65 6c 6c 6f 2c 20 77  6f 72 6c 64 21 0a 00 01  |Hello, world!...|\n"
            "00000010  ff 5a                                             |.Z|\n");
        QCOMPARE(sandscope::hexDump(data), expected);
    }

    void startsAtTheGivenOffset()
    {
        const QString dump = sandscope::hexDump(QByteArray("AB"), 0x1234560);
        QVERIFY2(dump.startsWith(QLatin1String("01234560  41 42 ")), qPrintable(dump));
    }

    void stopsAtMaxBytes()
    {
        const QByteArray data(1000, 'x');
        const QString dump = sandscope::hexDump(data, 0, 40);
        QCOMPARE(dump.count(QLatin1Char('\n')), 3);
        QVERIFY(dump.endsWith(QLatin1String("|xxxxxxxx|\n")));
    }

    void emptyInputGivesEmptyDump() { QVERIFY(sandscope::hexDump(QByteArray()).isEmpty()); }
};

QTEST_GUILESS_MAIN(TestHexDump)
#include "tst_hexdump.moc"
