#pragma once
// Base of the preview pages: a message strip above the page's own content, for notes ("long
// lines shortened"), warnings ("not valid UTF-8") and errors ("corrupt PNG").

#include <QString>
#include <QWidget>

class QLabel;
class QVBoxLayout;

namespace sandscope {

class PreviewPage : public QWidget {
    Q_OBJECT
public:
    enum class Severity { Note, Warning, Error };

    explicit PreviewPage(QWidget *parent = nullptr);

    void setMessage(const QString &text, Severity severity);
    void clearMessage();
    QString messageText() const;
    Severity messageSeverity() const { return m_severity; }
    // The message when it is an error, else empty.
    QString errorText() const;

protected:
    // Pages add their content widgets here, below the message strip.
    QVBoxLayout *contentLayout() const { return m_layout; }

private:
    QVBoxLayout *m_layout;
    QLabel *m_message;
    Severity m_severity = Severity::Note;
};

} // namespace sandscope
