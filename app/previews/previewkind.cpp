#include "previewkind.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QMimeDatabase>
#include <QMimeType>
#include <QRegularExpression>

namespace sandscope {

namespace {

// How many leading lines look like stream-json events; -1 as soon as one does not.
int countStreamEventLines(const QByteArray &head)
{
    static const QStringList eventTypes = {QStringLiteral("system"), QStringLiteral("assistant"),
        QStringLiteral("user"), QStringLiteral("result")};
    const QList<QByteArray> lines = head.split('\n');
    int events = 0;
    for (int i = 0; i < lines.size() && events < 5; ++i) {
        const QByteArray line = lines.at(i).trimmed();
        if (line.isEmpty())
            continue;
        const bool lastAndUnterminated = i == lines.size() - 1;
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError || !document.isObject()) {
            if (lastAndUnterminated && events > 0)
                break; // cut off by the end of a partial read
            return -1;
        }
        if (!eventTypes.contains(document.object().value(QLatin1String("type")).toString()))
            return -1;
        ++events;
    }
    return events;
}

bool hasSuffix(const QString &fileName, std::initializer_list<const char *> suffixes)
{
    const QString suffix = QFileInfo(fileName).suffix().toLower();
    for (const char *candidate : suffixes) {
        if (suffix == QLatin1String(candidate))
            return true;
    }
    return false;
}

// The kind for content known (or assumed) to be text, chosen by the file name.
PreviewChoice textChoice(const QString &fileName, const QMimeType &byName, const QByteArray &head)
{
    const auto choice = [&](PreviewKind kind, const QString &mime) {
        return PreviewChoice {kind, mime};
    };
    const QString nameMime = byName.name();
    if (hasSuffix(fileName, {"jsonl", "ndjson"})) {
        const QString mime = QStringLiteral("application/x-ndjson");
        return choice(
            countStreamEventLines(head) > 0 ? PreviewKind::RunStream : PreviewKind::Text, mime);
    }
    if (byName.inherits(QStringLiteral("application/json"))) {
        // A run log saved as .json is still a run log; one object alone is just JSON.
        if (countStreamEventLines(head) > 1)
            return choice(PreviewKind::RunStream, nameMime);
        return choice(PreviewKind::Json, nameMime);
    }
    if (byName.inherits(QStringLiteral("text/markdown")))
        return choice(PreviewKind::Markdown, nameMime);
    if (byName.inherits(QStringLiteral("text/csv")))
        return choice(PreviewKind::Csv, nameMime);
    if (byName.inherits(QStringLiteral("text/tab-separated-values")))
        return choice(PreviewKind::Tsv, nameMime);
    if (byName.inherits(QStringLiteral("image/svg+xml")))
        return choice(PreviewKind::Svg, nameMime);
    if (countStreamEventLines(head) > 0)
        return choice(PreviewKind::RunStream, QStringLiteral("application/x-ndjson"));
    const bool nameIsText = byName.inherits(QStringLiteral("text/plain"));
    return choice(PreviewKind::Text, nameIsText ? nameMime : QStringLiteral("text/plain"));
}

} // namespace

PreviewChoice choosePreview(const QString &fileName, const QByteArray &head)
{
    const QMimeDatabase database;
    const QMimeType byContent = database.mimeTypeForData(head);
    const QMimeType byName = database.mimeTypeForFile(fileName, QMimeDatabase::MatchExtension);

    // Magic numbers are decisive: a PNG stays a PNG whatever its name.
    if (byContent.inherits(QStringLiteral("image/svg+xml")))
        return {PreviewKind::Svg, byContent.name()};
    if (byContent.name().startsWith(QLatin1String("image/")))
        return {PreviewKind::Image, byContent.name()};
    if (byContent.inherits(QStringLiteral("application/pdf")))
        return {PreviewKind::Pdf, byContent.name()};

    const bool contentIsText = byContent.inherits(QStringLiteral("text/plain"));
    const bool contentSaysNothing = head.isEmpty() || byContent.isDefault();
    if (!contentIsText && !contentSaysNothing)
        return {PreviewKind::Binary, byContent.name()}; // ELF, ZIP, gzip, ...

    // Content is text or unknown: the name tells which text format, or promises a binary
    // format whose decoder will then report the mismatch.
    if (!contentIsText) {
        if (byName.inherits(QStringLiteral("image/svg+xml")))
            return {PreviewKind::Svg, byName.name()};
        if (byName.name().startsWith(QLatin1String("image/")))
            return {PreviewKind::Image, byName.name()};
        if (byName.inherits(QStringLiteral("application/pdf")))
            return {PreviewKind::Pdf, byName.name()};
        if (!head.isEmpty())
            return {PreviewKind::Binary, byContent.name()};
    } else {
        if (byName.name().startsWith(QLatin1String("image/"))
            && !byName.inherits(QStringLiteral("image/svg+xml")))
            return {PreviewKind::Image, byName.name()};
        if (byName.inherits(QStringLiteral("application/pdf")))
            return {PreviewKind::Pdf, byName.name()};
    }
    return textChoice(fileName, byName, head);
}

PreviewChoice choosePreviewForText(const QString &fileName, const QString &text)
{
    const QMimeType byName
        = QMimeDatabase().mimeTypeForFile(fileName, QMimeDatabase::MatchExtension);
    // Enough lines for the stream-json check without converting a huge text.
    return textChoice(fileName, byName, text.left(64 * 1024).toUtf8());
}

QString previewKindName(PreviewKind kind)
{
    switch (kind) {
    case PreviewKind::Text:
        return QStringLiteral("text");
    case PreviewKind::Markdown:
        return QStringLiteral("markdown");
    case PreviewKind::Json:
        return QStringLiteral("json");
    case PreviewKind::Csv:
        return QStringLiteral("csv");
    case PreviewKind::Tsv:
        return QStringLiteral("tsv");
    case PreviewKind::Image:
        return QStringLiteral("image");
    case PreviewKind::Svg:
        return QStringLiteral("svg");
    case PreviewKind::Pdf:
        return QStringLiteral("pdf");
    case PreviewKind::RunStream:
        return QStringLiteral("run-stream");
    case PreviewKind::Binary:
        return QStringLiteral("binary");
    }
    return QString();
}

bool looksLikeClaudeStream(const QByteArray &head)
{
    return countStreamEventLines(head) > 0;
}

namespace {

// Length of the UTF-8 sequence `lead` starts, and the allowed range of its second byte
// (which excludes overlong forms, surrogates and code points above U+10FFFF); 0 if invalid.
int sequenceLength(unsigned char lead, unsigned char *secondMin, unsigned char *secondMax)
{
    *secondMin = 0x80;
    *secondMax = 0xbf;
    if (lead < 0x80)
        return 1;
    if (lead >= 0xc2 && lead <= 0xdf)
        return 2;
    if (lead >= 0xe0 && lead <= 0xef) {
        if (lead == 0xe0)
            *secondMin = 0xa0;
        else if (lead == 0xed)
            *secondMax = 0x9f;
        return 3;
    }
    if (lead >= 0xf0 && lead <= 0xf4) {
        if (lead == 0xf0)
            *secondMin = 0x90;
        else if (lead == 0xf4)
            *secondMax = 0x8f;
        return 4;
    }
    return 0;
}

} // namespace

qsizetype firstInvalidUtf8Offset(const QByteArray &bytes, bool allowTruncatedTail)
{
    const auto *data = reinterpret_cast<const unsigned char *>(bytes.constData());
    const qsizetype size = bytes.size();
    qsizetype i = 0;
    while (i < size) {
        if (data[i] < 0x80) {
            ++i;
            continue;
        }
        unsigned char secondMin = 0;
        unsigned char secondMax = 0;
        const int length = sequenceLength(data[i], &secondMin, &secondMax);
        if (length == 0)
            return i;
        for (int k = 1; k < length; ++k) {
            if (i + k >= size)
                return allowTruncatedTail ? -1 : i;
            const unsigned char low = k == 1 ? secondMin : 0x80;
            const unsigned char high = k == 1 ? secondMax : 0xbf;
            if (data[i + k] < low || data[i + k] > high)
                return i;
        }
        i += length;
    }
    return -1;
}

qsizetype completeUtf8Length(const QByteArray &bytes)
{
    const auto *data = reinterpret_cast<const unsigned char *>(bytes.constData());
    const qsizetype size = bytes.size();
    // Walk back over at most three continuation bytes to the lead byte of the last sequence.
    for (qsizetype back = 1; back <= 4 && back <= size; ++back) {
        const unsigned char byte = data[size - back];
        if ((byte & 0xc0) == 0x80)
            continue;
        unsigned char secondMin = 0;
        unsigned char secondMax = 0;
        const int length = sequenceLength(byte, &secondMin, &secondMax);
        return length > back ? size - back : size;
    }
    return size;
}

QString describePreviewFailure(
    const QString &path, const ApiError &error, const QString &actingHome)
{
    switch (error.kind) {
    case ApiError::Kind::Forbidden: {
        static const QRegularExpression homeOwner(QStringLiteral("^/home/([^/\\s]+)"));
        static const QRegularExpression detailOwner(QStringLiteral("/home/([^/\\s]+)"));
        QString owner = detailOwner.match(error.detail).captured(1);
        if (owner.isEmpty())
            owner = homeOwner.match(path).captured(1);
        if (!owner.isEmpty()) {
            return QStringLiteral("%1 belongs to the account \u201c%2\u201d, not to the user you "
                                  "are acting as. Switch to that user to open it.")
                .arg(path, owner);
        }
        const QString why = error.detail.isEmpty() ? error.message : error.detail;
        return QStringLiteral("You are not allowed to read %1 (%2).").arg(path, why);
    }
    case ApiError::Kind::UnsupportedMediaType:
        return QStringLiteral("The server does not send %1 as text (%2); its raw bytes are "
                              "needed to preview it.")
            .arg(path, error.detail.isEmpty() ? error.message : error.detail);
    case ApiError::Kind::NotFound: {
        // Newer servers answer a path in another user's home like a missing one.
        if (!actingHome.isEmpty() && path.startsWith(QLatin1String("/home/")) && path != actingHome
            && !path.startsWith(actingHome + QLatin1Char('/')))
            return QStringLiteral("%1 is not allowed for this user: it is outside the user's "
                                  "home, and the server does not show it (or it does not "
                                  "exist).")
                .arg(path);
        return QStringLiteral("%1 does not exist (any more).").arg(path);
    }
    default:
        return QStringLiteral("Could not read %1: %2").arg(path, error.toString());
    }
}

} // namespace sandscope
