#pragma once
// Masks secrets (the API key, CLI secrets) in text that is shown, logged or exported,
// including occurrences split across consecutive chunks of a stream.

#include <QString>
#include <QStringList>

namespace sandscope {

class SecretRedactor {
public:
    static constexpr auto mask = u"••••••";

    void addSecret(const QString &secret); // secrets shorter than 4 characters are ignored
    void clear();
    bool isEmpty() const { return m_secrets.isEmpty(); }

    // Whole-text redaction.
    QString redact(const QString &text) const;

    // Streaming: returns what can safely be shown now; holds back a tail that might be the
    // beginning of a secret (at most the longest secret's length - 1 characters). finish()
    // returns the held-back rest. The concatenated output equals redact() of the whole text,
    // however the text was split. Overlapping or adjacent secrets become one mask.
    QString feed(const QString &chunk);
    QString finish();
    qsizetype heldSize() const { return m_held.size(); }

private:
    struct StreamState {
        bool maskOpen = false; // the output so far ends in a mask that may continue
        qsizetype coveredPrefix = 0; // leading held characters already inside that mask
    };
    QString emitUpTo(const QString &text, qsizetype end, StreamState &state) const;
    qsizetype possibleSecretStart(const QString &text) const;

    QStringList m_secrets;
    QString m_held;
    StreamState m_state;
};

} // namespace sandscope
