#!/usr/bin/env bash
# Smoke test of the terminal client as a person uses it: `president play` in an 80x24
# tmux pane, a whole hand played by keystrokes (s = choose the cheapest play, enter = play,
# p = pass), the screen read back with capture-pane. Prints what it saw; exits 1 on failure.
set -euo pipefail
president=${PRESIDENT:-president}
command -v "$president" >/dev/null || { echo "FAIL: no '$president' command: activate the venv, or set PRESIDENT"; exit 1; }
command -v tmux >/dev/null || { echo "FAIL: tmux is not installed"; exit 1; }
session="president-smoke-$$"
data=$(mktemp -d)
screen() { tmux capture-pane -p -t "$session"; }
cleanup() { tmux kill-session -t "$session" 2>/dev/null || true; }
trap cleanup EXIT

tmux new-session -d -s "$session" -x 80 -y 24 \
  "$president play --name smoke --bot-delay 0.05 --pause 1 --data $data; echo EXITED; sleep 5"
for _ in $(seq 50); do screen | grep -q "your hand" && break; sleep 0.2; done
screen | grep -q "your hand" || { echo "FAIL: the table screen never came up"; screen; exit 1; }
echo "--- the table screen:"; screen

moves=0
for _ in $(seq 400); do
  shot=$(screen)
  if grep -q "hand over" <<<"$shot"; then break; fi
  if grep -q "your turn" <<<"$shot"; then
    tmux send-keys -t "$session" s; sleep 0.15
    if screen | grep -q "you have no play"; then tmux send-keys -t "$session" p
    else tmux send-keys -t "$session" Enter; fi
    moves=$((moves + 1)); sleep 0.3
  else
    sleep 0.2
  fi
done
echo "--- after $moves moves of ours:"; screen
screen | grep -q "hand over" || { echo "FAIL: the hand did not end"; exit 1; }
tmux send-keys -t "$session" "?"; sleep 0.5
screen | grep -q "choose the cheapest legal play" || { echo "FAIL: no help overlay"; exit 1; }
tmux send-keys -t "$session" x; sleep 0.3; tmux send-keys -t "$session" q; sleep 0.3; tmux send-keys -t "$session" q
for _ in $(seq 50); do screen | grep -q EXITED && break; sleep 0.2; done
echo "--- after q:"; screen | grep -E "game record|EXITED" || true
screen | grep -q "game record:" || { echo "FAIL: quitting did not stop the server and write the record"; exit 1; }
echo "OK: a hand played by keystrokes, help shown, quit cleanly ($moves moves)"
