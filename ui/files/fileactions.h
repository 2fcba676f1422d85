#pragma once
// The file browser's ten changes and transfers: upload (chosen or dropped files), download,
// new folder, new text file, edit, rename or move, delete. Each asks its questions through the
// page's FilesPrompter, refuses at once in read-only mode (FileOperations refuses and audits
// again), shows progress next to the page's busy indicator and failures in its message bar.
// The QActions that trigger them stay with FilesPage; the folders they change are listed again
// by the page, which watches FileOperations::finished.

#include "files/fileselection.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <functional>

class QLabel;
class QMimeData;
class QWidget;

namespace sandscope {

class FileOperations;
class FilesPrompter;
class MessageBar;
class OpenTerminalClient;
class RemoteFileModel;
struct FileOperationResult;

// What the actions need from the page that shows them. Every member must be set.
struct FileActionsHost {
    QWidget *page = nullptr; // parent of the prompter's dialogs
    MessageBar *messageBar = nullptr; // warnings and failures
    QLabel *operationLabel = nullptr; // what is being done, then what was done
    QWidget *busyIndicator = nullptr; // shown while an operation is in flight
    std::function<FileSelection()> selection; // the selected item, invalid when none
    // Where new items go without a selection (the selected folder otherwise).
    std::function<QString()> targetFolder;
    // Where dropped files go when they are not dropped onto an item: the shown folder.
    std::function<QString()> rootFolder;
    std::function<FilesPrompter *()> prompter;
    std::function<void(const QString &path)> goToPath; // select a created or saved item
    std::function<void()> previewSelected; // show the selected item again after saving it
};

class FileActions : public QObject {
    Q_OBJECT
public:
    explicit FileActions(FileActionsHost host, QObject *parent = nullptr);
    ~FileActions() override;

    // None is owned; they are replaced together when the page gets a new client.
    void setSession(OpenTerminalClient *client, RemoteFileModel *model, FileOperations *operations);

    // Operations started and not yet finished.
    int pendingOperations() const { return m_pendingOperations; }

    // Asks for local files and uploads them into the target folder.
    void upload();
    // Uploads local files into a remote folder (what a drop does), asking before replacing.
    void uploadFiles(const QStringList &localPaths, const QString &remoteDirectory);
    // What dropping `mime` onto `source` (an item of the RemoteFileModel, or invalid) does.
    void dropFiles(const QMimeData *mime, const QModelIndex &source);
    // Saves the selected file, or the selected folder as a ZIP archive, where the user says.
    void download();
    // Creates a folder in the target folder and selects it.
    void newFolder();
    // Creates a text file in the target folder from what the user types, then selects it.
    void newTextFile();
    // Opens the selected text file (up to 16 MiB) in the editor and saves it when changed.
    void editSelected();
    // Renames the selected item; a path moves it, asking before replacing what is there.
    void renameSelected();
    // Deletes the selected file or folder after asking.
    void deleteSelected();

private:
    bool refuseWhenReadOnly(const QString &what);
    bool isReadOnly() const;
    FilesPrompter *prompter() const { return m_host.prompter(); }
    void warn(const QString &text);
    void operationStarted(const QString &what);
    void operationEnded();
    void operationDone(const FileOperationResult &result, const QString &doneText = {});
    void moveWithConfirmation(const QString &source, const QString &destination);
    void writeTextFile(const QString &path, const QString &text);
    void saveDownload(const FileOperationResult &result, const QString &localPath);
    QModelIndex childNamed(const QModelIndex &folder, const QString &name) const;
    // Asks for the name of a new item; empty when cancelled or not a usable name.
    QString askNewName(const QString &title, const QString &label, const QString &initial);

    FileActionsHost m_host;
    QPointer<OpenTerminalClient> m_client;
    QPointer<RemoteFileModel> m_model;
    QPointer<FileOperations> m_operations;
    int m_pendingOperations = 0;
};

} // namespace sandscope
