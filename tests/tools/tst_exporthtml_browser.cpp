// The HTML export in a real browser: headless Chromium (/usr/bin/chromium, required in CI)
// driven over the DevTools protocol loads the export of a run with sub-agents and reports no
// console message of level error, no exception and no request but the file itself; a
// collapsed tool call opens when its summary is clicked and its body becomes visible; Expand
// all shows the sub-agent calls nested in their Agent call. A control page with an external
// image proves that the harness sees requests and errors. Chromium's home, config and cache
// are temporary folders; nothing depends on fonts; every wait is bounded and the browser is
// killed at the end.

#include "export/runexporter.h"
#include "runs/loadedrun.h"
#include "runtree/runmodel.h"
#include "testing.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTimer>
#include <QUrl>
#include <QWebSocket>
#include <QtTest/QTest>

#include <functional>

using namespace sandscope;

namespace {

const QString chromiumPath = QStringLiteral("/usr/bin/chromium");
constexpr int stepTimeoutMs = 30000;

// One Chromium and one page target, attached in flat mode.
class Browser {
public:
    ~Browser() { stop(); }

    bool start(const QString &profileDir, QString *why)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"})
            env.insert(QLatin1String(name), profileDir);
        m_process.setProcessEnvironment(env);
        m_process.setProcessChannelMode(QProcess::SeparateChannels);
        m_process.start(chromiumPath,
            {QStringLiteral("--headless=new"), QStringLiteral("--no-sandbox"),
                QStringLiteral("--disable-gpu"),
                QStringLiteral("--user-data-dir=") + profileDir + QStringLiteral("/chromium"),
                QStringLiteral("--remote-debugging-port=0"),
                QStringLiteral("--remote-allow-origins=*"), QStringLiteral("--no-first-run"),
                QStringLiteral("--no-default-browser-check"),
                QStringLiteral("--disable-extensions"),
                QStringLiteral("--disable-background-networking"),
                QStringLiteral("--disable-component-update"), QStringLiteral("--disable-sync"),
                QStringLiteral("--window-size=1200,900"), QStringLiteral("about:blank")});
        if (!m_process.waitForStarted(stepTimeoutMs)) {
            *why = QStringLiteral("chromium did not start: ") + m_process.errorString();
            return false;
        }
        // "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID" on stderr.
        static const QRegularExpression listening(
            QStringLiteral("DevTools listening on (ws://\\S+)"));
        QByteArray err;
        QString endpoint;
        QElapsedTimer timer;
        timer.start();
        while (endpoint.isEmpty() && timer.elapsed() < stepTimeoutMs
            && m_process.state() == QProcess::Running) {
            m_process.waitForReadyRead(500);
            err += m_process.readAllStandardError();
            const QRegularExpressionMatch match = listening.match(QString::fromUtf8(err));
            if (match.hasMatch())
                endpoint = match.captured(1);
        }
        if (endpoint.isEmpty()) {
            *why = QStringLiteral("no DevTools endpoint: ") + QString::fromUtf8(err.right(2000));
            return false;
        }
        QObject::connect(&m_socket, &QWebSocket::textMessageReceived, &m_socket,
            [this](const QString &text) { onMessage(text); });
        m_socket.open(QUrl(endpoint));
        if (!waitFor([this] { return m_socket.state() == QAbstractSocket::ConnectedState; })) {
            *why = QStringLiteral("cannot connect to ") + endpoint;
            return false;
        }
        const QJsonObject target = call(QStringLiteral("Target.createTarget"),
            {{QStringLiteral("url"), QStringLiteral("about:blank")}}, false);
        const QJsonObject attached = call(QStringLiteral("Target.attachToTarget"),
            {{QStringLiteral("targetId"), target.value(QStringLiteral("targetId"))},
                {QStringLiteral("flatten"), true}},
            false);
        m_session = attached.value(QStringLiteral("sessionId")).toString();
        if (m_session.isEmpty()) {
            *why = QStringLiteral("cannot attach to a page");
            return false;
        }
        for (const char *domain : {"Runtime.enable", "Log.enable", "Network.enable", "Page.enable"})
            call(QLatin1String(domain), {});
        return true;
    }

    void stop()
    {
        m_socket.abort();
        if (m_process.state() != QProcess::NotRunning) {
            // SIGTERM first: Chromium then ends its helper processes too, which would
            // otherwise still write into the profile while the folder is removed.
            m_process.terminate();
            if (!m_process.waitForFinished(10000)) {
                m_process.kill();
                m_process.waitForFinished(10000);
            }
        }
    }

    // Navigates and waits for the load event; the page's problems and requests are collected
    // from here on.
    bool load(const QUrl &url)
    {
        errors.clear();
        requests.clear();
        m_loaded = false;
        call(QStringLiteral("Page.navigate"), {{QStringLiteral("url"), url.toString()}});
        const bool loaded = waitFor([this] { return m_loaded; });
        // Late console messages and failed loads arrive right after the load event.
        QTest::qWait(300);
        return loaded;
    }

    QJsonValue evaluate(const QString &expression)
    {
        const QJsonObject result = call(QStringLiteral("Runtime.evaluate"),
            {{QStringLiteral("expression"), expression}, {QStringLiteral("returnByValue"), true}});
        if (result.contains(QStringLiteral("exceptionDetails")))
            return QJsonValue(QStringLiteral("exception: ")
                + QString::fromUtf8(
                    QJsonDocument(result.value(QStringLiteral("exceptionDetails")).toObject())
                        .toJson()));
        return result.value(QStringLiteral("result")).toObject().value(QStringLiteral("value"));
    }

    QStringList errors; // console errors, exceptions, failed loads
    QStringList requests; // every URL the page asked for

private:
    bool waitFor(const std::function<bool()> &done)
    {
        QElapsedTimer timer;
        timer.start();
        while (!done()) {
            if (timer.elapsed() > stepTimeoutMs || m_process.state() != QProcess::Running)
                return false;
            QTest::qWait(20);
        }
        return true;
    }

    QJsonObject call(const QString &method, const QJsonObject &params, bool onPage = true)
    {
        const int id = ++m_lastId;
        QJsonObject message {{QStringLiteral("id"), id}, {QStringLiteral("method"), method},
            {QStringLiteral("params"), params}};
        if (onPage)
            message.insert(QStringLiteral("sessionId"), m_session);
        m_socket.sendTextMessage(
            QString::fromUtf8(QJsonDocument(message).toJson(QJsonDocument::Compact)));
        if (!waitFor([this, id] { return m_replies.contains(id); }))
            return {};
        return m_replies.take(id);
    }

    void onMessage(const QString &text)
    {
        const QJsonObject message = QJsonDocument::fromJson(text.toUtf8()).object();
        if (message.contains(QStringLiteral("id"))) {
            QJsonObject reply = message.value(QStringLiteral("result")).toObject();
            if (message.contains(QStringLiteral("error")))
                reply.insert(
                    QStringLiteral("exceptionDetails"), message.value(QStringLiteral("error")));
            m_replies.insert(message.value(QStringLiteral("id")).toInt(), reply);
            return;
        }
        const QString method = message.value(QStringLiteral("method")).toString();
        const QJsonObject params = message.value(QStringLiteral("params")).toObject();
        if (method == QLatin1String("Page.loadEventFired")) {
            m_loaded = true;
        } else if (method == QLatin1String("Network.requestWillBeSent")) {
            requests.append(params.value(QStringLiteral("request"))
                                .toObject()
                                .value(QStringLiteral("url"))
                                .toString());
        } else if (method == QLatin1String("Network.loadingFailed")) {
            errors.append(QStringLiteral("load failed: ")
                + params.value(QStringLiteral("errorText")).toString());
        } else if (method == QLatin1String("Runtime.exceptionThrown")) {
            errors.append(QStringLiteral("exception: ")
                + QString::fromUtf8(QJsonDocument(params).toJson(QJsonDocument::Compact)));
        } else if (method == QLatin1String("Runtime.consoleAPICalled")) {
            const QString type = params.value(QStringLiteral("type")).toString();
            if (type == QLatin1String("error") || type == QLatin1String("assert")
                || type == QLatin1String("warning"))
                errors.append(QStringLiteral("console.%1").arg(type));
        } else if (method == QLatin1String("Log.entryAdded")) {
            const QJsonObject entry = params.value(QStringLiteral("entry")).toObject();
            if (entry.value(QStringLiteral("level")).toString() == QLatin1String("error"))
                errors.append(
                    QStringLiteral("log: ") + entry.value(QStringLiteral("text")).toString());
        }
    }

    QProcess m_process;
    QWebSocket m_socket;
    QString m_session;
    int m_lastId = 0;
    bool m_loaded = false;
    QHash<int, QJsonObject> m_replies;
};

} // namespace

class TestExportHtmlBrowser : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void loadsCleanlyAndExpands();
    void harnessSeesRequestsAndErrors();
    void cleanupTestCase();

private:
    QTemporaryDir m_dir;
    Browser m_browser;
    bool m_started = false;
};

void TestExportHtmlBrowser::initTestCase()
{
    SANDSCOPE_REQUIRE(QFile::exists(chromiumPath), "headless Chromium at /usr/bin/chromium");
    QVERIFY(m_dir.isValid());
    QString why;
    m_started = m_browser.start(m_dir.path(), &why);
    QVERIFY2(m_started, qPrintable(why));
}

void TestExportHtmlBrowser::loadsCleanlyAndExpands()
{
    LoadedRun run;
    QString why;
    QVERIFY2(LoadedRun::fromFile(
                 QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/stream-subagent.jsonl"), &run, &why),
        qPrintable(why));
    RunModel model;
    run.buildModel(&model);
    RunExporter exporter;
    const QString path = m_dir.filePath(QStringLiteral("run.html"));
    QVERIFY(RunExporter::writeFile(path,
        exporter.render(exporter.snapshot(model, run.source), RunExporter::Format::Html), &why));

    const QUrl url = QUrl::fromLocalFile(path);
    QVERIFY(m_browser.load(url));
    QVERIFY2(m_browser.errors.isEmpty(), qPrintable(m_browser.errors.join(QLatin1Char('\n'))));
    QVERIFY(!m_browser.requests.isEmpty());
    for (const QString &request : std::as_const(m_browser.requests))
        QCOMPARE(request, url.toString());

    // Tool calls start collapsed; a click on one's summary shows its body.
    const QJsonObject clicked = QJsonDocument::fromJson(m_browser
                                                            .evaluate(QStringLiteral(R"((function(){
        var d = document.querySelector('main.tree details.toolcall:not([open])');
        if (!d) return '{}';
        var body = d.querySelector(':scope > .body');
        // A folded <details> may keep its content laid out (content-visibility): ask
        // whether it is visible, not how high it is.
        var before = body.checkVisibility();
        d.querySelector(':scope > summary').click();
        return JSON.stringify({open: d.open, before: before, after: body.checkVisibility(),
            height: body.getBoundingClientRect().height});
    })())"))
                                                            .toString()
                                                            .toUtf8())
                                    .object();
    QVERIFY2(clicked.value(QStringLiteral("open")).toBool(),
        qPrintable(QString::fromUtf8(QJsonDocument(clicked).toJson())));
    QCOMPARE(clicked.value(QStringLiteral("before")).toBool(), false);
    QCOMPARE(clicked.value(QStringLiteral("after")).toBool(), true);
    QVERIFY(clicked.value(QStringLiteral("height")).toDouble() > 0);

    // The sub-agent's calls are nested in the Agent call and hidden while it is folded.
    const QString nestedVisible = QStringLiteral(R"((function(){
        var n = document.querySelector('details.toolcall .children details.toolcall > summary');
        return n ? (n.checkVisibility() ? 1 : 0) : -1; })())");
    QCOMPARE(
        m_browser.evaluate(QStringLiteral("document.getElementById('collapse-all').click(); 0"))
            .toInt(),
        0);
    QCOMPARE(m_browser.evaluate(nestedVisible).toInt(), 0);
    QCOMPARE(
        m_browser
            .evaluate(QStringLiteral(
                "document.getElementById('expand-all').click(); "
                "document.querySelectorAll('main.tree details:not(.leaf):not([open])').length"))
            .toInt(),
        0);
    QCOMPARE(m_browser.evaluate(nestedVisible).toInt(), 1);
    QVERIFY2(m_browser.errors.isEmpty(), qPrintable(m_browser.errors.join(QLatin1Char('\n'))));
}

void TestExportHtmlBrowser::harnessSeesRequestsAndErrors()
{
    // A page that loads an image from a closed port and logs an error: both must be seen, or
    // the clean result above proves nothing.
    const QString path = m_dir.filePath(QStringLiteral("control.html"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("<!DOCTYPE html><html><body><img src=\"http://127.0.0.1:9/x.png\">"
               "<script>console.error('control')</script></body></html>");
    file.close();
    QVERIFY(m_browser.load(QUrl::fromLocalFile(path)));
    QVERIFY(m_browser.requests.contains(QStringLiteral("http://127.0.0.1:9/x.png")));
    QVERIFY(m_browser.errors.contains(QStringLiteral("console.error")));
}

void TestExportHtmlBrowser::cleanupTestCase()
{
    m_browser.stop();
}

QTEST_GUILESS_MAIN(TestExportHtmlBrowser)
#include "tst_exporthtml_browser.moc"
