// libFuzzer target for CredentialRedactor and TerminalSafe. For any input:
//  * redactJson never breaks JSON: a valid document stays valid, with the same structure;
//  * a secret of each form (the input picks the form, its random part, the separators and
//    where it goes) planted in a string of random text inside a JSON document is gone after
//    redactJson, and after redact of the decoded text;
//  * TerminalSafe::line leaves nothing a terminal acts on, text keeps only \n and \t of them.

#include "security/credentialredactor.h"
#include "util/terminalsafe.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <cstdint>
#include <cstdlib>

namespace {

void check(bool condition)
{
    if (!condition)
        std::abort();
}

bool isActive(char16_t unit)
{
    return unit < 0x20 || (unit >= 0x7f && unit <= 0x9f) || (unit >= 0x202a && unit <= 0x202e)
        || (unit >= 0x2066 && unit <= 0x2069);
}

// A random part made of letters and digits only, at least 12 long, with a letter and a digit.
QString coreFrom(const uint8_t *data, size_t size)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    QString core;
    for (size_t i = 0; i < size && core.size() < 40; ++i)
        core += QLatin1Char(alphabet[data[i] % 62]);
    while (core.size() < 12)
        core += QLatin1Char('Q');
    return core + QStringLiteral("x7"); // a letter: a digits-only KEY or TOKEN value is a count
}

QString planted(int form, const QString &core)
{
    switch (form % 10) {
    case 0:
        return QStringLiteral("sk-ant-api03-") + core;
    case 1:
        return QStringLiteral("ghp_") + QString(core + core).left(36);
    case 2:
        return QStringLiteral("Authorization: Basic ") + core;
    case 3:
        return QStringLiteral("bearer ") + core;
    case 4:
        return QStringLiteral("-----BEGIN EC PRIVATE KEY-----\n") + core
            + QStringLiteral("\n-----END EC PRIVATE KEY-----");
    case 5:
        return QStringLiteral("https://u:") + core + QStringLiteral("@h/x");
    case 6:
        return QStringLiteral("mysql -u r -p") + core;
    case 7:
        return QStringLiteral("\\u0073k-ant-") + core;
    case 8:
        return QStringLiteral("API_TOKEN = ") + core;
    default:
        return QStringLiteral("\npassword: ") + core;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const sandscope::CredentialRedactor redactor;

    // Arbitrary bytes: valid JSON stays valid JSON of the same shape.
    QJsonParseError error;
    const QJsonDocument before = QJsonDocument::fromJson(bytes, &error);
    const QByteArray redacted = redactor.redactJson(bytes);
    if (error.error == QJsonParseError::NoError && !before.isNull()) {
        const QJsonDocument after = QJsonDocument::fromJson(redacted, &error);
        check(error.error == QJsonParseError::NoError);
        check(after.isObject() == before.isObject() && after.isArray() == before.isArray());
    }

    // A planted secret (unless the text around it holds its random part already).
    if (size >= 4) {
        const int form = data[0];
        const size_t split = 2 + data[1] % (size - 2);
        const QString core = coreFrom(data + 2, split - 2);
        const QString text = QString::fromUtf8(bytes.mid(qsizetype(split)));
        const qsizetype at = text.isEmpty() ? 0 : data[2] % (text.size() + 1);
        const QString secret = QLatin1Char('\n') + planted(form, core) + QLatin1Char('\n');
        QString value = text;
        value.insert(
            at > 0 && at < value.size() && value.at(at).isLowSurrogate() ? at + 1 : at, secret);
        if (!text.contains(core)) {
            const QByteArray json
                = QJsonDocument(QJsonObject {{QStringLiteral("content"), QJsonArray {value}}})
                      .toJson(QJsonDocument::Compact);
            check(!redactor.redactJson(json).contains(core.toUtf8()));
            check(!redactor.redact(value).contains(core));
        }
    }

    // The terminal sanitiser.
    const QString text = QString::fromUtf8(bytes);
    for (const QChar c : sandscope::TerminalSafe::line(text))
        check(!isActive(c.unicode()));
    for (const QChar c : sandscope::TerminalSafe::text(text))
        check(!isActive(c.unicode()) || c == QLatin1Char('\n') || c == QLatin1Char('\t'));
    return 0;
}
