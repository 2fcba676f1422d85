// The English plural forms (resources/translations/sandscope_en.ts, compiled into the core by
// app/CMakeLists.txt and installed by util/englishplurals): every message that counts is a %n
// message with two finished forms, the file is in step with the sources (lupdate, as
// scripts/update-translations.sh runs it), no literal says "noun(s)" outside such a message,
// and every program linking the core shows the forms at run time.

#include "testing.h"
#include "util/englishplurals.h"

#include <QCoreApplication>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

namespace {

QString projectDir()
{
    return QFileInfo(QFileInfo(QStringLiteral(SANDSCOPE_VERSIONS_FILE)).absolutePath())
        .absolutePath();
}

QString shippedTs()
{
    return projectDir() + QStringLiteral("/resources/translations/sandscope_en.ts");
}

struct PluralMessage {
    QString context;
    QString source;
    QStringList forms;
    bool unfinished = false;
};

QVector<PluralMessage> readPluralMessages(const QString &path, QString *error)
{
    QVector<PluralMessage> messages;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return messages;
    }
    QXmlStreamReader xml(&file);
    QString context;
    PluralMessage current;
    bool inMessage = false;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const auto name = xml.name();
            if (name == QLatin1String("name") && !inMessage) {
                context = xml.readElementText();
            } else if (name == QLatin1String("message")) {
                inMessage
                    = xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes");
                current = PluralMessage {context, {}, {}, false};
            } else if (inMessage && name == QLatin1String("source")) {
                current.source = xml.readElementText();
            } else if (inMessage && name == QLatin1String("translation")) {
                current.unfinished
                    = xml.attributes().value(QLatin1String("type")) == QLatin1String("unfinished");
            } else if (inMessage && name == QLatin1String("numerusform")) {
                current.forms.append(xml.readElementText());
            }
        } else if (xml.isEndElement() && xml.name() == QLatin1String("message")) {
            if (inMessage)
                messages.append(current);
            inMessage = false;
        }
    }
    if (xml.hasError())
        *error = xml.errorString();
    return messages;
}

QString lupdateProgram()
{
    for (const QString &candidate :
        {QStringLiteral("/usr/lib/qt5/bin/lupdate"), QStringLiteral("/usr/lib/qt6/bin/lupdate")}) {
        if (QFileInfo(candidate).isExecutable())
            return candidate;
    }
    return QStandardPaths::findExecutable(QStringLiteral("lupdate"));
}

// English: the first form for exactly one, the second for every other count.
QString expectedText(const PluralMessage &message, int n)
{
    QString form = message.forms.value(n == 1 ? 0 : 1);
    form.replace(QLatin1String("%Ln"), QLocale().toString(n));
    form.replace(QLatin1String("%n"), QString::number(n));
    return form;
}

} // namespace

class TestTranslations : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyPluralMessageHasTwoFinishedEnglishForms()
    {
        QString error;
        const QVector<PluralMessage> messages = readPluralMessages(shippedTs(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!messages.isEmpty());
        const QRegularExpression parenthesised(QStringLiteral("\\w\\((?:e?s)\\)"));
        for (const PluralMessage &message : messages) {
            const QString where = message.context + QStringLiteral(": ") + message.source;
            QVERIFY2(!message.unfinished, qPrintable(where + QStringLiteral(" is unfinished")));
            QCOMPARE(message.forms.size(), 2);
            for (const QString &form : message.forms) {
                QVERIFY2(!form.isEmpty(), qPrintable(where));
                QVERIFY2(!parenthesised.match(form).hasMatch(),
                    qPrintable(where + QLatin1String(" -> ") + form));
                // The count is shown in every form, as the source shows it.
                QVERIFY2(form.contains(QLatin1String("%n")) || form.contains(QLatin1String("%Ln")),
                    qPrintable(where + QLatin1String(" -> ") + form));
            }
        }
    }

    // lupdate over app/, cli/ and ui/ finds exactly the messages the shipped file holds: a new
    // %n message without forms, or forms of a message that is gone, fail here.
    void theShippedFileIsInStepWithTheSources()
    {
        const QString lupdate = lupdateProgram();
        SANDSCOPE_REQUIRE(!lupdate.isEmpty(), "lupdate (qttools5-dev-tools) is not installed");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString fresh = dir.filePath(QStringLiteral("fresh.ts"));
        QProcess process;
        process.start(lupdate,
            {QStringLiteral("-silent"), QStringLiteral("-pluralonly"), QStringLiteral("-locations"),
                QStringLiteral("none"), projectDir() + QStringLiteral("/app"),
                projectDir() + QStringLiteral("/cli"), projectDir() + QStringLiteral("/ui"),
                QStringLiteral("-ts"), fresh});
        QVERIFY(process.waitForFinished(120000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QString error;
        QSet<QString> inSources, shipped;
        for (const PluralMessage &m : readPluralMessages(fresh, &error))
            inSources.insert(m.context + QLatin1Char('\x1f') + m.source);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        for (const PluralMessage &m : readPluralMessages(shippedTs(), &error))
            shipped.insert(m.context + QLatin1Char('\x1f') + m.source);
        QVERIFY(!inSources.isEmpty());
        const QSet<QString> missing = QSet<QString>(inSources).subtract(shipped);
        const QSet<QString> stale = QSet<QString>(shipped).subtract(inSources);
        QVERIFY2(missing.isEmpty() && stale.isEmpty(),
            qPrintable(QStringLiteral("run scripts/update-translations.sh; missing: %1; stale: %2")
                           .arg(QStringList(missing.values()).join(QLatin1String(" | ")),
                               QStringList(stale.values()).join(QLatin1String(" | ")))));
    }

    // "5 check(s)" is what the issue found: a string literal with a noun(s) is only allowed as
    // the source of a %n message, whose forms replace it.
    void noLiteralSaysNounParenSOutsideAPluralMessage()
    {
        const QRegularExpression literal(QStringLiteral("\"((?:[^\"\\\\\\n]|\\\\.)*)\""));
        const QRegularExpression parenthesised(QStringLiteral("[a-z]\\((?:e?s)\\)"));
        int files = 0;
        QStringList offenders;
        for (const char *folder : {"app", "cli", "ui"}) {
            QDirIterator it(projectDir() + QLatin1Char('/') + QLatin1String(folder),
                {QStringLiteral("*.cpp"), QStringLiteral("*.h"), QStringLiteral("*.ui")},
                QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext()) {
                QFile file(it.next());
                QVERIFY(file.open(QIODevice::ReadOnly));
                ++files;
                const QStringList lines
                    = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
                for (int i = 0; i < lines.size(); ++i) {
                    const QString line = lines.at(i).trimmed();
                    if (line.startsWith(QLatin1String("//")) || line.startsWith(QLatin1Char('*')))
                        continue;
                    auto matches = literal.globalMatch(lines.at(i));
                    while (matches.hasNext()) {
                        const QString text = matches.next().captured(1);
                        if (parenthesised.match(text).hasMatch()
                            && !text.contains(QLatin1String("%n"))
                            && !text.contains(QLatin1String("%Ln"))
                            // a continued %n message: its first part is on an earlier line
                            && !lines.value(i - 1).contains(QLatin1String("%n"))
                            && !lines.value(i - 2).contains(QLatin1String("%n")))
                            offenders.append(QStringLiteral("%1:%2: %3")
                                                 .arg(QFileInfo(file.fileName()).fileName())
                                                 .arg(i + 1)
                                                 .arg(text));
                    }
                }
            }
        }
        QVERIFY(files > 100);
        QVERIFY2(offenders.isEmpty(), qPrintable(offenders.join(QLatin1Char('\n'))));
    }

    // The startup hook of the core installed the compiled forms in this test's own
    // QCoreApplication, as it does in the GUI's and the command line's.
    void everyProgramShowsTheEnglishFormsAtRunTime_data()
    {
        QTest::addColumn<int>("count");
        for (int n : {0, 1, 2, 21, 1000})
            QTest::addRow("%d", n) << n;
    }
    void everyProgramShowsTheEnglishFormsAtRunTime()
    {
        QFETCH(int, count);
        QVERIFY(EnglishPlurals::installed());
        QString error;
        const QVector<PluralMessage> messages = readPluralMessages(shippedTs(), &error);
        QVERIFY(!messages.isEmpty());
        for (const PluralMessage &message : messages) {
            const QString shown = QCoreApplication::translate(message.context.toUtf8().constData(),
                message.source.toUtf8().constData(), nullptr, count);
            QCOMPARE(shown, expectedText(message, count));
        }
    }
};

QTEST_GUILESS_MAIN(TestTranslations)
#include "tst_translations.moc"
