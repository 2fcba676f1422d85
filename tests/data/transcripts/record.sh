#!/bin/sh
# Records the transcript fixtures in this directory: real Claude Code CLI runs, offline.
#
# Usage: tests/data/transcripts/record.sh [scenario ...]
#        (no argument: every scenario; scenarios: bash parallel subagent parallel-agents
#        tool-error resume fork compact)
#
# What it does, for each scenario:
#   * starts tests/model_server/scripted_model_server.py on a free loopback port (port 0; the
#     server prints "LISTENING <port>") with a request log;
#   * gives the CLI a throwaway HOME (<tmp>/home-<scenario>, so ~/.claude is fresh) and runs it in
#     $HOME/chat-<scenario>, with a clean environment: PATH, HOME, SHELL=/bin/bash, LANG=C.UTF-8,
#     TMPDIR=<tmp>/tmp (the CLI's task output files and sockets go there, not into /tmp) and the
#     variables tests/support/realserver.cpp (ScriptedModelServer::agentEnvironment) gives the
#     agent: ANTHROPIC_API_KEY (a dummy), ANTHROPIC_BASE_URL, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1,
#     DISABLE_AUTOUPDATER=1, CLAUDE_CODE_MAX_RETRIES=2;
#   * runs every turn as Sandscope does (app/claude/claudecommand.cpp): the prompt on stdin and
#       claude -p --output-format=stream-json --verbose --allowedTools=<tool>... [--resume=<id>]
#              [--fork-session]
#     (--allowedTools=Bash, plus --allowedTools=Agent for the sub-agent scenario);
#   * writes into tests/data/transcripts/<scenario>/:
#       stream.jsonl      stdout of every turn, concatenated in turn order
#       transcript/       the session's entries of ~/.claude/projects/<escaped cwd>/, as the CLI
#                         wrote them: <session>.jsonl and <session>/subagents/agent-<id>.{jsonl,meta.json}
#                         (memory/ and anything else there is left out)
#       requests.jsonl    the model server's request log (one object per API request)
#       README            one line per turn: prompt, flags, session id, exit status
#
# Files are kept byte for byte as the CLI wrote them (paths include the throwaway HOME under
# $TMPDIR, ids and timestamps are real). The CLI found on PATH is used (override with CLAUDE=...);
# the fixtures were recorded with 2.1.332. Exits non-zero when a turn fails unexpectedly.
#
# Model server keywords used: "CMD: <command>" (one Bash call), PARALLEL (two Bash calls in one
# message), USE_AGENT (Agent call whose sub-agent runs Bash "echo sub"), PARALLEL_AGENTS (two
# Agent calls in one message, their sub-agents running at the same time); "/compact" is answered
# with a fixed summary text (see the server's docstring).

set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
server_script="$root/tests/model_server/scripted_model_server.py"
CLAUDE=${CLAUDE:-claude}
PYTHON=${PYTHON:-python3}

command -v "$CLAUDE" >/dev/null 2>&1 || { echo "record.sh: $CLAUDE not found" >&2; exit 2; }
command -v jq >/dev/null 2>&1 || { echo "record.sh: jq is needed" >&2; exit 2; }

scenarios=${*:-"bash parallel subagent parallel-agents tool-error resume fork compact"}

work=$(mktemp -d "${TMPDIR:-/tmp}/sandscope-transcripts.XXXXXX")
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

version=$("$CLAUDE" --version | head -n 1)

# start_server <request log>: starts the model server, sets $port and $server_pid.
start_server() {
    "$PYTHON" "$server_script" --request-log "$1" >"$work/server.out" 2>>"$work/server.err" &
    server_pid=$!
    port=
    tries=0
    while [ -z "$port" ]; do
        tries=$((tries + 1))
        if [ "$tries" -gt 100 ] || ! kill -0 "$server_pid" 2>/dev/null; then
            echo "record.sh: the model server did not start" >&2
            cat "$work/server.err" >&2
            exit 1
        fi
        port=$(sed -n 's/^LISTENING \([0-9]*\)$/\1/p' "$work/server.out")
        [ -n "$port" ] || sleep 0.1
    done
}

stop_server() {
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
}

# turn <prompt> <expected exit status> <extra claude arguments...>
# Runs one turn in $cwd with $home; appends stdout to $out/stream.jsonl; sets $session.
turn() {
    prompt=$1
    expected=$2
    shift 2
    status=0
    printf '%s' "$prompt" >"$work/prompt"
    (cd "$cwd" && env -i PATH="$PATH" HOME="$home" SHELL=/bin/bash LANG=C.UTF-8 \
        TMPDIR="$work/tmp" \
        ANTHROPIC_API_KEY=sk-ant-scripted-dummy-key \
        ANTHROPIC_BASE_URL="http://127.0.0.1:$port" \
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
        CLAUDE_CODE_MAX_RETRIES=2 \
        "$CLAUDE" -p --output-format=stream-json --verbose "$@" \
        <"$work/prompt" >"$work/stdout" 2>"$work/stderr") || status=$?
    cat "$work/stdout" >>"$out/stream.jsonl"
    session=$(jq -r 'select(.type == "system" and .subtype == "init") | .session_id' \
        "$work/stdout" | head -n 1)
    printf 'turn %s: prompt %s (on stdin), claude -p --output-format=stream-json --verbose %s; session %s; exit %s\n' \
        "$turns" "$(printf '%s' "$prompt" | jq -Rs .)" "$*" "$session" "$status" >>"$out/README"
    turns=$((turns + 1))
    if [ "$status" -ne "$expected" ]; then
        echo "record.sh: $scenario: claude exited $status (expected $expected)" >&2
        cat "$work/stderr" >&2
        exit 1
    fi
    if [ -s "$work/stderr" ]; then
        echo "record.sh: $scenario: claude wrote to stderr:" >&2
        cat "$work/stderr" >&2
    fi
}

# copy_session <session id>: copies the session's transcript file and sub-agent directory.
copy_session() {
    project=$(find "$home/.claude/projects" -name "$1.jsonl" -print | head -n 1)
    if [ -z "$project" ]; then
        echo "record.sh: $scenario: no transcript for session $1" >&2
        exit 1
    fi
    mkdir -p "$out/transcript"
    cp "$project" "$out/transcript/"
    dir=${project%.jsonl}
    if [ -d "$dir/subagents" ]; then
        mkdir -p "$out/transcript/$1/subagents"
        cp "$dir"/subagents/* "$out/transcript/$1/subagents/"
    fi
}

# begin <scenario>: fresh HOME, cwd, output directory and model server.
begin() {
    scenario=$1
    out="$here/$scenario"
    rm -rf "$out"
    mkdir -p "$out" "$work/tmp"
    home="$work/home-$scenario"
    cwd="$home/chat-$scenario"
    mkdir -p "$cwd"
    turns=1
    : >"$out/stream.jsonl"
    printf '%s: recorded with %s, HOME=%s, cwd=%s, environment as in record.sh; one line per turn:\n' \
        "$scenario" "$version" "$home" "$cwd" >"$out/README"
    start_server "$out/requests.jsonl"
}

end() {
    stop_server
    echo "recorded $scenario" >&2
}

for scenario in $scenarios; do
    case $scenario in
    bash)
        begin bash
        turn "CMD: echo hi" 0 --allowedTools=Bash
        copy_session "$session"
        end
        ;;
    parallel)
        begin parallel
        turn "PARALLEL" 0 --allowedTools=Bash
        copy_session "$session"
        end
        ;;
    parallel-agents)
        begin parallel-agents
        turn "PARALLEL_AGENTS please" 0 --allowedTools=Bash --allowedTools=Agent
        copy_session "$session"
        end
        ;;
    subagent)
        begin subagent
        turn "USE_AGENT please" 0 --allowedTools=Bash --allowedTools=Agent
        copy_session "$session"
        end
        ;;
    tool-error)
        begin tool-error
        turn "CMD: ls /nonexistent-dir" 0 --allowedTools=Bash
        copy_session "$session"
        end
        ;;
    resume)
        begin resume
        turn "CMD: echo one" 0 --allowedTools=Bash
        first=$session
        turn "CMD: echo two" 0 --allowedTools=Bash "--resume=$first"
        copy_session "$first"
        if [ "$session" != "$first" ]; then
            echo "record.sh: resume: the resumed run has session $session, not $first" >&2
            exit 1
        fi
        echo "transcript/$first.jsonl holds both turns (the resumed process appended to it)." \
            >>"$out/README"
        end
        ;;
    fork)
        begin fork
        turn "CMD: echo one" 0 --allowedTools=Bash
        original=$session
        turn "CMD: echo two" 0 --allowedTools=Bash "--resume=$original" --fork-session
        forked=$session
        copy_session "$original"
        copy_session "$forked"
        {
            echo "original session (turn 1 only): transcript/$original.jsonl"
            echo "forked session (written by turn 2, --fork-session): transcript/$forked.jsonl"
        } >>"$out/README"
        end
        ;;
    compact)
        begin compact
        turn "CMD: echo hi" 0 --allowedTools=Bash
        first=$session
        turn "/compact" 0 --allowedTools=Bash "--resume=$first"
        copy_session "$first"
        file="$out/transcript/$first.jsonl"
        in_transcript=$(jq -c 'select(.type == "system" and .subtype == "compact_boundary")' \
            "$file" | wc -l | tr -d ' ')
        in_stream=$(jq -c 'select(.type == "system" and .subtype == "compact_boundary")' \
            "$out/stream.jsonl" | wc -l | tr -d ' ')
        {
            echo "compact_boundary system records in transcript/$first.jsonl: $in_transcript"
            echo "compact_boundary system lines in stream.jsonl: $in_stream"
        } >>"$out/README"
        end
        ;;
    *)
        echo "record.sh: unknown scenario $scenario" >&2
        exit 2
        ;;
    esac
done
