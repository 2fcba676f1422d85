#pragma once
// What the window remembers between sessions: its geometry, the positions of its splitters
// (per page kind, e.g. every run page shares one), and the run files opened recently. Kept
// in window.ini next to the profile store, so a test's temporary store keeps it too.

#include <QString>
#include <QStringList>

#include <memory>

class QMainWindow;
class QSettings;
class QWidget;

namespace sandscope {

class WindowState {
public:
    static constexpr int maximumRecentRuns = 10;

    // profileStorePath: the window's profile store file (empty: the user's default).
    explicit WindowState(const QString &profileStorePath = {});
    ~WindowState();

    void restoreGeometry(QMainWindow *window) const;
    void saveGeometry(const QMainWindow *window);
    // Splitters under `page` with an object name, keyed by the page's and their names.
    void restoreSplitters(QWidget *page) const;
    void saveSplitters(const QWidget *page);

    // Most recent first; files that no longer exist are dropped when the list is read.
    QStringList recentRuns() const;
    void addRecentRun(const QString &path);
    void clearRecentRuns();

    // Where File › Export… saved last (empty at first).
    QString exportDirectory() const;
    void setExportDirectory(const QString &directory);

    QString path() const;

private:
    std::unique_ptr<QSettings> m_settings;
};

} // namespace sandscope
