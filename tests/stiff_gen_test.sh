#!/usr/bin/env bash
# `jacgraph generate brusselator` (TAP): the stiff model family of the
# stiff-solver benchmark (docs/generator.md).  Models of several sizes compile with the
# documented grid and 25 blocks; the parameters and initial values are the
# documented ones (Hairer & Wanner's BRUSS-2D: A = 1, B = 3.4, alpha = 0.1,
# u0 = 22 y (1 - y)^(3/2), v0 = 27 x (1 - x)^(3/2)); `jacgraph check` passes;
# J_x has the 5-point-stencil pattern and the analytic values at x0; the
# output is deterministic per seed; usage errors; and, when the benchmark
# build exists, an ode15s run of the diagram ends where the hand-written CVODE
# program (benchmarks/stiff_hand.c) ends.
set -u
. "$(dirname "$0")/tap.sh"

gen() { "$J" generate brusselator "$@"; }

# ---- sizes: states, grid, blocks, compiles
for spec in "18 3x3" "98 7x7" "100 5x10" "1000 20x25" "10000 50x100"; do
    set -- $spec
    err=$(gen --states "$1" --seed 3 --out "$d/m$1.json" 2>&1)
    rc=$?
    grep -q "25 blocks (0 SubSystems), $1 states, .*grid $2," <<<"$err"
    ok $(( rc | $? )) "generate brusselator --states $1: 25 blocks, grid $2 (summary line)"
    info=$("$J" info "$d/m$1.json" 2>&1)
    grep -q "25 blocks (17 non-virtual), $1 states, 0 inputs, 0 outputs, 0 algebraic loops" <<<"$info"
    ok $? "--states $1 compiles: 25 blocks, $1 states, no algebraic loop"
done

# ---- parameters of the 5x10 grid: alpha nx^2 = 2.5, alpha ny^2 = 10,
#      KU = -(B + 1) - 2 alpha (nx^2 + ny^2) = -29.4, KV = -25, KB = B = 3.4
gen --states 100 --seed 0 --out "$d/h.json" -q
ok $? "generate --seed 0"
for kv in GUX:2.5 GVX:2.5 GUY:10 GVY:10 KU:-29.4 KV:-25 KB:3.4; do
    grep -q "{\"name\":\"${kv%%:*}\",\"type\":\"Gain\",\"Gain\":${kv#*:}}" "$d/h.json"
    ok $? "5x10 grid: Gain ${kv%%:*} = ${kv#*:}"
done
# Hairer's initial values, rounded to 1e-4 (seed 0: no perturbation):
# element k = i + 5 j at ((i + 1)/5, (j + 1)/10); u0 varies along y, v0 along x
ics() {   # ics NAME: the InitialCondition list of block NAME, one value a line
    sed -n "s/.*{\"name\":\"$1\",\"type\":\"Integrator\",\"InitialCondition\":\[\([^]]*\)\].*/\1/p" "$d/h.json" | tr ',' '\n'
}
awk 'function f(c, w) { return c * w * (1 - w) ^ 1.5 }
     NR == FNR { u[NR - 1] = $1; next } { v[FNR - 1] = $1 }
     END {
       bad = 0
       for (k = 0; k < 50; k++) {
         i = k % 5; j = int(k / 5)
         if ((u[k] - f(22, (j + 1) / 10))^2 > 0.51e-4^2 || (v[k] - f(27, (i + 1) / 5))^2 > 0.51e-4^2) bad++
       }
       if (length(u) != 50 || length(v) != 50) bad++
       exit bad > 0
     }' <(ics U) <(ics V)
ok $? "seed 0: u0 = 22 y (1-y)^1.5 and v0 = 27 x (1-x)^1.5 to 1e-4 on the 5x10 grid"
# neighbours: UE of element 1 (i = 0, j = 0) is element 2, UW element 5,
# UN element 6, US element 46 (periodic)
for sv in UE:2,3,4,5,1 UW:5,1,2,3,4 UN:6,7,8,9,10 US:46,47,48,49,50; do
    grep -q "{\"name\":\"${sv%%:*}\",\"type\":\"Selector\",\"Indices\":\[${sv#*:}," "$d/h.json"
    ok $? "Selector ${sv%%:*} starts ${sv#*:} (periodic 5-point stencil)"
done

# ---- graph, matrix and perturbation agree
"$J" check "$d/h.json" >"$d/check.out" 2>&1
ok $? "jacgraph check passes on the 100-state model"
"$J" check "$d/m18.json" >/dev/null 2>&1
ok $? "jacgraph check passes on the 18-state model (3x3 grid)"

# ---- J_x: 6 entries per row, and the analytic values at x0
#   d(u')/du at element 1 = KU + 2 u v,  d(u')/dv = u^2,  d(v')/du = B - 2 u v
#   with u = 1.8784 (22 * 0.1 * 0.9^1.5), v = 3.8639 (27 * 0.2 * 0.8^1.5)
if "$J" jacobian "$d/h.json" --method sparse-analytical >"$d/jac.out" 2>&1; then
    grep -q "pattern: 600 of 10000 entries (6%), at most 6 in a row" "$d/jac.out"
    ok $? "J_x pattern: 600 entries, 6 in every row"
    entry() { sed -n "s/^ *($1, $2)  *//p" "$d/jac.out"; }
    awk -v a="$(entry 'U(1)' 'U(1)')" -v b="$(entry 'U(1)' 'V(1)')" -v c="$(entry 'V(1)' 'U(1)')" \
        -v e="$(entry 'U(2)' 'U(1)')" -v g="$(entry 'U(6)' 'U(1)')" 'BEGIN {
          u = 1.8784; v = 3.8639
          d = (a - (-29.4 + 2 * u * v))^2 + (b - u * u)^2 + (c - (3.4 - 2 * u * v))^2 + (e - 2.5)^2 + (g - 10)^2
          exit !(a != "" && d < 1e-20) }'
    ok $? "J_x at x0: KU + 2uv, u^2, B - 2uv, alpha nx^2, alpha ny^2"
else
    skip "J_x pattern" "jacgraph jacobian failed: $(head -1 "$d/jac.out")"
    skip "J_x values" "jacgraph jacobian failed"
fi

# ---- deterministic per seed
gen --states 1000 --seed 7 -q >"$d/a.json" && gen --states 1000 --seed 7 -q >"$d/b.json"
cmp -s "$d/a.json" "$d/b.json"
ok $? "same --states and --seed: the same bytes"
gen --states 1000 --seed 7 --out "$d/c.json" -q
cmp -s "$d/a.json" "$d/c.json"
ok $? "--out FILE writes what standard output gets"
gen --states 1000 --seed 8 -q >"$d/e.json"
! cmp -s "$d/a.json" "$d/e.json"
ok $? "another seed: other initial values"
cmp -s <(grep -v '"InitialCondition"' "$d/a.json" | sed 1,3d) <(grep -v '"InitialCondition"' "$d/e.json" | sed 1,3d)
ok $? "another seed: the same blocks and lines (only the initial values differ)"
cmp -s <(gen --states 100 --seed 0 -q) "$d/h.json"
ok $? "seed 0: the same bytes again"

# ---- usage errors
expect_err "odd state count" 2 "jacgraph generate: --states 1001 is not 2 nx ny with 3 <= nx <= ny (nx the largest such divisor); nearest: 1000 or 1002
see 'jacgraph generate --help'" "$J" generate brusselator --states 1001
expect_err "a grid thinner than 3" 2 "jacgraph generate: --states 22 is not 2 nx ny with 3 <= nx <= ny (nx the largest such divisor); nearest: 18 or 24
see 'jacgraph generate --help'" "$J" generate brusselator --states 22
expect_err "--blocks with brusselator" 2 "jacgraph generate: brusselator takes --states N, not --blocks
see 'jacgraph generate --help'" "$J" generate brusselator --blocks 100
expect_err "--states with another kind" 2 "jacgraph generate: --states applies to KIND brusselator only
see 'jacgraph generate --help'" "$J" generate power --states 100 --blocks 100
expect_err "--states below 18" 2 "jacgraph generate: --states must be an integer from 18 to 10000000 (10k, 1M), not '10'
see 'jacgraph generate --help'" "$J" generate brusselator --states 10

# ---- the same ODE as the hand-written CVODE program: ode15s on the diagram
#      (seed 0, Hairer's x0) against benchmarks/stiff_hand.c over [0, 0.1]
hand=$(dirname "$(dirname "$J")")/benchmarks/stiff_hand
if [ -x "$hand" ]; then
    h=$("$hand" 5 10 0.1 1e-8 1e-8 2>&1)
    hsum=$(sed -n 's/.*sum x = \([^,]*\),.*/\1/p' <<<"$h")
    "$J" simulate "$d/h.json" --solver ode15s --stop 0.1 --rtol 1e-8 --atol 1e-8 --max-step 0.002 \
        --jacobian sparse-analytical --out "$d/sim.csv" 2>"$d/sim.err"
    rc=$?
    dsum=$(tail -1 "$d/sim.csv" | awk -F, '{ s = 0; for (k = 2; k <= 101; k++) s += $k; printf "%.12g", s }')
    awk -v a="$hsum" -v b="$dsum" 'BEGIN { exit !(a != "" && (a - b)^2 < (1e-9 * a)^2) }'
    ok $(( rc | $? )) "ode15s on the diagram ends where stiff_hand ends (sum x: $dsum vs $hsum)"
else
    skip "ode15s vs stiff_hand" "$hand not built"
fi

tap_done
