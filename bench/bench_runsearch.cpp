// The run view at 100,000 nodes: builds a run from the real stream-json captures in tests/data
// (every copy with its own tool, message and session ids), shows it in a visible RunPage
// (offscreen) and reports, each from the action to the view laid out and painted:
//   - search, one keystroke at a time ("b", "ba", "bas", "bash", then deleting back to ""),
//     with the match count the page shows (target <= 100 ms per keystroke);
//   - "Errors only" on and off, with the tree collapsed to the turns and fully expanded
//     (target <= 100 ms each);
//   - Expand all (target <= 300 ms) and Collapse all.
//
//   ./build/<dir>/bench/bench_runsearch [nodes]   (default 100000)

#include "runs/runfilterproxy.h"
#include "runs/runmodel.h"
#include "runs/runpage.h"
#include "runs/runparser.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QSet>
#include <QToolButton>
#include <QTreeView>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>

using namespace sandscope;

namespace {

const QSet<QString> idKeys {QStringLiteral("id"), QStringLiteral("tool_use_id"),
    QStringLiteral("parent_tool_use_id"), QStringLiteral("api_message_id"),
    QStringLiteral("session_id"), QStringLiteral("uuid"), QStringLiteral("agent_id"),
    QStringLiteral("task_id")};

// The value with "-<copy>" appended to every id, so no copy's calls match another's.
QJsonValue withCopyIds(const QJsonValue &value, const QString &suffix)
{
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

QList<QJsonObject> captureObjects()
{
    QList<QJsonObject> objects;
    const QDir dir(QStringLiteral(SANDSCOPE_CAPTURES_DIR));
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

int countNodes(const QAbstractItemModel *model, const QModelIndex &parent)
{
    int count = 0;
    for (int row = 0; row < model->rowCount(parent); ++row)
        count += 1 + countNodes(model, model->index(row, 0, parent));
    return count;
}

double cpuMs()
{
    timespec now {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6;
}

// CPU time of the process beside wall time: on a busy machine the wall clock also counts the
// time other processes had the CPU.
double lastCpuMs = 0;

// Runs the action, then lets the view lay out and paint; returns the wall milliseconds (and
// the CPU milliseconds in lastCpuMs).
double timed(QTreeView *tree, const std::function<void()> &action)
{
    QApplication::processEvents();
    QElapsedTimer clock;
    clock.start();
    const double cpuStart = cpuMs();
    action();
    QApplication::processEvents();
    tree->viewport()->repaint();
    lastCpuMs = cpuMs() - cpuStart;
    return double(clock.nsecsElapsed()) / 1e6;
}

const char *verdict(double ms, double target)
{
    return ms <= target ? "met" : "NOT MET";
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("QT_LOGGING_RULES", "qt.qpa.*=false");
    QApplication app(argc, argv);
    const int wantedNodes = argc > 1 ? std::max(100, QByteArray(argv[1]).toInt()) : 100000;

    const QList<QJsonObject> objects = captureObjects();
    if (objects.isEmpty()) {
        std::fprintf(stderr, "bench_runsearch: no captures in %s\n", SANDSCOPE_CAPTURES_DIR);
        return 1;
    }

    RunPage page;
    page.resize(1200, 800);
    page.show();
    QApplication::processEvents();
    RunModel *model = page.model();
    RunParser parser;
    QElapsedTimer build;
    build.start();
    int nodes = 0;
    for (int copy = 0; nodes < wantedNodes; ++copy) {
        const QString suffix = QStringLiteral("-%1").arg(copy);
        RunEventBatch batch;
        for (const QJsonObject &object : objects)
            batch += parser.parseLine(QJsonDocument(withCopyIds(object, suffix).toObject())
                                          .toJson(QJsonDocument::Compact),
                1'700'000'000'000 + copy);
        model->addEvents(batch);
        if (copy % 20 == 19 || copy == 0)
            nodes = countNodes(model, QModelIndex());
    }
    model->markRunEnded(1'800'000'000'000);
    nodes = countNodes(model, QModelIndex());
    QApplication::processEvents();
    QTreeView *tree = page.treeView();
    page.collapseAll();
    QApplication::processEvents();
    std::printf("bench_runsearch: %d nodes (built in %.1f s, Qt %s)\n", nodes,
        double(build.elapsed()) / 1000.0, qVersion());

    QLineEdit *edit = page.searchEdit();
    auto *countLabel = page.findChild<QLabel *>(QStringLiteral("searchCountLabel"));
    auto search = [&](const QString &text) {
        return timed(tree, [&] {
            edit->setText(text);
            Q_EMIT edit->returnPressed(); // no typing delay: the search itself
        });
    };
    double worstKey = 0;
    const QStringList keys {QStringLiteral("b"), QStringLiteral("ba"), QStringLiteral("bas"),
        QStringLiteral("bash"), QStringLiteral("bas"), QStringLiteral("ba"), QStringLiteral("b"),
        QString()};
    for (const QString &text : keys) {
        const double ms = search(text);
        worstKey = std::max(worstKey, ms);
        std::printf("  search \"%s\": %.1f ms (%.1f ms CPU), shown: \"%s\"\n", qPrintable(text), ms,
            lastCpuMs,
            !countLabel                   ? "(no match count shown)"
                : countLabel->isVisible() ? qPrintable(countLabel->text())
                                          : "(no count: not filtering)");
    }
    std::printf("  search per keystroke, worst: %.1f ms (target <= 100 ms): %s%s\n", worstKey,
        verdict(worstKey, 100), countLabel ? "" : "; no match count shown: NOT MET");

    QToolButton *errorsOnly = page.errorsOnlyButton();
    double toggleCpu = 0;
    auto toggle = [&](bool on) {
        const double ms = timed(tree, [&] { errorsOnly->setChecked(on); });
        toggleCpu = std::max(toggleCpu, lastCpuMs);
        return ms;
    };
    page.collapseAll();
    const double onCollapsed = toggle(true);
    page.collapseAll();
    const double offCollapsed = toggle(false);
    const double expand = timed(tree, [&] { page.expandAll(); });
    const double expandCpu = lastCpuMs;
    const double onExpanded = toggle(true);
    page.expandAll();
    const double offExpanded = toggle(false);
    const double collapse = timed(tree, [&] { page.collapseAll(); });
    const double worstToggle = std::max({onCollapsed, offCollapsed, onExpanded, offExpanded});
    std::printf("  errors only on/off, collapsed: %.1f / %.1f ms; expanded: %.1f / %.1f ms "
                "(target <= 100 ms): %s; worst CPU %.1f ms\n",
        onCollapsed, offCollapsed, onExpanded, offExpanded, verdict(worstToggle, 100), toggleCpu);
    std::printf(
        "  expand all: %.1f ms (%.1f ms CPU; target <= 300 ms): %s; collapse all: %.1f ms\n",
        expand, expandCpu, verdict(expand, 300), collapse);
    return 0;
}
