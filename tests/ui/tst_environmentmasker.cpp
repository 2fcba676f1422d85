// The New Run dialog's agent environment: values are masked while typed (their glyphs are not
// painted), names and comments stay readable, and the text itself is what was typed.

#include "runs/environmentmasker.h"
#include "runs/newrundialog.h"
#include "server/openterminalclient.h"

#include <QPlainTextEdit>
#include <QTextBlock>
#include <QTextLayout>
#include <QtTest>

using namespace sandscope;

namespace {

// For each character of the block: whether it is painted invisibly.
QVector<bool> maskedCharacters(const QTextBlock &block)
{
    QVector<bool> masked(block.length() - 1, false);
    for (const QTextLayout::FormatRange &range : block.layout()->formats()) {
        if (range.format.foreground().color().alpha() != 0)
            continue;
        for (int i = range.start; i < range.start + range.length && i < masked.size(); ++i)
            masked[i] = true;
    }
    return masked;
}

} // namespace

class TestEnvironmentMasker : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void valuesAreMaskedAndNamesAreNot_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<int>("maskedFrom"); // -1: nothing masked
        QTest::newRow("key") << QStringLiteral("ANTHROPIC_API_KEY=sk-ant-api03-secret") << 18;
        QTest::newRow("equals in value") << QStringLiteral("A=b=c") << 2;
        QTest::newRow("spaces") << QStringLiteral("  TOKEN = abc ") << 9;
        QTest::newRow("comment") << QStringLiteral("# KEY=not a value") << -1;
        QTest::newRow("name only") << QStringLiteral("NAME") << -1;
        QTest::newRow("empty value") << QStringLiteral("NAME=") << -1;
    }
    void valuesAreMaskedAndNamesAreNot()
    {
        QFETCH(QString, line);
        QFETCH(int, maskedFrom);
        QCOMPARE(EnvironmentMasker::maskedFrom(line), maskedFrom);
        QPlainTextEdit edit;
        new EnvironmentMasker(edit.document());
        edit.setPlainText(QStringLiteral("FIRST=one\n") + line);
        const QVector<bool> masked = maskedCharacters(edit.document()->findBlockByNumber(1));
        QCOMPARE(masked.size(), line.size());
        for (int i = 0; i < line.size(); ++i)
            QCOMPARE(masked.at(i), maskedFrom >= 0 && i >= maskedFrom);
        QCOMPARE(edit.toPlainText(), QStringLiteral("FIRST=one\n") + line);
    }

    // In the dialog itself, as typed key by key.
    void theNewRunDialogMasksWhatIsTyped()
    {
        // No server answers here: the dialog's chat list stays empty, which is all it needs.
        OpenTerminalClient client(
            ServerConnection {QUrl(QStringLiteral("http://127.0.0.1:9")), {}, 1000});
        NewRunDialog dialog(
            &client, {QStringLiteral("alice"), QString()}, SessionScope {}, nullptr);
        auto *environment = dialog.findChild<QPlainTextEdit *>(QStringLiteral("environmentEdit"));
        QVERIFY(environment);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        environment->setFocus();
        QTest::keyClicks(environment, QStringLiteral("GH_TOKEN=ghp_secret"));
        const QVector<bool> masked = maskedCharacters(environment->document()->firstBlock());
        QCOMPARE(masked.size(), 19);
        QCOMPARE(masked.indexOf(true), 9);
        QCOMPARE(masked.count(true), 10);
    }
};

QTEST_MAIN(TestEnvironmentMasker)
#include "tst_environmentmasker.moc"
