#pragma once
// The Compare tab: two runs' deltas at the top (turns, tool calls, errors, tokens, cost,
// duration, outcome), their aligned tool calls side by side (RunComparisonModel, rows tinted
// by CompareDelegate), the selected pair's input and output below with the lines that differ
// highlighted, and the files each run touched.

#include "compare/runcomparison.h"

#include <QWidget>

#include <memory>

class QPlainTextEdit;

namespace sandscope {

class RunComparisonModel;
class TouchedFilesModel;

namespace Ui {
class ComparePage;
}

class ComparePage : public QWidget {
    Q_OBJECT

public:
    explicit ComparePage(QWidget *parent = nullptr);
    ~ComparePage() override;

    void setComparison(const RunComparison &comparison);
    const RunComparison &comparison() const;
    RunComparisonModel *model() const { return m_model; }
    TouchedFilesModel *filesModel() const { return m_files; }
    // Selects a row of the calls view (a model row) and shows its pair below.
    void selectRow(int row);
    QString leftText() const;
    QString rightText() const;
    // The lines highlighted as different in the left and right text.
    int highlightedLines(bool left) const;

private:
    void fillDeltas();
    void showPair(int row);

    std::unique_ptr<Ui::ComparePage> m_ui;
    RunComparisonModel *m_model;
    TouchedFilesModel *m_files;
};

} // namespace sandscope
