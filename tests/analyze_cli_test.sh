#!/usr/bin/env bash
# `jacgraph analyze` (TAP): the water tank's open-loop plant 0.25/(s + 0.0158)
# (pole, DC gain, transfer function, JSON keys), the mass-spring-damper's
# damping and natural frequency, the MIMO servo's invariant zeros, channel
# selection by name and index, the SVG pictures (Bode panels on a log axis,
# step, impulse, pole-zero map), a minimal realization, and bad options.
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

echo "1..$n"
[ "$fails" -eq 0 ]
