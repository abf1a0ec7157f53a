#!/usr/bin/env bash
# Run every fuzz target for DURATION seconds each and summarize the runs as a
# markdown table: executions, speed, coverage (libFuzzer's final cov: edges
# and ft: features), corpus size (corp:, seeds included) and the failing
# inputs found.  Nightly-style: the grown corpora and the failing inputs are
# kept under OUTDIR.
#   tests/fuzz/long.sh DURATION [JOBS] [TARGET...]
#     DURATION  seconds per target
#     JOBS      libFuzzer processes per target (-fork=JOBS when > 1; default 1)
#     TARGET    a subset of: model opfile mdl slx xml expr (default: all)
# Environment: JG_FUZZ_BUILD (default build-fuzz), OUTDIR (default
# BUILD/fuzz-long/DATE), FUZZ_SEED_CORPUS=0 to start from empty corpora.
# The table goes to standard output and to OUTDIR/summary.md.  Exit 1 when a
# target crashed.  tests/fuzz/README.md says what to do with a crash.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
if [ $# -lt 1 ] || ! [ "$1" -gt 0 ] 2>/dev/null; then
    echo "usage: tests/fuzz/long.sh DURATION [JOBS] [TARGET...]" >&2
    exit 2
fi
dur=$1
jobs=${2:-1}
shift $(($# >= 2 ? 2 : 1))
targets=${*:-model opfile mdl slx xml expr}
fz=${JG_FUZZ_BUILD:-$top/build-fuzz}
out=${OUTDIR:-$fz/fuzz-long/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
# not the suite's ASAN_OPTIONS: fast_unwind_on_malloc=0 would slow libFuzzer tenfold
export ASAN_OPTIONS=${FUZZ_ASAN_OPTIONS:-detect_leaks=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$top/tests/lsan.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

summary=$out/summary.md
{
    echo "Fuzzing $(git -C "$top" describe --always --dirty 2>/dev/null || echo '?'), $dur s per target, $jobs job(s), $(date -u +%Y-%m-%dT%H:%MZ)"
    echo
    echo "| target | seconds | executions | exec/s | cov | ft | corpus | crashes |"
    echo "|---|---:|---:|---:|---:|---:|---:|---|"
} >"$summary"
crashed=0
for t in $targets; do
    exe=$fz/tests/fuzz/fuzz_$t
    if [ ! -x "$exe" ]; then
        echo "long.sh: no $exe (CC=clang meson setup $fz -Dfuzz=enabled; ninja -C $fz fuzz)" >&2
        exit 2
    fi
    corpus=$out/corpus/$t
    art=$out/artifacts/$t
    mkdir -p "$corpus" "$art"
    seeds=()
    if [ "${FUZZ_SEED_CORPUS:-1}" != 0 ]; then
        seeds=(tests/fuzz/corpus/$t)
        [ -d tests/fuzz/regress/$t ] && seeds+=(tests/fuzz/regress/$t)
    fi
    par=()
    # fork mode keeps going after a crash (each child is restarted)
    [ "$jobs" -gt 1 ] && par=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    echo "long.sh: $t for $dur s ..." >&2
    start=$(date +%s)
    "$exe" -max_total_time="$dur" -timeout=25 -rss_limit_mb=2048 -dict=tests/fuzz/$t.dict \
        -artifact_prefix="$art/" -print_final_stats=1 "${par[@]}" "$corpus" "${seeds[@]}" \
        </dev/null >"$out/$t.log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    log=$out/$t.log
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    [ -z "$execs" ] && execs=$(grep -E '^#[0-9]+' "$log" | tail -1 | sed 's/^#\([0-9]*\).*/\1/')
    last=$(grep -E '^#[0-9]+|^\[[0-9]+\] #[0-9]+|cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
    cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
    ncorp=$(sed -n 's/.*corp: \([0-9]*\).*/\1/p' <<<"$last")
    found=$(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'slow-unit-*' \) | wc -l)
    kinds=$(find "$art" -type f -printf '%f\n' | sed 's/-.*//' | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')
    [ "$found" -gt 0 ] && crashed=1
    [ $rc -ne 0 ] && [ "$found" -eq 0 ] && kinds="exit $rc, see $t.log" && crashed=1
    rate=$([ "${execs:-0}" -gt 0 ] && [ $secs -gt 0 ] && echo $((execs / secs)) || echo "?")
    echo "| $t | $secs | ${execs:-?} | $rate | ${cov:-?} | ${ft:-?} | ${ncorp:-?} | ${kinds:-none} |" >>"$summary"
done
{
    echo
    echo "Logs, grown corpora and failing inputs: $out"
} >>"$summary"
cat "$summary"
exit $crashed
