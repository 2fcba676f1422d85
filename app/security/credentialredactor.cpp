#include "credentialredactor.h"

#include <QRegularExpression>

#include <algorithm>
#include <initializer_list>

namespace sandscope {

namespace {

const QString mask = QString::fromUtf16(SecretRedactor::mask);

// A name that says its value is a secret; digits-only values (max_tokens=4096) are counts.
constexpr auto secretName = "[A-Za-z0-9_.-]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|AUTH)";

const QRegularExpression &assignment()
{
    // NAME=value and NAME="value", at a word start (export FOO_TOKEN=…, env output).
    static const QRegularExpression pattern(
        QStringLiteral("(?<![A-Za-z0-9_])(%1)=(\"?)(?!\\d+\\b)([^\\s\"'`]+)")
            .arg(QLatin1String(secretName)),
        QRegularExpression::CaseInsensitiveOption);
    return pattern;
}

const QRegularExpression &jsonMember()
{
    // "api_key": "value", also inside JSON that was escaped into a string (\"token\":\"…\").
    static const QRegularExpression pattern(
        QStringLiteral("(\\\\?\"%1\\\\?\"\\s*:\\s*\\\\?\")((?:[^\"\\\\]|\\\\[^\"])+)(\\\\?\")")
            .arg(QLatin1String(secretName)),
        QRegularExpression::CaseInsensitiveOption);
    return pattern;
}

const QRegularExpression &tokenShape()
{
    static const QRegularExpression pattern(
        QStringLiteral("\\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}"
                       "|\\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"
                       "|\\bxox[abprs]-[A-Za-z0-9-]{10,}"
                       "|\\bAKIA[0-9A-Z]{16}\\b"
                       "|\\beyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}"
                       "|(?<=\\bBearer )[A-Za-z0-9._~+/-]{12,}=*"));
    return pattern;
}

// Cheap substring checks before the expressions: most texts hold none of these, and the
// expressions cost more than the rest of an export together.
bool contains(const QString &text, const std::initializer_list<const char *> &needles,
    Qt::CaseSensitivity sensitivity)
{
    return std::any_of(needles.begin(), needles.end(),
        [&](const char *needle) { return text.contains(QLatin1String(needle), sensitivity); });
}

bool mayHoldToken(const QString &text)
{
    return contains(text,
        {"sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "AKIA", "eyJ",
            "Bearer "},
        Qt::CaseSensitive);
}

bool mayHoldSecretName(const QString &text)
{
    return contains(
        text, {"key", "token", "secret", "passw", "credential", "auth"}, Qt::CaseInsensitive);
}

} // namespace

QString CredentialRedactor::redact(const QString &text) const
{
    if (text.isEmpty())
        return text;
    QString out = m_known.redact(text);
    if (mayHoldToken(out))
        out.replace(tokenShape(), mask);
    if (mayHoldSecretName(out)) {
        out.replace(assignment(), QStringLiteral("\\1=\\2") + mask);
        out.replace(jsonMember(), QStringLiteral("\\1") + mask + QStringLiteral("\\3"));
    }
    return out;
}

QByteArray CredentialRedactor::redact(const QByteArray &utf8) const
{
    if (utf8.isEmpty())
        return utf8;
    return redact(QString::fromUtf8(utf8)).toUtf8();
}

} // namespace sandscope
