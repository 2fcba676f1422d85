#pragma once
// The JSON lines of sandbox/cleanup.sh (one item per line, then a summary line; see
// sandbox/README.md) as values: parsing that tolerates and reports bad lines, the difference
// between two plans, saving a reviewed plan and CSV export. Every item keeps its line exactly
// as the script wrote it: the script re-reads plans and turns \u0080..\u00ff back into raw
// bytes of file names, so a plan is only ever edited by keeping or dropping whole lines.

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QVector>

#include <functional>

namespace sandscope {

struct CleanupItem {
    enum class Action { Delete, Keep, Report };
    enum class Kind { Chat, Session, Other };

    Action action = Action::Report;
    Kind kind = Kind::Other;
    QString user;
    QString path; // for people: bytes that are not UTF-8 show as U+0080..U+00FF
    // "device:inode:hex of the path bytes": names the entry unambiguously, also after a plan was
    // re-serialised (the script refuses an item whose identity no longer matches). Empty in
    // output of older scripts and for reports about a whole home.
    QString identity;
    qint64 bytes = 0;
    QString lastActivity; // ISO-8601 UTC
    qint64 lastActivityEpoch = 0;
    qint64 ageDays = 0;
    QString reason;
    QString sessionId; // sessions only
    QString project;
    QString sessionDir;
    QString outcome; // with a plan: deleted, would-delete, skipped-changed, refused, failed
    QString message;
    qint64 currentBytes = -1; // with an outcome: measured just now, -1 when not given
    qint64 currentLastActivityEpoch = -1;
    QByteArray line; // the line as written by the script, without the line end

    // Identifies the item across two runs: by its path bytes when it has an identity (two names
    // that differ only in invalid UTF-8 look the same in `path`), else by its path.
    QString key() const;
    // The exact path bytes from the identity; empty without one.
    QByteArray pathBytes() const;

    static QString actionName(Action action);
    static QString kindName(Kind kind);
};

struct CleanupSummary {
    bool present = false;
    QString mode; // dry-run, check-plan, execute
    QString homeRoot;
    qint64 chatTtlDays = 0;
    qint64 sessionTtlDays = 0;
    qint64 generatedAtEpoch = 0;
    // "chat_delete" -> count and bytes, for every counter of the summary line
    QHash<QString, qint64> counts;
    QHash<QString, qint64> bytes;
    QByteArray line;
};

struct CleanupLineProblem {
    int lineNumber = 0; // 1-based
    QString text; // the offending line (shortened)
    QString why;
};

class CleanupPlan {
public:
    // Parses complete output (or a saved plan). Empty lines are skipped silently.
    static CleanupPlan parse(const QByteArray &text);
    // Loads a saved plan; false with a message when the file cannot be read.
    static bool load(const QString &fileName, CleanupPlan *plan, QString *error);

    // Adds one line (without its line end); returns false and records a problem when it is
    // neither an item nor the summary. Used while the output streams in.
    bool addLine(const QByteArray &line);

    const QVector<CleanupItem> &items() const { return m_items; }
    const CleanupSummary &summary() const { return m_summary; }
    const QVector<CleanupLineProblem> &problems() const { return m_problems; }
    bool isEmpty() const { return m_items.isEmpty() && !m_summary.present; }

    QVector<CleanupItem> itemsWith(CleanupItem::Action action) const;
    qint64 totalBytes(CleanupItem::Action action) const;
    QHash<QString, int> outcomeCounts() const;

    // The plan with only the items `keep` accepts (the summary line is kept).
    CleanupPlan filtered(const std::function<bool(const CleanupItem &)> &keep) const;

    // The original lines, each ended by "\n": items in order, then the summary.
    QByteArray toBytes() const;
    bool save(const QString &fileName, QString *error) const;
    // One header row and one row per item (RFC 4180). Cells that a spreadsheet would run
    // as a formula get a leading apostrophe.
    QString toCsv() const;

private:
    QVector<CleanupItem> m_items;
    CleanupSummary m_summary;
    QVector<CleanupLineProblem> m_problems;
    int m_lineNumber = 0;
};

// What changed between two plans, counting only their `delete` items (matched by key).
struct CleanupPlanDiff {
    QVector<CleanupItem> added; // to be deleted now, not before
    QVector<CleanupItem> removed; // no longer to be deleted
    qint64 addedBytes = 0;
    qint64 removedBytes = 0;

    static CleanupPlanDiff between(const CleanupPlan &before, const CleanupPlan &after);
    bool isEmpty() const { return added.isEmpty() && removed.isEmpty(); }
};

} // namespace sandscope
