#!/usr/bin/env bash
# Smoke test of the terminal client as a person uses it: `president play` in an 80x24
# tmux pane on a dark palette (COLORFGBG says so, as rxvt/konsole do), a whole game played
# by keystrokes (s = choose the cheapest play, enter = play or give back, p = pass), the
# screen read back with capture-pane until the final standings show. Prints what it saw;
# exits 1 on failure.  SIZE=60x20 (or any COLSxROWS) plays it on another terminal size.
set -euo pipefail
president=${PRESIDENT:-president}
size=${SIZE:-80x24}
command -v "$president" >/dev/null || { echo "FAIL: no '$president' command: activate the venv, or set PRESIDENT"; exit 1; }
command -v tmux >/dev/null || { echo "FAIL: tmux is not installed"; exit 1; }
session="president-smoke-$$"
data=$(mktemp -d)
screen() { tmux capture-pane -p -t "$session"; }
cleanup() { tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

tmux new-session -d -s "$session" -x "${size%x*}" -y "${size#*x}" \
  "env -u NO_COLOR COLORFGBG='15;0' $president play --name smoke --bot-delay 0.02 --pause 0.5 --data $data; echo EXITED; sleep 5"
for _ in $(seq 100); do screen | grep -q "[♣♠]" && break; sleep 0.2; done
screen | grep -q "your hand" || { echo "FAIL: the table screen never came up"; screen; exit 1; }
screen | grep -q "[♣♠]" || { echo "FAIL: no cards were dealt"; screen; exit 1; }
echo "--- the table screen ($size):"; screen

# the dark palette: clubs and spades in bright cyan (96), never black (30)
colours=$(tmux capture-pane -e -p -t "$session")
grep -q $'\e\[[0-9;]*96[;m][^\e]*[♣♠]' <<<"$colours" || grep -q $'\e\[[0-9;]*96[;m]' <<<"$colours" \
  || { echo "FAIL: no bright-cyan (dark palette) clubs or spades"; exit 1; }

moves=0 hands=0
for _ in $(seq 3000); do
  shot=$(screen)
  if grep -q "final standings" <<<"$shot"; then break; fi
  if grep -q "your turn\|gives\? back" <<<"$shot"; then
    if grep -q "nothing you hold beats" <<<"$shot"; then tmux send-keys -t "$session" p
    else
      tmux send-keys -t "$session" s; sleep 0.1
      if screen | grep -q "you have no play"; then tmux send-keys -t "$session" p
      else tmux send-keys -t "$session" Enter; fi
    fi
    moves=$((moves + 1)); sleep 0.15
  else
    sleep 0.1
  fi
done
echo "--- the end of the game, after $moves moves of ours:"; screen
screen | grep -q "final standings" || { echo "FAIL: the game did not end in the final standings"; exit 1; }
screen | grep -q "game over" || { echo "FAIL: the status line does not say the game is over"; exit 1; }
tmux send-keys -t "$session" Escape; sleep 1
echo "--- esc: the table under the standings:"; screen
screen | grep -q "final standings" && { echo "FAIL: esc did not show the table"; exit 1; }
tmux send-keys -t "$session" "?"; sleep 0.3
screen | grep -q "cheapest legal play" || { echo "FAIL: no help overlay"; exit 1; }
tmux send-keys -t "$session" x; sleep 0.3; tmux send-keys -t "$session" q
for _ in $(seq 50); do screen | grep -q EXITED && break; sleep 0.2; done
echo "--- after q:"; screen | grep -E "game record|EXITED" || true
screen | grep -q "game record:" || { echo "FAIL: quitting did not stop the server and write the record"; exit 1; }
echo "OK: a whole game played by keystrokes at $size to its final standings, help shown, quit cleanly ($moves moves)"
