# Shared by the tmux smoke tests (sourced): strict mode, the tools they need, and
# reading the pane.  The caller sets $session before calling screen or wait_screen.
set -euo pipefail
president=${PRESIDENT:-president}
command -v "$president" >/dev/null || { echo "FAIL: no '$president' command: activate the venv, or set PRESIDENT"; exit 1; }
command -v tmux >/dev/null || { echo "FAIL: tmux is not installed"; exit 1; }
screen() { tmux capture-pane -p -t "$session" -J; }
wait_screen() {  # wait_screen PATTERN WHAT [TRIES of 0.2 s]
  for _ in $(seq "${3:-50}"); do screen | grep -q -- "$1" && return 0; sleep 0.2; done
  echo "FAIL: $2"; screen; exit 1
}
