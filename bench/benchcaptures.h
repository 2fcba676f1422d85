#pragma once
// What the run benchmarks build their big runs from: the JSON objects of the real stream-json
// captures in tests/data, and copies of them with ids of their own ("-<copy>" appended to
// every tool, message, session, task and line id), so no copy's calls match another's.

#include "util/allocatortuning.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QSet>
#include <QString>
#include <QtGlobal>

namespace benchcaptures {

// Before the QApplication: offscreen unless a platform is set, without its warnings, and the
// allocator set up as the window's main() does.
inline void useOffscreenPlatform()
{
    sandscope::tuneAllocatorForSteadyLatency();
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("QT_LOGGING_RULES", "qt.qpa.*=false");
}

inline QJsonValue withCopyIds(const QJsonValue &value, const QString &suffix)
{
    static const QSet<QString> idKeys {QStringLiteral("id"), QStringLiteral("tool_use_id"),
        QStringLiteral("parent_tool_use_id"), QStringLiteral("api_message_id"),
        QStringLiteral("session_id"), QStringLiteral("uuid"), QStringLiteral("agent_id"),
        QStringLiteral("task_id")};
    if (value.isObject()) {
        QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (idKeys.contains(it.key()) && it.value().isString()
                && !it.value().toString().isEmpty())
                it.value() = QString(it.value().toString() + suffix);
            else
                it.value() = withCopyIds(it.value(), suffix);
        }
        return object;
    }
    if (value.isArray()) {
        QJsonArray array = value.toArray();
        for (auto it = array.begin(); it != array.end(); ++it)
            *it = withCopyIds(*it, suffix);
        return array;
    }
    return value;
}

// The objects of every stream-*.jsonl in `directory`, in file and line order.
inline QList<QJsonObject> captureObjects(const QString &directory)
{
    QList<QJsonObject> objects;
    const QDir dir(directory);
    for (const QString &name :
        dir.entryList({QStringLiteral("stream-*.jsonl")}, QDir::Files, QDir::Name)) {
        QFile file(dir.filePath(name));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray &line : file.readAll().split('\n')) {
            const QJsonDocument document = QJsonDocument::fromJson(line);
            if (document.isObject())
                objects.append(document.object());
        }
    }
    return objects;
}

// One copy of the captures as compact JSON lines.
inline QList<QByteArray> copyLines(const QList<QJsonObject> &objects, int copy)
{
    const QString suffix = QStringLiteral("-%1").arg(copy);
    QList<QByteArray> lines;
    for (const QJsonObject &object : objects)
        lines.append(
            QJsonDocument(withCopyIds(object, suffix).toObject()).toJson(QJsonDocument::Compact));
    return lines;
}

} // namespace benchcaptures
