#pragma once
// The isolation probe as a table: one row per check (allChecks() order), one column per
// ordered user pair ("A → B": what B can do to A) plus a last "server" column for the
// server-wide checks. Results arrive one by one during a run and change single cells
// (dataChanged); the model is only reset when a new run or a loaded report is set.

#include "probereport/probereport.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QStringList>

namespace sandscope {

class ProbeMatrixModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role {
        VerdictRole = Qt::UserRole + 1, // int(Verdict), invalid when the cell has no result
        SeverityRole, // severityName() of the row's check
        ExplanationRole, // the result's explanation
        EvidenceRole, // the requests and responses behind the cell, as text
        FailMeaningRole, // what a FAIL of the row's check means for a deployment
        CheckKeyRole, // "files.read"
        SubjectRole, // the column's subject ("A → B" or "server")
        // false where a server-wide check meets a pair column or vice versa, and where a check
        // across members meets a pair on one member or vice versa
        ApplicableRole,
    };
    Q_ENUM(Role)

    explicit ProbeMatrixModel(QObject *parent = nullptr);

    // Starts over with the columns of these users and no results.
    // On a fleet, `userMembers` (user -> member) keeps the columns to pairs on one member.
    void setUsers(const QStringList &users, const QMap<QString, QString> &userMembers = {});
    // Shows a finished (e.g. loaded) report.
    void setReport(const ProbeReport &report);
    // Adds or replaces one cell (also for a rerun of a single check).
    void addResult(const CheckResult &result);

    const CheckResult *resultAt(const QModelIndex &index) const;
    CheckId checkAt(int row) const;
    QString subjectAt(int column) const;
    QModelIndex indexOf(CheckId check, const QString &subject) const;

    static QString evidenceText(const CheckResult &result);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    static QString cellKey(int row, const QString &subject);
    bool applicable(int row, int column) const;

    QStringList m_subjects;
    QMap<QString, QString> m_userMembers; // on a fleet: user -> member
    QHash<QString, CheckResult> m_results; // by cellKey
};

} // namespace sandscope
