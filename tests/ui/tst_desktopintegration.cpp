// Opening files the way desktop apps do, through the real window (offscreen): several files at
// once (what `sandscope FILE...` and the desktop file's %F pass), files dropped on the window,
// File → Open Recent across sessions, and the geometry and run-page splitter a user left.

#include "connection/serversession.h"
#include "connectiondialog.h"
#include "desktopnotifier.h"
#include "identitybar.h"
#include "mainwindow.h"
#include "messagebar.h"
#include "runs/runpage.h"
#include "runs/runtabs.h"
#include "security/profilestore.h"
#include "server/adminaccess.h"
#include "server/openterminalclient.h"
#include "windowstate.h"

#include <QAction>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QHash>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
#include <QPushButton>
#include <QSet>
#include <QSplitter>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

#include <memory>

using namespace sandscope;

namespace {

QString capture(const char *name)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/") + QLatin1String(name);
}

int runTabs(MainWindow *window)
{
    int count = 0;
    for (int i = 0; i < window->pages()->count(); ++i)
        count += qobject_cast<RunPage *>(window->pages()->widget(i)) ? 1 : 0;
    return count;
}

QStringList recentMenuTexts(MainWindow *window)
{
    auto *menu = window->findChild<QMenu *>(QStringLiteral("recentRunsMenu"));
    if (!menu)
        return {};
    Q_EMIT menu->aboutToShow();
    QStringList texts;
    const QList<QAction *> actions = menu->actions();
    for (const QAction *action : actions) {
        if (!action->isSeparator())
            texts << action->text();
    }
    return texts;
}

} // namespace

class TestDesktopIntegration : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        qputenv("SANDSCOPE_AUDIT_LOG", m_dir->filePath(QStringLiteral("audit.jsonl")).toUtf8());
    }

    void severalFilesOpenInTabsAndFailuresAreNamed()
    {
        const QString folder = m_dir->filePath(QStringLiteral("folder.jsonl"));
        QVERIFY(QDir().mkpath(folder));
        MainWindow window(settingsPath());
        window.show();
        const int opened = window.runTabs()->openRunFiles({capture("stream-basic.jsonl"),
            capture("stream-subagent.jsonl"), folder, m_dir->filePath(QStringLiteral("gone"))});
        QCOMPARE(opened, 2);
        QCOMPARE(runTabs(&window), 2);
        QCOMPARE(window.messageBar()->level(), MessageBar::Level::Error);
        const QString message = window.messageBar()->text();
        QVERIFY2(message.contains(QLatin1String("2 of 4")), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("folder.jsonl")), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("gone")), qPrintable(message));
    }

    void droppedFilesOpenAsRuns()
    {
        MainWindow window(settingsPath());
        window.show();
        QMimeData data;
        data.setUrls({QUrl::fromLocalFile(capture("stream-basic.jsonl")),
            QUrl::fromLocalFile(capture("stream-maxturns.jsonl"))});
        QDragEnterEvent enter(
            QPoint(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&window, &drop);
        QVERIFY(drop.isAccepted());
        QCOMPARE(runTabs(&window), 2);

        // Something that is not a local file is refused at the door.
        QMimeData remote;
        remote.setUrls({QUrl(QStringLiteral("https://example.org/run.jsonl"))});
        QDragEnterEvent refused(
            QPoint(10, 10), Qt::CopyAction, &remote, Qt::LeftButton, Qt::NoModifier);
        refused.setAccepted(false);
        QCoreApplication::sendEvent(&window, &refused);
        QVERIFY(!refused.isAccepted());
    }

    void recentRunsAreRememberedAcrossSessionsAndCanBeCleared()
    {
        {
            MainWindow first(settingsPath());
            QVERIFY(first.runTabs()->openRunFile(capture("stream-basic.jsonl")));
            QVERIFY(first.runTabs()->openRunFile(capture("stream-subagent.jsonl")));
            QVERIFY(
                first.runTabs()->openRunFile(capture("stream-basic.jsonl"))); // moves to the top
        }
        MainWindow second(settingsPath());
        const QStringList texts = recentMenuTexts(&second);
        QCOMPARE(texts.size(), 3); // two files and "Clear List"
        QVERIFY2(
            texts.at(0).endsWith(QLatin1String("stream-basic.jsonl")), qPrintable(texts.at(0)));
        QVERIFY2(
            texts.at(1).endsWith(QLatin1String("stream-subagent.jsonl")), qPrintable(texts.at(1)));
        QVERIFY(texts.at(0).startsWith(QLatin1String("&1")));
        QVERIFY(texts.at(1).startsWith(QLatin1String("&2")));

        // Choosing an entry opens it.
        auto *menu = second.findChild<QMenu *>(QStringLiteral("recentRunsMenu"));
        menu->actions().at(1)->trigger();
        QCOMPARE(runTabs(&second), 1);
        QVERIFY(second.pages()
                    ->tabToolTip(second.pages()->currentIndex())
                    .endsWith(QLatin1String("stream-subagent.jsonl")));

        // Clear List empties it; the menu then says so and offers nothing to clear.
        Q_EMIT menu->aboutToShow();
        menu->actions().constLast()->trigger();
        QVERIFY(second.windowState()->recentRuns().isEmpty());
        const QStringList cleared = recentMenuTexts(&second);
        QCOMPARE(cleared.size(), 2);
        QVERIFY(!menu->actions().constFirst()->isEnabled());
        QVERIFY(!menu->actions().constLast()->isEnabled());
    }

    void aRecentFileThatWasRemovedIsNotOffered()
    {
        const QString copy = m_dir->filePath(QStringLiteral("copy.jsonl"));
        QVERIFY(QFile::copy(capture("stream-basic.jsonl"), copy));
        {
            MainWindow first(settingsPath());
            QVERIFY(first.runTabs()->openRunFile(copy));
        }
        QVERIFY(QFile::remove(copy));
        MainWindow second(settingsPath());
        QVERIFY(second.windowState()->recentRuns().isEmpty());
    }

    void geometryAndRunSplitterAreRestored()
    {
        QList<int> arranged;
        {
            MainWindow first(settingsPath());
            first.show();
            first.resize(940, 610);
            QVERIFY(QTest::qWaitForWindowExposed(&first));
            RunPage *page = first.runTabs()->openRunFile(capture("stream-basic.jsonl"));
            QVERIFY(page);
            auto *splitter = page->findChild<QSplitter *>(QStringLiteral("splitter"));
            QVERIFY(splitter);
            const int total = splitter->sizes().at(0) + splitter->sizes().at(1);
            splitter->setSizes({total / 4, total - total / 4});
            arranged = splitter->sizes();
            first.close();
        }
        MainWindow second(settingsPath());
        second.show();
        QVERIFY(QTest::qWaitForWindowExposed(&second));
        QCOMPARE(second.size(), QSize(940, 610));
        RunPage *page = second.runTabs()->openRunFile(capture("stream-subagent.jsonl"));
        QVERIFY(page);
        auto *splitter = page->findChild<QSplitter *>(QStringLiteral("splitter"));
        QTRY_VERIFY2(qAbs(splitter->sizes().at(0) - arranged.at(0)) <= 2,
            qPrintable(
                QStringLiteral("%1 vs %2").arg(splitter->sizes().at(0)).arg(arranged.at(0))));
    }

    // Two actions may share keys only when they can never be live at once: each bound to its
    // own page (WidgetWithChildrenShortcut on different tabs). Ctrl+N used to be both File →
    // New Run and the Files tab's New Text File, and did nothing there ("Ambiguous shortcut").
    void shortcutsAreUniqueAcrossTheWindow()
    {
        MainWindow window(settingsPath());
        window.show();
        QVERIFY(window.runTabs()->openRunFile(
            capture("stream-basic.jsonl"))); // a run page's actions too
        const auto pageOf = [&window](const QAction *action) -> QWidget * {
            for (QObject *owner = action->parent(); owner; owner = owner->parent()) {
                auto *widget = qobject_cast<QWidget *>(owner);
                if (widget && window.pages()->indexOf(widget) >= 0)
                    return widget;
            }
            return nullptr;
        };
        QHash<QString, QList<QAction *>> byKeys;
        const QList<QAction *> actions = window.findChildren<QAction *>();
        for (QAction *action : actions) {
            for (const QKeySequence &keys : action->shortcuts())
                byKeys[keys.toString(QKeySequence::PortableText)].append(action);
        }
        QVERIFY(byKeys.contains(QStringLiteral("Ctrl+N")));
        for (auto it = byKeys.cbegin(); it != byKeys.cend(); ++it) {
            const QList<QAction *> &sharing = it.value();
            if (sharing.size() < 2)
                continue;
            QSet<QWidget *> pages;
            for (QAction *action : sharing) {
                QWidget *page = pageOf(action);
                QVERIFY2(page && action->shortcutContext() == Qt::WidgetWithChildrenShortcut
                        && !pages.contains(page),
                    qPrintable(QStringLiteral("%1 is bound %2 times, \"%3\" among them")
                                   .arg(it.key())
                                   .arg(sharing.size())
                                   .arg(action->text())));
                pages.insert(page);
            }
        }
    }

    void tabTitlesAreMadeUnique()
    {
        const QString base = QStringLiteral("alice · demo · 14:05");
        QCOMPARE(RunTabs::uniqueTitle(base, {}), base);
        QCOMPARE(RunTabs::uniqueTitle(base, {QStringLiteral("Files"), base}),
            base + QStringLiteral(" (2)"));
        QCOMPARE(RunTabs::uniqueTitle(base, {base, base + QStringLiteral(" (2)")}),
            base + QStringLiteral(" (3)"));
    }

    // A run whose turn ends while the window is not active is announced; not while it is.
    void aRunEndingWhileTheWindowIsInactiveIsAnnounced()
    {
        MainWindow window(settingsPath());
        QStringList announced;
        window.notifier()->setSink([&](const QString &title, const QString &body) {
            announced << title + QLatin1Char('|') + body;
        });
        RunPage *page = window.runTabs()->openRunFile(capture("stream-basic.jsonl"));
        QVERIFY(page);
        QVERIFY(!window.isActiveWindow());
        Q_EMIT page->liveTurnFinished(false);
        QCOMPARE(announced.size(), 1);
        QVERIFY2(announced.first().startsWith(QLatin1String("Run failed: stream-basic.jsonl")),
            qPrintable(announced.first()));
        Q_EMIT page->liveTurnFinished(true);
        QCOMPARE(announced.size(), 2);
        QVERIFY(announced.last().startsWith(QLatin1String("Run finished")));

        window.show();
        QApplication::setActiveWindow(&window);
        QVERIFY(QTest::qWaitForWindowActive(&window));
        Q_EMIT page->liveTurnFinished(true);
        QCOMPARE(announced.size(), 2);
    }

    // The profile used last is opened again at start (File › Connect… saves it as the last).
    void theLastProfileIsOpenedAgain()
    {
        {
            ProfileStore profiles(settingsPath());
            Profile lab;
            lab.name = QStringLiteral("lab");
            lab.serverUrl = QUrl(QStringLiteral("http://127.0.0.1:9"));
            lab.defaultUserId = QStringLiteral("alice");
            profiles.save(lab);
        }
        MainWindow fresh(settingsPath());
        QVERIFY(!fresh.openLastProfile()); // saved, but never used
        ProfileStore(settingsPath()).setLastUsed(QStringLiteral("lab"));
        MainWindow window(settingsPath());
        QVERIFY(window.openLastProfile());
        // It connects as the profile's user (the server here does not answer).
        QTRY_COMPARE(window.identity().userId, QStringLiteral("alice"));
        QCOMPARE(window.client()->connection().baseUrl, QUrl(QStringLiteral("http://127.0.0.1:9")));
    }

    // Connect through File › Connect…, quit, start again: the window reconnects with the last
    // profile (its key from the key store) and File › Connect… shows every field. The new
    // window reads a copy of the store, as a new process parses the file (QSettings keeps a
    // parsed copy per process), which is where the last profile used to be lost.
    void aRestartReconnectsWithTheLastProfileAndEveryField()
    {
        qputenv("XDG_DATA_HOME", m_dir->filePath(QStringLiteral("data")).toUtf8());
        const QString profileName = QStringLiteral("sstest-restart");
        const QString key = QStringLiteral("restart-key-0123456789abcdef");
        {
            MainWindow window(settingsPath());
            window.show();
            window.showConnectDialog();
            auto *dialog = window.findChild<ConnectionDialog *>();
            QVERIFY(dialog);
            dialog->profileCombo()->setEditText(profileName);
            dialog->urlEdit()->setText(QStringLiteral("http://127.0.0.1:9"));
            dialog->userEdit()->setText(QStringLiteral("alice"));
            dialog->adminEdit()->setText(QStringLiteral("sudo -n"));
            dialog->keyEdit()->setText(key);
            dialog->buttonBox()->button(QDialogButtonBox::Ok)->click();
            QTRY_COMPARE(window.identity().userId, QStringLiteral("alice"));
        }
        const QString nextStart = m_dir->filePath(QStringLiteral("next-start/profiles.ini"));
        QVERIFY(QDir().mkpath(QFileInfo(nextStart).path()));
        QVERIFY(QFile::copy(settingsPath(), nextStart));

        MainWindow restarted(nextStart);
        restarted.show();
        QVERIFY(restarted.openLastProfile());
        QTRY_COMPARE(restarted.identity().userId, QStringLiteral("alice"));
        QCOMPARE(restarted.session()->profileName(), profileName);
        QCOMPARE(
            restarted.client()->connection().baseUrl, QUrl(QStringLiteral("http://127.0.0.1:9")));
        QTRY_COMPARE(restarted.client()->connection().apiKey, key);
        AdminAccess sudo;
        QVERIFY(AdminAccess::fromCommand(QStringLiteral("sudo -n"), &sudo));
        QVERIFY(restarted.session()->adminAccess() == sudo);

        restarted.showConnectDialog();
        auto *dialog = restarted.findChild<ConnectionDialog *>();
        QVERIFY(dialog);
        QCOMPARE(dialog->profileCombo()->currentText(), profileName);
        QCOMPARE(dialog->urlEdit()->text(), QStringLiteral("http://127.0.0.1:9"));
        QCOMPARE(dialog->userEdit()->text(), QStringLiteral("alice"));
        QCOMPARE(dialog->adminEdit()->text(), QStringLiteral("sudo -n"));
        QVERIFY2(dialog->keyEdit()->text().isEmpty(), "the stored key is never shown");
        dialog->reject();

        QFile ini(nextStart);
        QVERIFY(ini.open(QIODevice::ReadOnly));
        QCOMPARE(ini.readAll().count("lastUsed="), 1);
    }

private:
    QString settingsPath() const { return m_dir->filePath(QStringLiteral("profiles.ini")); }

    std::unique_ptr<QTemporaryDir> m_dir;
};

QTEST_MAIN(TestDesktopIntegration)
#include "tst_desktopintegration.moc"
