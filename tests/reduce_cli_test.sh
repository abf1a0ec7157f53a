#!/usr/bin/env bash
# --reduce STRATEGY and --order FILE on the commands that eliminate (TAP):
# linearize, graph, bench, jacobian, analyze and check accept any strategy
# and give the matrix method's result; an unknown strategy is a usage error
# listing the known ones; a bad order file is refused naming its line.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
m=graphs/f14.json

# check compares the graph method with strategy S with every other method
for s in markowitz full none lm minfill 'momr>lm>reverse' markowitz-nnz forward; do
    "$J" linearize $m --reduce "$s" > /dev/null 2>&1
    rc=$?
    "$J" check $m --reduce "$s" > "$d/c.txt" 2>&1
    tail -1 "$d/c.txt" | grep -q PASS
    ok $((rc || $?)) "linearize --reduce '$s' runs, and check --reduce '$s' passes"
done
"$J" linearize $m --reduce 'lmmd>reverse' --stats > "$d/st.txt" 2>&1
grep -q 'Jacobian graph (lmmd>reverse): V:107 E:127 -> ' "$d/st.txt"
ok $? "linearize --stats names the strategy"

expect_fail "linearize: an unknown strategy lists the known ones" 2 \
    "unknown strategy 'bogus' (known: none, markowitz, full, markowitz-nnz" "$J" linearize $m --reduce bogus
expect_fail "linearize: a rule cannot break ties" 2 \
    "'markowitz' cannot break ties" "$J" linearize $m --reduce 'lm>markowitz'
expect_fail "linearize: --reduce and --order together" 2 \
    "--reduce and --order: give one of them" "$J" linearize $m --reduce lm --order /dev/null

# an order file: the eliminated vertices of a run, written by 'strategies --order-out'
# or by hand; here: graph --json's ids of two eliminable vertices
"$J" graph $m --json "$d/g.json" > /dev/null 2>&1
ids=$(python3 -c "
import json, sys
g = json.load(open(sys.argv[1]))
e = [v['id'] for v in g['vertices'] if v['eliminable']]
s = [v['id'] for v in g['vertices'] if v['kind'] == 'state']
print(e[0], e[1], s[0])" "$d/g.json" 2>/dev/null)
if [ -n "$ids" ]; then
    set -- $ids
    printf '%s\n%s\n' "$1" "$2" > "$d/good.txt"
    "$J" linearize $m --order "$d/good.txt" > /dev/null 2>&1
    rc=$?
    "$J" check $m --order "$d/good.txt" > "$d/c.txt" 2>&1
    tail -1 "$d/c.txt" | grep -q PASS
    ok $((rc || $?)) "linearize --order FILE runs, and check --order FILE passes"
    "$J" graph $m --order "$d/good.txt" > "$d/gr.txt" 2>&1
    grep -q "V:107 E:127 -> V:105 " "$d/gr.txt"
    ok $? "graph --order FILE: two vertices fewer"
    printf '%s\n%s\n' "$1" "$3" > "$d/state.txt"
    expect_fail "an order naming a state is refused at its line" 2 "$d/state.txt:2: vertex $3" \
        "$J" linearize $m --order "$d/state.txt"
    printf '%s\n\n%s\n' "$1" "$1" > "$d/rep.txt"
    expect_fail "an order repeating a vertex is refused at its line" 2 "$d/rep.txt:3: vertex $1" \
        "$J" linearize $m --order "$d/rep.txt"
    printf '100000\n' > "$d/unk.txt"
    expect_fail "an order naming an unknown vertex is refused at its line" 2 "$d/unk.txt:1: unknown vertex 100000" \
        "$J" linearize $m --order "$d/unk.txt"
else
    skip "order files" "python3 not found"
fi

# the other commands
"$J" graph $m --reduce mincost > "$d/g.txt" 2>&1
grep -q '(mincost)' "$d/g.txt"
ok $? "graph --reduce mincost"
"$J" analyze $m --reduce lrm > /dev/null 2>&1
ok $? "analyze --reduce lrm"
"$J" check $m --reduce 'momr>lm' > "$d/c.txt" 2>&1
rc=$?
grep -q 'graph/momr>lm' "$d/c.txt" && tail -1 "$d/c.txt" | grep -q PASS
ok $((rc || $?)) "check --reduce adds graph/S to the comparison and passes"
"$J" jacobian $m --reduce lm --method sparse-analytical --format json > "$d/j1.txt" 2>&1
rc=$?
"$J" jacobian $m --method sparse-analytical --format json > "$d/j2.txt" 2>&1
cmp -s "$d/j1.txt" "$d/j2.txt"
ok $((rc || $?)) "jacobian --reduce lm: the same J_x as the default (full = lm)"
# no elimination: the solver Jacobian goes through the LFT, whose LU may leave
# rounding residue outside the structural pattern (it is dropped, not an error)
for mm in graphs/f14.json graphs/hires.json; do
    "$J" jacobian $mm --reduce none --method sparse-analytical --format json > "$d/jn.txt" 2>&1
    rc=$?
    "$J" jacobian $mm --method sparse-analytical --format json > "$d/jf.txt" 2>&1
    if command -v python3 >/dev/null; then
        python3 - "$d/jn.txt" "$d/jf.txt" <<'PY'
import json, sys
def entries(f):
    d = json.load(open(f))["J"]
    return {(i, j): x for i, j, x in zip(d["i"], d["j"], d["x"])}
a, b = entries(sys.argv[1]), entries(sys.argv[2])
scale = max(1.0, max(abs(x) for x in b.values()))
sys.exit(0 if max(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b)) <= 1e-12 * scale else 1)
PY
        rc=$((rc || $?))
    fi
    ok $rc "jacobian --reduce none on $mm: the LFT path gives the fully eliminated J_x"
done
"$J" bench $m --reduce minfill --repeat 1 --no-fork --no-matrix > "$d/b.txt" 2>&1
grep -q '(minfill elimination)' "$d/b.txt"
ok $? "bench --reduce minfill"
expect_fail "bench: an unknown strategy" 2 "unknown strategy 'nope'" "$J" bench $m --reduce nope
expect_fail "jacobian: an unknown strategy" 2 "unknown strategy 'nope'" "$J" jacobian $m --reduce nope
tap_done
