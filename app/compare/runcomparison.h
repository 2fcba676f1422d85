#pragma once
// Two runs side by side (`sandscope compare`, the Compare tab): their tool calls aligned, what
// was added, removed or changed, the files each touched, and the differences of their
// summaries.
//
// Tool calls are taken in pre-order and flattened: a sub-agent's calls follow their Agent call
// with depth + 1, and the depth is part of the alignment key, so a sub-agent call only ever
// aligns with a call at the same depth. The key is depth + tool name + normalised input
// (normalisedInput: ids dropped, whitespace within lines collapsed, the run's working directory and
// any chat folder written as <cwd>, home folders as ~), so two attempts of the same task in
// ~/chat-a and ~/chat-b align. The longest common subsequence of the keys is found with Myers'
// O((N+M)·D) algorithm after trimming the common prefix and suffix; when the runs differ by
// more than maxEdits calls a greedy common subsequence (not the longest) is used instead and
// usedFallback() says so. Unmatched calls between two matches pair up as "changed" when their
// tool and depth agree (same call, different input); the rest are removed (left only) or
// added (right only). Matched calls whose output or error status differ are changed as well.

#include "streamjson/runsummary.h"

#include <QPair>
#include <QString>
#include <QStringList>
#include <QVector>

namespace sandscope {

class RunModel;
struct LoadedRun;

// One tool call as compared.
struct ComparedCall {
    int depth = 0; // 0 on the main thread; n inside n Agent calls
    QString toolName;
    QString toolUseId;
    QString summary; // the run tree's one-line summary (without the tool name)
    QString input; // normalised input (compact JSON with sorted keys)
    QString output; // normalised result text
    bool isError = false;
    bool answered = false; // a result arrived
    QString filePath; // normalised; Read, Write, Edit, NotebookEdit
    qint64 durationMs = -1;

    QString label() const;
};

// One side of a comparison: a run's calls, summary and what could not be read.
struct ComparedRun {
    QString source;
    QVector<ComparedCall> calls;
    RunSummary summary;
    QString workingDirectory;
    QStringList skipped; // "line N: why" of lines that were not part of the run

    static ComparedRun fromModel(const RunModel &model, const QString &source = {});
    // Builds the run tree; the reader's problems and the corrupt lines become `skipped`.
    static ComparedRun fromLoadedRun(const LoadedRun &run);
    // False for a file that holds no event of a run (an image, a web page, an empty file,
    // a JSON file of something else): comparing it would only report "everything removed".
    static bool holdsARun(const LoadedRun &run);
};

class RunComparison {
public:
    enum class State { Same, Changed, Added, Removed };
    enum Field { NoField = 0, InputField = 1, OutputField = 2, StatusField = 4 };

    struct Row {
        State state = State::Same;
        int left = -1; // index into left().calls, -1 for Added
        int right = -1; // index into right().calls, -1 for Removed
        int fields = NoField; // Field flags that differ (Changed rows)
    };

    struct Delta {
        QString name; // "Turns", "Tool calls", ...
        QString key; // the JSON key: "turns", "tool_calls", ...
        double left = 0;
        double right = 0;
        QString leftText; // outcome only
        QString rightText;
        bool isText = false;
        // A figure a side does not record (a transcript's round trips): shown as
        // runfacts::notRecordedText(), and no difference is claimed.
        bool leftRecorded = true;
        bool rightRecorded = true;
        bool differs() const
        {
            if (!leftRecorded || !rightRecorded)
                return false;
            return isText ? leftText != rightText : left != right;
        }
    };

    struct FileTouch {
        QString path;
        QStringList leftTools; // the distinct tools that touched it, in first-use order
        QStringList rightTools;
    };

    // Runs that differ by more edits than this are aligned greedily.
    static constexpr int defaultMaxEdits = 2000;

    RunComparison() = default;
    static RunComparison compare(
        const ComparedRun &left, const ComparedRun &right, int maxEdits = defaultMaxEdits);

    const ComparedRun &left() const { return m_left; }
    const ComparedRun &right() const { return m_right; }
    const QVector<Row> &rows() const { return m_rows; }
    const QVector<Delta> &deltas() const { return m_deltas; }
    const QVector<FileTouch> &files() const { return m_files; }
    int count(State state) const;
    bool usedFallback() const { return m_usedFallback; }
    // The runs match: every call the same, the same outcome and (both transcripts, or
    // neither) the same number of turns. Tokens, cost and duration differ between any two
    // attempts and do not count.
    bool same() const;

    static QString stateName(State state);
    static QStringList fieldNames(int fields);
    // "succeeded", "failed (error_max_turns)", "no result", "cut short" (a transcript's open
    // turn), ...: what the run's summary says, a transcript's normal end as "succeeded".
    static QString outcome(const RunSummary &summary);

    // Pairs (i, j) with a[i] == b[j], increasing in both, of a longest common subsequence;
    // a greedy one (and *exact false) when more than maxEdits insertions and deletions
    // separate a and b.
    static QVector<QPair<int, int>> commonSubsequence(
        const QVector<int> &a, const QVector<int> &b, int maxEdits, bool *exact = nullptr);
    // Each line's whitespace runs as one space, trimmed, blank lines dropped; `cwd` and chat
    // folders as <cwd>, /home/NAME as ~.
    static QString normalisedText(const QString &text, const QString &cwd);
    // The input object with its ids ("id", "*_id", "*Id") dropped and every string
    // normalised, as compact JSON with sorted keys. Non-JSON input is normalised as text.
    static QString normalisedInput(const QByteArray &inputJson, const QString &cwd);

private:
    void align(int maxEdits);
    void addGap(const QVector<int> &lefts, const QVector<int> &rights);
    void addPair(int left, int right, int fields);
    void computeDeltas();
    void computeFiles();

    ComparedRun m_left;
    ComparedRun m_right;
    QVector<Row> m_rows;
    QVector<Delta> m_deltas;
    QVector<FileTouch> m_files;
    bool m_usedFallback = false;
};

} // namespace sandscope
