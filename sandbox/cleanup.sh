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
# Exit status: 0 done, 2 invalid settings or plan (nothing touched), 3 deleting needs root or
# passwordless sudo, 4 done but some planned item was skipped, refused or failed, 5 stopped by an
# unexpected error (a message says where; items reported before it are final).
#
# Design: bash lists the homes and runs one `find` per home (and, when deleting, one `find` per
# home and kind of item); a single awk process reads all of it as a stream of NUL-separated
# records, decides, and writes the items as each home is finished. When deleting, awk hands the
# list of entries to delete back through a FIFO. No process is started per item.
set -euo pipefail
# Byte-wise string handling (names need not be valid UTF-8) and UTC timestamps.
export LC_ALL=C TZ=UTC
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

# s as a quoted JSON string: valid UTF-8 passes, control characters, quotes and backslashes are
# escaped, a byte that is not part of valid UTF-8 becomes \u00XX. For people (text != 0) such a
# byte is shown as \xXX instead, and C1 controls, line separators and bidirectional overrides
# are escaped too, so that no name can send escape sequences to a terminal.
function jq(s, text,    out, i, n, c, b, m, b1, b2) {
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
                b1 = ord[substr(s, i + 1, 1)]
                if (text && m == 2 && b == 194 && b1 < 160)
                    out = out sprintf("\\u%04x", b1)
                else if (text && m == 3 && b == 226 && ((b1 == 128 && (b2 = ord[substr(s, i + 2, 1)]) >= 168 && b2 <= 174) || (b1 == 129 && (b2 = ord[substr(s, i + 2, 1)]) >= 166 && b2 <= 169)))
                    out = out sprintf("\\u%04x", 8192 + (b1 - 128) * 64 + (b2 - 128))
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
        if (key in T) return perror("the name \"" key "\" appears twice")
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
            if (s ~ /^[.eE]/) return perror("\"" key "\" is not a whole number")
            if (length(val) > (substr(val, 1, 1) == "-" ? 16 : 15)) return perror("\"" key "\" is out of range (more than 15 digits)")
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
            if (T[k] != "n" || F[k] ~ /^-/) { problem(lineno, "\"" k "\" is missing or not a whole number >= 0"); bad = 1 }
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
        print line "}"
    } else {
        line = sprintf("%-7s %-8s %-12s %10s  %s  %5sd  %s  (%s)", toupper(it_action), it_kind, disp(it_user), human(it_bytes), substr(iso(it_epoch), 1, 16), age, disp(it_path), disp(it_reason))
        if (it_outcome != "") {
            line = line "  => " it_outcome
            if (it_message != "") line = line ": " disp(it_message)
        }
        print line
    }
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
    delete d_tag; delete d_meta; delete left; delete del_status; delete del_err
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

function add_candidate(kind, p, b, e, dev, ino, name, sid, project, sdir,    ttl, age_seconds) {
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

function glob_escape(s,    out, i, c) {
    out = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "\\" || c == "*" || c == "?" || c == "[") out = out "\\"
        out = out c
    }
    return out
}

function token(file, s) {
    printf "%s%s", s, NUL > file
}

# Writes what the shell is to delete in this home and asks it to (through the FIFO): chat names,
# and for sessions the -path tests of find (a transcript, its folder, what is inside the folder).
function request_deletion(    j, n, nc, ns, pat) {
    nc = 0; ns = 0
    printf "" > del_chats; printf "" > del_deep; printf "" > del_top; printf "" > del_snames
    for (j = 1; j <= ndel; j++) {
        n = del_n[j]
        if (c_kind[n] == "chat") {
            token(del_chats, c_name[n])
            nc++
            continue
        }
        pat = "./" glob_escape(c_project[n]) "/" c_sid[n]
        if (ns > 0) { token(del_deep, "-o"); token(del_top, "-o") }
        token(del_deep, "-path"); token(del_deep, pat "/*")
        token(del_top, "-path"); token(del_top, pat ".jsonl"); token(del_top, "-o")
        token(del_top, "-path"); token(del_top, pat)
        token(del_snames, c_name[n] ".jsonl")
        ns++
    }
    close(del_chats); close(del_deep); close(del_top); close(del_snames)
    printf "%s%s%d%s%d%s", h_user, NUL, nc, NUL, ns, NUL > del_request
    close(del_request)
    fflush()
    if (nc + ns > 0) {
        if (system("exec bash " shq(tmpdir "/delete.sh")) != 0) {
            printf "cleanup: internal error: the deletion step failed in %s\n", disp(h_home) > "/dev/stderr"
            exit 5
        }
        read_records(del_records)
    }
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

function deletion_record(tag, p, meta) {
    if (substr(p, 1, 2) != "./") return
    p = substr(p, 3)
    if (index(p, "/") && del_kind == "chat") return
    d_tag[del_kind, p] = tag; d_meta[del_kind, p] = meta
}

# What happened to candidate n: sets out_outcome and out_message.
function deletion_outcome(n,    kind, name, tag, f, what, err, status, dtag) {
    kind = c_kind[n]
    name = kind == "chat" ? c_name[n] : c_name[n] ".jsonl"
    status = del_status[kind]; err = del_err[kind]
    if (status == "cd") {
        out_outcome = "refused"
        out_message = "the folder holding it was replaced while deleting; nothing was deleted"
        return
    }
    tag = d_tag[kind, name]
    what = kind == "chat" ? "folder" : "transcript"
    if (tag == "L") {
        out_outcome = "refused"
        out_message = "it was replaced by a symbolic link after the check; the link was left alone and nothing was deleted"
    } else if (tag == "D") {
        split(d_meta[kind, name], f, " ")
        if ((f[2] "") == (c_dev[n] "") && (f[3] "") == (c_ino[n] "") && f[1] == (kind == "chat" ? "d" : "f")) {
            if ((kind, name) in left) {
                out_outcome = "failed"
                out_message = "could not be deleted completely" (err != "" ? ": " err : "")
            } else {
                out_outcome = "deleted"; out_message = ""
                if (kind == "session" && d_tag[kind, c_name[n]] == "L")
                    out_message = "its session folder had been replaced by a symbolic link, which was left alone"
            }
        } else {
            out_outcome = "failed"
            out_message = "it was replaced after the check by another entry (type " f[1] ", device " f[2] ", inode " f[3] "), which was " (((kind, name) in left) ? "partly " : "") "deleted instead; the reviewed " what " was not deleted"
        }
    } else if ((kind, name) in left) {
        out_outcome = "failed"
        out_message = "was not deleted" (err != "" ? ": " err : " (a folder on its path was replaced?)")
    } else {
        out_outcome = "skipped-changed"
        out_message = "it disappeared before it could be deleted"
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
                ndel++; del_n[ndel] = n
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

# Writes the items of the home in order, with the outcomes of the deletions.
function home_finish(    j, src, i, n) {
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
    del_chats = tmpdir "/del.chats"; del_deep = tmpdir "/del.deep"; del_top = tmpdir "/del.top"
    del_snames = tmpdir "/del.snames"; plan_items_file = tmpdir "/plan.items"
    split("chat_delete chat_keep session_delete session_keep other_report deleted would_delete skipped_changed refused failed", t, " ")
    for (i in t) { count[t[i]] = 0; count_bytes[t[i]] = 0 }
    split("HOME 2 END 2 LINKHOME 3 DELSTART 1 D 2 L 2 LEFT 1 DELEND 2", t, " ")
    for (i = 1; i < 16; i += 2) nfields[t[i]] = t[i + 1] + 0
    RS = NUL
    if (has_plan) load_plan()
}

# The input is a sequence of records, each a tag and a fixed number of fields (find's records
# start with their start point instead of a tag). The fields are collected here, without getline.
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
        exit 5
    }
    if (want == 0) dispatch()
}

function dispatch() {
    if (substr(tag, 1, 1) == "/") find_record(tag, fld[1], fld[2], fld[3])
    else if (tag == "HOME") home_begin(fld[1], fld[2])
    else if (tag == "END") home_end(fld[1] + 0, fld[2])
    else if (tag == "LINKHOME") {
        home_begin(fld[1], "link")
        split(fld[2], f, " ")
        add_other(root "/" fld[1], f[1] + 0, int(f[2]), f[3], f[4], "home is a symbolic link to '" fld[3] "'; never followed")
        emit_other(1)
        fflush()
    }
    else if (tag == "DELSTART") del_kind = fld[1]
    else if (tag == "D" || tag == "L") deletion_record(tag, fld[1], fld[2])
    else if (tag == "LEFT") left[del_kind, fld[1]] = 1
    else if (tag == "DELEND") { del_status[del_kind] = fld[1]; del_err[del_kind] = fld[2] }
}

END {
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

# The deletion step, run by awk (through system()) once per home with something to delete: it
# reads what to delete from $tmp/del.*, deletes from inside the checked folders and writes what
# was actually removed to $tmp/del.records: one D (deleted) or L (symbolic link, left alone)
# record per planned entry, LEFT for each that is still there, and find's status.
cat >"$tmp/delete.sh" <<'DELETE'
set -uo pipefail
export LC_ALL=C
tmp=$CLEANUP_AWK_TMP root=$CLEANUP_AWK_ROOT
fields=()
mapfile -d '' -t fields <"$tmp/del.request"
user=${fields[0]} nchat=${fields[1]} nsess=${fields[2]} home=$root/${fields[0]}
exec 3>"$tmp/del.records"
if [[ -n ${CLEANUP_TEST_PAUSE_FIFO:-} ]]; then
    # For tests: lets them change the tree between the checks and the deletion.
    printf 'paused %s\n' "$user" >"$CLEANUP_TEST_PAUSE_FIFO"
    IFS= read -r _ <"$CLEANUP_TEST_PAUSE_FIFO"
fi
finish_kind() {
    local first=''
    [[ ! -s $tmp/del.err ]] || IFS= read -r first <"$tmp/del.err" || true
    printf 'DELEND\0%s\0%s\0' "$1" "$first" >&3
}
if ((nchat > 0)); then
    printf 'DELSTART\0chat\0' >&3
    names=()
    mapfile -d '' -t names <"$tmp/del.chats"
    status=0
    : >"$tmp/del.err"
    # cd -P enters the folder itself; $PWD then names it physically. A home swapped for a
    # symlink after the checks fails the comparison; afterwards the folder stays pinned.
    if cd -P -- "$home" 2>/dev/null && [[ $PWD == "$home" ]]; then
        find -P "${names[@]/#/./}" -xdev -depth \( -path './*/*' -delete \) -o \
            \( -type l -printf 'L\0%p\0%y %D %i\0' \) -o \
            \( -printf 'D\0%p\0%y %D %i\0' -delete \) >&3 2>"$tmp/del.err" </dev/null || status=$?
        for name in "${names[@]}"; do
            [[ ! -e ./$name && ! -L ./$name ]] || printf 'LEFT\0%s\0' "$name" >&3
        done
    else
        status=cd
    fi
    finish_kind "$status"
fi
if ((nsess > 0)); then
    printf 'DELSTART\0session\0' >&3
    deep=() top=() snames=()
    mapfile -d '' -t deep <"$tmp/del.deep"
    mapfile -d '' -t top <"$tmp/del.top"
    mapfile -d '' -t snames <"$tmp/del.snames"
    status=0
    : >"$tmp/del.err"
    # From the pinned projects folder, find walks without following any symlink; it only
    # deletes the planned transcripts and session folders (and what is inside them).
    if cd -P -- "$home/.claude/projects" 2>/dev/null && [[ $PWD == "$home/.claude/projects" ]]; then
        find -P . -mindepth 2 -xdev -depth \( \( "${deep[@]}" \) -delete \) -o \
            \( \( "${top[@]}" \) \( \( -type l -printf 'L\0%p\0%y %D %i\0' \) -o \
            \( -printf 'D\0%p\0%y %D %i\0' -delete \) \) \) >&3 2>"$tmp/del.err" \
            </dev/null || status=$?
        for name in "${snames[@]}"; do
            [[ ! -e ./$name && ! -L ./$name ]] || printf 'LEFT\0%s\0' "$name" >&3
        done
    else
        status=cd
    fi
    finish_kind "$status"
fi
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
            find -P "${starts[@]}" -xdev -printf '%H\0%y %s %T@ %D %i\0%P\0%l\0' \
                2>"$tmp/find.err" </dev/null || status=$?
            [[ ! -s $tmp/find.err ]] || IFS= read -r first <"$tmp/find.err" || true
        fi
    fi
    printf 'END\0%s\0%s\0' "$status" "$first"
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
die 5 "stopped unexpectedly while scanning (scan status ${statuses[0]}, report status ${statuses[1]})"
