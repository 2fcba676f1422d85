// The monospace font must be fixed-pitch even where fontconfig's "monospace" is a face it does
// not flag as mono-spaced (Noto Sans Mono on a fresh Debian 12). The test recreates that machine
// with a fontconfig file of its own that maps "monospace" to a proportional face (DejaVu Sans,
// installed by scripts/install-deps.sh), so it does not depend on the fonts a machine happens to
// have or on how they are configured.

#include "monospacefont.h"

#include <QApplication>
#include <QFile>
#include <QFontDatabase>
#include <QFontInfo>
#include <QTemporaryDir>
#include <QtTest>

#ifdef SANDSCOPE_HAVE_QTERMWIDGET
#include <qtermwidget.h>
#endif

#include <cstdlib>
#include <memory>

using namespace sandscope;

class TestMonospaceFont : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void proportionalMonospaceAliasIsReplacedByAFixedPitchFace()
    {
        // The machine the issue describes: the platform's fixed font is not fixed-pitch.
        QVERIFY2(!QFontInfo(QFontDatabase::systemFont(QFontDatabase::FixedFont)).fixedPitch(),
            qPrintable(QFontInfo(QFontDatabase::systemFont(QFontDatabase::FixedFont)).family()));
        const QFont font = monospaceFont();
        const QFontInfo info(font);
        QVERIFY2(info.fixedPitch(), qPrintable(info.family()));
        // Really one width, measured, not only flagged.
        const QFontMetrics metrics(font);
        QCOMPARE(metrics.horizontalAdvance(QStringLiteral("iiiiiiiiii")),
            metrics.horizontalAdvance(QStringLiteral("WWWWWWWWWW")));
    }

#ifdef SANDSCOPE_HAVE_QTERMWIDGET
    // QTermWidget asks for "Monospace" while it is built; on this machine that face is
    // proportional, and the emulator said so on stderr at every start.
    void aNewTerminalEmulatorIsGivenAFixedPitchFace()
    {
        static QStringList messages;
        messages.clear();
        const QtMessageHandler previous
            = qInstallMessageHandler([](QtMsgType, const QMessageLogContext &,
                                         const QString &message) { messages.append(message); });
        substituteGenericMonospace();
        {
            QTermWidget emulator(0);
            QVERIFY2(QFontInfo(emulator.getTerminalFont()).fixedPitch(),
                qPrintable(QFontInfo(emulator.getTerminalFont()).family()));
        }
        qInstallMessageHandler(previous);
        for (const QString &message : messages)
            QVERIFY2(!message.contains(QLatin1String("variable-width")), qPrintable(message));
    }
#endif

    void choiceOrder_data()
    {
        QTest::addColumn<QStringList>("families");
        QTest::addColumn<QStringList>("fixedPitch");
        QTest::addColumn<QString>("chosen");
        QTest::newRow("well-known face first")
            << QStringList {QStringLiteral("Aardvark Mono"), QStringLiteral("Liberation Mono"),
                   QStringLiteral("DejaVu Sans Mono")}
            << QStringList {QStringLiteral("Aardvark Mono"), QStringLiteral("Liberation Mono"),
                   QStringLiteral("DejaVu Sans Mono")}
            << QStringLiteral("DejaVu Sans Mono");
        QTest::newRow("a well-known name that is not flagged is skipped")
            << QStringList {QStringLiteral("DejaVu Sans Mono"), QStringLiteral("Liberation Mono")}
            << QStringList {QStringLiteral("Liberation Mono")} << QStringLiteral("Liberation Mono");
        QTest::newRow("any fixed-pitch family otherwise")
            << QStringList {QStringLiteral("Noto Sans Mono"), QStringLiteral("Sans"),
                   QStringLiteral("Terminus")}
            << QStringList {QStringLiteral("Terminus")} << QStringLiteral("Terminus");
        QTest::newRow("none") << QStringList {QStringLiteral("Noto Sans Mono")} << QStringList {}
                              << QString();
    }

    void choiceOrder()
    {
        QFETCH(QStringList, families);
        QFETCH(QStringList, fixedPitch);
        QFETCH(QString, chosen);
        QCOMPARE(chooseFixedPitchFamily(
                     families, [&](const QString &family) { return fixedPitch.contains(family); }),
            chosen);
    }
};

int main(int argc, char **argv)
{
    // Before the application exists: fontconfig reads its configuration once.
    QTemporaryDir dir;
    const QString config = dir.filePath(QStringLiteral("fonts.conf"));
    QFile file(config);
    if (!dir.isValid() || !file.open(QIODevice::WriteOnly))
        return 1;
    file.write(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\n<fontconfig>\n"
        "  <include ignore_missing=\"yes\">/etc/fonts/fonts.conf</include>\n"
        "  <match target=\"pattern\"><test name=\"family\"><string>monospace</string></test>\n"
        "    <edit name=\"family\" mode=\"prepend\" binding=\"strong\">"
        "<string>DejaVu Sans</string></edit></match>\n"
        "</fontconfig>\n");
    file.close();
    qputenv("FONTCONFIG_FILE", config.toLocal8Bit());
    QApplication app(argc, argv);
    TestMonospaceFont test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_monospacefont.moc"
