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

// The same lines as copyLines, made by joining text: each line is serialized once with a marker
// where a copy's number goes (an id's suffix is plain ASCII, never escaped, and the keys keep
// their order), so a 1 GB run is built without rebuilding its JSON (that was most of the
// 30-odd seconds bench_runopen 1000 took to build its file). Checked against copyLines.
class CaptureCopies {
public:
    explicit CaptureCopies(const QList<QJsonObject> &objects)
    {
        static const QByteArray marker = "@sandscope-bench-copy@";
        const QString suffix = QLatin1Char('-') + QString::fromLatin1(marker);
        for (const QJsonObject &object : objects) {
            const QByteArray text = QJsonDocument(withCopyIds(object, suffix).toObject())
                                        .toJson(QJsonDocument::Compact);
            QList<QByteArray> pieces;
            int from = 0;
            for (int at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, from)) {
                pieces.append(text.mid(from, at - from));
                from = at + marker.size();
            }
            pieces.append(text.mid(from));
            m_pieces.append(pieces);
        }
        for (const int copy : {0, 7}) {
            if (lines(copy) != copyLines(objects, copy))
                qFatal(
                    "CaptureCopies: copy %d differs from copyLines (a capture holds the marker?)",
                    copy);
        }
    }

    QList<QByteArray> lines(int copy) const
    {
        const QByteArray number = QByteArray::number(copy);
        QList<QByteArray> lines;
        lines.reserve(m_pieces.size());
        for (const QList<QByteArray> &pieces : m_pieces) {
            QByteArray line = pieces.first();
            for (int i = 1; i < pieces.size(); ++i)
                line += number + pieces.at(i);
            lines.append(line);
        }
        return lines;
    }

private:
    QList<QList<QByteArray>> m_pieces;
};

} // namespace benchcaptures
