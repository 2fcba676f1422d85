#pragma once
// Masks credentials in text that leaves the app (exports): the secrets it was told about (the
// API key, through SecretRedactor), token-shaped strings (Anthropic/OpenAI "sk-" keys, GitHub
// and Slack tokens, AWS access key ids, JWTs, bearer credentials, also when written with
// \uXXXX escapes), PEM private-key blocks, Authorization headers, passwords in URLs and on
// mysql command lines, and the values of NAME=value / NAME = value assignments, YAML
// "name: value" lines and "name": "value" JSON members whose name says it is a secret (ends
// in KEY, TOKEN, SECRET, PASSWORD, CREDENTIALS or AUTH), as `env`, a .env file or a config
// file prints them. The name stays, the value becomes SecretRedactor::mask.
//
// JSON text (raw lines, tool input) goes through redactJson: every string literal is decoded,
// redacted as text and encoded again, so an escape such as the "\n" before a token on its own
// line cannot hide it from the rules, and the rest of the JSON stays byte for byte.

#include "security/secretredactor.h"

#include <QByteArray>
#include <QString>

namespace sandscope {

class CredentialRedactor {
public:
    void addSecret(const QString &secret) { m_known.addSecret(secret); }

    QString redact(const QString &text) const;
    // UTF-8 text in and out.
    QByteArray redact(const QByteArray &utf8) const;
    // A JSON document (or a line that may be one, cut short included), redacted on its decoded
    // string values; a member whose name says it is a secret has its string value masked
    // whole. Text that does not start like JSON ('{' or '[') is redacted as text.
    QByteArray redactJson(const QByteArray &json) const;

private:
    // What a JSON member's name says of its value: nothing, a secret unless it is a count
    // (KEY, TOKEN, AUTH), or a secret in any case (PASSWORD, SECRET, ...).
    enum class Member { Plain, Countable, Secret };
    QString redactJsonString(const QString &decoded, Member member) const;

    SecretRedactor m_known;
};

} // namespace sandscope
