#!/usr/bin/env bash
# Smoke test of a server killed mid-hand (issue 6 §1), as a host and a player see it: a
# real `president server`, `president connect` in a 100x30 tmux pane, a game with three
# server bots; on our turn the server gets SIGKILL, the client says it is reconnecting,
# the server starts again on the same data, and the client is back at the same hand with
# the same cards; a pass then plays on. Exits 1 on failure.
source "$(dirname "$0")/smoke_lib.sh"
work=$(mktemp -d)
port=${PORT:-$((20000 + RANDOM % 20000))}
session="president-restart-$$"
start_server() {
  "$president" server --host 127.0.0.1 --port "$port" --data "$work/data" --name "Restart LAN" >"$work/server$1.log" 2>&1 &
  server=$!
  for _ in $(seq 50); do grep -q "Ctrl-C" "$work/server$1.log" && return 0; sleep 0.2; done
  echo "FAIL: the server did not start"; cat "$work/server$1.log"; exit 1
}
cleanup() { tmux kill-session -t "$session" 2>/dev/null || true; kill "$server" 2>/dev/null || true; }
trap cleanup EXIT
hand() { screen | grep -A1 "your hand" | tail -1; }

start_server 1
tmux new-session -d -s "$session" -x 100 -y 30 \
  "XDG_CONFIG_HOME=$work/config $president connect 127.0.0.1:$port --name ann; echo EXITED; sleep 5"
wait_screen "Trust this server" "no first-use question" 75
tmux send-keys -t "$session" y Enter
wait_screen "Restart LAN at 127.0.0.1" "the lobby never came up" 75
tmux send-keys -t "$session" n; wait_screen "new table" "no create-table form" 75
tmux send-keys -t "$session" Enter; wait_screen "r = ready" "creating the table did not sit us down" 75
for _ in 1 2 3; do tmux send-keys -t "$session" b; sleep 0.3; done
tmux send-keys -t "$session" r
wait_screen "your turn" "our turn never came" 75
before=$(hand)
echo "--- before the kill:"; screen
kill -9 "$server"; wait "$server" 2>/dev/null || true
wait_screen "reconnecting" "the client did not notice the server was gone" 75
start_server 2
grep -q "restored 1 table(s), 1 with a game in progress" "$work/server2.log" || { echo "FAIL: nothing restored"; cat "$work/server2.log"; exit 1; }
wait_screen "reconnected to your seat" "the client did not take its seat back" 75
after=$(hand)
echo "--- after the restart:"; screen
[ "$before" = "$after" ] || { echo "FAIL: the hand changed: '$before' -> '$after'"; exit 1; }
tmux send-keys -t "$session" p; sleep 1  # pass when following; when leading, play the suggestion
screen | grep -q "you pass" || { tmux send-keys -t "$session" s; sleep 0.3; tmux send-keys -t "$session" Enter; }
wait_screen "you play\|you pass" "no move after the restart" 75
echo "OK: killed mid-hand with SIGKILL, restarted, the client took its seat back with the same cards, and played on"
