#include "windowstate.h"

#include <QDir>
#include <QFileInfo>
#include <QMainWindow>
#include <QSettings>
#include <QSplitter>

namespace sandscope {

namespace {

const QString geometryKey = QStringLiteral("window/geometry");
const QString windowStateKey = QStringLiteral("window/state");
const QString recentRunsKey = QStringLiteral("recent/runs");
const QString exportDirectoryKey = QStringLiteral("export/directory");

QString splitterKey(const QWidget *page, const QSplitter *splitter)
{
    return QStringLiteral("splitters/%1/%2").arg(page->objectName(), splitter->objectName());
}

} // namespace

WindowState::WindowState(const QString &profileStorePath)
{
    if (profileStorePath.isEmpty()) {
        m_settings = std::make_unique<QSettings>(QSettings::IniFormat, QSettings::UserScope,
            QStringLiteral("sandscope"), QStringLiteral("window"));
    } else {
        m_settings = std::make_unique<QSettings>(
            QFileInfo(profileStorePath).dir().filePath(QStringLiteral("window.ini")),
            QSettings::IniFormat);
    }
}

WindowState::~WindowState() = default;

QString WindowState::path() const
{
    return m_settings->fileName();
}

void WindowState::restoreGeometry(QMainWindow *window) const
{
    const QByteArray geometry = m_settings->value(geometryKey).toByteArray();
    if (!geometry.isEmpty())
        window->restoreGeometry(geometry);
    const QByteArray state = m_settings->value(windowStateKey).toByteArray();
    if (!state.isEmpty())
        window->restoreState(state);
}

void WindowState::saveGeometry(const QMainWindow *window)
{
    m_settings->setValue(geometryKey, window->saveGeometry());
    m_settings->setValue(windowStateKey, window->saveState());
    m_settings->sync();
}

void WindowState::restoreSplitters(QWidget *page) const
{
    if (!page || page->objectName().isEmpty())
        return;
    const QList<QSplitter *> splitters = page->findChildren<QSplitter *>();
    for (QSplitter *splitter : splitters) {
        if (splitter->objectName().isEmpty())
            continue;
        const QByteArray state = m_settings->value(splitterKey(page, splitter)).toByteArray();
        if (!state.isEmpty())
            splitter->restoreState(state);
    }
}

void WindowState::saveSplitters(const QWidget *page)
{
    if (!page || page->objectName().isEmpty())
        return;
    const QList<QSplitter *> splitters = page->findChildren<QSplitter *>();
    for (const QSplitter *splitter : splitters) {
        if (!splitter->objectName().isEmpty())
            m_settings->setValue(splitterKey(page, splitter), splitter->saveState());
    }
    m_settings->sync();
}

QStringList WindowState::recentRuns() const
{
    QStringList runs = m_settings->value(recentRunsKey).toStringList();
    runs.erase(std::remove_if(runs.begin(), runs.end(),
                   [](const QString &path) { return !QFileInfo(path).isFile(); }),
        runs.end());
    return runs;
}

void WindowState::addRecentRun(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList runs = recentRuns();
    runs.removeAll(absolute);
    runs.prepend(absolute);
    while (runs.size() > maximumRecentRuns)
        runs.removeLast();
    m_settings->setValue(recentRunsKey, runs);
    m_settings->sync();
}

void WindowState::clearRecentRuns()
{
    m_settings->remove(recentRunsKey);
    m_settings->sync();
}

QString WindowState::exportDirectory() const
{
    return m_settings->value(exportDirectoryKey).toString();
}

void WindowState::setExportDirectory(const QString &directory)
{
    m_settings->setValue(exportDirectoryKey, directory);
    m_settings->sync();
}

} // namespace sandscope
