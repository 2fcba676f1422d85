#pragma once
// Picks the two runs of a comparison: each side is one of the open run tabs or a file
// (recording, stream-json capture, transcript) chosen here.

#include <QDialog>
#include <QPointer>
#include <QVector>

#include <memory>

class QComboBox;

namespace sandscope {

class RunPage;

namespace Ui {
class CompareRunsDialog;
}

class CompareRunsDialog : public QDialog {
    Q_OBJECT

public:
    struct OpenRun {
        QString title;
        QPointer<RunPage> page;
    };
    // One side as chosen: a tab's page, or a file path.
    struct Choice {
        QString title;
        QPointer<RunPage> page;
        QString filePath;
        bool isValid() const { return page || !filePath.isEmpty(); }
    };

    explicit CompareRunsDialog(const QVector<OpenRun> &runs, QWidget *parent = nullptr);
    ~CompareRunsDialog() override;

    Choice left() const;
    Choice right() const;
    // Adds a file to both lists and selects it on that side (what the File… buttons do).
    void addFile(const QString &path, bool left);

private:
    Choice choiceOf(const QComboBox *combo) const;
    void chooseFile(bool left);
    void updateOk();

    std::unique_ptr<Ui::CompareRunsDialog> m_ui;
    QVector<OpenRun> m_runs;
};

} // namespace sandscope
