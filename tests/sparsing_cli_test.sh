#!/usr/bin/env bash
# `jacgraph sparsing` (TAP): text and JSON output on graphs/hires.json, masks by
# index, by state name and in Matrix Market giving the same measures, --auto and
# --mixed-mode keeping both checks, --op, --trajectory files, and bad masks and
# options with their messages and exit codes (docs/sparsing.md).
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
M=graphs/hires.json

# field FILE KEY: a JSON value of the output in FILE
field() { python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))[sys.argv[2]]))" "$1" "$2"; }

"$J" sparsing $M --step 0.1 >"$d/t.txt" 2>&1
ok $? "text output"
for k in "d1  =" "d2  =" "dS  =" "dr  =" "dr2 =" "C1  =" "C2  =" "check 11: d1 < C1" "check 12: d2 < C2" \
         "dropped entries" "kept entries" "predicted saving" "colors" "LU fill"; do
    grep -qF "$k" "$d/t.txt"
    ok $? "text shows '$k'"
done

"$J" sparsing $M --step 0.1 --format json >"$d/none.json"
ok $? "json output"
python3 - "$d/none.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for k in ["d1", "d2", "dS", "dr", "dr2", "C1", "C2", "check1", "check2", "kept", "dropped", "saving", "eigenvalues"]:
    assert k in m, k
assert m["ndropped"] == 0 and m["d1"] == 0 and m["d2"] == 0 and m["dS"] == 0 and m["dr"] < 1e-12, m
assert m["check1"] and m["check2"] and m["n"] == 8 and len(m["kept"]) == m["nnz"]
assert m["slow_threshold"] == 0.1
PY
ok $? "json: nothing dropped, nothing changes, every quantity named"

# the same entry by index, by name and in Matrix Market
echo '{"drop": [[1, 0], [3, 1]]}' >"$d/idx.json"
echo '{"drop": [["y(2)", "y(1)"], ["y(4)", 1]]}' >"$d/name.json"
printf '%%%%MatrixMarket matrix coordinate pattern general\n%% y(2) <- y(1), y(4) <- y(2)\n8 8 2\n2 1\n4 2\n' >"$d/m.mtx"
for f in idx.json name.json m.mtx; do
    "$J" sparsing $M --step 0.1 --mask "$d/$f" --format json >"$d/out_$f"
    ok $? "mask $f"
done
python3 - "$d" <<'PY'
import json, sys
r = [json.load(open(f"{sys.argv[1]}/out_{f}")) for f in ["idx.json", "name.json", "m.mtx"]]
for m in r:
    assert m["ndropped"] == 2 and sorted(m["dropped"]) == [[1, 0], [3, 1]], m["dropped"]
    assert m["d1"] > 0 and m["dr"] > 0
for k in ["d1", "d2", "dS", "dr", "dr2", "C1", "C2"]:
    assert r[0][k] == r[1][k] == r[2][k], k
PY
ok $? "mask by index, by name and Matrix Market agree"

"$J" sparsing $M --step 0.1 --slow-threshold 0 --format json >"$d/s0.json"
python3 -c "import json,sys; m=json.load(open(sys.argv[1])); assert m['nslow']==0 and m['C1']<1e-12, m['C1']" "$d/s0.json"
ok $? "--slow-threshold 0 keeps the zero mode of hires (C1 = 0)"

"$J" sparsing $M --step 0.1 --auto --format json >"$d/auto.json"
python3 -c "import json,sys; m=json.load(open(sys.argv[1])); assert m['check1'] and m['check2'] and m['d1']>0 and all([i,i] in m['kept'] for i in range(7))" "$d/auto.json"
ok $? "--auto: both checks hold, nonzero entries dropped, the nonzero diagonal kept (y(8)'s is 0)"
"$J" sparsing $M --step 0.1 --mixed-mode --format json >"$d/mixed.json"
python3 -c "
import json,sys; m=json.load(open(sys.argv[1]))
assert m['check1'] and m['check2'] and m['explicit'], m.get('explicit')
st = m['states']
for s in m['explicit']:
    i = st.index(s)
    assert [i, i] in m['dropped'] and not any(i in e for e in m['kept'])
" "$d/mixed.json"
ok $? "--mixed-mode: explicit states reported, their rows and columns dropped"
"$J" sparsing $M --step 0.1 --mixed-mode | grep -q "explicit states (mixed mode"
ok $? "--mixed-mode: text names the explicit states"

echo '{"t": 0, "states": {}}' >"$d/op.json"
"$J" sparsing $M --step 0.1 --op "$d/op.json" --mask "$d/idx.json" --format json >"$d/op_out.json"
python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a['d1']==b['d1'] and a['dr']==b['dr']" \
    "$d/op_out.json" "$d/out_idx.json"
ok $? "--op at the initial state equals the default point"

"$J" sparsing $M --step 0.1 --auto --trajectory "$d/tr" --stop 1 >/dev/null
ok $? "--trajectory runs"
[ "$(wc -l <"$d/tr.csv")" -eq 12 ] && head -1 "$d/tr.csv" | grep -q '^step,t,d1,d2,dS,dr,dr2,C1,C2,check1,check2$'
ok $? "--trajectory: a CSV row per step (11 for 1 / 0.1)"
grep -q '<svg' "$d/tr.svg" && grep -q 'dr (true)' "$d/tr.svg"
ok $? "--trajectory: SVG with d1, d2, dr"

# ---- bad input
echo '{"drop": [[0, 8]]}' >"$d/b1.json"
expect_err "mask index out of range" 2 \
    "jacgraph: error: $d/b1.json: \"drop\" entry 1: column 8 outside 0..7 (0-based, 8 states)" \
    "$J" sparsing $M --step 0.1 --mask "$d/b1.json"
echo '{"drop": [["y(9)", 0]]}' >"$d/b2.json"
expect_err "mask unknown state" 2 "jacgraph: error: $d/b2.json: \"drop\" entry 1: unknown state \"y(9)\" (row)" \
    "$J" sparsing $M --step 0.1 --mask "$d/b2.json"
echo '{"drop": [[0, 7]]}' >"$d/b3.json"
expect_err "mask entry outside J's pattern" 2 \
    "jacgraph: error: $d/b3.json: \"drop\" entry 1: (0, 7) (y(1) <- y(8)) is not an entry of J's pattern (see 'jacgraph jacobian')" \
    "$J" sparsing $M --step 0.1 --method sparse-analytical --mask "$d/b3.json"
printf '{"drop": [[0, 1]' >"$d/b4.json"
"$J" sparsing $M --step 0.1 --mask "$d/b4.json" >/dev/null 2>&1
ok $([ $? -eq 4 ]; echo $?) "malformed mask JSON: exit 4"
"$J" sparsing $M --step 0.1 --mask "$d/absent.json" >/dev/null 2>&1
ok $([ $? -eq 3 ]; echo $?) "missing mask file: exit 3"
expect_err "missing --step" 2 "jacgraph sparsing: missing --step H
see 'jacgraph sparsing --help'" \
    "$J" sparsing $M
"$J" sparsing $M --step -1 >/dev/null 2>&1
ok $([ $? -eq 2 ]; echo $?) "negative step: exit 2"
"$J" sparsing $M --step 0.1 --mask "$d/idx.json" --auto >/dev/null 2>&1
ok $([ $? -eq 2 ]; echo $?) "--mask with --auto: exit 2"
"$J" sparsing $M --step 0.1 --trajectory "$d/x" >/dev/null 2>&1
ok $([ $? -eq 2 ]; echo $?) "--trajectory without --stop: exit 2"
"$J" sparsing --help | grep -q "slow-threshold"
ok $? "--help documents --slow-threshold"
"$J" --help | grep -q "sparsing"
ok $? "jacgraph --help lists sparsing"

tap_done
