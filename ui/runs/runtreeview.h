#pragma once
// The run page's tree (runpage.ui): a QTreeView that can be told to lay its rows out later.
// Expanding a row while a layout is pending only marks it; otherwise each expand() searches
// the view's rows and lays the row out at once, ~40 µs a row when a search shows a thousand
// turns under a run that was collapsed (SlicedSearch, bench_runopen).

#include <QTreeView>

namespace sandscope {

class RunTreeView : public QTreeView {
public:
    using QTreeView::QTreeView;

    // The rows laid out again in the next event loop turn, not now.
    void layoutLater() { scheduleDelayedItemsLayout(); }
};

} // namespace sandscope
