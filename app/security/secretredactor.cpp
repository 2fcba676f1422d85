#include "secretredactor.h"

#include <QVector>

#include <algorithm>
#include <utility>

namespace sandscope {

namespace {

constexpr qsizetype minimumSecretLength = 4;

struct Range {
    qsizetype start;
    qsizetype end;
};

// Sorted, merged ranges of `text` covered by any occurrence of any secret. Overlapping and
// touching occurrences merge, so one mask hides them all (and hides where one ends).
QVector<Range> coveredRanges(
    const QString &text, const QStringList &secrets, qsizetype coveredPrefix)
{
    QVector<Range> ranges;
    if (coveredPrefix > 0)
        ranges.append({0, coveredPrefix});
    for (const QString &secret : secrets) {
        // Step by one character so that overlapping occurrences ("aaaa" in "aaaaa") count.
        for (qsizetype at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1))
            ranges.append({at, at + secret.size()});
    }
    std::sort(ranges.begin(), ranges.end(),
        [](const Range &a, const Range &b) { return a.start < b.start; });
    QVector<Range> merged;
    for (const Range &range : std::as_const(ranges)) {
        if (!merged.isEmpty() && range.start <= merged.last().end)
            merged.last().end = std::max(merged.last().end, range.end);
        else
            merged.append(range);
    }
    return merged;
}

} // namespace

void SecretRedactor::addSecret(const QString &secret)
{
    if (secret.size() < minimumSecretLength || m_secrets.contains(secret))
        return;
    m_secrets.append(secret);
}

void SecretRedactor::clear()
{
    m_secrets.clear();
}

QString SecretRedactor::redact(const QString &text) const
{
    StreamState state;
    return emitUpTo(text, text.size(), state);
}

// Writes text[0, end) with its covered ranges masked and records in `state` whether the last
// mask reaches `end` (and how far beyond it), so that the next call continues that mask
// instead of starting a second one.
QString SecretRedactor::emitUpTo(const QString &text, qsizetype end, StreamState &state) const
{
    static const QString maskText = QString::fromUtf16(mask);
    const QVector<Range> ranges = coveredRanges(text, m_secrets, state.coveredPrefix);
    QString out;
    qsizetype position = 0;
    StreamState next;
    for (const Range &range : ranges) {
        if (range.start >= end)
            break;
        out.append(text.constData() + position, range.start - position);
        if (range.start > 0 || !state.maskOpen)
            out.append(maskText);
        position = std::min(range.end, end);
        if (range.end >= end) {
            next.maskOpen = true;
            next.coveredPrefix = range.end - end;
        }
    }
    if (position < end)
        out.append(text.constData() + position, end - position);
    state = next;
    return out;
}

// Start of the longest suffix of `text` that is a proper prefix of a secret: from there on
// the text might still turn into a secret once more input arrives.
qsizetype SecretRedactor::possibleSecretStart(const QString &text) const
{
    qsizetype longest = 0;
    for (const QString &secret : m_secrets) {
        const qsizetype limit = std::min<qsizetype>(secret.size() - 1, text.size());
        for (qsizetype length = limit; length > longest; --length) {
            if (text.endsWith(QStringView(secret).left(length))) {
                longest = length;
                break;
            }
        }
    }
    return text.size() - longest;
}

QString SecretRedactor::feed(const QString &chunk)
{
    QString text = m_held + chunk;
    const qsizetype holdFrom = possibleSecretStart(text);
    if (holdFrom == 0) {
        m_held = std::move(text);
        return {};
    }
    QString out = emitUpTo(text, holdFrom, m_state);
    m_held = text.mid(holdFrom);
    return out;
}

QString SecretRedactor::finish()
{
    QString out = emitUpTo(m_held, m_held.size(), m_state);
    m_held.clear();
    m_state = StreamState();
    return out;
}

} // namespace sandscope
