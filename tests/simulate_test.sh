#!/usr/bin/env bash
# `jacgraph simulate` output tests (TAP): --plot writes a well-formed SVG whose
# legend names the CSV columns it draws (a polyline per curve, the states when
# nothing is logged, at most 12 curves, thinning of long runs), a bad --plot
# path is a JG_IO error (exit 3), and the progress bar appears on a terminal
# only -- never when stderr is a file or a pipe.
set -u
. "$(dirname "$0")/tap.sh"

# well_formed SVG: xmllint when installed, else the root element's tags
well_formed() {
    if command -v xmllint >/dev/null 2>&1; then
        xmllint --noout "$1" 2>&1 | head -5 | sed 's/^/#   /'
        xmllint --noout "$1" >/dev/null 2>&1
    else
        grep -q '<svg' "$1" && grep -q '</svg>' "$1"
    fi
}
# legend NAMES of SVG, one a line (entities decoded, "= other" notes dropped)
legend() {
    sed -n 's/.*<text class="legend-name"[^>]*>\(.*\)<\/text>.*/\1/p' "$1" |
        sed -e 's/<tspan[^>]*>.*<\/tspan>//' -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&quot;/"/g' \
            -e "s/&apos;/'/g" -e 's/&amp;/\&/g'
}
# the curve groups of SVG that hold no polyline (prints their count)
empty_curves() {
    awk '/<g class="curve"/ {inside = 1; c = 0; next}
         inside && /<polyline/ {c++}
         inside && /^<\/g>/ {if (c < 1) bad++; inside = 0}
         END {print bad + 0}' "$1"
}
# the last N columns of the CSV header of FILE, one a line
last_cols() {
    head -1 "$2" | tr ',' '\n' | tail -n "$1"
}

cd "$top"

# ---- --plot on shipped models: well formed, one curve per logged signal, legend = CSV columns
for spec in "vdp 20 4" "f14 5 5" "foucault 100 4"; do
    set -- $spec
    m=$1 stop=$2 nlog=$3
    "$J" simulate "graphs/$m.json" --stop "$stop" --out "$d/$m.csv" --plot "$d/$m.svg" >/dev/null 2>"$d/err"
    rc=$?
    [ $rc -eq 0 ] && [ ! -s "$d/err" ] && well_formed "$d/$m.svg"
    ok $? "$m: --plot writes a well-formed SVG"
    [ "$(grep -c '<g class="curve"' "$d/$m.svg")" -eq "$nlog" ] && [ "$(empty_curves "$d/$m.svg")" -eq 0 ]
    ok $? "$m: a polyline for each of the $nlog logged signals"
    diff <(legend "$d/$m.svg") <(last_cols "$nlog" "$d/$m.csv") >"$d/diff"
    ok $? "$m: legend names are the logged columns of the CSV header"
    sed 's/^/#   /' "$d/diff" | head -10
    grep -q "<text class=\"title\"[^>]*>$m</text>" "$d/$m.svg" &&
        grep -q '<text class="xlabel"[^>]*>time</text>' "$d/$m.svg"
    ok $? "$m: title is the model name, x axis label 'time'"
done

# ---- the plot does not change the CSV
"$J" simulate graphs/vdp.json --stop 20 --out "$d/plain.csv" >/dev/null 2>&1
cmp -s "$d/plain.csv" "$d/vdp.csv"
ok $? "the CSV is the same with and without --plot"

# ---- a model that logs no signals: its states are plotted
cat >"$d/osc.json" <<'EOF'
{"name": "osc & <co>", "blocks": [
  {"name": "pos", "type": "Integrator", "InitialCondition": 1},
  {"name": "vel", "type": "Integrator", "InitialCondition": 0},
  {"name": "k", "type": "Gain", "Gain": -1}],
 "lines": [{"src": "vel:1", "dst": "pos:1"}, {"src": "pos:1", "dst": "k:1"}, {"src": "k:1", "dst": "vel:1"}]}
EOF
"$J" simulate "$d/osc.json" --out "$d/osc.csv" --plot "$d/osc.svg" >/dev/null 2>&1 &&
    well_formed "$d/osc.svg" && diff <(legend "$d/osc.svg") <(last_cols 2 "$d/osc.csv") >/dev/null &&
    [ "$(head -1 "$d/osc.csv")" = "time,pos,vel" ] && grep -q '>osc &amp; &lt;co&gt;</text>' "$d/osc.svg"
ok $? "no logged signals: the states are plotted (names XML-escaped)"

# ---- more than 12 curves: the first 12, and the legend says so
cat >"$d/many.json" <<'EOF'
{"name": "many", "blocks": [
  {"name": "X", "type": "Integrator", "InitialCondition": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]},
  {"name": "G", "type": "Gain", "Gain": -0.5},
  {"name": "Out1", "type": "Outport", "Port": 1}],
 "lines": [{"src": "X:1", "dst": ["G:1", "Out1:1"]}, {"src": "G:1", "dst": "X:1"}]}
EOF
"$J" simulate "$d/many.json" --out "$d/many.csv" --plot "$d/many.svg" >/dev/null 2>&1 &&
    well_formed "$d/many.svg" && [ "$(grep -c '<g class="curve"' "$d/many.svg")" -eq 12 ] &&
    diff <(legend "$d/many.svg") <(last_cols 14 "$d/many.csv" | head -12) >/dev/null &&
    grep -q 'first 12 of 14 curves shown' "$d/many.svg"
ok $? "14 logged signals: 12 curves, the legend says 'first 12 of 14'"

# ---- long runs: at most 200000 points kept (the subtitle says so), small SVG
"$J" simulate graphs/vdp.json --stop 100000 --out /dev/null --plot "$d/long.svg" >/dev/null 2>&1 &&
    well_formed "$d/long.svg" && grep -q 'every 2nd of [0-9]* points kept' "$d/long.svg" &&
    [ "$(wc -c <"$d/long.svg")" -lt 200000 ] &&
    [ "$(grep -o 'points="[^"]*"' "$d/long.svg" | awk '{ if (NF > m) m = NF } END { print m + 0 }')" -le 2000 ]
ok $? "a 240k-point run keeps every 2nd point, curves of at most 2000 points"

# ---- a run that fails still plots what was computed, then reports the error
cat >"$d/fail.json" <<'EOF'
{"name": "failing", "blocks": [
  {"name": "One", "type": "Constant", "Value": 1},
  {"name": "T", "type": "Integrator", "InitialCondition": 0},
  {"name": "Lim", "type": "Constant", "Value": 3},
  {"name": "Diff", "type": "Sum", "Inputs": "+-"},
  {"name": "Root", "type": "Math", "Operator": "sqrt"},
  {"name": "Out1", "type": "Outport", "Port": 1}],
 "lines": [{"src": "One:1", "dst": "T:1"}, {"src": "Lim:1", "dst": "Diff:1"}, {"src": "T:1", "dst": "Diff:2"},
           {"src": "Diff:1", "dst": "Root:1"}, {"src": "Root:1", "dst": "Out1:1"}]}
EOF
"$J" simulate "$d/fail.json" --stop 5 --out /dev/null --plot "$d/fail.svg" >/dev/null 2>"$d/err"
rc=$?
[ $rc -eq 5 ] && grep -q "block 'Root' (Math)" "$d/err" && well_formed "$d/fail.svg" &&
    [ "$(empty_curves "$d/fail.svg")" -eq 0 ]
ok $? "a failing run: exit 5 and the plot up to the failure"

# ---- bad --plot path: JG_IO naming the file, exit 3, before the run
err=$("$J" simulate graphs/vdp.json --out "$d/bad.csv" --plot "$d/no/such/dir/p.svg" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 3 ] && [ "$err" = "jacgraph: error: $d/no/such/dir/p.svg: cannot write" ]
ok $? "bad --plot path: 'PATH: cannot write', exit 3"
[ "$rc" -eq 3 ] || echo "#   exit $rc: $err"
[ "$(wc -l <"$d/bad.csv")" -le 1 ]
ok $? "bad --plot path: detected before simulating"
"$J" simulate graphs/vdp.json --plot >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "--plot without a file: usage error"

# ---- the progress bar: never when stderr is a file or a pipe (the delay before
# it shows is set to zero, so these runs would show it on a terminal)
JACGRAPH_PROGRESS_DELAY=0 "$J" simulate graphs/vdp.json --stop 3000 --out /dev/null --plot "$d/p.svg" 2>"$d/err" >/dev/null
[ $? -eq 0 ] && [ ! -s "$d/err" ]
ok $? "no progress output when stderr is a file"
out=$(JACGRAPH_PROGRESS_DELAY=0 "$J" simulate graphs/vdp.json --stop 3000 2>&1 | tail -c 300)
! grep -q 'simulate vdp:' <<<"$out" && ! grep -q $'\r' <<<"$out"
ok $? "no progress output when stderr is a pipe"
# ... and it does appear on a terminal (a pseudo-terminal from script(1))
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
    # (CI unset: CI services set it, and it turns the bar off by design)
    # (no wall-clock dependence: the one-second delay is set to zero here)
    env -u CI TERM=xterm JACGRAPH_PROGRESS_DELAY=0 script -qec "'$J' simulate graphs/vdp.json --stop 3000 --out /dev/null" /dev/null \
        </dev/null >"$d/tty" 2>&1
    grep -q 'simulate vdp: \[#*\.*\] *100%  t = 3000 / 3000' "$d/tty" && grep -q $'\r' "$d/tty"
    ok $? "progress bar on a terminal"
    env -u CI TERM=xterm JACGRAPH_PROGRESS_DELAY=0 script -qec "'$J' simulate graphs/vdp.json --stop 3000 --out /dev/null --no-progress" \
        /dev/null </dev/null >"$d/tty" 2>&1
    [ ! -s "$d/tty" ]
    ok $? "--no-progress on a terminal: no bar"
    env -u CI TERM=xterm script -qec "'$J' simulate graphs/vdp.json --stop 20 --out /dev/null" /dev/null \
        </dev/null >"$d/tty" 2>&1
    [ ! -s "$d/tty" ]
    ok $? "a short run on a terminal: no bar"
    env CI=true TERM=xterm JACGRAPH_PROGRESS_DELAY=0 script -qec "'$J' simulate graphs/vdp.json --stop 3000 --out /dev/null" /dev/null \
        </dev/null >"$d/tty" 2>&1
    [ ! -s "$d/tty" ]
    ok $? "CI set: no bar even on a terminal"
else
    skip "progress bar on a terminal" "no script(1)"
    skip "--no-progress on a terminal: no bar" "no script(1)"
    skip "a short run on a terminal: no bar" "no script(1)"
    skip "CI set: no bar even on a terminal" "no script(1)"
fi

tap_done
