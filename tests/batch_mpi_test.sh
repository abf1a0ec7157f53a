#!/usr/bin/env bash
# `mpirun -np 2 jacgraph batch` (TAP) against the single-process run of the
# same points: the JSON Lines and HDF5 files byte for byte, the MAT-file v7.3
# variable by variable (h5py; matio stamps times into it), also with
# sparsity patterns that change between points on both ranks; a failing and a
# crashing rank end the run naming the rank and the point, with no output
# file and no temporary file left.  The binary: $JG_MPI_BUILD/tools/jacgraph
# when set (tools/quickstart.sh builds build-mpi with -Dmpi=enabled), else
# $JACGRAPH.  Skipped with a message when mpirun is missing or the binary
# was built without MPI.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
py=/usr/bin/python3
[ -n "${JG_MPI_BUILD:-}" ] && J=$JG_MPI_BUILD/tools/jacgraph
mpi=(mpirun --oversubscribe -np 2)
[ "$(id -u)" -eq 0 ] && mpi+=(--allow-run-as-root)

if ! command -v mpirun >/dev/null 2>&1; then
    skip "batch across MPI ranks" "no mpirun (Debian openmpi-bin)"
    tap_done
    exit
fi

# points: a loop singular at K = 1 (one failed point) on a grid of 7, a
# 128-state Brusselator (sparse A) at 6 operating points, F-14 on a grid of
# two gains crossed with two operating points
"$py" - "$d" <<'EOF'
import json, sys
d = sys.argv[1]
loop = {"name": "loop", "parameters": {"K": 0.5}, "blocks": [
    {"name": "u", "type": "Inport", "Port": 1}, {"name": "s", "type": "Sum", "Inputs": "+++"},
    {"name": "g", "type": "Gain", "Gain": "K"}, {"name": "x", "type": "Integrator"},
    {"name": "f", "type": "Gain", "Gain": -1}, {"name": "s2", "type": "Sum", "Inputs": "++"},
    {"name": "y", "type": "Outport", "Port": 1}],
  "lines": [{"src": "u:1", "dst": "s:1"}, {"src": "s:1", "dst": "g:1"},
            {"src": "g:1", "dst": ["s:2", "y:1", "s2:2"]}, {"src": "x:1", "dst": ["s:3", "f:1"]},
            {"src": "f:1", "dst": "s2:1"}, {"src": "s2:1", "dst": "x:1"}]}
json.dump(loop, open(d + "/loop.json", "w"))
json.dump({"grid": {"K": [0.5, 1.0, 2.0, 3.0, 0.25, -1.0, 4.0]}}, open(d + "/loop_pts.json", "w"))
json.dump({"points": [{"t": 0.5 * k} for k in range(6)]}, open(d + "/bru_pts.json", "w"))
json.dump({"grid": {"Kq": [0.5, 0.8156, 1.2], "Ka": [0.677, 1.5]},
           "points": [{}, {"t": 1, "inputs": {"Stick Input": 0.2}}]}, open(d + "/f14_pts.json", "w"))
EOF
cp graphs/f14.json "$d/f14.json"
"$J" generate brusselator --states 128 --out "$d/bru.json" --quiet
ok $? "models and points written"

# the binary must have MPI: a build without it refuses mpirun (checked too)
"${mpi[@]}" "$J" batch "$d/loop.json" --points "$d/loop_pts.json" --out "$d/probe.jsonl" --jobs 1 \
    >/dev/null 2>"$d/probe.err"
if grep -q "built without MPI" "$d/probe.err"; then
    [ ! -e "$d/probe.jsonl" ]
    ok $? "a build without MPI refuses mpirun and writes nothing"
    skip "batch across MPI ranks" "$J was built without MPI (meson setup -Dmpi=enabled; tools/quickstart.sh test builds build-mpi)"
    tap_done
    exit
fi

# same_mat A B: the MAT-files hold the same variables with the same contents
same_mat() {
    "$py" - "$1" "$2" <<'EOF'
import sys
import h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
def val(f, x):
    v = x[()]
    if x.dtype == h5py.ref_dtype:
        return [val(f, f[r]) for r in v.flat]
    return (np.asarray(v).tolist(), dict(x.attrs))
keys = sorted(k for k in a if k != "#refs#")
if keys != sorted(k for k in b if k != "#refs#"):
    print("variables differ"); sys.exit(1)
for k in keys:
    va, vb = val(a, a[k]), val(b, b[k])
    if repr(va) != repr(vb):   # NaN == NaN as text
        print("variable %s differs" % k); sys.exit(1)
EOF
}

for case in loop bru f14; do
    want=0
    [ $case = loop ] && want=6   # every point ran, one failed
    for ext in jsonl h5 mat; do
        "$J" batch "$d/$case.json" --points "$d/${case}_pts.json" --jobs 1 --out "$d/one.$ext" 2>/dev/null
        rc1=$?
        "${mpi[@]}" "$J" batch "$d/$case.json" --points "$d/${case}_pts.json" --jobs 1 --out "$d/two.$ext" \
            2>"$d/err"
        rc2=$?
        [ $rc1 -eq $want ] && [ $rc2 -eq $want ] && [ -f "$d/two.$ext" ]
        ok $? "$case .$ext: 2 ranks ran (exit $rc2, single process $rc1)"
        [ $rc2 -eq $want ] || sed 's/^/#   /' "$d/err" | head -6
        if [ $ext = mat ]; then
            out=$(same_mat "$d/one.$ext" "$d/two.$ext" 2>&1)
        else
            out=$(cmp "$d/one.$ext" "$d/two.$ext" 2>&1)
        fi
        ok $? "$case .$ext: 2 ranks give the single-process file"
        [ -n "$out" ] && echo "#   $out"
        rm -f "$d/one.$ext" "$d/two.$ext"
    done
done
# patterns that change between points, on both ranks (K = 0.5 zeroes A, K = 0
# zeroes B), in the sparse layout: a rank sends a pattern once, then refers to it
"$py" -c 'import json,sys; json.dump({"grid": {"K": [0.5, 0.0, 1.0, 2.0, 0.0, 0.5, 0.0, 2.0, 0.5]}}, open(sys.argv[1], "w"))' \
    "$d/loopz_pts.json"
for ext in h5 mat; do
    "$J" batch "$d/loop.json" --points "$d/loopz_pts.json" --jobs 1 --layout sparse --out "$d/one.$ext" 2>/dev/null
    "${mpi[@]}" "$J" batch "$d/loop.json" --points "$d/loopz_pts.json" --jobs 1 --layout sparse \
        --out "$d/two.$ext" 2>"$d/err"
    rc=$?
    if [ $ext = mat ]; then out=$(same_mat "$d/one.$ext" "$d/two.$ext" 2>&1); else out=$(cmp "$d/one.$ext" "$d/two.$ext" 2>&1); fi
    [ $rc -eq 6 ] && [ -z "$out" ]
    ok $? "changing patterns, --layout sparse .$ext: 2 ranks give the single-process file (exit $rc)"
    [ -n "$out" ] && echo "#   $out"
done
"$py" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
print(list(f["A_pat"][()]), list(f["B_pat"][()]))' "$d/two.h5" >"$d/pat.txt" 2>&1
grep -qxF "[0, 1, -1, 1, 1, 0, 1, 1, 0] [0, 1, -1, 0, 1, 0, 1, 0, 0]" "$d/pat.txt"
ok $? "changing patterns: A_pat and B_pat of the 2-rank file"
grep -qxF "[0, 1, -1, 1, 1, 0, 1, 1, 0] [0, 1, -1, 0, 1, 0, 1, 0, 0]" "$d/pat.txt" || sed 's/^/#   /' "$d/pat.txt"
rm -f "$d"/one.* "$d"/two.*

# 2 ranks with 2 threads each
"$J" batch "$d/bru.json" --points "$d/bru_pts.json" --jobs 1 --out "$d/one.jsonl" 2>/dev/null
"${mpi[@]}" "$J" batch "$d/bru.json" --points "$d/bru_pts.json" --jobs 2 --out "$d/two.jsonl" 2>/dev/null &&
    cmp -s "$d/one.jsonl" "$d/two.jsonl"
ok $? "2 ranks x 2 threads give the same file"

# points handed out on request (no parameters; past each rank's first
# points): 2 and 3 ranks, 1 and 2 threads each, the single-process file
"$J" linearize "$d/bru.json" --format json --out "$d/bru_lin.json" &&
    "$py" - "$d" <<'EOF'
import json, sys
d = sys.argv[1]
names = json.load(open(d + "/bru_lin.json"))["states"]
pts = [{"t": 0.01 * k, "states": {names[(k * 7 + j) % len(names)]: 0.5 + 0.01 * ((k + j) % 13)
                                  for j in range(3)}} for k in range(400)]
json.dump({"points": pts}, open(d + "/many_pts.json", "w"))
EOF
ok $? "400 points written"
for ext in jsonl h5; do
    "$J" batch "$d/bru.json" --points "$d/many_pts.json" --jobs 1 --out "$d/one.$ext" 2>/dev/null
    for np in 2 3; do
        for jobs in 1 2; do
            "${mpi[@]}" -np $np "$J" batch "$d/bru.json" --points "$d/many_pts.json" --jobs $jobs \
                --out "$d/two.$ext" 2>"$d/err" && cmp -s "$d/one.$ext" "$d/two.$ext"
            ok $? "400 points on request, $np ranks x $jobs threads .$ext: the single-process file"
            rm -f "$d/two.$ext"
        done
    done
done
rm -f "$d"/one.*

# results of about 22 KB (the 10,000-block aerospace model) over Open MPI's
# shared memory without its single copy (CMA; as in a container that forbids
# process_vm_readv): a result travels in fragments that its sender pushes only
# when it next calls MPI, while rank 0 takes in the others' and its own
"$J" generate aerospace --blocks 10k --seed 1 --out "$d/big.json" --quiet &&
    "$J" linearize "$d/big.json" --format json --out "$d/big_lin.json" &&
    "$py" - "$d" <<'EOF'
import json, sys
d = sys.argv[1]
names = json.load(open(d + "/big_lin.json"))["states"]
pts = [{"t": 0.001 * k, "states": {names[(k * 7 + j * 13) % len(names)]: 0.01 * ((k + j) % 11 - 5)
                                   for j in range(20)}} for k in range(300)]
json.dump({"points": pts}, open(d + "/big_pts.json", "w"))
EOF
ok $? "the 10,000-block model and 300 points written"
"$J" batch "$d/big.json" --points "$d/big_pts.json" --jobs 1 --out "$d/one.h5" 2>/dev/null
"${mpi[@]}" --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism none "$J" batch \
    "$d/big.json" --points "$d/big_pts.json" --jobs 1 --out "$d/two.h5" 2>"$d/err" && cmp -s "$d/one.h5" "$d/two.h5"
ok $? "results of 22 KB in fragments (shared memory without CMA), 2 ranks: the single-process file"
rm -f "$d"/one.* "$d"/two.* "$d"/big*

# rank 0 leaves the last points to the others (1/128 of them): rank 1 failing
# at the very last one ends the run while rank 0 waits for it
JG_BATCH_MPI_FAULT=1:399:fail "${mpi[@]}" -x JG_BATCH_MPI_FAULT "$J" batch "$d/bru.json" \
    --points "$d/many_pts.json" --jobs 1 --out "$d/last.h5" >/dev/null 2>"$d/err"
rc=$?
[ $rc -ne 0 ] && grep -qF "MPI rank 1 failed: at point 399" "$d/err" && [ ! -e "$d/last.h5" ] &&
    ! ls "$d"/last.h5.part* >/dev/null 2>&1
ok $? "rank 1 that fails at the last point (left to it by rank 0): the run ends saying so, no file (exit $rc)"
grep -qF "MPI rank 1 failed: at point 399" "$d/err" || sed 's/^/#   /' "$d/err" | head -6

# a rank that fails, a rank that crashes: the run ends naming rank and point
for how in fail crash; do
    what=${how}s
    [ $how = crash ] && what=crashes
    JG_BATCH_MPI_FAULT=1:3:$how "${mpi[@]}" -x JG_BATCH_MPI_FAULT "$J" batch "$d/bru.json" \
        --points "$d/bru_pts.json" --jobs 1 --out "$d/bad.mat" >/dev/null 2>"$d/err"
    rc=$?
    if [ $how = fail ]; then msg="MPI rank 1 failed: at point 3"; else msg="MPI rank 1 of 2: fatal signal 11 at point 3"; fi
    [ $rc -ne 0 ] && grep -qF "$msg" "$d/err"
    ok $? "rank 1 that $what at point 3: the run ends saying so (exit $rc)"
    grep -qF "$msg" "$d/err" || sed 's/^/#   /' "$d/err" | head -6
    [ ! -e "$d/bad.mat" ] && ! ls "$d"/bad.mat.part* >/dev/null 2>&1
    ok $? "rank 1 that $what: no output file, no temporary file"
done

tap_done
