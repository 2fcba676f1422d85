#pragma once
// The normalised JSON export (docs/export.md): one JSON document
//   {"sandscope_export":1, "source", "redacted", "run_ended", "skipped":[...],
//    "summary":{...}, "run":{node, "children":[nodes...]}}
// that holds the run tree node by node, and that the app opens again like a recording
// (LoadedRun::fromFile, the run view): RunModel::restore() rebuilds the same tree.

#include "export/exportedrun.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace sandscope {

class RunJsonFormat {
public:
    static constexpr int version = 1;

    static QJsonObject toJson(const ExportedRun &run);
    static QByteArray toBytes(const ExportedRun &run); // indented, UTF-8

    // False with the reason when the object is not an export this version can read.
    static bool fromJson(const QJsonObject &json, ExportedRun *run, QString *errorMessage);
    // Whether the file starts like an export (its first bytes name "sandscope_export").
    static bool looksLikeExport(const QString &path);
    static bool readFile(const QString &path, ExportedRun *run, QString *errorMessage);
};

} // namespace sandscope
