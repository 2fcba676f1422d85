#pragma once
// A non-modal message strip for errors, warnings and notes: the window stays usable while it
// is shown, and the user dismisses it (or the next message replaces it).

#include <QFrame>
#include <QString>

class QLabel;
class QToolButton;

namespace sandscope {

class MessageBar : public QFrame {
    Q_OBJECT
public:
    enum class Level { Information, Warning, Error };
    Q_ENUM(Level)

    explicit MessageBar(QWidget *parent = nullptr);

    void showMessage(const QString &text, Level level);
    void dismiss();

    QString text() const;
    Level level() const { return m_level; }

Q_SIGNALS:
    void dismissed();

private:
    QLabel *m_icon;
    QLabel *m_text;
    QToolButton *m_close;
    Level m_level = Level::Information;
};

} // namespace sandscope
