#pragma once
// A slow job of the window (reading and aligning runs to compare, rendering an export) on a
// worker thread behind a window-modal progress dialog with Cancel, so a big run never freezes
// the window. The job polls the cancel flag where it can stop; the dialog shows only when the
// job takes longer than 400 ms.

#include <QString>

#include <atomic>
#include <functional>

class QWidget;

namespace sandscope {

class BackgroundTask {
public:
    using Work = std::function<void(const std::atomic_bool &cancelled)>;
    using Done = std::function<void(bool cancelled)>;

    // Runs `work` on a new thread; then `done` on parent's thread, with whether Cancel was
    // pressed. The progress dialog (named objectName, for tests) says `label`.
    static void start(
        QWidget *parent, const QString &label, const QString &objectName, Work work, Done done);
};

} // namespace sandscope
