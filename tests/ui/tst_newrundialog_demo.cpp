// The New Run dialog offers the demo model (app/claude/demomodel.h), checked and labelled,
// only when SANDSCOPE_DEMO_MODEL_URL names one and no real key is configured; a run started
// with it asks for the demo's model name and points claude at the demo server, and never
// otherwise.

#include "claude/demomodel.h"
#include "runs/newrundialog.h"
#include "server/openterminalclient.h"

#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QtTest>

#include <memory>

using namespace sandscope;

namespace {

const QString demoUrl = QStringLiteral("http://127.0.0.1:4567");

struct ScopedVariable {
    ScopedVariable(const char *name, const QString &value)
        : m_name(name)
        , m_old(qgetenv(name))
        , m_wasSet(qEnvironmentVariableIsSet(name))
    {
        if (value.isNull())
            qunsetenv(name);
        else
            qputenv(name, value.toUtf8());
    }
    ~ScopedVariable()
    {
        if (m_wasSet)
            qputenv(m_name, m_old);
        else
            qunsetenv(m_name);
    }
    const char *m_name;
    QByteArray m_old;
    bool m_wasSet;
};

} // namespace

class TestNewRunDialogDemo : public QObject {
    Q_OBJECT

    // Nothing listens on port 1: the dialog's chat listing fails, which it survives.
    OpenTerminalClient m_client {
        ServerConnection {QUrl(QStringLiteral("http://127.0.0.1:1")), QStringLiteral("k"), 2000}};

    std::unique_ptr<NewRunDialog> newDialog()
    {
        return std::make_unique<NewRunDialog>(&m_client, Identity {QStringLiteral("alice"), {}},
            SessionScope {{}, QStringLiteral("http://127.0.0.1:1"), QStringLiteral("alice")},
            nullptr);
    }

private Q_SLOTS:
    void demoModelOfferedOnlyWithoutAKey_data()
    {
        QTest::addColumn<QString>("demo");
        QTest::addColumn<QString>("key");
        QTest::addColumn<bool>("offered");
        QTest::newRow("demo named, no key") << demoUrl << QString() << true;
        QTest::newRow("demo named, key set") << demoUrl << QStringLiteral("sk-real") << false;
        QTest::newRow("no demo named") << QString() << QString() << false;
    }

    void demoModelOfferedOnlyWithoutAKey()
    {
        QFETCH(QString, demo);
        QFETCH(QString, key);
        QFETCH(bool, offered);
        const ScopedVariable demoVariable(DemoModel::environmentVariable(), demo);
        const ScopedVariable keyVariable("ANTHROPIC_API_KEY", key);
        const auto dialogPointer = newDialog();
        NewRunDialog &dialog = *dialogPointer;
        auto *check = dialog.findChild<QCheckBox *>(QStringLiteral("demoModelCheck"));
        auto *label = dialog.findChild<QLabel *>(QStringLiteral("demoModelLabel"));
        QVERIFY(check && label);
        QCOMPARE(!check->isHidden(), offered);
        QCOMPARE(dialog.usesDemoModel(), offered);
        if (offered) {
            QVERIFY(check->isChecked());
            QVERIFY(check->text().contains(QLatin1String("demo model")));
            QVERIFY(label->text().contains(QLatin1String("not Claude")));
            QVERIFY(label->text().contains(demoUrl));
        }

        auto *prompt = dialog.findChild<QPlainTextEdit *>(QStringLiteral("promptEdit"));
        QVERIFY(prompt);
        prompt->setPlainText(QStringLiteral("CMD: echo hi"));
        dialog.accept();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        const LiveRunRequest request = dialog.request();
        QCOMPARE(DemoModel::isDemoModel(request.options.model), offered);
        QCOMPARE(request.environment.value(QStringLiteral("ANTHROPIC_BASE_URL")),
            offered ? demoUrl : QString());
    }

    void uncheckedDemoIsNotUsed()
    {
        const ScopedVariable demoVariable(DemoModel::environmentVariable(), demoUrl);
        const ScopedVariable keyVariable("ANTHROPIC_API_KEY", QString());
        const auto dialogPointer = newDialog();
        NewRunDialog &dialog = *dialogPointer;
        auto *check = dialog.findChild<QCheckBox *>(QStringLiteral("demoModelCheck"));
        QVERIFY(check);
        check->setChecked(false);
        QVERIFY(!dialog.usesDemoModel());
        dialog.accept();
        QVERIFY(dialog.request().environment.isEmpty());
        QVERIFY(dialog.request().options.model.isEmpty());
    }
};

QTEST_MAIN(TestNewRunDialogDemo)
#include "tst_newrundialog_demo.moc"
