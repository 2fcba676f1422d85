#pragma once
// Gives one column of a tree view the width the others leave free, never less than a minimum:
// a wider window widens that column (Sessions' titles), a narrower one lets the table scroll
// sideways instead of squeezing it. Unlike QHeaderView::Stretch the column keeps its minimum
// and every other column stays resizable by hand; the spare width follows both.

#include <QObject>
#include <QPointer>

class QTreeView;

namespace sandscope {

class SpareWidthColumn : public QObject {
    Q_OBJECT
public:
    SpareWidthColumn(QTreeView *view, int column, int minimumWidth);

    void fit();
    // A column that comes (a fleet's Member column) may take some of the minimum.
    void setMinimumWidth(int minimumWidth);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QTreeView *m_view;
    // Compared with, never called: events still reach the filter while the view is destroyed.
    QPointer<QWidget> m_viewport;
    int m_column;
    int m_minimumWidth;
    bool m_fitting = false;
};

} // namespace sandscope
