#pragma once
// How the isolation probe page asks for local file names (ProbePage::setPrompter): file
// dialogs by default, answers without modal dialogs in tests.

#include <QString>

class QWidget;

namespace sandscope {

// Asks for local file names. The default implementation shows file dialogs.
class ProbePrompter {
public:
    virtual ~ProbePrompter() = default;
    // Where to save; empty = cancelled.
    virtual QString askSavePath(
        QWidget *parent, const QString &title, const QString &suggestedName, const QString &filter)
        = 0;
    // Which file to read; empty = cancelled.
    virtual QString askOpenPath(QWidget *parent, const QString &title, const QString &filter) = 0;
};

class ProbeDialogPrompter : public ProbePrompter {
public:
    QString askSavePath(QWidget *parent, const QString &title, const QString &suggestedName,
        const QString &filter) override;
    QString askOpenPath(QWidget *parent, const QString &title, const QString &filter) override;
};

} // namespace sandscope
