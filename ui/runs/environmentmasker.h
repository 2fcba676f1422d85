#pragma once
// Hides the values of NAME=VALUE lines in a text edit while they are typed, like a password
// field, and keeps the names readable: the agent environment holds keys and tokens, which
// must not be readable over a shoulder or in a screenshot. Lines starting with '#' are comments
// and stay readable. Only the painting changes; the text itself is what the user typed.

#include <QSyntaxHighlighter>

namespace sandscope {

class EnvironmentMasker : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit EnvironmentMasker(QTextDocument *document);

    // The characters of `line` that are masked: from after the first '=' to the end.
    static int maskedFrom(const QString &line);

protected:
    void highlightBlock(const QString &text) override;
};

} // namespace sandscope
