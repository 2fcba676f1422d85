#include "cleanupplan.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSet>

namespace sandscope {

namespace {

const QStringList summaryCounters {QStringLiteral("chat_delete"), QStringLiteral("chat_keep"),
    QStringLiteral("session_delete"), QStringLiteral("session_keep"),
    QStringLiteral("other_report"), QStringLiteral("deleted"), QStringLiteral("would_delete"),
    QStringLiteral("skipped_changed"), QStringLiteral("refused"), QStringLiteral("failed")};

bool parseAction(const QString &text, CleanupItem::Action *action)
{
    if (text == QLatin1String("delete"))
        *action = CleanupItem::Action::Delete;
    else if (text == QLatin1String("keep"))
        *action = CleanupItem::Action::Keep;
    else if (text == QLatin1String("report"))
        *action = CleanupItem::Action::Report;
    else
        return false;
    return true;
}

bool parseKind(const QString &text, CleanupItem::Kind *kind)
{
    if (text == QLatin1String("chat"))
        *kind = CleanupItem::Kind::Chat;
    else if (text == QLatin1String("session"))
        *kind = CleanupItem::Kind::Session;
    else if (text == QLatin1String("other"))
        *kind = CleanupItem::Kind::Other;
    else
        return false;
    return true;
}

qint64 integer(const QJsonObject &object, const QString &name, qint64 fallback = 0)
{
    const QJsonValue value = object.value(name);
    return value.isDouble() ? qint64(value.toDouble()) : fallback;
}

QString csvCell(QString text)
{
    // A leading = + - @ would make a spreadsheet evaluate the cell.
    if (!text.isEmpty() && QStringLiteral("=+-@\t\r").contains(text.at(0)))
        text.prepend(QLatin1Char('\''));
    if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"'))
        || text.contains(QLatin1Char('\n')) || text.contains(QLatin1Char('\r'))
        || text.contains(QLatin1Char('\''))) {
        text.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        return QLatin1Char('"') + text + QLatin1Char('"');
    }
    return text;
}

} // namespace

QString CleanupItem::key() const
{
    const int pathStart
        = identity.indexOf(QLatin1Char(':'), identity.indexOf(QLatin1Char(':')) + 1);
    if (!identity.isEmpty() && pathStart > 0)
        return kindName(kind) + QStringLiteral(":#") + identity.mid(pathStart + 1);
    return kindName(kind) + QLatin1Char(':') + path;
}

QByteArray CleanupItem::pathBytes() const
{
    const int pathStart
        = identity.indexOf(QLatin1Char(':'), identity.indexOf(QLatin1Char(':')) + 1);
    if (identity.isEmpty() || pathStart <= 0)
        return {};
    return QByteArray::fromHex(identity.mid(pathStart + 1).toLatin1());
}

QString CleanupItem::actionName(Action action)
{
    switch (action) {
    case Action::Delete:
        return QStringLiteral("delete");
    case Action::Keep:
        return QStringLiteral("keep");
    case Action::Report:
        break;
    }
    return QStringLiteral("report");
}

QString CleanupItem::kindName(Kind kind)
{
    switch (kind) {
    case Kind::Chat:
        return QStringLiteral("chat");
    case Kind::Session:
        return QStringLiteral("session");
    case Kind::Other:
        break;
    }
    return QStringLiteral("other");
}

CleanupPlan CleanupPlan::parse(const QByteArray &text)
{
    CleanupPlan plan;
    const QList<QByteArray> lines = text.split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        // A final line end leaves one empty piece; it is not a line.
        if (i == lines.size() - 1 && lines.at(i).isEmpty())
            break;
        plan.addLine(lines.at(i));
    }
    return plan;
}

bool CleanupPlan::load(const QString &fileName, CleanupPlan *plan, QString *error)
{
    QFile file(fileName);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(fileName, file.errorString());
        return false;
    }
    *plan = parse(file.readAll());
    return true;
}

bool CleanupPlan::addLine(const QByteArray &rawLine)
{
    ++m_lineNumber;
    QByteArray line = rawLine;
    if (line.endsWith('\r'))
        line.chop(1);
    if (line.trimmed().isEmpty())
        return true;
    const auto problem = [&](const QString &why) {
        const QString text = QString::fromUtf8(line.left(200));
        m_problems.append({m_lineNumber, text, why});
        return false;
    };
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(line, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return problem(QStringLiteral("not JSON: %1").arg(parseError.errorString()));
    if (!document.isObject())
        return problem(QStringLiteral("not a JSON object"));
    const QJsonObject object = document.object();

    if (object.value(QLatin1String("summary")).toBool()) {
        CleanupSummary summary;
        summary.present = true;
        summary.mode = object.value(QLatin1String("mode")).toString();
        summary.homeRoot = object.value(QLatin1String("home_root")).toString();
        summary.chatTtlDays = integer(object, QStringLiteral("chat_ttl_days"));
        summary.sessionTtlDays = integer(object, QStringLiteral("session_ttl_days"));
        summary.generatedAtEpoch = integer(object, QStringLiteral("generated_at_epoch"));
        for (const QString &counter : summaryCounters) {
            summary.counts.insert(counter, integer(object, counter));
            summary.bytes.insert(counter, integer(object, counter + QStringLiteral("_bytes")));
        }
        summary.line = line;
        m_summary = summary;
        return true;
    }

    CleanupItem item;
    if (!parseAction(object.value(QLatin1String("action")).toString(), &item.action))
        return problem(QStringLiteral("no known \"action\" (delete, keep, report)"));
    if (!parseKind(object.value(QLatin1String("kind")).toString(), &item.kind))
        return problem(QStringLiteral("no known \"kind\" (chat, session, other)"));
    item.path = object.value(QLatin1String("path")).toString();
    if (item.path.isEmpty())
        return problem(QStringLiteral("no \"path\""));
    if (!object.value(QLatin1String("bytes")).isDouble()
        || !object.value(QLatin1String("last_activity_epoch")).isDouble())
        return problem(QStringLiteral("\"bytes\" or \"last_activity_epoch\" is not a number"));
    if (object.contains(QLatin1String("identity"))) {
        static const QRegularExpression identityPattern(
            QStringLiteral("^[0-9]{1,20}:[0-9]{1,20}:(?:[0-9a-f]{2})+$"));
        item.identity = object.value(QLatin1String("identity")).toString();
        if (!identityPattern.match(item.identity).hasMatch())
            return problem(QStringLiteral("\"identity\" is not device:inode:hex-path"));
    }
    item.user = object.value(QLatin1String("user")).toString();
    item.bytes = integer(object, QStringLiteral("bytes"));
    item.lastActivity = object.value(QLatin1String("last_activity")).toString();
    item.lastActivityEpoch = integer(object, QStringLiteral("last_activity_epoch"));
    item.ageDays = integer(object, QStringLiteral("age_days"));
    item.reason = object.value(QLatin1String("reason")).toString();
    item.sessionId = object.value(QLatin1String("session_id")).toString();
    item.project = object.value(QLatin1String("project")).toString();
    item.sessionDir = object.value(QLatin1String("session_dir")).toString();
    item.outcome = object.value(QLatin1String("outcome")).toString();
    item.message = object.value(QLatin1String("message")).toString();
    item.currentBytes = integer(object, QStringLiteral("current_bytes"), -1);
    item.currentLastActivityEpoch
        = integer(object, QStringLiteral("current_last_activity_epoch"), -1);
    item.line = line;
    m_items.append(item);
    return true;
}

QVector<CleanupItem> CleanupPlan::itemsWith(CleanupItem::Action action) const
{
    QVector<CleanupItem> matching;
    for (const CleanupItem &item : m_items) {
        if (item.action == action)
            matching.append(item);
    }
    return matching;
}

qint64 CleanupPlan::totalBytes(CleanupItem::Action action) const
{
    qint64 total = 0;
    for (const CleanupItem &item : m_items) {
        if (item.action == action)
            total += item.bytes;
    }
    return total;
}

QHash<QString, int> CleanupPlan::outcomeCounts() const
{
    QHash<QString, int> counts;
    for (const CleanupItem &item : m_items) {
        if (!item.outcome.isEmpty())
            ++counts[item.outcome];
    }
    return counts;
}

CleanupPlan CleanupPlan::filtered(const std::function<bool(const CleanupItem &)> &keep) const
{
    CleanupPlan plan;
    plan.m_summary = m_summary;
    for (const CleanupItem &item : m_items) {
        if (keep(item))
            plan.m_items.append(item);
    }
    return plan;
}

QByteArray CleanupPlan::toBytes() const
{
    QByteArray bytes;
    for (const CleanupItem &item : m_items)
        bytes += item.line + '\n';
    if (m_summary.present)
        bytes += m_summary.line + '\n';
    return bytes;
}

bool CleanupPlan::save(const QString &fileName, QString *error) const
{
    QSaveFile file(fileName);
    if (!file.open(QIODevice::WriteOnly) || file.write(toBytes()) < 0 || !file.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(fileName, file.errorString());
        return false;
    }
    return true;
}

QString CleanupPlan::toCsv() const
{
    QString csv = QStringLiteral("action,kind,user,path,bytes,last_activity,age_days,reason,"
                                 "outcome,message\r\n");
    for (const CleanupItem &item : m_items) {
        const QStringList cells {CleanupItem::actionName(item.action),
            CleanupItem::kindName(item.kind), item.user, item.path, QString::number(item.bytes),
            item.lastActivity, QString::number(item.ageDays), item.reason, item.outcome,
            item.message};
        QStringList quoted;
        for (const QString &cell : cells)
            quoted.append(csvCell(cell));
        csv += quoted.join(QLatin1Char(',')) + QStringLiteral("\r\n");
    }
    return csv;
}

CleanupPlanDiff CleanupPlanDiff::between(const CleanupPlan &before, const CleanupPlan &after)
{
    const auto deleteKeys = [](const CleanupPlan &plan) {
        QSet<QString> keys;
        for (const CleanupItem &item : plan.items()) {
            if (item.action == CleanupItem::Action::Delete)
                keys.insert(item.key());
        }
        return keys;
    };
    const QSet<QString> beforeKeys = deleteKeys(before);
    const QSet<QString> afterKeys = deleteKeys(after);
    CleanupPlanDiff diff;
    for (const CleanupItem &item : after.items()) {
        if (item.action == CleanupItem::Action::Delete && !beforeKeys.contains(item.key())) {
            diff.added.append(item);
            diff.addedBytes += item.bytes;
        }
    }
    for (const CleanupItem &item : before.items()) {
        if (item.action == CleanupItem::Action::Delete && !afterKeys.contains(item.key())) {
            diff.removed.append(item);
            diff.removedBytes += item.bytes;
        }
    }
    return diff;
}

} // namespace sandscope
