#!/usr/bin/env bash
# `jacgraph analyze` (TAP): the water tank's open-loop plant 0.25/(s + 0.0158)
# (pole, DC gain, transfer function, JSON keys), the mass-spring-damper's
# damping and natural frequency, the MIMO servo's invariant zeros, channel
# selection by name and index, the SVG pictures (Bode panels on a log axis,
# step, impulse, pole-zero map), a minimal realization, and bad options; a
# discrete model (poles = eig of linearize's A, the Nyquist frequency, the
# unit circle) and the time-domain options shared with linearize (the same
# messages); internal delays (refused, exact --freq and --bode).
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
WT=(graphs/watertank.json --input Controller:1 --output 'Water-Tank System:1' --open Controller:1 --no-default-io)

# ---- help and usage
"$J" analyze --help | grep -q -- '--bode FILE.svg'
ok $? "analyze --help describes --bode"
"$J" --help | grep -q '^  analyze '
ok $? "jacgraph --help lists analyze"
expect_fail "analyze without MODEL: exit 2" 2 "missing MODEL" "$J" analyze
expect_fail "analyze --bogus: exit 2" 2 "unknown option '--bogus'" "$J" analyze graphs/msd.mdl --bogus
expect_fail "analyze --format xml: exit 2" 2 "unknown --format 'xml' (text, json)" "$J" analyze graphs/msd.mdl --format xml
expect_fail "analyze --minreal -1: exit 2" 2 "--minreal must be a positive number" "$J" analyze graphs/msd.mdl --minreal -1
expect_fail "analyze --tfinal x: exit 2" 2 "--tfinal must be a positive number" "$J" analyze graphs/msd.mdl --tfinal x
expect_fail "analyze --channel unknown: exit 2" 2 "--channel 'F,nope': no input,output pair" "$J" analyze graphs/msd.mdl --channel F,nope
expect_fail "analyze --channel index out of range: exit 2" 2 "no input,output pair" "$J" analyze graphs/msd.mdl --channel 2,1
expect_fail "analyze --bode into a missing directory: exit 3" 3 "cannot write" "$J" analyze graphs/msd.mdl --bode "$d/none/b.svg"
expect_fail "analyze --input bad point: exit 2" 2 "" "$J" analyze graphs/msd.mdl --input Nope:1

# ---- the water tank: 0.25 / (s + 0.0158114)
out=$("$J" analyze "${WT[@]}" --tf)
ok $? "watertank open loop: exit 0"
grep -Eq '^ +-0\.0158114 +0 +1 +0\.0158114$' <<<"$out"
ok $? "watertank: pole -a/(2 sqrt(10)) = -0.0158114, damping 1, wn 0.0158114"
grep -q 'Water-Tank System:1 *15.8114$' <<<"$out"
ok $? "watertank: DC gain 0.25/0.0158114 = 15.8114"
grep -q 'G(s) = 0.25 / (s + 0.0158114)' <<<"$out"
ok $? "watertank: G(s) = 0.25 / (s + 0.0158114)"
grep -q 'zpk: 0.25 / (s + 0.0158114)' <<<"$out"
ok $? "watertank: zpk form"
grep -q 'observable:   no (rank 1 of 2); unobservable modes: 0' <<<"$out"
ok $? "watertank: the opened integrator is unobservable (mode 0)"
grep -q 'minimal realization: order 1' <<<"$out"
ok $? "watertank: minimal order 1"

"$J" analyze "${WT[@]}" --tf --format json --out "$d/wt.json"
ok $? "watertank --format json --out: exit 0"
python3 - "$d/wt.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for k in ("poles", "zeros", "dc_gain", "damping", "wn", "controllable", "observable", "minreal", "channels"):
    assert k in j, k
p = sorted(j["poles"])
assert abs(p[0][0] + 0.25 / 15.811388300841896) < 1e-12 and p[0][1] == 0 and p[1] == [0, 0], p
assert abs(j["dc_gain"][0][0] - 15.811388300841896) < 1e-9, j["dc_gain"]
c = j["channels"][0]
assert c["input"] == "Controller:1" and c["output"] == "Water-Tank System:1", c
assert abs(c["num"][-1] - 0.25) < 1e-12 and abs(c["den"][1] - 0.015811388300841896) < 1e-12, c
assert j["minreal"]["order"] == 1 and j["observable"]["rank"] == 1
PY
ok $? "watertank JSON: poles and zeros as [re, im], dc_gain rows, channel num/den"

# ---- mass-spring-damper: m x'' + c x' + k x = F, wn = 2, zeta = 0.15
out=$("$J" analyze graphs/msd.mdl --channel 'F,pos ' --tf)
ok $? "msd: exit 0"
grep -Eq '^ +-0\.3 +1\.97737 +0\.15 +2$' <<<"$out"
ok $? "msd: poles -0.3 +- 1.97737i, damping 0.15, wn 2"
grep -q 'G(s) = 0.5 / (s^2 + 0.6 s + 4)' <<<"$out"
ok $? "msd: G(s) = 0.5 / (s^2 + 0.6 s + 4)"
[ "$(grep -c '^channel ' <<<"$out")" = 1 ]
ok $? "msd: --channel 'F,pos ' (a name with a space) describes that channel only"
"$J" analyze graphs/msd.mdl --channel 1,2 | grep -q '^channel F -> three x:'
ok $? "msd: --channel by index (1,2)"
"$J" analyze graphs/msd.mdl --minreal 1e-9 | grep -q '^minimal realization: order 2 (tolerance 1e-09)'
ok $? "msd: --minreal prints the order with its tolerance"

# ---- MIMO servo: invariant zeros of the 2x2 closed loop
out=$("$J" analyze graphs/mimo_feedback.json --format json)
python3 - <<PY
import json
j = json.loads('''$out''')
z = sorted(r[0] for r in j["zeros"])
assert len(z) == 2 and abs(z[0] + 0.6) < 1e-9 and abs(z[1] + 3 / 7) < 1e-9, z
assert len(j["poles"]) == 7 and len(j["dc_gain"]) == 2 and len(j["dc_gain"][0]) == 2
g = j["dc_gain"]
assert abs(g[0][0] - 1) < 1e-9 and abs(g[1][1] - 1) < 1e-9 and abs(g[0][1]) < 1e-9, g
PY
ok $? "mimo_feedback: invariant zeros -0.6, -3/7; DC gain I (integral action)"

# ---- pictures
"$J" analyze graphs/mimo_feedback.json --bode "$d/b.svg" --step "$d/s.svg" --impulse "$d/i.svg" --pzmap "$d/p.svg" >/dev/null
ok $? "mimo_feedback: four SVGs written"
[ "$(grep -c 'class="panel"' "$d/b.svg")" = 2 ] && grep -q 'magnitude (dB)' "$d/b.svg" && grep -q 'phase (degrees)' "$d/b.svg"
ok $? "bode: two panels, magnitude (dB) and phase (degrees)"
grep -q '>0.01<' "$d/b.svg" && grep -q '>1000<' "$d/b.svg"
ok $? "bode: decades 0.01 .. 1000 around the poles"
[ "$(grep -c 'class="curve"' "$d/s.svg")" = 4 ] && grep -q 'Ref2 → Out1' "$d/s.svg"
ok $? "step: one curve per channel (4), named IN → OUT"
grep -q 'impulse response' "$d/i.svg"
ok $? "impulse: labelled"
grep -q 'poles (7)' "$d/p.svg" && grep -q 'zeros (2)' "$d/p.svg" && ! grep -q unit-circle "$d/p.svg"
ok $? "pzmap: 7 poles, 2 zeros, no unit circle (continuous)"
if command -v xmllint >/dev/null; then
    xmllint --noout "$d/b.svg" "$d/s.svg" "$d/i.svg" "$d/p.svg"
    ok $? "the SVGs are well-formed XML"
else
    skip "the SVGs are well-formed XML" "xmllint not installed"
fi

# ---- discrete time: the sampled PI loop analyzes at its rate, as linearize
out=$("$J" analyze graphs/sampled_pi.json)
grep -q '^sampled_pi: .*3 states, 0 inputs, 2 outputs, discrete (Ts = 0.1)$' <<<"$out"
ok $? "sampled_pi: discrete at its rate without options (3 states, Ts = 0.1)"
"$J" linearize graphs/sampled_pi.json --format json >"$d/pilin.json" &&
    "$J" analyze graphs/sampled_pi.json --format json --out "$d/pian.json"
ok $? "sampled_pi: linearize and analyze --format json"
py=/usr/bin/python3   # numpy: python3-numpy
if ! "$py" -c 'import numpy' 2>/dev/null; then
    skip "sampled_pi JSON: poles = eig(linearize's A)" "/usr/bin/python3 lacks numpy (python3-numpy)"
else
"$py" - "$d/pilin.json" "$d/pian.json" <<'PY'
import cmath, json, math, sys
import numpy as np
lin, an = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
A = np.zeros((len(lin["states"]),) * 2)
for i, j, x in zip(lin["A"]["i"], lin["A"]["j"], lin["A"]["x"]):
    A[i][j] = x
ev = sorted(np.linalg.eigvals(A), key=lambda z: (z.real, z.imag))
got = sorted((complex(r, i) for r, i in an["poles"]), key=lambda z: (z.real, z.imag))
assert an["ts"] == 0.1 and lin["Ts"] == 0.1, (an["ts"], lin["Ts"])
assert len(got) == 3 and max(abs(a - b) for a, b in zip(ev, got)) < 1e-12, (ev, got)
# damping and natural frequency of s = log(z) / Ts
for (r, i), z, wn in zip(an["poles"], an["damping"], an["wn"]):
    s = cmath.log(complex(r, i)) / 0.1
    assert abs(wn - abs(s)) < 1e-9 * abs(s) and abs(z + s.real / abs(s)) < 1e-9, (r, i, z, wn)
PY
ok $? "sampled_pi JSON: poles = eig(linearize's A) by numpy, ts 0.1, damping and wn of log(z)/Ts"
fi
out=$("$J" analyze graphs/sampled_pi.json --input Reference:1 --channel 1,1 --tf)
grep -q 'G(z) = (0.190325 z - 0.161776) / (z^3 - 1.90484 z^2 + 1.09516 z - 0.161776)' <<<"$out" &&
    grep -q 'zeros (1): 0.85$' <<<"$out"
ok $? "sampled_pi reference -> y: G(z) in z, the PI zero 1 - Ki Ts / Kp = 0.85"
"$J" analyze graphs/sampled_pi.json --input Reference:1 --bode "$d/db.svg" --step "$d/ds.svg" \
    --pzmap "$d/dp.svg" >/dev/null
ok $? "sampled_pi: --bode, --step, --pzmap written"
grep -q 'unit-circle' "$d/dp.svg" && grep -q 'poles (3)' "$d/dp.svg"
ok $? "discrete pzmap: the unit circle and 3 poles"
grep -q '<g class="xmark"><line x1="804.0"' "$d/db.svg" && grep -q 'Nyquist π/Ts = 31.42' "$d/db.svg"
ok $? "discrete Bode: ends at the Nyquist frequency pi/Ts (the right edge), marked"
grep -q 'discrete, Ts = 0.1' "$d/ds.svg"
ok $? "discrete step: subtitled with Ts"
out=$("$J" analyze graphs/sampled_pi.json --rate 0)
grep -q 'continuous$' <<<"$out" && grep -q '1 state, 0 inputs' <<<"$out"
ok $? "--rate 0: continuous, the discrete states held (as linearize)"
"$J" analyze graphs/vdp.json --ts 0.1 --c2d tustin | grep -q 'discrete (Ts = 0.1)$'
ok $? "--ts 0.1 --c2d tustin: a continuous result converted"
for args in "--rate x" "--c2d zoh" "--rate-conversion foh --rate 0.1" "--ts -1" "--ts 0.1 --rate 0.2" \
    "--delays pade:11" "--delays exact --ts 0.1" "--delays exact --rate 0.1"; do
    # shellcheck disable=SC2086
    el=$("$J" linearize graphs/vdp.json $args 2>&1 >/dev/null | sed 's/linearize/CMD/g')
    # shellcheck disable=SC2086
    ea=$("$J" analyze graphs/vdp.json $args 2>&1 >/dev/null | sed 's/analyze/CMD/g')
    [ -n "$el" ] && [ "$el" = "$ea" ]
    ok $? "analyze $args: the same usage error as linearize (${el%%$'\n'*})"
done
expect_fail "several rates need --rate (analyze)" 2 "choose the linear model's sample time (--rate TS)" \
    "$J" analyze tests/data/multirate.json
"$J" analyze tests/data/multirate.json --rate 0.2 | grep -q 'discrete (Ts = 0.2)$'
ok $? "multirate --rate 0.2: analyzed at 0.2"

# ---- internal delays: y/u = 1/(s + 1 + e^(-0.5 s))
DL=(tests/data/delay_loop.json --delays exact)
expect_fail "--delays exact alone: refused, naming the delay" 2 \
    "the linear model has 1 internal delay (Delay 0.5 s): its poles, zeros, DC gain" "$J" analyze "${DL[@]}"
expect_fail "--delays exact --step --tf: refused, naming what was asked" 2 "asked for --step, --tf:" \
    "$J" analyze "${DL[@]}" --step "$d/x.svg" --tf --bode "$d/x.svg"
[ ! -e "$d/x.svg" ]
ok $? "a refused analysis writes no picture"
"$J" analyze "${DL[@]}" --freq 0,0.3,1,2.5,7,20,100 --format json --out "$d/dl.json"
ok $? "--delays exact --freq --format json: exit 0"
python3 - "$d/dl.json" <<'PY'
import cmath, json, math, sys
j = json.load(open(sys.argv[1]))
assert j["delays"] == [{"name": "Delay", "tau": 0.5}] and j["inputs"] == ["In1"] and j["outputs"] == ["Out1"], j
assert "poles" not in j and "dc_gain" not in j
f = j["freqresp"][0]
prev = 0
for w, re, im, db, ph in zip(f["w"], f["re"], f["im"], f["mag_db"], f["phase_deg"]):
    g = 1 / (1j * w + 1 + cmath.exp(-0.5j * w))
    assert abs(complex(re, im) - g) < 1e-14 * abs(g), (w, re, im, g)
    assert abs(db - 20 * math.log10(abs(g))) < 1e-12 and abs(ph - prev) < 180, (w, db, ph)
    prev = ph
PY
ok $? "delay_loop --freq: H(jw) = 1/(jw + 1 + e^(-0.5jw)) exactly at 7 frequencies"
out=$("$J" analyze "${DL[@]}" --bode "$d/dlb.svg")
ok $? "--delays exact --bode: exit 0"
grep -q '1 internal delay (Delay 0.5 s)' <<<"$out" && grep -q '^exact with the delays: the frequency response' <<<"$out"
ok $? "--delays exact: the description names the delay and what is exact"
grep -q 'exact internal delays' "$d/dlb.svg" && [ "$(grep -c 'class="panel"' "$d/dlb.svg")" = 2 ] &&
    grep -q '>0.1<' "$d/dlb.svg" && grep -q '>100<' "$d/dlb.svg"
ok $? "--delays exact Bode: two panels, 0.1 .. 100 rad/s, subtitled exact"
"$J" analyze tests/data/delay_loop.json --delays pade:4 --bode "$d/dpb.svg" --tf | grep -q 'G(s) = '
ok $? "--delays pade:4: every analysis of the approximation"
grep -q 'delays: Pade order 4' "$d/dpb.svg"
ok $? "--delays pade:4 Bode: subtitled with the order"
"$J" analyze graphs/msd.mdl --channel 'F,pos ' --freq 2 | grep -Eq '^ +2 +[-0-9.e]+ +-0.416667 +-7.60422 +-90$'
ok $? "msd --freq 2: G(2j) = 0.5/(4 - 4 + 1.2j) = -0.416667j"
expect_fail "--freq x: exit 2" 2 "--freq expects up to 256 frequencies >= 0" "$J" analyze graphs/msd.mdl --freq x
expect_fail "no inputs: nothing to plot names --input" 2 "nothing to plot (linearization points: --input" \
    "$J" analyze graphs/sampled_pi.json --bode "$d/n.svg"

echo "1..$n"
[ "$fails" -eq 0 ]
