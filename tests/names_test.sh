#!/usr/bin/env bash
# Block and signal names as Simulink writes them (TAP): '/' inside a name
# (doubled in paths), newlines, ':', trailing spaces and non-ASCII in
# tests/data/names.json, signal names ("name" of a line) as I/O points, and
# the names kept exact through JSON and Matrix Market output.
#
# tests/data/names.json: x' = 2 (r - x), y = x with r the root Inport "u/in",
# x the Integrator "Plant\nx", the gain 2 inside the SubSystem "Ctrl/PI: K".
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
M=tests/data/names.json

# json_check NAME PYTHON-ASSERTIONS CMD...: the JSON that CMD prints, as m
json_check() {
    local name=$1 code=$2
    shift 2
    "$@" --format json >"$d/out.json" 2>"$d/err.txt" &&
        python3 - "$d/out.json" <<EOF
import json, sys
m = json.load(open(sys.argv[1], encoding="utf-8"))
def nz(k):   # matrix k as {(i, j): x}
    return {(i, j): x for i, j, x in zip(m[k]["i"], m[k]["j"], m[k]["x"])}
$code
EOF
    local rc=$?
    ok $rc "$name"
    [ $rc -ne 0 ] && sed 's/^/#   /' "$d/err.txt" "$d/out.json" | head -20
}

# ---- info: escaped paths, signal names per port, a newline shown as a space
out=$("$J" info "$M" 2>&1)
grep -q '^  u//in  *Inport .* signals {1: "ref"}$' <<<"$out" &&
    grep -q '^  Ctrl//PI: K/k//p  *Gain .* signals {1: "cmd"}$' <<<"$out" &&
    grep -q '^  Plant x  *Integrator .* signals {1: "speed"} states 1$' <<<"$out" &&
    grep -q '^  1  Plant x$' <<<"$out" && grep -q '^  5  y°$' <<<"$out"
ok $? "info: paths with '//', signal names, newline as a space"
! grep -q '^x' <<<"$out"
ok $? "info: a newline in a name does not add a line"

# ---- default I/O: the root Inport and Outport by path
json_check "default I/O: names round-trip through JSON, A = -2, B = 2, C = 1" '
assert m["states"] == ["Plant\nx"], m["states"]
assert m["inputs"] == ["u//in"] and m["outputs"] == ["y\u00b0"]
assert nz("A") == {(0, 0): -2.0} and nz("B") == {(0, 0): 2.0} and nz("C") == {(0, 0): 1.0}
assert nz("D") == {}' \
    "$J" linearize "$M"

out=$("$J" linearize "$M" 2>&1)
grep -q '^   Plant x  *-2$' <<<"$out" && ! grep -q '^x$' <<<"$out"
ok $? "text tables show the newline as a space"

# ---- points by path: '//' for a '/' in a name, ':' inside names, N after the last colon
json_check "--input by a path with '//' and ':' in names" '
assert m["inputs"] == ["Ctrl//PI: K/k//p:1"] and m["outputs"] == ["Plant\nx:1", "Sum :1"]
assert nz("B") == {(0, 0): 1.0} and nz("C") == {(0, 0): 1.0, (1, 0): -1.0}' \
    "$J" linearize "$M" --no-default-io --input 'Ctrl//PI: K/k//p:1' --output $'Plant\nx:1' \
    --output 'Sum :1'

# ---- points by signal name
json_check "--input and --output by signal name, rows and columns named so" '
assert m["inputs"] == ["ref", "err"] and m["outputs"] == ["speed", "error", "Ctrl//PI: K:1"]
assert nz("B") == {(0, 0): 2.0, (0, 1): 2.0}
assert nz("C") == {(0, 0): 1.0, (1, 0): -1.0, (2, 0): -2.0}
assert nz("D") == {(1, 0): 1.0, (2, 0): 2.0, (2, 1): 2.0}' \
    "$J" linearize "$M" --no-default-io --input ref --input err --output speed --output error \
    --output 'Ctrl//PI: K:1'

json_check "--open by signal name cuts the loop" '
assert nz("A") == {} and nz("B") == {(0, 0): 2.0} and nz("C") == {}' \
    "$J" linearize "$M" --open speed

"$J" check "$M" --no-default-io --input ref --output error --open speed >/dev/null 2>&1
ok $? "check with points given by signal name"

expect_err "ambiguous signal name lists the candidates" 2 \
    "jacgraph: error: --input cmd: signal name 'cmd' is ambiguous: 2 output ports carry it: 'Ctrl//PI: K:1', 'Ctrl//PI: K/k//p:1'" \
    "$J" linearize "$M" --input cmd

expect_err "unknown signal name" 2 \
    "jacgraph: error: --output nope: no signal has this name, and it is not BLOCK:N (a block path and a 1-based output port, e.g. Controller/Sum1:1)" \
    "$J" linearize "$M" --output nope

expect_err "a '/' of a name written once in a path: hint" 2 \
    "jacgraph: error: --input Ctrl/PI: K/k/p:1: no block 'Ctrl/PI: K/k/p' in the model (a '/' inside a block name is written '//' in a path)" \
    "$J" linearize "$M" --input 'Ctrl/PI: K/k/p:1'

# ---- operating point keyed by a path with '//' and a newline
printf '{"states": {"Plant\\nx": 3}, "inputs": {"u//in": 1}}' >"$d/op.json"
"$J" linearize "$M" --op "$d/op.json" >/dev/null 2>&1
ok $? "--op keys: state and input names with '//' and a newline"

# ---- Matrix Market names file: one name per line, escaped
"$J" linearize "$M" --format mm --out "$d/n" >/dev/null 2>&1 &&
    [ "$(cat "$d/n_names.txt")" = "$(printf '# states\nPlant\\nx\n# inputs\nu//in\n# outputs\ny°')" ]
ok $? "Matrix Market names: a newline written as \\n"

# ---- dot: the newline is dot's line break
"$J" graph "$M" --dot "$d/g.dot" >/dev/null 2>&1 && grep -q 'label="x Plant\\nx"' "$d/g.dot"
ok $? "graph labels: a newline in a name is a dot line break"

# ---- model checks
cat >"$d/two.json" <<'JSON'
{"blocks": [{"name": "c", "type": "Constant"}, {"name": "g", "type": "Gain"}, {"name": "h", "type": "Gain"}],
 "lines": [{"src": "c:1", "dst": "g:1", "name": "v"}, {"src": "c:1", "dst": "h:1", "name": "w"}]}
JSON
expect_err "two names on one signal: the first is kept, with a warning" 0 \
    "jacgraph: warning: output 1 of block 'c': its lines name the signal both 'v' and 'w'; 'v' is kept" \
    "$J" linearize "$d/two.json" --output v
expect_err "the second name is not a signal name" 2 \
    "jacgraph: warning: output 1 of block 'c': its lines name the signal both 'v' and 'w'; 'v' is kept
jacgraph: error: --output w: no signal has this name, and it is not BLOCK:N (a block path and a 1-based output port, e.g. Controller/Sum1:1)" \
    "$J" linearize "$d/two.json" --output w

echo '{"blocks": [{"name": "c", "type": "Constant"}, {"name": "g", "type": "Gain"}], "lines": [{"src": "c:1", "dst": "g:1", "name": 3}]}' >"$d/bad.json"
expect_err "a line name must be a string" 4 \
    "jacgraph: error: $d/bad.json: system '': lines[0]: \"name\" (the signal name) must be a string" \
    "$J" linearize "$d/bad.json"

echo '{"blocks": [{"name": "S/", "type": "SubSystem", "blocks": [{"name": "x", "type": "Gain"}]}, {"name": "S", "type": "SubSystem", "blocks": [{"name": "/x", "type": "Gain"}]}]}' >"$d/clash.json"
expect_err "two blocks with one path (a name ending and one starting with '/')" 4 \
    "jacgraph: error: block 'x' of system 'S//' and block '/x' of system 'S' have the same path 'S///x' (a name starts or ends with '/'): rename one" \
    "$J" linearize "$d/clash.json"

echo '{"blocks": [{"name": "a/b", "type": "Constant"}, {"name": "a", "type": "SubSystem", "blocks": [{"name": "b", "type": "Gain"}]}]}' >"$d/ab.json"
out=$("$J" info "$d/ab.json" 2>&1)
grep -q '^  a//b  *Constant' <<<"$out" && grep -q '^  a/b  *Gain' <<<"$out"
ok $? "block 'a/b' and block 'b' of SubSystem 'a' are told apart"

tap_done
