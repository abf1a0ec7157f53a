#!/usr/bin/env bash
# Out of memory is an error like any other (TAP): every allocation of a few
# commands (read -> compile -> linearize, check, a short simulation, a batch)
# is failed in turn with tests/failmalloc.c preloaded, and each run must
# either succeed with exactly the output of an undisturbed run, or exit 70
# saying "out of memory" (a batch may instead mark the point that ran out
# "out of memory" and exit 6, its other lines those of the undisturbed run).
# Any other exit code (a "singular" or "mismatch" verdict, a parse error), a
# signal, or output that differs (names printed as "?") fails.
#
# Cost: one process per failed allocation.  OOM_SWEEP_FULL=1 fails every
# allocation; by default each command gets at most OOM_SWEEP_RUNS runs (120)
# at an even stride, the offset turning with the day so that successive runs
# of the suite cover different allocations.  OOM_SWEEP_K=k1,k2 replays chosen
# allocations of every command.
#
# Spared: allocations inside libjansson (FAILSKIP): jansson 2.14 frees a
# buffer twice inside json_loadb when one of its allocations fails (a
# double-free abort), which no caller can prevent.  CVODE (ode15s) is not
# swept: its allocation failures inside CVode() are reported by CVODE as
# generic failures ("CV_MEM_FAIL" is returned only from setup).  The sweep
# needs the plain build: under ASan the preloaded allocator would come before
# the sanitizer's (the test skips).
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"

if ldd "$J" 2>/dev/null | grep -q 'libasan\|libubsan'; then
    skip "allocation-failure sweep" "a sanitizer build (the preloaded allocator needs the plain build)"
    tap_done
    exit
fi
fm=$d/failmalloc.so
cc -O2 -shared -fPIC -o "$fm" tests/failmalloc.c -ldl 2>"$d/cc.err"
rc=$?
ok $rc "failmalloc.so builds"
if [ $rc -ne 0 ]; then
    sed 's/^/# /' "$d/cc.err"
    tap_done
    exit
fi

runs=${OOM_SWEEP_RUNS:-250}
rel=tests/data/reliability
cases=(
    "check graphs/algebraic_loop.json"
    "linearize graphs/mimo_feedback.json"
    "linearize $rel/oom_loop_small.json --format json"
    "simulate graphs/vdp.json --stop 1 --out-step 0.1"
    "simulate graphs/bounce.json --stop 1 --out-step 0.25"
    "batch graphs/vdp.json --at 0,0.5 --jobs 1 --no-progress"
)

start=$(date +%s)
for c in "${cases[@]}"; do
    read -r -a argv <<<"$c"
    ref=$("$J" "${argv[@]}" 2>"$d/ref.err")
    rc=$?
    ok $rc "undisturbed: jacgraph $c"
    total=$(COUNT_ONLY=1 LD_PRELOAD=$fm "$J" "${argv[@]}" 2>&1 >/dev/null | sed -n 's/^ALLOCS //p' | tail -1)
    [ -n "$total" ] && [ "$total" -gt 0 ]
    ok $? "jacgraph $c makes $total allocations"
    [ -n "$total" ] || continue
    if [ -n "${OOM_SWEEP_K:-}" ]; then
        ks=$(tr ',' ' ' <<<"$OOM_SWEEP_K")
    elif [ -n "${OOM_SWEEP_FULL:-}" ] || [ "$total" -le "$runs" ]; then
        ks=$(seq 1 "$total")
    else
        stride=$(( (total + runs - 1) / runs ))
        off=$(( $(date +%j | sed 's/^0*//') % stride + 1 ))
        ks="$(seq "$off" "$stride" "$total") $total"
    fi
    bad=""
    nrun=0
    for k in $ks; do
        nrun=$((nrun + 1))
        out=$(FAILSKIP=libjansson FAILAT=$k LD_PRELOAD=$fm "$J" "${argv[@]}" 2>"$d/err")
        rc=$?
        if [ $rc -eq 0 ] && [ "$out" == "$ref" ]; then continue; fi
        if [ $rc -eq 70 ] && grep -q "out of memory" "$d/err"; then continue; fi
        # batch: a point that ran out of memory is marked failed and the others
        # go on (exit 6); every other line must be the undisturbed run's
        if [ "${argv[0]}" = batch ] && [ $rc -eq 6 ] && grep -q "points failed" "$d/err" &&
            grep -q '"ok": false, "error": "[^"]*out of memory' <<<"$out" &&
            ! grep -v '"ok": false, "error": "[^"]*out of memory' <<<"$out" | grep -qvxFf <(echo "$ref"); then
            continue
        fi
        bad="$bad k=$k:exit=$rc"
        echo "# jacgraph $c with allocation $k failed: exit $rc, $(head -c 300 "$d/err" | tr '\n' ' ')"
        [ $rc -eq 0 ] && diff <(echo "$ref") <(echo "$out") | head -6 | sed 's/^/#   /'
    done
    [ -z "$bad" ]
    ok $? "jacgraph $c: $nrun of $total allocations failed in turn, each a clean exit 70 or the right output${bad:+ (bad:$bad)}"
done
echo "# sweep time: $(( $(date +%s) - start )) s"
tap_done
