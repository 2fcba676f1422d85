#pragma once
// The window's tab widget. Its bar shrinks every tab the same way when they do not all fit,
// as browsers do, instead of squeezing the short titles of the fixed pages first: a tab is at
// most maximumTitleWidth() wide (a run's long "<user> · <chat> · <time>" is elided, its tool
// tip and the tab list keep it whole) and keeps at least a few characters of its title before
// the bar scrolls. TabNavigator makes every tab reachable also when it scrolls.

#include <QTabWidget>

namespace sandscope {

class PageTabs : public QTabWidget {
    Q_OBJECT
public:
    explicit PageTabs(QWidget *parent = nullptr);

    // The widest a tab's title is shown before it is elided (about 18 characters).
    int maximumTitleWidth() const;

protected:
    // A tab without a tool tip of its own gets its title: an elided title can be read.
    void tabInserted(int index) override;
};

} // namespace sandscope
