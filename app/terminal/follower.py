# Sandscope's file follower: runs in a sandbox account (or as root for the admin views),
# follows files and pushes their bytes to Sandscope as framed lines on stdout.
# The protocol is described in app/server/followprotocol.h; FollowChannel types this program
# into a terminal, so every line stays far below the terminal's 4096-byte line limit.
# Python 3.5+, standard library only (inotify through ctypes where Linux offers it).
import base64
import ctypes
import ctypes.util
import os
import select
import stat
import struct
import sys
import time
import zlib

VERSION = 1
CHUNK = 48 * 1024
HEARTBEAT = 5.0
out = sys.stdout.buffer


def emit(*fields):
    body = " ".join(str(f) for f in fields)
    crc = "%08x" % (zlib.crc32(body.encode("ascii")) & 0xFFFFFFFF)
    out.write(("@SSF " + body + " " + crc + "\n").encode("ascii"))


def b64(data):
    return base64.b64encode(data).decode("ascii") or "-"


class Inotify:
    MASK = 0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800

    def __init__(self):
        self.fd = -1
        self.watches = {}
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            self.add = libc.inotify_add_watch
            self.add.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            self.fd = libc.inotify_init1(0o4000 | 0o2000000)
        except (OSError, AttributeError):
            self.fd = -1

    def watch(self, directory):
        if self.fd < 0 or directory in self.watches:
            return
        wd = self.add(self.fd, os.fsencode(directory), self.MASK)
        if wd >= 0:
            self.watches[directory] = wd

    def drain(self):
        try:
            while os.read(self.fd, 65536):
                pass
        except OSError:
            pass


class Followed:
    def __init__(self, ident, path, offset, inode, owner=None, tail=None):
        self.ident = ident
        self.owner = owner  # the live wall's (followeragents.py): the uid that must own it
        self.path = path
        self.offset = offset
        self.inode = inode  # expected; 0: whatever is there
        self.tail = tail  # (length, crc32) of the bytes expected before offset; None: not known
        self.fd = None
        self.dev = None
        self.state = ""  # "", "open", "gone", "error"

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def check(self):
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            if self.state != "gone":
                self.close()
                self.state = "gone"
                self.offset = 0  # what appears there next is another file, whatever its inode
                self.tail = None
                emit("G", self.ident)
            return
        except OSError as error:
            self.fail(error.strerror or str(error))
            return
        if not stat.S_ISREG(st.st_mode):
            what = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a regular file"
            self.fail("%s is %s" % (self.path, what))
            return
        if self.owner not in (None, st.st_uid):
            self.fail("%s is not owned by the agent's account" % self.path)
            return
        if self.fd is None or st.st_ino != self.inode or st.st_dev != self.dev:
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError as error:
                self.fail(error.strerror or str(error))
                return
            opened = os.fstat(fd)
            if not stat.S_ISREG(opened.st_mode) or self.owner not in (None, opened.st_uid):
                os.close(fd)
                self.fail("%s is not a regular file" % self.path)
                return
            self.close()
            if self.inode != 0 and opened.st_ino != self.inode:
                self.offset = 0  # replaced since it was last read
            elif self.tail is not None and not self.tail_matches(fd):
                self.offset = 0  # the same inode number, but another file's bytes
            self.tail = None  # from here on the open descriptor is the file
            self.fd = fd
            self.inode = opened.st_ino
            self.dev = opened.st_dev
            self.state = "open"
            emit("N", self.ident, self.inode, opened.st_size, self.offset)
            st = opened
        if st.st_size < self.offset:
            self.offset = 0
            emit("T", self.ident, st.st_size)
        while True:
            data = os.pread(self.fd, CHUNK, self.offset)
            if not data:
                break
            emit("D", self.ident, self.offset, b64(data))
            self.offset += len(data)
            if len(data) < CHUNK:
                break

    def tail_matches(self, fd):
        length, crc = self.tail
        if length > self.offset:
            return False
        data = os.pread(fd, length, self.offset - length)
        return len(data) == length and (zlib.crc32(data) & 0xFFFFFFFF) == crc

    def fail(self, message):
        self.close()
        if self.state != "error:" + message:
            self.state = "error:" + message
            emit("E", self.ident, b64(message.encode("utf-8", "replace")))


class Process:
    """A run's shell: alive while /proc/PID/cmdline (PID read from a file) names the run."""

    def __init__(self, ident, pid_file, needle):
        self.ident = ident
        self.pid_file = pid_file
        self.needle = needle
        self.gone = False

    def check(self):
        if self.gone:
            return
        try:
            with open(self.pid_file, "rb") as f:
                pid = int(f.read().strip() or b"0")
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                if self.needle in f.read():
                    return
        except (OSError, ValueError):
            pass
        self.gone = True
        emit("X", self.ident)


class Tree:
    """New files: the *.jsonl one folder below a root (a user's ~/.claude/projects)."""

    def __init__(self, ident, root, since):
        self.ident = ident
        self.root = root
        self.known = set()  # what was written before `since` is not news
        for path in self.scan():
            try:
                if os.stat(path).st_mtime < since:
                    self.known.add(path)
            except OSError:
                pass

    def scan(self):
        found = set()
        try:
            folders = os.listdir(self.root)
        except OSError:
            return found
        for name in folders:
            folder = os.path.join(self.root, name)
            try:
                found.update(os.path.join(folder, e) for e in os.listdir(folder)
                             if e.endswith(".jsonl"))
            except OSError:
                continue
        return found

    def check(self):
        found = self.scan()
        for path in sorted(found - self.known):
            emit("C", self.ident, b64(os.fsencode(path)))
        self.known = found


def decode_path(text):
    return os.fsdecode(base64.b64decode(text))


def decode_tail(text):
    if text == "-":
        return None
    length, crc = text.split(":")
    return int(length), int(crc, 16)


def main():
    try:
        import termios
        import tty
        tty.setraw(0, termios.TCSANOW)
    except Exception:
        pass
    inotify = Inotify()
    files = {}
    processes = {}
    trees = {}
    last_tree = 0.0
    emit("R", VERSION, os.getpid(), "inotify" if inotify.fd >= 0 else "poll")
    out.flush()
    pending = b""
    last_pass = 0.0
    last_beat = time.monotonic()
    fds = [0] + ([inotify.fd] if inotify.fd >= 0 else [])
    period = 1.0 if inotify.fd >= 0 else 0.02
    while True:
        now = time.monotonic()
        wait = max(0.0, min(period - (now - last_pass), HEARTBEAT - (now - last_beat)))
        readable = select.select(fds, [], [], wait)[0]
        dirty = False
        if 0 in readable:
            data = os.read(0, 65536)
            if not data:
                return
            pending += data.replace(b"\r", b"\n")
            lines = pending.split(b"\n")
            pending = lines.pop()
            for line in lines:
                words = line.decode("ascii", "replace").split()
                if not words:
                    continue
                if words[0] == "add" and len(words) == 6:
                    f = Followed(words[1], decode_path(words[4]), int(words[2]), int(words[3]),
                                 tail=decode_tail(words[5]))
                    files[words[1]] = f
                    inotify.watch(os.path.dirname(f.path) or ".")
                    f.check()
                elif words[0] == "proc" and len(words) == 4:
                    p = Process(words[1], decode_path(words[2]), base64.b64decode(words[3]))
                    processes[words[1]] = p
                    p.check()
                elif words[0] == "tree" and len(words) == 4:
                    trees[words[1]] = Tree(words[1], decode_path(words[2]), int(words[3]))
                elif words[0] == "drop" and len(words) == 2:
                    f = files.pop(words[1], None)
                    if f:
                        f.close()
                    processes.pop(words[1], None)
                    trees.pop(words[1], None)
                elif words[0] == "sync" and len(words) == 2:
                    dirty = True
                    for f in list(files.values()):
                        f.check()
                    emit("S", words[1])
                elif words[0] == "quit":
                    return
        if inotify.fd >= 0 and inotify.fd in readable:
            inotify.drain()
            dirty = True
        now = time.monotonic()
        if dirty or now - last_pass >= period:
            periodic = now - last_pass >= period
            for f in list(files.values()):
                if periodic and f.state == "gone":  # its folder may exist now
                    inotify.watch(os.path.dirname(f.path) or ".")
                f.check()
            if periodic:
                for p in list(processes.values()):
                    p.check()
                last_pass = now
            if now - last_tree >= 1.0:  # new sessions: a look a second is enough
                for t in list(trees.values()):
                    t.check()
                last_tree = now
        last_beat = beat(now, last_beat)


def beat(now, last_beat):
    """The heartbeat when one is due; everything written goes out. Returns its time."""
    if now - last_beat >= HEARTBEAT:
        emit("H", int(time.time() * 1000))  # its clock, in ms: the live wall's elapsed times
        last_beat = now
    out.flush()
    return last_beat


try:
    if sys.argv[1:2] == ["agents"]:
        agents_main()  # noqa: F821 (followeragents.py, sent before this program)
    else:
        main()
except (KeyboardInterrupt, BrokenPipeError):
    pass
except Exception as error:  # said once, on the protocol, before the follower ends
    emit("F", b64(repr(error).encode("utf-8", "replace")))
    out.flush()
