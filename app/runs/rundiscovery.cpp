#include "rundiscovery.h"

#include "files/pathguard.h"
#include "server/shortcommand.h"

#include <QFileInfo>
#include <QLocale>

#include <algorithm>

namespace sandscope {

namespace {
const QString homeMarker = QStringLiteral("SANDSCOPE-HOME=");
const QString runMarker = QStringLiteral("SANDSCOPE-RUNFILE");
constexpr int promptStartBytes = 160;
} // namespace

namespace rundiscovery {

QString script()
{
    // Liveness like claudecommand::livenessScript: the pid alone could have been reused, the
    // run's shell has its run id in its command line. A run whose tee or prompt file, or whose
    // chat's folder, is a link out of the home is not listed (RunLauncher would read its tee
    // file through the file API, as root), nor are runs under a ~/.sandscope that is one.
    return pathguard::outsideFunctions()
        + QStringLiteral(
            "home=$(cd ~ && pwd -P) || exit 1; "
            "printf 'SANDSCOPE-HOME=%s\\n' \"$home\"; "
            "sandscope_outside \"$home\" \"$home/.sandscope/runs\" && exit 0; "
            "for f in \"$home\"/.sandscope/runs/*/*.jsonl; do "
            "base=${f%.jsonl}; run=${base##*/}; "
            "if [ -L \"$f\" ] || [ -L \"${f%/*}\" ] || [ -L \"$base.prompt\" ]; then "
            "sandscope_outside \"$home\" \"$f\" && continue; "
            "sandscope_outside \"$home\" \"$base.prompt\" && continue; fi; "
            "[ -f \"$f\" ] || continue; "
            "info=$(stat -c '%.3Y %s' -- \"$f\" 2>/dev/null) || continue; "
            "code=-; [ -f \"$base.exit\" ] && code=$(head -c 16 -- \"$base.exit\" | tr -dc "
            "'0-9-'); "
            "[ -n \"$code\" ] || code=-; "
            "alive=0; p=$(cat -- \"$base.pid\" 2>/dev/null) && "
            "tr '\\000' ' ' < /proc/\"$p\"/cmdline 2>/dev/null | grep -qF -- \"$run\" && alive=1; "
            "prompt=$(head -c %1 -- \"$base.prompt\" 2>/dev/null | tr '\\t\\n\\r' '   '); "
            "printf 'SANDSCOPE-RUNFILE\\t%s\\t%s\\t%s\\t%s\\t%s\\n' \"$info\" \"$code\" \"$alive\" "
            "\"$prompt\" \"$f\"; "
            "done; true")
              .arg(promptStartBytes);
}

bool parse(const QString &output, Listing *listing)
{
    *listing = Listing();
    listing->refused = pathguard::outsideRefusals(output);
    const bool sawHome = forEachListingRecord(
        output, homeMarker, runMarker, 6, &listing->home, [listing](const QStringList &fields) {
            DiscoveredRun run;
            run.teePath = fields.mid(5).join(QLatin1Char('\t'));
            const QFileInfo tee(run.teePath);
            run.runId = tee.completeBaseName();
            run.chatId = QFileInfo(tee.path()).fileName();
            if (tee.suffix() != QLatin1String("jsonl") || !claudecommand::isValidChatId(run.chatId)
                || !claudecommand::isValidRunId(run.runId))
                return; // not one of ours
            parseTimeAndSize(fields.at(1), &run.lastWrite, &run.size);
            bool exited = false;
            run.exitCode = fields.at(2).toInt(&exited);
            if (exited)
                run.state = DiscoveredRun::State::Finished;
            else if (fields.at(3) == QLatin1String("1"))
                run.state = DiscoveredRun::State::Running;
            else
                run.state = DiscoveredRun::State::Ended;
            run.promptStart = fields.at(4).trimmed();
            listing->runs.append(run);
        });
    std::stable_sort(listing->runs.begin(), listing->runs.end(),
        [](const DiscoveredRun &a, const DiscoveredRun &b) { return a.lastWrite > b.lastWrite; });
    return sawHome;
}

RunHandle handleFor(const Identity &identity, const QString &home, const DiscoveredRun &run)
{
    RunHandle handle;
    handle.identity = identity;
    handle.home = home;
    handle.chatId = run.chatId;
    handle.runId = run.runId;
    return handle; // no process id: RunLauncher follows the tee file
}

QString stateText(const DiscoveredRun &run)
{
    switch (run.state) {
    case DiscoveredRun::State::Running:
        return QStringLiteral("running");
    case DiscoveredRun::State::Finished:
        return QStringLiteral("exited %1").arg(run.exitCode);
    case DiscoveredRun::State::Ended:
        break;
    }
    return QStringLiteral("ended without exit status");
}

void list(OpenTerminalClient *client, const Identity &identity, QObject *context, Callback done)
{
    runListingScript<Listing>(
        client, identity, script(), QStringLiteral("the runs"), &parse, context, done);
}

} // namespace rundiscovery

// --- DiscoveredRunModel ------------------------------------------------------------------------

void DiscoveredRunModel::setListing(const rundiscovery::Listing &listing)
{
    // A fresh listing replaces the table; it is small and loaded on request.
    beginResetModel();
    m_listing = listing;
    endResetModel();
}

int DiscoveredRunModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_listing.runs.size());
}

int DiscoveredRunModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiscoveredRunModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const DiscoveredRun &run = m_listing.runs.at(index.row());
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case ChatColumn:
            return run.chatId;
        case RunColumn:
            return run.runId;
        case StateColumn:
            return rundiscovery::stateText(run);
        case SizeColumn:
            return QLocale().formattedDataSize(run.size);
        case LastWriteColumn:
            return QLocale().toString(run.lastWrite.toLocalTime(), QLocale::ShortFormat);
        case PromptColumn:
            return run.promptStart;
        }
    } else if (role == SortRole) {
        switch (index.column()) {
        case SizeColumn:
            return run.size;
        case LastWriteColumn:
            return run.lastWrite;
        case StateColumn:
            return int(run.state);
        default:
            return data(index, Qt::DisplayRole);
        }
    } else if (role == Qt::ToolTipRole) {
        return run.teePath;
    }
    return {};
}

QVariant DiscoveredRunModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ChatColumn:
        return tr("Chat");
    case RunColumn:
        return tr("Run");
    case StateColumn:
        return tr("State");
    case SizeColumn:
        return tr("Output");
    case LastWriteColumn:
        return tr("Last output");
    case PromptColumn:
        return tr("Prompt");
    }
    return {};
}

} // namespace sandscope
