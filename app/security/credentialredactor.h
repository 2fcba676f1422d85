#pragma once
// Masks credentials in text that leaves the app (exports): the secrets it was told about (the
// API key, through SecretRedactor), token-shaped strings (Anthropic/OpenAI "sk-" keys, GitHub
// and Slack tokens, AWS access key ids, JWTs, "Bearer" credentials) and the values of
// NAME=value assignments and "name": "value" JSON members whose name says it is a secret
// (ends in KEY, TOKEN, SECRET, PASSWORD, CREDENTIALS or AUTH), as `env` or a .env file prints
// them.
// The name stays, the value becomes SecretRedactor::mask.

#include "security/secretredactor.h"

#include <QByteArray>
#include <QString>

namespace sandscope {

class CredentialRedactor {
public:
    void addSecret(const QString &secret) { m_known.addSecret(secret); }

    QString redact(const QString &text) const;
    // UTF-8 in and out (raw lines, JSON text).
    QByteArray redact(const QByteArray &utf8) const;

private:
    SecretRedactor m_known;
};

} // namespace sandscope
