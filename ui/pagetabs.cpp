#include "pagetabs.h"

#include <QTabBar>

#include <algorithm>

namespace sandscope {

namespace {

// Characters of a title still shown when tabs shrink (QTabBar keeps 3).
constexpr int keptCharacters = 6;

class CappedTabBar : public QTabBar {
public:
    explicit CappedTabBar(const PageTabs *tabs)
        : QTabBar()
        , m_tabs(tabs)
    {
        setElideMode(Qt::ElideRight);
        setUsesScrollButtons(true);
    }

protected:
    QSize tabSizeHint(int index) const override
    {
        QSize size = QTabBar::tabSizeHint(index);
        const int titleWidth = fontMetrics().horizontalAdvance(tabText(index));
        const int excess = titleWidth - m_tabs->maximumTitleWidth();
        if (excess > 0)
            size.setWidth(size.width() - excess);
        return size;
    }

    QSize minimumTabSizeHint(int index) const override
    {
        QSize size = QTabBar::minimumTabSizeHint(index);
        const QString title = tabText(index);
        if (title.size() > 3) {
            const QFontMetrics metrics = fontMetrics();
            const int kept = metrics.horizontalAdvance(title.left(keptCharacters))
                - metrics.horizontalAdvance(title.left(3));
            size.setWidth(std::min(size.width() + std::max(0, kept), tabSizeHint(index).width()));
        }
        return size;
    }

private:
    const PageTabs *m_tabs;
};

} // namespace

PageTabs::PageTabs(QWidget *parent)
    : QTabWidget(parent)
{
    setTabBar(new CappedTabBar(this));
}

int PageTabs::maximumTitleWidth() const
{
    return fontMetrics().averageCharWidth() * 18;
}

void PageTabs::tabInserted(int index)
{
    QTabWidget::tabInserted(index);
    if (tabToolTip(index).isEmpty())
        setTabToolTip(index, tabText(index).remove(QLatin1Char('&')));
}

} // namespace sandscope
