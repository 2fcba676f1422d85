#!/usr/bin/env bash
# Lists, and on request deletes, stale chat folders and Claude Code sessions in every home under
# HOME_ROOT. Nothing is touched unless CLEANUP_DRY_RUN is exactly "false". Installed in the
# sandbox image as /opt/cleanup.sh; sandbox/README.md describes the output format.
#
#   CHAT_TTL_DAYS     default 30   chat folders HOME_ROOT/<user>/chat-* idle longer are deleted
#   SESSION_TTL_DAYS  default 90   sessions HOME_ROOT/<user>/.claude/projects/<project>/<uuid>.jsonl
#                                  (plus their <uuid>/ folder) idle longer are deleted
#   CLEANUP_DRY_RUN   default true only the exact value "false" deletes anything
#   HOME_ROOT         default /home
#   CLEANUP_FORMAT    text (default, for people) or json (one JSON object per line)
#   CLEANUP_PLAN      a reviewed plan (the JSON lines of a dry run): only its "delete" items are
#                     considered, and each only while it still has the reviewed size and last
#                     activity. With CLEANUP_DRY_RUN left alone the plan is only checked.
#
# Exit status: 0 done, 2 invalid settings or plan (nothing touched), 3 deleting needs root or
# passwordless sudo, 4 done but some planned item was skipped, refused or failed.
set -euo pipefail
# Byte-wise string handling (names need not be valid UTF-8) and UTC timestamps.
export LC_ALL=C TZ=UTC
shopt -s nullglob

die() {
    printf 'cleanup: %s\n' "$2" >&2
    exit "$1"
}

# ---------------------------------------------------------------------------------------------
# Settings
chat_ttl=${CHAT_TTL_DAYS:-30}
session_ttl=${SESSION_TTL_DAYS:-90}
format=${CLEANUP_FORMAT:-text}
plan_file=${CLEANUP_PLAN:-}
dry_run=true
if [[ ${CLEANUP_DRY_RUN:-} == false ]]; then
    dry_run=false
fi

for setting in CHAT_TTL_DAYS:"$chat_ttl" SESSION_TTL_DAYS:"$session_ttl"; do
    [[ ${setting#*:} =~ ^[0-9]{1,6}$ ]] ||
        die 2 "${setting%%:*} must be a whole number of days (0-999999), not '${setting#*:}'"
done
chat_ttl=$((10#$chat_ttl))
session_ttl=$((10#$session_ttl))
[[ $format == text || $format == json ]] || die 2 "CLEANUP_FORMAT must be 'text' or 'json', not '$format'"

home_root_setting=${HOME_ROOT:-/home}
[[ $home_root_setting == /* ]] || die 2 "HOME_ROOT must be an absolute path, not '$home_root_setting'"
[[ -d $home_root_setting ]] || die 2 "HOME_ROOT '$home_root_setting' is not a folder"
# The one place a symlink is resolved: the folder the operator named. Everything below it is
# checked against this physical path and never followed.
root=$(realpath -e -- "$home_root_setting")

if [[ -n $plan_file ]]; then
    [[ -f $plan_file && -r $plan_file ]] || die 2 "CLEANUP_PLAN '$plan_file' is not a readable file"
    plan_file=$(realpath -e -- "$plan_file")
fi

if [[ -n $plan_file ]]; then
    if $dry_run; then mode=check-plan; else mode=execute; fi
else
    if $dry_run; then mode=dry-run; else mode=execute; fi
fi

# Deleting in other users' homes needs root. Without it, re-run through passwordless sudo.
if [[ $mode == execute && $EUID -ne 0 ]]; then
    self=$(realpath -e -- "${BASH_SOURCE[0]}" 2>/dev/null || true)
    if [[ -z ${CLEANUP_SUDO_REEXEC:-} && -n $self ]] && command -v sudo >/dev/null 2>&1 &&
        sudo -n true >/dev/null 2>&1; then
        exec sudo -n -- env CLEANUP_SUDO_REEXEC=1 "HOME_ROOT=$root" "CHAT_TTL_DAYS=$chat_ttl" \
            "SESSION_TTL_DAYS=$session_ttl" CLEANUP_DRY_RUN=false "CLEANUP_FORMAT=$format" \
            "CLEANUP_PLAN=$plan_file" bash -- "$self"
    fi
    die 3 "deleting needs root or passwordless sudo, because the files belong to other users; \
running as $(id -un 2>/dev/null || echo "uid $EUID") without 'sudo -n'. Run it as root \
(for example: docker compose exec -u root sandbox /opt/cleanup.sh) or leave CLEANUP_DRY_RUN unset \
to only list what would be deleted."
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cleanup.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

printf -v now '%(%s)T' -1
uuid_re='^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
uuid_jsonl_re='^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.jsonl$'

# ---------------------------------------------------------------------------------------------
# JSON strings. Valid UTF-8 passes through; control characters, quotes and backslashes are
# escaped; a byte that is not part of valid UTF-8 is written as \u00XX (so U+0080..U+00FF in our
# output always stand for such raw bytes, and json_unescape turns them back into bytes).

# Sets REPLY to $1 as a quoted JSON string.
json_quote() {
    local s=$1
    if [[ $s != *[!\ -~]* && $s != *[\"\\]* ]]; then
        REPLY="\"$s\""
        return
    fi
    local out='' i=0 n=${#s} c b need lo hi k ok esc
    while ((i < n)); do
        c=${s:i:1}
        printf -v b '%d' "'$c"
        if ((b == 0x22)); then
            out+='\"'
        elif ((b == 0x5c)); then
            out+="\\\\"
        elif ((b >= 0x20 && b < 0x7f)); then
            out+=$c
        elif ((b < 0x80)); then
            case $b in
            8) out+='\b' ;;
            9) out+='\t' ;;
            10) out+='\n' ;;
            12) out+='\f' ;;
            13) out+='\r' ;;
            *)
                printf -v esc '\\u%04x' "$b"
                out+=$esc
                ;;
            esac
        else
            need=0 lo=0x80 hi=0xbf
            if ((b >= 0xc2 && b <= 0xdf)); then
                need=1
            elif ((b == 0xe0)); then
                need=2 lo=0xa0
            elif ((b == 0xed)); then
                need=2 hi=0x9f
            elif ((b >= 0xe1 && b <= 0xef)); then
                need=2
            elif ((b == 0xf0)); then
                need=3 lo=0x90
            elif ((b == 0xf4)); then
                need=3 hi=0x8f
            elif ((b >= 0xf1 && b <= 0xf3)); then
                need=3
            fi
            ok=$((need > 0))
            for ((k = 1; ok && k <= need; k++)); do
                if ((i + k >= n)); then
                    ok=0
                    break
                fi
                printf -v b '%d' "'${s:i+k:1}"
                if ((k == 1)); then
                    ((b >= lo && b <= hi)) || ok=0
                else
                    ((b >= 0x80 && b <= 0xbf)) || ok=0
                fi
            done
            if ((ok)); then
                out+=${s:i:need+1}
                i=$((i + need + 1))
                continue
            fi
            printf -v b '%d' "'$c"
            printf -v esc '\\u%04x' "$b"
            out+=$esc
        fi
        i=$((i + 1))
    done
    REPLY="\"$out\""
}

# Appends the UTF-8 bytes of code point $1 to the variable named by $2.
append_code_point() {
    local cp=$1 escapes
    local -n into=$2
    if ((cp < 0x100)); then
        # Our own convention: \u0080..\u00ff are raw bytes (see json_quote).
        printf -v escapes '\\x%02x' "$cp"
    elif ((cp < 0x800)); then
        printf -v escapes '\\x%02x' $((0xc0 | cp >> 6)) $((0x80 | (cp & 0x3f)))
    elif ((cp < 0x10000)); then
        printf -v escapes '\\x%02x' $((0xe0 | cp >> 12)) $((0x80 | (cp >> 6 & 0x3f))) \
            $((0x80 | (cp & 0x3f)))
    else
        printf -v escapes '\\x%02x' $((0xf0 | cp >> 18)) $((0x80 | (cp >> 12 & 0x3f))) \
            $((0x80 | (cp >> 6 & 0x3f))) $((0x80 | (cp & 0x3f)))
    fi
    printf -v escapes '%b' "$escapes"
    into+=$escapes
}

# Sets REPLY to the bytes of the JSON string body $1 (without quotes); fails on bad escapes.
json_unescape() {
    local s=$1 out='' hex cp low
    while [[ $s == *\\* ]]; do
        out+=${s%%\\*}
        s=${s#*\\}
        case ${s:0:1} in
        '"' | \\ | /) out+=${s:0:1} ;;
        b) out+=$'\b' ;;
        f) out+=$'\f' ;;
        n) out+=$'\n' ;;
        r) out+=$'\r' ;;
        t) out+=$'\t' ;;
        u)
            hex=${s:1:4}
            [[ $hex =~ ^[0-9a-fA-F]{4}$ ]] || return 1
            cp=$((16#$hex))
            s=${s:4}
            if ((cp >= 0xd800 && cp <= 0xdbff)); then
                [[ ${s:1:2} == '\u' && ${s:3:4} =~ ^[dD][c-fC-F][0-9a-fA-F]{2}$ ]] || return 1
                low=$((16#${s:3:4}))
                cp=$((0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00)))
                s=${s:6}
            elif ((cp == 0 || (cp >= 0xdc00 && cp <= 0xdfff))); then
                return 1
            fi
            append_code_point "$cp" out
            ;;
        *) return 1 ;;
        esac
        s=${s:1}
    done
    REPLY=$out$s
}

# Parses one flat JSON object (string, number, true/false/null values) into the associative
# arrays field (values, strings unescaped) and field_type (s, n or l). Fails on anything else.
declare -A field field_type
json_string_re='^"(([^"\\]|\\.)*)"'
json_number_re='^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?'
parse_json_object() {
    local line=$1 key
    field=()
    field_type=()
    line=${line#"${line%%[![:space:]]*}"}
    [[ $line == '{'* ]] || return 1
    line=${line:1}
    line=${line#"${line%%[![:space:]]*}"}
    if [[ $line == '}'* ]]; then
        line=${line:1}
        [[ -z ${line//[[:space:]]/} ]]
        return
    fi
    while :; do
        [[ $line =~ $json_string_re ]] || return 1
        line=${line:${#BASH_REMATCH[0]}}
        json_unescape "${BASH_REMATCH[1]}" || return 1 # (json_unescape reuses BASH_REMATCH)
        key=$REPLY
        line=${line#"${line%%[![:space:]]*}"}
        [[ $line == :* ]] || return 1
        line=${line:1}
        line=${line#"${line%%[![:space:]]*}"}
        if [[ $line =~ $json_string_re ]]; then
            line=${line:${#BASH_REMATCH[0]}}
            json_unescape "${BASH_REMATCH[1]}" || return 1
            field[$key]=$REPLY
            field_type[$key]=s
        elif [[ $line =~ $json_number_re || $line =~ ^(true|false|null) ]]; then
            line=${line:${#BASH_REMATCH[0]}}
            field[$key]=${BASH_REMATCH[0]}
            field_type[$key]=n
            [[ ${BASH_REMATCH[0]} != [tfn]* ]] || field_type[$key]=l
        else
            return 1
        fi
        line=${line#"${line%%[![:space:]]*}"}
        case ${line:0:1} in
        ,)
            line=${line:1}
            line=${line#"${line%%[![:space:]]*}"}
            ;;
        '}')
            line=${line:1}
            [[ -z ${line//[[:space:]]/} ]]
            return
            ;;
        *) return 1 ;;
        esac
    done
}

# ---------------------------------------------------------------------------------------------
# Output

human_bytes() {
    local b=$1 units=(B KiB MiB GiB TiB PiB) u=0 scale=1
    if ((b < 1024)); then
        REPLY="$b B"
        return
    fi
    while ((u < 5 && b >= scale * 1024)); do
        scale=$((scale * 1024))
        u=$((u + 1))
    done
    local tenths=$((b * 10 / scale))
    REPLY="$((tenths / 10)).$((tenths % 10)) ${units[u]}"
}

# A name for people: as is when printable, else its JSON form (quoted and escaped).
display_name() {
    json_quote "$1"
    if [[ $REPLY != "\"$1\"" ]]; then
        return
    fi
    REPLY=$1
}

declare -A count count_bytes
for k in chat_delete chat_keep session_delete session_keep other_report \
    deleted would_delete skipped_changed refused failed; do
    count[$k]=0
    count_bytes[$k]=0
done

# Item fields, set by the callers before emit_item.
item_action='' item_kind='' item_user='' item_path='' item_bytes=0 item_epoch=0 item_reason=''
item_session_id='' item_project='' item_session_dir='' item_outcome='' item_message=''
item_current_bytes='' item_current_epoch=''

emit_item() {
    local age=$(((now - item_epoch) / 86400)) iso
    ((age >= 0)) || age=0
    printf -v iso '%(%Y-%m-%dT%H:%M:%SZ)T' "$item_epoch"
    local key="${item_kind}_${item_action}"
    if [[ -n ${count[$key]+set} ]]; then
        count[$key]=$((${count[$key]} + 1))
        count_bytes[$key]=$((${count_bytes[$key]} + item_bytes))
    fi
    if [[ -n $item_outcome ]]; then
        key=${item_outcome//-/_}
        count[$key]=$((${count[$key]} + 1))
        count_bytes[$key]=$((${count_bytes[$key]} + item_bytes))
    fi

    if [[ $format == json ]]; then
        local out
        json_quote "$item_action"
        out="{\"action\":$REPLY"
        json_quote "$item_kind"
        out+=",\"kind\":$REPLY"
        json_quote "$item_user"
        out+=",\"user\":$REPLY"
        json_quote "$item_path"
        out+=",\"path\":$REPLY,\"bytes\":$item_bytes,\"last_activity\":\"$iso\""
        out+=",\"last_activity_epoch\":$item_epoch,\"age_days\":$age"
        json_quote "$item_reason"
        out+=",\"reason\":$REPLY"
        if [[ $item_kind == session && -n $item_session_id ]]; then
            json_quote "$item_session_id"
            out+=",\"session_id\":$REPLY"
            json_quote "$item_project"
            out+=",\"project\":$REPLY"
            if [[ -n $item_session_dir ]]; then
                json_quote "$item_session_dir"
                out+=",\"session_dir\":$REPLY"
            else
                out+=',"session_dir":null'
            fi
        fi
        if [[ -n $item_outcome ]]; then
            json_quote "$item_outcome"
            out+=",\"outcome\":$REPLY"
            json_quote "$item_message"
            out+=",\"message\":$REPLY"
            [[ -z $item_current_bytes ]] || out+=",\"current_bytes\":$item_current_bytes"
            [[ -z $item_current_epoch ]] || out+=",\"current_last_activity_epoch\":$item_current_epoch"
        fi
        printf '%s}\n' "$out"
    else
        local action size shown_user shown_path line
        action=${item_action^^}
        human_bytes "$item_bytes"
        size=$REPLY
        display_name "$item_user"
        shown_user=$REPLY
        display_name "$item_path"
        shown_path=$REPLY
        printf -v line '%-7s %-8s %-12s %10s  %s  %5sd  %s  (%s)' "$action" "$item_kind" \
            "$shown_user" "$size" "${iso%:??Z}" "$age" "$shown_path" "$item_reason"
        if [[ -n $item_outcome ]]; then
            line+="  => $item_outcome"
            if [[ -n $item_message ]]; then
                display_name "$item_message"
                line+=": $REPLY"
            fi
        fi
        # A reason may quote a symlink target; keep it on one line.
        line=${line//$'\n'/\\n}
        printf '%s\n' "$line"
    fi
}

emit_summary() {
    printf -v iso '%(%Y-%m-%dT%H:%M:%SZ)T' "$now"
    if [[ $format == json ]]; then
        local out k
        json_quote "$root"
        out="{\"summary\":true,\"mode\":\"$mode\",\"home_root\":$REPLY"
        out+=",\"chat_ttl_days\":$chat_ttl,\"session_ttl_days\":$session_ttl"
        out+=",\"generated_at\":\"$iso\",\"generated_at_epoch\":$now"
        for k in chat_delete chat_keep session_delete session_keep other_report \
            deleted would_delete skipped_changed refused failed; do
            out+=",\"$k\":${count[$k]},\"${k}_bytes\":${count_bytes[$k]}"
        done
        printf '%s}\n' "$out"
        return
    fi
    local cd ck sd sk o
    human_bytes "${count_bytes[chat_delete]}"
    cd=$REPLY
    human_bytes "${count_bytes[chat_keep]}"
    ck=$REPLY
    human_bytes "${count_bytes[session_delete]}"
    sd=$REPLY
    human_bytes "${count_bytes[session_keep]}"
    sk=$REPLY
    human_bytes "${count_bytes[other_report]}"
    o=$REPLY
    printf 'Summary (%s, %s, HOME_ROOT %s, chat TTL %d days, session TTL %d days):\n' \
        "$mode" "$iso" "$root" "$chat_ttl" "$session_ttl"
    printf '  chat:    %d to delete (%s), %d kept (%s)\n' \
        "${count[chat_delete]}" "$cd" "${count[chat_keep]}" "$ck"
    printf '  session: %d to delete (%s), %d kept (%s)\n' \
        "${count[session_delete]}" "$sd" "${count[session_keep]}" "$sk"
    printf '  other:   %d reported, never deleted (%s)\n' "${count[other_report]}" "$o"
    case $mode in
    dry-run) printf '  Dry run: nothing was changed. To delete, save this with CLEANUP_FORMAT=json, review it,\n  then run with CLEANUP_PLAN=<that file> CLEANUP_DRY_RUN=false.\n' ;;
    check-plan)
        printf '  Plan check: %d would be deleted, %d changed since the plan, %d refused. Nothing was changed.\n' \
            "${count[would_delete]}" "${count[skipped_changed]}" "${count[refused]}"
        ;;
    execute)
        human_bytes "${count_bytes[deleted]}"
        printf '  Deleted %d (%s); skipped as changed %d; refused %d; failed %d.\n' \
            "${count[deleted]}" "$REPLY" "${count[skipped_changed]}" "${count[refused]}" \
            "${count[failed]}"
        ;;
    esac
}

# ---------------------------------------------------------------------------------------------
# Checking and deleting one item

# Sets measured_bytes and measured_epoch for the given paths (none followed).
measure() {
    local totals
    totals=$(find -P "$@" -xdev -printf '%s %T@\n' 2>/dev/null |
        awk '{ b += $1; t = int($2); if (NR == 1 || t > m) m = t } END { printf "%.0f %.0f\n", b, m }') ||
        return 1
    measured_bytes=${totals% *}
    measured_epoch=${totals#* }
}

# Checks that item_* still names a deletable chat folder or session with the planned size and
# last activity, then deletes it when $1 is "delete". Sets item_outcome and item_message.
process_item() {
    local really_delete=$1 home rel parent names=() dir checked project file
    item_current_bytes='' item_current_epoch=''
    refuse() {
        item_outcome=refused
        item_message=$1
    }
    changed() {
        item_outcome=skipped-changed
        item_message=$1
    }

    if [[ -z $item_user || $item_user == */* || $item_user == . || $item_user == .. ]]; then
        refuse "user is not a single folder name under HOME_ROOT"
        return
    fi
    home=$root/$item_user
    if [[ $item_path != "$home/"* ]]; then
        refuse "path is not inside HOME_ROOT/<user>"
        return
    fi
    rel=${item_path#"$home/"}
    case $item_kind in
    chat)
        if [[ $rel != chat-* || $rel == */* ]]; then
            refuse "path is not HOME_ROOT/<user>/chat-*"
            return
        fi
        parent=$home
        names=("$rel")
        checked=("$home")
        ;;
    session)
        project=${rel#.claude/projects/}
        file=${project#*/}
        project=${project%%/*}
        if [[ $rel != .claude/projects/*/* || $file == */* || -z $project || $project == . ||
            $project == .. || ! $file =~ $uuid_jsonl_re ]]; then
            refuse "path is not HOME_ROOT/<user>/.claude/projects/<project>/<uuid>.jsonl"
            return
        fi
        parent=$home/.claude/projects/$project
        names=("$file" "${file%.jsonl}")
        checked=("$home" "$home/.claude" "$home/.claude/projects" "$parent")
        ;;
    *)
        refuse "only chat and session items are ever deleted"
        return
        ;;
    esac

    for dir in "${checked[@]}"; do
        if [[ -L $dir ]]; then
            refuse "$dir is a symbolic link; it is never followed"
            return
        elif [[ ! -e $dir ]]; then
            changed "no longer exists"
            return
        elif [[ ! -d $dir ]]; then
            refuse "$dir is not a folder"
            return
        fi
    done
    local targets=() name
    for name in "${names[@]}"; do
        if [[ -L $parent/$name ]]; then
            refuse "$parent/$name is now a symbolic link; it is never followed"
            return
        fi
    done
    if [[ $item_kind == chat ]]; then
        [[ -d $item_path ]] || {
            changed "no longer exists as a folder"
            return
        }
        targets=("$item_path")
    else
        [[ -f $item_path ]] || {
            changed "no longer exists as a file"
            return
        }
        targets=("$item_path")
        if [[ -e $parent/${names[1]} ]]; then
            [[ -d $parent/${names[1]} ]] || {
                refuse "$parent/${names[1]} is not a folder"
                return
            }
            targets+=("$parent/${names[1]}")
        fi
    fi

    local measured_bytes measured_epoch
    if ! measure "${targets[@]}"; then
        changed "could not be measured again (it changed while being read)"
        return
    fi
    item_current_bytes=$measured_bytes
    item_current_epoch=$measured_epoch
    if [[ $measured_bytes != "$item_bytes" || $measured_epoch != "$item_epoch" ]]; then
        local was now_iso
        printf -v was '%(%Y-%m-%dT%H:%M:%SZ)T' "$item_epoch"
        printf -v now_iso '%(%Y-%m-%dT%H:%M:%SZ)T' "$measured_epoch"
        changed "changed since the plan: $item_bytes -> $measured_bytes bytes, last activity $was -> $now_iso"
        return
    fi

    if [[ $really_delete != delete ]]; then
        item_outcome=would-delete
        item_message="unchanged since the plan"
        return
    fi
    # Delete relative to the parent folder entered once, so that a folder swapped for a symlink
    # after the checks above cannot redirect the deletion; rm never follows symlinks itself.
    local error rc=0
    error=$(
        cd -P -- "$parent" 2>&1 || exit 90
        [[ $(pwd -P) == "$parent" ]] || exit 91
        rm -rf --one-file-system -- "${names[@]/#/./}" 2>&1 || exit 92
        for name in "${names[@]}"; do
            if [[ -e ./$name || -L ./$name ]]; then
                echo "$name is still there"
                exit 92
            fi
        done
    ) || rc=$?
    case $rc in
    0)
        item_outcome=deleted
        item_message=''
        ;;
    91) refuse "$parent was replaced while deleting" ;;
    *)
        item_outcome=failed
        item_message=${error:-rm failed}
        ;;
    esac
}

# ---------------------------------------------------------------------------------------------
# Scanning

# Emits a report-only item.
report_other() {
    item_action=report item_kind=other item_user=$1 item_path=$2 item_bytes=$3 item_epoch=$4
    item_reason=$5 item_session_id='' item_outcome='' item_message=''
    emit_item
}

# Emits a chat or session item, deleting it first in execute mode.
emit_candidate() {
    local ttl=$1 age_seconds=$((now - item_epoch))
    item_outcome='' item_message='' item_current_bytes='' item_current_epoch=''
    if ((age_seconds > ttl * 86400)); then
        item_action=delete
        item_reason="no activity for $((age_seconds / 86400)) days; the $item_kind TTL is $ttl days"
        if [[ $mode == execute ]]; then
            process_item delete
        fi
    else
        item_action=keep
        item_reason="active within the $item_kind TTL of $ttl days"
    fi
    emit_item
}

# Scans one home with a single find over its chat folders and Claude projects.
scan_home() {
    local user=$1 home=$root/$1 entry projects=$root/$1/.claude/projects
    if [[ ! -r $home || ! -x $home ]]; then
        report_other "$user" "$home" 0 "$now" \
            "cannot read this home as $(id -un 2>/dev/null || echo "uid $EUID"); run as root to include it"
        return 0
    fi
    local starts=()
    for entry in "$home"/chat-*; do
        starts+=("$entry")
    done
    if [[ -L $home/.claude ]]; then
        starts+=("$home/.claude")
    elif [[ -e $projects || -L $projects ]]; then
        starts+=("$projects")
    fi
    ((${#starts[@]} > 0)) || return 0

    if ! find -P "${starts[@]}" -xdev -printf '%H\0%y %s %T@\0%P\0%l\0' >"$tmp/list" 2>"$tmp/errors"; then
        local first_error
        IFS= read -r first_error <"$tmp/errors" || true
        report_other "$user" "$home" 0 "$now" \
            "could not read everything in this home (${first_error:-find failed}); its items are left out"
        return 0
    fi
    local records=()
    mapfile -d '' -t records <"$tmp/list"

    local -A chat_bytes=() chat_epoch=() session_bytes=() session_epoch=() session_file=() session_dir=()
    local chats=() i n=${#records[@]} start meta rel target type size epoch rest project name key
    for ((i = 0; i + 3 < n; i += 4)); do
        start=${records[i]} meta=${records[i + 1]} rel=${records[i + 2]} target=${records[i + 3]}
        type=${meta%% *}
        rest=${meta#* }
        size=${rest%% *}
        epoch=${rest#* }
        epoch=${epoch%.*}
        if [[ -z $rel ]]; then
            # The start point itself.
            if [[ $type == l ]]; then
                report_other "$user" "$start" "$size" "$epoch" \
                    "symbolic link to '$target'; never followed or deleted"
            elif [[ $type != d ]]; then
                report_other "$user" "$start" "$size" "$epoch" "not a folder; left alone"
            elif [[ $start != "$projects" ]]; then
                chats+=("$start")
                chat_bytes[$start]=$size
                chat_epoch[$start]=$epoch
            fi
            continue
        fi
        if [[ $start != "$projects" ]]; then
            chat_bytes[$start]=$((${chat_bytes[$start]:-0} + size))
            if ((epoch > ${chat_epoch[$start]:-0})); then
                chat_epoch[$start]=$epoch
            fi
            continue
        fi
        project=${rel%%/*}
        if [[ $rel != */* ]]; then
            if [[ $type == l ]]; then
                report_other "$user" "$projects/$rel" "$size" "$epoch" \
                    "symbolic link to '$target' among the Claude projects; never followed or deleted"
            fi
            continue
        fi
        rest=${rel#*/}
        name=${rest%%/*}
        if [[ $rest != */* ]]; then
            if [[ $name =~ $uuid_jsonl_re ]]; then
                key=$project/${name%.jsonl}
                if [[ $type != f ]]; then
                    report_other "$user" "$projects/$rel" "$size" "$epoch" \
                        "session transcript is not a regular file${target:+ (symbolic link to \"$target\")}; left alone"
                    continue
                fi
                session_file[$key]=1
            elif [[ $name =~ $uuid_re ]]; then
                key=$project/$name
                if [[ $type != d ]]; then
                    report_other "$user" "$projects/$rel" "$size" "$epoch" \
                        "session folder is not a folder${target:+ (symbolic link to \"$target\")}; left alone"
                    continue
                fi
                session_dir[$key]=1
            else
                if [[ $name == *.jsonl ]]; then
                    report_other "$user" "$projects/$rel" "$size" "$epoch" \
                        "transcript name is not a session id; left alone"
                fi
                continue
            fi
        else
            [[ $name =~ $uuid_re ]] || continue
            key=$project/$name
        fi
        session_bytes[$key]=$((${session_bytes[$key]:-0} + size))
        if [[ -z ${session_epoch[$key]+set} ]] || ((epoch > ${session_epoch[$key]})); then
            session_epoch[$key]=$epoch
        fi
    done

    for entry in "${chats[@]}"; do
        item_kind=chat item_user=$user item_path=$entry item_bytes=${chat_bytes[$entry]}
        item_epoch=${chat_epoch[$entry]} item_session_id=''
        emit_candidate "$chat_ttl"
    done

    local keys=()
    if ((${#session_bytes[@]} > 0)); then
        mapfile -d '' -t keys < <(printf '%s\0' "${!session_bytes[@]}" | sort -z)
    fi
    for key in "${keys[@]}"; do
        project=${key%/*}
        name=${key##*/}
        if [[ -z ${session_file[$key]+set} ]]; then
            report_other "$user" "$projects/$key" "${session_bytes[$key]}" "${session_epoch[$key]}" \
                "session folder without its transcript; left alone"
            continue
        fi
        item_kind=session item_user=$user item_path=$projects/$key.jsonl
        item_bytes=${session_bytes[$key]} item_epoch=${session_epoch[$key]}
        item_session_id=$name item_project=$project item_session_dir=''
        [[ -z ${session_dir[$key]+set} ]] || item_session_dir=$projects/$key
        emit_candidate "$session_ttl"
    done
}

scan_all_homes() {
    local records=() i n meta name
    find -P "$root" -mindepth 1 -maxdepth 1 -printf '%y %s %T@\0%f\0%l\0' >"$tmp/homes"
    mapfile -d '' -t records <"$tmp/homes"
    n=${#records[@]}
    local homes=()
    for ((i = 0; i + 2 < n; i += 3)); do
        meta=${records[i]} name=${records[i + 1]}
        [[ $name != .* ]] || continue
        case ${meta%% *} in
        d) homes+=("$name") ;;
        l)
            local rest=${meta#* } epoch
            epoch=${rest#* }
            report_other "$name" "$root/$name" "${rest%% *}" "${epoch%.*}" \
                "home is a symbolic link to '${records[i + 2]}'; never followed"
            ;;
        esac
    done
    if ((${#homes[@]} > 0)); then
        mapfile -d '' -t homes < <(printf '%s\0' "${homes[@]}" | sort -z)
    fi
    for name in "${homes[@]}"; do
        scan_home "$name"
    done
}

# ---------------------------------------------------------------------------------------------
# Plans

run_plan() {
    local line number=0 plan_items=() problems=''
    # Validate the whole plan before touching anything.
    while IFS= read -r line || [[ -n $line ]]; do
        number=$((number + 1))
        [[ -n ${line//[[:space:]]/} ]] || continue
        if ! parse_json_object "$line"; then
            problems+="line $number is not a flat JSON object; "
            continue
        fi
        [[ ${field[action]:-} == delete && ${field_type[action]:-} == s ]] || continue
        local k
        for k in kind user path reason; do
            [[ ${field_type[$k]:-} == s ]] || problems+="line $number: \"$k\" is missing or not a string; "
        done
        for k in bytes last_activity_epoch; do
            [[ ${field_type[$k]:-} == n && ${field[$k]} =~ ^(0|-?[1-9][0-9]{0,17})$ ]] ||
                problems+="line $number: \"$k\" is missing or not a whole number; "
        done
        plan_items+=("${field[kind]:-}" "${field[user]:-}" "${field[path]:-}" "${field[bytes]:-0}"
            "${field[last_activity_epoch]:-0}" "${field[reason]:-}")
    done <"$plan_file"
    [[ -z $problems ]] || die 2 "CLEANUP_PLAN '$plan_file' is not a valid plan, nothing was touched: ${problems%; }"

    local i really=check
    [[ $mode != execute ]] || really=delete
    for ((i = 0; i < ${#plan_items[@]}; i += 6)); do
        item_action=delete item_kind=${plan_items[i]} item_user=${plan_items[i + 1]}
        item_path=${plan_items[i + 2]} item_bytes=${plan_items[i + 3]}
        item_epoch=${plan_items[i + 4]} item_reason=${plan_items[i + 5]}
        item_session_id='' item_outcome='' item_message=''
        process_item "$really"
        emit_item
    done
}

# ---------------------------------------------------------------------------------------------

if [[ -n $plan_file ]]; then
    run_plan
else
    scan_all_homes
fi
emit_summary
if ((count[skipped_changed] + count[refused] + count[failed] > 0)); then
    exit 4
fi
exit 0
