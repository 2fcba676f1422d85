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
    // beginning of a secret. finish() returns the held-back rest.
    QString feed(const QString &chunk);
    QString finish();

private:
    QStringList m_secrets;
    QString m_held;
};

} // namespace sandscope
