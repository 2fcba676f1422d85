#include "sparewidthcolumn.h"

#include <QEvent>
#include <QHeaderView>
#include <QTreeView>

namespace sandscope {

SpareWidthColumn::SpareWidthColumn(QTreeView *view, int column, int minimumWidth)
    : QObject(view)
    , m_view(view)
    , m_viewport(view->viewport())
    , m_column(column)
    , m_minimumWidth(minimumWidth)
{
    QHeaderView *header = view->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(column, QHeaderView::Interactive);
    view->viewport()->installEventFilter(this);
    connect(header, &QHeaderView::sectionResized, this, [this](int section) {
        if (section != m_column)
            fit();
    });
    connect(header, &QHeaderView::sectionCountChanged, this, &SpareWidthColumn::fit);
}

void SpareWidthColumn::fit()
{
    if (m_fitting || !m_viewport)
        return;
    QHeaderView *header = m_view->header();
    if (m_column >= header->count())
        return;
    int others = 0;
    for (int section = 0; section < header->count(); ++section) {
        if (section != m_column && !header->isSectionHidden(section))
            others += header->sectionSize(section);
    }
    m_fitting = true;
    header->resizeSection(m_column, std::max(m_minimumWidth, m_viewport->width() - others));
    m_fitting = false;
}

void SpareWidthColumn::setMinimumWidth(int minimumWidth)
{
    m_minimumWidth = minimumWidth;
    fit();
}

bool SpareWidthColumn::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Resize && watched == m_viewport)
        fit();
    return QObject::eventFilter(watched, event);
}

} // namespace sandscope
