#!/usr/bin/env bash
# Walk-through of issue 27 as a player sees it, on real processes: `president server
# --port 0`, `president bot` for the other seats (a table with target=3, so a short
# game), and `president connect` in a tmux pane of COLSxROWS on a light or dark palette
# (tmux window-style plus COLORFGBG). Plays by keys (s = the suggested play, enter =
# play, p = pass; space/right/enter for the exchange), kill -9s the client mid-hand,
# starts it again, takes the seat back (enter in the lobby), scrolls the log back (pgup),
# and plays to the end of the game. Appends labelled screen captures to OUTFILE (plain)
# and OUTFILE.ansi (with colours). Does not assert: read the captures.
#   usage: scripts/tui_walkthrough.sh COLSxROWS PLAYERS light|dark OUTFILE
#   e.g.   scripts/tui_walkthrough.sh 60x16 8 light /tmp/walk.txt
set -u
P=${PRESIDENT:-$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/president}
[ $# -eq 4 ] || { echo "usage: $0 COLSxROWS PLAYERS light|dark OUTFILE"; exit 2; }
size=$1; players=$2; pal=$3; out=$4
W=${size%x*}; H=${size#*x}
S=walk27-$$
D=$(mktemp -d); export XDG_CONFIG_HOME=$D/config XDG_STATE_HOME=$D/state XDG_DATA_HOME=$D/share
spid=; bpid=
cleanup() { tmux -L $S kill-server 2>/dev/null; [ -n "$bpid" ] && kill $bpid 2>/dev/null
            [ -n "$spid" ] && { kill -INT $spid 2>/dev/null; wait $spid 2>/dev/null; }; rm -rf "$D"; }
trap cleanup EXIT
lab="$size $pal, $players players"
cap() { { echo "=== [$lab] $1"; tmux -L $S capture-pane -p; echo; } >> "$out"
        { echo "=== [$lab] $1"; tmux -L $S capture-pane -p -e; echo; } >> "$out.ansi"; }
note() { echo "--- [$lab] $1" >> "$out"; }
$P server --host 127.0.0.1 --port 0 --data $D/data --no-announce --pause 0.5 --bot-delay 0.05 > $D/server.out 2>&1 &
spid=$!
for _ in $(seq 50); do grep -q "Ctrl-C" $D/server.out 2>/dev/null && break; sleep 0.2; done
port=$(grep -o "listening on 127.0.0.1:[0-9]*" $D/server.out | cut -d: -f2)
fp=$(grep -o "SHA-256): [0-9A-F:]*" $D/server.out | cut -d' ' -f2)
# the bots keep their own config: the client's first connection asks about the fingerprint
XDG_CONFIG_HOME=$D/bots $P bot 127.0.0.1:$port --fingerprint $fp --table friday --seats $players \
   --count $((players-1)) --strategy heuristic --delay 0.1 --games 1 --set target=3 > $D/bots.out 2>&1 &
bpid=$!
for _ in $(seq 50); do [ "$(grep -c 'seated at' $D/bots.out)" -ge $((players-1)) ] && break; sleep 0.2; done
if [ "$pal" = light ]; then ws='bg=white,fg=black'; fgbg='0;15'; else ws='bg=black,fg=white'; fgbg='15;0'; fi
start() { tmux -L $S new-session -d -x $W -y $H "env COLORFGBG='$fgbg' $P connect 127.0.0.1:$port --name bartholomew-the-patient; sleep 900" \; set -g window-style "$ws"; }
waitfor() { for _ in $(seq ${2:-100}); do tmux -L $S capture-pane -p | grep -q "$1" && return 0; sleep 0.2; done; note "(waited for '$1' in vain)"; return 1; }
start; waitfor "Trust this server" 100 && { cap "first connect: the fingerprint question"; tmux -L $S send-keys y Enter; note "answered y, enter (the server printed $fp)"; }
waitfor "friday " ; sleep 0.5
cap "lobby"
tmux -L $S send-keys Enter; waitfor "r = ready\|r: ready" 50; sleep 0.3
tmux -L $S send-keys r; waitfor "your turn" 150; sleep 0.5
mymove() { tmux -L $S send-keys s; sleep 0.4; tmux -L $S send-keys Enter; sleep 0.6
  if tmux -L $S capture-pane -p | tail -2 | grep -q "your turn\|p passes"; then tmux -L $S send-keys p; sleep 0.4; fi; }
mymove; waitfor "your turn" 150; sleep 0.3; mymove; waitfor "your turn" 150; sleep 0.8
cap "mid-hand, before the kill"
pane=$(tmux -L $S display -p '#{pane_pid}'); cpid=$(pgrep -P $pane | head -1)
note "kill -9 $cpid (president connect)"
kill -9 $cpid; sleep 1.5
tmux -L $S kill-server; sleep 0.3
start; waitfor "friday " 150; sleep 0.5
cap "started again: first screen"
tmux -L $S send-keys Enter; waitfor "back at your seat" 100; sleep 1
cap "after enter: back at the seat"
tmux -L $S send-keys PPage; sleep 0.6
cap "after the return, pgup: the log scrolled back"
tmux -L $S send-keys End; sleep 0.3
for _ in $(seq 2000); do
  scr=$(tmux -L $S capture-pane -p)
  if echo "$scr" | grep -q "final standings\|game over"; then break; fi
  if echo "$scr" | tail -2 | grep -q "enter gives"; then  # the exchange: the first cards
    n=$(echo "$scr" | tail -2 | grep -o "gives[a-z ]* [0-9] card" | grep -o "[0-9]" | head -1)
    for _ in $(seq ${n:-1}); do tmux -L $S send-keys Space Right; sleep 0.2; done
    tmux -L $S send-keys Enter; sleep 0.6
  elif echo "$scr" | tail -2 | grep -q "your turn\|p passes\|enter plays"; then mymove; else sleep 0.3; fi
done
sleep 1
cap "finished game"
tmux -L $S send-keys Escape; sleep 0.7
cap "finished game, esc: the table under the standings"
