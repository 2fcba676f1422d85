#!/usr/bin/env bash
# Lists, and on request deletes, stale chat folders and Claude Code sessions in every home under
# HOME_ROOT. Nothing is touched unless CLEANUP_DRY_RUN is exactly "false". Installed in the
# sandbox image as /opt/cleanup.sh; sandbox/README.md describes the output format.
#
#   CHAT_TTL_DAYS     default 30   chat folders HOME_ROOT/<user>/chat-* idle longer are deleted
#   SESSION_TTL_DAYS  default 90   sessions HOME_ROOT/<user>/.claude/projects/<project>/<uuid>.jsonl
#                                  (plus their <uuid>/ folder) idle longer are deleted
#   CLEANUP_DRY_RUN   default true only the exact value "false" deletes anything
#   HOME_ROOT         default /home (set but empty, or with control characters: refused)
#   CLEANUP_FORMAT    text (default, for people) or json (one JSON object per line)
#   CLEANUP_PLAN      a reviewed plan (the JSON lines of a dry run): only its "delete" items are
#                     considered, each only while it is still the same entry (its "identity":
#                     device, inode and path bytes), still has the reviewed size and last activity,
#                     is still listed by a scan and is still past its TTL. With CLEANUP_DRY_RUN
#                     left alone the plan is only checked.
#
# Exit status: 0 done, 2 invalid settings or plan, or another execution running (nothing
# touched), 3 deleting needs root or passwordless sudo, 4 done but some planned item was skipped,
# refused or failed, 5 stopped by an unexpected error or a report that could not be written (a
# message says where and lists what was deleted; items reported before it are final).
#
# Design: bash lists the homes and runs one `find` per home; a single awk process reads all of it
# as a stream of NUL-separated records, decides, and writes the items as each home is finished.
# When deleting, awk runs the deletion step (delete.sh below) for the home in phases: move the
# items into a quarantine folder and list it, put back what changed, then write the home's records
# and delete. No process is started per item.
set -euo pipefail
# Byte-wise string handling (names need not be valid UTF-8) and UTC timestamps. The caller's
# PATH, shell start-up files and exported functions never choose what runs here (the deletion
# step also runs under env -i).
export LC_ALL=C TZ=UTC PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
unset BASH_ENV ENV CDPATH GLOBIGNORE
for fn in $(compgen -A function); do builtin unset -f -- "$fn"; done
shopt -s nullglob

tmp=''
stage='reading the settings'
# shellcheck disable=SC2317 # run by the EXIT trap, not reached by the flow shellcheck follows
finish() {
    local status=$?
    [[ -z $tmp ]] || rm -rf -- "$tmp"
    case $status in
    0 | 2 | 3 | 4 | 5) ;;
    *)
        printf 'cleanup: stopped by an unexpected error (status %d) while %s; items reported before it are final, nothing else was changed.\n' \
            "$status" "$stage" >&2
        status=5
        ;;
    esac
    exit "$status"
}
trap finish EXIT

die() {
    printf 'cleanup: %s\n' "$2" >&2
    exit "$1"
}

# Sets REPLY to $1 quoted for messages (control characters escaped).
shown() {
    printf -v REPLY '%q' "$1"
}

# ---------------------------------------------------------------------------------------------
# Settings
chat_ttl=${CHAT_TTL_DAYS:-30}
session_ttl=${SESSION_TTL_DAYS:-90}
format=${CLEANUP_FORMAT:-text}
dry_run=true
if [[ ${CLEANUP_DRY_RUN:-} == false ]]; then
    dry_run=false
fi

for setting in CHAT_TTL_DAYS:"$chat_ttl" SESSION_TTL_DAYS:"$session_ttl"; do
    shown "${setting#*:}"
    [[ ${setting#*:} =~ ^[0-9]{1,6}$ ]] ||
        die 2 "${setting%%:*} must be a whole number of days (0-999999), not $REPLY"
done
chat_ttl=$((10#$chat_ttl))
session_ttl=$((10#$session_ttl))
shown "$format"
[[ $format == text || $format == json ]] || die 2 "CLEANUP_FORMAT must be 'text' or 'json', not $REPLY"

plan_file=''
if [[ -n ${CLEANUP_PLAN+set} ]]; then
    shown "$CLEANUP_PLAN"
    [[ -n $CLEANUP_PLAN ]] || die 2 "CLEANUP_PLAN is set but empty; name the reviewed plan or leave it unset"
    [[ $CLEANUP_PLAN != *[[:cntrl:]]* ]] || die 2 "CLEANUP_PLAN $REPLY contains a control character"
    [[ -f $CLEANUP_PLAN && -r $CLEANUP_PLAN ]] || die 2 "CLEANUP_PLAN $REPLY is not a readable file"
    plan_file=$(realpath -e -- "$CLEANUP_PLAN" 2>/dev/null || true)
    [[ -n $plan_file ]] || die 2 "CLEANUP_PLAN $REPLY cannot be resolved"
    [[ $plan_file == "$(realpath -e -s -- "$CLEANUP_PLAN" 2>/dev/null)" ]] ||
        die 2 "CLEANUP_PLAN $REPLY is reached through a symbolic link; name the reviewed file itself"
fi

if [[ -n ${HOME_ROOT+set} ]]; then
    [[ -n $HOME_ROOT ]] || die 2 "HOME_ROOT is set but empty; leave it unset for the default /home"
    home_root_setting=$HOME_ROOT
else
    home_root_setting=/home
fi
shown "$home_root_setting"
home_root_shown=$REPLY
[[ $home_root_setting != *[[:cntrl:]]* ]] ||
    die 2 "HOME_ROOT $home_root_shown contains a control character (a line end?); refusing to guess the folder"
[[ $home_root_setting == /* ]] || die 2 "HOME_ROOT must be an absolute path, not $home_root_shown"
[[ -d $home_root_setting ]] || die 2 "HOME_ROOT $home_root_shown is not a folder"
who=$(id -un 2>/dev/null || echo "uid $EUID")
# The one place a symlink is resolved: the folder the operator named. Everything below it is
# checked against this physical path and never followed.
cd -P -- "$home_root_setting" 2>/dev/null ||
    die 2 "HOME_ROOT $home_root_shown cannot be entered as $who; run as root"
root=$PWD
while [[ $root == //* ]]; do root=${root#/}; done
[[ $root != / ]] || die 2 "HOME_ROOT must not be / itself"
[[ -r $root && -x $root ]] || die 2 "HOME_ROOT $home_root_shown cannot be listed as $who; run as root"


if [[ -n $plan_file ]]; then
    if $dry_run; then mode=check-plan; else mode=execute; fi
else
    if $dry_run; then mode=dry-run; else mode=execute; fi
fi

# Deleting in other users' homes needs root. Without it, re-run through passwordless sudo.
if [[ $mode == execute && $EUID -ne 0 ]]; then
    self=''
    [[ -z ${BASH_SOURCE[0]:-} ]] || self=$(realpath -e -- "${BASH_SOURCE[0]}" 2>/dev/null || true)
    [[ -z $self || -f $self ]] || self=''
    if [[ -z ${CLEANUP_SUDO_REEXEC:-} && -n $self ]] && command -v sudo >/dev/null 2>&1 &&
        sudo -n true </dev/null >/dev/null 2>&1; then
        exec sudo -n -- env CLEANUP_SUDO_REEXEC=1 "HOME_ROOT=$root" "CHAT_TTL_DAYS=$chat_ttl" \
            "SESSION_TTL_DAYS=$session_ttl" CLEANUP_DRY_RUN=false "CLEANUP_FORMAT=$format" \
            ${plan_file:+"CLEANUP_PLAN=$plan_file"} bash -- "$self"
    fi
    hint=''
    [[ -n $self ]] || hint=" (the script was not started from a file, so it cannot re-run itself through sudo)"
    die 3 "deleting needs root or passwordless sudo, because the files belong to other users; \
running as $who without 'sudo -n'$hint. Run it as root \
(for example: docker compose exec -u root sandbox /opt/cleanup.sh) or leave CLEANUP_DRY_RUN unset \
to only list what would be deleted."
fi

# Only root (or, to merely check it, the one running this) may have written the plan: a plan
# that others can change is not the reviewed one. Its folder must not let others swap it either.
if [[ -n $plan_file ]]; then
    shown "$CLEANUP_PLAN"
    plan_meta=$(find -P "$plan_file" "${plan_file%/*}/" -maxdepth 0 -printf '%U %m\n' 2>/dev/null || true)
    read -r plan_uid plan_mode dir_uid dir_mode _ <<<"${plan_meta//$'\n'/ } x x x x" || true
    [[ $plan_uid == 0 || ($mode == check-plan && $plan_uid == "$EUID") ]] ||
        die 2 "CLEANUP_PLAN $REPLY belongs to uid $plan_uid; a plan to execute must belong to root"
    if ((8#${plan_mode:-777} & 8#022)); then
        die 2 "CLEANUP_PLAN $REPLY can be changed by group or others (mode $plan_mode); chmod go-w it after the review"
    fi
    # A folder others can write to is fine only with the sticky bit (like /tmp) and our own owner.
    if [[ $dir_uid != 0 && $dir_uid != "$EUID" ]] ||
        { ((8#${dir_mode:-777} & 8#022)) && ! ((8#${dir_mode:-777} & 8#1000)); }; then
        die 2 "CLEANUP_PLAN $REPLY is in a folder that others can change (mode $dir_mode); keep plans where only root can replace them"
    fi
fi

stage='creating a temporary folder'
for base in "${TMPDIR:-}" /tmp /var/tmp; do
    [[ -n $base && $base == /* && $base != *[[:cntrl:]]* && -d $base && -w $base && -x $base ]] ||
        continue
    tmp=$(mktemp -d -- "$base/cleanup.XXXXXX" 2>/dev/null || true)
    [[ -z $tmp ]] || break
done
if [[ -z $tmp ]]; then
    shown "${TMPDIR:-}"
    die 2 "no writable folder for temporary files (TMPDIR=$REPLY, /tmp, /var/tmp)"
fi

printf -v now '%(%s)T' -1

# One execution at a time per HOME_ROOT (the lock is on the folder itself).
if [[ $mode == execute ]]; then
    exec 9<"$root"
    flock -n 9 || die 2 "another cleanup is deleting in HOME_ROOT $home_root_shown right now; run again when it has finished"
fi

# ---------------------------------------------------------------------------------------------
# The awk program: strict plan reading (mode "validate") and everything that turns find's
# records into items (the other modes). Records on its input are NUL-terminated fields.
read -r -d '' awk_program <<'AWK' || true
function init(   i, c, h4) {
    for (i = 0; i < 256; i++) {
        c = sprintf("%c", i)
        ord[c] = i
        chr[i] = c
        hex2[i] = sprintf("%02x", i)
    }
    for (i = 0; i < 16; i++)
        hexval[substr("0123456789abcdef", i + 1, 1)] = i
    NUL = chr[0]
    ctl_re = "[" chr[1] "-" chr[31] "]"
    for (i = 0; i < 32; i++)
        cesc[i] = sprintf("\\u%04x", i)
    cesc[8] = "\\b"; cesc[9] = "\\t"; cesc[10] = "\\n"; cesc[12] = "\\f"; cesc[13] = "\\r"
    cesc[127] = "\\u007f"
    unesc["\""] = "\""; unesc["\\"] = "\\"; unesc["/"] = "/"; unesc["b"] = chr[8]
    unesc["f"] = chr[12]; unesc["n"] = chr[10]; unesc["r"] = chr[13]; unesc["t"] = chr[9]
    h4 = "[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]"
    uuid_re = "^" h4 h4 "-" h4 "-" h4 "-" h4 "-" h4 h4 h4 "$"
    uuid_jsonl_re = "^" h4 h4 "-" h4 "-" h4 "-" h4 "-" h4 h4 h4 "\\.jsonl$"
    split("B KiB MiB GiB TiB PiB", units, " ")
}

# ---- strings ----------------------------------------------------------------------------------

# Length of the valid UTF-8 sequence at position i of s (2-4), or 0.
function u8len(s, i, n,    b, need, lo, hi, k, c) {
    b = ord[substr(s, i, 1)]
    lo = 128; hi = 191
    if (b >= 194 && b <= 223) need = 1
    else if (b == 224) { need = 2; lo = 160 }
    else if (b == 237) { need = 2; hi = 159 }
    else if (b >= 225 && b <= 239) need = 2
    else if (b == 240) { need = 3; lo = 144 }
    else if (b == 244) { need = 3; hi = 143 }
    else if (b >= 241 && b <= 243) need = 3
    else return 0
    if (i + need > n) return 0
    for (k = 1; k <= need; k++) {
        c = ord[substr(s, i + k, 1)]
        if (k == 1) { if (c < lo || c > hi) return 0 }
        else if (c < 128 || c > 191) return 0
    }
    return need + 1
}

# The code point of the m-byte UTF-8 character at i (u8len said it is valid).
function u8cp(s, i, m,    cp, k) {
    cp = ord[substr(s, i, 1)] % (m == 2 ? 32 : m == 3 ? 16 : 8)
    for (k = 1; k < m; k++) cp = cp * 64 + ord[substr(s, i + k, 1)] % 64
    return cp
}

# Whether a code point shows as nothing or reorders its neighbours: C1 controls and Unicode's
# format characters (bidi marks, overrides and isolates, zero-width characters, the BOM, tags
# that hide ASCII), and the line and paragraph separators.
function invisible(cp) {
    return (cp >= 128 && cp <= 159) || cp == 173 || (cp >= 1536 && cp <= 1541) || cp == 1564 ||
        cp == 1757 || cp == 1807 || cp == 2192 || cp == 2193 || cp == 2274 || cp == 6158 ||
        (cp >= 8203 && cp <= 8207) || (cp >= 8232 && cp <= 8238) || (cp >= 8288 && cp <= 8292) ||
        (cp >= 8294 && cp <= 8303) || cp == 65279 || (cp >= 65529 && cp <= 65531) ||
        cp == 69821 || cp == 69837 || (cp >= 78896 && cp <= 78911) ||
        (cp >= 113824 && cp <= 113827) || (cp >= 119155 && cp <= 119162) || cp == 917505 ||
        (cp >= 917536 && cp <= 917631)
}

# s as a quoted JSON string: valid UTF-8 passes, control characters, quotes and backslashes are
# escaped, a byte that is not part of valid UTF-8 becomes \u00XX. For people (text != 0) such a
# byte is shown as \xXX instead, and the characters that show as nothing or reorder (invisible)
# are escaped too (\uXXXX, \UXXXXXXXX beyond the BMP), so that no name can send escape sequences
# to a terminal or pretend to be another.
function jq(s, text,    out, i, n, c, b, m, cp) {
    if (s !~ /[^ -~]/ && s !~ /["\\]/) return "\"" s "\""
    out = ""; n = length(s); i = 1
    while (i <= n) {
        c = substr(s, i, 1); b = ord[c]
        if (b == 34) out = out "\\\""
        else if (b == 92) out = out "\\\\"
        else if (b >= 32 && b < 127) out = out c
        else if (b < 128) out = out cesc[b]
        else {
            m = u8len(s, i, n)
            if (m > 0) {
                if (text && invisible(cp = u8cp(s, i, m)))
                    out = out sprintf(cp > 65535 ? "\\U%08x" : "\\u%04x", cp)
                else
                    out = out substr(s, i, m)
                i += m
                continue
            }
            out = out sprintf(text ? "\\x%02x" : "\\u%04x", b)
        }
        i++
    }
    return "\"" out "\""
}

# For people: as is when plain printable ASCII, else the escaped, quoted form.
function disp(s) {
    if (s !~ /[^ -~]/ && s !~ /["\\]/) return s
    return jq(s, 1)
}

function hexenc(s,    out, i, n) {
    out = ""; n = length(s)
    for (i = 1; i <= n; i++) out = out hex2[ord[substr(s, i, 1)]]
    return out
}

function hexdec(h,    out, i, n) {
    out = ""; n = length(h)
    for (i = 1; i < n; i += 2)
        out = out chr[hexval[substr(h, i, 1)] * 16 + hexval[substr(h, i + 1, 1)]]
    return out
}

function hexnum(h,    v, i) {
    h = tolower(h); v = 0
    for (i = 1; i <= length(h); i++) v = v * 16 + hexval[substr(h, i, 1)]
    return v
}

function u8enc(cp) {
    if (cp < 128) return chr[cp]
    if (cp < 2048) return chr[192 + int(cp / 64)] chr[128 + cp % 64]
    if (cp < 65536) return chr[224 + int(cp / 4096)] chr[128 + int(cp / 64) % 64] chr[128 + cp % 64]
    return chr[240 + int(cp / 262144)] chr[128 + int(cp / 4096) % 64] chr[128 + int(cp / 64) % 64] chr[128 + cp % 64]
}

# The bytes a standard JSON parser makes of a (valid) string body. Sets dec_err when the body
# holds an unpaired surrogate or \u0000.
function std_decode(body,    out, p, c, cp, lo) {
    dec_err = ""
    if (index(body, "\\") == 0) return body
    out = ""
    while ((p = index(body, "\\")) > 0) {
        out = out substr(body, 1, p - 1)
        c = substr(body, p + 1, 1)
        if (c == "u") {
            cp = hexnum(substr(body, p + 2, 4))
            body = substr(body, p + 6)
            if (cp >= 55296 && cp <= 56319) {
                if (substr(body, 1, 2) != "\\u") { dec_err = "an unpaired surrogate escape"; return "" }
                lo = hexnum(substr(body, 3, 4))
                if (lo < 56320 || lo > 57343) { dec_err = "an unpaired surrogate escape"; return "" }
                cp = 65536 + (cp - 55296) * 1024 + (lo - 56320)
                body = substr(body, 7)
            } else if (cp >= 56320 && cp <= 57343) {
                dec_err = "an unpaired surrogate escape"; return ""
            } else if (cp == 0) {
                dec_err = "\\u0000"; return ""
            }
            out = out u8enc(cp)
        } else {
            out = out unesc[c]
            body = substr(body, p + 2)
        }
    }
    return out body
}

# The bytes a standard JSON parser makes of jq(s): valid UTF-8 stays, a byte that is not part of
# it becomes the UTF-8 form of U+00XX. Two names can share this form; identities never do.
function std_form(s,    out, i, n, m) {
    if (s !~ /[^ -~]/) return s
    out = ""; n = length(s); i = 1
    while (i <= n) {
        if (ord[substr(s, i, 1)] < 128) { out = out substr(s, i, 1); i++; continue }
        m = u8len(s, i, n)
        if (m > 0) { out = out substr(s, i, m); i += m; continue }
        out = out u8enc(ord[substr(s, i, 1)])
        i++
    }
    return out
}

function num(x) { return sprintf("%.0f", x) }

function human(b,    u, scale, t) {
    if (b < 1024) return num(b) " B"
    u = 1; scale = 1
    while (u < 6 && b >= scale * 1024) { scale *= 1024; u++ }
    t = int(b * 10 / scale)
    return sprintf("%.0f.%d %s", int(t / 10), t % 10, units[u])
}

function iso(t,    d, s, z, era, doe, yoe, y, doy, mp, dd, mm) {
    d = int(t / 86400); s = t - d * 86400
    if (s < 0) { s += 86400; d-- }
    z = d + 719468
    era = int((z >= 0 ? z : z - 146096) / 146097)
    doe = z - era * 146097
    yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
    y = yoe + era * 400
    doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
    mp = int((5 * doy + 2) / 153)
    dd = doy - int((153 * mp + 2) / 5) + 1
    mm = mp < 10 ? mp + 3 : mp - 9
    if (mm <= 2) y++
    return sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", y, mm, dd, int(s / 3600), int(s % 3600 / 60), s % 60)
}

# ---- strict plan reading (mode validate) ------------------------------------------------------

function perror(why) { perr = why; return 0 }

# Checks a string body (between the quotes) as a strict parser would.
function body_ok(body,    t, i, n, m) {
    if (body ~ ctl_re) return perror("a raw control character (TAB, line end, ...) inside a string; it must be escaped")
    t = body
    gsub(/\\(["\\\/bfnrt]|u[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F])/, "", t)
    if (index(t, "\\")) return perror("an invalid escape inside a string")
    if (body ~ /[^ -~]/) {
        n = length(body); i = 1
        while (i <= n) {
            if (ord[substr(body, i, 1)] < 128) { i++; continue }
            m = u8len(body, i, n)
            if (m == 0) return perror("bytes that are not UTF-8 inside a string")
            i += m
        }
    }
    std_decode(body)
    if (dec_err != "") return perror(dec_err " inside a string")
    return 1
}

# Parses one flat JSON object (strings, whole numbers of at most 15 digits, true, false, null)
# into F (raw string bodies and numbers), D (decoded strings) and T (s, n or l).
function parse(s,    key, body, c, val) {
    delete F; delete D; delete T
    sub(/^[ \t\r]+/, "", s)
    if (substr(s, 1, 1) != "{") return perror("not a JSON object")
    s = substr(s, 2); sub(/^[ \t\r]+/, "", s)
    if (substr(s, 1, 1) == "}") {
        s = substr(s, 2); sub(/^[ \t\r]+/, "", s)
        return s == "" ? 1 : perror("text after the object")
    }
    for (;;) {
        if (!match(s, /^"([^"\\]|\\.)*"/)) return perror("expected a quoted name")
        body = substr(s, 2, RLENGTH - 2); s = substr(s, RLENGTH + 1)
        if (!body_ok(body)) return 0
        key = std_decode(body)
        if (key in T) return perror("the name " jq(key, 1) " appears twice")
        sub(/^[ \t\r]+/, "", s)
        if (substr(s, 1, 1) != ":") return perror("expected ':' after a name")
        s = substr(s, 2); sub(/^[ \t\r]+/, "", s)
        c = substr(s, 1, 1)
        if (c == "\"") {
            if (!match(s, /^"([^"\\]|\\.)*"/)) return perror("an unterminated string")
            body = substr(s, 2, RLENGTH - 2); s = substr(s, RLENGTH + 1)
            if (!body_ok(body)) return 0
            F[key] = body; D[key] = std_decode(body); T[key] = "s"
        } else if (match(s, /^-?(0|[1-9][0-9]*)/)) {
            val = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1)
            if (s ~ /^[.eE]/) return perror(jq(key, 1) " is not a whole number")
            # Any length is read (a summary may add up large sizes); items to delete are held
            # to 15 digits below, which the dry run never exceeds for them.
            if (length(val) > 40) return perror(jq(key, 1) " is out of range (more than 40 digits)")
            F[key] = val; T[key] = "n"
        } else if (match(s, /^(true|false|null)/)) {
            F[key] = substr(s, 1, RLENGTH); T[key] = "l"; s = substr(s, RLENGTH + 1)
        } else if (c == "{" || c == "[") {
            return perror("a nested value (plans hold flat objects)")
        } else {
            return perror("an invalid value")
        }
        sub(/^[ \t\r]+/, "", s)
        c = substr(s, 1, 1)
        if (c == ",") { s = substr(s, 2); sub(/^[ \t\r]+/, "", s); continue }
        if (c == "}") {
            s = substr(s, 2); sub(/^[ \t\r]+/, "", s)
            return s == "" ? 1 : perror("text after the object")
        }
        return perror("expected ',' or '}'")
    }
}

function problem(line, why) {
    nproblems++
    if (nproblems <= 20) problems = problems (problems == "" ? "" : "; ") "line " line ": " why
}

# The reason a plan item can never be deleted, from its path bytes alone ("" when none).
function pattern_refusal(kind, p, user_text, path_text,    rel, user, rest, project, file) {
    if (std_form(p) != path_text) return "its \"path\" does not name the path of its \"identity\""
    if (substr(p, 1, length(root) + 1) != root "/") return "path is not inside HOME_ROOT"
    rel = substr(p, length(root) + 2)
    user = rel; sub(/\/.*/, "", user)
    rest = substr(rel, length(user) + 2)
    if (user == "" || index(rel, "/") == 0) return "path is not inside HOME_ROOT/<user>"
    if (substr(user, 1, 1) == ".") return "the home folder name starts with a dot; the scan never lists hidden folders"
    if (std_form(user) != user_text) return "\"user\" is not the home folder of the path"
    if (kind == "chat") {
        if (substr(rest, 1, 5) != "chat-" || index(rest, "/")) return "path is not HOME_ROOT/<user>/chat-*"
        return ""
    }
    if (kind == "session") {
        if (substr(rest, 1, 17) != ".claude/projects/") return "path is not HOME_ROOT/<user>/.claude/projects/<project>/<uuid>.jsonl"
        project = substr(rest, 18); file = project
        sub(/\/.*/, "", project); file = substr(file, length(project) + 2)
        if (project == "" || project == "." || project == ".." || index(file, "/") || file !~ uuid_jsonl_re)
            return "path is not HOME_ROOT/<user>/.claude/projects/<project>/<uuid>.jsonl"
        return ""
    }
    return "only chat and session items are ever deleted"
}

function validate(   line, lineno, k, bad, id, parts, p, pre, user, seen_path, seen_home, nhomes) {
    RS = "\n"
    while ((getline line) > 0) {
        lineno++
        if (index(line, NUL)) { problem(lineno, "a NUL byte"); continue }
        if (line ~ /^[ \t\r]*$/) continue
        if (!parse(line)) { problem(lineno, perr); continue }
        if (T["action"] != "s" || D["action"] != "delete") continue
        bad = 0
        for (k in need_string)
            if (T[k] != "s") { problem(lineno, "\"" k "\" is missing or not a string"); bad = 1 }
        for (k in need_number)
            if (T[k] != "n" || F[k] ~ /^-/ || length(F[k]) > 15) { problem(lineno, "\"" k "\" is missing or not a whole number from 0 to 15 digits"); bad = 1 }
        id = D["identity"]
        if (T["identity"] != "s" || id !~ /^[0-9]+:[0-9]+:([0-9a-f][0-9a-f])+$/) {
            problem(lineno, "\"identity\" is missing or malformed (a plan from an older version of this script: make a new dry run)")
            continue
        }
        split(id, parts, ":")
        p = hexdec(parts[3])
        if (length(parts[1]) > 20 || length(parts[2]) > 20 || index(p, NUL) || substr(p, 1, 1) != "/") {
            problem(lineno, "\"identity\" is malformed"); continue
        }
        if (bad) continue
        pre = pattern_refusal(D["kind"], p, D["user"], D["path"])
        if (pre == "" && ((D["kind"] SUBSEP p) in seen_path)) pre = "listed twice in the plan (lines " seen_path[D["kind"] SUBSEP p] " and " lineno ")"
        seen_path[D["kind"] SUBSEP p] = lineno
        user = ""
        if (pre == "") {
            user = substr(p, length(root) + 2); sub(/\/.*/, "", user)
            if (!(user in seen_home)) { seen_home[user] = 1; printf "%s%s", user, NUL > homes_file; nhomes++ }
        }
        printf "%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s", lineno, NUL, D["kind"], NUL, pre, NUL, p, NUL, user, NUL, F["bytes"], NUL, F["last_activity_epoch"], NUL, parts[1], NUL, parts[2], NUL, D["reason"], NUL, D["user"], NUL
    }
    close(homes_file)
    if (nproblems > 0) {
        if (nproblems > 20) problems = problems "; and " (nproblems - 20) " more"
        printf "cleanup: CLEANUP_PLAN %s is not a valid plan, nothing was touched: %s\n", disp(plan_name), problems > "/dev/stderr"
        return 10
    }
    return 0
}

# ---- items ------------------------------------------------------------------------------------

function count_item(key, b) {
    count[key]++
    count_bytes[key] += b
}

# Writes the item described by the it_* variables.
function emit(    age, ttl, line, key, u) {
    age = int((now - it_epoch) / 86400)
    if (age < 0) age = 0
    key = it_kind "_" it_action
    if (key in count) count_item(key, it_bytes)
    if (it_outcome != "") { key = it_outcome; gsub(/-/, "_", key); count_item(key, it_bytes) }
    if (format == "json") {
        line = "{\"action\":\"" it_action "\",\"kind\":\"" it_kind "\",\"user\":" jq(it_user, 0) ",\"path\":" jq(it_path, 0)
        if (it_dev != "") line = line ",\"identity\":\"" it_dev ":" it_ino ":" identity_hex(it_path) "\""
        line = line ",\"bytes\":" num(it_bytes) ",\"last_activity\":\"" iso(it_epoch) "\",\"last_activity_epoch\":" num(it_epoch) ",\"age_days\":" age ",\"reason\":" jq(it_reason, 0)
        if (it_kind == "session" && it_sid != "") {
            line = line ",\"session_id\":" jq(it_sid, 0) ",\"project\":" jq(it_project, 0) ",\"session_dir\":" (it_sdir != "" ? jq(it_sdir, 0) : "null")
        }
        if (it_outcome != "") {
            line = line ",\"outcome\":\"" it_outcome "\",\"message\":" jq(it_message, 0)
            if (it_cur_bytes != "") line = line ",\"current_bytes\":" num(it_cur_bytes)
            if (it_cur_epoch != "") line = line ",\"current_last_activity_epoch\":" num(it_cur_epoch)
        }
        report_line(line "}")
    } else {
        line = sprintf("%-7s %-8s %-12s %10s  %s  %5sd  %s  (%s)", toupper(it_action), it_kind, disp(it_user), human(it_bytes), substr(iso(it_epoch), 1, 16), age, disp(it_path), disp(it_reason))
        if (it_outcome != "") {
            line = line "  => " it_outcome
            if (it_message != "") line = line ": " disp(it_message)
        }
        report_line(line)
    }
}

# Writes one line of the report: to standard output, or (while a home's deletions wait for their
# records) to the chunk the deletion step writes out and checks before deleting anything.
function report_line(s) {
    if (out_to != "") print s > out_to
    else print s
}

# The hex form of a path, for identities (the part up to the home is computed once per home).
function set_hex_prefix(user) {
    hex_prefix_of = root "/" user "/"
    hex_prefix = hexenc(hex_prefix_of)
}

function identity_hex(p) {
    if (substr(p, 1, length(hex_prefix_of)) == hex_prefix_of) return hex_prefix hexenc(substr(p, length(hex_prefix_of) + 1))
    return hexenc(p)
}

function clear_item() {
    it_action = ""; it_kind = ""; it_user = ""; it_path = ""; it_bytes = 0; it_epoch = 0; it_reason = ""
    it_sid = ""; it_project = ""; it_sdir = ""; it_outcome = ""; it_message = ""; it_cur_bytes = ""
    it_cur_epoch = ""; it_dev = ""; it_ino = ""
}

# ---- scanning ---------------------------------------------------------------------------------

function home_begin(user, state) {
    h_user = user; h_state = state; h_home = root "/" user; h_projects = h_home "/.claude/projects"
    set_hex_prefix(user)
    delete chat_bytes; delete chat_epoch; delete chat_dev; delete chat_ino; delete chat_index
    delete s_bytes; delete s_epoch; delete s_file; delete s_dir; delete s_dev; delete s_ino
    delete s_dirdev; delete s_dirino
    delete o_path; delete o_bytes; delete o_epoch; delete o_reason; delete o_dev; delete o_ino; delete other_reason
    delete c_kind; delete c_path; delete c_bytes; delete c_epoch; delete c_dev; delete c_ino; delete c_sid
    delete c_project; delete c_sdir; delete c_action; delete c_reason; delete c_name; delete cand_by_path
    delete c_ddev; delete c_dino; delete cand_plan; delete v_out; delete v_msg; delete q_of
    delete q_src; delete q_meta; delete q_bytes; delete q_epoch; delete q_fail; delete q_err
    delete stay; delete left; delete left_err; delete kept
    delete x_src; delete x_out; delete x_msg
    nchats = 0; nothers = 0; ncand = 0; nx = 0
}

function add_other(p, b, e, dev, ino, reason) {
    nothers++
    o_path[nothers] = p; o_bytes[nothers] = b; o_epoch[nothers] = e; o_reason[nothers] = reason
    o_dev[nothers] = dev; o_ino[nothers] = ino
    other_reason[p] = reason
}

function find_record(start, meta, rel, target,    f, type, size, epoch, project, rest, name, key) {
    split(meta, f, " ")
    type = f[1]; size = f[2] + 0; epoch = int(f[3])
    # ~/.claude is a start point only when it was a symbolic link: never a chat, even when it
    # has just been turned into a folder.
    if (start == h_home "/.claude") {
        if (rel == "" && type != "l")
            add_other(start, size, epoch, f[4], f[5], "changed from a symbolic link to a folder during the scan; left alone, run again")
        else if (rel == "")
            add_other(start, size, epoch, f[4], f[5], "symbolic link to '" target "'; never followed or deleted")
        return
    }
    if (rel == "") {
        if (type == "l")
            add_other(start, size, epoch, f[4], f[5], "symbolic link to '" target "'; never followed or deleted")
        else if (type != "d")
            add_other(start, size, epoch, f[4], f[5], "not a folder; left alone")
        else if (start != h_projects) {
            nchats++
            chat_index[nchats] = start
            chat_bytes[start] = size; chat_epoch[start] = epoch; chat_dev[start] = f[4]; chat_ino[start] = f[5]
        }
        return
    }
    if (start != h_projects) {
        chat_bytes[start] += size
        if (epoch > chat_epoch[start]) chat_epoch[start] = epoch
        return
    }
    project = rel; sub(/\/.*/, "", project)
    if (index(rel, "/") == 0) {
        if (type == "l")
            add_other(h_projects "/" rel, size, epoch, f[4], f[5], "symbolic link to '" target "' among the Claude projects; never followed or deleted")
        return
    }
    rest = substr(rel, length(project) + 2)
    name = rest; sub(/\/.*/, "", name)
    if (index(rest, "/") == 0) {
        if (name ~ uuid_jsonl_re) {
            key = project "/" substr(name, 1, length(name) - 6)
            if (type != "f") {
                add_other(h_projects "/" rel, size, epoch, f[4], f[5], "session transcript is not a regular file" (type == "l" ? " (symbolic link to '" target "')" : "") "; left alone")
                return
            }
            s_file[key] = 1; s_dev[key] = f[4]; s_ino[key] = f[5]
        } else if (name ~ uuid_re) {
            key = project "/" name
            if (type != "d") {
                add_other(h_projects "/" rel, size, epoch, f[4], f[5], "session folder is not a folder" (type == "l" ? " (symbolic link to '" target "')" : "") "; left alone")
                return
            }
            s_dir[key] = 1; s_dirdev[key] = f[4]; s_dirino[key] = f[5]
        } else {
            if (name ~ /\.jsonl$/)
                add_other(h_projects "/" rel, size, epoch, f[4], f[5], "transcript name is not a session id; left alone")
            return
        }
    } else {
        if (name !~ uuid_re) return
        key = project "/" name
    }
    s_bytes[key] += size
    if (!(key in s_epoch) || epoch > s_epoch[key]) s_epoch[key] = epoch
}

function qsort(A, lo, hi,    i, last, t, mid) {
    if (lo >= hi) return
    mid = int((lo + hi) / 2)
    t = A[lo]; A[lo] = A[mid]; A[mid] = t
    last = lo
    for (i = lo + 1; i <= hi; i++)
        if (A[i] < A[lo]) { last++; t = A[last]; A[last] = A[i]; A[i] = t }
    t = A[lo]; A[lo] = A[last]; A[last] = t
    qsort(A, lo, last - 1)
    qsort(A, last + 1, hi)
}

function add_candidate(kind, p, b, e, dev, ino, name, sid, project, sdir,    ttl, age_seconds, mp) {
    mp = mount_within(p)
    if (mp == "" && sdir != "") mp = mount_within(sdir)
    if (mp != "") {
        add_other(p, b, e, dev, ino, "is or contains a mount point (" mp "); never deleted")
        return
    }
    # Values a plan could not carry (see pattern_refusal's reader): shown, never deleted.
    if (e < 0 || b >= 1e15) {
        add_other(p, b, e, dev, ino, "suspicious: " (e < 0 ? "last activity before 1970" : "a size of 16 or more digits (sparse files?)") "; never deleted, check it by hand")
        return
    }
    ncand++
    c_kind[ncand] = kind; c_path[ncand] = p; c_bytes[ncand] = b; c_epoch[ncand] = e
    c_dev[ncand] = dev; c_ino[ncand] = ino; c_name[ncand] = name; c_sid[ncand] = sid
    c_project[ncand] = project; c_sdir[ncand] = sdir
    ttl = kind == "chat" ? chat_ttl : session_ttl
    age_seconds = now - e
    if (age_seconds > ttl * 86400) {
        c_action[ncand] = "delete"
        c_reason[ncand] = "no activity for " int(age_seconds / 86400) " days; the " kind " TTL is " ttl " days"
    } else {
        c_action[ncand] = "keep"
        c_reason[ncand] = "active within the " kind " TTL of " ttl " days"
    }
    cand_by_path[p] = ncand
}

# Turns the records of the home into candidates (chats in scan order, sessions sorted).
function build_candidates(    i, p, n, keys, key, project, name) {
    for (i = 1; i <= nchats; i++) {
        p = chat_index[i]
        add_candidate("chat", p, chat_bytes[p], chat_epoch[p], chat_dev[p], chat_ino[p], substr(p, length(h_home) + 2), "", "", "")
    }
    n = 0
    for (key in s_bytes) keys[++n] = key
    qsort(keys, 1, n)
    for (i = 1; i <= n; i++) {
        key = keys[i]
        project = key; sub(/\/[^\/]*$/, "", project)
        name = substr(key, length(project) + 2)
        if (!(key in s_file)) {
            add_other(h_projects "/" key, s_bytes[key], s_epoch[key], s_dirdev[key], s_dirino[key], "session folder without its transcript; left alone")
            continue
        }
        add_candidate("session", h_projects "/" key ".jsonl", s_bytes[key], s_epoch[key], s_dev[key], s_ino[key], key, name, project, (key in s_dir) ? h_projects "/" key : "")
        if (c_path[ncand] == h_projects "/" key ".jsonl") { c_ddev[ncand] = s_dirdev[key]; c_dino[ncand] = s_dirino[key] }
    }
}

function emit_other(i) {
    clear_item()
    it_action = "report"; it_kind = "other"; it_user = h_user; it_path = o_path[i]
    it_bytes = o_bytes[i]; it_epoch = o_epoch[i]; it_reason = o_reason[i]
    it_dev = o_dev[i]; it_ino = o_ino[i]
    emit()
}

function emit_candidate(n, outcome, message) {
    clear_item()
    it_action = c_action[n]; it_kind = c_kind[n]; it_user = h_user; it_path = c_path[n]
    it_bytes = c_bytes[n]; it_epoch = c_epoch[n]; it_reason = c_reason[n]
    it_dev = c_dev[n]; it_ino = c_ino[n]
    it_sid = c_sid[n]; it_project = c_project[n]; it_sdir = c_sdir[n]
    it_outcome = outcome; it_message = message
    emit()
}

# A report for the whole home (unreadable, or not completely readable).
function report_home(reason) {
    clear_item()
    it_action = "report"; it_kind = "other"; it_user = h_user; it_path = h_home; it_epoch = now
    it_reason = reason
    emit()
}

# ---- plans ------------------------------------------------------------------------------------

function load_plan(    f, k, v, i, n) {
    f = plan_items_file
    n = 0
    while ((getline v < f) > 0) {
        k = (n % 11); i = int(n / 11) + 1
        if (k == 0) pk_line[i] = v
        else if (k == 1) pk_kind[i] = v
        else if (k == 2) pk_pre[i] = v
        else if (k == 3) pk_path[i] = v
        else if (k == 4) pk_user[i] = v
        else if (k == 5) pk_bytes[i] = v
        else if (k == 6) pk_epoch[i] = v
        else if (k == 7) pk_dev[i] = v
        else if (k == 8) pk_ino[i] = v
        else if (k == 9) pk_reason[i] = v
        else if (k == 10) pk_usertext[i] = v
        n++
    }
    close(f)
    nplan = int(n / 11)
    for (i = 1; i <= nplan; i++) {
        if (pk_pre[i] != "") {
            set_hex_prefix("")
            plan_emit(i, "refused", pk_pre[i], "", "", 0)
            continue
        }
        items_of[pk_user[i]] = items_of[pk_user[i]] " " i
    }
    fflush()
}

# Writes plan item i with an outcome; n > 0 names the candidate it matched.
function plan_emit(i, outcome, message, cur_b, cur_e, n) {
    clear_item()
    it_action = "delete"; it_kind = pk_kind[i]; it_path = pk_path[i]
    it_user = pk_user[i] != "" ? pk_user[i] : pk_usertext[i]
    it_bytes = pk_bytes[i]; it_epoch = pk_epoch[i]; it_reason = pk_reason[i]
    it_dev = pk_dev[i]; it_ino = pk_ino[i]
    if (n > 0) { it_sid = c_sid[n]; it_project = c_project[n]; it_sdir = c_sdir[n] }
    it_outcome = outcome; it_message = message; it_cur_bytes = cur_b; it_cur_epoch = cur_e
    emit()
}

# The refusal for a planned path the scan did not list as a candidate ("" when it is gone).
function not_listed(p, kind,    n, a) {
    n = cand_by_path[p]
    if (n != "") return "the scan lists it as a " c_kind[n] ", not a " kind
    if (p in other_reason) return "the scan only reports it: " other_reason[p]
    a = p
    while (sub(/\/[^\/]*$/, "", a) && length(a) > length(root))
        if (a in other_reason) return "the scan only reports " a ": " other_reason[a]
    return ""
}

# Decides plan item i against the scan of its home. Returns the candidate to delete, or 0 after
# emitting the item (or queueing it with an outcome in execute mode).
function plan_decide(i,    n, p, why, ttl, was, cur) {
    p = pk_path[i]
    if (h_state == "link") return plan_done(i, "refused", "the home is a symbolic link; it is never followed", "", "", 0)
    if (h_state == "missing") return plan_done(i, "skipped-changed", "the home no longer exists", "", "", 0)
    if (h_state == "notdir") return plan_done(i, "refused", "the home is not a folder", "", "", 0)
    if (h_state == "unreadable") return plan_done(i, "refused", "cannot read this home as " who "; run as root", "", "", 0)
    if (h_error != "") return plan_done(i, "failed", "could not be checked again: " h_error, "", "", 0)
    n = cand_by_path[p]
    if (n == "" || c_kind[n] != pk_kind[i]) {
        why = not_listed(p, pk_kind[i])
        if (why != "") return plan_done(i, "refused", why, "", "", 0)
        return plan_done(i, "skipped-changed", "no longer exists", "", "", 0)
    }
    if ((c_dev[n] "") != (pk_dev[i] "") || (c_ino[n] "") != (pk_ino[i] ""))
        return plan_done(i, "refused", "not the reviewed entry: its identity is now device " c_dev[n] ", inode " c_ino[n] " (the plan has " pk_dev[i] ", " pk_ino[i] ")", c_bytes[n], c_epoch[n], n)
    if (c_bytes[n] + 0 != pk_bytes[i] + 0 || c_epoch[n] + 0 != pk_epoch[i] + 0)
        return plan_done(i, "skipped-changed", "changed since the plan: " num(pk_bytes[i]) " -> " num(c_bytes[n]) " bytes, last activity " iso(pk_epoch[i]) " -> " iso(c_epoch[n]), c_bytes[n], c_epoch[n], n)
    if (c_action[n] != "delete") {
        ttl = pk_kind[i] == "chat" ? chat_ttl : session_ttl
        return plan_done(i, "refused", "still within the " pk_kind[i] " TTL of " ttl " days (last activity " iso(c_epoch[n]) "); only expired items are deleted", c_bytes[n], c_epoch[n], n)
    }
    # A line the dry run wrote as "keep", flipped by hand: never executed, even when a lower TTL
    # now would let it expire.
    if (substr(pk_reason[i], 1, 16) != "no activity for ")
        return plan_done(i, "refused", "the dry run did not list it for deletion (its reason: " pk_reason[i] "); only lines the dry run wrote as \"delete\" are executed", c_bytes[n], c_epoch[n], n)
    if (mode != "execute") return plan_done(i, "would-delete", "unchanged since the plan", c_bytes[n], c_epoch[n], n)
    return n
}

# In check-plan mode writes the item now; in execute mode queues it for after the deletions.
function plan_done(i, outcome, message, cur_b, cur_e, n) {
    if (mode != "execute") { plan_emit(i, outcome, message, cur_b, cur_e, n); return 0 }
    nx++
    x_src[nx] = "p" i; x_out[nx] = outcome; x_msg[nx] = message; x_b[nx] = cur_b; x_e[nx] = cur_e; x_n[nx] = n
    return 0
}

# ---- deleting ---------------------------------------------------------------------------------
#
# Per home: the items to delete are renamed into a fresh quarantine folder (root's, mode 700, so
# nobody else can reach them by path any more) next to them: one in the home for chats, one in
# its projects folder for sessions (a transcript and its folder go together). There they are
# checked again (identity, size, last activity, mount points); what fails goes back. Then the
# records of the whole home are written and flushed, and only after that succeeds is the
# quarantine deleted. A report that cannot be written stops awk before that step, and the shell
# puts the quarantined items back (see the end of the script).

function token(file, s) {
    printf "%s%s", s, NUL > file
}

# One entry to move: its name in the container (relative) and its name in the quarantine.
function plan_entry(kind, src, qentry, n) {
    token(kind == "chat" ? del_chats : del_sessions, src)
    token(del_undo, kind); token(del_undo, qentry); token(del_undo, src)
    q_of[kind, qentry] = n; q_src[kind, qentry] = src
}

function run_step(step,    r) {
    r = system(del_cmd " " step)
    # 7: the records could not be written; nothing was deleted (the shell puts back the rest).
    if (r == 7) { aborted = 6; exit 6 }
    if (r != 0) {
        printf "cleanup: internal error: the deletion step (%s) failed in %s\n", step, disp(h_home) > "/dev/stderr"
        aborted = 5; exit 5
    }
    read_records(del_records)
}

# Moves the items to delete into quarantine and checks them again there (sets v_out/v_msg of
# each; an empty v_out means it is deleted once its record is written).
function request_deletion(    j, n, nc, ns, sid, seen) {
    nc = 0; ns = 0; nrestore = 0
    printf "" > del_chats; printf "" > del_sessions; printf "" > del_undo
    qname = ".cleanup-quarantine." ENVIRON["CLEANUP_AWK_PID"] "." (++qcount) "." int(rand() * 1000000000)
    for (j = 1; j <= ndel; j++) {
        n = del_n[j]
        if (c_kind[n] == "chat") {
            plan_entry("chat", c_name[n], c_name[n], n)
            nc++
            continue
        }
        sid = c_sid[n]
        if (sid in seen) {
            v_out[n] = "skipped-changed"; v_msg[n] = "another session of this home with the same id is deleted in this run; run again"
            continue
        }
        seen[sid] = 1
        plan_entry("session", c_name[n] ".jsonl", sid ".jsonl", n)
        # Its folder only when it was checked; one that appeared since stays (never alone).
        if (c_sdir[n] != "") plan_entry("session", c_name[n], sid, n)
        ns++
    }
    close(del_chats); close(del_sessions); close(del_undo)
    printf "%s%s%s%s%d%s%d%s", h_user, NUL, qname, NUL, nc, NUL, ns, NUL > del_request
    close(del_request)
    fflush()
    if (nc + ns == 0) return
    run_step("move")
    load_mounts()
    printf "" > del_restore
    for (j = 1; j <= ndel; j++) {
        n = del_n[j]
        if (v_out[n] == "") recheck(n)
    }
    close(del_restore)
    if (nrestore > 0) run_step("restore")
}

function container(kind) { return kind == "chat" ? h_home : h_projects }

# Checks candidate n again in quarantine.
function recheck(n,    kind, main, dir, f, want, qb, qe, what, mp) {
    kind = c_kind[n]
    if (kind in q_fail) { v_out[n] = "failed"; v_msg[n] = "could not be moved aside for deletion: " q_fail[kind]; return }
    main = kind == "chat" ? c_name[n] : c_sid[n] ".jsonl"
    dir = (kind == "session" && c_sdir[n] != "") ? c_sid[n] : ""
    what = kind == "chat" ? "folder" : "transcript"
    if (!((kind, main) in q_meta)) {
        if ((kind, main) in stay) { v_out[n] = "failed"; v_msg[n] = "could not be moved aside for deletion" (q_err[kind] != "" ? ": " q_err[kind] : "") }
        else { v_out[n] = "skipped-changed"; v_msg[n] = "its " what " disappeared before it could be deleted" }
        if (dir != "" && (kind, dir) in q_meta) { restore(kind, dir); v_msg[n] = v_msg[n] "; its session folder was put back" }
        return
    }
    want = kind == "chat" ? "d" : "f"
    split(q_meta[kind, main], f, " ")
    if (f[1] == "l") {
        v_out[n] = "refused"; v_msg[n] = "it was replaced by a symbolic link after the check; the link was left alone and nothing was deleted"
    } else if (f[1] != want || (f[4] "") != (c_dev[n] "") || (f[5] "") != (c_ino[n] "")) {
        v_out[n] = "refused"; v_msg[n] = "it was replaced after the check by another entry (type " f[1] ", device " f[4] ", inode " f[5] "); nothing was deleted"
    }
    if (v_out[n] == "" && dir != "") {
        if (!((kind, dir) in q_meta)) { v_out[n] = "skipped-changed"; v_msg[n] = "its session folder disappeared or could not be moved after the check; nothing was deleted" }
        else {
            split(q_meta[kind, dir], f, " ")
            if (f[1] != "d" || (f[4] "") != (c_ddev[n] "") || (f[5] "") != (c_dino[n] ""))
                { v_out[n] = "refused"; v_msg[n] = "its session folder was replaced after the check (type " f[1] "); nothing was deleted" }
        }
    }
    if (v_out[n] == "") {
        qb = q_bytes[kind, main] + (dir != "" ? q_bytes[kind, dir] : 0)
        qe = q_epoch[kind, main]
        if (dir != "" && q_epoch[kind, dir] > qe) qe = q_epoch[kind, dir]
        if (qb != c_bytes[n] + 0 || qe != c_epoch[n] + 0) {
            v_out[n] = "skipped-changed"
            v_msg[n] = "changed after the check: " num(c_bytes[n]) " -> " num(qb) " bytes, last activity " iso(c_epoch[n]) " -> " iso(qe) "; nothing was deleted"
        }
    }
    if (v_out[n] == "") {
        mp = mount_within(container(kind) "/" qname "/" main)
        if (mp == "" && dir != "") mp = mount_within(container(kind) "/" qname "/" dir)
        if (mp != "") { v_out[n] = "refused"; v_msg[n] = "it is or contains a mount point (" mp "); nothing was deleted" }
    }
    if (v_out[n] == "") return
    restore(kind, main)
    if (dir != "" && (kind, dir) in q_meta) restore(kind, dir)
    v_msg[n] = v_msg[n] " (put back where it was)"
}

function restore(kind, qentry) {
    token(del_restore, kind); token(del_restore, qentry); token(del_restore, q_src[kind, qentry])
    nrestore++
}

# The mount points of this process's mount namespace under HOME_ROOT (mountinfo's field 5, with
# its octal escapes decoded).
function load_mounts(    line, f, p, out, k, rs) {
    delete mounts; nmounts = 0
    rs = RS; RS = "\n"
    while ((getline line < "/proc/self/mountinfo") > 0) {
        split(line, f, " ")
        p = f[5]; out = ""
        while ((k = index(p, "\\")) > 0) {
            out = out substr(p, 1, k - 1) chr[(substr(p, k + 1, 1) * 64) + (substr(p, k + 2, 1) * 8) + substr(p, k + 3, 1)]
            p = substr(p, k + 4)
        }
        p = out p
        if (substr(p, 1, length(root) + 1) == root "/") mounts[++nmounts] = p
    }
    close("/proc/self/mountinfo")
    RS = rs
}

# The first mount point that is p or lies inside it ("" when none).
function mount_within(p,    i) {
    for (i = 1; i <= nmounts; i++)
        if (mounts[i] == p || substr(mounts[i], 1, length(p) + 1) == p "/") return mounts[i]
    return ""
}

# After the records of the home were written: deletes what is in quarantine.
function commit_deletion(    j, n, k, kind, main, any) {
    printf "" > del_accept
    any = 0
    for (j = 1; j <= ndel; j++) {
        n = del_n[j]
        if (v_out[n] != "") continue
        kind = c_kind[n]
        main = kind == "chat" ? c_name[n] : c_sid[n] ".jsonl"
        token(del_accept, kind); token(del_accept, main)
        if (kind == "session" && c_sdir[n] != "") { token(del_accept, kind); token(del_accept, c_sid[n]) }
        any = 1
    }
    close(del_accept)
    if (!any) return
    run_step("delete")
    for (j = 1; j <= ndel; j++) {
        n = del_n[j]
        if (v_out[n] != "") continue
        kind = c_kind[n]
        main = kind == "chat" ? c_name[n] : c_sid[n] ".jsonl"
        if ((kind, main) in left || (kind, c_sid[n]) in left) {
            count["deleted"]--; count_bytes["deleted"] -= c_bytes[n]
            emit_candidate_or_plan(n, "failed", "reported as deleted above, but not everything could be removed" (left_err[kind] != "" ? " (" left_err[kind] ")" : "") "; what is left is in " container(kind) "/" qname)
        } else {
            printf "%s\n", disp(c_path[n]) >> deleted_list
        }
    }
    close(deleted_list)
}

function shq(s) {
    gsub(/'/, "'\\''", s)
    return "'" s "'"
}

# Feeds the records of a file through the same state machine as the input.
function read_records(file,    v) {
    while ((getline v < file) > 0) take(v)
    close(file)
}

# A record of the deletion step (see delete.sh).
function deletion_record(tag,    f, top, k) {
    if (tag == "QFAIL") { q_fail[fld[1]] = fld[2]; return }
    if (tag == "STAY") { stay[fld[1], fld[2]] = 1; return }
    if (tag == "QEND") { if (fld[3] != "") q_err[fld[1]] = fld[3]; return }
    if (tag == "LEFT") { left[fld[1], fld[2]] = 1; if (fld[3] != "") left_err[fld[1]] = fld[3]; return }
    if (tag == "KEPT") { kept[fld[1], fld[2]] = 1; return }
    # Q kind meta rel: one entry found in quarantine
    split(fld[2], f, " ")
    top = fld[3]; k = index(top, "/")
    if (k > 0) top = substr(top, 1, k - 1)
    else q_meta[fld[1], top] = fld[2]
    q_bytes[fld[1], top] += f[2]
    if (!((fld[1], top) in q_epoch) || int(f[3]) > q_epoch[fld[1], top]) q_epoch[fld[1], top] = int(f[3])
}

# What happened to candidate n: sets out_outcome and out_message.
function deletion_outcome(n,    kind, main) {
    if (v_out[n] == "") { out_outcome = "deleted"; out_message = ""; return }
    out_outcome = v_out[n]; out_message = v_msg[n]
    kind = c_kind[n]
    main = kind == "chat" ? c_name[n] : c_sid[n] ".jsonl"
    if ((kind, main) in kept || (kind, c_sid[n]) in kept) {
        out_outcome = "failed"
        out_message = out_message "; but it could not be put back and is in " container(kind) "/" qname
    }
}

# ---- homes ------------------------------------------------------------------------------------

# After the scan of a home: emits (dry run, plan check) or asks for the deletions (execute).
function home_end(status, err,    i, n, list, parts, k) {
    h_error = ""
    if (h_state == "ok" && status != 0)
        h_error = "could not read everything in this home (" (err != "" ? err : "find failed") ")"
    if (h_state == "ok" && h_error == "") build_candidates()
    ndel = 0
    if (has_plan) {
        k = split(items_of[h_user], parts, " ")
        for (i = 1; i <= k; i++) {
            n = plan_decide(parts[i] + 0)
            if (n > 0) {
                ndel++; del_n[ndel] = n; cand_plan[n] = parts[i] + 0
                nx++; x_src[nx] = "p" parts[i]; x_out[nx] = ""; x_n[nx] = n
            }
        }
        delete items_of[h_user]
    } else {
        if (h_state == "unreadable")
            report_home_later("cannot read this home as " who "; run as root to include it")
        else if (h_error != "")
            report_home_later(h_error "; its items are left out")
        for (i = 1; i <= nothers; i++) { nx++; x_src[nx] = "o" i }
        for (i = 1; i <= ncand; i++) {
            nx++; x_src[nx] = "c" i; x_out[nx] = ""
            if (mode == "execute" && c_action[i] == "delete") { ndel++; del_n[ndel] = i; x_out[nx] = "pending" }
        }
    }
    if (mode == "execute") request_deletion()
    home_finish()
}

function report_home_later(reason) {
    nx++; x_src[nx] = "h"; x_msg[nx] = reason
}

# Writes the items of the home in order, with the outcomes of the deletions. When something is to
# be deleted, the records go to a chunk first: the deletion step writes it out, and deletes only
# when that write succeeded.
function home_finish(    j, src, i, n, any) {
    any = 0
    if (mode == "execute")
        for (j = 1; j <= ndel; j++) if (v_out[del_n[j]] == "") any = 1
    if (any) { out_to = report_chunk; printf "" > out_to }
    for (j = 1; j <= nx; j++) {
        src = x_src[j]
        if (src == "h") { report_home(x_msg[j]); continue }
        i = substr(src, 2) + 0
        if (substr(src, 1, 1) == "o") { emit_other(i); continue }
        if (substr(src, 1, 1) == "c") {
            if (x_out[j] == "pending") {
                deletion_outcome(i)
                emit_candidate(i, out_outcome, out_message)
            } else {
                emit_candidate(i, "", "")
            }
            continue
        }
        # a plan item
        if (x_out[j] != "") { plan_emit(i, x_out[j], x_msg[j], x_b[j], x_e[j], x_n[j]); continue }
        n = x_n[j]
        deletion_outcome(n)
        plan_emit(i, out_outcome, out_message, c_bytes[n], c_epoch[n], n)
    }
    nx = 0
    fflush()
    if (any) {
        close(out_to); out_to = ""
        commit_deletion()
        fflush()
    }
    if (mode == "execute" && ndel > 0) { printf "" > del_undo; close(del_undo) }
}

function emit_candidate_or_plan(n, outcome, message) {
    if (n in cand_plan) plan_emit(cand_plan[n], outcome, message, c_bytes[n], c_epoch[n], n)
    else emit_candidate(n, outcome, message)
}

function summary(    out, k, ks, i, n) {
    n = split("chat_delete chat_keep session_delete session_keep other_report deleted would_delete skipped_changed refused failed", ks, " ")
    if (format == "json") {
        out = "{\"summary\":true,\"mode\":\"" mode "\",\"home_root\":" jq(root, 0) ",\"chat_ttl_days\":" chat_ttl ",\"session_ttl_days\":" session_ttl ",\"generated_at\":\"" iso(now) "\",\"generated_at_epoch\":" now
        for (i = 1; i <= n; i++) out = out ",\"" ks[i] "\":" num(count[ks[i]]) ",\"" ks[i] "_bytes\":" num(count_bytes[ks[i]])
        print out "}"
        return
    }
    printf "Summary (%s, %s, HOME_ROOT %s, chat TTL %d days, session TTL %d days):\n", mode, iso(now), disp(root), chat_ttl, session_ttl
    printf "  chat:    %d to delete (%s), %d kept (%s)\n", count["chat_delete"], human(count_bytes["chat_delete"]), count["chat_keep"], human(count_bytes["chat_keep"])
    printf "  session: %d to delete (%s), %d kept (%s)\n", count["session_delete"], human(count_bytes["session_delete"]), count["session_keep"], human(count_bytes["session_keep"])
    printf "  other:   %d reported, never deleted (%s)\n", count["other_report"], human(count_bytes["other_report"])
    if (mode == "dry-run")
        printf "  Dry run: nothing was changed. To delete, save this with CLEANUP_FORMAT=json, review it,\n  then run with CLEANUP_PLAN=<that file> CLEANUP_DRY_RUN=false.\n"
    else if (mode == "check-plan")
        printf "  Plan check: %d would be deleted, %d changed since the plan, %d refused. Nothing was changed.\n", count["would_delete"], count["skipped_changed"], count["refused"]
    else
        printf "  Deleted %d (%s); skipped as changed %d; refused %d; failed %d.\n", count["deleted"], human(count_bytes["deleted"]), count["skipped_changed"], count["refused"], count["failed"]
}

BEGIN {
    init()
    root = ENVIRON["CLEANUP_AWK_ROOT"]
    mode = ENVIRON["CLEANUP_AWK_MODE"]
    who = ENVIRON["CLEANUP_AWK_WHO"]
    tmpdir = ENVIRON["CLEANUP_AWK_TMP"]
    if (mode == "validate") {
        plan_name = ENVIRON["CLEANUP_AWK_PLAN"]
        homes_file = tmpdir "/plan.homes"
        split("kind user path reason", t, " "); for (i in t) need_string[t[i]] = 1
        split("bytes last_activity_epoch", t, " "); for (i in t) need_number[t[i]] = 1
        validation_status = validate()
        exit validation_status
    }
    format = ENVIRON["CLEANUP_AWK_FORMAT"]
    now = ENVIRON["CLEANUP_AWK_NOW"] + 0
    chat_ttl = ENVIRON["CLEANUP_AWK_CHAT_TTL"] + 0
    session_ttl = ENVIRON["CLEANUP_AWK_SESSION_TTL"] + 0
    has_plan = ENVIRON["CLEANUP_AWK_HAS_PLAN"] == "1"
    del_request = tmpdir "/del.request"; del_records = tmpdir "/del.records"
    status_file = tmpdir "/status"
    del_chats = tmpdir "/del.chats"; del_sessions = tmpdir "/del.sessions"
    del_undo = tmpdir "/del.undo"; del_restore = tmpdir "/del.restore"
    del_accept = tmpdir "/del.accept"; deleted_list = tmpdir "/deleted.list"
    report_chunk = tmpdir "/report.chunk"
    plan_items_file = tmpdir "/plan.items"
    del_cmd = ENVIRON["CLEANUP_AWK_DELETE_CMD"]
    srand()
    split("chat_delete chat_keep session_delete session_keep other_report deleted would_delete skipped_changed refused failed", t, " ")
    for (i in t) { count[t[i]] = 0; count_bytes[t[i]] = 0 }
    split("HOME 2 END 2 LINKHOME 3 QFAIL 2 STAY 2 Q 3 QEND 3 LEFT 3 KEPT 3", t, " ")
    for (i = 1; i < 20; i += 2) nfields[t[i]] = t[i + 1] + 0
    RS = NUL
    load_mounts()
    if (has_plan) load_plan()
}

# The input is a sequence of records, each a tag and a fixed number of fields (find's records
# start with their start point instead of a tag). The fields are collected here, without getline.
# A field that can be empty (find's %P and %l, END's message) comes with a leading "+", taken off
# here: mawk takes a NUL followed by another NUL (an empty record) for a separator that may go on,
# and reads on, growing its buffer, until the whole scan has arrived, so no home's items would
# be written before the last home had been scanned.
{ take($0) }

function take(v) {
    if (want > 0) {
        fld[++have] = v
        if (have < want) return
        want = 0
        dispatch()
        return
    }
    tag = v
    have = 0
    if (substr(tag, 1, 1) == "/") want = 3
    else if (tag in nfields) want = nfields[tag]
    else {
        printf "cleanup: internal error: unexpected record '%s'\n", disp(tag) > "/dev/stderr"
        aborted = 5; exit 5
    }
    if (want == 0) dispatch()
}

function dispatch() {
    if (substr(tag, 1, 1) == "/") find_record(tag, fld[1], substr(fld[2], 2), substr(fld[3], 2))
    else if (tag == "HOME") home_begin(fld[1], fld[2])
    else if (tag == "END") home_end(fld[1] + 0, substr(fld[2], 2))
    else if (tag == "LINKHOME") {
        home_begin(fld[1], "link")
        split(fld[2], f, " ")
        add_other(root "/" fld[1], f[1] + 0, int(f[2]), f[3], f[4], "home is a symbolic link to '" fld[3] "'; never followed")
        emit_other(1)
        fflush()
    }
    else deletion_record(tag)
}

END {
    if (aborted) exit aborted
    if (mode == "validate") exit validation_status
    for (i = 1; i <= nplan; i++) {
        if (pk_pre[i] == "" && (pk_user[i] in items_of)) {
            set_hex_prefix("")
            plan_emit(i, "failed", "its home was not checked again", "", "", 0)
        }
    }
    summary()
    status = (count["skipped_changed"] + count["refused"] + count["failed"] > 0) ? 4 : 0
    fflush()
    printf "done %d\n", status > status_file
    close(status_file)
    exit status
}
AWK

# ---------------------------------------------------------------------------------------------
# Feeding the awk program

export CLEANUP_AWK_ROOT=$root CLEANUP_AWK_MODE=$mode CLEANUP_AWK_WHO=$who CLEANUP_AWK_TMP=$tmp
export CLEANUP_AWK_FORMAT=$format CLEANUP_AWK_NOW=$now CLEANUP_AWK_CHAT_TTL=$chat_ttl
export CLEANUP_AWK_SESSION_TTL=$session_ttl CLEANUP_AWK_HAS_PLAN=0 CLEANUP_AWK_PLAN=$plan_file
export CLEANUP_AWK_PID=$$
# How awk starts the deletion step: a clean environment, so that nothing from the caller's
# (BASH_ENV, exported functions, PATH) reaches the commands that delete.
delete_cmd() {
    printf -v CLEANUP_AWK_DELETE_CMD 'exec env -i PATH=%q LC_ALL=C CLEANUP_AWK_TMP=%q CLEANUP_AWK_ROOT=%q' \
        "$PATH" "$tmp" "$root"
    [[ -z ${CLEANUP_TEST_TIMING_FILE:-} ]] ||
        printf -v CLEANUP_AWK_DELETE_CMD '%s CLEANUP_TEST_TIMING_FILE=%q' "$CLEANUP_AWK_DELETE_CMD" \
            "$CLEANUP_TEST_TIMING_FILE"
    [[ -z ${CLEANUP_TEST_PAUSE_FIFO:-} ]] ||
        printf -v CLEANUP_AWK_DELETE_CMD '%s CLEANUP_TEST_PAUSE_FIFO=%q CLEANUP_TEST_PAUSE_USER=%q' \
            "$CLEANUP_AWK_DELETE_CMD" "$CLEANUP_TEST_PAUSE_FIFO" "${CLEANUP_TEST_PAUSE_USER:-}"
    printf -v CLEANUP_AWK_DELETE_CMD '%s bash --noprofile --norc %q' "$CLEANUP_AWK_DELETE_CMD" \
        "$tmp/delete.sh"
    export CLEANUP_AWK_DELETE_CMD
}
delete_cmd

homes=()
if [[ -n $plan_file ]]; then
    stage='reading the plan'
    CLEANUP_AWK_HAS_PLAN=1
    rc=0
    CLEANUP_AWK_MODE=validate awk "$awk_program" <"$plan_file" >"$tmp/plan.items" || rc=$?
    case $rc in
    0) ;;
    10) exit 2 ;;
    *) die 5 "could not read the plan (awk exit status $rc)" ;;
    esac
    if [[ -s $tmp/plan.homes ]]; then
        mapfile -d '' -t homes <"$tmp/plan.homes"
    fi
fi

cat >"$tmp/delete.sh" <<'DELETE'
# The deletion step, run by awk (through system(), under env -i with a fixed PATH) for one home at
# a time, in phases; records go to $tmp/del.records for awk:
#   move     renames the entries in del.chats (relative to the home) and del.sessions (relative
#            to its projects folder) into a new quarantine folder there, named in del.request,
#            and lists what is in it: Q kind meta rel; STAY kind name for an entry still in its
#            place; QFAIL kind why when nothing could be moved; QEND kind status first-error.
#   restore  puts back the entries in del.restore (KEPT kind name error when one cannot be).
#   undo     the same for everything in del.undo (the shell, after a failed report).
#   delete   deletes the entries in del.accept from quarantine, then the quarantine folder
#            (LEFT kind name error for what is still there).
# Every path is used from inside a folder entered with cd -P and compared with its expected
# physical name, so a folder swapped for a symlink is never followed.
set -uo pipefail
tmp=$CLEANUP_AWK_TMP root=$CLEANUP_AWK_ROOT phase=$1
fields=()
mapfile -d '' -t fields <"$tmp/del.request"
user=${fields[0]} q=${fields[1]} home=$root/${fields[0]}
exec 3>"$tmp/del.records"

container() {
    if [[ $1 == chat ]]; then REPLY=$home; else REPLY=$home/.claude/projects; fi
}
# Enters the quarantine folder of kind $1: ours (root's, not a symlink) and where it belongs.
enter_quarantine() {
    container "$1"
    cd -P -- "$REPLY/$q" 2>/dev/null && [[ $PWD == "$REPLY/$q" && -O . && ! -L $REPLY/$q ]]
}

move_kind() {
    local kind=$1 names=() moving=() name status=0 first=''
    mapfile -d '' -t names <"$2"
    ((${#names[@]} > 0)) || return 0
    container "$kind"
    if ! cd -P -- "$REPLY" 2>/dev/null || [[ $PWD != "$REPLY" ]]; then
        printf 'QFAIL\0%s\0%s\0' "$kind" "the folder holding it was replaced; nothing was moved" >&3
        return 0
    fi
    if ! mkdir -m 700 -- "$q" 2>"$tmp/del.err" || ! enter_quarantine "$kind"; then
        IFS= read -r first <"$tmp/del.err" || true
        printf 'QFAIL\0%s\0%s\0' "$kind" "could not create the quarantine folder ${first:-$q}" >&3
        return 0
    fi
    # A session's project folder must still be a real folder right before the move.
    for name in "${names[@]}"; do
        if [[ $name != */* || (-d ../${name%%/*} && ! -L ../${name%%/*}) ]]; then
            moving+=("$name")
        else
            printf 'STAY\0%s\0%s\0' "$kind" "${name##*/}" >&3
        fi
    done
    ((${#moving[@]} == 0)) ||
        printf '../%s\0' "${moving[@]}" | xargs -0 -r mv -n -t . -- 2>"$tmp/del.err" ||
        status=$?
    [[ ! -s $tmp/del.err ]] || IFS= read -r first <"$tmp/del.err" || true
    for name in "${moving[@]}"; do
        [[ ! -e ../$name && ! -L ../$name ]] || printf 'STAY\0%s\0%s\0' "$kind" "${name##*/}" >&3
    done
    find -P . -mindepth 1 -xdev -printf "Q\\0$kind\\0%y %s %T@ %D %i\\0%P\\0" >&3 2>/dev/null </dev/null
    printf 'QEND\0%s\0%s\0%s\0' "$kind" "$status" "$first" >&3
}

# Puts back the kind/name/source triples of file $1.
restore_from() {
    local list=() i kind name src err
    mapfile -d '' -t list <"$1"
    for ((i = 0; i + 2 < ${#list[@]}; i += 3)); do
        kind=${list[i]} name=${list[i + 1]} src=${list[i + 2]}
        err=''
        if ! enter_quarantine "$kind"; then
            err='the quarantine folder cannot be entered'
        elif [[ -e ./$name || -L ./$name ]]; then
            err=$(mv -n -T -- "./$name" "../$src" 2>&1 </dev/null)
            [[ ! -e ./$name && ! -L ./$name ]] || err=${err:-"../$src exists again"}
        fi
        [[ -z $err ]] || printf 'KEPT\0%s\0%s\0%s\0' "$kind" "$name" "$err" >&3
    done
    for kind in chat session; do
        ! enter_quarantine "$kind" || { cd .. && rmdir -- "$q" 2>/dev/null; } || true
    done
}

delete_accepted() {
    local list=() i kind names=() err='' name
    mapfile -d '' -t list <"$tmp/del.accept"
    for kind in chat session; do
        names=()
        for ((i = 0; i + 1 < ${#list[@]}; i += 2)); do
            [[ ${list[i]} != "$kind" ]] || names+=("${list[i + 1]}")
        done
        ((${#names[@]} > 0)) || continue
        if ! enter_quarantine "$kind"; then
            for name in "${names[@]}"; do
                printf 'LEFT\0%s\0%s\0%s\0' "$kind" "$name" "the quarantine folder was replaced" >&3
            done
            continue
        fi
        # --one-file-system: a mount that appeared after the last check is not crossed.
        printf './%s\0' "${names[@]}" |
            xargs -0 -r rm -rf --one-file-system -- 2>"$tmp/del.err"
        IFS= read -r err <"$tmp/del.err" || true
        for name in "${names[@]}"; do
            [[ ! -e ./$name && ! -L ./$name ]] || printf 'LEFT\0%s\0%s\0%s\0' "$kind" "$name" "$err" >&3
        done
        cd .. && rmdir -- "$q" 2>/dev/null || true
    done
}

if [[ -n ${CLEANUP_TEST_TIMING_FILE:-} ]]; then
    # For benchmarks only: how long each phase of the deletion step takes, per home.
    started=$EPOCHREALTIME
    trap 'printf "%s %s %s\n" "$phase" "$started" "$EPOCHREALTIME" >>"$CLEANUP_TEST_TIMING_FILE"' EXIT
fi
case $phase in
move)
    if [[ -n ${CLEANUP_TEST_PAUSE_FIFO:-} && ${CLEANUP_TEST_PAUSE_USER:-$user} == "$user" ]]; then
        # For tests only: lets them change the tree between the checks and the move.
        printf 'paused %s\n' "$user" >"$CLEANUP_TEST_PAUSE_FIFO"
        IFS= read -r _ <"$CLEANUP_TEST_PAUSE_FIFO"
    fi
    move_kind chat "$tmp/del.chats"
    move_kind session "$tmp/del.sessions"
    ;;
restore) restore_from "$tmp/del.restore" ;;
undo) restore_from "$tmp/del.undo" ;;
delete)
    # The records of the home first: nothing is deleted unless they were all written.
    cat -- "$tmp/report.chunk" || exit 7
    delete_accepted
    ;;
esac
exit 0
DELETE

# Scans one home with a single find over its chat folders and Claude projects (records on stdout).
scan_home() {
    local user=$1 home=$root/$1 state=ok status=0 first='' entry starts=()
    if [[ -L $home ]]; then
        state='link'
    elif [[ ! -e $home ]]; then
        state=missing
    elif [[ ! -d $home ]]; then
        state=notdir
    elif [[ ! -r $home || ! -x $home ]]; then
        state=unreadable
    fi
    printf 'HOME\0%s\0%s\0' "$user" "$state"
    if [[ $state == ok ]]; then
        for entry in "$home"/chat-*; do
            starts+=("$entry")
        done
        if [[ -L $home/.claude ]]; then
            starts+=("$home/.claude")
        elif [[ -e $home/.claude/projects || -L $home/.claude/projects ]]; then
            starts+=("$home/.claude/projects")
        fi
        if ((${#starts[@]} > 0)); then
            # Through a file, not the command line: a home may hold more chats than fit there.
            printf '%s\0' "${starts[@]}" >"$tmp/starts"
            # shellcheck disable=SC2185 # the start points come from -files0-from
            find -P -files0-from "$tmp/starts" -xdev -printf '%H\0%y %s %T@ %D %i\0+%P\0+%l\0' \
                2>"$tmp/find.err" </dev/null || status=$?
            [[ ! -s $tmp/find.err ]] || IFS= read -r first <"$tmp/find.err" || true
        fi
    fi
    printf 'END\0%s\0+%s\0' "$status" "$first"
}

links=()
if [[ -z $plan_file ]]; then
    stage='listing the homes'
    if ! find -P "$root" -mindepth 1 -maxdepth 1 -printf '%y\0%f\0%s %T@ %D %i\0%l\0' \
        >"$tmp/homes.list" 2>"$tmp/homes.err" </dev/null; then
        first=''
        IFS= read -r first <"$tmp/homes.err" || true
        die 2 "cannot list HOME_ROOT $home_root_shown as $who: ${first:-find failed}"
    fi
    records=()
    mapfile -d '' -t records <"$tmp/homes.list"
    for ((i = 0; i + 3 < ${#records[@]}; i += 4)); do
        name=${records[i + 1]}
        [[ $name != .* ]] || continue
        case ${records[i]} in
        d) homes+=("$name") ;;
        l) links+=("$name" "${records[i + 2]}" "${records[i + 3]}") ;;
        esac
    done
    if ((${#homes[@]} > 0)); then
        mapfile -d '' -t homes < <(printf '%s\0' "${homes[@]}" | sort -z)
    fi
fi

produce() {
    local i user
    for ((i = 0; i < ${#links[@]}; i += 3)); do
        printf 'LINKHOME\0%s\0%s\0%s\0' "${links[i]}" "${links[i + 1]}" "${links[i + 2]}"
    done
    for user in "${homes[@]}"; do
        scan_home "$user"
    done
}

# The report step ended without finishing: mostly, the report could not be written (a full disk,
# a closed pipe). What the home at hand had moved aside goes back; the message lists exactly what
# was deleted, each item only after its record had been written.
stopped_early() {
    local deleted=() kept=() line
    if [[ -s $tmp/del.undo ]]; then
        sh -c "$CLEANUP_AWK_DELETE_CMD undo" </dev/null >/dev/null 2>&1 || true
        [[ ! -s $tmp/del.records ]] || mapfile -d '' -t kept <"$tmp/del.records"
    fi
    [[ ! -s $tmp/deleted.list ]] || mapfile -t deleted <"$tmp/deleted.list"
    {
        printf 'cleanup: stopped before the end (scan status %s, report status %s): the report could not be written to standard output, or the report step failed; nothing more was deleted.\n' "$1" "$2"
        if ((${#kept[@]} > 0)); then
            printf 'cleanup: some items moved aside for deletion could not be put back; they are in the quarantine folder (.cleanup-quarantine.*) next to where they were.\n'
        fi
        if ((${#deleted[@]} == 0)); then
            printf 'cleanup: nothing was deleted.\n'
        else
            printf 'cleanup: %d item(s) were deleted, each after its record had been written:\n' "${#deleted[@]}"
            for line in "${deleted[@]}"; do printf '  %s\n' "$line"; done
        fi
    } >&2
    exit 5
}

stage='scanning the homes'
set +e
produce | awk "$awk_program"
statuses=("${PIPESTATUS[@]}")
set -e
done_line=''
[[ ! -s $tmp/status ]] || IFS= read -r done_line <"$tmp/status" || true
case $done_line in
'done 0') exit 0 ;;
'done 4') exit 4 ;;
esac
stopped_early "${statuses[0]}" "${statuses[1]}"
