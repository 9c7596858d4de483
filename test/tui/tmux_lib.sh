# tmux_lib.sh — helpers for vftr-tui's tmux tests (sourced by bash).  The
# caller sets S (session name), TUI (the vftr-tui to run), tmp (a scratch
# directory) and fails=0 before sourcing; on exit the session is killed
# and tmp removed.
#
# start W H ARGS...  vftr-tui in a new detached session of W x H; when it
#                    ends the pane prints EXIT=status and the terminal modes
# screen             the pane's text
# wait_for RE [S]    polls the screen (every 50 ms, S seconds, default 10)
#                    until a line matches the extended regex RE
# wait_gone RE [S]   the same until no line matches
# check NAME RE [S]  PASS/FAIL line from wait_for (shows the screen on FAIL)
# keys KEY...        tmux send-keys

# A tmux server of our own (socket named after the session), kept alive by
# an idle session: other tests' servers cannot interfere, and killing the
# test's session never races with the server shutting down.
tmux() { command tmux -L "$S" "$@"; }
command -v tmux >/dev/null && tmux new-session -d -s keep -x 80 -y 24 "sleep 600"

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

start() {
    local w=$1 h=$2
    shift 2
    tmux kill-session -t "$S" 2>/dev/null
    tmux new-session -d -s "$S" -x "$w" -y "$h" \
        "TERM=xterm $TUI $*; echo EXIT=\$?; stty -a | tr ' ;' '\n\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\n' ' '; echo; sleep 60"
}

screen() { tmux capture-pane -t "$S" -p; }

wait_for() {
    local re=$1 limit=${2:-10} i=0
    while [ "$i" -lt $((limit * 20)) ]; do
        if screen | grep -Eq -- "$re"; then return 0; fi
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

wait_gone() {
    local re=$1 limit=${2:-10} i=0
    while [ "$i" -lt $((limit * 20)) ]; do
        if ! screen | grep -Eq -- "$re"; then return 0; fi
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

keys() { tmux send-keys -t "$S" "$@"; }

check() {
    if wait_for "$2" "${3:-10}"; then pass "$1"; else fail "$1 (no line matching /$2/)"; screen | sed 's/^/    | /'; fi
}

check_gone() {
    if wait_gone "$2" "${3:-10}"; then pass "$1"; else fail "$1 (still a line matching /$2/)"; screen | sed 's/^/    | /'; fi
}

cleanup() {
    tmux kill-server 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
