#include "liveverb.h"

#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/verbsupport.h"
#include "fleet/fleetlivewatcher.h"
#include "live/liveagentmodel.h"
#include "live/liveagentproxy.h"
#include "live/liveagentwatcher.h"
#include "security/auditlog.h"
#include "server/openterminalclient.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSocketNotifier>
#include <QTimer>

#include <cstdio>
#include <sys/ioctl.h>
#include <unistd.h>

namespace sandscope::cli {

const QString liveVerb = QStringLiteral("live");

namespace {

// Columns of the text table: user, chat, session, tool, tokens, cost, activity; the last
// line takes what is left of the terminal's width.
const QList<int> liveWidths {16, 14, 8, 22, 22, 10, 13};
constexpr int memberWidth = 16;
constexpr int lastLineMinimum = 20;

int terminalWidth()
{
    winsize size {};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return size.ws_col;
    return 160;
}

QString cell(const QString &text, int width)
{
    return text.size() > width ? text.left(width - 1) + QStringLiteral("…")
                               : text.leftJustified(width);
}

// `fleet`: a MEMBER column first.
QString tableText(const QAbstractItemModel &view, int width, bool fleet)
{
    using Model = LiveAgentModel;
    QList<int> columns {Model::UserColumn, Model::ChatColumn, Model::SessionColumn,
        Model::ToolColumn, Model::TokensColumn, Model::CostColumn, Model::ActivityColumn};
    QList<int> widths = liveWidths;
    if (fleet) {
        columns.prepend(Model::MemberColumn);
        widths.prepend(memberWidth);
    }
    int used = 0;
    for (const int w : std::as_const(widths))
        used += w + 2;
    const int rest = std::max(lastLineMinimum, width - used);
    QString text;
    for (int i = 0; i < columns.size(); ++i)
        text += cell(view.headerData(columns.at(i), Qt::Horizontal, Qt::DisplayRole)
                         .toString()
                         .toUpper(),
                    widths.at(i))
            + QStringLiteral("  ");
    text += QStringLiteral("LAST LINE\n");
    for (int row = 0; row < view.rowCount(); ++row) {
        QString line;
        for (int i = 0; i < columns.size(); ++i) {
            QString value = view.index(row, columns.at(i)).data().toString();
            if (columns.at(i) == Model::SessionColumn)
                value.truncate(8); // a session id's usual short form
            line += cell(value, widths.at(i)) + QStringLiteral("  ");
        }
        line += cell(view.index(row, Model::LastLineColumn).data().toString(), rest);
        text += line.trimmed() + QLatin1Char('\n');
    }
    if (view.rowCount() == 0)
        text += QStringLiteral("(no agent is running)\n");
    return text;
}

// `now`: on the sandbox's clock (LiveAgentWatcher::serverNowMs), as the records' times are.
QJsonObject agentJson(const LiveAgentRow &row, const QString &event, qint64 now)
{
    QJsonObject tokens {{QStringLiteral("input"), double(row.summary.inputTokens)},
        {QStringLiteral("output"), double(row.summary.outputTokens)},
        {QStringLiteral("cache_read"), double(row.summary.cacheReadTokens)},
        {QStringLiteral("cache_creation"), double(row.summary.cacheCreationTokens)}};
    QJsonObject object {{QStringLiteral("event"), event},
        {QStringLiteral("agent"), QString::fromUtf8(row.info.id)},
        {QStringLiteral("user"), row.info.account}, {QStringLiteral("uid"), double(row.info.uid)},
        {QStringLiteral("pid"), double(row.info.pid)},
        {QStringLiteral("chat"), stringOrNull(row.info.chatId())},
        {QStringLiteral("session"), stringOrNull(row.info.sessionId)},
        {QStringLiteral("cwd"), row.info.cwd},
        {QStringLiteral("transcript"), stringOrNull(row.info.transcript)},
        {QStringLiteral("tool"), stringOrNull(row.toolName)},
        {QStringLiteral("elapsed_ms"),
            row.toolName.isEmpty() || row.toolStartedMs <= 0
                ? QJsonValue()
                : QJsonValue(double(std::max<qint64>(0, now - row.toolStartedMs)))},
        {QStringLiteral("tokens"), tokens},
        {QStringLiteral("cost_usd"),
            row.summary.costUsd > 0 ? QJsonValue(row.summary.costUsd) : QJsonValue()},
        {QStringLiteral("last_line"), stringOrNull(row.lastLine)},
        {QStringLiteral("last_activity"),
            isoTime(QDateTime::fromMSecsSinceEpoch(row.lastActivityMs, Qt::UTC))},
        {QStringLiteral("problem"), stringOrNull(row.problem)}};
    if (!row.info.member.isEmpty())
        object.insert(QStringLiteral("member"), row.info.member);
    return object;
}

class LiveWall {
public:
    LiveWall(bool json, FleetFanOut *fanOut)
        : m_json(json)
        , m_interactive(!json && ::isatty(STDOUT_FILENO) == 1)
        , m_fleet(fanOut->isFleet())
        , m_watcher(fanOut)
    {
        m_proxy.setSourceModel(&m_model);
        m_model.setClock([this] { return m_watcher.nowMs(); });
        QObject::connect(&m_watcher, &FleetLiveWatcher::agentsChanged, &m_loop,
            [this](const QVector<LiveAgentRow> &changed, const QList<QByteArray> &ended) {
                show(changed, ended);
            });
        // A fleet's member that fails is named; the others' agents stay on the wall.
        QObject::connect(
            &m_watcher, &FleetLiveWatcher::memberFailed, &m_loop, [this](const QString &why) {
                printError(why);
                m_exitCode = serverErrorExitCode;
            });
        QObject::connect(&m_watcher, &FleetLiveWatcher::failed, &m_loop, [this] {
            m_exitCode = serverErrorExitCode;
            m_loop.quit();
        });
        QObject::connect(&m_watcher, &FleetLiveWatcher::memberWatching, &m_loop, [this] {
            if (!m_json)
                redraw();
        });
        // The elapsed times move on a terminal even while nothing is written.
        m_redraw.setInterval(1000);
        QObject::connect(&m_redraw, &QTimer::timeout, &m_loop, [this] { redraw(); });
    }

    int exec()
    {
        const auto stop = onStopSignals([this](int) {
            m_watcher.stop();
            m_loop.quit();
        });
        m_watcher.start();
        if (m_interactive)
            m_redraw.start();
        m_loop.exec();
        m_watcher.stop();
        return m_exitCode;
    }

private:
    void show(const QVector<LiveAgentRow> &changed, const QList<QByteArray> &ended)
    {
        if (m_json) {
            const qint64 now = m_watcher.nowMs();
            QHash<QByteArray, LiveAgentRow> last;
            for (const LiveAgentRow &row : changed) {
                writeJson(agentJson(row, QStringLiteral("agent"), now));
                last.insert(row.info.id, row);
            }
            for (const QByteArray &id : ended) {
                const int row = m_model.rowOf(id);
                if (last.contains(id))
                    writeJson(agentJson(last.value(id), QStringLiteral("ended"), now));
                else if (row >= 0)
                    writeJson(agentJson(m_model.agentAt(row), QStringLiteral("ended"), now));
            }
        }
        m_model.apply(changed, ended);
        if (!m_json)
            redraw();
    }

    void writeJson(const QJsonObject &object)
    {
        if (!writeBytes(stdout, QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n'))
            m_loop.quit(); // stdout closed: nobody reads any more
    }

    void redraw()
    {
        const QString table = tableText(m_proxy, terminalWidth(), m_fleet);
        bool written = false;
        if (m_interactive) {
            // Home, the table (its texts are terminal-safe: the model's), each line and the
            // rest of the screen cleared: no flicker, nothing stale.
            QString screen = table;
            screen.replace(QLatin1String("\n"), QLatin1String("\x1b[K\n"));
            written = writeBytes(stdout, "\x1b[H" + screen.toUtf8() + "\x1b[J");
        } else {
            written = writeTerminalText(stdout,
                QStringLiteral("-- %1\n").arg(isoTime(QDateTime::currentDateTimeUtc())) + table
                    + QLatin1Char('\n'));
        }
        if (!written)
            m_loop.quit();
    }

    bool m_json;
    bool m_interactive;
    bool m_fleet;
    QEventLoop m_loop;
    FleetLiveWatcher m_watcher;
    LiveAgentModel m_model;
    LiveAgentProxy m_proxy;
    QTimer m_redraw;
    int m_exitCode = 0;
};

} // namespace

int runLive(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Every running Claude Code agent on the server, newest activity first: user, chat,\n"
        "session, the tool call running now with its elapsed time, tokens and cost so far,\n"
        "and the last line; updated as the agents write (pushed, within a second). One\n"
        "process runs as root in the sandbox for all users and finds the agents itself, so\n"
        "agents started by Open WebUI or by hand are listed too. Ctrl+C ends it."));
    const QCommandLineOption allUsers(QStringLiteral("all-users"),
        QStringLiteral("Every user's agents (required), as root in the sandbox: through "
                       "--admin-exec or the profile's admin command, else the server's own "
                       "account. Audited."));
    const QCommandLineOption jsonOption(QStringLiteral("json"),
        QStringLiteral("One JSON object per line per change: event (agent or ended), agent, "
                       "user, uid, pid, chat, session, cwd, transcript, tool, elapsed_ms, "
                       "tokens, cost_usd, last_line, last_activity, problem."));
    parser.addOptions({allUsers, jsonOption, adminExecOption()});
    const QString usage = QStringLiteral(
        "live (--server URL | --fleet FILE) --all-users [--admin-exec PREFIX] [--json]");
    ConnectionOptions options;
    const int parsed = parseVerbArguments(parser, liveVerb, arguments, usage, options,
        QStringLiteral("On a terminal the table is redrawn in place; otherwise a snapshot is\n"
                       "appended after each change.\n"));
    if (parsed >= 0)
        return parsed;
    if (!parser.positionalArguments().isEmpty())
        return usageError(QStringLiteral("live takes no arguments"), liveVerb);
    if (!parser.isSet(allUsers))
        return usageError(
            QStringLiteral("live needs --all-users (the wall shows every user's agents)"),
            liveVerb);
    OpenTerminalClient client(options.connection);
    QString adminError;
    const std::unique_ptr<FleetFanOut> fanOut
        = adminFanOut(parser, options, &client, &adminError, false);
    if (!fanOut)
        return usageError(adminError, liveVerb);
    const QString how = fanOut->isFleet() ? QCoreApplication::translate("live",
                            "on %n fleet member(s), each through its admin command", nullptr,
                            int(fanOut->targets().size()))
                                          : fanOut->targets().constFirst().admin.describe();
    printError(QStringLiteral("Watching every running agent %1").arg(how));
    AuditLog log;
    // Who watches: the acting user (--user or the profile's), if any, like the other verbs.
    if (!log.append({options.profileName, options.serverText(), options.userId,
            QStringLiteral("live-all-users"), how, QStringLiteral("started")}))
        printError(QStringLiteral("warning: could not write the audit log %1").arg(log.path()));
    LiveWall wall(parser.isSet(jsonOption), fanOut.get());
    return wall.exec();
}

QString liveVerbSummary()
{
    return QStringLiteral(
        "  live          Every running agent of every user, live (as root, --all-users)\n");
}

} // namespace sandscope::cli
