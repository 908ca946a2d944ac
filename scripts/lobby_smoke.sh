#!/usr/bin/env bash
# Smoke test of `president connect` as a LAN guest uses it: a real `president server` on
# loopback, the client in an 80x24 tmux pane; the first-use fingerprint question is
# answered by comparing it with what the server printed; a table is created with the
# form, filled with bots, the game starts, we leave to the lobby and quit. Exits 1 on failure.
source "$(dirname "$0")/smoke_lib.sh"
work=$(mktemp -d)
port=${PORT:-$((20000 + RANDOM % 20000))}
session="president-lobby-$$"
cleanup() { tmux kill-session -t "$session" 2>/dev/null || true; kill "$server" 2>/dev/null || true; }
trap cleanup EXIT

"$president" server --host 127.0.0.1 --port "$port" --data "$work/data" --name "Smoke LAN" >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 50); do grep -q fingerprint "$work/server.log" && break; sleep 0.2; done
printed=$(sed -n 's/^certificate fingerprint (SHA-256): //p' "$work/server.log")
[ -n "$printed" ] || { echo "FAIL: the server printed no fingerprint"; cat "$work/server.log"; exit 1; }
echo "--- the server printed: $printed"

tmux new-session -d -s "$session" -x 80 -y 24 \
  "XDG_CONFIG_HOME=$work/config $president connect 127.0.0.1:$port --name smoke; echo EXITED; sleep 5"
wait_screen "Trust this server" "no first-use question"
shown=$(screen | tr -d '\n ' | grep -o '[0-9A-F:]\{95\}' | head -1)
echo "--- the client showed:   $shown"
[ "$shown" = "$printed" ] || { echo "FAIL: the fingerprints differ"; exit 1; }
tmux send-keys -t "$session" y Enter
wait_screen "Smoke LAN at 127.0.0.1" "the lobby never came up"
echo "--- the lobby:"; screen

tmux send-keys -t "$session" n
wait_screen "new table" "no create-table form"
for _ in $(seq 14); do tmux send-keys -t "$session" Down; done
tmux send-keys -t "$session" Right  # clear_rank: none -> 8
wait_screen "a set of 8s may be played on any pile" "the form did not change a toggle"
echo "--- the form:"; screen
tmux send-keys -t "$session" Enter
wait_screen "before the game: r = ready" "creating the table did not sit us down"
tmux send-keys -t "$session" b; sleep 0.3; tmux send-keys -t "$session" b; sleep 0.3; tmux send-keys -t "$session" b
wait_screen "seats\|bot" "no bots"
tmux send-keys -t "$session" r
wait_screen "hand 1" "the game did not start"
echo "--- the table:"; screen
tmux send-keys -t "$session" q; sleep 0.3; tmux send-keys -t "$session" q
wait_screen "smoke's table" "leaving did not come back to the lobby"
tmux send-keys -t "$session" q
wait_screen "press q again to quit" "q in the lobby did not ask once"
tmux send-keys -t "$session" q
wait_screen EXITED "q q in the lobby did not quit"
grep -q "127.0.0.1:$port" "$work/config/president/known_servers" || { echo "FAIL: the fingerprint was not remembered"; exit 1; }
echo "OK: fingerprint confirmed and remembered, table created with a changed toggle, bots added, game started, left to the lobby, quit"
