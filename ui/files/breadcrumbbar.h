#pragma once
// The path of the file browser as clickable segments ("/ › home › alice › chat-7f3a"). A click
// on a segment, or a path typed after pressing the edit button, asks to go there. When the
// segments do not fit, the leading ones collapse into "…" so the end of the path stays visible.

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

class QHBoxLayout;
class QLabel;
class QLineEdit;
class QToolButton;

namespace sandscope {

class BreadcrumbBar : public QWidget {
    Q_OBJECT
public:
    explicit BreadcrumbBar(QWidget *parent = nullptr);

    // An absolute remote path; empty shows nothing.
    void setPath(const QString &absolutePath);
    QString path() const { return m_path; }
    // Shown with a home icon instead of its last name.
    void setHomePath(const QString &homePath);

    // The path each segment stands for, in order ("/", "/home", "/home/alice").
    QStringList segmentPaths() const;
    QList<QToolButton *> segmentButtons() const { return m_segments; }
    // How many leading segments are collapsed into "…".
    int hiddenSegmentCount() const;
    QLineEdit *pathEdit() const { return m_edit; }
    bool isEditing() const;

public Q_SLOTS:
    // Replaces the segments by a line edit with the path; Enter goes there, Esc cancels.
    void startEditing();

Q_SIGNALS:
    void pathActivated(const QString &absolutePath);

protected:
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void rebuild();
    void fitSegments();
    void stopEditing();

    QString m_path;
    QString m_homePath;
    QWidget *m_crumbs;
    QHBoxLayout *m_crumbLayout;
    QToolButton *m_ellipsis;
    QList<QToolButton *> m_segments;
    QList<QLabel *> m_separators; // m_separators[i] precedes m_segments[i + 1]
    QLineEdit *m_edit;
    QToolButton *m_editButton;
};

} // namespace sandscope
