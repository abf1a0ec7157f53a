#!/usr/bin/env bash
# Guard-rail tests (TAP): options that used to do work silently or take "0" for
# "default", runs that grind or write without bound, and refusals that must
# come before any file is written.  Each check failed before the guard existed.
set -u
. "$(dirname "$0")/tap.sh"

linear_decay() {   # linear_decay K: the model x' = K x, x(0) = 1, x logged by Out1
    printf '%s\n' '{"blocks":[{"name":"x","type":"Integrator","InitialCondition":1},{"name":"k","type":"Gain","Gain":'"$1"'},' \
        ' {"name":"Out1","type":"Outport","Port":1}],' \
        ' "lines":[{"src":"x:1","dst":["k:1","Out1:1"]},{"src":"k:1","dst":"x:1"}]}'
}
cd "$top"

# runs that used to take minutes are cut off, so that the old behaviour fails
# rather than hangs
T="timeout -s KILL 60"

# ---- linearize --stats with json and mm: the statistics on stderr
out=$("$J" linearize graphs/vdp.json --stats --format json 2>"$d/stats.err")
rc=$?
[ $rc -eq 0 ] && python3 -c "import json,sys; json.loads(sys.argv[1])" "$out" &&
    grep -q '^Jacobian graph (markowitz): V:[0-9]* E:[0-9]* -> V:' "$d/stats.err" &&
    grep -q '^intermediate memory: graph algorithm [0-9]* bytes' "$d/stats.err" &&
    grep -q '^time (ms): graph: ' "$d/stats.err"
ok $? "linearize --stats --format json: JSON on stdout, statistics on stderr"
"$J" linearize graphs/vdp.json --stats --format mm --out "$d/v" >"$d/mm.out" 2>"$d/mm.err"
[ $? -eq 0 ] && [ ! -s "$d/mm.out" ] && [ -f "$d/v_A.mtx" ] &&
    grep -q '^LFT order: graph [0-9]*, matrix [0-9]*$' "$d/mm.err"
ok $? "linearize --stats --format mm: statistics on stderr"
"$J" linearize graphs/vdp.json --stats --format json --out "$d/v.json" 2>"$d/j.err" >/dev/null &&
    python3 -c "import json; json.load(open('$d/v.json'))" && grep -q '^Jacobian graph' "$d/j.err"
ok $? "linearize --stats --format json --out: the file stays plain JSON"
"$J" linearize graphs/vdp.json --stats 2>"$d/t.err" | grep -q '^Jacobian graph (markowitz)' && [ ! -s "$d/t.err" ]
ok $? "linearize --stats --format text: statistics after the matrices on stdout, as before"
"$J" linearize --help | grep -q 'on stderr with json and mm'
ok $? "linearize --help says where --stats goes"

# ---- bench: a singular algebraic loop exits 5, as linearize does
expect_err "bench: singular algebraic loop exits 5" 5 \
    "jacgraph: error: graph algorithm: singular algebraic loop through Sum, G: the loop equations have no unique solution" \
    "$J" bench tests/data/singular_loop.json --repeat 1
expect_err "bench --no-fork: singular algebraic loop exits 5" 5 \
    "jacgraph: error: graph algorithm: singular algebraic loop through Sum, G: the loop equations have no unique solution" \
    "$J" bench tests/data/singular_loop.json --repeat 1 --no-fork
"$J" linearize tests/data/singular_loop.json >/dev/null 2>&1
[ $? -eq 5 ]
ok $? "linearize of the same model exits 5 too"
"$J" bench graphs/vdp.json --repeat 1 --max-time 1 >/dev/null 2>&1
ok $? "bench of a good model still exits 0"

# ---- simulate: 0 (and any non-positive or non-finite value) is refused, naming the option
for opt in --rtol --atol --max-step --initial-step --step --out-step --decimation --refine; do
    for v in 0 -1; do
        expect_err "simulate $opt $v refused" 2 \
            "jacgraph simulate: $opt expects a positive number, got '$v'
see 'jacgraph simulate --help'" \
            $T "$J" simulate graphs/vdp.json $opt $v
    done
done
for v in inf nan abc; do
    expect_err "simulate --max-step $v refused" 2 \
        "jacgraph simulate: --max-step expects a finite number, got '$v'
see 'jacgraph simulate --help'" \
        $T "$J" simulate graphs/vdp.json --max-step $v
done
expect_err "simulate --decimation 2.5 refused" 2 \
    "jacgraph simulate: --decimation expects a positive integer
see 'jacgraph simulate --help'" \
    "$J" simulate graphs/vdp.json --decimation 2.5
expect_err "a fixed-step solver without --step" 2 \
    "jacgraph simulate: the fixed-step solver 'ode4' needs --step T (the step size)
see 'jacgraph simulate --help'" \
    "$J" simulate graphs/vdp.json --solver ode4
expect_err "lie without --step" 2 \
    "jacgraph simulate: the fixed-step solver 'lie' needs --step T (the step size)
see 'jacgraph simulate --help'" \
    "$J" simulate graphs/vdp.json --solver lie
"$J" simulate graphs/vdp.json --solver ode4 --step 0.1 --stop 1 >"$d/o4.csv" 2>&1 && [ "$(wc -l <"$d/o4.csv")" -eq 12 ]
ok $? "ode4 with --step runs (11 rows)"
echo '{"blocks":[{"name":"c","type":"Constant","Value":3},{"name":"Out1","type":"Outport","Port":1}],"lines":[{"src":"c:1","dst":"Out1:1"}]}' >"$d/const.json"
"$J" simulate "$d/const.json" --solver ode4 --stop 1 >"$d/c.csv" 2>&1 && [ "$(tail -1 "$d/c.csv")" = "1,3" ]
ok $? "a model without states needs no --step, whatever the solver"
"$J" simulate --help | grep -q -- '--max-rows N' && "$J" simulate --help | grep -q -- '--refine N' &&
    "$J" simulate --help | grep -q 'positive values only'
ok $? "simulate --help documents --max-rows, --refine and positive values"

# ---- simulate: an explicit solver on a stiff model warns once, and the rows are bounded
$T "$J" simulate graphs/rober.json --stop 1e4 --max-rows 3000 --no-progress >"$d/r.csv" 2>"$d/r.err"
rc=$?
[ $rc -eq 3 ] && [ "$(wc -l <"$d/r.csv")" -eq 3001 ] &&
    [ "$(grep -c 'the model looks stiff: try --solver ode15s or ode23s' "$d/r.err")" -eq 1 ] &&
    grep -q '^jacgraph: warning: rober: ode45: 1000 steps in a row below 1e-6 of the time span (h = ' "$d/r.err" &&
    grep -q '^jacgraph: error: more than 3000 output rows (--max-rows): the run stopped at t = ' "$d/r.err"
ok $? "rober with ode45: one stiffness warning, --max-rows 3000 stops the run (exit 3, 3000 rows)"
[ $rc -ne 3 ] && sed 's/^/#   /' "$d/r.err" | head -5
start=$(date +%s)
$T "$J" simulate graphs/rober.json --stop 1e4 >/dev/null 2>"$d/r2.err"
rc=$?
[ $rc -eq 3 ] && grep -q 'more than 1000000 output rows' "$d/r2.err" && [ $(($(date +%s) - start)) -lt 50 ]
ok $? "--max-rows defaults to 1000000"
"$J" simulate graphs/vdp.json --max-rows 5 >"$d/v5.csv" 2>"$d/v5.err"
[ $? -eq 3 ] && [ "$(wc -l <"$d/v5.csv")" -eq 6 ] &&
    "$J" simulate graphs/vdp.json --max-rows 0 >"$d/v0.csv" && [ "$(wc -l <"$d/v0.csv")" -eq 57 ]
ok $? "--max-rows 5 keeps 5 rows and fails; --max-rows 0: no limit"
# x' = -1e7 x: ode45's stability limit h ~ 3e-7 is below 1e-6 of the span
linear_decay -1e7 >"$d/fast.json"
$T "$J" simulate "$d/fast.json" --stop 1 --out-step 0.1 >"$d/f.csv" 2>"$d/f.err" &&
    [ "$(wc -l <"$d/f.csv")" -eq 12 ] && [ "$(grep -c 'looks stiff' "$d/f.err")" -eq 1 ]
ok $? "the warning comes with --out-step too (few rows, many steps)"
"$J" simulate "$d/fast.json" --stop 1 --solver ode23s >/dev/null 2>"$d/f2.err" && [ ! -s "$d/f2.err" ]
ok $? "the same model with ode23s: no warning"
"$J" simulate graphs/hires.json --stop 1e3 --solver ode15s --out-step 10 >/dev/null 2>"$d/h.err" && [ ! -s "$d/h.err" ]
ok $? "hires with ode15s: no warning"
"$J" simulate graphs/rober.json --stop 1e4 --solver ode15s >/dev/null 2>"$d/r4.err" && [ ! -s "$d/r4.err" ]
ok $? "rober with ode15s: no warning"
"$J" simulate graphs/vdp.json >/dev/null 2>"$d/v.err" && [ ! -s "$d/v.err" ]
ok $? "vdp with ode45: no warning"

# ---- simulate --refine: N points per major step from the dense output; x' = -x, x(0) = 1
linear_decay -1 >"$d/decay.json"
"$J" simulate "$d/decay.json" --stop 2 >"$d/d1.csv" 2>&1 &&
    "$J" simulate "$d/decay.json" --stop 2 --refine 4 >"$d/d4.csv" 2>&1 &&
    python3 - "$d/d1.csv" "$d/d4.csv" <<'PY'
import csv, math, sys
a = [list(map(float, r)) for r in list(csv.reader(open(sys.argv[1])))[1:]]
b = [list(map(float, r)) for r in list(csv.reader(open(sys.argv[2])))[1:]]
assert len(b) == 4 * (len(a) - 1) + 1, (len(a), len(b))
for i, r in enumerate(a):                      # the major steps are the same rows
    assert b[4 * i] == r, (i, r, b[4 * i])
for i in range(len(a) - 1):                    # 3 evenly spaced points inside each step
    t0, t1 = a[i][0], a[i + 1][0]
    for k in range(1, 4):
        t, x = b[4 * i + k][0], b[4 * i + k][1]
        assert abs(t - (t0 + (t1 - t0) * k / 4)) <= 1e-9 * max(1, t1), (t, t0, t1, k)
        assert abs(x - math.exp(-t)) < 1e-3, (t, x)
PY
ok $? "--refine 4: 4 points per step, major steps unchanged, dense output of exp(-t)"
expect_err "--refine with --out-step refused" 2 \
    "jacgraph simulate: --refine adds points between major steps; with --out-step there are none to refine
see 'jacgraph simulate --help'" \
    "$J" simulate "$d/decay.json" --refine 2 --out-step 0.1

# ---- graph --svg: refused above 2000 vertices unless --force, no empty file ever
"$J" generate aerospace --blocks 2000 --out "$d/big.json" >/dev/null 2>&1
expect_err "graph --svg of 2504 vertices refused" 2 \
    "jacgraph: error: $d/big.svg: the graph has 2504 vertices: Graphviz would take minutes to lay out more than 2000; try --reduced (the graph after elimination), --dot FILE, or --force" \
    $T "$J" graph "$d/big.json" --svg "$d/big.svg" --dot "$d/big.dot"
[ ! -e "$d/big.svg" ] && [ ! -e "$d/big.dot" ]
ok $? "the refusal writes no file"
"$J" graph "$d/big.json" --reduced --svg "$d/small.svg" >/dev/null 2>&1 && grep -q '</svg>' "$d/small.svg"
ok $? "graph --reduced --svg of the same model is drawn"
"$J" graph --help | grep -q -- '--force' && "$J" graph --help | grep -q '2000 vertices'
ok $? "graph --help documents the limit and --force"
"$J" graph graphs/vdp.json --svg "$d/forced.svg" --force >/dev/null 2>&1 && grep -q '</svg>' "$d/forced.svg"
ok $? "graph --svg --force draws a small graph as usual"
# an interrupted layout (1294 vertices: tens of seconds) leaves no empty file behind
"$J" generate aerospace --blocks 1000 --out "$d/mid.json" >/dev/null 2>&1
"$J" graph "$d/mid.json" --svg "$d/mid.svg" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do [ -e "$d/mid.svg" ] && break; sleep 0.1; done
sleep 0.5
kill -TERM $pid 2>/dev/null
wait $pid 2>/dev/null
[ ! -e "$d/mid.svg" ] || grep -q '</svg>' "$d/mid.svg"
ok $? "graph --svg interrupted during the layout: no empty SVG left"

# ---- widths: a root Inport without PortDimensions and a Ground take the width a
# reader fixes for itself (docs/model-format.md sections 8, 9 and 14 agree)
cat >"$d/w.json" <<'JSON'
{"blocks":[{"name":"In1","type":"Inport","Port":1},{"name":"G0","type":"Ground"},
 {"name":"SS","type":"StateSpace","A":[[-1,0],[0,-2]],"B":[[1,0],[0,1]],"C":[[1,0],[0,1]],"D":[[0,0],[0,0]]},
 {"name":"SS2","type":"StateSpace","A":[[-1,0],[0,-2]],"B":[[1,0],[0,1]],"C":[[1,0],[0,1]],"D":[[0,0],[0,0]]},
 {"name":"Out1","type":"Outport","Port":1},{"name":"T","type":"Terminator"},{"name":"In2","type":"Inport","Port":2},
 {"name":"K","type":"Gain","Gain":[1,2,3]},{"name":"T2","type":"Terminator"}],
 "lines":[{"src":"In1:1","dst":"SS:1"},{"src":"SS:1","dst":"Out1:1"},{"src":"G0:1","dst":"SS2:1"},
  {"src":"SS2:1","dst":"T:1"},{"src":"In2:1","dst":"K:1"},{"src":"K:1","dst":"T2:1"}]}
JSON
info=$("$J" info "$d/w.json" 2>&1)
grep -Eq '^  In1 +Inport +in \[\] out \[2\]' <<<"$info" && grep -Eq '^  G0 +Ground +in \[\] out \[2\]' <<<"$info" &&
    grep -Eq '^  In2 +Inport +in \[\] out \[1\]' <<<"$info"
ok $? "root Inport and Ground take a StateSpace reader's width; next to a Gain an Inport is scalar"
! grep -q 'never inherits its width\|it does not$\|take the width of its reader)' docs/model-format.md &&
    grep -q 'the width a reader fixes for itself (§14)' docs/model-format.md
ok $? "docs/model-format.md says so in sections 8 and 9 as in 14"

tap_done
