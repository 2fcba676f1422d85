#pragma once
// The files each of two compared runs touched (Read, Write, Edit, NotebookEdit), one row per
// path (normalised like the calls' input, so the same file in two chat folders is one row)
// with the tools that touched it on either side.

#include "compare/runcomparison.h"

#include <QAbstractTableModel>

namespace sandscope {

class TouchedFilesModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { PathColumn, LeftColumn, RightColumn, ColumnCount };
    enum Role {
        // Which side touched the file: 1 left only, 2 right only, 3 both.
        SidesRole = Qt::UserRole + 1,
    };

    explicit TouchedFilesModel(QObject *parent = nullptr);

    void setFiles(const QVector<RunComparison::FileTouch> &files);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QVector<RunComparison::FileTouch> m_files;
};

} // namespace sandscope
