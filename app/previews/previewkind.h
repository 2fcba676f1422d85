#pragma once
// Chooses how the file browser previews a file, from its name and its first bytes. Content wins
// over the name when it is unambiguous (PNG bytes named .txt are an image); otherwise the name
// picks among text formats. Also the text checks the previews need: UTF-8 validity and the
// Claude stream-json signature of a run log.

#include "server/apierror.h"

#include <QByteArray>
#include <QString>

namespace sandscope {

enum class PreviewKind {
    Text, // plain text and source code
    Markdown,
    Json,
    Csv, // comma-separated
    Tsv, // tab-separated
    Image, // raster images QImageReader may decode (PNG, JPEG, GIF, WebP, ...)
    Svg,
    Pdf,
    RunStream, // JSON lines written by `claude --output-format stream-json`
    Binary, // anything else: hex dump
};

struct PreviewChoice {
    PreviewKind kind = PreviewKind::Binary;
    QString mimeType; // the MIME type the choice is based on, e.g. "image/png"
};

// `head` is the start of the file (a few KiB are enough; more is fine). The name alone decides
// only when the content says nothing specific (plain text or nothing at all).
PreviewChoice choosePreview(const QString &fileName, const QByteArray &head);

// For text that arrived already decoded (GET /files/read); never an image or PDF.
PreviewChoice choosePreviewForText(const QString &fileName, const QString &text);

QString previewKindName(PreviewKind kind);

// True when the first non-empty lines (up to five) are all JSON objects whose "type" is one of
// system/assistant/user/result, as in a Claude stream-json log. A line cut off at the end of a
// partial `head` is ignored.
bool looksLikeClaudeStream(const QByteArray &head);

// Offset of the first byte that is not part of valid UTF-8, or -1 when all is valid. With
// allowTruncatedTail, a multi-byte sequence cut off by the end of a prefix counts as valid.
qsizetype firstInvalidUtf8Offset(const QByteArray &bytes, bool allowTruncatedTail);

// Length of `bytes` without an incomplete UTF-8 sequence at its very end (for decoding a prefix).
qsizetype completeUtf8Length(const QByteArray &bytes);

// One sentence for the preview when reading `path` failed. A 403 names the account the files
// belong to (from the server's "Access denied: /home/<x> belongs to another user", else from
// the path); a 415 says the server will not send the file as text.
// `actingHome`: the acting user's home, when known (a path outside it that the server
// reports missing is most likely one it keeps from this user).
QString describePreviewFailure(
    const QString &path, const ApiError &error, const QString &actingHome = {});

} // namespace sandscope
