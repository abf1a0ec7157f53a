#!/usr/bin/env bash
# `jacgraph linearize` in discrete time (TAP): a model with discrete states at
# one rate linearizes to that rate (Ts in text, json and mm), --rate 0 holds
# the discrete states (continuous), several rates need --rate (the error names
# them), --rate-conversion, --ts/--c2d on a continuous result, and the usage
# errors.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"

out=$("$J" linearize graphs/sampled_pi.json)
grep -q '^discrete time, Ts = 0.1$' <<<"$out" && grep -q '^Ts = 0.1 (discrete time' <<<"$out" &&
    grep -q 'states: 3, inputs: 0, outputs: 2' <<<"$out"
ok $? "sampled_pi: discrete at its rate, 3 states (plant, integrator, delay)"

"$J" linearize graphs/sampled_pi.json --format json >"$d/pi.json" &&
    python3 -c "
import json, math, sys
s = json.load(open('$d/pi.json'))
a = math.exp(-0.1)
A = [[0.0] * 3 for _ in range(3)]
for i, j, x in zip(s['A']['i'], s['A']['j'], s['A']['x']):
    A[i][j] = x
want = [[a, 0, 1 - a], [-0.3, 1, 0], [-2, 1, 0]]
sys.exit(0 if s['Ts'] == 0.1 and all(abs(A[i][j] - want[i][j]) < 1e-14 for i in range(3) for j in range(3)) else 1)
"
ok $? "sampled_pi json: Ts 0.1 and the hand ZOH matrix"

"$J" linearize graphs/sampled_pi.json --format mm --out "$d/pi" && grep -qx '% Ts = 0.10000000000000001' "$d/pi_A.mtx"
ok $? "sampled_pi mm: the Ts comment line"

out=$("$J" linearize graphs/sampled_pi.json --rate 0)
grep -q '^Ts = 0 (continuous time)$' <<<"$out" && grep -q 'states: 1, inputs: 0, outputs: 2' <<<"$out"
ok $? "--rate 0: continuous, the discrete states held"

"$J" linearize graphs/vdp.json --format json | grep -q '"Ts": 0.0'
ok $? "a continuous model: Ts 0 in json"

expect_fail "several rates need --rate, naming them" 2 \
    "the model has several sample times (0.1, 0.2): choose the linear model's sample time (--rate TS)" \
    "$J" linearize tests/data/multirate.json

out=$("$J" linearize tests/data/multirate.json --rate 0.2 --digits 10)
grep -q '^Ts = 0.2 (discrete' <<<"$out" && grep -q '0.8187307531' <<<"$out"
ok $? "multirate at --rate 0.2: e^-0.2 in A"

"$J" linearize tests/data/multirate.json --rate 0.2 --rate-conversion prewarp:5 >/dev/null &&
    "$J" linearize tests/data/multirate.json --rate 0.2 --rate-conversion tustin >/dev/null
ok $? "--rate-conversion tustin and prewarp:W"

expect_fail "--rate-conversion: unknown method" 2 "unknown --rate-conversion 'foh'" \
    "$J" linearize tests/data/multirate.json --rate 0.2 --rate-conversion foh

out=$("$J" linearize graphs/vdp.json --ts 0.1 --c2d tustin)
grep -q '^discrete time, Ts = 0.1$' <<<"$out"
ok $? "--ts 0.1 --c2d tustin converts a continuous result"
"$J" linearize graphs/vdp.json --ts 0.1 >/dev/null && "$J" linearize graphs/vdp.json --ts 0.1 --c2d foh >/dev/null
ok $? "--ts with zoh (default) and foh"

expect_fail "--c2d without --ts" 2 "--c2d goes with --ts T" "$J" linearize graphs/vdp.json --c2d zoh
expect_fail "--ts on a discrete result" 2 "use --rate for another sample time" \
    "$J" linearize graphs/sampled_pi.json --ts 0.2
expect_fail "--rate must be a number" 2 "--rate must be a sample time" \
    "$J" linearize graphs/sampled_pi.json --rate x

tap_done
