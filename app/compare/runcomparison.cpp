#include "runcomparison.h"

#include "runs/loadedrun.h"
#include "runtree/runmodel.h"
#include "streamjson/runfacts.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <vector>

namespace sandscope {

namespace {

// How far ahead in the other side's unmatched calls a removed call looks for its changed
// counterpart (keeps the pairing linear in huge gaps).
constexpr int pairingWindow = 64;

void collectCalls(const RunModel &model, const QModelIndex &parent, int depth, const QString &cwd,
    QVector<ComparedCall> *calls)
{
    const int rows = model.rowCount(parent);
    for (int row = 0; row < rows; ++row) {
        const QModelIndex index = model.index(row, 0, parent);
        int childDepth = depth;
        if (index.data(RunModel::KindRole).toInt() == int(RunModel::NodeKind::ToolCall)) {
            const auto details = index.data(RunModel::DetailRole).value<RunNodeDetails>();
            ComparedCall call;
            call.depth = depth;
            call.toolName = index.data(RunModel::ToolNameRole).toString();
            call.toolUseId = index.data(RunModel::ToolUseIdRole).toString();
            call.summary = index.data(RunModel::SummaryRole).toString();
            call.input = RunComparison::normalisedInput(details.inputJson, cwd);
            call.output = RunComparison::normalisedText(details.output, cwd);
            call.isError = details.isError;
            const int status = index.data(RunModel::StatusRole).toInt();
            call.answered = status == int(RunModel::Status::Ok)
                || status == int(RunModel::Status::Error)
                || status == int(RunModel::Status::Denied);
            const QString path = index.data(RunModel::FilePathRole).toString();
            if (!path.isEmpty())
                call.filePath = RunComparison::normalisedText(path, cwd);
            const QVariant duration = index.data(RunModel::DurationMsRole);
            call.durationMs = duration.isValid() ? duration.toLongLong() : -1;
            calls->append(call);
            childDepth = depth + 1;
        }
        collectCalls(model, index, childDepth, cwd, calls);
    }
}

bool isIdKey(const QString &key)
{
    return key == QLatin1String("id") || key.endsWith(QLatin1String("_id"))
        || (key.endsWith(QLatin1String("Id")) && key.size() > 2);
}

QJsonValue normalisedValue(const QJsonValue &value, const QString &cwd)
{
    if (value.isString())
        return RunComparison::normalisedText(value.toString(), cwd);
    if (value.isArray()) {
        QJsonArray out;
        for (const QJsonValue &item : value.toArray())
            out.append(normalisedValue(item, cwd));
        return out;
    }
    if (value.isObject()) {
        QJsonObject out;
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (!isIdKey(it.key()))
                out.insert(it.key(), normalisedValue(it.value(), cwd));
        }
        return out;
    }
    return value;
}

// Myers' greedy forward search for the shortest edit script, keeping each step's frontier
// for the walk back. False when more than maxEdits edits are needed.
bool myers(const int *a, int n, const int *b, int m, int maxEdits, QVector<QPair<int, int>> *out)
{
    const int limit = std::min(n + m, maxEdits);
    const int offset = limit + 1;
    std::vector<int> v(size_t(2 * limit + 3), 0);
    std::vector<std::vector<int>> trace; // trace[d][k + d + 1] = v[k] before step d
    for (int d = 0; d <= limit; ++d) {
        trace.emplace_back(v.begin() + (offset - d - 1), v.begin() + (offset + d + 2));
        for (int k = -d; k <= d; k += 2) {
            int x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
                ? v[offset + k + 1]
                : v[offset + k - 1] + 1;
            int y = x - k;
            while (x < n && y < m && a[x] == b[y]) {
                ++x;
                ++y;
            }
            v[offset + k] = x;
            if (x >= n && y >= m) {
                QVector<QPair<int, int>> pairs;
                int bx = n;
                int by = m;
                for (int back = d; back > 0; --back) {
                    const std::vector<int> &t = trace[size_t(back)];
                    const auto at = [&](int kk) {
                        return t[size_t(kk + back + 1)];
                    };
                    const int bk = bx - by;
                    const bool down = bk == -back || (bk != back && at(bk - 1) < at(bk + 1));
                    const int prevK = down ? bk + 1 : bk - 1;
                    const int prevX = at(prevK);
                    // The snake of this step starts right after its one insertion or deletion.
                    const int snakeX = down ? prevX : prevX + 1;
                    while (bx > snakeX) {
                        --bx;
                        --by;
                        pairs.append({bx, by});
                    }
                    bx = prevX;
                    by = prevX - prevK;
                }
                while (bx > 0 && by > 0) { // the first snake, from (0, 0)
                    --bx;
                    --by;
                    pairs.append({bx, by});
                }
                std::reverse(pairs.begin(), pairs.end());
                *out = pairs;
                return true;
            }
        }
    }
    return false;
}

// A common subsequence in O((N + M) log M): each element of a takes the next occurrence of
// its value in b. Not the longest, but bounded whatever the inputs.
QVector<QPair<int, int>> greedyCommon(const int *a, int n, const int *b, int m)
{
    QHash<int, std::vector<int>> positions;
    for (int j = 0; j < m; ++j)
        positions[b[j]].push_back(j);
    QVector<QPair<int, int>> pairs;
    int cursor = 0;
    for (int i = 0; i < n && cursor < m; ++i) {
        const auto found = positions.constFind(a[i]);
        if (found == positions.constEnd())
            continue;
        const auto next = std::lower_bound(found->begin(), found->end(), cursor);
        if (next == found->end())
            continue;
        pairs.append({i, *next});
        cursor = *next + 1;
    }
    return pairs;
}

} // namespace

QString ComparedCall::label() const
{
    const QString name = toolName.isEmpty() ? QStringLiteral("(tool)") : toolName;
    const QString indent = QString(2 * depth, QLatin1Char(' '));
    if (summary.isEmpty())
        return indent + name;
    return indent + name + QStringLiteral(": ") + summary;
}

ComparedRun ComparedRun::fromModel(const RunModel &model, const QString &source)
{
    ComparedRun run;
    run.source = source;
    run.summary = model.summary();
    const QModelIndex runIndex = model.runIndex();
    if (runIndex.isValid())
        run.workingDirectory = runIndex.data(RunModel::DetailRole).value<RunNodeDetails>().text;
    collectCalls(model, QModelIndex(), 0, run.workingDirectory, &run.calls);
    return run;
}

ComparedRun ComparedRun::fromLoadedRun(const LoadedRun &loaded)
{
    RunModel model;
    loaded.buildModel(&model);
    ComparedRun run = fromModel(model, loaded.source);
    run.summary.lines = loaded.lines;
    run.skipped = loaded.problems;
    for (const RunEvent &event : loaded.events) {
        if (event.kind == RunEvent::NotJson && event.corrupt)
            run.skipped << QObject::tr("line %1: not valid JSON (cut short or corrupt)")
                               .arg(event.lineNumber);
    }
    return run;
}

bool ComparedRun::holdsARun(const LoadedRun &run)
{
    if (run.exported) // a Sandscope JSON export holds its tree, not events
        return true;
    return std::any_of(run.events.cbegin(), run.events.cend(), [](const RunEvent &event) {
        return event.kind != RunEvent::NotJson && event.kind != RunEvent::Unknown
            && event.kind != RunEvent::Transient;
    });
}

RunComparison RunComparison::compare(
    const ComparedRun &left, const ComparedRun &right, int maxEdits)
{
    RunComparison comparison;
    comparison.m_left = left;
    comparison.m_right = right;
    comparison.align(maxEdits);
    comparison.computeDeltas();
    comparison.computeFiles();
    return comparison;
}

void RunComparison::align(int maxEdits)
{
    // Keys as small integers: the alignment compares ints, not strings.
    QHash<QString, int> ids;
    const auto keysOf = [&ids](const QVector<ComparedCall> &calls) {
        QVector<int> keys;
        keys.reserve(calls.size());
        for (const ComparedCall &call : calls) {
            const QString key = QString::number(call.depth) + QChar(0x1f) + call.toolName
                + QChar(0x1f) + call.input;
            keys.append(ids.insert(key, ids.value(key, int(ids.size()))).value());
        }
        return keys;
    };
    const QVector<int> leftKeys = keysOf(m_left.calls);
    const QVector<int> rightKeys = keysOf(m_right.calls);
    bool exact = true;
    const QVector<QPair<int, int>> pairs = commonSubsequence(leftKeys, rightKeys, maxEdits, &exact);
    m_usedFallback = !exact;

    int nextLeft = 0;
    int nextRight = 0;
    const auto gapUntil = [&](int leftEnd, int rightEnd) {
        QVector<int> lefts;
        QVector<int> rights;
        for (; nextLeft < leftEnd; ++nextLeft)
            lefts.append(nextLeft);
        for (; nextRight < rightEnd; ++nextRight)
            rights.append(nextRight);
        addGap(lefts, rights);
    };
    for (const auto &[l, r] : pairs) {
        gapUntil(l, r);
        addPair(l, r, NoField);
        nextLeft = l + 1;
        nextRight = r + 1;
    }
    gapUntil(int(m_left.calls.size()), int(m_right.calls.size()));
}

void RunComparison::addGap(const QVector<int> &lefts, const QVector<int> &rights)
{
    int cursor = 0;
    for (const int l : lefts) {
        const ComparedCall &call = m_left.calls.at(l);
        int found = -1;
        for (int j = cursor; j < rights.size() && j < cursor + pairingWindow; ++j) {
            const ComparedCall &other = m_right.calls.at(rights.at(j));
            if (other.depth == call.depth && other.toolName == call.toolName) {
                found = j;
                break;
            }
        }
        if (found < 0) {
            m_rows.append({State::Removed, l, -1, NoField});
            continue;
        }
        for (; cursor < found; ++cursor)
            m_rows.append({State::Added, -1, rights.at(cursor), NoField});
        addPair(l, rights.at(found), InputField);
        cursor = found + 1;
    }
    for (; cursor < rights.size(); ++cursor)
        m_rows.append({State::Added, -1, rights.at(cursor), NoField});
}

void RunComparison::addPair(int left, int right, int fields)
{
    const ComparedCall &a = m_left.calls.at(left);
    const ComparedCall &b = m_right.calls.at(right);
    if (a.output != b.output)
        fields |= OutputField;
    if (a.isError != b.isError || a.answered != b.answered)
        fields |= StatusField;
    m_rows.append({fields == NoField ? State::Same : State::Changed, left, right, fields});
}

void RunComparison::computeDeltas()
{
    const RunSummary &a = m_left.summary;
    const RunSummary &b = m_right.summary;
    const auto number = [this](const char *name, const char *key, double l, double r) {
        Delta delta;
        delta.name = QObject::tr(name);
        delta.key = QLatin1String(key);
        delta.left = l;
        delta.right = r;
        m_deltas.append(delta);
    };
    number("Turns", "turns", a.turns, b.turns);
    number("Round trips", "round_trips", a.roundTrips, b.roundTrips);
    m_deltas.last().leftRecorded = a.roundTripsRecorded();
    m_deltas.last().rightRecorded = b.roundTripsRecorded();
    number("Tool calls", "tool_calls", double(a.toolCalls), double(b.toolCalls));
    number("Errors", "tool_errors", double(a.toolErrors), double(b.toolErrors));
    number("Input tokens", "input_tokens", double(a.inputTokens), double(b.inputTokens));
    number("Output tokens", "output_tokens", double(a.outputTokens), double(b.outputTokens));
    number("Cost", "cost_usd", a.costUsd, b.costUsd);
    number("Duration", "duration_ms", double(a.durationMs), double(b.durationMs));
    Delta outcomeDelta;
    outcomeDelta.name = QObject::tr("Outcome");
    outcomeDelta.key = QStringLiteral("outcome");
    outcomeDelta.isText = true;
    outcomeDelta.leftText = outcome(a);
    outcomeDelta.rightText = outcome(b);
    m_deltas.append(outcomeDelta);
}

void RunComparison::computeFiles()
{
    QHash<QString, int> byPath;
    const auto add = [&](const QVector<ComparedCall> &calls, bool left) {
        for (const ComparedCall &call : calls) {
            if (call.filePath.isEmpty())
                continue;
            auto found = byPath.constFind(call.filePath);
            int at;
            if (found == byPath.constEnd()) {
                at = int(m_files.size());
                byPath.insert(call.filePath, at);
                m_files.append({call.filePath, {}, {}});
            } else {
                at = found.value();
            }
            QStringList &tools = left ? m_files[at].leftTools : m_files[at].rightTools;
            if (!tools.contains(call.toolName))
                tools.append(call.toolName);
        }
    };
    add(m_left.calls, true);
    add(m_right.calls, false);
    std::sort(m_files.begin(), m_files.end(),
        [](const FileTouch &x, const FileTouch &y) { return x.path < y.path; });
}

int RunComparison::count(State state) const
{
    return int(std::count_if(
        m_rows.cbegin(), m_rows.cend(), [state](const Row &row) { return row.state == state; }));
}

bool RunComparison::same() const
{
    if (count(State::Same) != m_rows.size())
        return false;
    // Turns are prompts in captures and transcripts alike (docs/stream-json.md, "Figures");
    // round trips are not (a transcript has none).
    for (const Delta &delta : m_deltas) {
        if (delta.differs()
            && (delta.key == QLatin1String("outcome") || delta.key == QLatin1String("turns")))
            return false;
    }
    return true;
}

QString RunComparison::stateName(State state)
{
    switch (state) {
    case State::Same:
        return QStringLiteral("same");
    case State::Changed:
        return QStringLiteral("changed");
    case State::Added:
        return QStringLiteral("added");
    case State::Removed:
        return QStringLiteral("removed");
    }
    return {};
}

QStringList RunComparison::fieldNames(int fields)
{
    QStringList names;
    if (fields & InputField)
        names << QStringLiteral("input");
    if (fields & OutputField)
        names << QStringLiteral("output");
    if (fields & StatusField)
        names << QStringLiteral("status");
    return names;
}

QString RunComparison::outcome(const RunSummary &summary)
{
    // A transcript has no result lines: a turn that ended without an API error is its success,
    // so a transcript and the stream-json capture of the same run agree.
    return runfacts::outcomeText(summary);
}

QVector<QPair<int, int>> RunComparison::commonSubsequence(
    const QVector<int> &a, const QVector<int> &b, int maxEdits, bool *exact)
{
    if (exact)
        *exact = true;
    const int n = int(a.size());
    const int m = int(b.size());
    int prefix = 0;
    while (prefix < n && prefix < m && a[prefix] == b[prefix])
        ++prefix;
    int suffix = 0;
    while (suffix < n - prefix && suffix < m - prefix && a[n - 1 - suffix] == b[m - 1 - suffix])
        ++suffix;

    QVector<QPair<int, int>> pairs;
    pairs.reserve(prefix + suffix);
    for (int i = 0; i < prefix; ++i)
        pairs.append({i, i});
    const int *midA = a.constData() + prefix;
    const int *midB = b.constData() + prefix;
    const int midN = n - prefix - suffix;
    const int midM = m - prefix - suffix;
    QVector<QPair<int, int>> middle;
    if (midN > 0 && midM > 0 && !myers(midA, midN, midB, midM, maxEdits, &middle)) {
        middle = greedyCommon(midA, midN, midB, midM);
        if (exact)
            *exact = false;
    }
    for (const auto &[i, j] : std::as_const(middle))
        pairs.append({i + prefix, j + prefix});
    for (int s = suffix; s > 0; --s)
        pairs.append({n - s, m - s});
    return pairs;
}

QString RunComparison::normalisedText(const QString &text, const QString &cwd)
{
    static const QRegularExpression chatFolder(
        QStringLiteral(R"((?:/home/[^/\s"']+|/root|~)/chat-[^/\s"']+)"));
    static const QRegularExpression home(QStringLiteral(R"(/home/[^/\s"']+)"));
    // Whitespace within lines and blank lines do not count; the lines themselves do (the
    // Compare tab shows them side by side).
    QStringList lines;
    for (const QString &line : text.split(QLatin1Char('\n'))) {
        const QString simple = line.simplified();
        if (!simple.isEmpty())
            lines << simple;
    }
    QString out = lines.join(QLatin1Char('\n'));
    const QString folder = cwd.trimmed();
    if (folder.size() > 1)
        out.replace(folder, QStringLiteral("<cwd>"));
    out.replace(chatFolder, QStringLiteral("<cwd>"));
    out.replace(home, QStringLiteral("~"));
    return out;
}

QString RunComparison::normalisedInput(const QByteArray &inputJson, const QString &cwd)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(inputJson, &error);
    if (error.error != QJsonParseError::NoError || document.isNull())
        return normalisedText(QString::fromUtf8(inputJson), cwd);
    const QJsonValue value = normalisedValue(
        document.isObject() ? QJsonValue(document.object()) : QJsonValue(document.array()), cwd);
    const QJsonDocument out
        = value.isObject() ? QJsonDocument(value.toObject()) : QJsonDocument(value.toArray());
    return QString::fromUtf8(out.toJson(QJsonDocument::Compact));
}

} // namespace sandscope
