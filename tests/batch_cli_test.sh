#!/usr/bin/env bash
# `jacgraph batch` (TAP) on graphs/f14.json and a generated 1000-block model:
# a grid over the autopilot gains and listed operating points written as JSON
# Lines, the same bytes for 1, 2, 3 and 7 threads, each result equal to
# `linearize --op` with the point and `--set` with its parameters; --at
# snapshots; bad inputs (unknown parameter, malformed JSON with line:col, a
# structure-changing parameter, bad options) refused with no output file; a
# failing point among good ones (exit 6, marked in the file); no half file
# after an interruption.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
f14=graphs/f14.json

cat >"$d/grid.json" <<'EOF'
{"grid": {"Kq": [0.5, 0.8156, 1.2], "Ka": [0.677, 1.5]},
 "points": [{},
            {"t": 1, "states": {"Aircraft Dynamics Model/Transfer Fcn.2": 3.5}, "inputs": {"Stick Input": 0.2}}]}
EOF

"$J" batch $f14 --points "$d/grid.json" --jobs 2 --out "$d/f14.jsonl"
rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$d/f14.jsonl")" -eq 13 ]
ok $? "f14: grid of 3 x 2 gains x 2 points: a names line and 12 result lines (exit $rc)"
ls "$d" | grep -q part
[ $? -ne 0 ]
ok $? "no temporary file left beside the output"

same=0
for j in 1 3 7; do
    "$J" batch $f14 --points "$d/grid.json" --jobs $j --out "$d/f14_$j.jsonl" && cmp -s "$d/f14.jsonl" "$d/f14_$j.jsonl" || same=1
done
ok $same "f14: the same bytes for 1, 2, 3 and 7 threads"

# any elimination strategy: decided once, replayed by every thread (the same
# bytes for 1 and 3 threads), each point equal to linearize --reduce S
same=0
for s in minfill 'momr>lm>reverse'; do
    "$J" batch $f14 --points "$d/grid.json" --reduce "$s" --jobs 1 --out "$d/s1.jsonl" &&
        "$J" batch $f14 --points "$d/grid.json" --reduce "$s" --jobs 3 --out "$d/s3.jsonl" &&
        cmp -s "$d/s1.jsonl" "$d/s3.jsonl" || same=1
    "$py" - "$d" "$J" $f14 "$s" <<'EOF'
import json, subprocess, sys
d, J, model, s = sys.argv[1:5]
lines = [json.loads(l) for l in open(d + "/s1.jsonl")]
pts = json.load(open(d + "/grid.json"))["points"]
Kq, Ka = [0.5, 0.8156, 1.2], [0.677, 1.5]
bad = 0
for r in lines[1:]:
    k = r["index"]; g, i = divmod(k, 2); q, a = divmod(g, 2)
    op = d + "/op.json"; json.dump(pts[i], open(op, "w"))
    out = subprocess.run([J, "linearize", model, "--op", op, "--format", "json", "--reduce", s,
                          "--set", "Kq=%.17g" % Kq[q], "--set", "Ka=%.17g" % Ka[a]],
                         capture_output=True, text=True, check=True).stdout
    ref = json.loads(out)
    bad += sum(1 for M in "ABCD" if not r["ok"] or r[M] != ref[M])
sys.exit(1 if bad or len(lines) != 13 else 0)
EOF
    [ $? -eq 0 ] || same=1
done
ok $same "--reduce minfill and momr>lm>reverse: the same bytes for 1 and 3 threads, each point as linearize --reduce"
expect_fail "--reduce with an unknown strategy lists the known ones" 2 "unknown strategy 'nope' (known:" \
    "$J" batch $f14 --points "$d/grid.json" --reduce nope

# every result against linearize --op with the point and --set with its gains
"$py" - "$d" "$J" $f14 <<'EOF'
import json, subprocess, sys
d, J, model = sys.argv[1:4]
lines = [json.loads(l) for l in open(d + "/f14.jsonl")]
pts = json.load(open(d + "/grid.json"))["points"]
Kq, Ka = [0.5, 0.8156, 1.2], [0.677, 1.5]
bad = 0
for r in lines[1:]:
    k = r["index"]; g, i = divmod(k, 2); q, a = divmod(g, 2)
    op = d + "/op.json"; json.dump(pts[i], open(op, "w"))
    out = subprocess.run([J, "linearize", model, "--op", op, "--format", "json",
                          "--set", "Kq=%.17g" % Kq[q], "--set", "Ka=%.17g" % Ka[a]],
                         capture_output=True, text=True, check=True).stdout
    ref = json.loads(out)
    for M in "ABCD":
        if not r["ok"] or r[M] != ref[M]:
            bad += 1
            print("# point %d: %s differs" % (k, M))
sys.exit(1 if bad or len(lines) != 13 else 0)
EOF
ok $? "f14: every point equals linearize --op POINT --set Kq=.. --set Ka=.. (JSON triplets)"

head -1 "$d/f14.jsonl" | grep -q '^{"states": \["Controller/Stick Prefilter", ' &&
    head -1 "$d/f14.jsonl" | grep -q '"inputs": \["Stick Input", "White Noise"\]'
ok $? "the first line names the states"

# a generated 1000-block model: 50 operating points, bytes independent of threads
"$J" generate aerospace --blocks 1000 --seed 3 --out "$d/g1k.json" --quiet
"$py" - "$d" "$J" <<'EOF'
import json, subprocess, sys
d, J = sys.argv[1:3]
# twenty states of the model (from linearize's JSON), perturbed per point
out = subprocess.run([J, "linearize", d + "/g1k.json", "--format", "json"],
                     capture_output=True, text=True, check=True).stdout
names = json.loads(out)["states"][:20]
pts = [{"t": 0.01 * k, "states": {n: 0.1 * k + 0.01 * j for j, n in enumerate(names)}} for k in range(50)]
json.dump({"points": pts}, open(d + "/g1k_points.json", "w"))
EOF
same=0
"$J" batch "$d/g1k.json" --points "$d/g1k_points.json" --jobs 1 --out "$d/g1.jsonl" || same=1
for j in 2 3 7; do
    "$J" batch "$d/g1k.json" --points "$d/g1k_points.json" --jobs $j --out "$d/g$j.jsonl" &&
        cmp -s "$d/g1.jsonl" "$d/g$j.jsonl" || same=1
done
[ "$(wc -l <"$d/g1.jsonl")" -eq 51 ] && [ $same -eq 0 ]
ok $? "1000 blocks, 50 points: the same bytes for 1, 2, 3 and 7 threads"

# --at snapshots: two times from the default point
"$J" batch $f14 --at 0.5,1 --jobs 2 --out "$d/at.jsonl" &&
    [ "$(wc -l <"$d/at.jsonl")" -eq 3 ] && grep -q '"index": 1, "ok": true' "$d/at.jsonl"
ok $? "--at 0.5,1: two snapshots"

# stdout by default
"$J" batch $f14 --points "$d/grid.json" --jobs 2 | cmp -s - "$d/f14.jsonl"
ok $? "without --out: the same JSON Lines on stdout"

# bad inputs: an error, no output file
echo '{"grid": {"Nope": [1, 2]}}' >"$d/unk.json"
expect_fail "unknown parameter refused" 2 'unknown parameter "Nope"' \
    "$J" batch $f14 --points "$d/unk.json" --out "$d/unk.jsonl"
[ ! -e "$d/unk.jsonl" ]
ok $? "unknown parameter: no output file"
printf '{"points": [\n  {"t": 1},\n  {"t": }\n]}\n' >"$d/bad.json"
expect_fail "malformed points file: file:line:col" 4 "$d/bad.json:3:" \
    "$J" batch $f14 --points "$d/bad.json" --out "$d/bad.jsonl"
echo '{"points": [{"t": 0}, {"states": {"Nope": 1}}]}' >"$d/badst.json"
expect_fail "unknown state: the file, the point index and the entry" 2 \
    "$d/badst.json: point 1: unknown state \"Nope\"" "$J" batch $f14 --points "$d/badst.json"
echo '{"grid": {"den_w": [5]}}' >"$d/struct.json"
expect_fail "structure-changing parameter refused, naming it and the block" 2 \
    "Transfer Fcn.2'" "$J" batch $f14 --points "$d/struct.json" --out "$d/struct.jsonl"
err=$("$J" batch $f14 --points "$d/struct.json" 2>&1 >/dev/null)
grep -q 'den_w = 5' <<<"$err" && grep -q 'structure' <<<"$err"
ok $? "the structure error names the parameter value: $err"
[ ! -e "$d/struct.jsonl" ]
ok $? "structure-changing parameter: no output file"
expect_fail "--jobs 0 refused" 2 "--jobs must be 1..1024" "$J" batch $f14 --points "$d/grid.json" --jobs 0
expect_fail "no points" 2 "expected --points FILE" "$J" batch $f14
expect_fail "--out with another extension" 2 "expected a .jsonl" \
    "$J" batch $f14 --points "$d/grid.json" --out "$d/x.csv"
expect_fail "--op refused" 2 "--points file" "$J" batch $f14 --points "$d/grid.json" --op "$d/grid.json"

# a failing point among good ones: exit 6, the failure marked in place
cat >"$d/loop.json" <<'EOF'
{"name":"rp","blocks":[{"name":"In1","type":"Inport","Port":1},
{"name":"P","type":"Inport","Port":2},{"name":"V1","type":"Sum","Inputs":"+++"},
{"name":"M","type":"Product","Inputs":"**"},{"name":"Gb","type":"Gain","Gain":1},
{"name":"V2","type":"Sum","Inputs":"++++"},{"name":"Gc","type":"Gain","Gain":-1},
{"name":"Gd","type":"Gain","Gain":0},{"name":"Ge","type":"Gain","Gain":0},
{"name":"Gf","type":"Gain","Gain":0},{"name":"Out1","type":"Outport","Port":1},
{"name":"Out2","type":"Outport","Port":2}],
"lines":[{"src":"In1:1","dst":["V1:1","Ge:1"]},{"src":"P:1","dst":["M:1","Gf:1"]},
{"src":"V1:1","dst":["M:2","Gc:1","Out1:1"]},{"src":"M:1","dst":"V1:2"},
{"src":"Gb:1","dst":"V1:3"},{"src":"V2:1","dst":["Gb:1","Gd:1","Out2:1"]},
{"src":"Gc:1","dst":"V2:1"},{"src":"Gd:1","dst":"V2:2"},{"src":"Ge:1","dst":"V2:3"},
{"src":"Gf:1","dst":"V2:4"}]}
EOF
echo '{"points": [{"inputs": {"P": 0}}, {"inputs": {"P": 2}}, {"inputs": {"P": 0.5}}]}' >"$d/lp.json"
err=$("$J" batch "$d/loop.json" --points "$d/lp.json" --jobs 2 --out "$d/lp.jsonl" 2>&1)
rc=$?
[ $rc -eq 6 ] && grep -q '1 of 3 points failed' <<<"$err" &&
    grep -q '"index": 1, "ok": false, "error": "singular' "$d/lp.jsonl" &&
    grep -q '"index": 2, "ok": true' "$d/lp.jsonl"
ok $? "a singular point among good ones: exit 6, marked, the others written (exit $rc)"

# interrupted: no file under the final name.  The signal comes once the
# temporary file has results in it (the whole run takes several seconds), not
# after a fixed sleep that a faster build outruns.
"$py" - "$d" <<'EOF'
import json, sys
d = sys.argv[1]
json.dump({"points": [{"t": 0.001 * k} for k in range(200000)]}, open(d + "/many.json", "w"))
EOF
"$J" batch "$d/g1k.json" --points "$d/many.json" --jobs 2 --out "$d/int.jsonl" 2>"$d/int.err" &
pid=$!
for _ in $(seq 600); do
    [ -n "$(find "$d" -maxdepth 1 -name '*int.jsonl*' -size +1k)" ] && break
    sleep 0.05
done
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
[ $rc -eq 130 ] && [ ! -e "$d/int.jsonl" ] && ! ls "$d" | grep -q 'int.jsonl.part'
ok $? "interrupted: exit 130, no file under the final name, no temporary left (exit $rc)"

"$J" batch --help | grep -q -- "--jobs N"
ok $? "--help lists --jobs"

# HDF5 and matio are loaded only to write a .mat or .h5 file (lib/io/h5load.h):
# a library of HDF5's soname without its functions, found first, is a clear
# I/O error naming it (exit 3) and leaves no file; the other outputs never load it.
build=${JG_BUILD:-$(dirname "$(dirname "$J")")}
h5so=$(sed -n 's/^#define JG_HDF5_SONAME "\(.*\)"$/\1/p' "$build/lib/jg_sonames.h" 2>/dev/null)
if [ -z "$h5so" ]; then
    skip "an HDF5 library without its functions" "no $build/lib/jg_sonames.h"
else
    mkdir -p "$d/fakelib"
    echo 'int jg_not_hdf5;' > "$d/fake.c"
    cc -shared -fPIC -o "$d/fakelib/$h5so" "$d/fake.c"
    echo '{"points": [{"t": 0}, {"t": 1}]}' > "$d/two.json"
    expect_fail "--out .h5, an HDF5 without its functions: exit 3, named" 3 "$h5so: no function H5open" \
        env LD_LIBRARY_PATH="$d/fakelib" "$J" batch graphs/f14.json --points "$d/two.json" --out "$d/fake.h5"
    [ ! -e "$d/fake.h5" ] && ! ls "$d" | grep -q 'fake.h5.'
    ok $? "no file and no temporary file left"
    expect_fail "--out .mat: the same" 3 "$h5so: no function H5open" \
        env LD_LIBRARY_PATH="$d/fakelib" "$J" batch graphs/f14.json --points "$d/two.json" --out "$d/fake.mat"
    expect_fail "linearize --format mat: the same" 3 "$h5so: no function H5open" \
        env LD_LIBRARY_PATH="$d/fakelib" "$J" linearize graphs/f14.json --format mat --out "$d/fake1.mat"
    env LD_LIBRARY_PATH="$d/fakelib" "$J" batch graphs/f14.json --points "$d/two.json" --out "$d/fake.jsonl" &&
        [ "$(wc -l < "$d/fake.jsonl")" -eq 3 ]
    ok $? "--out .jsonl with that library first: written (HDF5 never loaded)"
fi

tap_done
