#!/usr/bin/env bash
# simulate --solver lie with a sparsing (TAP): --sparsing-mask FILE (JSON with
# indices or state names, Matrix Market) and --sparsing auto on the pipe model
# of "Sparsing of Jacobians" (graphs/pipe.json, its candidate sparsing
# graphs/masks/pipe_mask.json); the --stats lines; the same mask in three
# notations gives the same trajectory; the usage errors and refused masks.
set -u
. "$(dirname "$0")/tap.sh"
M=$top/graphs/pipe.json
MASK=$top/graphs/masks/pipe_mask.json
run=(simulate "$M" --solver lie --step 1e-3 --stop 0.2 --out-step 0.05 --no-progress)

"$J" "${run[@]}" --stats >"$d/full.csv" 2>"$d/full.err"
ok $? "lie without a sparsing"
grep -q "sparsing" "$d/full.err"
[ $? -ne 0 ]
ok $? "no sparsing line without a sparsing"

# ---- the paper's candidate: bidiagonal, the canning block (lower right 5x5) dropped
"$J" "${run[@]}" --stats --sparsing-mask "$MASK" >"$d/mask.csv" 2>"$d/mask.err"
ok $? "--sparsing-mask graphs/masks/pipe_mask.json"
line=$(grep "^pipe: sparsing:" "$d/mask.err")
ndrop=$(grep -o '\[ *[0-9]*, *[0-9]*\]' "$MASK" | wc -l)
grep -q "^pipe: sparsing: $ndrop of [0-9]* entries of J_x dropped" <<<"$line"
ok $? "stats: the mask's $ndrop entries dropped ($line)"
# entries computed N -> K, f evaluations, colors, LU fill: each with -> without
nums=$(sed -E 's/.*entries computed ([0-9]+) -> ([0-9]+), f evaluations ([0-9]+) -> ([0-9]+), colors ([0-9]+) -> ([0-9]+); LU fill of I - hJ ([0-9]+) -> ([0-9]+).*/\1 \2 \3 \4 \5 \6 \7 \8/' <<<"$line")
read -r e0 e1 f0 f1 c0 c1 l0 l1 <<<"$nums"
[ "$e1" -eq $((e0 - ndrop)) ] && [ "$c1" -le "$c0" ] && [ "$l1" -lt "$l0" ]
ok $? "stats: fewer entries ($e0 -> $e1) and LU fill ($l0 -> $l1), colors $c0 -> $c1"
grep -q "measured [0-9.]* f evaluations per Jacobian" <<<"$line"
ok $? "stats: the measured f evaluations per Jacobian"
cmp -s "$d/full.csv" "$d/mask.csv"
[ $? -ne 0 ] && [ "$(wc -l <"$d/mask.csv")" -eq "$(wc -l <"$d/full.csv")" ]
ok $? "the sparsed trajectory differs from the full one, on the same output points"

# sparse perturbation: the f evaluations per Jacobian are the colors
"$J" "${run[@]}" --stats --sparsing-mask "$MASK" --jacobian sparse-perturbation >"$d/sp.csv" 2>"$d/sp.err"
ok $? "--jacobian sparse-perturbation with the mask"
spl=$(grep "^pipe: sparsing:" "$d/sp.err")
f=$(sed -E 's/.*f evaluations ([0-9]+) -> ([0-9]+), colors ([0-9]+) -> ([0-9]+);.*measured ([0-9.]+) f.*/\1 \2 \3 \4 \5/' <<<"$spl")
read -r f0 f1 c0 c1 meas <<<"$f"
[ "$f0" = "$c0" ] && [ "$f1" = "$c1" ] && [ "$meas" = "$f1" ]
ok $? "sparse perturbation: f evaluations = colors, $f0 -> $f1, measured $meas per Jacobian"
# full perturbation: one f per column with a kept entry; the canning's 5
# columns (TC) keep nothing
"$J" "${run[@]}" --stats --sparsing-mask "$MASK" --jacobian full-perturbation >/dev/null 2>"$d/fp.err"
grep -q "f evaluations 25 -> 20, .*measured 20 f evaluations per Jacobian" "$d/fp.err"
ok $? "full perturbation: f evaluations per Jacobian 25 -> 20, measured 20"
# the kept entries are exact, so the analytical and perturbed runs agree closely
paste -d, "$d/sp.csv" "$d/mask.csv" | awk -F, 'NR > 1 { h = NF / 2; for (i = 2; i <= h; i++) {
    a = $i; b = $(i + h); e = a - b; if (e < 0) e = -e; s = (a < 0 ? -a : a) + 1e-300;
    if (e / s > m) m = e / s } } END { exit !(m < 1e-5) }'
ok $? "sparse perturbation and analytical with the same mask agree (relative 1e-5)"

# ---- the same mask with state names, and as Matrix Market
names=$("$J" info "$M" | sed -n '/^states:/,/^$/p' | awk 'NF == 2 { print $2 }')
mapfile -t nm <<<"$names"
{
    echo '{"drop": ['
    grep -o '\[ *[0-9]*, *[0-9]*\]' "$MASK" | tr -d '[] ' | awk -F, -v n="${#nm[@]}" '{ print $1, $2 }' |
        while read -r i j; do echo "[\"${nm[$i]}\", \"${nm[$j]}\"],"; done | sed '$ s/,$//'
    echo ']}'
} >"$d/names.json"
"$J" "${run[@]}" --sparsing-mask "$d/names.json" >"$d/names.csv" 2>"$d/names.err"
cmp -s "$d/names.csv" "$d/mask.csv"
ok $? "the mask with state names gives the same trajectory"
{
    echo '%%MatrixMarket matrix coordinate pattern general'
    echo "% $MASK, 1-based"
    echo "25 25 $ndrop"
    grep -o '\[ *[0-9]*, *[0-9]*\]' "$MASK" | tr -d '[] ' | awk -F, '{ print $1 + 1, $2 + 1 }'
} >"$d/mask.mtx"
"$J" "${run[@]}" --sparsing-mask "$d/mask.mtx" >"$d/mtx.csv" 2>"$d/mtx.err"
cmp -s "$d/mtx.csv" "$d/mask.csv"
ok $? "the mask as Matrix Market gives the same trajectory"
echo '{"drop": []}' >"$d/empty.json"
"$J" "${run[@]}" --sparsing-mask "$d/empty.json" >"$d/empty.csv" 2>/dev/null
cmp -s "$d/empty.csv" "$d/full.csv"
ok $? "an empty mask changes nothing"

# ---- automatic choice
"$J" "${run[@]}" --stats --sparsing auto >"$d/auto.csv" 2>"$d/auto.err"
ok $? "--sparsing auto"
grep -q "^pipe: sparsing auto at t0: d1 [0-9.e+-]* < C1 [0-9.e+-]* holds, d2 [0-9.e+-]* < C2 [0-9.e+-]* holds, 0 explicit states$" "$d/auto.err"
ok $? "auto: both checks hold at t0 ($(grep 'sparsing auto' "$d/auto.err"))"
"$J" "${run[@]}" --stats --sparsing auto --mixed-mode --slow-threshold 0.5 >"$d/mixed.csv" 2>"$d/mixed.err"
ok $? "--sparsing auto --mixed-mode --slow-threshold 0.5"
grep -q "explicit state" "$d/mixed.err"
ok $? "mixed mode: the explicit states reported"

# ---- errors
expect_err "--sparsing with a number: the tolerance criterion is gone" 2 \
    "jacgraph simulate: --sparsing expects 'auto' (or --sparsing-mask FILE), got '1e-3'
see 'jacgraph simulate --help'" \
    "$J" "${run[@]}" --sparsing 1e-3
expect_err "--sparsing auto and --sparsing-mask together" 2 \
    "jacgraph simulate: --sparsing auto and --sparsing-mask exclude each other
see 'jacgraph simulate --help'" \
    "$J" "${run[@]}" --sparsing auto --sparsing-mask "$MASK"
expect_err "--mixed-mode without --sparsing auto" 2 \
    "jacgraph simulate: --mixed-mode goes with --sparsing auto
see 'jacgraph simulate --help'" \
    "$J" "${run[@]}" --mixed-mode
expect_err "--slow-threshold without --sparsing auto" 2 \
    "jacgraph simulate: --slow-threshold goes with --sparsing auto
see 'jacgraph simulate --help'" \
    "$J" "${run[@]}" --slow-threshold 0.1
expect_err "a sparsing with another solver" 2 \
    "jacgraph: error: sparsing applies to the linearly implicit Euler solver 'lie', not 'ode15s'" \
    "$J" simulate "$M" --solver ode15s --stop 0.1 --no-progress --sparsing-mask "$MASK"
echo '{"drop": [[0, 25]]}' >"$d/bad.json"
expect_err "a mask index out of range" 2 \
    "jacgraph: error: $d/bad.json: \"drop\" entry 1: column 25 outside 0..24 (0-based, 25 states)" \
    "$J" "${run[@]}" --sparsing-mask "$d/bad.json"
echo '{"drop": [[0, 24]]}' >"$d/zero.json"
expect_err "a mask entry outside J's pattern" 2 \
    "jacgraph: error: sparsing: entry 1 to drop, (0, 24) (${nm[0]} <- ${nm[24]}), is not in the structural pattern of J_x" \
    "$J" "${run[@]}" --sparsing-mask "$d/zero.json"
"$J" "${run[@]}" --sparsing-mask "$d/missing.json" >/dev/null 2>"$d/missing.err"
rc=$?
[ $rc -ne 0 ] && grep -q "missing.json: cannot open" "$d/missing.err"
ok $? "a missing mask file fails naming it (exit $rc)"
tap_done
