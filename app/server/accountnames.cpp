#include "accountnames.h"

#include "server/connection.h"

#include <QCryptographicHash>

#include <algorithm>

namespace sandscope {

namespace {

constexpr qsizetype maximumSlugNameLength = 32;
constexpr qsizetype hashLength = 8;

// The id lower-cased, reduced to [a-z0-9].
QString cleanedId(const QString &userId)
{
    QString cleaned;
    for (const QChar c : userId.toLower()) {
        const char16_t code = c.unicode();
        if ((code >= u'a' && code <= u'z') || (code >= u'0' && code <= u'9'))
            cleaned.append(c);
    }
    return cleaned;
}

QString shortHash(const QString &userId)
{
    const QByteArray digest = QCryptographicHash::hash(userId.toUtf8(), QCryptographicHash::Sha256);
    return QString::fromLatin1(digest.toHex().left(hashLength));
}

bool startsWithDigit(const QString &text)
{
    return !text.isEmpty() && text.at(0).isDigit();
}

QString firstEightAlnumName(const QString &userId, const QString &prefix)
{
    const QString cleaned = cleanedId(userId);
    const QString core = cleaned.size() >= 4 ? cleaned.left(8) : shortHash(userId);
    QString name = prefix + core;
    if (startsWithDigit(name)) // Linux account names must not start with a digit
        name.prepend(QLatin1Char('u'));
    return name;
}

QString slugWithHashName(const QString &userId, const QString &prefix)
{
    const QString cleaned = cleanedId(userId);
    const QString hash = shortHash(userId);
    if (cleaned.size() < 3)
        return prefix + QLatin1Char('h') + hash;
    const QString effectivePrefix
        = prefix.isEmpty() && startsWithDigit(cleaned) ? QStringLiteral("u") : prefix;
    const qsizetype slugLength
        = std::max<qsizetype>(0, maximumSlugNameLength - effectivePrefix.size() - 1 - hashLength);
    return effectivePrefix + cleaned.left(slugLength) + QLatin1Char('_') + hash;
}

} // namespace

QString predictAccountName(const QString &userId, AccountRule rule, const QString &prefix)
{
    switch (rule) {
    case AccountRule::FirstEightAlnum:
        return firstEightAlnumName(userId, prefix);
    case AccountRule::SlugWithHash:
        return slugWithHashName(userId, prefix);
    }
    return {};
}

bool explainAccountName(
    const QString &userId, const QString &observed, const QString &prefix, AccountRule *rule)
{
    return explainAccountName(userId, observed, prefix, rule, nullptr);
}

bool explainAccountName(const QString &userId, const QString &observed, const QString &prefix,
    AccountRule *rule, QString *detectedPrefix)
{
    static constexpr AccountRule rules[]
        = {AccountRule::FirstEightAlnum, AccountRule::SlugWithHash};
    const auto report = [&](AccountRule matched, const QString &matchedPrefix) {
        if (rule)
            *rule = matched;
        if (detectedPrefix)
            *detectedPrefix = matchedPrefix;
        return true;
    };
    // The configured prefix first, for both rules: "hfb8e20fc" is the SlugWithHash name
    // of "ab" and must not be read as FirstEightAlnum with a prefix "h".
    for (const AccountRule candidate : rules) {
        if (predictAccountName(userId, candidate, prefix) == observed)
            return report(candidate, prefix);
    }
    // The server's OPEN_TERMINAL_USER_PREFIX may differ from what the client assumes: try
    // every leading part of the observed name as the prefix.
    for (const AccountRule candidate : rules) {
        for (qsizetype length = 1; length < observed.size(); ++length) {
            const QString candidatePrefix = observed.left(length);
            if (candidatePrefix == prefix)
                continue;
            if (predictAccountName(userId, candidate, candidatePrefix) == observed)
                return report(candidate, candidatePrefix);
        }
    }
    return false;
}

QString userIdForAccount(const QString &account, const QString &knownPrefix)
{
    const auto explained = [&account](const QString &candidate, const QString &prefix) {
        if (candidate.size() < 4 || !validateUserId(candidate))
            return false;
        return predictAccountName(candidate, AccountRule::FirstEightAlnum, prefix) == account
            || predictAccountName(candidate, AccountRule::SlugWithHash, prefix) == account;
    };
    // The id a split of the name proposes: the rest, or the rest without "_<hash>".
    const auto candidates = [&account](qsizetype split) {
        QStringList found {account.mid(split)};
        const qsizetype stem = account.size() - split - hashLength - 1;
        if (stem > 0 && account.at(account.size() - hashLength - 1) == QLatin1Char('_'))
            found.append(account.mid(split, stem));
        return found;
    };
    if (!knownPrefix.isEmpty() && account.startsWith(knownPrefix)) {
        for (const QString &candidate : candidates(knownPrefix.size())) {
            if (explained(candidate, knownPrefix))
                return candidate;
        }
    }
    // The prefix is not published: try each split of the name, the longest id first.
    for (qsizetype split = 0; split < account.size(); ++split) {
        for (const QString &candidate : candidates(split)) {
            if (explained(candidate, account.left(split)))
                return candidate;
        }
    }
    return QString();
}

} // namespace sandscope
