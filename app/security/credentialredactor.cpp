#include "credentialredactor.h"

#include "util/jsonstring.h"

#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <initializer_list>
#include <vector>

namespace sandscope {

namespace {

const QString mask = QString::fromUtf16(SecretRedactor::mask);

// A name that says its value is a secret. Its one capture group holds the endings that are
// never counts: a digits-only value of a KEY, TOKEN or AUTH name is one (max_tokens=4096), of a
// password or secret it is the secret (a PIN).
constexpr auto secretName
    = "[A-Za-z0-9_.-]*(?:KEY|TOKEN|AUTH|(SECRET|PASSWORD|PASSWD|CREDENTIALS?))";

QRegularExpression caseless(const QString &pattern)
{
    return QRegularExpression(pattern, QRegularExpression::CaseInsensitiveOption);
}

// A rule: what it matches, what the match becomes, and substrings one of which every match
// holds (cheap checks first: most texts hold none, and the expressions cost more than the
// rest of an export together).
// Substrings as texts, made once (the rules are built once; a conversion per text and
// needle cost more than the redaction itself).
struct Needles {
    Needles(std::initializer_list<const char *> utf8)
    {
        for (const char *needle : utf8)
            texts.append(QString::fromUtf8(needle));
    }
    QStringList texts;
};

struct Rule {
    QRegularExpression pattern;
    QString replacement;
    Needles needles;
    Qt::CaseSensitivity needleCase;
    bool byName = false; // matches only where a secret's name is (mayHoldSecretName)
};

const std::vector<Rule> &rules()
{
    static const QString name = QLatin1String(secretName);
    static const std::vector<Rule> all {
        // PEM private keys, the body included; a block cut short is masked to the end.
        {QRegularExpression(
             QStringLiteral("-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\\s\\S]*?"
                            "(?:-----END \\1PRIVATE KEY\\2-----|\\z)")),
            QStringLiteral("-----BEGIN \\1PRIVATE KEY\\2-----") + mask
                + QStringLiteral("-----END \\1PRIVATE KEY\\2-----"),
            {"PRIVATE KEY"}, Qt::CaseSensitive},
        {QRegularExpression(
             QStringLiteral("\\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}"
                            "|\\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"
                            "|\\bxox[abprs]-[A-Za-z0-9-]{10,}"
                            "|\\bAKIA[0-9A-Z]{16}\\b"
                            "|\\beyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}")),
            mask,
            {"sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "AKIA", "eyJ"},
            Qt::CaseSensitive},
        // A token, bearer credential or URL password cut short by a title's "…" (the node's
        // title is its command's first line, cut): what is left of it.
        {QRegularExpression(
             QStringLiteral("(?:\\bsk-|\\bgh[pousr]_|\\bgithub_pat_|\\bxox[abprs]-|\\bAKIA|\\beyJ)"
                            "[A-Za-z0-9_.-]*(?=…)"
                            "|(?<=\\b[Bb]earer )[A-Za-z0-9._~+/-]+(?=…)"
                            "|(?<=://)[^\\s/:@\"'<>\\\\]+:[^\\s/@\"'<>\\\\]+(?=…)")),
            mask, {"…"}, Qt::CaseSensitive},
        // "Bearer x", any case: a short token when it holds a digit (prose says "bearer
        // tokens"), any token from 16 characters.
        {QRegularExpression(QStringLiteral("(\\b(?i:bearer)\\s+)"
                                           "(?:(?=[A-Za-z._~+/-]*[0-9])[A-Za-z0-9._~+/-]{4,}=*"
                                           "|[A-Za-z0-9._~+/-]{16,}=*)")),
            QStringLiteral("\\1") + mask, {"bearer"}, Qt::CaseInsensitive},
        // Authorization headers of any scheme (Basic, Bearer, Token, …) or none.
        {caseless(QStringLiteral("(\\bauthorization\\\\?[\"']?\\s*[:=]\\s*\\\\?[\"']?"
                                 "(?:(?:basic|bearer|token|digest|negotiate)\\s+)?)"
                                 "(?!(?:basic|bearer|token|digest|negotiate)\\b)[^\\s\"'\\\\,;]+")),
            QStringLiteral("\\1") + mask, {"authorization"}, Qt::CaseInsensitive},
        // https://user:password@host: the password.
        {QRegularExpression(QStringLiteral(
             "(\\b[A-Za-z][A-Za-z0-9+.-]*://[^\\s/:@\"'<>\\\\]+:)[^\\s/@\"'<>\\\\]+@")),
            QStringLiteral("\\1") + mask + QLatin1Char('@'), {"://"}, Qt::CaseSensitive},
        // mysql -psecret, mysqldump --password=secret (a bare -p asks for it).
        {QRegularExpression(QStringLiteral(
             "(\\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mariadb(?:-dump)?)"
             "\\b[^\\n;|&]*?\\s(?:-p|--password=))[^\\s;|&]+")),
            QStringLiteral("\\1") + mask, {"mysql", "mariadb"}, Qt::CaseSensitive},
        // NAME=value, NAME = value, NAME="value", at a word start (export FOO_TOKEN=…, env
        // output, .ini files).
        {caseless(QStringLiteral("(?<![A-Za-z0-9_])(%1)([ \\t]*=[ \\t]*)([\"']?)(?!=)"
                                 "(?(2)|(?!\\d+\\b))[^\\s\"'`]+")
                      .arg(name)),
            QStringLiteral("\\1\\3\\4") + mask, {"="}, Qt::CaseSensitive, true},
        // YAML: "  password: value", "- api_key: 'value'".
        {caseless(QStringLiteral("(?m)(^[ \\t]*(?:-[ \\t]+)?[\"']?%1[\"']?[ \\t]*:[ \\t]+[\"']?)"
                                 "(?(2)|(?!\\d+\\b))[^\\s\"'#]+")
                      .arg(name)),
            QStringLiteral("\\1") + mask, {":"}, Qt::CaseSensitive, true},
        // "api_key": "value", also inside JSON that was escaped into a string (\"token\":\"…\").
        {caseless(
             QStringLiteral("(\\\\?\"%1\\\\?\"\\s*:\\s*\\\\?\")((?:[^\"\\\\]|\\\\[^\"])+)(\\\\?\")")
                 .arg(name)),
            QStringLiteral("\\1") + mask + QStringLiteral("\\4"), {"\""}, Qt::CaseSensitive, true},
    };
    return all;
}

bool containsAny(const QString &text, const Needles &needles, Qt::CaseSensitivity sensitivity)
{
    return std::any_of(needles.texts.cbegin(), needles.texts.cend(),
        [&](const QString &needle) { return text.contains(needle, sensitivity); });
}

// lower: the text in lower case.
bool mayHoldSecretName(const QString &lower)
{
    static const Needles names {"key", "token", "secret", "passw", "credential", "auth"};
    return containsAny(lower, names, Qt::CaseSensitive);
}

const QRegularExpression &secretMemberName()
{
    static const QRegularExpression pattern
        = caseless(QStringLiteral("^%1$").arg(QLatin1String(secretName)));
    return pattern;
}

// Words spelled (partly) with \uXXXX escapes, as JSON text escaped once more shows them
// ("\u0073k-ant-…").
const QRegularExpression &escapedWord()
{
    static const QRegularExpression pattern(
        QStringLiteral("(?:\\\\u[0-9A-Fa-f]{4}|[A-Za-z0-9_.-])*\\\\u[0-9A-Fa-f]{4}"
                       "(?:\\\\u[0-9A-Fa-f]{4}|[A-Za-z0-9_.-])*"));
    return pattern;
}

} // namespace

QString CredentialRedactor::redact(const QString &text) const
{
    if (text.isEmpty())
        return text;
    QString out = m_known.redact(text);
    if (out.contains(QLatin1String("\\u"))) {
        // A word the escapes spell into a secret is masked whole.
        QString unescaped;
        qsizetype done = 0;
        QRegularExpressionMatchIterator words = escapedWord().globalMatch(out);
        while (words.hasNext()) {
            const QRegularExpressionMatch word = words.next();
            const QString decoded
                = jsonstring::decode(QLatin1Char('"') + word.captured() + QLatin1Char('"'));
            unescaped += out.mid(done, word.capturedStart() - done);
            unescaped += redact(decoded) != decoded ? mask : word.captured();
            done = word.capturedEnd();
        }
        out = unescaped + out.mid(done);
    }
    // Case-insensitive needles are looked for in a lower-case copy made once (the folding
    // search cost a quarter of an export). Masking only removes text, so the copy made before
    // holds every needle the text still holds.
    const QString lower = out.toLower();
    const bool named = mayHoldSecretName(lower);
    for (const Rule &rule : rules()) {
        if (rule.byName && !named)
            continue;
        if (rule.needleCase == Qt::CaseInsensitive
                ? containsAny(lower, rule.needles, Qt::CaseSensitive)
                : containsAny(out, rule.needles, Qt::CaseSensitive))
            out.replace(rule.pattern, rule.replacement);
    }
    return out;
}

QByteArray CredentialRedactor::redact(const QByteArray &utf8) const
{
    if (utf8.isEmpty())
        return utf8;
    return redact(QString::fromUtf8(utf8)).toUtf8();
}

QString CredentialRedactor::redactJsonString(const QString &decoded, Member member) const
{
    if (member == Member::Plain && decoded.size() < 4)
        return decoded; // too short for any secret (SecretRedactor ignores those too)
    const bool count = member == Member::Countable
        && std::all_of(decoded.cbegin(), decoded.cend(), [](QChar c) { return c.isDigit(); });
    if (member != Member::Plain && !decoded.isEmpty() && !count)
        return mask;
    return redact(decoded);
}

QByteArray CredentialRedactor::redactJson(const QByteArray &json) const
{
    const qsizetype start = std::find_if(json.cbegin(), json.cend(), [](char c) {
        return c != ' ' && c != '\t' && c != '\n' && c != '\r';
    }) - json.cbegin();
    if (start >= json.size() || (json.at(start) != '{' && json.at(start) != '['))
        return redact(json);
    QByteArray out;
    out.reserve(json.size());
    Member member = Member::Plain; // what the last key names, until its value has come
    qsizetype i = 0;
    while (i < json.size()) {
        const char c = json.at(i);
        if (c != '"') {
            if (c == ',' || c == '{' || c == '[')
                member = Member::Plain;
            out.append(c);
            ++i;
            continue;
        }
        qsizetype end = i + 1; // one past the closing quote, or the end of a literal cut short
        while (end < json.size() && json.at(end) != '"')
            end += json.at(end) == '\\' ? 2 : 1;
        end = std::min<qsizetype>(end + 1, json.size());
        const QByteArray literal = json.mid(i, end - i);
        qsizetype next = end;
        while (next < json.size()
            && (json.at(next) == ' ' || json.at(next) == '\t' || json.at(next) == '\n'
                || json.at(next) == '\r'))
            ++next;
        const bool isKey = next < json.size() && json.at(next) == ':';
        const QString decoded = jsonstring::decode(QString::fromUtf8(literal));
        const QString redacted = redactJsonString(decoded, isKey ? Member::Plain : member);
        if (redacted == decoded) {
            out.append(literal);
        } else {
            out.append('"');
            out.append(jsonstring::escape(redacted).toUtf8());
            out.append('"');
        }
        member = Member::Plain;
        if (isKey) {
            const QRegularExpressionMatch name = secretMemberName().match(decoded);
            if (name.hasMatch())
                member = name.capturedStart(1) >= 0 ? Member::Secret : Member::Countable;
        }
        i = end;
    }
    return out;
}

} // namespace sandscope
