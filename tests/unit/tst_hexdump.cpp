// hexDump: offsets, the split byte columns, the printable-ASCII column and the byte limit;
// formatByteSize in binary units.

#include "hexdump.h"

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

    void formatsSizes_data()
    {
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << qint64(0) << QStringLiteral("0 bytes");
        QTest::newRow("one") << qint64(1) << QStringLiteral("1 byte");
        QTest::newRow("below a KiB") << qint64(1023) << QStringLiteral("1023 bytes");
        QTest::newRow("1.5 KiB") << qint64(1536) << QStringLiteral("1.5 KiB");
        QTest::newRow("100 MiB") << qint64(100) * 1024 * 1024 << QStringLiteral("100.0 MiB");
        QTest::newRow("2 GiB") << qint64(2) * 1024 * 1024 * 1024 << QStringLiteral("2.0 GiB");
    }

    void formatsSizes()
    {
        QFETCH(qint64, bytes);
        QFETCH(QString, text);
        QCOMPARE(sandscope::formatByteSize(bytes), text);
    }
};

QTEST_GUILESS_MAIN(TestHexDump)
#include "tst_hexdump.moc"
