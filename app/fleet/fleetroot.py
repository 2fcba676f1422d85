# The root-side steps of fleet work, run by `python3 - STEP ARGS…` through a member's admin
# command: a member's accounts and figures (app/fleet/fleetstatus.h), and moving a user's home
# from one member to another (app/fleet/usermove.h).
# Paths on the command line and in the output are base64 (names may hold any byte); every
# line of output starts with a word that says what it is. Standard library only.
#
# Whatever reads or writes inside a home runs as its user (`--as UID GID` drops root first):
# a user who swaps a folder for a link meanwhile reaches only what they may reach anyway.
# Root only looks up accounts, makes and removes the staging folder and the old account,
# and unpacks the archive into the staging folder no user can enter.
import base64
import hashlib
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile


def b64(data):
    return base64.b64encode(data).decode("ascii") or "-"


def unb64(text):
    return b"" if text == "-" else base64.b64decode(text)


def say(*words):
    sys.stdout.write(" ".join(str(w) for w in words) + "\n")


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW)) as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def manifest(root):
    """Every entry below root, never through a link: type, mode, size, content (a file's
    sha256, a link's target) and path. Owners are left out: the new member's uid differs."""
    lines = []
    root = os.fsencode(root)  # bytes: any name survives
    for folder, dirs, files in os.walk(root):
        for name in sorted(dirs) + sorted(files):
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            mode = "%o" % stat.S_IMODE(st.st_mode)
            if stat.S_ISDIR(st.st_mode):
                lines.append(("d", mode, 0, "-", rel))
            elif stat.S_ISLNK(st.st_mode):
                lines.append(("l", mode, 0, b64(os.readlink(path)), rel))
            elif stat.S_ISREG(st.st_mode):
                lines.append(("f", mode, st.st_size, digest(path), rel))
            else:
                lines.append(("o", mode, 0, "-", rel))  # FIFOs, sockets: named only
    for kind, mode, size, content, rel in sorted(lines, key=lambda l: l[4]):
        say("M", kind, mode, size, content, b64(rel))  # rel: bytes
    say("MANIFEST", len(lines))  # how many: a listing cut short is told from a whole one


def account(name):
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        say("NOACCOUNT")
        return None
    home = entry.pw_dir.encode()
    say("ACCOUNT", entry.pw_uid, entry.pw_gid, b64(home))
    return entry


def inspect(name):
    """The account, whether its home is there, and how many processes it runs now."""
    entry = account(name)
    if entry is None:
        return
    home = entry.pw_dir
    running = subprocess.run(["pgrep", "-u", str(entry.pw_uid)], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL).stdout.split()
    say("PROCESSES", len(running))
    st = os.lstat(home) if os.path.lexists(home) else None
    if st is None or not stat.S_ISDIR(st.st_mode):
        say("NOHOME")
    elif st.st_uid != entry.pw_uid:
        say("FOREIGNHOME", st.st_uid)
    else:
        say("HOME")


def archive(home):
    """The home as a gzip'd tar (numeric owners), in base64 lines after its size and sha256."""
    fd, path = tempfile.mkstemp(prefix="sandscope-move-")
    os.close(fd)
    try:
        subprocess.run(["tar", "--numeric-owner", "-czf", path, "-C", home, "."], check=True)
        say("ARCHIVE", os.path.getsize(path), digest(path))
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(57 * 1024), b""):
                say("B", b64(block))
    finally:
        os.unlink(path)
    say("END")


def stage_dir(home, token):
    """A root-only folder beside the home (same file system: the merge renames)."""
    path = os.path.join(os.path.dirname(home.rstrip("/")), ".sandscope-move-" + token)
    os.mkdir(path, 0o700)
    say("STAGE", b64(path.encode()))


def extract(stage, sha, uid, gid):
    """As root, into the staging folder no user enters; then all of it is the user's."""
    archive_path = os.path.join(stage, "archive.tgz")
    got = digest(archive_path)
    if got != sha:
        say("BADARCHIVE", got)
        sys.exit(4)
    tree = os.path.join(stage, "tree")
    os.mkdir(tree, 0o700)
    links = set()
    with tarfile.open(archive_path, "r:gz") as tar:
        for member in tar.getmembers():
            parts = os.path.normpath(member.name).split("/")
            parents = {"/".join(parts[:i]) for i in range(1, len(parts))}
            if (member.name.startswith("/") or ".." in parts or parents & links
                    or member.islnk() or member.isdev()):
                # tar of a real folder makes none of these: only a folder changed while it
                # was read, or a forged archive, does.
                say("BADMEMBER", b64(member.name.encode()))
                sys.exit(4)
            if member.issym():
                links.add("/".join(parts))
            tar.extract(member, tree, set_attrs=True, numeric_owner=True)
    for folder, dirs, files in os.walk(tree):
        for name in dirs + files:
            os.lchown(os.path.join(folder, name), uid, gid)
    os.lchown(tree, uid, gid)
    os.lchown(stage, uid, gid)  # the merge runs as the user
    say("EXTRACTED")


def same(a, b):
    sa, sb = os.lstat(a), os.lstat(b)
    if stat.S_IFMT(sa.st_mode) != stat.S_IFMT(sb.st_mode):
        return False
    if stat.S_ISLNK(sa.st_mode):
        return os.readlink(a) == os.readlink(b)
    if stat.S_ISREG(sa.st_mode):
        return sa.st_size == sb.st_size and digest(a) == digest(b)
    return stat.S_ISDIR(sa.st_mode)


def merge(stage, home, aside, uid, gid):
    """Moves the extracted tree into the home. What the home has already stays; an entry
    of the moved home that differs from it goes under `aside` (inside the home), so nothing
    of either is lost."""
    tree = os.path.join(stage, "tree")
    moved = kept = set_aside = 0
    for folder, dirs, files in os.walk(tree, topdown=True):
        rel_folder = os.path.relpath(folder, tree)
        for name in list(dirs) + files:
            src = os.path.join(folder, name)
            rel = os.path.normpath(os.path.join(rel_folder, name))
            dest = os.path.join(home, rel)
            is_dir = name in dirs and not os.path.islink(src)
            if not os.path.lexists(dest):
                os.rename(src, dest)
                moved += 1
                if is_dir:
                    dirs.remove(name)  # moved whole
            elif is_dir and os.path.isdir(dest) and not os.path.islink(dest):
                continue  # merged entry by entry
            elif same(src, dest):
                kept += 1
            else:
                target = os.path.join(aside, rel)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                os.rename(src, target)
                set_aside += 1
                say("ASIDE", b64(rel.encode()))
                if is_dir:
                    dirs.remove(name)
    for folder, dirs, files in os.walk(aside) if os.path.isdir(aside) else ():
        os.lchown(folder, uid, gid)
        for name in files:
            os.lchown(os.path.join(folder, name), uid, gid)
    say("MERGED", moved, kept, set_aside)


def verify(home, aside):
    say("HOMEMANIFEST")
    manifest(home)
    if os.path.isdir(aside):
        say("ASIDEMANIFEST")
        manifest(aside)


def remove(name, home):
    entry = account(name)
    if entry is not None:
        subprocess.run(["pkill", "-KILL", "-u", str(entry.pw_uid)], stderr=subprocess.DEVNULL)
        subprocess.run(["userdel", name], stderr=subprocess.DEVNULL)
    shutil.rmtree(home, ignore_errors=False)
    say("REMOVED")


def accounts():
    """Every sandbox account (uid 1000 and up) with whether its home is here, and this
    member's figures: the disk of /home, the claude processes running, its host name."""
    for entry in sorted(pwd.getpwall(), key=lambda e: e.pw_name):
        if entry.pw_uid < 1000 or entry.pw_uid == 65534:
            continue
        try:
            st = os.lstat(entry.pw_dir)
            here = stat.S_ISDIR(st.st_mode)
            where = "%d:%d" % (st.st_dev, st.st_ino)
        except OSError:
            here, where = False, "-"
        say("U", entry.pw_name, entry.pw_uid, 1 if here else 0, where, b64(entry.pw_dir.encode()))
    disk = os.statvfs("/home")
    say("DISK", (disk.f_blocks - disk.f_bfree) * disk.f_frsize, disk.f_bavail * disk.f_frsize)
    claude = {}  # pid -> parent pid, of the claude CLI's processes (as the live wall tells)
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
            with open("/proc/%s/stat" % pid, "rb") as f:
                parent = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        name = os.path.basename(argv[0])
        script = os.path.basename(argv[1]) if len(argv) > 1 else b""
        if name in (b"claude", b"claude.exe") or (
                name in (b"node", b"nodejs", b"bun") and script in (b"cli.js", b"cli.mjs")
                and b"claude-code" in argv[1]):
            claude[int(pid)] = parent
    # A claude started by another is part of that agent.
    say("AGENTS", sum(1 for parent in claude.values() if parent not in claude))
    say("HOST", b64(os.uname().nodename.encode()))


def main():
    args = sys.argv[1:]
    if args[0] == "--as":
        uid, gid = int(args[1]), int(args[2])
        if uid == 0:
            say("REFUSED", "root")
            sys.exit(2)
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
        args = args[3:]
    step, args = args[0], args[1:]
    if step == "accounts":
        accounts()
    elif step == "manifest":
        manifest(unb64(args[0]).decode("utf-8", "surrogateescape"))
    elif step == "inspect":
        inspect(args[0])
    elif step == "archive":
        archive(unb64(args[0]).decode("utf-8", "surrogateescape"))
    elif step == "stage":
        stage_dir(unb64(args[0]).decode("utf-8", "surrogateescape"), args[1])
    elif step == "extract":
        extract(unb64(args[0]).decode("utf-8", "surrogateescape"), args[1], int(args[2]),
                int(args[3]))
    elif step == "merge":
        decoded = [unb64(a).decode("utf-8", "surrogateescape") for a in args[:3]]
        merge(decoded[0], decoded[1], decoded[2], int(args[3]), int(args[4]))
    elif step == "verify":
        verify(*[unb64(a).decode("utf-8", "surrogateescape") for a in args[:2]])
    elif step == "remove":
        remove(args[0], unb64(args[1]).decode("utf-8", "surrogateescape"))
    elif step == "unstage":
        shutil.rmtree(unb64(args[0]).decode("utf-8", "surrogateescape"), ignore_errors=True)
        say("UNSTAGED")
    else:
        say("UNKNOWN", step)
        sys.exit(2)


main()
