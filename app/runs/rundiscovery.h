#pragma once
// The runs RunLauncher left in a user's sandbox (~/.sandscope/runs/<chat>/<run>.jsonl with its
// .exit, .pid and .prompt files), found with one command as that user, so a run can be
// re-attached after its tab, or the app, was closed: by following its tee file (RunLauncher::
// reattach with a handle without process id) until the exit file appears or its shell is gone.

#include "runs/runlauncher.h"
#include "server/connection.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QString>
#include <QVector>

#include <functional>

namespace sandscope {

class OpenTerminalClient;

struct DiscoveredRun {
    enum class State { Running, Finished, Ended }; // Ended: no exit file, shell gone (killed)
    QString chatId;
    QString runId;
    QString teePath;
    QString promptStart; // the first bytes of the prompt, on one line
    QDateTime lastWrite; // of the tee file, UTC
    qint64 size = 0; // of the tee file
    State state = State::Ended;
    int exitCode = 0; // when Finished
};

namespace rundiscovery {

// One POSIX sh command that prints SANDSCOPE-HOME=<home> and one tab-separated
// SANDSCOPE-RUNFILE line per tee file: "mtime size", exit code or '-', 1 when the run's shell
// is alive, the prompt's start, the tee path (last: the only field that could hold a tab).
QString script();

struct Listing {
    QString home;
    QVector<DiscoveredRun> runs; // most recently written first
    QStringList refused; // runs not listed: their files lead out of the home (messages)
};
// Parses the script's terminal output (CR LF and noise lines tolerated); false without the
// home line.
bool parse(const QString &output, Listing *listing);

// What RunLauncher::reattach needs to follow the run as `identity`.
RunHandle handleFor(const Identity &identity, const QString &home, const DiscoveredRun &run);

QString stateText(const DiscoveredRun &run);

using Callback = std::function<void(bool ok, const Listing &listing, const QString &error)>;
// Runs the script as `identity`; `done` runs once, never from inside list(), and not at all
// when `context` is destroyed first.
void list(OpenTerminalClient *client, const Identity &identity, QObject *context, Callback done);

} // namespace rundiscovery

// A user's runs as a table for the Attach dialog (sorted by a proxy).
class DiscoveredRunModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        ChatColumn,
        RunColumn,
        StateColumn,
        SizeColumn,
        LastWriteColumn,
        PromptColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1 };

    using QAbstractTableModel::QAbstractTableModel;

    void setListing(const rundiscovery::Listing &listing);
    const rundiscovery::Listing &listing() const { return m_listing; }
    const DiscoveredRun &run(int row) const { return m_listing.runs.at(row); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    rundiscovery::Listing m_listing;
};

} // namespace sandscope
