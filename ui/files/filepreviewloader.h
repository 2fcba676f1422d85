#pragma once
// Loads what the file browser previews into its PreviewPane: the first previewLines lines of a
// text file (all of them on "Load all"), the bytes of an image or other binary up to
// maxRawPreviewBytes, or a line about a folder. One request at a time: a new one, cancel() or a
// new client or identity aborts the one in flight, and a late answer to it is ignored. Acting
// as a user, the file is resolved and read in one command in the user's own shell
// (pathguard::readAsUser): a path that leads out of the user's home is not previewed, and the
// kernel applies the user's own permissions, which the server's file API (root) would not,
// with no window between a check and the read. The server account reads through the file API.

#include "files/fileselection.h"
#include "server/connection.h"
#include "server/openterminalclient.h"

#include <QObject>
#include <QPointer>

#include <functional>

namespace sandscope {

class PreviewPane;
class RemoteFileModel;

class FilePreviewLoader : public QObject {
    Q_OBJECT
public:
    // Text previews start with this many lines; "Load all" fetches the rest.
    static constexpr int previewLines = 2000;
    // Files that only have a raw preview (images, binaries) are fetched up to this size.
    static constexpr qint64 maxRawPreviewBytes = 48 * 1024 * 1024;
    // Acting as a user, a text preview reads at most this much (previewLines lines at most).
    static constexpr qint64 previewTextBytes = 4 * 1024 * 1024;

    // The pane is not owned and must outlive the loader.
    explicit FilePreviewLoader(PreviewPane *pane, QObject *parent = nullptr);
    ~FilePreviewLoader() override;

    // Not owned; nullptr means "not connected" (show() then clears the pane).
    void setClient(OpenTerminalClient *client);
    void setIdentity(const Identity &identity);

    // Shows `item`: its content for a file, a summary from `model` for a folder, nothing when
    // `item` is invalid.
    void show(const FileSelection &item, const RemoteFileModel *model);
    // Fetches the whole of the text file `item`.
    void loadAll(const FileSelection &item);
    // Aborts the request in flight; the pane keeps what it shows.
    void cancel();
    // True while a request is in flight.
    bool isLoading() const { return m_resolving || m_call.isRunning(); }

    // Called with the path and "ok" or the error after each file read (the audit of reads).
    void setReadHook(std::function<void(const QString &path, const QString &result)> hook)
    {
        m_readHook = std::move(hook);
    }

    // Whether a file of this type is fetched as bytes rather than as text.
    static bool prefersRawBytes(const QString &mimeType);
    // Whether a file of this type can be opened in the text editor.
    static bool isEditableText(const QString &mimeType) { return !prefersRawBytes(mimeType); }
    // Whether bytes read as a user are text (no NUL, valid UTF-8).
    static bool looksLikeText(const QByteArray &bytes);

private:
    void showFolder(const FileSelection &item, const RemoteFileModel *model);
    // Acting as a user: reads `item` in the user's shell (up to lastLine lines of text, all
    // with 0); the pane says which link leads out of the home when one does.
    void readAsUser(const FileSelection &item, bool raw, int lastLine);
    // Says so in the pane when a raw preview of `size` bytes is too large.
    bool tooLarge(const QString &path, qint64 size);
    void fetchText(const QString &path, const QString &name, qint64 size, int lastLine);
    void fetchRaw(const QString &path, const QString &name, qint64 size);
    void readDone(const QString &path, const ApiError &error);

    PreviewPane *m_pane = nullptr;
    QPointer<OpenTerminalClient> m_client;
    Identity m_identity;
    QString m_home; // the acting user's home, for messages
    CallHandle m_call;
    quint64 m_ticket = 0;
    bool m_resolving = false; // the file is being read as the user (readAsUser)
    std::function<void(const QString &, const QString &)> m_readHook;
};

} // namespace sandscope
