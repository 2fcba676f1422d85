#pragma once
// The protocol of Sandscope's file follower (app/terminal/follower.py), free of any I/O.
//
// FollowChannel types the follower into a user's terminal: `bootstrapCommand` turns echo off
// and starts python3, which prints the load marker and reads the program (`program()`, exactly
// its byte count) from the terminal. From then on the follower puts its terminal in raw mode and
// talks in lines:
//
//   Sandscope -> follower                 follower -> Sandscope ("@SSF " + fields + " " + CRC)
//   add ID OFFSET INODE PATH64 TAIL       R VERSION PID MODE      ready (MODE: inotify or poll)
//   proc ID PIDFILE64 NEEDLE64            N ID INODE SIZE OFFSET  file opened; reading goes on
//   tree ID DIR64 SINCE                                          at OFFSET (0: it was replaced)
//   drop ID
//   sync TOKEN                            D ID OFFSET DATA64      bytes of the file at OFFSET
//   quit                                  T ID SIZE               truncated: read again from 0
//                                         G ID                    the file does not exist (now)
//                                         E ID MESSAGE64          cannot be read (also: a symbolic
//                                                                 link, a FIFO, a device)
//                                         X ID                    the watched process is gone
//                                         C ID PATH64             tree: a *.jsonl one folder below
//                                                                 DIR, new or written since SINCE
//                                                                 (epoch s), looked for each second
//                                         S TOKEN                 everything before was sent
//                                         H TIME                  heartbeat, every 5 s (TIME:
//                                                                 its clock, ms since the epoch)
//                                         F MESSAGE64             the follower failed and ends
//
// Agents mode (`agentsScript()`, one process as root through the admin channel, no commands;
// app/terminal/followeragents.py):
// R as above; A ID JSON64 when an agent (a running claude CLI) appears or its transcript
// changes: {"pid", "uid", "account", "home", "cwd", "transcript" (empty: not known yet),
// "session", "started" (seconds since the epoch)}; its transcript's bytes as N, D, T, G, E
// with the agent's ID; each sub-agent transcript of that session (<session>/subagents/
// agent-<SUB>.jsonl) the same way with the ID <agent ID>_<SUB>, after M <agent ID>_<SUB>
// META64 (its agent-<SUB>.meta.json, again whenever it changes); X ID once the agent ended
// (after its last bytes); H as above.
//
// Every byte of a file travels as base64 on a line of its own, so what the terminal does to
// text (CR LF, a prompt, escape sequences, the key masked) never touches the file's bytes; the
// CRC-32 of each frame catches a frame the terminal damaged anyway. Offsets make a reconnect
// resume exactly where the last frame ended: `add` again with that offset, the file's inode
// and TAIL, the length and CRC-32 (hex) of the last bytes received before the offset ("-": none
// known). The follower reads the file from 0 instead when the inode differs, when TAIL does not
// match the bytes there, and always when the file was gone (G) in between: a new file.

#include <QByteArray>
#include <QList>
#include <QString>

namespace sandscope::followprotocol {

// Heartbeats come every 5 s (H above); none for this long means the follower, its connection
// or its pod is gone, even when nothing says so.
constexpr int silenceLimitMs = 15000;
// How many bytes before a resume's offset must match (addCommand).
constexpr int tailBytes = 64;

struct Frame {
    enum class Kind {
        Loading, // the bootstrap runs: send the program now
        NoPython, // the sandbox account has no python3
        Ready,
        Opened,
        Data,
        Truncated,
        Gone,
        Error,
        ProcessGone,
        Created, // text: the new file's path
        Synced,
        Heartbeat,
        Fatal,
        Agent, // agents mode: an agent appeared or its transcript changed
        SubagentMeta, // agents mode: a sub-agent's meta file (data)
    };
    Kind kind = Kind::Heartbeat;
    QByteArray id;
    qint64 offset = 0; // Data: of the first byte; Opened: where reading goes on; Heartbeat: time
    qint64 inode = 0; // Opened
    qint64 size = 0; // Opened, Truncated
    QByteArray data; // Data; Agent, SubagentMeta: its JSON
    QString text; // Error, Fatal: the message; Ready: the mode; Synced: the token
    int version = 0; // Ready
};

// Splits terminal output into frames. Anything else on the terminal (a prompt, a login
// message, the shell's escape sequences) is not a frame and is dropped.
class FrameReader {
public:
    static constexpr int maxLineBytes = 1 << 20;

    void feed(const QByteArray &bytes);
    QList<Frame> takeFrames();
    // A frame line failed its CRC or did not parse, or a line grew past maxLineBytes: the
    // stream can no longer be trusted (the caller reconnects). The first such line is kept.
    bool isDamaged() const { return !m_damage.isEmpty(); }
    QString damage() const { return m_damage; }

private:
    void takeLine(const QByteArray &line);

    QByteArray m_pending;
    QList<Frame> m_frames;
    QString m_damage;
};

quint32 crc32(const QByteArray &bytes);
// Parses one frame line without its "\n" (a "\r" before it is allowed). False: not a frame.
bool parseFrame(const QByteArray &line, Frame *frame, QString *why);
// The line the follower writes for `fields` (for tests: the follower is the real writer).
QByteArray frameLine(const QByteArray &fields);

QByteArray program();
// Typed into the user's shell (any POSIX shell): echo off, then python3 reading the program.
QByteArray bootstrapCommand();
// `received`: the bytes delivered just before `offset` (its last tailBytes count; empty: not
// known). A file with the inode number `inode` resumes at `offset` only if its bytes there are
// these: ext4 gives a deleted file's inode number to the next file at once.
QByteArray addCommand(const QByteArray &id, const QString &path, qint64 offset, qint64 inode,
    const QByteArray &received = {});
// Watches a process: alive while the pid in `pidFile` runs a command line containing `needle`.
QByteArray processCommand(const QByteArray &id, const QString &pidFile, const QByteArray &needle);
// Watches for *.jsonl files one folder below `directory` that are new, or were written since
// `sinceSecs` (epoch) when the watch starts (Created frames).
QByteArray treeCommand(const QByteArray &id, const QString &directory, qint64 sinceSecs);
QByteArray dropCommand(const QByteArray &id);
QByteArray syncCommand(const QByteArray &token);
// The follower with its agents mode (app/terminal/followeragents.py before follower.py): the
// live wall's program, run by `python3 - agents`. Only the admin channel carries it; what a
// terminal gets typed stays program() (open-terminal 0.11 drops what a large terminal write
// does not fit).
QByteArray agentsProgram();
// The admin script (POSIX sh) that runs agentsProgram() as root: `sudo -n` when the channel's
// account is not root.
QString agentsScript();

} // namespace sandscope::followprotocol
