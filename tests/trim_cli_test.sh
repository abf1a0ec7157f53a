#!/usr/bin/env bash
# `jacgraph trim` (TAP): a specification file, discrete and mixed continuous
# and discrete fixed points (analytic update Jacobians), its errors (unknown keys and
# names with "did you mean", exit 2), an infeasible specification (exit 5, the
# violated specifications named, the best point printed and written), and the
# --out file read back by `linearize --op`.  Also `linearize --at`: a time's
# snapshot is the same alone and among other times, --op is its starting
# point, and --solver/--rtol/--atol/--max-step are taken.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
T=tests/data/trim

# ---- help and usage
"$J" trim --help | grep -q -- '--spec FILE'
ok $? "trim --help describes --spec"
expect_fail "trim without MODEL: exit 2" 2 "missing MODEL" "$J" trim
expect_fail "trim --tol 0: exit 2" 2 "--tol must be a positive number" "$J" trim graphs/vdp.json --tol 0
expect_fail "trim --bogus: exit 2" 2 "unknown option" "$J" trim graphs/vdp.json --bogus

# ---- the water tank: H = 10 known, the pump voltage V = a sqrt(10) / b
cat >"$d/tank.json" <<'EOF'
{"states": {"Water-Tank System/H": {"value": 10, "known": true},
            "Controller/Integrator": {"value": 0, "min": 0}}}
EOF
out=$("$J" trim graphs/watertank.json --spec "$d/tank.json" --out "$d/tank_op.json")
ok $? "trim watertank with a spec: exit 0"
grep -q '^  Controller/Integrator  1.26491106406735 ' <<<"$out"
ok $? "watertank: V = a sqrt(10)/b = 1.26491106406735"
grep -q 'operating point found' <<<"$out" && grep -q '^  d/dt Water-Tank System/H' <<<"$out"
ok $? "watertank: the report names the equations and their residuals"
grep -Eq '"Controller/Integrator": 1.26491106406735[0-9]*,' "$d/tank_op.json"
ok $? "watertank: --out holds V (17 digits)"
lin=$("$J" linearize graphs/watertank.json --op "$d/tank_op.json")
ok $? "linearize --op reads the trimmed point"
grep -q 'Water-Tank System/H *0.25 *-0.415811' <<<"$lin"
ok $? "watertank: A at the trimmed point = [0 -0.04; 0.25 -0.415811]"

# ---- an input that holds an output: y = x^2 + x = 6 gives x = 2, u = 4
echo '{"outputs": {"y": {"value": 6, "known": true}}}' >"$d/y6.json"
"$J" trim $T/outspec.json --spec "$d/y6.json" --out "$d/y6_op.json" >"$d/y6.txt"
ok $? "outspec y = 6: exit 0"
grep -q '"u": 4' "$d/y6_op.json" && grep -q '"x": 2' "$d/y6_op.json"
ok $? "outspec: u = 4, x = 2 in the op file"
"$J" linearize $T/outspec.json --op "$d/y6_op.json" | grep -q '^   y *5$'
ok $? "outspec: linearize --op gives C = 2x + 1 = 5"

# ---- a discrete fixed point: x = cos(x), by the blocks' analytic update
# Jacobians (no "columns by differences" line)
"$J" trim $T/dfixed.json >"$d/dfixed.txt"
grep -q '^  x  *0.739085133215161 ' "$d/dfixed.txt"
ok $? "dfixed: the discrete state at the Dottie number"
! grep -q 'by differences' "$d/dfixed.txt"
ok $? "dfixed: no Jacobian column differenced"

# ---- continuous and discrete states together: x^3 = d, d = 0.5 x + u, w = d / 0.56
cat >"$d/mix.json" <<'EOF'
{"outputs": {"W": {"value": 5, "known": true}}, "states": {"x": {"value": 1}}}
EOF
"$J" trim $T/dmix.json --spec "$d/mix.json" >"$d/mix.txt"
ok $? "dmix W = 5: exit 0"
grep -q '^  In1  *2.09527012679351 ' "$d/mix.txt" && grep -q '^  d  *2.8 ' "$d/mix.txt" &&
    grep -q '^  x  *1.40945974641298 ' "$d/mix.txt"
ok $? "dmix: In1 = 2.8 - cbrt(2.8)/2, d = 2.8, x = cbrt(2.8)"
! grep -q 'by differences' "$d/mix.txt" && ! grep -q '^  M ' "$d/mix.txt"
ok $? "dmix: no column differenced; the Memory is held, not a trim state"

# ---- bad specifications: exit 2, naming the file and the key
echo '{"states": {"Water-Tank System/h": {"value": 1}}}' >"$d/bad1.json"
expect_err "unknown state: did you mean" 2 \
    "jacgraph: error: $d/bad1.json: unknown state \"Water-Tank System/h\"; did you mean \"Water-Tank System/H\"?" \
    "$J" trim graphs/watertank.json --spec "$d/bad1.json"
echo '{"outputs": {"y": {"valeu": 6}}}' >"$d/bad2.json"
expect_err "unknown entry key: did you mean" 2 \
    "jacgraph: error: $d/bad2.json: outputs \"y\": unknown key \"valeu\"; did you mean \"value\"? (expected value, known, min, max)" \
    "$J" trim $T/outspec.json --spec "$d/bad2.json"
echo '{"input": {}}' >"$d/bad3.json"
expect_fail "unknown section: did you mean" 2 "unknown key \"input\"; did you mean \"inputs\"?" \
    "$J" trim $T/outspec.json --spec "$d/bad3.json"
echo '{"inputs": {"u": {"steady": false}}}' >"$d/bad4.json"
expect_fail "steady on an input: exit 2" 2 "\"steady\" applies to states only" \
    "$J" trim $T/outspec.json --spec "$d/bad4.json"
echo '{"states": ' >"$d/bad5.json"
expect_fail "malformed JSON: exit 4 with line and column" 4 "$d/bad5.json:2:0: unexpected" \
    "$J" trim $T/outspec.json --spec "$d/bad5.json"
expect_fail "missing spec file: exit 3" 3 "$d/none.json: cannot read" \
    "$J" trim $T/outspec.json --spec "$d/none.json"
expect_fail "bad output point: exit 2" 2 "Nope" "$J" trim $T/outspec.json --output Nope:1

# ---- infeasible: y = 6 needs u = 4 but u <= 3
echo '{"outputs": {"y": {"value": 6, "known": true}}, "inputs": {"u": {"max": 3}}}' >"$d/inf.json"
"$J" trim $T/outspec.json --spec "$d/inf.json" --out "$d/inf_op.json" >"$d/inf.txt" 2>"$d/inf.err"
ok $([ $? -eq 5 ] && echo 0 || echo 1) "infeasible: exit 5"
grep -q 'violated: d/dt x (residual .*); y = 6 (residual ' "$d/inf.err"
ok $? "infeasible: stderr names the violated specifications"
sed 's/^/#   /' "$d/inf.err"
grep -q 'NO operating point meets the specification; best point' "$d/inf.txt" &&
    grep -q '^  u  *3  *free' "$d/inf.txt"
ok $? "infeasible: the best point is printed (u at its bound 3)"
"$J" linearize $T/outspec.json --op "$d/inf_op.json" >/dev/null
ok $? "infeasible: the best point's file reads back"

# ---- snapshots: a time alone and among others agree (each is its own run)
block() {   # block T FILE: the text system linearized at t = T
    awk -v t="$1" '/linearized at t = / {on = ($0 ~ ("t = " t " by"))} on' "$2"
}
"$J" linearize graphs/vdp.json --at 2 --digits 17 >"$d/at1.txt"
"$J" linearize graphs/vdp.json --at 0.5,2,9 --digits 17 >"$d/at3.txt"
[ -n "$(block 2 "$d/at1.txt")" ] && [ "$(block 2 "$d/at1.txt")" = "$(block 2 "$d/at3.txt")" ]
ok $? "--at 2 alone and in 0.5,2,9 give the same system"
"$J" linearize graphs/vdp.json --at 3 --solver ode23 --rtol 1e-8 --atol 1e-10 --max-step 0.05 --digits 17 >"$d/at4.txt"
"$J" linearize graphs/vdp.json --at 1,3,7 --solver ode23 --rtol 1e-8 --atol 1e-10 --max-step 0.05 --digits 17 >"$d/at5.txt"
[ -n "$(block 3 "$d/at4.txt")" ] && [ "$(block 3 "$d/at4.txt")" = "$(block 3 "$d/at5.txt")" ]
ok $? "--at with ode23 and tolerances: alone and among others the same"
# two solvers at tight tolerances agree with each other to the tolerance
"$J" linearize graphs/vdp.json --at 3 --rtol 1e-10 --atol 1e-12 --format json >"$d/at6.json"
"$J" linearize graphs/vdp.json --at 3 --solver ode23 --rtol 1e-10 --atol 1e-12 --format json >"$d/at7.json"
a6=$(tr -d ' \n' <"$d/at6.json" | sed 's/.*"A":{[^}]*"x":\[\([^]]*\)\].*/\1/')
a7=$(tr -d ' \n' <"$d/at7.json" | sed 's/.*"A":{[^}]*"x":\[\([^]]*\)\].*/\1/')
awk -v a="$a6" -v b="$a7" 'BEGIN {n = split(a, x, ","); split(b, y, ","); d = 0
    for (k = 1; k <= n; k++) { e = x[k] - y[k]; if (e < 0) e = -e; if (e > d) d = e }
    exit !(n == 3 && d < 1e-6) }'
ok $? "--at 3: ode45 and ode23 at rtol 1e-10 agree within 1e-6 ($a6 / $a7)"
# --op: the snapshot starts at the file's t and states
echo '{"t": 1, "states": {"x1": 1, "x2": 0.5}}' >"$d/op.json"
"$J" linearize graphs/vdp.json --op "$d/op.json" --at 1 | grep -q '^   x2  *-2  *0$'
ok $? "--at with --op starts at the file's point (A(2,:) = [-1-2 x1 x2, 1-x1^2] = [-2 0])"
expect_fail "--at before the op's t: exit 2" 2 "before the operating point's t = 1" \
    "$J" linearize graphs/vdp.json --op "$d/op.json" --at 0.5
expect_fail "--solver without --at: exit 2" 2 "go with --at" "$J" linearize graphs/vdp.json --solver ode23
expect_fail "--at with an unknown solver: exit 2" 2 "unknown solver 'bogus'" \
    "$J" linearize graphs/vdp.json --at 1 --solver bogus
expect_fail "--rtol -1: exit 2" 2 "--rtol must be a positive number" \
    "$J" linearize graphs/vdp.json --at 1 --rtol -1

tap_done
