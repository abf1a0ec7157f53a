#!/usr/bin/env bash
# `jacgraph batch --out` files read back by /usr/bin/python3 (h5py for the
# MAT-file v7.3 and the HDF5 file; the JSON Lines with json) and compared,
# point by point, with `jacgraph linearize --format json` at the same
# operating point and parameters: F-14 on a parameter grid crossed with
# operating points (dense layout), a 128-state Brusselator at several states
# (sparse layout: each distinct pattern once), a loop whose gain makes it
# singular at one point (the failed point marked: Ok false, its error, NaN or
# no pattern) and zeroes A or B at others (patterns that change and come
# back); --layout auto, dense and sparse with 1 and 2 threads.  Skipped with
# a message when python3-h5py or python3-numpy is missing (the CI installs
# them: tools/quickstart.sh).
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
py=/usr/bin/python3

if ! "$py" -c 'import numpy, h5py' 2>/dev/null; then
    skip "batch output files read back" "/usr/bin/python3 lacks numpy or h5py (python3-numpy python3-h5py)"
    tap_done
    exit
fi

# ---- the cases: MODEL, points file, the per-point linearize arguments (JSON)
"$py" - "$d" "$J" <<'EOF'
import json, subprocess, sys
d, J = sys.argv[1], sys.argv[2]
cases = {}
# F-14: grid over two gains crossed with two operating points (k = g * 2 + i)
pts = [{"t": 0}, {"t": 1, "states": {"Actuator Model": 0.1, "Controller/Integrator": -0.2},
                  "inputs": {"Stick Input": 0.3}}]
grid = {"Ka": [0.5, 0.677, 0.9], "Md": [-6.8847, -5.0]}
json.dump({"points": pts, "grid": grid}, open(d + "/f14_pts.json", "w"))
combos = [(ka, md) for ka in grid["Ka"] for md in grid["Md"]]
cases["f14"] = ("graphs/f14.json", d + "/f14_pts.json",
                [(["--set", "Ka=%r" % ka, "--set", "Md=%r" % md], p) for (ka, md) in combos for p in pts])
# a loop y = K (u + y) + x, x' = -x + y: singular at K = 1
loop = {"name": "loop", "parameters": {"K": 0.5}, "blocks": [
    {"name": "u", "type": "Inport", "Port": 1},
    {"name": "s", "type": "Sum", "Inputs": "+++"},
    {"name": "g", "type": "Gain", "Gain": "K"},
    {"name": "x", "type": "Integrator", "InitialCondition": 0},
    {"name": "f", "type": "Gain", "Gain": -1},
    {"name": "s2", "type": "Sum", "Inputs": "++"},
    {"name": "y", "type": "Outport", "Port": 1}],
  "lines": [{"src": "u:1", "dst": "s:1"}, {"src": "s:1", "dst": "g:1"},
            {"src": "g:1", "dst": ["s:2", "y:1", "s2:2"]}, {"src": "x:1", "dst": ["s:3", "f:1"]},
            {"src": "f:1", "dst": "s2:1"}, {"src": "s2:1", "dst": "x:1"}]}
json.dump(loop, open(d + "/loop.json", "w"))
json.dump({"grid": {"K": [0.5, 1.0, 2.0]}}, open(d + "/loop_pts.json", "w"))
cases["loop"] = (d + "/loop.json", d + "/loop_pts.json",
                 [(["--set", "K=%r" % k], {"t": 0}) for k in (0.5, 1.0, 2.0)])
# the same loop where K = 0.5 makes A and K = 0 makes B exactly zero (not
# stored): the patterns change between points and come back
kz = [0.5, 0.0, 1.0, 2.0, 0.0, 0.5]
json.dump({"grid": {"K": kz}}, open(d + "/loopz_pts.json", "w"))
cases["loopz"] = (d + "/loop.json", d + "/loopz_pts.json", [(["--set", "K=%r" % k], {"t": 0}) for k in kz])
# Brusselator, 128 states (A beyond 100 x 100: sparse triplets), three states
subprocess.run([J, "generate", "brusselator", "--states", "128", "--out", d + "/bru.json", "--quiet"],
               check=True)
ref = json.loads(subprocess.run([J, "linearize", d + "/bru.json", "--format", "json"], check=True,
                                capture_output=True, text=True).stdout)
names = ref["states"]
bpts = [{"t": 0}] + [{"t": 0, "states": {n: 1.0 + 0.01 * ((j * (s + 3)) % 7) for j, n in enumerate(names)}}
                     for s in range(2)]
json.dump({"points": bpts}, open(d + "/bru_pts.json", "w"))
cases["bru"] = (d + "/bru.json", d + "/bru_pts.json", [([], p) for p in bpts])
json.dump(cases, open(d + "/cases.json", "w"))
EOF
ok $? "cases written"

# ---- the references: one `linearize --format json` per point
"$py" - "$d" "$J" <<'EOF'
import json, os, subprocess, sys
d, J = sys.argv[1], sys.argv[2]
cases = json.load(open(d + "/cases.json"))
for name, (model, _, runs) in cases.items():
    for k, (args, op) in enumerate(runs):
        json.dump(op, open("%s/op_%s_%d.json" % (d, name, k), "w"))
        r = subprocess.run([J, "linearize", model, *args, "--op", "%s/op_%s_%d.json" % (d, name, k),
                            "--format", "json", "--out", "%s/ref_%s_%d.json" % (d, name, k)],
                           capture_output=True, text=True)
        if r.returncode:   # no reference: the point fails
            open("%s/ref_%s_%d.err" % (d, name, k), "w").write(r.stderr)
            if os.path.exists("%s/ref_%s_%d.json" % (d, name, k)):
                os.remove("%s/ref_%s_%d.json" % (d, name, k))
EOF
ok $? "references: linearize --format json per point"
[ -f "$d/ref_loop_1.err" ] && [ ! -f "$d/ref_loop_0.err" ] && [ ! -f "$d/ref_f14_11.err" ]
ok $? "references: the loop is singular at K = 1 only"

# check CASE FILE [LAYOUT]: the batch file against the references (prints "ok"/"not ok: why")
check() {
    "$py" - "$d" "$1" "$2" "${3:-auto}" <<'EOF'
import json, math, os, sys
import numpy as np
d, case, path = sys.argv[1:4]
model, pts, runs = json.load(open(d + "/cases.json"))[case]
N = len(runs)
refs = []
for k in range(N):
    p = "%s/ref_%s_%d.json" % (d, case, k)
    refs.append(json.load(open(p)) if os.path.exists(p) else None)
first = next(r for r in refs if r)
problems = []
npat = {}
def dense(M):
    a = np.zeros((M["rows"], M["cols"]))
    for i, j, x in zip(M["i"], M["j"], M["x"]):
        a[i, j] = x
    return a
def same(got, want, what):
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-12, atol=1e-300):
        problems.append("%s differs: max |diff| %s" % (what, np.max(np.abs(got - want)) if got.shape == want.shape else (got.shape, want.shape)))
ext = os.path.splitext(path)[1]
if ext == ".jsonl":
    lines = [json.loads(l) for l in open(path)]
    if len(lines) != N + 1:
        problems.append("%d lines for %d points" % (len(lines), N))
    head = lines[0]
    for key in ("states", "inputs", "outputs"):
        if head.get(key) != first[key]:
            problems.append("names line: %s" % key)
    for k, (l, r) in enumerate(zip(lines[1:], refs)):
        if l.get("index") != k or l.get("ok") != (r is not None):
            problems.append("line %d: index/ok %r %r" % (k, l.get("index"), l.get("ok")))
        elif r is None:
            if "singular" not in l.get("error", "").lower():
                problems.append("point %d: error %r" % (k, l.get("error")))
        else:
            for q in "ABCD":
                if l[q]["rows"] != r[q]["rows"] or l[q]["cols"] != r[q]["cols"] or l[q]["i"] != r[q]["i"] or l[q]["j"] != r[q]["j"]:
                    problems.append("point %d: %s pattern differs" % (k, q))
                else:
                    same(np.array(l[q]["x"], dtype=float), np.array(r[q]["x"], dtype=float), "point %d %s" % (k, q))
else:
    import h5py
    f = h5py.File(path, "r")
    mat = ext == ".mat"
    def strings(name):
        v = f[name]
        if not mat:
            return [s.decode() if isinstance(s, bytes) else s for s in v[()]]
        if v.attrs.get("MATLAB_empty", 0):   # MATLAB's empty n x 0 array: its dimensions only
            return [""] * int(np.array(v[()]).flat[0])
        a = np.array(v[()])   # MATLAB's n x width char matrix is width x n here, UTF-16
        return [a[:, k].astype(np.uint16).tobytes().decode("utf-16-le").rstrip(" ") for k in range(a.shape[1])]
    ok = np.array(f["Ok"][()]).flatten()
    if list(ok) != [1 if r else 0 for r in refs]:
        problems.append("Ok = %s" % list(ok))
    err = strings("Error")
    for k, r in enumerate(refs):
        if (r is None) != ("singular" in err[k].lower()) or (r is not None and err[k] != ""):
            problems.append("Error[%d] = %r" % (k, err[k]))
    for key, var in (("states", "StateName"), ("inputs", "InputName"), ("outputs", "OutputName")):
        if strings(var) != first[key]:
            problems.append("%s differ" % var)
    vn = strings("ValueName")
    val = np.array(f["Value"][()])
    # (MATLAB's nvals x N is N x nvals in HDF5, as the plain file)
    if val.shape != (N, len(vn)) or vn[0] != "t":
        problems.append("Value %s, ValueName %s" % (val.shape, vn[:3]))
    else:
        for k, r in enumerate(refs):
            if r is not None and val[k, 0] != r["t"]:
                problems.append("Value t of point %d: %r vs %r" % (k, val[k, 0], r["t"]))
    for q in "ABCD":
        for k, r in enumerate(refs):
            if q in f:
                v = f[q]
                if mat and v.attrs.get("MATLAB_empty", 0):   # MATLAB's empty array: its dimensions
                    a = np.zeros(tuple(int(x) for x in v[()][:2]))
                else:
                    a = np.array(v[k])
                if mat and not v.attrs.get("MATLAB_empty", 0):
                    a = a.T   # MATLAB m x n x N is N x n x m in HDF5
                if r is None:
                    if not np.all(np.isnan(a)):
                        problems.append("%s of failed point %d is not NaN" % (q, k))
                    continue
                same(a, dense(r[q]), "point %d %s" % (k, q))
            else:
                # values of point k at _ptr[k]:_ptr[k+1], its pattern t = _pat[k] (MAT: 1-based,
                # 0 failed; HDF5: 0-based, -1 failed) at _pptr[t]:_pptr[t+1] of _i, _j
                ptr = np.array(f[q + "_ptr"][()]).flatten().astype(np.int64)
                lo, hi = ptr[k], ptr[k + 1]
                t = int(np.array(f[q + "_pat"][()]).flatten()[k]) - (1 if mat else 0)
                pptr = np.array(f[q + "_pptr"][()]).flatten().astype(np.int64)
                xx = np.array(f[q + "_x"][()]).flatten()[lo:hi]
                size = np.array(f[q + "_size"][()]).flatten().astype(np.int64)
                if r is None:
                    if hi != lo or t != -1:
                        problems.append("%s of failed point %d has values or a pattern" % (q, k))
                    continue
                if not 0 <= t < len(pptr) - 1:
                    problems.append("point %d: %s pattern %d of %d" % (k, q, t, len(pptr) - 1))
                    continue
                ii = np.array(f[q + "_i"][()]).flatten()[pptr[t]:pptr[t + 1]].astype(np.int64)
                jj = np.array(f[q + "_j"][()]).flatten()[pptr[t]:pptr[t + 1]].astype(np.int64)
                if mat:
                    ii, jj = ii - 1, jj - 1
                npat[q] = len(pptr) - 1
                if list(ii) != r[q]["i"] or list(jj) != r[q]["j"] or list(size) != [r[q]["rows"], r[q]["cols"]]:
                    problems.append("point %d: %s triplets differ" % (k, q))
                else:
                    same(xx, np.array(r[q]["x"], dtype=float), "point %d %s" % (k, q))
# the layout asked for (argument 4: auto, dense, sparse): auto is dense for a
# matrix of at most 10,000 elements whose first model fills a quarter of it
layout = sys.argv[4] if len(sys.argv) > 4 else "auto"
for q in "ABCD":
    M = first[q]
    want = layout == "dense" or (layout == "auto" and M["rows"] * M["cols"] <= 10000 and
                                 4 * len(M["x"]) >= M["rows"] * M["cols"])
    if (q in f if ext != ".jsonl" else want) != want:
        problems.append("%s stored %s" % (q, "sparse" if want else "dense"))
# patterns: each distinct one once (a tuple of the references' i, j per point)
if ext != ".jsonl":
    for q, n in npat.items():
        want = len({(tuple(r[q]["i"]), tuple(r[q]["j"])) for r in refs if r})
        if n != want:
            problems.append("%s has %d patterns, the points %d" % (q, n, want))
print("ok" if not problems else "not ok: " + "; ".join(problems[:5]))
EOF
}

for case in f14 loop bru; do
    model=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]][0])' "$d/cases.json" $case)
    for ext in jsonl mat h5; do
        out="$d/$case.$ext"
        "$J" batch "$model" --points "$d/${case}_pts.json" --jobs 2 --out "$out" 2>"$d/err"
        rc=$?
        want=0
        [ $case = loop ] && want=6   # every point ran, one failed
        [ $rc -eq $want ] && [ -f "$out" ]
        ok $? "$case: batch --out .$ext (exit $rc)"
        [ $rc -eq $want ] || sed 's/^/#   /' "$d/err" | head -5
        res=$(check $case "$out" 2>&1)
        [ "$res" = ok ]
        ok $? "$case .$ext: every point equals linearize --format json"
        [ "$res" = ok ] || echo "#   $res" | head -5
    done
done
# the layouts: both overrides, 1 and 2 threads give the same file; patterns
# that change between points (loopz)
for run in "loopz sparse 6" "loopz dense 6" "loopz auto 6" "f14 sparse 0" "f14 dense 0" "bru sparse 0"; do
    set -- $run
    case=$1 layout=$2 want=$3
    model=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]][0])' "$d/cases.json" $case)
    for ext in mat h5; do
        for jobs in 1 2; do
            "$J" batch "$model" --points "$d/${case}_pts.json" --jobs $jobs --layout $layout \
                --out "$d/$case.$layout.$jobs.$ext" 2>"$d/err"
            rc=$?
            [ $rc -eq $want ]
            ok $? "$case --layout $layout --jobs $jobs .$ext: exit $rc"
            [ $rc -eq $want ] || sed 's/^/#   /' "$d/err" | head -5
        done
        res=$(check $case "$d/$case.$layout.1.$ext" $layout 2>&1)
        [ "$res" = ok ]
        ok $? "$case --layout $layout .$ext: every point equals linearize --format json, the layout asked for"
        [ "$res" = ok ] || echo "#   $res" | head -5
        if [ $ext = h5 ]; then   # (matio stamps times into a MAT-file)
            cmp -s "$d/$case.$layout.1.$ext" "$d/$case.$layout.2.$ext"
            ok $? "$case --layout $layout .h5: 1 and 2 threads write the same bytes"
        fi
    done
done
"$py" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
print(list(f["A_pat"][()]), list(f["A_pptr"][()]), list(f["B_pat"][()]))' "$d/loopz.sparse.1.h5" >"$d/pat.txt" 2>&1
# x' = -x + K (u + x) / (1 - K): A = 0 at K = 0.5 (no entry: pattern 0), -1 at
# K = 0 and -3 at K = 2 (pattern 1); B = 1, 0 (none: pattern 1), -2
pat="[0, 1, -1, 1, 1, 0] [0, 0, 1] [0, 1, -1, 0, 1, 0]"
grep -qxF "$pat" "$d/pat.txt"
ok $? "loopz --layout sparse: A_pat, A_pptr, B_pat: two patterns each, in order of appearance, the failed point -1"
grep -qxF "$pat" "$d/pat.txt" || sed 's/^/#   /' "$d/pat.txt"
expect_fail "--layout dense for a 128 x 128 A" 2 "matrix A is 128x128 (16384 elements): the dense layout stores at most 10000" \
    "$J" batch "$d/bru.json" --points "$d/bru_pts.json" --layout dense --out "$d/bru_dense.h5"
[ ! -e "$d/bru_dense.h5" ] && ! ls "$d"/bru_dense.h5.part* >/dev/null 2>&1
ok $? "--layout dense refused: no file, no temporary file"
expect_fail "--layout with JSON Lines" 2 "--layout applies to .mat and .h5 output" \
    "$J" batch graphs/f14.json --points "$d/f14_pts.json" --layout sparse --out "$d/x.jsonl"
expect_fail "--layout unknown" 2 "unknown --layout 'full' (auto, dense, sparse)" \
    "$J" batch graphs/f14.json --points "$d/f14_pts.json" --layout full --out "$d/x.h5"

# Octave loads the MAT-file (when installed): sizes, a value, the names
if command -v octave-cli >/dev/null 2>&1; then
    "$J" batch graphs/f14.json --points "$d/f14_pts.json" --jobs 2 --out "$d/oct.mat" 2>/dev/null
    out=$(cd "$d" && timeout 300 octave-cli --no-gui --norc --eval "load('oct.mat');
      ref = jsondecode(fileread('ref_f14_3.json'));
      Ak = zeros(ref.A.rows, ref.A.cols); Ak(sub2ind(size(Ak), ref.A.i + 1, ref.A.j + 1)) = ref.A.x;
      n = strtrim(cellstr(char(StateName)));
      printf('result %d %d %d %d %d %s\n', size(A, 1), size(A, 3), max(max(abs(A(:,:,4) - Ak))) <= 1e-12 * max(1, max(abs(Ak(:)))), all(Ok), numel(n), n{10});" 2>&1)
    # (Octave 7 may print an error about an exception while exiting: not ours)
    grep -qxF "result 10 12 1 1 10 Aircraft Dynamics Model/Transfer Fcn.1" <<<"$out"
    ok $? "Octave loads the .mat: A(:,:,4) is point 3's, names, Ok"
    grep -q "^result" <<<"$out" || echo "$out" | head -5 | sed 's/^/#   octave: /'
    # the sparse layout read as docs/batch.md shows it
    "$J" batch graphs/f14.json --points "$d/f14_pts.json" --jobs 2 --layout sparse --out "$d/octs.mat" 2>/dev/null
    out=$(cd "$d" && timeout 300 octave-cli --no-gui --norc --eval "load('octs.mat'); k = 4;
      r = A_ptr(k)+1 : A_ptr(k+1);
      q = A_pptr(A_pat(k))+1 : A_pptr(A_pat(k)+1);
      Ak = sparse(A_i(q), A_j(q), A_x(r), A_size(1), A_size(2));
      ref = jsondecode(fileread('ref_f14_3.json'));
      R = zeros(ref.A.rows, ref.A.cols); R(sub2ind(size(R), ref.A.i + 1, ref.A.j + 1)) = ref.A.x;
      printf('result %d %d\n', max(max(abs(full(Ak) - R))) <= 1e-12 * max(1, max(abs(R(:)))), nnz(Ak) == numel(ref.A.x));" 2>&1)
    grep -qxF "result 1 1" <<<"$out"
    ok $? "Octave reads point 4 of a --layout sparse .mat through its pattern (docs/batch.md)"
    grep -q "^result" <<<"$out" || echo "$out" | head -5 | sed 's/^/#   octave: /'
else
    skip "Octave loads the .mat" "no octave-cli"
    skip "Octave reads a --layout sparse .mat" "no octave-cli"
fi
ls "$d"/*.part* >/dev/null 2>&1
ok $((!$?)) "no temporary files left"

# a failed run leaves an older file as it was and no temporary file
echo old > "$d/keep.mat"
"$J" batch graphs/f14.json --points "$d/no_such.json" --out "$d/keep.mat" 2>/dev/null
[ $? -ne 0 ] && [ "$(cat "$d/keep.mat")" = old ] && ! ls "$d"/keep.mat.part* >/dev/null 2>&1
ok $? "a failed run keeps the old file"
# no --out: JSON Lines on stdout, here redirected to a file (/dev/stdout is a
# link to it: written through, never replaced)
"$J" batch "$d/loop.json" --points "$d/loop_pts.json" --jobs 1 >"$d/stdout.jsonl" 2>/dev/null
[ $? -eq 6 ] && [ -L /dev/stdout ] && cmp -s "$d/stdout.jsonl" "$d/loop.jsonl"
ok $? "no --out: stdout redirected to a file gets the .jsonl file, /dev/stdout stays a link"
expect_fail "--out with an unknown extension" 2 "expected a .jsonl, .mat or .h5 file" \
    "$J" batch graphs/f14.json --points "$d/f14_pts.json" --out "$d/x.csv"

tap_done
