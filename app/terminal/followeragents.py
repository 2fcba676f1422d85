# The live wall's mode of Sandscope's file follower (app/terminal/follower.py), sent with it
# only through the admin channel (followprotocol::agentsScript: this file, then follower.py, as
# one program run as root by `python3 - agents`): one process for every user finds the running
# Claude Code agents itself and follows each one's transcript with follower.py's Followed.
# Kept apart so that the program FollowChannel types into a user's terminal stays small.
import json
import os
import pwd
import select
import stat
import struct
import time


def changed_dirs(inotify):
    """The watched folders that had events; None when the queue overflowed (look at all)."""
    names = {wd: d for d, wd in inotify.watches.items()}
    dirs = set()
    try:
        while True:
            data = os.read(inotify.fd, 65536)
            if not data:
                break
            at = 0
            while at + 16 <= len(data):
                wd, mask, _, size = struct.unpack_from("iIII", data, at)
                at += 16 + size
                if mask & 0x4000:  # IN_Q_OVERFLOW
                    return None
                if wd in names:
                    dirs.add(names[wd])
                    if mask & 0x8000:  # IN_IGNORED: the folder went; watch it again
                        inotify.watches.pop(names[wd], None)
    except OSError:
        pass
    return dirs


# Agents mode. An agent is a process whose command line is the claude CLI (its own binary, or
# node running the claude-code package); a claude started by another agent is part of that
# one. Its transcript is <config>/projects/<cwd slug>/<session>.jsonl, where <config> is the
# process's CLAUDE_CONFIG_DIR, else $HOME/.claude, else its account's home's (as the CLI
# decides), and <session> comes from --session-id or --resume, else it is the newest
# transcript of that folder the process has open or wrote since it started. Only a regular
# file owned by the agent's uid is read: as root, a link or a file of someone else is never
# followed (a user could point a transcript at /etc/shadow).
SESSION_OPTIONS = (b"--session-id", b"--resume", b"-r")
SCAN_PERIOD = 0.25
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def boot_time():
    with open("/proc/stat", "rb") as f:
        for line in f:
            if line.startswith(b"btime "):
                return int(line.split()[1])
    return 0


def is_claude(argv):
    if not argv:
        return False
    name = os.path.basename(argv[0])
    if name in (b"claude", b"claude.exe"):
        return True
    if name in (b"node", b"nodejs", b"bun") and len(argv) > 1:
        script = argv[1]
        return b"claude-code" in script and os.path.basename(script) in (b"cli.js", b"cli.mjs")
    return False


def session_argument(argv):
    if b"--fork-session" in argv:
        return None  # the CLI makes a new session of it
    for i, word in enumerate(argv):
        value = None
        if word in SESSION_OPTIONS and i + 1 < len(argv):
            value = argv[i + 1]
        elif word.startswith(b"--session-id=") or word.startswith(b"--resume="):
            value = word.split(b"=", 1)[1]
        if value is not None and 8 <= len(value) <= 100 and all(
                c in b"0123456789abcdefABCDEF-" for c in value):
            return value.decode("ascii")
    return None


def project_slug(path):
    """The CLI's folder name for a working directory (app/sessions/sessiondiscovery.h)."""
    units = path.encode("utf-16-le", "surrogatepass")
    name = []
    h = 0
    for i in range(0, len(units), 2):
        u = units[i] | (units[i + 1] << 8)
        h = (h * 31 + u) & 0xFFFFFFFF
        name.append(chr(u) if u < 128 and chr(u).isalnum() else "-")
    name = "".join(name)
    if len(name) <= 200:
        return name
    h = abs(h - (1 << 32) if h >= (1 << 31) else h)
    digits = ""
    while True:
        h, r = divmod(h, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + digits
        if not h:
            return name[:200] + "-" + digits


def mount_namespace(pid):
    try:
        return os.readlink("/proc/%s/ns/mnt" % pid)
    except OSError:
        return None


# An agent belongs to this sandbox when it sees the same files: a process in another mount
# namespace (another container on the host, another pod's sandbox on a node that shares its
# process ids) has other homes, and its transcript's path would name a file here that is not
# its own. Where the namespace cannot be read, the process is not left out.
OWN_MOUNTS = mount_namespace("self")


def same_files(pid):
    theirs = mount_namespace(pid)
    return OWN_MOUNTS is None or theirs is None or theirs == OWN_MOUNTS


def read_proc(pid, name):
    with open("/proc/%d/%s" % (pid, name), "rb") as f:
        return f.read()


def proc_stat(pid):
    """(ppid, start ticks, uid) of a process."""
    fields = read_proc(pid, "stat").rsplit(b")", 1)[1].split()
    return int(fields[1]), int(fields[19]), os.stat("/proc/%d" % pid).st_uid


class Agent:
    def __init__(self, ident, pid, uid, ticks, argv, boot):
        self.ident = ident
        self.pid = pid
        self.uid = uid
        self.ticks = ticks
        self.started = boot + ticks / float(CLOCK_TICKS)
        self.session = session_argument(argv)
        self.cwd = os.readlink("/proc/%d/cwd" % pid)
        try:
            entry = pwd.getpwuid(uid)
            self.account, home = entry.pw_name, entry.pw_dir
        except KeyError:
            self.account, home = str(uid), "/"
        env = {}
        for item in read_proc(pid, "environ").split(b"\0"):
            key, _, value = item.partition(b"=")
            env[key] = os.fsdecode(value)
        self.home = env.get(b"HOME") or home
        config = env.get(b"CLAUDE_CONFIG_DIR") or os.path.join(self.home, ".claude")
        self.folder = os.path.join(config, "projects", project_slug(self.cwd))
        self.transcript = ""
        self.file = None
        self.announced = False
        self.subagents = {}  # agent id -> Subagent, of the transcript followed now
        self.subagent_folder = None  # (inode, mtime) of <session>/subagents when last listed

    def choose(self, claimed):
        """The transcript: named by the arguments, else open or written since the start."""
        if self.session:
            return os.path.join(self.folder, self.session + ".jsonl")
        try:
            for fd in os.listdir("/proc/%d/fd" % self.pid):
                target = os.readlink("/proc/%d/fd/%s" % (self.pid, fd))
                if target.endswith(".jsonl") and os.path.dirname(target) == self.folder:
                    return target
        except OSError:
            pass
        best, newest = self.transcript, -1.0
        try:
            for entry in os.scandir(self.folder):
                if not entry.name.endswith(".jsonl") or entry.path in claimed:
                    continue
                st = entry.stat(follow_symlinks=False)
                if st.st_mtime >= self.started - 1 and st.st_mtime > newest:
                    best, newest = entry.path, st.st_mtime
        except OSError:
            pass
        return best

    def announce(self):
        session = os.path.basename(self.transcript)[:-6] if self.transcript else ""
        self.announced = True
        payload = {"pid": self.pid, "uid": self.uid, "account": self.account,
                   "home": self.home, "cwd": self.cwd, "transcript": self.transcript,
                   "session": session, "started": self.started}
        emit("A", self.ident, b64(json.dumps(payload).encode("utf-8", "surrogateescape")))


class Subagent:
    """A sub-agent's transcript, <session>/subagents/agent-<id>.jsonl, followed like the
    agent's own under the id <agent>_<id>, and its meta file (which Agent call started it),
    sent whole in an M frame each time it changes."""

    META_LIMIT = 65536

    def __init__(self, agent, name, folder):
        self.ident = "%s_%s" % (agent.ident, name)
        self.meta_path = os.path.join(folder, "agent-%s.meta.json" % name)
        self.meta_seen = None
        self.uid = agent.uid
        self.file = Followed(self.ident, os.path.join(folder, "agent-%s.jsonl" % name), 0, 0,
                             agent.uid)

    def check_meta(self):
        try:
            st = os.lstat(self.meta_path)
        except OSError:
            return
        seen = (st.st_ino, st.st_size, st.st_mtime_ns)
        if seen == self.meta_seen or not stat.S_ISREG(st.st_mode) or st.st_uid != self.uid:
            return
        try:
            fd = os.open(self.meta_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return
        try:
            opened = os.fstat(fd)
            if not stat.S_ISREG(opened.st_mode) or opened.st_uid != self.uid:
                return
            data = os.pread(fd, self.META_LIMIT + 1, 0)
        finally:
            os.close(fd)
        self.meta_seen = seen
        if len(data) <= self.META_LIMIT:
            emit("M", self.ident, b64(data))


def list_subagents(agent, inotify):
    """Starts following the sub-agents of the agent's transcript that are new: one lstat of
    their folder while it does not change."""
    if not agent.transcript:
        return
    folder = os.path.join(agent.transcript[:-len(".jsonl")], "subagents")
    try:
        st = os.lstat(folder)
    except OSError:
        return
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != agent.uid:
        return  # as root, never through a link or into someone else's folder
    seen = (st.st_ino, st.st_mtime_ns)
    if seen == agent.subagent_folder:
        return
    agent.subagent_folder = seen
    inotify.watch(folder)
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for entry in sorted(names):
        name = entry[len("agent-"):-len(".jsonl")]
        if (not entry.startswith("agent-") or not entry.endswith(".jsonl")
                or not name.isalnum() or not name.isascii() or len(name) > 40
                or name in agent.subagents):
            continue
        sub = Subagent(agent, name, folder)
        agent.subagents[name] = sub
        sub.check_meta()
        sub.file.check()


class AgentScan:
    """Looks for agents 4 times a second: new processes, and young ones (a shell that execs
    claude keeps its pid), are read at once; every process again once a second."""

    YOUNG = 3.0  # seconds

    def __init__(self, inotify):
        self.inotify = inotify
        self.agents = {}  # (pid, start ticks) -> Agent
        self.boot = boot_time()
        self.known = {}  # pid -> (ppid, start ticks, uid, argv or None when not claude)
        self.last_full = 0.0

    def running(self, full):
        with open("/proc/uptime", "rb") as f:
            young = (float(f.read().split()[0]) - self.YOUNG) * CLOCK_TICKS
        known = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            pid = int(name)
            entry = self.known.get(pid)
            if entry is None or full or entry[1] > young:
                try:
                    argv = read_proc(pid, "cmdline").split(b"\0")
                    ppid, ticks, uid = proc_stat(pid)
                except (OSError, ValueError, IndexError):
                    continue
                claude = is_claude(argv) and same_files(pid)
                entry = (ppid, ticks, uid, argv if claude else None)
            known[pid] = entry
        self.known = known
        claude = {pid: e for pid, e in known.items() if e[3] is not None}
        # A claude whose parent is an agent is that agent's helper.
        return {pid: e for pid, e in claude.items() if e[0] not in claude}

    def scan(self):
        now = time.monotonic()
        full = now - self.last_full >= 1.0
        if full:
            self.last_full = now
        running = self.running(full)
        for key in list(self.agents):
            found = running.get(key[0])
            if found is None or found[1] != key[1]:
                self.end(key)
        for pid, (_, ticks, uid, argv) in running.items():
            if (pid, ticks) in self.agents:
                continue
            try:
                agent = Agent("a%d-%d" % (pid, ticks), pid, uid, ticks, argv, self.boot)
            except (OSError, ValueError):
                continue  # ended meanwhile
            self.agents[(pid, ticks)] = agent
        claimed = {a.transcript for a in self.agents.values() if a.session}
        for agent in self.agents.values():
            if full or not agent.announced or not (agent.session or agent.transcript):
                path = agent.choose(claimed)
                if path != agent.transcript or not agent.announced:
                    self.switch(agent, path)
                    continue
            if agent.file:
                # Its folder may have appeared since (a new session): watched from then on.
                self.inotify.watch(os.path.dirname(agent.file.path))
                agent.file.check()
                list_subagents(agent, self.inotify)
                for sub in agent.subagents.values():
                    sub.check_meta()

    def close_subagents(self, agent):
        for sub in agent.subagents.values():
            sub.file.close()
        agent.subagents = {}
        agent.subagent_folder = None

    def switch(self, agent, path):
        if agent.file:
            agent.file.close()
        self.close_subagents(agent)
        agent.transcript = path
        agent.file = Followed(agent.ident, path, 0, 0, agent.uid) if path else None
        agent.announce()
        if agent.file:
            self.inotify.watch(os.path.dirname(path))
            agent.file.check()

    def end(self, key):
        agent = self.agents.pop(key)
        if agent.file:
            agent.file.check()  # its last lines first
            agent.file.close()
            list_subagents(agent, self.inotify)
            for sub in agent.subagents.values():
                sub.check_meta()
                sub.file.check()
        self.close_subagents(agent)
        emit("X", agent.ident)

    def check(self, dirs):
        for agent in self.agents.values():
            f = agent.file
            if f and (dirs is None or os.path.dirname(f.path) in dirs):
                f.check()
            for sub in list(agent.subagents.values()):
                if dirs is None or os.path.dirname(sub.file.path) in dirs:
                    sub.file.check()
            if f and agent.subagents and dirs is not None:
                folder = os.path.dirname(next(iter(agent.subagents.values())).file.path)
                if folder in dirs:
                    list_subagents(agent, self.inotify)  # another sub-agent started


def agents_main():
    inotify = Inotify()
    emit("R", VERSION, os.getpid(), "inotify" if inotify.fd >= 0 else "poll")
    out.flush()
    agents = AgentScan(inotify)
    last_pass = 0.0
    last_beat = time.monotonic() - HEARTBEAT  # the first at once: the wall's clock
    fds = [inotify.fd] if inotify.fd >= 0 else []
    while True:
        now = time.monotonic()
        wait = max(0.0, min(SCAN_PERIOD - (now - last_pass), HEARTBEAT - (now - last_beat)))
        if fds and select.select(fds, [], [], wait)[0]:
            agents.check(changed_dirs(inotify))
        elif not fds:
            time.sleep(min(wait, 0.05))
            agents.check(None)
        now = time.monotonic()
        if now - last_pass >= SCAN_PERIOD:
            agents.scan()
            last_pass = now
        last_beat = beat(now, last_beat)  # follower.py
