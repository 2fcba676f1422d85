#pragma once
// Saved isolation probe reports: reading a JSON report back (to show or compare it) and
// writing one as JSON, Markdown or HTML, with one set of error messages for the GUI and the CLI.
// Each message names the file.

#include "probereport/probereport.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QString>

namespace sandscope {

class ProbeReportFile {
    Q_DECLARE_TR_FUNCTIONS(ProbeReportFile)
public:
    enum class Format {
        Json, // what read() takes back
        Markdown, // for people
        Html, // for people, in a browser
    };

    // JSON when the name ends in .json, HTML for .html or .htm (any case), else Markdown.
    static Format formatFor(const QString &fileName);
    // The report as a file of that format holds it.
    static QByteArray contents(const ProbeReport &report, Format format);

    // False, with `error` saying why, when the file cannot be read or is no probe report.
    static bool read(const QString &fileName, ProbeReport *report, QString *error = nullptr);
    // Replaces the file as a whole, or leaves it as it was and gives the reason.
    static bool write(const QString &fileName, const ProbeReport &report, Format format,
        QString *error = nullptr);
};

} // namespace sandscope
