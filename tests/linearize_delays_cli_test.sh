#!/usr/bin/env bash
# `jacgraph linearize --delays` (TAP) on tests/data/delay_loop.json, the plant
# 1/(s+1) with a 0.5 s TransportDelay (PadeOrder 3) in its feedback: exact
# delays in text and json (the delay-free H and "InternalDelay"), the m script
# run in Octave (when octave-cli exists) and the py script and MAT-file read
# by Python, each checked by the closed delayed loop's response
# 1/(jw + 1 + e^(-0.5jw)); pade:N against the block's own PadeOrder; the
# Python binding; refusals (mm, --ts, --rate, discrete models, bad values).
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
m=tests/data/delay_loop.json
py=/usr/bin/python3
[ -x "$py" ] || py=python3

out=$("$J" linearize $m --delays exact)
grep -q 'states: 1, inputs: 2, outputs: 2' <<<"$out" &&
    grep -q '^internal delays: 1 ' <<<"$out" && grep -q '^  Delay  tau = 0.5$' <<<"$out"
ok $? "text: the delay-free H (1 state, In1 + Delay, Out1 + Delay) and the delay"

# the closed loop of H = (A, B, C, D) with w = e^(-jw tau) z against the closed form
closed='
import cmath
def closed(A, B, C, D, tau, w, nd=1):
    import numpy as np
    A, B, C, D = (np.asarray(M, dtype=float) for M in (A, B, C, D))
    n = A.shape[0]
    H = C @ np.linalg.solve(1j * w * np.eye(n) - A, B) + D
    nu, ny = H.shape[1] - nd, H.shape[0] - nd
    Dl = np.diag([cmath.exp(-1j * w * t) for t in tau])
    v = np.linalg.solve(np.eye(nd) - H[ny:, nu:] @ Dl, H[ny:, :nu])
    return (H[:ny, :nu] + H[:ny, nu:] @ Dl @ v)[0, 0]
def err_all(A, B, C, D, tau):
    return max(abs(closed(A, B, C, D, tau, w) - 1 / (1j * w + 1 + cmath.exp(-0.5j * w)))
               for w in (0.1, 1, 4, 15))
'

"$J" linearize $m --delays exact --format json >"$d/h.json" &&
    "$py" -c "
import json, sys
$closed
s = json.load(open('$d/h.json'))
def dense(M):
    D = [[0.0] * M['cols'] for _ in range(M['rows'])]
    for i, j, x in zip(M['i'], M['j'], M['x']):
        D[i][j] = x
    return D
ok = (s['InternalDelay'] == [0.5] and s['inputs'] == ['In1', 'Delay'] and
      s['outputs'] == ['Out1', 'Delay'] and s['states'] == ['Plant'] and s['Ts'] == 0.0 and
      list(s) == ['states', 'inputs', 'outputs', 't', 'Ts', 'A', 'B', 'C', 'D', 'InternalDelay'])
e = err_all(*(dense(s[k]) for k in 'ABCD'), s['InternalDelay'])
print('# json: closed-loop error %.2g' % e)
sys.exit(0 if ok and e < 1e-14 else 1)
"
ok $? "json: InternalDelay [0.5], channels named, the closed delayed loop's response"

"$J" linearize $m --format json >"$d/block.json" &&
    "$J" linearize $m --delays pade:3 --format json >"$d/p3.json" && cmp -s "$d/block.json" "$d/p3.json"
ok $? "pade:3 equals the block's own PadeOrder 3 (same json)"

out=$("$J" linearize $m --delays pade:0)
grep -q 'states: 1, inputs: 1, outputs: 1' <<<"$out" && grep -qE '^   Plant +-2$' <<<"$out"
ok $? "pade:0: y = u, the loop x' = -2x + u"

out=$("$J" linearize $m --delays pade:1 --method perturb)
grep -q 'states: 2, inputs: 1, outputs: 1' <<<"$out" && ! grep -q 'internal delays' <<<"$out"
ok $? "pade:1 with --method perturb: 2 states, no delays"

"$J" linearize $m --delays exact --at 0.5,1 --format json >"$d/at.json" &&
    "$py" -c "
import json, sys
a = json.load(open('$d/at.json'))
sys.exit(0 if len(a) == 2 and all(s['InternalDelay'] == [0.5] for s in a) else 1)
"
ok $? "--at with exact delays: every snapshot carries InternalDelay"

# the MATLAB/Octave script: H and InternalDelay; Octave's control package has
# no setDelayModel, so sys stays [] there with a warning
"$J" linearize $m --delays exact --format m --out "$d/h.m"
grep -q "^InternalDelay = \[0.5\]';$" "$d/h.m" && grep -q "sys = setDelayModel(H, InternalDelay);" "$d/h.m"
ok $? "m: InternalDelay and setDelayModel(H, InternalDelay)"
if command -v octave-cli >/dev/null; then
    res=$(cd "$d" && timeout 300 octave-cli --no-gui --norc --eval "
h;
w = [0.1 1 4 15]; e = 0;
for k = 1:numel(w)
  Hw = C * ((1i * w(k) * eye(size(A)) - A) \\ B) + D;
  dl = exp(-1i * w(k) * InternalDelay);
  g = Hw(1, 1) + Hw(1, 2) * dl * Hw(2, 1) / (1 - Hw(2, 2) * dl);
  e = max(e, abs(g - 1 / (1i * w(k) + 1 + exp(-0.5i * w(k)))));
end
printf('RESULT %d %d %.3g\n', isequal(size(B), [1 2]), isequal(InternalDelay, 0.5), e);
" 2>/dev/null | grep '^RESULT')
    echo "# octave: $res"
    read -r _ shape delay e <<<"$res"
    [ "$shape" = 1 ] && [ "$delay" = 1 ] && "$py" -c "import sys; sys.exit(0 if float('$e') < 1e-14 else 1)"
    ok $? "m in Octave: runs; H and InternalDelay give the closed delayed loop"
else
    skip "m in Octave" "no octave-cli"
fi

"$J" linearize $m --delays exact --format py --out "$d/h.py" &&
    "$py" -c "
import sys
$closed
g = {}
exec(open('$d/h.py').read(), g)
e = err_all(g['A'], g['B'], g['C'], g['D'], list(g['internal_delay']))
print('# py: closed-loop error %.2g' % e)
sys.exit(0 if g['sys'] is None and list(g['internal_delay']) == [0.5] and e < 1e-14 else 1)
"
ok $? "py: internal_delay, sys None, the closed delayed loop's response"

if "$J" linearize $m --delays exact --format mat --out "$d/h.mat" 2>/dev/null; then
    "$py" -c "
import sys, scipy.io
$closed
v = scipy.io.loadmat('$d/h.mat')
e = err_all(v['A'], v['B'], v['C'], v['D'], list(v['InternalDelay'].ravel()))
sys.exit(0 if v['InternalDelay'].shape == (1, 1) and e < 1e-14 else 1)
"
    ok $? "mat: InternalDelay, and A..D give the closed delayed loop"
else
    skip "mat" "no MAT-file support in this build"
fi

# the Python binding on this build's library
lib=${JG_BUILD:-$(dirname "$(dirname "$J")")}/lib/libjacgraph.so
if [ -f "$lib" ] && "$py" -c 'import numpy, scipy.sparse' 2>/dev/null && ! nm -D "$lib" | grep -q ' U __asan_init'; then
    PYTHONPATH=python JACGRAPH_LIB=$lib PYTHONDONTWRITEBYTECODE=1 "$py" -c "
import sys, jacgraph
$closed
s = jacgraph.linearize('$m', delays='exact')
e = err_all(s.A.toarray(), s.B.toarray(), s.C.toarray(), s.D.toarray(), s.delays)
p = jacgraph.linearize('$m', delays='pade:2')
b = jacgraph.linearize('$m')
try:
    jacgraph.linearize('$m', delays='pade:x')
    bad = False
except jacgraph.Error:
    bad = True
sys.exit(0 if s.delays == [0.5] and e < 1e-14 and p.delays == [] and p.A.shape == (3, 3)
         and b.A.shape == (4, 4) and bad else 1)
"
    ok $? "python: linearize(delays='exact') carries the delays; pade:2; bad values raise"
else
    skip "python binding" "no shared library, NumPy/SciPy, or a sanitizer build"
fi

expect_fail "exact: --format mm refused" 2 "--format mm cannot hold the delays" \
    "$J" linearize $m --delays exact --format mm --out "$d/x"
expect_fail "exact: --ts refused" 2 "--ts cannot discretize a model with internal delays" \
    "$J" linearize $m --delays exact --ts 0.1
expect_fail "--delays with --rate refused" 2 "continuous time only" \
    "$J" linearize $m --delays pade:2 --rate 0.1
expect_fail "--delays: malformed value" 2 "unknown --delays 'pade:11'" \
    "$J" linearize $m --delays pade:11
expect_fail "--delays exact with --open on the delay" 2 "that signal is cut as a delay channel" \
    "$J" linearize $m --delays exact --open Delay:1

cat >"$d/mixed.json" <<'EOF'
{"name": "mixed", "blocks": [{"name": "In1", "type": "Inport", "Port": 1},
 {"name": "Z", "type": "UnitDelay", "SampleTime": 0.1},
 {"name": "Lag", "type": "TransportDelay", "DelayTime": 1},
 {"name": "Out1", "type": "Outport", "Port": 1}],
 "lines": [{"src": "In1:1", "dst": "Z:1"}, {"src": "Z:1", "dst": "Lag:1"}, {"src": "Lag:1", "dst": "Out1:1"}]}
EOF
expect_fail "a discrete model with a delay: refused, naming it" 2 \
    "discrete linearization with Pade-order or exact delays (the TransportDelay 'Lag')" \
    "$J" linearize "$d/mixed.json" --delays exact
out=$("$J" linearize "$d/mixed.json" --delays exact --rate 0)
grep -q '^internal delays: 1 ' <<<"$out"
ok $? "the same model with --rate 0 (continuous, discrete states held): exact delays"

tap_done
