// format: durations and byte sizes as the window, the CLI and exports print them.

#include "util/format.h"

#include <QtTest/QTest>

class TestFormat : public QObject {
    Q_OBJECT

private Q_SLOTS:
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
        QCOMPARE(sandscope::format::byteSize(bytes), text);
    }

    void formatsDurations_data()
    {
        QTest::addColumn<qint64>("ms");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << qint64(0) << QStringLiteral("0 ms");
        QTest::newRow("below a second") << qint64(999) << QStringLiteral("999 ms");
        QTest::newRow("one second") << qint64(1000) << QStringLiteral("1.0 s");
        QTest::newRow("tenths are rounded") << qint64(12345) << QStringLiteral("12.3 s");
        QTest::newRow("just below a minute") << qint64(59949) << QStringLiteral("59.9 s");
        QTest::newRow("minutes and seconds") << qint64(245000) << QStringLiteral("4 min 5 s");
        QTest::newRow("just below an hour") << qint64(3599999) << QStringLiteral("59 min 59 s");
        QTest::newRow("hours and minutes") << qint64(75773000) << QStringLiteral("21 h 2 min");
        QTest::newRow("just below a day") << qint64(86399999) << QStringLiteral("23 h 59 min");
        QTest::newRow("days and hours")
            << qint64(2 * 86400000 + 3 * 3600000 + 59000) << QStringLiteral("2 d 3 h");
    }

    void formatsDurations()
    {
        QFETCH(qint64, ms);
        QFETCH(QString, text);
        QCOMPARE(sandscope::format::duration(ms), text);
    }
};

QTEST_GUILESS_MAIN(TestFormat)
#include "tst_format.moc"
