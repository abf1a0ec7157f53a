#!/usr/bin/env bash
# Fuzz smoke run (TAP): each libFuzzer target of the fuzz build runs a fixed
# number of inputs (FUZZ_SMOKE_RUNS, default 5000; a fixed random seed, so the
# same inputs every time) from its seed corpus, its regressions and its
# dictionary, and must finish without a crash, leak, timeout or sanitizer
# report.  The fuzz build is
# JG_FUZZ_BUILD (default build-fuzz: CC=clang meson setup build-fuzz
# -Dfuzz=enabled; ninja -C build-fuzz fuzz -- tools/quickstart.sh test makes
# it); without clang or without that build the checks are skipped.  Inputs
# that fail are kept in BUILD/fuzz-artifacts/TARGET/ (tests/fuzz/README.md:
# minimize one, add it to tests/fuzz/regress/TARGET/).  Long runs: tests/fuzz/long.sh.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
targets="model opfile mdl slx xml expr"
fz=${JG_FUZZ_BUILD:-$top/build-fuzz}
runs=${FUZZ_SMOKE_RUNS:-5000}
why=""
if ! command -v clang >/dev/null 2>&1; then
    why="clang is not installed (the libFuzzer targets need it)"
elif [ ! -x "$fz/tests/fuzz/fuzz_model" ]; then
    why="no fuzz build in $fz (CC=clang meson setup $fz -Dfuzz=enabled; ninja -C $fz fuzz)"
fi
if [ -n "$why" ]; then
    echo "# fuzz smoke run skipped: $why"
    for t in $targets; do skip "$t: $runs fuzzed inputs" "$why"; done
    tap_done
    exit
fi
# not the suite's ASAN_OPTIONS: fast_unwind_on_malloc=0 would slow libFuzzer tenfold
export ASAN_OPTIONS=${FUZZ_ASAN_OPTIONS:-detect_leaks=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$top/tests/lsan.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for t in $targets; do
    exe=$fz/tests/fuzz/fuzz_$t
    art=$fz/fuzz-artifacts/$t
    mkdir -p "$d/$t" "$art"
    seeds=(tests/fuzz/corpus/$t)
    [ -d tests/fuzz/regress/$t ] && seeds+=(tests/fuzz/regress/$t)
    start=$(date +%s)
    # new inputs go to the scratch corpus (the first directory), never to the tree
    "$exe" -runs="$runs" -seed=1 -timeout=25 -rss_limit_mb=2048 -dict=tests/fuzz/$t.dict \
        -artifact_prefix="$art/" -print_final_stats=1 "$d/$t" "${seeds[@]}" \
        </dev/null >"$d/$t.log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$d/$t.log")
    cov=$(grep -E '^#[0-9]+' "$d/$t.log" | tail -1 | sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/cov \1, ft \2/p')
    [ $rc -eq 0 ] && grep -q '^Done [0-9]* runs' "$d/$t.log"
    ok $? "$t: ${execs:-?} fuzzed inputs in ${secs}s without a crash (${cov:-no stats})"
    if [ $rc -ne 0 ]; then
        echo "#   exit $rc; the failing input is kept in $art/:"
        grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written|.*runtime error)' "$d/$t.log" \
            | head -8 | sed 's/^/#   /'
    fi
done
tap_done
