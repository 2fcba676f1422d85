#include "tabnavigator.h"

#include <QAbstractButton>
#include <QAction>
#include <QIcon>
#include <QKeySequence>
#include <QMenu>
#include <QPointer>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>

namespace sandscope {

TabNavigator::TabNavigator(QTabWidget *tabs, QObject *parent)
    : QObject(parent)
    , m_tabs(tabs)
    , m_next(new QAction(tr("&Next Tab"), tabs))
    , m_previous(new QAction(tr("&Previous Tab"), tabs))
    , m_close(new QAction(tr("Close &Tab"), tabs))
    , m_listButton(new QToolButton(tabs))
    , m_listMenu(new QMenu(tr("&All Tabs"), tabs))
{
    m_next->setObjectName(QStringLiteral("nextTabAction"));
    m_previous->setObjectName(QStringLiteral("previousTabAction"));
    m_close->setObjectName(QStringLiteral("closeTabAction"));
    // Browsers', Qt Creator's and KDevelop's keys; the first is the one the menus show.
    m_next->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageDown)});
    m_previous->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Backtab),
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageUp)});
    m_close->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
    // The tab widget lives in the window: its keys work wherever the focus is in it. Close
    // Tab is disabled on a fixed page, so Ctrl+W reaches the Terminal tab's shell there.
    for (QAction *action : {m_next, m_previous, m_close}) {
        action->setShortcutContext(Qt::WindowShortcut);
        tabs->window()->addAction(action);
    }
    connect(m_next, &QAction::triggered, this, [this] { moveBy(1); });
    connect(m_previous, &QAction::triggered, this, [this] { moveBy(-1); });
    connect(m_close, &QAction::triggered, this, &TabNavigator::closeCurrent);
    connect(tabs, &QTabWidget::currentChanged, this, &TabNavigator::updateCloseAction);
    updateCloseAction();

    m_listMenu->setObjectName(QStringLiteral("tabListMenu"));
    connect(m_listMenu, &QMenu::aboutToShow, this, &TabNavigator::updateListMenu);
    m_listButton->setObjectName(QStringLiteral("tabListButton"));
    m_listButton->setAutoRaise(true);
    m_listButton->setIcon(QIcon::fromTheme(QStringLiteral("format-list-unordered"),
        tabs->style()->standardIcon(QStyle::SP_TitleBarUnshadeButton)));
    m_listButton->setToolTip(tr("List all tabs"));
    m_listButton->setAccessibleName(tr("All tabs"));
    m_listButton->setMenu(m_listMenu);
    m_listButton->setPopupMode(QToolButton::InstantPopup);
    tabs->setCornerWidget(m_listButton, Qt::TopRightCorner);
}

bool TabNavigator::isClosable(int index) const
{
    if (index < 0 || index >= m_tabs->count())
        return false;
    const QTabBar *bar = m_tabs->tabBar();
    for (const QTabBar::ButtonPosition side : {QTabBar::RightSide, QTabBar::LeftSide}) {
        if (qobject_cast<QAbstractButton *>(bar->tabButton(index, side)))
            return true;
    }
    return false;
}

void TabNavigator::moveBy(int step)
{
    const int count = m_tabs->count();
    if (count < 2)
        return;
    int index = m_tabs->currentIndex();
    // Disabled tabs are passed over, as QTabWidget's own Ctrl+Tab does.
    for (int tried = 0; tried < count; ++tried) {
        index = ((index + step) % count + count) % count;
        if (m_tabs->isTabEnabled(index)) {
            m_tabs->setCurrentIndex(index);
            return;
        }
    }
}

bool TabNavigator::closeCurrent()
{
    const int index = m_tabs->currentIndex();
    if (!isClosable(index))
        return false;
    const QTabBar *bar = m_tabs->tabBar();
    for (const QTabBar::ButtonPosition side : {QTabBar::RightSide, QTabBar::LeftSide}) {
        if (auto *button = qobject_cast<QAbstractButton *>(bar->tabButton(index, side))) {
            button->click();
            return true;
        }
    }
    return false;
}

void TabNavigator::updateListMenu()
{
    m_listMenu->clear();
    const int current = m_tabs->currentIndex();
    for (int index = 0; index < m_tabs->count(); ++index) {
        QAction *action = m_listMenu->addAction(m_tabs->tabIcon(index), m_tabs->tabText(index));
        action->setCheckable(true);
        action->setChecked(index == current);
        action->setEnabled(m_tabs->isTabEnabled(index));
        action->setToolTip(m_tabs->tabToolTip(index));
        connect(action, &QAction::triggered, this,
            [this, page = QPointer<QWidget>(m_tabs->widget(index))] {
                if (page) // closed while the menu was open: nothing to show
                    m_tabs->setCurrentWidget(page);
            });
    }
    m_listMenu->setToolTipsVisible(true);
}

void TabNavigator::updateCloseAction()
{
    m_close->setEnabled(isClosable(m_tabs->currentIndex()));
}

} // namespace sandscope
