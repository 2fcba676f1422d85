#pragma once
// A run page's search and errors-only filter (RunFilterProxy, the search field, the match
// count). A run whose texts stay in its file is searched by reading it: up to
// slicedAboveNodes() its nodes are judged first, in slices with their progress shown, and the
// result is applied in one turn; a bigger run's search is applied a slice at a time
// (SlicedSearch), its matches shown as they come. A run that keeps its texts builds them while
// the field has the focus, so that the first keystroke does not (bench_runsearch).

#include <QObject>
#include <QPersistentModelIndex>
#include <QString>
#include <QTimer>

#include <optional>
#include <utility>

namespace sandscope {

class RunPage;
class SlicedSearch;

class RunPageSearch : public QObject {
    Q_OBJECT
public:
    explicit RunPageSearch(RunPage *page);

    void apply(const QString &searchText, bool errorsOnly);
    void updateMatchCount();
    // The search field got or lost the focus.
    void fieldFocusChanged(bool focused);

    // At 0.6 µs a node, a result applied at once stays under 50 ms (bench_runopen 100: 58,743
    // nodes in about 35 ms; 1 GB: 510,187 in 240 ms).
    static constexpr qint64 defaultSlicedAboveNodes = 75000;
    qint64 slicedAboveNodes() const { return m_slicedAboveNodes; }
    void setSlicedAboveNodes(qint64 nodes) { m_slicedAboveNodes = nodes; }

private:
    void prepareSlice();
    void searched();

    RunPage *m_page;
    QTimer m_prepareTimer; // texts built, or a search judged, in slices
    // A search judged ahead before it is applied at once (apply()): text, errors only.
    std::optional<std::pair<QString, bool>> m_deferred;
    SlicedSearch *m_sliced = nullptr;
    QPersistentModelIndex m_currentBefore; // a RunModel index: current again when shown
    qint64 m_slicedAboveNodes = defaultSlicedAboveNodes;
};

} // namespace sandscope
