#pragma once
// Exports a run as shown in a RunModel (a file, a session or a live run) to HTML, Markdown or
// the normalised JSON (docs/export.md). Secrets are redacted unless turned off explicitly:
// every text of every node, the raw lines and JSON included, goes through
// CredentialRedactor before any writer sees it.

#include "export/exportedrun.h"
#include "security/credentialredactor.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace sandscope {

class CodeHighlighter;
class RunModel;

class RunExporter {
public:
    enum class Format { Html, Markdown, Json };

    // "html", "md"/"markdown", "json"; nothing for other names.
    static std::optional<Format> formatNamed(const QString &name);
    // The file suffix without the dot: "html", "md", "json".
    static QString suffix(Format format);

    void setRedacting(bool redact) { m_redact = redact; }
    bool redacting() const { return m_redact; }
    // A secret to mask besides the patterns (the API key of the connection).
    void addSecret(const QString &secret) { m_redactor.addSecret(secret); }
    // The highlighter for code in HTML; CodeHighlighter::instance() unless set (not owned).
    void setHighlighter(const CodeHighlighter *highlighter) { m_highlighter = highlighter; }

    // How an export names a local file it was read from: its file name, so that an export
    // shared with others does not show the exporter's home folder; the absolute path only
    // when asked for (`sandscope export --full-source-path`).
    static QString sourceOfFile(const QString &path, bool fullPath = false);

    // The model's tree and summary, redacted when redacting(). skipped: what the reader could
    // not read (LoadedRun::problems), listed in the export.
    ExportedRun snapshot(
        const RunModel &model, const QString &source, const QStringList &skipped = {}) const;
    void redact(ExportedRun *run) const;
    QByteArray render(const ExportedRun &run, Format format) const;

    // Writes all of bytes or nothing (QSaveFile): a failed write leaves no half file and an
    // existing file as it was. False with the reason.
    static bool writeFile(const QString &path, const QByteArray &bytes, QString *errorMessage);

private:
    CredentialRedactor m_redactor;
    const CodeHighlighter *m_highlighter = nullptr;
    bool m_redact = true;
};

} // namespace sandscope
