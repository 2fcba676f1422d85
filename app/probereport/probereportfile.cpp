#include "probereportfile.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSaveFile>

namespace sandscope {

namespace {

bool fail(QString *error, const QString &reason)
{
    if (error)
        *error = reason;
    return false;
}

} // namespace

ProbeReportFile::Format ProbeReportFile::formatFor(const QString &fileName)
{
    if (fileName.endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
        return Format::Json;
    if (fileName.endsWith(QLatin1String(".html"), Qt::CaseInsensitive)
        || fileName.endsWith(QLatin1String(".htm"), Qt::CaseInsensitive))
        return Format::Html;
    return Format::Markdown;
}

QByteArray ProbeReportFile::contents(const ProbeReport &report, Format format)
{
    switch (format) {
    case Format::Json:
        return QJsonDocument(report.toJson()).toJson(QJsonDocument::Indented);
    case Format::Html:
        return report.toHtml().toUtf8();
    case Format::Markdown:
        break;
    }
    return report.toMarkdown().toUtf8();
}

bool ProbeReportFile::read(const QString &fileName, ProbeReport *report, QString *error)
{
    QFile file(fileName);
    if (!file.open(QIODevice::ReadOnly))
        return fail(error, tr("Cannot read %1: %2").arg(fileName, file.errorString()));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fail(error,
            tr("%1 is not valid JSON: %2 at byte %3.")
                .arg(fileName, parseError.errorString())
                .arg(parseError.offset));
    if (!document.isObject())
        return fail(error, tr("%1 is not a probe report: it is not a JSON object.").arg(fileName));
    QString why;
    if (!ProbeReport::fromJson(document.object(), report, &why))
        return fail(error, tr("%1 is not a probe report: %2").arg(fileName, why));
    return true;
}

bool ProbeReportFile::write(
    const QString &fileName, const ProbeReport &report, Format format, QString *error)
{
    const QByteArray bytes = contents(report, format);
    QSaveFile file(fileName);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        return fail(error, tr("Cannot write %1: %2").arg(fileName, file.errorString()));
    return true;
}

} // namespace sandscope
