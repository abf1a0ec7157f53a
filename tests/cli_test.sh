#!/usr/bin/env bash
# CLI tests (TAP): golden outputs on shipped models, every bad input with its
# exact message and exit code, and `jacgraph check` on every model in graphs/.
set -u
. "$(dirname "$0")/tap.sh"

# golden NAME FILE CMD...: stdout must equal tests/golden/cli_test/FILE
golden() {
    local name=$1 file=$2
    shift 2
    local out
    out=$("$@" 2>&1)
    if [ "$out" = "$(cat "$top/tests/golden/cli_test/$file")" ]; then
        ok 0 "$name"
    else
        ok 1 "$name"
        diff <(echo "$out") "$top/tests/golden/cli_test/$file" | head -20 | sed 's/^/#   /'
    fi
}

cd "$top"

# ---- golden outputs
golden "vdp linearize text" vdp_linearize.txt "$J" linearize graphs/vdp.json
golden "vdp linearize json" vdp_linearize.json "$J" linearize graphs/vdp.json --format json
golden "vdp info" vdp_info.txt "$J" info graphs/vdp.json
golden "vdp graph sizes" vdp_graph.txt "$J" graph graphs/vdp.json --reduced

# ---- every shipped model passes check (graph x3 vs matrix vs perturbation)
for m in graphs/*.json tests/data/regress_*.json; do
    out=$("$J" check "$m" 2>&1)
    rc=$?
    [ $rc -eq 0 ] && grep -q '^PASS$' <<<"$out"
    ok $? "check $(basename "$m")"
    [ $rc -ne 0 ] && sed 's/^/#   /' <<<"$out"
done

# ---- I/O points on virtual signals (SubSystem ports) and on real ones agree across methods
"$J" check graphs/watertank.json --input Controller:1 --output 'Water-Tank System:1' --open Controller:1 >/dev/null 2>&1
ok $? "check with an opened loop at a SubSystem port"
"$J" check graphs/hierarchy.json --input Outer:1 --output Outer:2 --open Outer:1 >/dev/null 2>&1
ok $? "check with points on a nested SubSystem's outputs"

# ---- JSON, Matrix Market and graph files are written and well formed
"$J" linearize graphs/vdp.json --format mm --out "$d/vdp" >/dev/null 2>&1
[ -f "$d/vdp_A.mtx" ] && head -1 "$d/vdp_A.mtx" | grep -q '^%%MatrixMarket matrix coordinate real general' &&
    grep -q '^x1$' "$d/vdp_names.txt"
ok $? "Matrix Market output"
"$J" graph graphs/vdp.json --reduced --dot "$d/g.dot" --svg "$d/g.svg" >/dev/null 2>&1 &&
    grep -q 'digraph' "$d/g.dot" && grep -q '<svg' "$d/g.svg" && grep -q 'shape=circle' "$d/g.dot"
ok $? "graph dot and svg"
"$J" linearize graphs/vdp.json --format json --out "$d/v.json" >/dev/null 2>&1 &&
    python3 -c "import json,sys; m=json.load(open('$d/v.json')); assert m['states']==['x1','x2']; A=m['A']; assert sorted(zip(A['i'],A['j'],A['x']))==[(0,1,1.0),(1,0,-1.0),(1,1,-3.0)]"
ok $? "json output parses and holds A = [0 1; -1 -3]"

# ---- bad input: exact message and exit code
printf '{"blocks": [\n  {"name": "a", "type": "Gain",,}\n]}' >"$d/malformed.json"
expect_err "malformed JSON gives line and column" 4 \
    "jacgraph: error: $d/malformed.json:2:32: string or '}' expected near ','" \
    "$J" linearize "$d/malformed.json"

echo '{"blocks":[{"name":"a","type":"Gainz"}]}' >"$d/t1.json"
expect_err "unknown block type lists the known ones" 4 \
    "jacgraph: error: block 'a': unknown block type 'Gainz'; known types: Abs, AlgebraicConstraint, Assignment, Backlash, BandLimitedWhiteNoise, Bias, Clock, CombinatorialLogic, Constant, DataTypeConversion, DeadZone, Delay, Demux, Derivative, DigitalClock, DiscreteFilter, DiscreteIntegrator, DiscretePulseGenerator, DiscreteStateSpace, DiscreteTransferFcn, DiscreteZeroPole, Fcn, From, FromWorkspace, Gain, Goto, GotoTagVisibility, Ground, HitCrossing, IC, Inport, Integrator, Logic, Lookup1D, Lookup2D, LookupNDDirect, Math, Memory, MinMax, MultiPortSwitch, Mux, Outport, PIDController, Polyval, Product, PulseGenerator, Quantizer, Ramp, RandomNumber, RateLimiter, RelationalOperator, Relay, RepeatingSequence, Reshape, Rounding, SampleTimeMath, Saturation, Scope, Selector, Sign, SignalConversion, SignalGenerator, SignalSpecification, SineWave, StateSpace, Step, Stop, SubSystem, Sum, Switch, Terminator, ToWorkspace, TransferFcn, TransportDelay, Trigonometry, UnaryMinus, UniformRandomNumber, UnitConversion, UnitDelay, Width, ZeroOrderHol" \
    "$J" linearize "$d/t1.json"

echo '{"blocks":[{"name":"P","type":"SubSystem","blocks":[{"name":"s","type":"Selector"}]}]}' >"$d/t2.json"
expect_err "missing parameter names block path and parameter" 4 \
    "jacgraph: error: block 'P/s' (Selector), parameter 'Indices': missing: expected a vector of 1-based indices" \
    "$J" linearize "$d/t2.json"

echo '{"blocks":[{"name":"s","type":"StateSpace","A":[[1,0],[0,1]],"B":[[1],[2],[3]],"C":[[1,0]],"D":0}]}' >"$d/t3.json"
expect_err "ill-shaped parameter gives the expected shape" 4 \
    "jacgraph: error: block 's' (StateSpace), parameter 'B': expected 2x1 (rows of A x input width), got 3x1" \
    "$J" linearize "$d/t3.json"

echo '{"blocks":[{"name":"g","type":"Gain","Gain":[[1,2],[3]]}]}' >"$d/t3b.json"
expect_err "ragged matrix parameter" 4 \
    "jacgraph: error: block 'g' (Gain), parameter 'Gain': row 2 has 1 elements but row 1 has 2: expected a rectangular matrix" \
    "$J" linearize "$d/t3b.json"

echo '{"blocks":[{"name":"g","type":"Gain"},{"name":"c","type":"Constant"}],"lines":[{"src":"c:1","dst":"g:2"}]}' >"$d/t4.json"
expect_err "unknown port" 4 \
    "jacgraph: error: system '<root>': line destination \"g:2\": block 'g' (Gain) has 1 input port" \
    "$J" linearize "$d/t4.json"

echo '{"blocks":[{"name":"g","type":"Gain"}],"lines":[{"src":"nope:1","dst":"g:1"}]}' >"$d/t4b.json"
expect_err "unknown block in a line" 4 \
    "jacgraph: error: system '<root>': line source \"nope:1\": no block named 'nope' here" \
    "$J" linearize "$d/t4b.json"

echo '{"blocks":[{"name":"g","type":"Gain"},{"name":"c","type":"Constant"},{"name":"c2","type":"Constant"}],"lines":[{"src":"c:1","dst":"g:1"},{"src":"c2:1","dst":"g:1"}]}' >"$d/t5.json"
expect_err "two drivers on one input" 4 \
    "jacgraph: error: input 1 of block 'g' has two drivers: 'c:1' and 'c2:1'" \
    "$J" linearize "$d/t5.json"

echo '{"blocks":[{"name":"g","type":"Gain","Gain":[1,2]},{"name":"c","type":"Constant","Value":[1,2,3]},{"name":"T","type":"Terminator"}],"lines":[{"src":"c:1","dst":"g:1"},{"src":"g:1","dst":"T:1"}]}' >"$d/t6.json"
expect_err "width mismatch" 4 \
    "jacgraph: error: block 'g' (Gain), parameter 'Gain': element-wise gain has 2 elements but the input has width 3" \
    "$J" linearize "$d/t6.json"

echo '{"blocks":[{"name":"s","type":"Sum"},{"name":"c","type":"Constant","Value":[1,2,3]},{"name":"c2","type":"Constant","Value":[1,2]}],"lines":[{"src":"c:1","dst":"s:1"},{"src":"c2:1","dst":"s:2"}]}' >"$d/t6b.json"
expect_err "width mismatch between Sum inputs" 4 \
    "jacgraph: error: block 's' (Sum): input 2 has width 2 but another input has width 3 (only scalars expand)" \
    "$J" linearize "$d/t6b.json"

echo '{"parameters":{"k":2},"blocks":[{"name":"S","type":"SubSystem","parameters":{"j":1},"blocks":[{"name":"g","type":"Gain","Gain":"kk"}]}]}' >"$d/t7.json"
expect_err "unknown workspace name" 4 \
    "jacgraph: error: block 'S/g' (Gain), parameter 'Gain': unknown workspace name 'kk' (looked in SubSystem 'S' parameters, the model parameters, the base workspace)" \
    "$J" linearize "$d/t7.json"

expect_err "singular algebraic loop names its blocks" 5 \
    "jacgraph: error: singular algebraic loop through Sum, G: the loop equations have no unique solution" \
    "$J" linearize tests/data/singular_loop.json

expect_err "unreadable file" 3 \
    "jacgraph: error: $d/none.json: cannot open: No such file or directory" \
    "$J" linearize "$d/none.json"

echo '{"blocks":[{"name":"g","type":"Gain","Gain":2},{"name":"Out1","type":"Outport","Port":1}],"lines":[{"src":"g:1","dst":"Out1:1"}]}' >"$d/t9.json"
expect_err "unconnected input is a warning and reads zero" 0 \
    "jacgraph: warning: input 1 of block 'g' is unconnected; it reads zero" \
    "$J" linearize "$d/t9.json"

expect_err "unknown method" 2 \
    "jacgraph linearize: unknown --method 'foo' (graph, matrix, perturb)
see 'jacgraph linearize --help'" \
    "$J" linearize graphs/vdp.json --method foo

expect_err "unknown --input block" 2 \
    "jacgraph: error: --input Nope:1: no block 'Nope' in the model" \
    "$J" linearize graphs/vdp.json --input Nope:1

echo '{"blocks": 3}' >"$d/t10.json"
expect_err "document shape" 4 \
    "jacgraph: error: $d/t10.json: system '': \"blocks\" must be an array" \
    "$J" linearize "$d/t10.json"

echo '{"blocks":[{"name":"G","type":"Gain","Gian":3},{"name":"T","type":"Terminator"}],"lines":[{"src":"G:1","dst":"T:1"}]}' >"$d/t11.json"
expect_err "a misspelt parameter is an error that names the nearest one" 4 \
    "jacgraph: error: block 'G' (Gain): unknown parameter 'Gian' (did you mean 'Gain'?)" \
    "$J" linearize "$d/t11.json"

# ---- regressions: root Inport straight into a root Outport has D = 1; two
# Outports may measure one signal
out=$("$J" linearize tests/data/regress_inout.json --format json 2>&1)
python3 -c "import json,sys; m=json.loads(sys.argv[1]); assert m['D']['x']==[1.0], m" "$out"
ok $? "In1 -> Out1 gives D = 1"
out=$("$J" linearize tests/data/regress_twoout.json --format json 2>&1)
python3 -c "import json,sys; m=json.loads(sys.argv[1]); assert len(m['outputs'])==2, m" "$out"
ok $? "two Outports on one signal"

# ---- simulate: CSV header and output points; snapshots; bad options
out=$("$J" simulate graphs/vdp.json --stop 2 --out-step 0.5 2>&1)
[ "$(head -1 <<<"$out")" = "time,x1,x2,Out1,Out2,Scope:1(1),Scope:1(2)" ] && [ "$(wc -l <<<"$out")" -eq 6 ] &&
    [ "$(tail -1 <<<"$out" | cut -d, -f1)" = "2" ]
ok $? "simulate writes a named CSV header and the output points"
"$J" simulate graphs/vdp.json --stop 3 --save-op 3 "$d/op.json" >/dev/null 2>&1 &&
    "$J" linearize graphs/vdp.json --op "$d/op.json" --format json >"$d/a.json" 2>&1 &&
    "$J" linearize graphs/vdp.json --at 3 --format json >"$d/b.json" 2>&1 &&
    python3 -c "import json; a=json.load(open('$d/a.json')); b=json.load(open('$d/b.json'))[0]; assert a['t']==3 and b['t']==3 and all(abs(p-q)<1e-9 for p,q in zip(a['A']['x'],b['A']['x'])), (a,b)"
ok $? "simulate --save-op then linearize --op equals linearize --at"
expect_err "unknown solver" 2 \
    "jacgraph: error: unknown solver 'ode99' (valid: ode1 ode2 ode3 ode4 ode5 ode23 ode45 discrete ode23s lie ode15s)" \
    "$J" simulate graphs/vdp.json --solver ode99
expect_err "stop before start" 2 \
    "jacgraph: error: stop time 1 before start time 2" \
    "$J" simulate graphs/vdp.json --start 2 --stop 1
expect_err "fixed step required" 2 \
    "jacgraph simulate: the fixed-step solver 'ode4' needs --step T (the step size)
see 'jacgraph simulate --help'" \
    "$J" simulate graphs/vdp.json --solver ode4
expect_err "unknown zero-crossing algorithm" 2 \
    "jacgraph simulate: --zc expects nonadaptive, adaptive or off, got 'fast'
see 'jacgraph simulate --help'" \
    "$J" simulate graphs/bounce.json --zc fast
expect_err "--max-zc 0" 2 \
    "jacgraph simulate: --max-zc expects a positive integer
see 'jacgraph simulate --help'" \
    "$J" simulate graphs/bounce.json --max-zc 0
expect_err "a fixed step that misses the sample hits" 2 \
    "jacgraph: error: sample time [0.1, 0] of block 'Sampler' is not a multiple of the fixed step 0.03" \
    "$J" simulate graphs/sampled_pi.json --solver ode4 --step 0.03
expect_err "chattering stops the nonadaptive algorithm, naming the block" 5 \
    "jacgraph: error: too many consecutive zero crossings (1000) at t = 1.00000000000067 in 'Sign' (Sign): the model chatters or is Zeno; try --zc adaptive, a larger --max-zc, or disable the block's zero-crossing detection" \
    "$J" simulate tests/data/chatter.json --stop 2
"$J" simulate tests/data/chatter.json --stop 2 --zc adaptive --out-step 0.5 >"$d/c.csv" 2>&1 &&
    [ "$(tail -1 "$d/c.csv")" = "2,0,0" ]
ok $? "chattering: the adaptive algorithm completes with x held at 0"

# The page-populating thread (tools/heap.c) changes no output: a 20,000-block
# model, whose heap grows well past glibc's first extensions, gives the same
# bytes with the thread and without it (JACGRAPH_PREFAULT=0).
(
    "$J" generate aerospace --blocks 20k --seed 3 --out "$d/big.json" --quiet &&
        "$J" linearize "$d/big.json" --format mm --out "$d/pf1" &&
        JACGRAPH_PREFAULT=0 "$J" linearize "$d/big.json" --format mm --out "$d/pf0" || exit 1
    for m in A B C D; do cmp -s "$d/pf1_$m.mtx" "$d/pf0_$m.mtx" || exit 1; done
)
ok $? "linearize: the same bytes with and without the page-populating thread"

tap_done
