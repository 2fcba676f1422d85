#pragma once
// Every page of a QTabWidget within reach, whatever its tab bar shows: the keyboard moves
// between tabs (Ctrl+Tab and Ctrl+PgDown forward, Ctrl+Shift+Tab and Ctrl+PgUp back, both
// wrapping) and closes the tab in front (Ctrl+W) when it is closable, and a button in the tab
// bar's corner lists every tab (its icon and title, the one in front checked), as browsers'
// and Qt Creator's tab lists do: also the tabs a full bar scrolled out of view (PageTabs
// elides titles first).
//
// A tab is closable when it carries a close button (RunTabs::addClosableTab); Close Tab
// clicks that button, so the keyboard closes a tab exactly as the mouse does. The fixed pages
// have none and are never closed.

#include <QObject>

class QAction;
class QMenu;
class QTabWidget;
class QToolButton;

namespace sandscope {

class TabNavigator : public QObject {
    Q_OBJECT
public:
    explicit TabNavigator(QTabWidget *tabs, QObject *parent = nullptr);

    // The window's actions (shortcuts, for its menus): the next and the previous tab, the tab
    // in front closed (enabled only while that tab is closable).
    QAction *nextAction() const { return m_next; }
    QAction *previousAction() const { return m_previous; }
    QAction *closeAction() const { return m_close; }
    // The corner button and the menu of every tab it opens.
    QToolButton *listButton() const { return m_listButton; }
    QMenu *listMenu() const { return m_listMenu; }

    bool isClosable(int index) const;
    // Moves `step` tabs on from the one in front, wrapping at either end.
    void moveBy(int step);
    // Closes the tab in front when it is closable; false (nothing happens) otherwise.
    bool closeCurrent();
    // Fills the list with the tabs as they are now (done each time it opens).
    void updateListMenu();

private:
    void updateCloseAction();

    QTabWidget *m_tabs;
    QAction *m_next;
    QAction *m_previous;
    QAction *m_close;
    QToolButton *m_listButton;
    QMenu *m_listMenu;
};

} // namespace sandscope
