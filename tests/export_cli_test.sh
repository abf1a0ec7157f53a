#!/usr/bin/env bash
# Engineering exports and input signals through the CLI (TAP):
# `linearize --format py|mat|m` read back by /usr/bin/python3 (NumPy, SciPy:
# the script run, the MAT-file through scipy.io.loadmat) must equal
# `--format json` (names with a quote, a comma, a newline, Greek and accented
# letters; dense, sparse by choice and by the automatic rule; snapshots);
# the m script runs in Octave when octave-cli is installed (skipped
# otherwise).  `simulate --input-signal` drives an integrator with a step and
# a ramp table against the hand-integrated values; bad tables and options
# fail naming the problem.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
py=/usr/bin/python3

# a model with awkward names: u1 "it's" -> Sum -> Integrator "Ωmega" (x1' = u1 - x1),
# u2 "a,b" -> Gain 3 -> Integrator "two\nlines"; the Outport 'say "hi"' reads x1
"$py" - "$d/names.json" <<'EOF'
import json, sys
m = {"name": "names", "blocks": [
    {"name": "it's", "type": "Inport", "Port": 1},
    {"name": "a,b", "type": "Inport", "Port": 2},
    {"name": "s", "type": "Sum", "Inputs": "+-"},
    {"name": "\u03a9mega caf\u00e9", "type": "Integrator", "InitialCondition": 1},
    {"name": "g", "type": "Gain", "Gain": 3},
    {"name": "two\nlines", "type": "Integrator", "InitialCondition": 0},
    {"name": "say \"hi\"", "type": "Outport", "Port": 1}],
 "lines": [{"src": "it's:1", "dst": "s:1"},
           {"src": "\u03a9mega caf\u00e9:1", "dst": ["s:2", "say \"hi\":1"]},
           {"src": "s:1", "dst": "\u03a9mega caf\u00e9:1"},
           {"src": "a,b:1", "dst": "g:1"}, {"src": "g:1", "dst": "two\nlines:1"}]}
json.dump(m, open(sys.argv[1], "w"), ensure_ascii=False)
EOF

# compare KIND FILE JSON [SUFFIX]: the py script's or MAT-file's variables equal
# the JSON system (exact: both carry 17 significant digits); prints what differs
compare() {
    "$py" - "$@" <<'EOF'
import json, runpy, sys
import numpy as np
import scipy.io, scipy.sparse
kind, path, ref = sys.argv[1:4]
sfx = sys.argv[4] if len(sys.argv) > 4 else ""
want = json.load(open(ref))
if isinstance(want, list):
    want = want[int(sfx[2:]) - 1]
if kind == "py":
    g = runpy.run_path(path)
    get = lambda k: g[k + sfx]
    names = lambda k: list(get(k))
else:
    g = scipy.io.loadmat(path)
    get = lambda k: g[k + sfx]
    names = lambda k: [str(c[0]) if c.size else "" for c in get(k).ravel()]
sparse_seen = []
for m in "ABCD":
    M = get(m)
    if scipy.sparse.issparse(M):
        sparse_seen.append(m)
        M = M.toarray()
    W = np.zeros((want[m]["rows"], want[m]["cols"]))
    for i, j, x in zip(want[m]["i"], want[m]["j"], want[m]["x"]):
        W[i, j] = x
    if M.shape != W.shape or not np.array_equal(M, W):
        sys.exit("%s differs:\n%s\nvs\n%s" % (m, M, W))
for mine, theirs in (("StateName", "states"), ("InputName", "inputs"), ("OutputName", "outputs")):
    key = mine if kind == "mat" else mine.replace("Name", "_names").lower()
    if names(key) != want[theirs]:
        sys.exit("%s: %r vs %r" % (key, names(key), want[theirs]))
ts = get("Ts")
if float(np.asarray(ts).ravel()[0]) != 0.0:
    sys.exit("Ts is %r" % ts)
if kind == "py" and g["sys" + sfx] is not None and not hasattr(g["sys" + sfx], "A"):
    sys.exit("sys is neither None nor a state-space object")
print("sparse:" + ("".join(sparse_seen) or "-"))
EOF
}

check() {   # check NAME KIND FILE JSON [SUFFIX] [EXPECTED-SPARSE]
    local name=$1 want=${6-}
    shift
    local out
    out=$(compare "$1" "$2" "$3" "${4:-}" 2>&1)
    if [ $? -eq 0 ] && { [ -z "$want" ] || [ "$out" = "sparse:$want" ]; }; then
        ok 0 "$name"
    else
        ok 1 "$name"
        echo "$out" | head -12 | sed 's/^/#   /'
        [ -n "$want" ] && echo "#   expected sparse:$want"
    fi
}

if ! "$py" -c 'import numpy, scipy.io' 2>/dev/null; then
    skip "exports read back" "/usr/bin/python3 lacks numpy or scipy (python3-numpy python3-scipy)"
else
    "$J" linearize "$d/names.json" --format json --out "$d/names_ref.json"
    ok $? "names: linearize --format json"
    "$J" linearize "$d/names.json" --format py --out "$d/names.py"
    ok $? "names: --format py"
    check "names: the py script's arrays and names equal the JSON" py "$d/names.py" "$d/names_ref.json" "" "-"
    "$J" linearize "$d/names.json" --format mat --out "$d/names.mat"
    ok $? "names: --format mat"
    check "names: scipy.io.loadmat reads the MAT-file equal to the JSON" mat "$d/names.mat" "$d/names_ref.json" "" "-"
    "$J" linearize "$d/names.json" --format m --out "$d/names.m"
    grep -qF "StateName = {'"$'\xce\xa9'"mega caf"$'\xc3\xa9'"'; ['two' char(10) 'lines']};" "$d/names.m" &&
        grep -qF "InputName = {'it''s'; 'a,b'};" "$d/names.m" &&
        grep -qF "OutputName = {'say \"hi\"'};" "$d/names.m"
    ok $? "names: the m script quotes the names (quote doubled, newline as char(10))"

    # sparse by choice: every matrix a scipy.sparse one, in both
    "$J" linearize "$d/names.json" --format py --sparse always --out "$d/sp.py" &&
        "$J" linearize "$d/names.json" --format mat --sparse always --out "$d/sp.mat"
    ok $? "names: --sparse always"
    check "sparse py: csc matrices equal the JSON" py "$d/sp.py" "$d/names_ref.json" "" "ABCD"
    check "sparse mat: loadmat's sparse matrices equal the JSON" mat "$d/sp.mat" "$d/names_ref.json" "" "ABCD"

    # the automatic rule: 200 states (beyond 100 x 100, about 3% nonzero) go sparse
    "$J" generate brusselator --states 200 --out "$d/bru.json" -q &&
        "$J" linearize "$d/bru.json" --format json --out "$d/bru_ref.json" &&
        "$J" linearize "$d/bru.json" --format py --out "$d/bru.py" &&
        "$J" linearize "$d/bru.json" --format mat --out "$d/bru.mat" &&
        "$J" linearize "$d/bru.json" --format m --out "$d/bru.m"
    ok $? "brusselator 200: json, py, mat, m"
    check "auto: a 200x200 A is sparse in py and equal" py "$d/bru.py" "$d/bru_ref.json" "" "A"
    check "auto: a 200x200 A is sparse in the MAT-file and equal" mat "$d/bru.mat" "$d/bru_ref.json" "" "A"
    grep -q "^A = sparse(\[" "$d/bru.m"
    ok $? "auto: the m script writes A = sparse(i, j, v, 200, 200)"

    # snapshots: one set of variables per time, suffixed _tK
    "$J" linearize graphs/vdp.json --at 0.5,1 --format json --out "$d/at_ref.json" &&
        "$J" linearize graphs/vdp.json --at 0.5,1 --format py --out "$d/at.py" &&
        "$J" linearize graphs/vdp.json --at 0.5,1 --format mat --out "$d/at.mat"
    ok $? "snapshots: --at 0.5,1 as json, py, mat"
    check "snapshots: py A_t2 ... equal the second JSON system" py "$d/at.py" "$d/at_ref.json" _t2
    check "snapshots: mat A_t1 ... equal the first JSON system" mat "$d/at.mat" "$d/at_ref.json" _t1
fi

if command -v octave-cli >/dev/null 2>&1; then
    # the m script's A..D printed by Octave, against the JSON
    (cd "$d" && octave-cli --no-gui --quiet --eval \
        "warning('off', 'all'); run('names.m'); fprintf('%.17g\n', full(A), full(B), full(C), full(D)); disp(StateName{2})") \
        >"$d/oct.txt" 2>"$d/oct.err"
    ok $? "octave: the m script runs"
    "$py" - "$d/oct.txt" "$d/names_ref.json" <<'EOF'
import json, sys
got = open(sys.argv[1]).read().split("\n")
ref = json.load(open(sys.argv[2]))
vals = []
for m in "ABCD":
    M = [[0.0] * ref[m]["cols"] for _ in range(ref[m]["rows"])]
    for i, j, x in zip(ref[m]["i"], ref[m]["j"], ref[m]["x"]):
        M[i][j] = x
    vals += [M[i][j] for j in range(ref[m]["cols"]) for i in range(ref[m]["rows"])]
n = len(vals)
if [float(v) for v in got[:n]] != vals or got[n:n + 2] != ["two", "lines"]:
    sys.exit("octave printed %r" % got)
EOF
    ok $? "octave: A..D and a name with a newline as in the JSON"
    if [ -f "$d/bru.m" ]; then
        nnz=$("$py" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["A"]["x"]))' "$d/bru_ref.json")
        got=$(cd "$d" && octave-cli --no-gui --quiet --eval \
            "warning('off', 'all'); run('bru.m'); printf('%d %d %d\n', issparse(A), nnz(A), columns(A))" 2>/dev/null)
        [ "$got" = "1 $nnz 200" ]
        ok $? "octave: the sparse A of 200 states (got '$got', expected '1 $nnz 200')"
    fi
    if octave-cli --no-gui --quiet --eval "pkg load control" >/dev/null 2>&1; then
        (cd "$d" && octave-cli --no-gui --quiet --eval \
            "run('names.m'); assert(isa(sys, 'ss')); assert(isequal(size(sys), [1 2]))") >/dev/null 2>&1
        ok $? "octave control: sys is a 1x2 ss object"
    else
        skip "octave control: sys" "the Octave control package is not installed"
    fi
else
    skip "octave: the m script runs" "octave-cli is not installed"
fi

# option errors
expect_fail "--format mat needs --out" 2 "--format mat needs --out FILE" "$J" linearize graphs/vdp.json --format mat
expect_fail "--format lists the new formats" 2 "(text, json, mm, m, py, mat)" "$J" linearize graphs/vdp.json --format xls
expect_fail "--sparse expects auto, always, never" 2 "unknown --sparse 'maybe'" \
    "$J" linearize graphs/vdp.json --format m --sparse maybe
expect_fail "--format mat to a missing directory: exit with the path" 3 "$d/no/such.mat" \
    "$J" linearize graphs/vdp.json --format mat --out "$d/no/such.mat"

# ---- simulate --input-signal: x' = u from x(0) = 0
cat >"$d/integ.json" <<'EOF'
{"name": "integ", "blocks": [{"name": "u", "type": "Inport", "Port": 1},
 {"name": "x", "type": "Integrator", "InitialCondition": 0},
 {"name": "Out1", "type": "Outport", "Port": 1}],
 "lines": [{"src": "u:1", "dst": "x:1"}, {"src": "x:1", "dst": "Out1:1"}]}
EOF
printf 'time,u\r\n0,0\r\n1,2\r\n2,-1\r\n' >"$d/u.csv"
# zoh: u = 0, 2, -1 on [0,1), [1,2), [2,3]: x(1.5) = 1, x(2) = 2, x(3) = 1;
# linear: u = 2t, then 2 - 3(t - 1), then -1: x(1.5) = 1.625, x(2) = 1.5, x(3) = 0.5
at() {   # at CSV T: column 3 (Out1) of the row at time T
    awk -F, -v t="$2" '$1 == t { print $3 }' "$1"
}
"$J" simulate "$d/integ.json" --stop 3 --out-step 0.5 --input-signal "$d/u.csv" --out "$d/zoh.csv" &&
    "$J" simulate "$d/integ.json" --stop 3 --out-step 0.5 --input-signal "$d/u.csv" --interp linear --out "$d/lin.csv"
ok $? "simulate --input-signal (zoh, linear)"
got="$(at "$d/zoh.csv" 1.5) $(at "$d/zoh.csv" 2) $(at "$d/zoh.csv" 3) $(at "$d/lin.csv" 1.5) $(at "$d/lin.csv" 2) $(at "$d/lin.csv" 3)"
[ "$got" = "1 2 1 1.625 1.5 0.5" ]
ok $? "integrated step and ramp equal the hand values (got: $got)"
# Euler with a step that does not divide the table's times still lands on them
"$J" simulate "$d/integ.json" --stop 3 --solver ode1 --step 0.3 --input-signal "$d/u.csv" --out "$d/e.csv"
[ "$(tail -n 1 "$d/e.csv" | cut -d, -f3)" = "1" ] && grep -q "^1,0,0$" "$d/e.csv" && grep -q "^2,2,2$" "$d/e.csv"
ok $? "ode1 --step 0.3: steps end at t = 1 and 2, x(3) = 1 exactly"

printf 'time,u,speed\n0,1,2\n' >"$d/bad1.csv"
expect_err "unknown column: file:line:col and the Inports" 2 \
    "jacgraph: error: $d/bad1.csv:1:8: unknown column \"speed\" (the root Inports: u)" \
    "$J" simulate "$d/integ.json" --input-signal "$d/bad1.csv"
printf 'time,u\n0,1\n2,1\n1.5,0\n' >"$d/bad2.csv"
expect_fail "time going back: its line" 2 "$d/bad2.csv:4: time 1.5 is not after the previous row's 2" \
    "$J" simulate "$d/integ.json" --input-signal "$d/bad2.csv"
printf 'time,u\n0,1\n1,"2\n' >"$d/bad3.csv"
expect_fail "an unclosed quote: its place" 4 "$d/bad3.csv:3:3: quoted field not closed" \
    "$J" simulate "$d/integ.json" --input-signal "$d/bad3.csv"
expect_fail "a missing table" 3 "$d/none.csv: cannot open" \
    "$J" simulate "$d/integ.json" --input-signal "$d/none.csv"
expect_fail "--interp expects zoh or linear" 2 "--interp expects zoh or linear, got 'cubic'" \
    "$J" simulate "$d/integ.json" --input-signal "$d/u.csv" --interp cubic
expect_fail "--interp needs --input-signal" 2 "--interp goes with --input-signal" \
    "$J" simulate "$d/integ.json" --interp linear

tap_done
