#include "filesverbs.h"

#include "claude/claudecommand.h"
#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/verbsupport.h"
#include "files/adminoverviewmodel.h"
#include "files/chatindexmodel.h"
#include "files/fileoperations.h"
#include "files/pathguard.h"
#include "fleet/fleetfanout.h"
#include "security/auditlog.h"
#include "security/secretredactor.h"
#include "server/openterminalclient.h"
#include "server/shortcommand.h"
#include "util/shellquote.h"
#include "util/terminalsafe.h"

#include <QCommandLineParser>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <cstdio>
#include <optional>

namespace sandscope::cli {

const QString chatsVerb = QStringLiteral("chats");
const QString filesVerb = QStringLiteral("files");

namespace {

enum ExitCode { Ok = 0, LocalError = 1, UsageError = 2, ServerError = 3 };

const QString chatDirectoryMarker = QStringLiteral("SANDSCOPE-CHAT-DIR=");

// ---------------------------------------------------------------------------------------
// Output and errors

void printJson(const QJsonValue &value)
{
    const QJsonDocument document
        = value.isArray() ? QJsonDocument(value.toArray()) : QJsonDocument(value.toObject());
    writeBytes(stdout, document.toJson(QJsonDocument::Indented));
}

QJsonValue timeOrNull(const QDateTime &time)
{
    return time.isValid() ? QJsonValue(isoTime(time)) : QJsonValue();
}

// Runs `start` (which starts one asynchronous action and hands it the callback) and spins an
// event loop until the callback has the answer.
template <typename T> T waitFor(const std::function<void(std::function<void(const T &)>)> &start)
{
    QEventLoop loop;
    std::optional<T> answer;
    start([&](const T &value) {
        answer = value;
        loop.quit();
    });
    if (!answer)
        loop.exec();
    return *answer;
}

// ---------------------------------------------------------------------------------------
// Arguments

// ---------------------------------------------------------------------------------------
// chats

QJsonObject chatAsJson(const ChatFolder &chat)
{
    return QJsonObject {
        {QStringLiteral("id"), chat.id},
        {QStringLiteral("account"), chat.account},
        {QStringLiteral("path"), chat.path},
        {QStringLiteral("size"), double(chat.size)},
        {QStringLiteral("last_activity"), timeOrNull(chat.lastActivity)},
        {QStringLiteral("last_activity_epoch"),
            chat.lastActivity.isValid() ? QJsonValue(double(chat.lastActivity.toSecsSinceEpoch()))
                                        : QJsonValue()},
    };
}

QString chatLine(const ChatFolder &chat)
{
    return TerminalSafe::line(chat.id).leftJustified(24) + QLatin1Char(' ')
        + QString::number(chat.size).rightJustified(14) + QStringLiteral("  ")
        + isoTime(chat.lastActivity).leftJustified(20) + QStringLiteral("  ")
        + TerminalSafe::line(chat.path) + QLatin1Char('\n');
}

int printUserChats(OpenTerminalClient &client, const ConnectionOptions &options, bool json)
{
    ChatIndexModel model(&client);
    Identity identity;
    identity.userId = options.userId;
    model.setIdentity(identity);
    const ApiError error = waitFor<ApiError>([&](auto done) {
        QObject::connect(&model, &ChatIndexModel::loaded, &model, [done] { done(ApiError()); });
        QObject::connect(&model, &ChatIndexModel::failed, &model, done);
        model.reload();
    });
    if (error.isError())
        return serverError(error, options);
    if (json) {
        QJsonArray chats;
        for (const ChatFolder &chat : model.chats())
            chats.append(chatAsJson(chat));
        printJson(QJsonObject {
            {QStringLiteral("user"), options.userId}, {QStringLiteral("chats"), chats}});
        return Ok;
    }
    QString text = QStringLiteral("CHAT").leftJustified(24) + QLatin1Char(' ')
        + QStringLiteral("BYTES").rightJustified(14) + QStringLiteral("  ")
        + QStringLiteral("LAST ACTIVITY (UTC)").leftJustified(20) + QStringLiteral("  PATH\n");
    for (const ChatFolder &chat : model.chats())
        text += chatLine(chat);
    writeBytes(stdout, text.toUtf8());
    return Ok;
}

int printAllUsers(
    OpenTerminalClient &client, const ConnectionOptions &options, FleetFanOut &fanOut, bool json)
{
    AdminOverviewModel model(&client);
    const bool fleet = fanOut.isFleet();
    if (fleet)
        model.setFanOut(&fanOut);
    else
        model.setAdminAccess(fanOut.targets().constFirst().admin);
    // A member that fails is named as it ends; the others' homes are still listed.
    QObject::connect(&model, &AdminOverviewModel::memberFailed, &model,
        [](const QString &message) { printError(message); });
    const ApiError error = waitFor<ApiError>([&](auto done) {
        QObject::connect(&model, &AdminOverviewModel::loaded, &model, [done] { done(ApiError()); });
        QObject::connect(&model, &AdminOverviewModel::failed, &model, done);
        QObject::connect(&model, &AdminOverviewModel::refused, &model, [done](const QString &why) {
            ApiError refusal;
            refusal.kind = ApiError::Kind::BadRequest;
            refusal.message = why;
            done(refusal);
        });
        model.reload();
    });
    if (error.isError()) {
        if (model.state() == ScanState::Refused) {
            printError(QStringLiteral("%1: %2 (pass --user ID for one user's chats)")
                           .arg(options.serverText(), model.errorText()));
            return ServerError;
        }
        if (fleet) {
            printError(QStringLiteral("no member of the fleet answered"));
            return ServerError;
        }
        return serverError(error, options);
    }
    const int exitCode = model.memberErrors().isEmpty() ? Ok : ServerError;
    if (json) {
        QJsonArray accounts;
        for (const AccountChats &account : model.accounts()) {
            QJsonArray chats;
            for (const ChatFolder &chat : account.chats)
                chats.append(chatAsJson(chat));
            QJsonObject object {
                {QStringLiteral("account"), account.account},
                {QStringLiteral("home"), account.home},
                {QStringLiteral("chat_count"), int(account.chats.size())},
                {QStringLiteral("total_size"), double(account.totalSize)},
                {QStringLiteral("last_activity"), timeOrNull(account.lastActivity)},
                {QStringLiteral("sessions"), account.sessions},
                {QStringLiteral("running_sessions"), account.runningSessions},
                {QStringLiteral("disk_bytes"),
                    account.diskBytes < 0 ? QJsonValue() : QJsonValue(double(account.diskBytes))},
                {QStringLiteral("chats"), chats},
            };
            if (fleet)
                object.insert(QStringLiteral("member"), account.member);
            accounts.append(object);
        }
        QJsonObject root {{QStringLiteral("accounts"), accounts}};
        if (fleet)
            root.insert(QStringLiteral("members"), membersJson(fanOut));
        printJson(root);
        return exitCode;
    }
    constexpr int memberWidth = 16;
    QString text = (fleet ? QStringLiteral("MEMBER").leftJustified(memberWidth) + QLatin1Char(' ')
                          : QString())
        + QStringLiteral("USER").leftJustified(34) + QStringLiteral(" CHATS ")
        + QStringLiteral("CHAT BYTES").rightJustified(14) + QStringLiteral("  ")
        + QStringLiteral("LAST ACTIVITY (UTC)").leftJustified(20)
        + QStringLiteral(" SESSIONS RUNNING ") + QStringLiteral("DISK BYTES").rightJustified(14)
        + QLatin1Char('\n');
    for (const AccountChats &account : model.accounts())
        text += (fleet ? TerminalSafe::line(account.member).leftJustified(memberWidth)
                            + QLatin1Char(' ')
                       : QString())
            + TerminalSafe::line(account.account).leftJustified(34) + QLatin1Char(' ')
            + QString::number(account.chats.size()).rightJustified(5) + QLatin1Char(' ')
            + QString::number(account.totalSize).rightJustified(14) + QStringLiteral("  ")
            + isoTime(account.lastActivity).leftJustified(20) + QLatin1Char(' ')
            + QString::number(account.sessions).rightJustified(8) + QLatin1Char(' ')
            + QString::number(account.runningSessions).rightJustified(7) + QLatin1Char(' ')
            + (account.diskBytes < 0 ? QStringLiteral("-") : QString::number(account.diskBytes))
                  .rightJustified(14)
            + QLatin1Char('\n');
    writeBytes(stdout, text.toUtf8());
    return exitCode;
}

// ---------------------------------------------------------------------------------------
// files

struct FilesContext {
    ConnectionOptions options;
    Identity identity;
    QString chatDirectory; // absolute, empty without --chat
    bool json = false;
};

QString resolveRemote(const FilesContext &context, const QString &path)
{
    if (context.chatDirectory.isEmpty() || path.startsWith(QLatin1Char('/')))
        return path;
    if (path.isEmpty() || path == QLatin1String("."))
        return context.chatDirectory;
    return context.chatDirectory + QLatin1Char('/') + path;
}

QString remoteBaseName(QString path)
{
    while (path.size() > 1 && path.endsWith(QLatin1Char('/')))
        path.chop(1);
    return path.mid(path.lastIndexOf(QLatin1Char('/')) + 1);
}

// The path of ~/chat-<id>. With `create` (for put and mkdir) it is created if needed, as the
// account so it belongs to it; reading never changes the user's home (issue 27).
Result<QString> chatDirectory(
    OpenTerminalClient &client, const FilesContext &context, const QString &chatId, bool create)
{
    const QString directory = shell::quote(QStringLiteral("chat-") + chatId);
    const QString script = QString((create ? QStringLiteral("mkdir -p -- ~/%1 && ") : QString())
        + QStringLiteral("cd -- ~/%1 && printf '%2%s\\n' \"$PWD\""))
                               .arg(directory, chatDirectoryMarker);
    const Result<CommandOutput> output = waitFor<Result<CommandOutput>>(
        [&](auto done) { runShortCommand(&client, context.identity, script, &client, done); });
    if (!output.ok())
        return Result<QString>::failure(output.error);
    for (const QString &line : output.value.lines) {
        const qsizetype at = line.indexOf(chatDirectoryMarker);
        if (at >= 0 && output.value.exitCode == 0)
            return Result<QString>::success(line.mid(at + chatDirectoryMarker.size()));
    }
    ApiError error;
    error.kind = ApiError::Kind::BadResponse;
    error.message = QStringLiteral("Could not %1 the chat folder ~/chat-%2 (exit code %3): %4")
                        .arg(create ? QStringLiteral("create") : QStringLiteral("enter"))
                        .arg(chatId)
                        .arg(output.value.exitCode)
                        .arg(output.value.lines.join(QLatin1Char(' ')));
    return Result<QString>::failure(error);
}

int reportOperation(const FilesContext &context, const FileOperationResult &result)
{
    using Status = FileOperationResult::Status;
    switch (result.status) {
    case Status::Ok:
        if (context.json) {
            QJsonObject json {{QStringLiteral("ok"), true},
                {QStringLiteral("action"), result.action}, {QStringLiteral("path"), result.path}};
            if (!result.destination.isEmpty())
                json.insert(QStringLiteral("destination"), result.destination);
            printJson(json);
        }
        return Ok;
    case Status::Conflict:
        printError(QStringLiteral("%1: %2 already exists; the server does not overwrite it "
                                  "(remove it first)")
                       .arg(context.options.serverText(), result.destination));
        return ServerError;
    case Status::ReadOnly:
    case Status::OutsideHome:
        printError(result.message());
        return LocalError;
    case Status::Failed:
        break;
    }
    return serverError(result.error, context.options);
}

FileOperationResult runOperation(const std::function<void(QObject *, FileOperations::Done)> &start)
{
    QObject context;
    return waitFor<FileOperationResult>([&](auto done) { start(&context, done); });
}

// LocalError with the message when `path`, resolved as the acting user, leads out of the
// user's home (the file API follows links as root); ServerError when it cannot be resolved;
// -1 to go on. The server account (no --user) is the admin's explicit path: not resolved.
int refuseOutsideHome(OpenTerminalClient &client, const FilesContext &context, const QString &path)
{
    if (context.identity.isServerAccount())
        return -1;
    const Result<PathResolution> resolved = waitFor<Result<PathResolution>>(
        [&](auto done) { pathguard::resolve(&client, context.identity, {path}, &client, done); });
    if (!resolved.ok())
        return serverError(resolved.error, context.options);
    if (const ResolvedPath *outside = resolved.value.firstOutside()) {
        printError(
            QStringLiteral("ls ") + resolved.value.refusal(*outside, context.identity.userId));
        return LocalError;
    }
    return -1;
}

// Reading a user's files (--user) is audited like reading the user's sessions; the server
// account's own files (no --user) are the admin's.
void auditFileRead(const FilesContext &context, const QString &action, const QString &path)
{
    if (!context.identity.isServerAccount())
        auditRead(context.options, action, path);
}

int filesList(OpenTerminalClient &client, const FilesContext &context, const QStringList &args)
{
    if (args.size() > 1)
        return usageError(QStringLiteral("ls takes at most one PATH"), filesVerb);
    const QString path = resolveRemote(context, args.value(0, QStringLiteral(".")));
    auditFileRead(context, QStringLiteral("list-files"), path);
    if (const int refused = refuseOutsideHome(client, context, path); refused >= 0)
        return refused;
    const Result<DirectoryListing> listing = waitFor<Result<DirectoryListing>>(
        [&](auto done) { client.listDirectory(context.identity, path, &client, done); });
    if (!listing.ok())
        return serverError(listing.error, context.options);
    if (context.json) {
        QJsonArray entries;
        for (const FileEntry &entry : listing.value.entries)
            entries.append(QJsonObject {
                {QStringLiteral("name"), entry.name},
                {QStringLiteral("type"),
                    entry.isDirectory ? QStringLiteral("directory") : QStringLiteral("file")},
                {QStringLiteral("size"), double(entry.size)},
                {QStringLiteral("modified"), timeOrNull(entry.modified)},
            });
        printJson(QJsonObject {{QStringLiteral("directory"), listing.value.directory},
            {QStringLiteral("entries"), entries}});
        return Ok;
    }
    QString text;
    for (const FileEntry &entry : listing.value.entries) {
        text += (entry.isDirectory ? QLatin1Char('d') : QLatin1Char('-')) + QLatin1Char(' ')
            + QString::number(entry.isDirectory ? 0 : entry.size).rightJustified(12)
            + QLatin1Char(' ')
            + (entry.modified.isValid()
                    ? entry.modified.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"))
                    : QStringLiteral("-").leftJustified(16))
            + QLatin1Char(' ') + TerminalSafe::line(entry.name)
            + (entry.isDirectory ? QStringLiteral("/\n") : QStringLiteral("\n"));
    }
    return writeBytes(stdout, text.toUtf8()) ? Ok : LocalError;
}

int filesCat(OpenTerminalClient &client, const FilesContext &context, const QStringList &args)
{
    if (args.size() != 1)
        return usageError(QStringLiteral("cat needs exactly one PATH"), filesVerb);
    FileOperations operations(&client);
    operations.setIdentity(context.identity, FileOperations::Acting::AsSelf);
    const QString path = resolveRemote(context, args.at(0));
    auditFileRead(context, QStringLiteral("read-file"), path);
    const FileOperationResult result = runOperation(
        [&](QObject *owner, auto done) { operations.downloadFile(path, owner, done); });
    if (!result.ok())
        return reportOperation(context, result);
    if (!writeBytes(stdout, result.bytes)) {
        printError(QStringLiteral("could not write to standard output"));
        return LocalError;
    }
    return Ok;
}

bool isRemoteFolder(OpenTerminalClient &client, const FilesContext &context, const QString &path)
{
    return waitFor<Result<DirectoryListing>>([&](auto done) {
        client.listDirectory(context.identity, path, &client, done);
    }).ok();
}

// A file is written as its bytes, a folder as the ZIP archive the server makes of it.
int filesGet(OpenTerminalClient &client, const FilesContext &context, const QStringList &args)
{
    if (args.size() != 2)
        return usageError(QStringLiteral("get needs REMOTE and LOCAL"), filesVerb);
    const QString remote = resolveRemote(context, args.at(0));
    auditFileRead(context, QStringLiteral("read-file"), remote);
    FileOperations operations(&client);
    operations.setIdentity(context.identity, FileOperations::Acting::AsSelf);
    FileOperationResult result = runOperation(
        [&](QObject *owner, auto done) { operations.downloadFile(remote, owner, done); });
    // /files/view answers 404 for a folder: only then is it worth asking what REMOTE is.
    const bool isFolder = !result.ok() && result.error.kind == ApiError::Kind::NotFound
        && isRemoteFolder(client, context, remote);
    if (isFolder)
        result = runOperation([&](QObject *owner, auto done) {
            operations.downloadFolderAsZip(remote, owner, done);
        });
    if (!result.ok())
        return reportOperation(context, result);
    QString local = args.at(1);
    if (local == QLatin1String("-"))
        return writeBytes(stdout, result.bytes) ? Ok : LocalError;
    if (QFileInfo(local).isDir()) {
        const QString name = !isFolder  ? remoteBaseName(remote)
            : result.fileName.isEmpty() ? remoteBaseName(remote) + QStringLiteral(".zip")
                                        : QFileInfo(result.fileName).fileName();
        local = local + QLatin1Char('/') + name;
    }
    // Written next to the target and renamed at the end: no half-written file on failure.
    QSaveFile file(local);
    if (!file.open(QIODevice::WriteOnly) || file.write(result.bytes) != result.bytes.size()
        || !file.commit()) {
        printError(QStringLiteral("could not write %1: %2").arg(local, file.errorString()));
        return LocalError;
    }
    if (context.json)
        printJson(QJsonObject {{QStringLiteral("ok"), true}, {QStringLiteral("path"), remote},
            {QStringLiteral("local"), QFileInfo(local).absoluteFilePath()},
            {QStringLiteral("size"), double(result.bytes.size())},
            {QStringLiteral("format"), isFolder ? QStringLiteral("zip") : QStringLiteral("file")}});
    return Ok;
}

int filesPut(FileOperations &operations, const FilesContext &context, const QStringList &args)
{
    if (args.size() != 2)
        return usageError(QStringLiteral("put needs LOCAL and REMOTE"), filesVerb);
    const QString local = args.at(0);
    QFile file(local);
    if (!QFileInfo(local).isFile() || !file.open(QIODevice::ReadOnly)) {
        printError(QStringLiteral("cannot read %1: %2")
                       .arg(local,
                           QFileInfo(local).isDir() ? QStringLiteral("it is a folder")
                                                    : file.errorString()));
        return LocalError;
    }
    const QByteArray bytes = file.readAll();
    // REMOTE ending in "/" (or "." / "..") is a folder that keeps the local name; anything
    // else names the file itself.
    const QString remote = args.at(1);
    const bool isFolder = remote.endsWith(QLatin1Char('/')) || remote == QLatin1String(".")
        || remote == QLatin1String("..") || remote.endsWith(QLatin1String("/."))
        || remote.endsWith(QLatin1String("/.."));
    QString directory;
    QString name;
    if (isFolder) {
        directory = resolveRemote(context, remote);
        name = QFileInfo(local).fileName();
    } else {
        const QString target = resolveRemote(context, remote);
        const qsizetype slash = target.lastIndexOf(QLatin1Char('/'));
        directory = slash < 0 ? QStringLiteral(".")
                              : (slash == 0 ? QStringLiteral("/") : target.left(slash));
        name = target.mid(slash + 1);
    }
    const FileOperationResult result = runOperation([&](QObject *owner, auto done) {
        operations.uploadData(directory, name, bytes, owner, done);
    });
    return reportOperation(context, result);
}

QString filesHelpOperations()
{
    return QStringLiteral(
        "\nOperations (remote paths are absolute, or relative to the home; with --chat\n"
        "relative to ~/chat-<ID>, which is created when missing):\n"
        "  ls [PATH]            list a folder\n"
        "  cat PATH             write the file's exact bytes to standard output\n"
        "  get REMOTE LOCAL     download a file, or a folder as a ZIP archive (LOCAL may\n"
        "                       be a local folder, or - for stdout)\n"
        "  put LOCAL REMOTE     upload a file byte for byte (REMOTE ending in / is a folder)\n"
        "  rm PATH              delete a file or, recursively, a folder\n"
        "  mkdir PATH           create a folder and its parents\n"
        "  mv FROM TO           move or rename; fails (exit 3) when TO exists\n"
        "Changes (put, rm, mkdir, mv) are written to the audit log, and so are reads (ls,\n"
        "cat, get) as a --user.\n");
}

} // namespace

QString filesVerbsSummary()
{
    return QStringLiteral(
        "  chats         List a user's chats (~/chat-*) with size and last activity;\n"
        "                without --user, every account under /home (as root)\n"
        "  files         ls, cat, get, put, rm, mkdir, mv on a user's files\n");
}

int runChats(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Lists the chat folders (~/chat-*) of --user with their size and last\n"
                       "activity, measured on the server in one command. Without --user, lists\n"
                       "every account under /home with its chats, sessions (running now) and\n"
                       "disk use, as root in the sandbox: through --admin-exec (or the\n"
                       "profile's admin command), else as the server's own account, which\n"
                       "multi-user servers from 0.12 on refuse (exit 3)."));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print one JSON object."));
    parser.addOption(jsonOption);
    // Said out loud like the other every-user verbs; without --user it is the default.
    const QCommandLineOption allUsersOption(QStringLiteral("all-users"),
        QStringLiteral("Every account under /home (the default without --user)."));
    parser.addOption(allUsersOption);
    parser.addOption(adminExecOption());
    parser.addOption(memberTimeoutOption());
    ConnectionOptions options;
    const int parsed = parseVerbArguments(
        parser, chatsVerb, arguments, QStringLiteral("chats [options]"), options, QString());
    if (parsed >= 0)
        return parsed;
    if (!parser.positionalArguments().isEmpty())
        return usageError(QStringLiteral("chats takes no arguments, got \"%1\"")
                              .arg(parser.positionalArguments().join(QLatin1Char(' '))),
            chatsVerb);
    if (!options.userId.isEmpty() && parser.isSet(QStringLiteral("admin-exec")))
        return usageError(
            QStringLiteral("--admin-exec is for every user's chats (without --user)"), chatsVerb);
    if (parser.isSet(allUsersOption) && parser.isSet(QStringLiteral("user")))
        return usageError(QStringLiteral("--all-users and --user exclude each other"), chatsVerb);
    OpenTerminalClient client(options.connection);
    if (!options.userId.isEmpty() && !parser.isSet(allUsersOption)) {
        auditRead(options, QStringLiteral("read-chats"), QStringLiteral("~/chat-*"));
        return printUserChats(client, options, parser.isSet(jsonOption));
    }
    QString why;
    const std::unique_ptr<FleetFanOut> fanOut = adminFanOut(parser, options, &client, &why);
    if (!fanOut)
        return usageError(why, chatsVerb);
    const QString where = fanOut->isFleet() ? QStringLiteral("on every member of the fleet")
                                            : fanOut->targets().constFirst().admin.describe();
    printError(QStringLiteral("Listing every home %1").arg(where));
    auditRead(options, QStringLiteral("read-chats"), QStringLiteral("every home ") + where);
    return printAllUsers(client, options, *fanOut, parser.isSet(jsonOption));
}

int runFiles(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Works on the files of --user (or of the server's own account)."));
    const QCommandLineOption jsonOption(QStringLiteral("json"),
        QStringLiteral("Print JSON (ls: the listing; changes: what was done)."));
    const QCommandLineOption chatOption(QStringLiteral("chat"),
        QStringLiteral("Resolve relative remote paths inside ~/chat-<ID>."), QStringLiteral("ID"));
    parser.addOption(jsonOption);
    parser.addOption(chatOption);
    parser.addPositionalArgument(QStringLiteral("operation"),
        QStringLiteral("ls, cat, get, put, rm, mkdir or mv"), QStringLiteral("<op> ARGS..."));
    ConnectionOptions options;
    const int parsed = parseVerbArguments(parser, filesVerb, arguments,
        QStringLiteral("files <op> [options] ARGS..."), options, filesHelpOperations());
    if (parsed >= 0)
        return parsed;
    QStringList args = parser.positionalArguments();
    if (args.isEmpty())
        return usageError(QStringLiteral("files needs an operation"), filesVerb);
    const QString operation = args.takeFirst();
    static const QStringList operations {QStringLiteral("ls"), QStringLiteral("cat"),
        QStringLiteral("get"), QStringLiteral("put"), QStringLiteral("rm"), QStringLiteral("mkdir"),
        QStringLiteral("mv")};
    if (!operations.contains(operation))
        return usageError(
            QStringLiteral("unknown files operation \"%1\"").arg(operation), filesVerb);

    FilesContext context;
    context.options = options;
    context.identity.userId = options.userId;
    context.json = parser.isSet(jsonOption);
    OpenTerminalClient client(options.connection);
    // The command line is explicit: what it is told to change, it changes (not read-only),
    // and every change is recorded.
    FileOperations changes(&client);
    changes.setIdentity(context.identity, FileOperations::Acting::AsSelf);
    changes.setAuditContext(options.profileName, options.serverText());

    if (parser.isSet(chatOption)) {
        const QString chatId = parser.value(chatOption);
        QString why;
        if (!claudecommand::isValidChatId(chatId, &why))
            return usageError(
                QStringLiteral("--chat \"%1\" refused: %2").arg(chatId, why), filesVerb);
        const bool create
            = operation == QLatin1String("put") || operation == QLatin1String("mkdir");
        const Result<QString> directory = chatDirectory(client, context, chatId, create);
        if (create)
            AuditLog().append({options.profileName, options.serverText(), options.userId,
                QStringLiteral("mkdir"), QStringLiteral("~/chat-") + chatId,
                directory.ok() ? QStringLiteral("ok") : directory.error.toString()});
        if (!directory.ok())
            return serverError(directory.error, options);
        context.chatDirectory = directory.value;
    }

    if (operation == QLatin1String("ls"))
        return filesList(client, context, args);
    if (operation == QLatin1String("cat"))
        return filesCat(client, context, args);
    if (operation == QLatin1String("get"))
        return filesGet(client, context, args);
    if (operation == QLatin1String("put"))
        return filesPut(changes, context, args);

    const auto expect = [&](int count, const QString &what) {
        return args.size() == count
            ? -1
            : usageError(QStringLiteral("%1 needs %2").arg(operation, what), filesVerb);
    };
    FileOperationResult result;
    if (operation == QLatin1String("rm")) {
        if (const int usage = expect(1, QStringLiteral("exactly one PATH")); usage >= 0)
            return usage;
        result = runOperation([&](QObject *owner, auto done) {
            changes.remove(resolveRemote(context, args.at(0)), owner, done);
        });
    } else if (operation == QLatin1String("mkdir")) {
        if (const int usage = expect(1, QStringLiteral("exactly one PATH")); usage >= 0)
            return usage;
        result = runOperation([&](QObject *owner, auto done) {
            changes.makeDirectory(resolveRemote(context, args.at(0)), owner, done);
        });
    } else {
        if (const int usage = expect(2, QStringLiteral("FROM and TO")); usage >= 0)
            return usage;
        result = runOperation([&](QObject *owner, auto done) {
            changes.move(resolveRemote(context, args.at(0)), resolveRemote(context, args.at(1)),
                FileOperations::OnConflict::Report, owner, done);
        });
    }
    return reportOperation(context, result);
}

} // namespace sandscope::cli
